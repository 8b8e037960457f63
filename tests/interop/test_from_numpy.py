"""from_numpy always shares: same address, writes visible both ways, the
array's own strides (in elements) and shape; torch's refusals for what it
cannot share."""
import gc
import sys

import numpy as np
import pytest

import pytensor
from ctor_support import NUMPY_DTYPES, address, assert_shares_numpy, assert_shares_read_only


@pytest.mark.parametrize("name", NUMPY_DTYPES)
def test_every_supported_dtype_shares_both_ways(name):
    _, t = assert_shares_numpy(pytensor.from_numpy, name)
    assert t.storage_offset() == 0 and not t.requires_grad


@pytest.mark.parametrize("make", [
    lambda: np.arange(12.0).reshape(3, 4)[1],        # a view with a byte offset
    lambda: np.arange(12.0).reshape(3, 4).T,         # column-major
    lambda: np.arange(12.0).reshape(3, 4)[:, 1],     # holes
    lambda: np.arange(24, dtype=np.int16).reshape(2, 3, 4)[:, ::2, 1::3],
    lambda: np.broadcast_to(np.arange(3.0), (2, 3)),  # zero stride (read-only view)
    lambda: np.zeros((3, 1)),
    lambda: np.zeros((0, 2)),
    lambda: np.zeros((2, 0), dtype=np.int32),
    lambda: np.array(5.0),                            # 0-d
], ids=["offset", "transpose", "holes", "3d", "broadcast", "size1", "empty0", "empty1", "0d"])
def test_views_keep_address_shape_and_strides(make):
    a = make()
    t = pytensor.from_numpy(a)
    assert t.data_ptr() == address(a)
    assert t.shape == a.shape
    assert t.stride() == tuple(s // a.itemsize for s in a.strides)
    assert t.storage_offset() == 0
    assert t.tolist() == a.tolist()
    assert np.shares_memory(t.numpy(), a) or a.size == 0


def test_0d_array_is_shared():
    a = np.array(2.5)
    t = pytensor.from_numpy(a)
    t.fill_(7.0)
    assert a == 7.0 and t.dim() == 0


@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")
def test_subclasses_give_their_data():
    m = np.matrix([[1, 2], [3, 4]])
    assert pytensor.from_numpy(m).data_ptr() == address(m)
    masked = np.ma.MaskedArray([1, 2, 3], mask=[0, 1, 0])
    assert pytensor.from_numpy(masked).tolist() == masked.data.tolist()


@pytest.mark.parametrize("arr, typename", [
    (np.array([object()]), "object_"), (np.array(["a"]), "str_"), (np.array([b"a"]), "bytes_"),
    (np.array([1], dtype=np.longdouble), "longdouble"), (np.array([1], dtype="datetime64[s]"), "datetime64"),
    (np.array([1], dtype="timedelta64[s]"), "timedelta64"), (np.zeros(2, dtype=[("f", "i4")]), "void"),
])
def test_unsupported_dtypes_raise_type_error(arr, typename):
    with pytest.raises(TypeError, match=f"numpy.{typename}"):
        pytensor.from_numpy(arr)


@pytest.mark.parametrize("arr, match", [
    (np.arange(4.0)[::-1], "negative"),
    (np.arange(6).reshape(2, 3)[:, ::-1], "negative"),
    (np.arange(3, dtype=">f8"), "byte order"),
    (np.arange(3, dtype=">i2"), "byte order"),
    (np.ndarray((2,), dtype=np.float64, buffer=bytearray(24), strides=(12,)), "multiple of the element"),
])
def test_unshareable_layouts_raise_value_error(arr, match):
    with pytest.raises(ValueError, match=match):
        pytensor.from_numpy(arr)


def test_negative_strides_error_says_from_dlpack_takes_them():
    flipped = np.arange(6.0).reshape(2, 3)[:, ::-1]
    with pytest.raises(ValueError) as e:
        pytensor.from_numpy(flipped)
    assert "dimension 1 steps -8 bytes" in str(e.value) and "pytensor.from_dlpack(array)" in str(e.value)
    assert pytensor.from_dlpack(flipped).tolist() == flipped.tolist()     # the advice holds


@pytest.mark.parametrize("obj", [[1, 2], np.float64(1.0), 3, b"ab", None])
def test_non_arrays_raise_type_error(obj):
    with pytest.raises(TypeError, match="expected np.ndarray"):
        pytensor.from_numpy(obj)


def test_tensor_input_raises_type_error():
    with pytest.raises(TypeError, match="expected np.ndarray"):
        pytensor.from_numpy(pytensor.zeros(2))


def test_argument_rules():
    a = np.arange(3)
    with pytest.raises(TypeError):
        pytensor.from_numpy(ndarray=a)
    with pytest.raises(TypeError):
        pytensor.from_numpy()
    with pytest.raises(TypeError):
        pytensor.from_numpy(a, a)


def test_read_only_array_gives_read_only_tensor():
    a, t = assert_shares_read_only(pytensor.from_numpy)
    assert t.untyped_storage().is_readonly()
    with pytest.raises(RuntimeError):           # ReadOnlyError is a RuntimeError
        t[1:].fill_(2.0)
    assert a.tolist() == [0.0, 1.0, 2.0, 3.0]
    assert not t.numpy().flags.writeable


def test_array_cannot_be_resized_while_shared():
    a = np.arange(4.0)
    t = pytensor.from_numpy(a)
    with pytest.raises(ValueError):
        a.resize(10)
    del t
    gc.collect()
    a.resize(10, refcheck=True)
    assert a.shape == (10,)


def test_round_trip_through_numpy_shares():
    t = pytensor.arange(6, dtype=pytensor.float32).view(2, 3)
    back = pytensor.from_numpy(t.numpy())
    assert back.data_ptr() == t.data_ptr()
    back[1, 1] = -1
    assert t[1, 1].item() == -1


def test_failed_conversions_do_not_leak_the_array(live_baseline):
    bad = np.array(b"value")
    before = sys.getrefcount(bad)
    for _ in range(200):
        with pytest.raises(TypeError):
            pytensor.from_numpy(bad)
    assert sys.getrefcount(bad) == before
