"""Runs the C test suite (`meson test`, one program per libtensor module,
plus the C example) from pytest, so the README's single test command covers
the C layer too. Needs a C compiler, meson and ninja: fails in CI without."""
import os
import pathlib
import subprocess

import pytest

from support import require_program

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _meson():
    require_program("cc")
    require_program("ninja")
    return require_program("meson")


def _build_and_test(tmp_path, *extra_setup, env=None):
    meson = _meson()
    build = tmp_path / "build"
    setup = [meson, "setup", str(build), str(ROOT), "-Dpython=false", "--buildtype=debugoptimized", *extra_setup]
    r = subprocess.run(setup, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    r = subprocess.run([meson, "test", "-C", str(build), "--print-errorlogs", "--num-processes", "2"],
                       capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stdout[-6000:] + r.stderr[-3000:]
    return build, r.stdout


def test_c_suite(tmp_path):
    _, out = _build_and_test(tmp_path)
    assert "Fail:              0" in out or " 0 failed" in out or "Fail: 0" in out.replace("  ", " ")


def test_c_suite_under_asan_ubsan(tmp_path):
    """The same C tests built with AddressSanitizer + UndefinedBehaviorSanitizer; any report fails."""
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1:abort_on_error=1",
               UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1")
    _build_and_test(tmp_path, "-Db_sanitize=address,undefined", "-Db_lundef=false", env=env)


def test_c_tests_leak_free_under_valgrind(tmp_path):
    """Every C test program runs under valgrind with zero leaks and zero errors."""
    valgrind = require_program("valgrind")
    build, _ = _build_and_test(tmp_path)
    programs = sorted(p for p in (build / "tests").iterdir() if p.name.startswith("test_") and p.is_file() and os.access(p, os.X_OK))
    assert programs, "no C test programs were built"
    for prog in programs:
        r = subprocess.run([valgrind, "--leak-check=full", "--show-leak-kinds=definite,indirect,possible",
                            "--errors-for-leak-kinds=definite,indirect,possible", "--error-exitcode=99", str(prog)],
                           capture_output=True, text=True, timeout=600)
        assert r.returncode == 0, f"{prog.name}:\n{r.stderr[-4000:]}"


def test_c_example_runs(tmp_path):
    build, _ = _build_and_test(tmp_path)
    r = subprocess.run([str(build / "examples" / "c" / "minimal")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "after b = a:       0 1 0 1 2 3 6 7" in r.stdout
    assert "live storages after release: 0" in r.stdout


def test_each_shim_file_compiles_on_its_own(tmp_path):
    """The shim's .c files share only pytensor/_shim.h: each compiles alone, warnings as errors, although the
    release build compiles them as one unit (pytensor/meson.build) so the fast paths' helpers inline."""
    import sysconfig
    cc = require_program("cc")
    sources = sorted((ROOT / "pytensor").glob("_shim*.c"))
    assert len(sources) >= 8, sources
    for src in sources:
        r = subprocess.run([cc, "-std=c11", "-D_GNU_SOURCE", "-DPy_LIMITED_API=0x030B0000", "-Wall", "-Wextra",
                            "-Werror", "-fsyntax-only", f"-I{sysconfig.get_paths()['include']}",
                            f"-I{ROOT / 'libtensor' / 'include'}", f"-I{ROOT / 'pytensor'}", str(src)],
                           capture_output=True, text=True, cwd=tmp_path)
        assert r.returncode == 0, f"{src.name}:\n{r.stderr[-3000:]}"
