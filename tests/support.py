"""Helpers shared by test modules (importable because pytest's pythonpath
includes tests/)."""
import contextlib
import importlib
import json
import os
import shutil

import pytest

IN_CI = bool(os.environ.get("CI"))


def require_module(name):
    """Import ``name`` or skip (fail under CI). Called at a module's top, it skips
    (or fails) the whole module at collection."""
    try:
        return importlib.import_module(name)
    except ImportError as e:
        if IN_CI:
            pytest.fail(f"CI needs {name!r} for this test, and it is not installed: {e}")
        pytest.skip(f"{name} is not installed", allow_module_level=True)


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


def teaching_cases(tmp_path):
    """The layouts a teacher shows first, each as (title, objects, names): the inspector's browser and
    key tests draw the same ones."""
    import numpy as np
    import pytensor
    t = pytensor.arange(12, dtype=pytensor.int32)
    a = np.arange(6, dtype=np.int32)
    buf = bytearray(range(24))
    path = tmp_path / "weights.bin"
    np.arange(8, dtype=np.float32).tofile(path)
    m = pytensor.from_file(str(path), shared=True, dtype=pytensor.float32)
    return [
        ("flipped", [a, a[::-1]], ["a", "a[::-1]"]),
        ("transposed", [t, t.view(3, 4).T], ["t", "t.view(3, 4).T"]),
        ("expanded", [t, t[:1].expand(6)], ["t", "t[:1].expand(6)"]),
        ("negative-stride DLPack import", [a, pytensor.from_dlpack(a[::-1])], ["a", "from_dlpack(a[::-1])"]),
        ("one bytearray, two offsets", [buf, pytensor.frombuffer(buf, dtype=pytensor.int16, count=4),
                                        pytensor.frombuffer(buf, dtype=pytensor.int32, offset=8)],
         ["buf", "lo", "hi"]),
        ("from_file at an offset", [m, m[3:6]], ["m", "m[3:6]"]),
    ]


@contextlib.contextmanager
def declining(module, *names):
    """Within the block each ``module.<name>`` (a one-crossing fast path, whose None means "declined")
    declines every call, so what calls it runs its Python path."""
    saved = {name: getattr(module, name) for name in names}
    for name in names:
        setattr(module, name, lambda *args: None)
    try:
        yield
    finally:
        for name, fn in saved.items():
            setattr(module, name, fn)


def outcome(fn):
    """What ``fn()`` answers, in a form that compares across paths and libraries: the exception's type
    name, a bool, a tuple of outcomes, or a tensor's (dtype name, shape, strides, values). The values
    are compared by repr, so NaN equals NaN."""
    try:
        r = fn()
    except Exception as e:  # noqa: BLE001  the exception type is part of the answer
        return type(e).__name__
    if isinstance(r, bool):
        return r
    if isinstance(r, tuple):
        return tuple(outcome(lambda x=x: x) for x in r)
    return (str(r.dtype).rsplit(".", 1)[-1], tuple(r.shape), r.stride(), repr(r.tolist()))


def read_by_both(package_read, our_read):
    """``(the safetensors package's result, pytensor's)`` for one file, None for a refusal: the package
    may refuse with any exception, pytensor only with SafetensorError (anything else propagates)."""
    from pytensor.safetensors import SafetensorError
    try:
        theirs = package_read()
    except Exception:  # noqa: BLE001  (the package raises several types)
        theirs = None
    try:
        ours = our_read()
    except SafetensorError:
        ours = None
    return theirs, ours
