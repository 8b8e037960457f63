"""frombuffer always shares a 1-D byte view: offset in bytes, count in
elements, torch's four checks with torch's exception types, and pytensor's
safety rules (read-only buffers stay read-only, a bytearray stays exported)."""
import array
import gc
import mmap

import numpy as np
import pytest

import pytensor
from ctor_support import ALL_DTYPES, GRAD_DTYPES, NO_GRAD_DTYPES, NUMPY_DTYPES, address, pt_dtype, sample


# ------------------------------------------------------------------ sharing and values

@pytest.mark.parametrize("name", NUMPY_DTYPES)
@pytest.mark.parametrize("shape", [(), (4,), (3, 5)])
def test_same_type_matches_numpy_and_shares(name, shape):
    a = np.resize(sample(name, 8), shape) if shape else sample(name, 1)[0:1].reshape(())
    t = pytensor.frombuffer(memoryview(a), dtype=pt_dtype(name))
    expected = np.frombuffer(memoryview(a), dtype=name)
    assert t.data_ptr() == address(expected) == address(a)
    assert t.shape == (a.size,) and t.stride() == (1,) and t.storage_offset() == 0
    assert t.tolist() == expected.tolist()


@pytest.mark.parametrize("name", ALL_DTYPES)
def test_bytes_are_reinterpreted_as_dtype(name):
    raw = bytearray(range(1, 33))  # 32 bytes: a whole number of elements for every dtype
    t = pytensor.frombuffer(raw, dtype=pt_dtype(name))
    isz = pt_dtype(name).itemsize
    assert t.shape == (32 // isz,)
    if name == "bfloat16":  # NumPy has no bfloat16: widen the top half of a float32 by hand
        expected = (np.frombuffer(raw, np.uint16).astype(np.uint32) << 16).view(np.float32).tolist()
    else:
        expected = np.frombuffer(raw, dtype=name).tolist()
    assert t.tolist() == expected


def test_writes_show_both_ways():
    buf = bytearray(8)
    t = pytensor.frombuffer(buf, dtype=pytensor.int16)
    t[1] = 0x0102
    assert buf == bytearray(b"\x00\x00\x02\x01\x00\x00\x00\x00")
    buf[6] = 9
    assert t[3].item() == 9


@pytest.mark.parametrize("first", range(5))
@pytest.mark.parametrize("count", [-1, 1, 2, 3, 4, 5])
def test_count_and_offset_match_numpy(first, count):
    a = np.arange(5, dtype=np.int32) * 7
    isz = a.itemsize
    if count > 0 and first + count > 5:
        with pytest.raises(ValueError, match="requested buffer length"):
            pytensor.frombuffer(a, dtype=pytensor.int32, count=count, offset=first * isz)
        return
    t = pytensor.frombuffer(a, dtype=pytensor.int32, count=count, offset=first * isz)
    expected = np.frombuffer(a, dtype=np.int32, count=count, offset=first * isz)
    assert t.tolist() == expected.tolist()
    assert t.data_ptr() == address(a) + first * isz
    t[:] = -1                                   # the write covers exactly the counted elements
    assert a.tolist() == [-1 if first <= i < first + len(expected) else 7 * i for i in range(5)]


def test_unaligned_offset_with_count_is_allowed():
    buf = bytearray(range(8))
    t = pytensor.frombuffer(buf, dtype=pytensor.int32, offset=3, count=1)
    assert t.tolist() == np.frombuffer(bytes(buf), dtype=np.int32, offset=3, count=1).tolist()
    assert pytensor.frombuffer(bytearray(7), dtype=pytensor.int32, count=1).tolist() == [0]


def test_byte_to_int():
    little = np.array([-1, 0, 0, 0, -1, 0, 0, 0], dtype=np.int8)
    t = pytensor.frombuffer(little if np.little_endian else little[::-1].copy(), dtype=pytensor.int32)
    assert t.tolist() == [255, 255]


def test_bool_reads_nonzero_bytes_as_true():
    assert pytensor.frombuffer(bytearray(b"\x00\x01\x00"), dtype=pytensor.bool).tolist() == [False, True, False]


@pytest.mark.parametrize("make", [
    lambda: bytearray(16), lambda: array.array("i", range(4)), lambda: memoryview(bytearray(16)),
    lambda: memoryview(bytearray(32))[8:24], lambda: memoryview(bytearray(16)).cast("i"),
    lambda: np.zeros((2, 2), dtype=np.int32), lambda: mmap.mmap(-1, 16),
], ids=["bytearray", "array", "memoryview", "mv-slice", "mv-cast", "ndarray-2d", "mmap"])
def test_writable_exporters_share(make):
    src = make()
    t = pytensor.frombuffer(src, dtype=pytensor.int32)
    assert t.data_ptr() == address(src) and t.numel() == 4
    t[2] = 77
    assert np.frombuffer(src, dtype=np.int32)[2] == 77
    assert not t.untyped_storage().is_readonly()


def test_numpy_scalar_bytes_are_shared_read_only():
    s = np.float64(1.5)
    t = pytensor.frombuffer(s, dtype=pytensor.float64)
    assert t.tolist() == [1.5] and t.untyped_storage().is_readonly()


# ------------------------------------------------------------------ read-only exporters

@pytest.mark.parametrize("make", [
    lambda: bytes(range(8)),
    lambda: memoryview(bytes(range(8))),
    lambda: memoryview(bytearray(range(8))).toreadonly(),
    lambda: _read_only_array(),
    lambda: mmap.mmap(-1, 8, prot=mmap.PROT_READ),
], ids=["bytes", "bytes-memoryview", "readonly-memoryview", "readonly-ndarray", "prot-read-mmap"])
def test_read_only_exporters_give_read_only_tensors(make):
    src = make()
    t = pytensor.frombuffer(src, dtype=pytensor.uint8)
    before = bytes(np.frombuffer(src, dtype=np.uint8))
    assert t.data_ptr() == address(src)
    assert t.untyped_storage().is_readonly()
    with pytest.raises(pytensor.ReadOnlyError):
        t[0] = 200
    with pytest.raises(pytensor.ReadOnlyError):
        t[2:4].fill_(1)                       # every alias refuses
    with pytest.raises(pytensor.ReadOnlyError):
        t.view(pytensor.int16)[0] = 5
    assert bytes(np.frombuffer(src, dtype=np.uint8)) == before
    assert not t.numpy().flags.writeable
    copy = t.clone()                          # a copy is ordinary writable memory
    copy[0] = 200
    assert copy[0].item() == 200


def _read_only_array():
    a = np.arange(8, dtype=np.uint8)
    a.flags.writeable = False
    return a


# ------------------------------------------------------------------ the buffer stays exported

def test_bytearray_cannot_be_resized_while_a_tensor_uses_it():
    buf = bytearray(8)
    t = pytensor.frombuffer(buf, dtype=pytensor.uint8)
    view = t[2:]
    del t
    gc.collect()
    with pytest.raises(BufferError):
        buf.extend(b"x")                      # a view still uses the bytes
    with pytest.raises(BufferError):
        buf.clear()
    del view
    gc.collect()
    buf.extend(b"x")
    assert len(buf) == 9


def test_mmap_cannot_be_closed_while_a_tensor_uses_it():
    m = mmap.mmap(-1, 8)
    t = pytensor.frombuffer(m, dtype=pytensor.uint8)
    with pytest.raises(BufferError):
        m.close()
    t[0] = 3
    assert m[0] == 3
    del t
    gc.collect()
    m.close()


def test_failed_frombuffer_releases_the_export_at_once():
    buf = bytearray(4)
    try:
        pytensor.frombuffer(buf, dtype=pytensor.int32, offset=9)
    except ValueError:
        buf.extend(b"x")                      # even while the exception is being handled
    assert len(buf) == 5


# ------------------------------------------------------------------ validation, in torch's order

def test_empty_buffer():
    with pytest.raises(ValueError, match=r"both buffer length \(0\) and count \(-1\) must not be 0"):
        pytensor.frombuffer(bytearray(), dtype=pytensor.int32)
    with pytest.raises(ValueError, match=r"both buffer length \(0\) and count"):
        pytensor.frombuffer(np.array([], dtype=np.int32), dtype=pytensor.int32)


def test_count_zero():
    with pytest.raises(ValueError, match=r"both buffer length \(8\) and count \(0\)"):
        pytensor.frombuffer(bytearray(8), dtype=pytensor.int32, count=0)


@pytest.mark.parametrize("name", ALL_DTYPES)
def test_offset_rules_for_each_itemsize(name):
    dt = pt_dtype(name)
    isz, n = dt.itemsize, 5
    buf = bytearray(isz * n)
    length = len(buf)
    with pytest.raises(ValueError, match=rf"offset \(-{isz} bytes\) must be non-negative"):
        pytensor.frombuffer(buf, dtype=dt, offset=-isz)
    with pytest.raises(ValueError, match=rf"offset \({length} bytes\) must be .* buffer length \({length} bytes\)"):
        pytensor.frombuffer(buf, dtype=dt, offset=length)
    if isz > 1:
        o = isz - 1
        with pytest.raises(ValueError, match=rf"buffer length \({length - o} bytes\) after offset \({o} bytes\) "
                                             rf"must be a multiple of element size \({isz}\)"):
            pytensor.frombuffer(buf, dtype=dt, offset=o)
    with pytest.raises(ValueError, match=rf"requested buffer length \({n + 1} \* {isz} bytes\) after offset "
                                         rf"\(0 bytes\) must not be greater than actual buffer length \({length}"):
        pytensor.frombuffer(buf, dtype=dt, count=n + 1)
    with pytest.raises(ValueError, match=rf"requested buffer length \({n} \* {isz} bytes\) after offset "
                                         rf"\({isz} bytes\)"):
        pytensor.frombuffer(buf, dtype=dt, count=n, offset=isz)


def test_any_negative_count_means_to_the_end():
    assert pytensor.frombuffer(bytearray(8), dtype=pytensor.int16, count=-5).numel() == 4


def test_huge_count_is_refused_not_wrapped():
    # torch computes count * itemsize in int64, where 2**62 * 4 wraps to 0 and
    # passes its check (a 2**62-element tensor over 4 bytes); pytensor refuses.
    with pytest.raises(ValueError, match="requested buffer length"):
        pytensor.frombuffer(bytearray(4), dtype=pytensor.int32, count=2**62)


def test_check_order_matches_torch():
    # count 0 on an empty buffer: the first check wins
    with pytest.raises(ValueError, match="both buffer length"):
        pytensor.frombuffer(bytearray(), dtype=pytensor.int32, count=0, offset=-1)
    # a bad offset is reported before a bad remainder
    with pytest.raises(ValueError, match="offset"):
        pytensor.frombuffer(bytearray(7), dtype=pytensor.int32, offset=-1)


@pytest.mark.parametrize("obj", [[1, 2, 3, 4], "abcd", 4, None])
def test_not_a_buffer(obj):
    with pytest.raises(ValueError, match="object does not implement Python buffer protocol"):
        pytensor.frombuffer(obj, dtype=pytensor.uint8)


def test_tensor_is_not_a_buffer():
    with pytest.raises(ValueError, match="buffer protocol"):
        pytensor.frombuffer(pytensor.zeros(4), dtype=pytensor.uint8)


@pytest.mark.parametrize("make", [
    lambda: memoryview(bytearray(8))[::2], lambda: np.zeros((2, 3), order="F"), lambda: np.arange(4)[::-1],
], ids=["strided-memoryview", "fortran", "negative"])
def test_non_contiguous_buffers_raise_runtime_error(make):
    with pytest.raises(RuntimeError, match="could not retrieve buffer"):
        pytensor.frombuffer(make(), dtype=pytensor.uint8)


def test_argument_types():
    buf = bytearray(8)
    with pytest.raises(TypeError):
        pytensor.frombuffer(buf)                                    # dtype is required
    with pytest.raises(TypeError):
        pytensor.frombuffer(buf, pytensor.int32)                    # and keyword-only
    with pytest.raises(TypeError, match="'dtype' must be"):
        pytensor.frombuffer(buf, dtype=None)
    with pytest.raises(TypeError, match="'dtype' must be"):
        pytensor.frombuffer(buf, dtype=np.float32)
    with pytest.raises(TypeError, match="'count' must be int, not float"):
        pytensor.frombuffer(buf, dtype=pytensor.uint8, count=1.0)
    with pytest.raises(TypeError, match="'count' must be int, not bool"):
        pytensor.frombuffer(buf, dtype=pytensor.uint8, count=True)
    with pytest.raises(TypeError, match="'offset' must be int, not NoneType"):
        pytensor.frombuffer(buf, dtype=pytensor.uint8, offset=None)
    with pytest.raises(TypeError, match="'requires_grad' must be bool"):
        pytensor.frombuffer(buf, dtype=pytensor.float32, requires_grad=None)
    with pytest.raises(ValueError, match="Overflow"):
        pytensor.frombuffer(buf, dtype=pytensor.uint8, offset=2**70)
    # integers other than int work, as in torch (anything with __index__)
    assert pytensor.frombuffer(buf, dtype=pytensor.int8, count=np.int64(2)).numel() == 2


# ------------------------------------------------------------------ requires_grad

@pytest.mark.parametrize("name", GRAD_DTYPES)
def test_requires_grad_for_floating_and_complex(name):
    buf = bytearray(32)
    t = pytensor.frombuffer(buf, dtype=pt_dtype(name), requires_grad=True)
    assert t.requires_grad and t.is_leaf
    assert t.data_ptr() == address(buf)
    assert not pytensor.frombuffer(buf, dtype=pt_dtype(name)).requires_grad


@pytest.mark.parametrize("name", NO_GRAD_DTYPES)
def test_requires_grad_refused_for_other_dtypes(name):
    with pytest.raises(RuntimeError, match="Only Tensors of floating point and complex dtype"):
        pytensor.frombuffer(bytearray(32), dtype=pt_dtype(name), requires_grad=True)
