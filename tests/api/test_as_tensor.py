"""as_tensor: the same tensor when nothing changes, NumPy arrays (0-d too)
shared, everything else copied; buffer objects are read as sequences, not
as raw bytes."""
import array

import numpy as np
import pytest

import pytensor
from ctor_support import NUMPY_DTYPES, address, assert_shares_numpy, assert_shares_read_only, pt_dtype


def test_tensor_is_returned_itself():
    t = pytensor.arange(5)[1:]
    assert pytensor.as_tensor(t) is t
    assert pytensor.as_tensor(t, dtype=pytensor.int64) is t
    assert pytensor.as_tensor(t, device="cpu") is t


def test_tensor_of_another_dtype_is_copied():
    t = pytensor.arange(12).view(3, 4).T
    c = pytensor.as_tensor(t, dtype=pytensor.float32)
    assert c is not t and c.data_ptr() != t.data_ptr()
    assert c.dtype is pytensor.float32 and c.tolist() == [[float(x) for x in row] for row in t.tolist()]
    assert c.stride() == t.stride()            # the copy keeps the dense column-major layout


def test_tensor_with_an_indexed_device_is_copied_like_torch():
    t = pytensor.zeros(2)
    assert pytensor.as_tensor(t, device="cpu:0").data_ptr() != t.data_ptr()


def test_dtype_change_keeps_autograd_history():
    x = pytensor.ones(3, dtype=pytensor.float64, requires_grad=True)
    y = pytensor.as_tensor(x, dtype=pytensor.float32)
    assert y.grad_fn.name() == "ToCopyBackward0" and not y.is_leaf and y.requires_grad
    (y * 3).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0, 3.0] and x.grad.dtype is pytensor.float64
    assert pytensor.as_tensor(x) is x and x.requires_grad


@pytest.mark.parametrize("name", NUMPY_DTYPES)
def test_every_numpy_dtype_is_shared(name):
    assert_shares_numpy(pytensor.as_tensor, name)


def test_numpy_of_another_dtype_is_copied():
    a = np.arange(12.0).reshape(3, 4).T
    t = pytensor.as_tensor(a, dtype=pytensor.float32)
    assert t.data_ptr() != address(a) and t.tolist() == a.tolist() and t.stride() == (1, 4)


def test_0d_array_is_shared():
    a = np.array(3.5)
    t = pytensor.as_tensor(a)
    assert t.dim() == 0 and t.data_ptr() == address(a)
    t.fill_(1.0)
    assert a == 1.0


def test_numpy_refusals_are_from_numpys():
    with pytest.raises(ValueError, match="negative"):
        pytensor.as_tensor(np.arange(3)[::-1])
    with pytest.raises(ValueError, match="byte order"):
        pytensor.as_tensor(np.arange(3, dtype=">f4"))
    with pytest.raises(TypeError, match="numpy.str_"):
        pytensor.as_tensor(np.array(["x"]))


def test_read_only_array_is_shared_read_only():
    assert_shares_read_only(pytensor.as_tensor)


def test_numpy_scalars_are_copied_with_their_dtype():
    for name in ("float32", "float16", "int16", "uint8", "bool", "complex64"):
        s = np.dtype(name).type(1)
        t = pytensor.as_tensor(s)
        assert t.dim() == 0 and t.dtype is pt_dtype(name) and t.item() == s.item()
    with pytest.raises(TypeError, match="an integer is required"):
        pytensor.as_tensor(np.uint64(3))


@pytest.mark.parametrize("src, values", [
    (bytearray(b"ab"), [97, 98]),
    (array.array("i", [1, 2]), [1, 2]),
    (memoryview(np.arange(3, dtype=np.int32)), [0, 1, 2]),
])
def test_buffers_are_iterated_and_copied(src, values):
    t = pytensor.as_tensor(src)
    assert t.dtype is pytensor.int64 and t.tolist() == values
    t[0] = 7
    assert list(src)[0] == values[0]


def test_bytes_are_refused():
    with pytest.raises(TypeError, match="invalid data type 'bytes'"):
        pytensor.as_tensor(b"ab")


@pytest.mark.parametrize("data", [[1, 2, 3], [[1.5], [2.5]], (True, False), 7, 2.5, 1 + 2j, range(3), []])
def test_python_data_matches_tensor(data):
    a, b = pytensor.as_tensor(data), pytensor.tensor(data)
    assert (a.dtype, a.shape, a.tolist()) == (b.dtype, b.shape, b.tolist())
    c = pytensor.as_tensor(data, dtype=pytensor.complex128)
    assert c.dtype is pytensor.complex128 and c.shape == b.shape
    assert np.array_equal(np.array(c.tolist(), dtype=complex), np.array(b.tolist(), dtype=complex))


def test_sequences_of_tensors_and_numpy_scalars_are_copied():
    parts = [pytensor.tensor(1.5, dtype=pytensor.float64), 2.5]
    t = pytensor.as_tensor(parts)
    assert t.dtype is pytensor.float64 and t.tolist() == [1.5, 2.5]
    t[0] = 0
    assert parts[0].item() == 1.5
    assert pytensor.as_tensor([np.int32(1), np.int32(2)]).dtype is pytensor.int32


def test_errors_are_tensors():
    with pytest.raises(TypeError, match="invalid data type"):
        pytensor.as_tensor([0, "torch"])
    z = [0]
    z.append(z)
    with pytest.raises(TypeError, match="self-referential lists are incompatible"):
        pytensor.as_tensor(z)
    w = [0]
    w.append([w])
    with pytest.raises(TypeError, match="self-referential lists are incompatible"):
        pytensor.as_tensor(w)


def test_argument_rules():
    with pytest.raises(TypeError):
        pytensor.as_tensor([1], pytensor.float64)        # dtype is keyword-only
    with pytest.raises(TypeError):
        pytensor.as_tensor([1.0], requires_grad=True)    # no requires_grad parameter
    with pytest.raises(TypeError, match="'dtype' must be"):
        pytensor.as_tensor([1], dtype=np.float32)
    with pytest.raises(RuntimeError):
        pytensor.as_tensor([1], device="cuda")
    assert not pytensor.as_tensor(np.ones(2)).requires_grad
