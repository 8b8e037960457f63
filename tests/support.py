"""Helpers shared by test modules (importable because pytest's pythonpath
includes tests/)."""
import importlib
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
