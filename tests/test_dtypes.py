"""dtype objects, the default dtype, and promotion against torch."""
import itertools

import pytest

import pytensor
from pytensor import dtypes
from support import require_module

NAMES = [d.name for d in dtypes.ALL]


def test_repr_and_sizes():
    assert repr(pytensor.float32) == "pytensor.float32"
    assert [d.itemsize for d in dtypes.ALL] == [1, 1, 2, 4, 8, 1, 2, 4, 8, 2, 2, 4, 8, 8, 16, 1, 1, 1, 1, 1, 1]
    assert pytensor.float is pytensor.float32 and pytensor.long is pytensor.int64 and pytensor.half is pytensor.float16
    assert pytensor.cdouble is pytensor.complex128


def test_default_dtype_round_trip():
    assert pytensor.get_default_dtype() is pytensor.float32
    pytensor.set_default_dtype(pytensor.float64)
    try:
        assert pytensor.tensor(1.5).dtype is pytensor.float64
        assert pytensor.tensor(1j).dtype is pytensor.complex128
        assert pytensor.zeros(2).dtype is pytensor.float64
    finally:
        pytensor.set_default_dtype(pytensor.float32)
    assert pytensor.tensor(1j).dtype is pytensor.complex64
    with pytest.raises(TypeError):
        pytensor.set_default_dtype(pytensor.int32)


def test_as_dtype_accepts_names_numpy_and_torch():
    np = require_module("numpy")
    assert dtypes.as_dtype("float16") is pytensor.float16
    assert dtypes.as_dtype(np.dtype("int16")) is pytensor.int16
    assert dtypes.as_dtype(np.bool_) is pytensor.bool
    with pytest.raises(TypeError):
        dtypes.as_dtype("float128")


@pytest.mark.parametrize("a, b", list(itertools.product(NAMES, NAMES)))
def test_promote_types_matches_torch(a, b):
    torch = require_module("torch")
    try:
        want = str(torch.promote_types(getattr(torch, a), getattr(torch, b))).replace("torch.", "")
        if a != b and "float4_e2m1fn_x2" in (a, b):
            # torch 2.13 promotes float4 with uint16/32/64 to float4 (and asserts on the rest): a
            # storage-only dtype has no promotion, so pytensor refuses every pair (README).
            raise RuntimeError
    except RuntimeError:
        with pytest.raises(RuntimeError):
            pytensor.promote_types(getattr(pytensor, a), getattr(pytensor, b))
        return
    assert pytensor.promote_types(getattr(pytensor, a), getattr(pytensor, b)).name == want


SCALARS = [True, 2, -3, 2.5, 1 + 2j]


@pytest.mark.parametrize("name", [n for n in NAMES if n not in ("uint16", "uint32", "uint64")])
@pytest.mark.parametrize("scalar", SCALARS)
@pytest.mark.parametrize("zero_dim", [False, True])
def test_result_type_with_scalars_matches_torch(name, scalar, zero_dim):
    torch = require_module("torch")
    shape = () if zero_dim else (2,)
    try:
        want = torch.result_type(torch.zeros(shape, dtype=getattr(torch, name)), scalar)
    except RuntimeError as e:  # a complex scalar with a float8 or float4 tensor
        with pytest.raises(RuntimeError, match=str(e)):
            dtypes.result_type_of((pytensor.zeros(shape, dtype=getattr(pytensor, name)), scalar))
        return
    got = dtypes.result_type_of((pytensor.zeros(shape, dtype=getattr(pytensor, name)), scalar))
    if want == torch.complex32:
        # pytensor has no complex32 (README: other differences from torch): the
        # nearest complex dtype, complex64, holds the same values.
        assert got is pytensor.complex64
        return
    assert got.name == str(want).replace("torch.", "")


@pytest.mark.parametrize("a, b", [("int32", "int64"), ("float32", "float64"), ("int64", "float16"),
                                  ("uint8", "int8"), ("bool", "float64"), ("float32", "complex128")])
def test_result_type_dim_vs_zero_dim_matches_torch(a, b):
    torch = require_module("torch")
    tt = (torch.zeros(2, dtype=getattr(torch, a)), torch.zeros((), dtype=getattr(torch, b)))
    pt = (pytensor.zeros(2, dtype=getattr(pytensor, a)), pytensor.zeros((), dtype=getattr(pytensor, b)))
    assert dtypes.result_type_of(pt).name == str(torch.result_type(*tt)).replace("torch.", "")
