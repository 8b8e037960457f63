"""The whole Python suite a second time, against an AddressSanitizer + UndefinedBehaviorSanitizer
build of the extension (separate build directory and virtual environment). Any report fails.

It takes several minutes, so on a developer machine it runs only with
PYTENSOR_SANITIZE=1; under CI it always runs (and a missing compiler fails).
The C tests get their own sanitizer and valgrind runs in test_c_suite.py.
"""
import os
import subprocess
import sys
from pathlib import Path

import pytest

from support import IN_CI, require_program

ROOT = Path(__file__).resolve().parent.parent
# Left out of the sanitized pass: the browser tests (Chromium is not what we
# are checking), the C suite (sanitized on its own) and this file itself.
SKIP_FILES = ("test_widgets_browser.py", "test_c_suite.py", "test_sanitized_suite.py", "test_widgets_js.py")


def _runtime(cc, name):
    return subprocess.run([cc, f"-print-file-name={name}"], capture_output=True, text=True,
                          check=True).stdout.strip()


@pytest.mark.skipif(bool(os.environ.get("PYTENSOR_UNDER_SANITIZER")), reason="already the sanitized pass")
def test_python_suite_under_asan_and_ubsan(tmp_path):
    if not (IN_CI or os.environ.get("PYTENSOR_SANITIZE") == "1"):
        pytest.skip("slow: set PYTENSOR_SANITIZE=1 to run (CI always does)")
    cc = require_program("gcc")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    py = venv / "bin" / "python"
    build = subprocess.run(
        [str(py), "-m", "pip", "install", "--quiet", "--no-build-isolation", "--no-deps",
         f"-Cbuild-dir={tmp_path / 'build'}", "-Csetup-args=-Db_sanitize=address,undefined",
         "-Csetup-args=-Dbuildtype=debugoptimized", "-Csetup-args=-Dtests=false", str(ROOT)],
        capture_output=True, text=True, timeout=900)
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    env = dict(os.environ,
               # libstdc++ is preloaded too: torch throws C++ exceptions, and ASan's
               # __cxa_throw interceptor needs the real one present at start-up.
               LD_PRELOAD=f"{_runtime(cc, 'libasan.so')} {_runtime(cc, 'libstdc++.so')}",
               # CPython's own allocations at exit are not ours to report; a refused
               # huge allocation must return NULL (our OutOfMemoryError path), not abort.
               ASAN_OPTIONS="detect_leaks=0:allocator_may_return_null=1",
               UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1",
               PYTENSOR_UNDER_SANITIZER="1")
    tests = sorted(str(p) for p in (ROOT / "tests").glob("test_*.py") if p.name not in SKIP_FILES)
    run = subprocess.run(
        [str(py), "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--rootdir={ROOT}",
         "-c", str(ROOT / "pyproject.toml"), *tests],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=2400)
    out = run.stdout + run.stderr
    where = subprocess.run([str(py), "-c", "import pytensor; print(pytensor.__file__)"], cwd=tmp_path, env=env,
                           capture_output=True, text=True).stdout.strip()
    assert where.startswith(str(venv)), f"the sanitized pass imported {where!r}, not the sanitized build"
    for marker in ("ERROR: AddressSanitizer", "runtime error:"):
        assert marker not in out, out[-6000:]
    assert run.returncode == 0, out[-6000:]
