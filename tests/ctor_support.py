"""Helpers for the constructor tests: where a source's bytes live, and the
dtypes every constructor must handle."""
import numpy as np
import pytest

import pytensor

# Every NumPy dtype pytensor (and torch.from_numpy) supports, by shared name.
NUMPY_DTYPES = ["bool", "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64",
                "float16", "float32", "float64", "complex64", "complex128"]
ALL_DTYPES = NUMPY_DTYPES + ["bfloat16"]
GRAD_DTYPES = ["float16", "bfloat16", "float32", "float64", "complex64", "complex128"]
NO_GRAD_DTYPES = [d for d in ALL_DTYPES if d not in GRAD_DTYPES]


def address(obj):
    """Address of the first byte of an ndarray, a tensor or any buffer-protocol object."""
    if isinstance(obj, np.ndarray):
        return obj.__array_interface__["data"][0]
    if hasattr(obj, "data_ptr"):
        return obj.data_ptr()
    view = np.frombuffer(obj, dtype=np.uint8)  # holds the export only until it dies below
    try:
        return view.__array_interface__["data"][0]
    finally:
        del view


def sample(dtype_name, n=4):
    """n values of a NumPy dtype whose neighbours all differ (so a write is observable)."""
    if dtype_name == "bool":
        return np.arange(n) % 2 == 1
    values = np.arange(1, n + 1)
    if dtype_name.startswith("complex"):
        return (values * (1 + 2j)).astype(dtype_name)
    return values.astype(dtype_name)


def pt_dtype(name):
    return getattr(pytensor, name)


def assert_shares_numpy(make, name):
    """``make(a)`` of a NumPy array of dtype ``name`` is a tensor of the matching dtype over ``a``'s own
    bytes: a write through either one is seen through the other. Returns ``(a, t)``."""
    a = sample(name, 4)
    t = make(a)
    assert t.dtype is pt_dtype(name) and t.data_ptr() == address(a)
    assert t.tolist() == a.tolist()
    t[0] = a[1].item()
    assert a[0] == a[1]
    a[3] = a[2]
    assert t[3].item() == a[2].item()
    return a, t


def assert_shares_read_only(make):
    """``make(a)`` of a read-only NumPy array is a tensor over ``a``'s bytes that refuses writes
    (ReadOnlyError). Returns ``(a, t)``."""
    a = np.arange(4.0)
    a.flags.writeable = False
    t = make(a)
    assert t.data_ptr() == address(a)
    with pytest.raises(pytensor.ReadOnlyError):
        t[0] = 1.0
    assert a[0] == 0
    return a, t
