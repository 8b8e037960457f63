"""Every public docstring example runs (and the README's Python examples).

A module is counted only for the examples it has: modules without any are
not parametrized as passing tests (a doctest run that attempts nothing proves
nothing), and every public module must carry at least one example.
"""
import doctest
import importlib
import pathlib
import pkgutil

import pytest

import pytensor

FLAGS = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS
ALL_MODULES = sorted(m.name for m in pkgutil.walk_packages(pytensor.__path__, "pytensor.")
                     if not m.name.endswith("_build_ffi") and not m.name.endswith("_libtensor")
                     and not m.name.endswith("._shim"))
README = pathlib.Path(__file__).resolve().parents[2] / "README.md"


def _example_count(name):
    module = importlib.import_module(name)
    return sum(len(t.examples) for t in doctest.DocTestFinder().find(module))


def _public(name):
    return not any(part.startswith("_") for part in name.split("."))


WITH_EXAMPLES = [name for name in ALL_MODULES if _example_count(name) > 0]


@pytest.mark.parametrize("name", WITH_EXAMPLES)
def test_module_doctests(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=FLAGS)
    assert result.attempted > 0
    assert result.failed == 0


def test_public_modules_have_examples():
    """A public module's docstrings show how it is used; the package itself is one of them."""
    public = [name for name in ["pytensor", *ALL_MODULES] if _public(name)]
    assert "pytensor.safetensors" in public and "pytensor.dtypes" in public
    missing = [name for name in public if _example_count(name) == 0]
    assert not missing, f"public modules without a docstring example: {missing}"


def test_package_docstrings_run():
    result = doctest.testmod(pytensor, optionflags=FLAGS)
    assert result.attempted > 0 and result.failed == 0


def test_readme_examples():
    result = doctest.testfile(str(README), module_relative=False, optionflags=FLAGS)
    assert result.failed == 0
    assert result.attempted > 0


def test_public_functions_document_sharing():
    """The first sentence of each constructor's docstring says share or copy."""
    for fn in (pytensor.tensor, pytensor.as_tensor, pytensor.asarray, pytensor.from_numpy, pytensor.frombuffer,
               pytensor.zeros, pytensor.empty, pytensor.ones, pytensor.full, pytensor.arange):
        first = fn.__doc__.strip().split(".")[0].lower()
        assert any(w in first for w in ("share", "copies", "copy", "new memory")), fn.__name__
