"""numpy()'s common case (a host tensor outside a graph, no conjugate/negative bit) is one C call
that pins the storage, then numpy.asarray: the array is the one _convert_out.to_numpy makes (shape,
strides, dtype, address, writeability, the pin); every other tensor takes to_numpy, with its
refusals and numpy(force=True)'s detached export."""
import numpy as np
import pytest

import pytensor
from pytensor import _convert_out
from pytensor._ffi import lib, shim


def _pinned(t):
    return bool(lib.lt_storage_flags(t.untyped_storage()._ptr) & lib.LT_STORAGE_PINNED)


def _facts(arr):
    return (arr.shape, arr.strides, arr.dtype, arr.__array_interface__["data"], arr.flags.writeable, arr.tolist())


CASES = {
    "contiguous": lambda: pytensor.arange(12.0).view(3, 4),
    "transposed": lambda: pytensor.arange(12, dtype=pytensor.int16).view(3, 4).T,
    "offset and step": lambda: pytensor.arange(20.0)[3::2],
    "0-d": lambda: pytensor.tensor(2.5),
    "empty": lambda: pytensor.zeros(0, 3),
    "read-only": lambda: pytensor.frombuffer(bytes(range(8)), dtype=pytensor.uint8),
    "complex": lambda: pytensor.tensor([1 + 2j, 3j]),
    "bool": lambda: pytensor.tensor([True, False]),
}


@pytest.mark.parametrize("case", list(CASES))
def test_c_path_makes_the_array_to_numpy_makes(case):
    a, b = CASES[case](), CASES[case]()
    assert not _pinned(a) or case == "read-only"
    assert shim.pin_for_numpy(a) is True and _pinned(a)
    got, want = a.numpy(), _convert_out.to_numpy(b)
    assert _facts(got)[:3] == _facts(want)[:3] and _facts(got)[4:] == _facts(want)[4:]
    assert got.__array_interface__["data"][0] == a.data_ptr() and _pinned(b)
    del a
    assert got.tolist() == want.tolist()  # the array keeps the memory alive


def test_declined_tensors_take_to_numpy():
    x = pytensor.ones(2, requires_grad=True)
    assert shim.pin_for_numpy(x) is False and not _pinned(x)
    with pytest.raises(RuntimeError, match="requires grad"):
        x.numpy()
    forced = x.numpy(force=True)
    assert forced.tolist() == [1.0, 1.0] and forced.__array_interface__["data"][0] == x.data_ptr()
    c = pytensor.tensor([1 + 2j]).conj()
    assert shim.pin_for_numpy(c) is False and not _pinned(c)
    with pytest.raises(RuntimeError, match="conj"):
        c.numpy()
    assert np.asarray(c.resolve_conj()).tolist() == [1 - 2j]
