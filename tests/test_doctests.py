"""Every public docstring example runs (and the README's Python examples)."""
import doctest
import importlib
import pathlib
import pkgutil

import pytest

import pytensor

MODULES = sorted(m.name for m in pkgutil.walk_packages(pytensor.__path__, "pytensor.")
                 if not m.name.endswith("_build_ffi") and not m.name.endswith("_libtensor")
                 and not m.name.endswith("._shim"))
README = pathlib.Path(__file__).resolve().parent.parent / "README.md"


@pytest.mark.parametrize("name", MODULES)
def test_module_doctests(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    assert result.failed == 0


def test_readme_examples():
    result = doctest.testfile(str(README), module_relative=False,
                              optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    assert result.failed == 0
    assert result.attempted > 0


def test_public_functions_document_sharing():
    """The first sentence of each constructor's docstring says share or copy."""
    for fn in (pytensor.tensor, pytensor.as_tensor, pytensor.asarray, pytensor.from_numpy, pytensor.frombuffer,
               pytensor.zeros, pytensor.empty, pytensor.ones, pytensor.full, pytensor.arange):
        first = fn.__doc__.strip().split(".")[0].lower()
        assert any(w in first for w in ("share", "copies", "copy", "new memory")), fn.__name__
