"""The whole Python suite a second time, against an AddressSanitizer + UndefinedBehaviorSanitizer
build of the extension (separate build directory and virtual environment, which sees the
packages of the interpreter running this test, a virtual environment's included). Any report
fails, and any failure names its step, its command and the end of its output.

It takes several minutes, so on a developer machine it runs only with
PYTENSOR_SANITIZE=1; under CI it always runs (and a missing compiler fails).
The C tests get their own sanitizer and valgrind runs in test_c_suite.py.
"""
import os
import re
import shlex
import site
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from support import IN_CI, require_program

ROOT = Path(__file__).resolve().parents[2]
# Left out of the sanitized pass: the browser tests (Chromium is not what we
# are checking, and it cannot start with libasan preloaded; conftest.py skips
# those in other files), the C suite (sanitized on its own) and this file itself.
SKIP_FILES = ("test_widgets_browser.py", "test_c_suite.py", "test_sanitized_suite.py", "test_widgets_js.py")
STEPS = 4


def _runtime(cc, name):
    return subprocess.run([cc, f"-print-file-name={name}"], capture_output=True, text=True,
                          check=True).stdout.strip()


def _tail(text, lines=60):
    kept = text.rstrip().splitlines()[-lines:]
    return "\n".join(kept) if kept else "(no output)"


def _text(data):
    return data.decode(errors="replace") if isinstance(data, bytes) else (data or "")


def _fail(step, what, cmd, reason, output=""):
    """Fails the test with a message that names the step, the reason and the
    command, then shows what matters of its output."""
    pytest.fail(f"sanitized pass, step {step} of {STEPS} ({what}) failed: {reason}\n"
                f"$ {shlex.join(str(c) for c in cmd)}\n{output}", pytrace=False)


def _run(step, what, cmd, timeout, **kwargs):
    """Runs one step; a failure or a timeout names the step and the command and
    shows the end of its output."""
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kwargs)
    except subprocess.TimeoutExpired as e:
        _fail(step, what, cmd, f"no result after {timeout} s", "--- the end of its output ---\n"
              + _tail(_text(e.stdout) + _text(e.stderr)))
    if r.returncode != 0:
        _fail(step, what, cmd, f"exit status {r.returncode}", "--- the end of its output ---\n"
              + _tail(r.stdout + r.stderr))
    return r


def _outer_site_dirs():
    """The site-packages folders of the interpreter running this test (a
    virtual environment's own, plus the base ones where it sees those)."""
    dirs = [*site.getsitepackages(), sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]]
    return [d for i, d in enumerate(dirs) if d not in dirs[:i] and os.path.isdir(d)]


@pytest.mark.skipif(bool(os.environ.get("PYTENSOR_UNDER_SANITIZER")), reason="already the sanitized pass")
def test_python_suite_under_asan_and_ubsan(tmp_path):
    if not (IN_CI or os.environ.get("PYTENSOR_SANITIZE") == "1"):
        pytest.skip("slow: set PYTENSOR_SANITIZE=1 to run (CI always does)")
    cc = require_program("gcc")
    venv = tmp_path / "venv"
    cmd = [sys.executable, "-m", "venv", str(venv)]
    _run(1, "create a virtual environment for the sanitized build", cmd, 300)
    py = venv / "bin" / "python"
    # The new environment sees this interpreter's packages (meson-python, cffi,
    # pytest, torch, ...) through a .pth file: --system-site-packages would show
    # the base interpreter's instead, which inside a virtual environment lack
    # them. Plain folder lines only, so the .pth hooks there (an editable
    # pytensor's import finder) do not run; the environment's own site-packages,
    # where the sanitized pytensor goes, stays first on sys.path.
    own_site = _run(1, "locate its site-packages", [str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                    60).stdout.strip()
    Path(own_site, "_outer_environment.pth").write_text("".join(f"{d}\n" for d in _outer_site_dirs()))
    # meson and ninja are found on PATH: this interpreter's scripts folder holds them.
    path = os.pathsep.join([str(venv / "bin"), sysconfig.get_path("scripts"), os.environ.get("PATH", "")])
    cmd = [str(py), "-m", "pip", "install", "--quiet", "--no-build-isolation", "--no-deps",
           f"-Cbuild-dir={tmp_path / 'build'}", "-Csetup-args=-Db_sanitize=address,undefined",
           "-Csetup-args=-Dbuildtype=debugoptimized", "-Csetup-args=-Dtests=false", str(ROOT)]
    _run(2, "build and install pytensor with -Db_sanitize=address,undefined", cmd, 900,
         env=dict(os.environ, PATH=path))
    env = dict(os.environ, PATH=path,
               # libstdc++ is preloaded too: torch throws C++ exceptions, and ASan's
               # __cxa_throw interceptor needs the real one present at start-up.
               LD_PRELOAD=f"{_runtime(cc, 'libasan.so')} {_runtime(cc, 'libstdc++.so')}",
               # CPython's own allocations at exit are not ours to report; a refused
               # huge allocation must return NULL (our OutOfMemoryError path), not abort.
               ASAN_OPTIONS="detect_leaks=0:allocator_may_return_null=1",
               UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1",
               PYTENSOR_UNDER_SANITIZER="1")
    cmd = [str(py), "-c", "import pytensor; print(pytensor.__file__)"]
    where = _run(3, "import the sanitized build", cmd, 300, cwd=tmp_path, env=env).stdout.strip()
    if not where.startswith(str(venv)):
        _fail(3, "import the sanitized build", cmd, f"it imported {where!r}, not the build in {venv}")
    tests = sorted(str(p) for p in (ROOT / "tests").rglob("test_*.py") if p.name not in SKIP_FILES)
    cmd = [str(py), "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--rootdir={ROOT}",
           "-c", str(ROOT / "pyproject.toml"), *tests]
    what = "the Python suite under ASan + UBSan"
    try:
        run = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=2400)
    except subprocess.TimeoutExpired as e:
        _fail(4, what, cmd, "no result after 2400 s",
              "--- the end of its output ---\n" + _tail(_text(e.stdout) + _text(e.stderr)))
    out = run.stdout + run.stderr
    failed = [line for line in out.splitlines() if line.startswith(("FAILED ", "ERROR "))]
    reports = [marker for marker in ("ERROR: AddressSanitizer", "runtime error:") if marker in out]
    if run.returncode == 0 and not reports:
        return
    reason = f"pytest exit status {run.returncode}, {len(failed)} of its tests failed or errored"
    shown = "\n".join(failed[:40])
    if reports:
        reason += "; its output holds a sanitizer report (" + ", ".join(map(repr, reports)) + ")"
        at = min(out.find(marker) for marker in reports)
        start = at
        for _ in range(4):  # from three lines above the report's first line
            start = out.rfind("\n", 0, max(start - 1, 0)) + 1
        shown += "\n--- the first sanitizer report ---\n" + out[start:at + 6000]
    else:
        # pytest's progress lines (dots and percentages) say nothing about the failure
        kept = "\n".join(line for line in out.splitlines() if not re.fullmatch(r"[.sxXFE]+ *\[ *\d+%\]", line))
        shown += "\n--- the end of its output ---\n" + _tail(kept, 80)
    _fail(4, what, cmd, reason, shown)
