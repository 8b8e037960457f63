"""The buffer protocol of Tensor and UntypedStorage, and Python's other object protocols (weakref).

Each export is compared with NumPy's export of the same layout (format size, shape, strides in bytes,
itemsize, readonly, the bytes) and checked to point at the tensor's own memory, so nothing is copied.
Exports hold the storage, count themselves and return the counts to zero when released.
"""
import gc
import hashlib
import io
import os
import socket
import tempfile
import weakref

import numpy as np
import pytest

import pytensor
from pytensor._ffi import ffi, shim
from dlpack_producer import Producer, wrap


@pytest.fixture(autouse=True)
def no_export_left():
    """Every test leaves as many live exports as it found."""
    gc.collect()
    before = shim.buffer_exports()
    yield
    gc.collect()
    assert shim.buffer_exports() == before, "a buffer export was not released"


def address(m):
    """The address a memoryview's first element sits at (NumPy wraps it without copying)."""
    return np.asarray(m).__array_interface__["data"][0]


def _base():
    return pytensor.arange(60, dtype=pytensor.float32).view(3, 4, 5)


def layouts():
    """(name, make) for each layout NumPy also describes: every dtype NumPy has, then strided views, each over
    a storage of its own."""
    out = []
    for d in pytensor.dtypes.ALL:
        if d._np_name is not None:
            out.append((f"contiguous-{d.name}", lambda d=d: pytensor.arange(24).to(d).view(2, 3, 4)))
    out += [
        ("transposed", lambda: _base().permute(2, 1, 0)),
        ("permuted", lambda: _base().permute(1, 0, 2)),
        ("stepped", lambda: _base()[:, ::2, 1::3]),
        ("offset-row", lambda: _base()[1]),
        ("expanded", lambda: _base()[0, 0, :1].expand(4, 3)),
        ("0-d", lambda: _base()[1, 2, 3]),
        ("zero-size", lambda: _base()[:, 1:1]),
        ("column", lambda: _base()[:, :, 2]),
        ("negative-stride DLPack import", lambda: pytensor.from_dlpack(np.arange(6, dtype=np.int16)[::-2])),
    ]
    return out


LAYOUTS = layouts()


def test_layouts_cover_what_they_claim():
    names = [n for n, _ in LAYOUTS]
    assert sum(n.startswith("contiguous-") for n in names) == 14  # every dtype NumPy has (all but bfloat16, float8s, float4)
    t = {n: make() for n, make in LAYOUTS}
    assert not t["transposed"].is_contiguous() and t["expanded"].stride()[0] == 0
    assert t["negative-stride DLPack import"].stride()[0] < 0 and t["zero-size"].numel() == 0 and t["0-d"].dim() == 0


@pytest.mark.parametrize("name,make", LAYOUTS, ids=[n for n, _ in LAYOUTS])
def test_export_matches_numpy_and_shares_memory(name, make):
    t = make()
    ref = t.numpy()
    assert t.untyped_storage()._exports == 1  # NumPy takes a tensor through its buffer export
    m, n = memoryview(t), memoryview(ref)
    assert m.format == n.format and m.itemsize == n.itemsize == t.element_size()
    assert (m.shape, m.ndim, m.nbytes, m.readonly) == (n.shape, n.ndim, n.nbytes, False)
    assert m.strides == tuple(s * t.element_size() for s in t.stride())
    if t.numel():
        assert m.strides == n.strides  # NumPy rewrites the strides of an empty array
    assert m.tobytes() == n.tobytes() == bytes(t)
    assert m.obj is t and m.c_contiguous == n.c_contiguous and m.f_contiguous == n.f_contiguous
    if t.numel():
        assert address(m) == t.data_ptr()  # the tensor's own bytes: no copy
    assert t.untyped_storage()._exports == 2
    m.release()
    n.release()
    del ref
    assert t.untyped_storage()._exports == 0


def test_struct_formats_round_trip_through_numpy():
    for d in pytensor.dtypes.ALL:
        if d._np_name is None:
            continue
        t = pytensor.arange(5).to(d)
        back = np.asarray(memoryview(t))
        assert back.dtype == np.dtype(d._np_name) and back.tolist() == t.tolist()


@pytest.mark.parametrize("dtype", [d for d in pytensor.dtypes.ALL if d._struct is None], ids=lambda d: d.name)
def test_dtypes_without_struct_format_export_only_raw_bytes(dtype):
    """bfloat16, the float8s and float4_e2m1fn_x2 have no struct format char: a consumer asking for a format or
    shape is refused (NumPy would read them as another type; it falls back to pytensor's own refusal), and a
    consumer of flat raw bytes (f.write, socket.send, hashlib) gets a contiguous tensor's bytes in place."""
    t = pytensor.zeros(2, 3, dtype=dtype)
    raw = t.view(pytensor.uint8)  # the same bytes, viewed with a shape
    raw.copy_(pytensor.arange(raw.numel(), dtype=pytensor.uint8).view(raw.shape))
    with pytest.raises(BufferError, match=f"pytensor.{dtype.name} has no struct format"):
        memoryview(t)
    with pytest.raises(BufferError, match="no struct format"):
        bytes(t)
    with pytest.raises(TypeError):  # NumPy has no such type; pytensor's numpy() says so
        np.asarray(t)
    assert hashlib.sha256(t).digest() == hashlib.sha256(bytes(raw)).digest()
    assert ffi.buffer(ffi.from_buffer(t))[:] == bytes(raw) and ffi.cast("uintptr_t", ffi.from_buffer(t)) == \
        t.data_ptr()  # the tensor's own bytes
    with tempfile.TemporaryFile() as f:
        f.write(t)
        with pytest.raises(BufferError, match="not C-contiguous"):
            f.write(t.T)
        f.seek(0)
        assert f.read() == bytes(raw)


def test_storage_exports_its_bytes_flat():
    t = pytensor.arange(6, dtype=pytensor.int32)[2:]
    s = t.untyped_storage()
    m = memoryview(s)
    assert (m.format, m.itemsize, m.shape, m.strides, m.readonly) == ("B", 1, (24,), (1,), False)
    assert m.obj is s and address(m) == s.data_ptr() and bytes(s) == np.arange(6, dtype=np.int32).tobytes()
    m[0] = 7  # writes reach the tensor
    assert t.untyped_storage() is s and pytensor.frombuffer(s, dtype=pytensor.int32)[0].item() == 7
    m.release()


def test_read_only_tensors_export_read_only_and_refuse_writable_requests():
    t = pytensor.frombuffer(b"\x01\x02\x03\x04", dtype=pytensor.uint8)
    assert memoryview(t).readonly and memoryview(t.untyped_storage()).readonly
    for target in (t, t.untyped_storage()):
        with pytest.raises(TypeError, match="read-write"):  # readinto asks for a writable buffer
            io.BytesIO(b"zzzz").readinto(target)
    assert bytes(t) == b"\x01\x02\x03\x04"
    w = pytensor.zeros(4, dtype=pytensor.uint8)
    assert io.BytesIO(b"wxyz").readinto(w) == 4 and bytes(w) == b"wxyz"  # a writable one is filled in place


def test_writable_request_refusal_is_a_buffer_error():
    """The refusal itself (before argument parsers reword it) is a BufferError that says why."""
    t = pytensor.frombuffer(b"\x01\x02", dtype=pytensor.uint8)
    with pytest.raises(BufferError, match="read-only"):
        ffi.from_buffer("char[]", t, require_writable=True)


def test_simple_requests_need_contiguous_memory():
    x = pytensor.arange(6, dtype=pytensor.int32).view(2, 3)
    with tempfile.TemporaryFile() as f:
        assert f.write(x) == 24
        with pytest.raises(BufferError, match="not C-contiguous"):
            f.write(x.T)
        f.write(x.T.contiguous())
        f.seek(0)
        assert f.read() == x.numpy().tobytes() + x.numpy().T.tobytes()
    assert bytes(x.T) == x.numpy().T.tobytes()  # bytes() copies out in C order from a strided export


def test_socket_send_reads_the_tensor_in_place():
    x = pytensor.arange(1000, dtype=pytensor.int64)
    a, b = socket.socketpair()
    with a, b:
        sent = a.send(x)
        got = b""
        while len(got) < sent:
            got += b.recv(sent - len(got))
    assert got == x.numpy().tobytes()[:sent]


def test_export_keeps_the_storage_alive_after_the_tensor_dies():
    x = pytensor.arange(8, dtype=pytensor.float64)
    s = weakref.ref(x.untyped_storage())
    m = memoryview(x[2:])
    del x
    gc.collect()
    assert s() is not None and m.tolist() == [2.0, 3.0, 4.0, 5.0, 6.0, 7.0]
    m.release()
    gc.collect()
    assert s() is None


def test_live_export_refuses_resize_until_released():
    x = pytensor.zeros(4)
    base = shim.buffer_exports()
    m = memoryview(x)
    assert shim.buffer_exports() == base + 1 and x.untyped_storage()._exports == 1
    with pytest.raises(RuntimeError, match="1 buffer exports"):
        x.resize_(1000)
    assert m.tolist() == [0.0] * 4
    m.release()
    assert shim.buffer_exports() == base
    x.resize_(1000)
    assert x.shape == (1000,)


def test_many_exports_count_and_return_to_zero():
    x = pytensor.arange(10)
    views = [memoryview(x[i:]) for i in range(10)] + [memoryview(x.untyped_storage()) for _ in range(3)]
    assert x.untyped_storage()._exports == 13
    for v in views:
        v.release()
    assert x.untyped_storage()._exports == 0


def test_device_memory_is_refused():
    p = Producer()
    m = p.managed((2, 3), (3, 1))
    m.dl_tensor.device.device_type = 2  # CUDA: pytensor keeps the metadata, never touches the bytes
    t = pytensor.from_dlpack(wrap(m, True))
    for target in (t, t.untyped_storage()):
        with pytest.raises(BufferError, match="not host memory"):
            memoryview(target)


def test_file_mapped_tensor_exports_the_mapping():
    path = os.path.join(tempfile.mkdtemp(), "w.bin")
    np.arange(4, dtype=np.float32).tofile(path)
    t = pytensor.from_file(path, shared=True, dtype=pytensor.float32)
    m = memoryview(t)
    assert address(m) == t.data_ptr() and m.tolist() == [0.0, 1.0, 2.0, 3.0]
    m[1] = 9.0
    m.release()
    assert np.fromfile(path, dtype=np.float32)[1] == 9.0


def test_weak_references():
    x = pytensor.arange(3)
    s = x.untyped_storage()
    rx, rs = weakref.ref(x), weakref.ref(s)
    assert rx() is x and rs() is s
    del x, s
    gc.collect()
    assert rx() is None and rs() is None


def test_frombuffer_still_refuses_a_tensor_as_torch(torch):
    """Exporting a buffer does not make a Tensor a frombuffer source: torch.frombuffer(tensor) raises
    ValueError (torch tensors export none), and pytensor keeps that; the bytes are t.view(dtype)."""
    for lib in (torch, pytensor):
        with pytest.raises(ValueError):
            lib.frombuffer(lib.zeros(4), dtype=lib.uint8)
    with pytest.raises(ValueError, match="does not take a Tensor"):
        pytensor.frombuffer(pytensor.zeros(4), dtype=pytensor.uint8, count=2)


def test_an_export_is_a_holder_of_the_bytes():
    """Each export holds one libtensor reference (as a DLPack export does), so code that refuses to move bytes
    other holders use (resize_, moving them into shared memory) sees it."""
    x = pytensor.zeros(4)
    s = x.untyped_storage()
    base = s.refcount
    m, n = memoryview(x), memoryview(s)
    assert s.refcount == base + 2
    m.release(), n.release()
    assert s.refcount == base


def test_a_tensor_that_requires_grad_exports_nothing():
    """Its memory is not handed out behind autograd's back (numpy() refuses it too); its detached alias and its
    storage export (what pickle uses) are not affected."""
    x = pytensor.ones(3, requires_grad=True)
    with pytest.raises(BufferError, match="requires grad"):
        memoryview(x)
    with memoryview(x.detach()) as m:
        assert m.tolist() == [1.0, 1.0, 1.0]
    with memoryview(x.untyped_storage()) as m:
        assert m.nbytes == 12
