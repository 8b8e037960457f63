"""Helpers shared by test modules (importable because pytest's pythonpath
includes tests/)."""
import importlib
import json
import os
import shutil

import pytest

IN_CI = bool(os.environ.get("CI"))


def require_module(name):
    """Import ``name`` or skip (fail under CI)."""
    try:
        return importlib.import_module(name)
    except ImportError as e:
        if IN_CI:
            pytest.fail(f"CI needs {name!r} for this test, and it is not installed: {e}")
        pytest.skip(f"{name} is not installed")


def require_program(name):
    """Path of an executable on PATH, or skip (fail under CI)."""
    path = shutil.which(name)
    if path is None:
        if IN_CI:
            pytest.fail(f"CI needs the program {name!r} for this test, and it is not on PATH")
        pytest.skip(f"{name} is not on PATH")
    return path


def run_unprivileged(fn, *args):
    """fn(*args) in a forked child running as nobody (65534); returns its result or raises."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:                                  # child: never returns into pytest
        try:
            os.close(r)
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
            res = {"ok": fn(*args)}
        except BaseException as e:                # noqa: BLE001
            res = {"error": f"{type(e).__name__}: {e}"}
        finally:
            try:
                os.write(w, json.dumps(res).encode())
            finally:
                os._exit(0)
    os.close(w)
    chunks = []
    while chunk := os.read(r, 1 << 16):
        chunks.append(chunk)
    os.close(r)
    os.waitpid(pid, 0)
    res = json.loads(b"".join(chunks))
    if "error" in res:
        raise AssertionError(f"unprivileged child failed: {res['error']}")
    return res["ok"]
