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


# ---------------------------------------------------------------- the one dtype table
def test_the_table_has_one_row_per_libtensor_dtype():
    from pytensor._ffi import ffi, lib
    assert len(dtypes.ALL) == lib.LT_DTYPE_COUNT == 21
    for code, d in enumerate(dtypes.ALL):
        assert d.code == code and dtypes.by_code[code] is d, d
        assert ffi.string(lib.lt_dtype_name(code)).decode() == d.name
        assert d.itemsize == lib.lt_dtype_itemsize(code)
        assert getattr(pytensor, d.name) is d
        assert d.tensor_type_name == d.scalar_type_name + "Tensor"


@pytest.mark.parametrize("name", NAMES)
def test_the_table_matches_torch(name):
    torch = require_module("torch")
    d = getattr(pytensor, name)
    t = torch.zeros(1, dtype=getattr(torch, name))
    assert t.type() == f"torch.{d.tensor_type_name}"  # torch's legacy type name: ScalarType + "Tensor"
    assert t.element_size() == d.itemsize
    assert t.dtype.is_floating_point == d.is_floating_point and t.dtype.is_complex == d.is_complex
    for alias in d.aliases:
        assert getattr(torch, alias) is getattr(torch, name) and getattr(pytensor, alias) is d
    assert pytensor.zeros(1, dtype=d).type() == f"pytensor.{d.tensor_type_name}"


def test_scalar_type_names_are_those_torch_prints():
    torch = require_module("torch")
    for name in ("uint8", "int16", "bool", "uint16"):
        with pytest.raises(RuntimeError) as want:
            torch.zeros(2, dtype=getattr(torch, name)).mean()
        with pytest.raises(RuntimeError) as got:
            pytensor.zeros(2, dtype=getattr(pytensor, name)).mean()
        assert want.value.args[0].rsplit("Got: ", 1)[1] == got.value.args[0].rsplit("Got: ", 1)[1] == \
            getattr(pytensor, name).scalar_type_name


def test_the_table_matches_numpy():
    np = require_module("numpy")
    import struct
    with_numpy = [d for d in dtypes.ALL if d._np_name is not None]
    assert len(with_numpy) == 14  # every dtype but bfloat16 and the low-precision floats
    for d in with_numpy:
        assert np.dtype(d._np_name).itemsize == d.itemsize and dtypes.from_numpy_dtype(np.dtype(d._np_name)) is d
        if not d.is_complex:  # struct has no complex formats (memoryview's 'Zf' is not struct's)
            assert struct.calcsize(d._struct) == d.itemsize
