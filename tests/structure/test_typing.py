"""The public API carries type hints that resolve (py.typed ships them to type checkers)."""
import importlib.resources
import inspect
import typing

import pytest

import pytensor

PUBLIC_FUNCTIONS = [
    pytensor.tensor, pytensor.as_tensor, pytensor.asarray, pytensor.from_numpy, pytensor.frombuffer,
    pytensor.from_file, pytensor.from_dlpack, pytensor.utils.dlpack.to_dlpack, pytensor.empty, pytensor.zeros,
    pytensor.ones, pytensor.full, pytensor.arange, pytensor.linspace, pytensor.rand, pytensor.randn,
    pytensor.eye, pytensor.empty_like, pytensor.zeros_like, pytensor.ones_like, pytensor.full_like,
    pytensor.rand_like, pytensor.randn_like, pytensor.manual_seed, pytensor.all, pytensor.any,
    pytensor.get_default_device, pytensor.set_default_device, pytensor.UntypedStorage.from_file,
]
TENSOR_METHODS = ["size", "stride", "storage_offset", "data_ptr", "untyped_storage", "element_size", "numel",
                  "dim", "is_contiguous", "detach", "view", "reshape", "transpose", "permute", "contiguous",
                  "clone", "to", "tolist", "item", "numpy", "all", "any", "new_tensor", "resize_", "storage"]
TENSOR_PROPERTIES = ["shape", "dtype", "device", "nbytes"]


def _unwrapped(fn):
    return inspect.unwrap(fn)


@pytest.mark.parametrize("fn", PUBLIC_FUNCTIONS, ids=lambda f: f.__name__)
def test_public_functions_are_fully_annotated(fn):
    fn = _unwrapped(fn)
    hints = typing.get_type_hints(fn)  # raises if an annotation does not resolve
    assert "return" in hints
    for name, p in inspect.signature(fn).parameters.items():
        if p.kind is p.VAR_KEYWORD:
            continue  # torch-compatible **kwargs that pytensor ignores (layout, pin_memory, ...)
        assert name in hints, f"{fn.__name__}({name}) has no type hint"


@pytest.mark.parametrize("name", TENSOR_METHODS + TENSOR_PROPERTIES)
def test_tensor_core_methods_are_annotated(name):
    attr = getattr(pytensor.Tensor, name)
    fn = _unwrapped(attr.fget if isinstance(attr, property) else attr)
    hints = typing.get_type_hints(fn)
    assert "return" in hints, name


def test_the_package_is_marked_typed():
    assert importlib.resources.files("pytensor").joinpath("py.typed").is_file()
