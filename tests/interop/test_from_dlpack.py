"""from_dlpack and Tensor.__dlpack__: the capsule protocol, ownership and
deleters, checked against the C test producer (tests/c/dlpack_test_producer.c, loaded by tests/dlpack_producer.py).

Numbers in comments refer to the checklist in reference/dlpack.md, section 6.
Round trips with numpy, torch and JAX are in test_dlpack_interop.py.
"""
import ctypes
import gc
import itertools
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import pytensor
from pytensor._ffi import ffi, lib
from pytensor.errors import DLPackError, ReadOnlyError, DeviceError
from dlpack_producer import Producer, Holder, wrap, capsule_name, capsule_managed

READ_ONLY, IS_COPIED, IS_SUBBYTE_TYPE_PADDED = 1, 2, 4
LT_DTYPES = ["bool", "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64", "float16",
             "bfloat16", "float32", "float64", "complex64", "complex128"]
DL_CODES = {"bool": (6, 8), "uint8": (1, 8), "uint16": (1, 16), "uint32": (1, 32), "uint64": (1, 64),
            "int8": (0, 8), "int16": (0, 16), "int32": (0, 32), "int64": (0, 64), "float16": (2, 16),
            "bfloat16": (4, 16), "float32": (2, 32), "float64": (2, 64), "complex64": (5, 64),
            "complex128": (5, 128)}


def expected_values(shape, strides, byte_offset=0, itemsize=8):
    """What the test producer's tensor holds: element (i0, i1, ...) is slot
    data_slot + byte_offset/itemsize + sum(i_k * strides[k]) of a buffer whose
    slot k holds k, where data_slot lifts the lowest reachable slot to 0."""
    if strides is None:  # compact row-major
        strides = [int(np.prod(shape[k + 1:])) for k in range(len(shape))]
    data_slot = -sum(min(0, (n - 1) * s) for n, s in zip(shape, strides)) if all(shape) else 0
    out = np.empty(shape, dtype=np.int64)
    for idx in itertools.product(*[range(n) for n in shape]):
        out[idx] = data_slot + byte_offset // itemsize + sum(i * s for i, s in zip(idx, strides))
    return out.tolist()


def collect():
    gc.collect()
    gc.collect()


# ---------------------------------------------------------------- capsules and ownership

@pytest.mark.parametrize("versioned", [True, False], ids=["versioned", "legacy"])
def test_capsule_is_renamed_once_and_deleter_runs_when_last_view_dies(versioned):
    p = Producer()
    cap = p.capsule((4,), (1,), versioned=versioned)
    name = "dltensor_versioned" if versioned else "dltensor"
    assert capsule_name(cap) == name
    t = pytensor.from_dlpack(cap)
    assert capsule_name(cap) == "used_" + name
    view = t[1:]
    del t, cap  # the consumed capsule's destructor must not call the deleter
    collect()
    assert p.calls == 0
    assert view.tolist() == [1.0, 2.0, 3.0]  # 51: a view keeps the import alive
    del view
    collect()
    assert p.calls == 1


def test_unconsumed_capsule_runs_deleter_once():  # 50
    p = Producer()
    cap = p.capsule()
    assert p.calls == 0
    del cap
    collect()
    assert p.calls == 1


def test_the_shipped_shim_has_no_hook_that_wraps_an_address():
    # Wrapping a raw address in a capsule lets any caller hand the interpreter a bad pointer; the tests get it
    # from their own module (tests/c/dlpack_test_capsule.c), and the shipped extension must not offer it.
    from pytensor._ffi import shim
    assert not hasattr(shim, "capsule_from_pointer")
    assert {"to_capsule", "from_capsule"} <= set(dir(shim))  # the shim read here is the one with the DLPack paths


def test_raw_capsule_consumed_twice_raises_and_frees_once():  # 29, 30
    p = Producer()
    cap = p.capsule()
    t = pytensor.from_dlpack(cap)
    with pytest.raises(RuntimeError, match="consumed only once"):
        pytensor.from_dlpack(cap)
    assert t.tolist() == [0.0, 1.0, 2.0]
    del t, cap
    collect()
    assert p.calls == 1


def test_producer_returning_a_used_capsule_raises():  # 29
    p = Producer()
    holder = Holder(p.capsule())
    t = pytensor.from_dlpack(holder)
    with pytest.raises(RuntimeError, match="consumed only once"):
        pytensor.from_dlpack(holder)
    del t, holder
    collect()
    assert p.calls == 1


def test_capsule_with_another_name_is_refused():
    new = ctypes.pythonapi.PyCapsule_New
    new.restype = ctypes.py_object
    new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    other = new(ctypes.addressof(ctypes.c_int(0)), None, None)
    with pytest.raises(RuntimeError, match="capsule"):
        pytensor.from_dlpack(other)


def test_exception_in_flight_while_capsule_dies():  # 58
    p = Producer()

    def fails():
        cap = p.capsule()  # noqa: F841  (dies while the exception propagates)
        raise KeyError("original")

    with pytest.raises(KeyError, match="original"):
        fails()
    collect()
    assert p.calls == 1


def test_capsule_names_stay_valid_after_churn():  # 59
    p = Producer()
    caps = [p.capsule(versioned=i % 2 == 0) for i in range(6)]
    tensors = [pytensor.from_dlpack(c) for c in caps[:3]]
    junk = [("x" * 64 + str(i)).encode() for i in range(10000)]
    collect()
    del junk
    is_valid = ctypes.pythonapi.PyCapsule_IsValid
    is_valid.argtypes = [ctypes.py_object, ctypes.c_char_p]
    want = ["used_dltensor_versioned", "used_dltensor", "used_dltensor_versioned", "dltensor", "dltensor_versioned",
            "dltensor"]
    assert [capsule_name(c) for c in caps] == want
    assert all(is_valid(c, w.encode()) for c, w in zip(caps, want))
    del tensors, caps
    collect()
    assert p.calls == 6


# ---------------------------------------------------------------- deleters and threads

def _raw_storage(t):
    """A plain (not garbage-collected) ``lt_storage *`` of t, with one extra reference."""
    raw = ffi.cast("lt_storage *", t.untyped_storage()._ptr)
    lib.lt_storage_retain(raw)
    return raw


def test_deleter_runs_once_on_a_thread_without_the_gil():  # 56
    p = Producer()
    t = pytensor.from_dlpack(p.capsule((1000,), (1,)))
    raw = _raw_storage(t)
    del t
    collect()
    assert p.calls == 0  # the C reference keeps the import alive
    # cffi releases the GIL around the call, so the deleter runs on a thread without it.
    th = threading.Thread(target=lib.lt_storage_release, args=(raw,))
    th.start()
    th.join()
    assert p.calls == 1


def test_last_view_dying_on_another_thread_runs_deleter_once():
    p = Producer()
    box = [pytensor.from_dlpack(p.capsule((8,), (1,)))]
    box.append(box[0][2:])
    th = threading.Thread(target=box.clear)
    th.start()
    th.join()
    collect()
    assert p.calls == 1


def test_many_threads_dropping_views_of_one_import():
    p = Producer()
    t = pytensor.from_dlpack(p.capsule((64,), (1,)))
    raws = [_raw_storage(t) for _ in range(16)]
    del t
    collect()
    barrier = threading.Barrier(len(raws))

    def drop(raw):
        barrier.wait()
        lib.lt_storage_release(raw)

    threads = [threading.Thread(target=drop, args=(r,)) for r in raws]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert p.calls == 1


def test_null_deleter_is_allowed():  # 25
    p = Producer()
    m = p.managed((3,), (1,))
    real_deleter = m.deleter
    m.deleter = ffi.NULL
    t = pytensor.from_dlpack(wrap(m, True))
    assert t.tolist() == [0.0, 1.0, 2.0]
    del t
    collect()
    assert p.calls == 0  # nobody could call it
    real_deleter(m)  # free the producer's memory ourselves
    assert p.calls == 1


def test_deleter_after_interpreter_shutdown_does_not_crash(tmp_path):  # 57
    script = textwrap.dedent("""
        import sys
        sys.path.insert(0, %r)
        import pytensor
        from dlpack_producer import Producer
        KEEP = []
        p = Producer()
        KEEP.append(pytensor.from_dlpack(p.capsule((5,), (1,))))
        KEEP.append(p.capsule())  # never consumed
        KEEP.append(pytensor.arange(4.).__dlpack__(max_version=(1, 0)))
        print("ok")
    """) % str(__import__("pathlib").Path(__file__).parent.parent)
    res = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "ok"


# ---------------------------------------------------------------- what the import reads

@pytest.mark.parametrize("versioned", [True, False], ids=["versioned", "legacy"])
@pytest.mark.parametrize("shape, strides", [
    ((2, 3), (3, 1)),           # contiguous
    ((2, 3), None),             # 17, 18: NULL strides mean row-major (accepted even at v1.3)
    ((3, 2), (1, 3)),           # 4: transposed
    ((3, 2), (-2, 1)),          # 5: negative strides
    ((2, 2), (-1, -2)),         # all negative
    ((2, 3), (0, 1)),           # 6: broadcast (stride 0)
    ((4,), (0,)),
    ((2, 2, 2), (-4, 2, -1)),   # mixed
    ((3, 1, 2), (2, 99, 1)),    # size-1 dim with an odd stride
])
def test_import_reads_strides_exactly(shape, strides, versioned):
    p = Producer()
    t = pytensor.from_dlpack(p.capsule(shape, strides, versioned=versioned))
    assert t.shape == shape
    if strides is not None:
        assert t.stride() == strides
    assert t.tolist() == expected_values(shape, strides)
    del t
    collect()
    assert p.calls == 1


@pytest.mark.parametrize("strides", [(1,), None], ids=["strides", "null-strides"])
def test_import_honours_byte_offset(strides):  # 14, 15
    p = Producer()
    t = pytensor.from_dlpack(p.capsule((3,), strides, byte_offset=16))
    assert t.tolist() == expected_values((3,), strides, byte_offset=16) == [2.0, 3.0, 4.0]
    # data_ptr is data + byte_offset: the producer's element 0
    m = p.managed((3,), strides, byte_offset=16)
    want = int(ffi.cast("uintptr_t", m.dl_tensor.data)) + 16
    u = pytensor.from_dlpack(wrap(m, True))
    assert u.data_ptr() == want


def test_import_byte_offset_with_negative_strides():
    p = Producer()
    t = pytensor.from_dlpack(p.capsule((2, 3), (-3, -1), byte_offset=8))
    assert t.tolist() == expected_values((2, 3), (-3, -1), byte_offset=8)


def test_misaligned_byte_offset_is_refused_before_ownership():  # 16
    p = Producer()
    cap = p.capsule((3,), (1,), byte_offset=4)
    with pytest.raises(BufferError, match="byte_offset 4"):
        pytensor.from_dlpack(cap)
    assert capsule_name(cap) == "dltensor_versioned"
    del cap
    collect()
    assert p.calls == 1


@pytest.mark.parametrize("versioned", [True, False], ids=["versioned", "legacy"])
def test_zero_dim(versioned):  # 7
    p = Producer()
    t = pytensor.from_dlpack(p.capsule((), None, versioned=versioned, dtype=lib.LT_INT32))
    assert t.shape == () and t.dtype is pytensor.int32 and t.item() == 0
    p2 = Producer()
    m = p2.managed((), None, dtype=lib.LT_INT32, byte_offset=8)
    assert m.dl_tensor.shape == ffi.NULL and m.dl_tensor.strides == ffi.NULL
    assert pytensor.from_dlpack(wrap(m, True)).item() == 2


@pytest.mark.parametrize("strides", [(0, 0), (3, 1), None])
@pytest.mark.parametrize("null_data", [False, True])
def test_zero_size(strides, null_data):  # 8
    p = Producer()

    def edit(m):
        if null_data:
            m.dl_tensor.data = ffi.NULL

    t = pytensor.from_dlpack(p.capsule((0, 3), strides, edit=edit))
    assert t.shape == (0, 3) and t.numel() == 0 and t.tolist() == []
    assert t.clone().shape == (0, 3)
    np.testing.assert_array_equal(np.from_dlpack(t), np.empty((0, 3)))
    del t
    collect()
    # The producer's buffer is freed by its deleter even when data was NULL.
    assert p.calls == 1


def test_null_data_with_elements_is_refused():
    p = Producer()
    cap = p.capsule((3,), (1,), edit=lambda m: setattr(m.dl_tensor, "data", ffi.NULL))
    with pytest.raises(BufferError, match="NULL"):
        pytensor.from_dlpack(cap)
    del cap
    collect()
    assert p.calls == 1


@pytest.mark.parametrize("name", LT_DTYPES)
@pytest.mark.parametrize("versioned", [True, False], ids=["versioned", "legacy"])
def test_every_dtype_imports_as_itself(name, versioned):  # 9, 10, 22
    dt = getattr(pytensor, name)
    p = Producer()
    m = p.managed((4,), (1,), dtype=getattr(lib, "LT_" + name.upper()), versioned=versioned)
    assert (m.dl_tensor.dtype.code, m.dl_tensor.dtype.bits, m.dl_tensor.dtype.lanes) == DL_CODES[name] + (1,)
    t = pytensor.from_dlpack(wrap(m, versioned))
    assert t.dtype is dt
    want = [bool(v) for v in range(4)] if name == "bool" else list(range(4))
    assert t.tolist() == want


@pytest.mark.parametrize("what, edit", [
    ("lanes", lambda m: setattr(m.dl_tensor.dtype, "lanes", 2)),                       # 21
    ("code", lambda m: setattr(m.dl_tensor.dtype, "code", 99)),                         # 23
    ("float128", lambda m: setattr(m.dl_tensor.dtype, "bits", 128)),                    # 23
    ("opaque", lambda m: setattr(m.dl_tensor.dtype, "code", 3)),
    ("float8_e3m4", lambda m: (setattr(m.dl_tensor.dtype, "code", 7), setattr(m.dl_tensor.dtype, "bits", 8))),  # 11
    ("bool1", lambda m: (setattr(m.dl_tensor.dtype, "code", 6), setattr(m.dl_tensor.dtype, "bits", 1))),    # 22
    ("device", lambda m: setattr(m.dl_tensor.device, "device_type", 5)),
    ("ndim", lambda m: setattr(m.dl_tensor, "ndim", -1)),
    ("flags", lambda m: setattr(m, "flags", 1 << 5)),                                   # 24
    ("high flag", lambda m: setattr(m, "flags", 1 << 63)),
    ("major 2", lambda m: setattr(m.version, "major", 2)),                              # 19
    ("major 0", lambda m: setattr(m.version, "major", 0)),
])
def test_refusals_are_buffer_errors_before_ownership(what, edit):
    p = Producer()
    cap = p.capsule((3,), (1,), edit=edit)
    with pytest.raises(BufferError) as info:
        pytensor.from_dlpack(cap)
    assert isinstance(info.value, DLPackError)
    assert capsule_name(cap) == "dltensor_versioned"  # not renamed: ownership never taken
    assert p.calls == 0
    del cap, info  # the traceback's frames hold the capsule too
    collect()
    assert p.calls == 1


def test_uint8_is_not_bool():  # 22
    p = Producer()
    assert pytensor.from_dlpack(p.capsule(dtype=lib.LT_UINT8)).dtype is pytensor.uint8


def test_too_many_dimensions_is_refused():  # 26
    p = Producer()
    cap = p.capsule((1,) * 65, (1,) * 65, versioned=False)
    with pytest.raises(BufferError, match="ndim 65"):
        pytensor.from_dlpack(cap)
    del cap
    collect()
    assert p.calls == 1


def test_newer_minor_version_is_accepted():  # 20
    p = Producer()
    t = pytensor.from_dlpack(p.capsule(edit=lambda m: setattr(m.version, "minor", 99)))
    assert t.tolist() == [0.0, 1.0, 2.0]


# ---------------------------------------------------------------- flags

def test_read_only_import_refuses_writes_through_every_alias():  # 12
    p = Producer()
    t = pytensor.from_dlpack(p.capsule((4,), (1,), flags=READ_ONLY))
    assert t.is_readonly()
    for target in (t, t[1:], t.view(2, 2)):
        with pytest.raises(ReadOnlyError):
            target[0] = 5.0
    with pytest.raises(ReadOnlyError):
        t.fill_(1.0)
    assert t.tolist() == [0.0, 1.0, 2.0, 3.0]
    assert not t.numpy().flags.writeable
    # Re-export keeps the flag; a legacy capsule cannot carry it, so it is refused.
    cap = t.__dlpack__(max_version=(1, 0))
    assert capsule_managed(cap).flags == READ_ONLY
    with pytest.raises(BufferError, match="read-only"):
        t.__dlpack__()
    assert not np.from_dlpack(t).flags.writeable


@pytest.mark.parametrize("flags", [IS_COPIED, IS_SUBBYTE_TYPE_PADDED, IS_COPIED | IS_SUBBYTE_TYPE_PADDED])
def test_informational_flags_are_accepted(flags):
    p = Producer()
    t = pytensor.from_dlpack(p.capsule((3,), (1,), flags=flags))
    assert not t.is_readonly()
    t[0] = 7.0
    assert t.tolist() == [7.0, 1.0, 2.0]


def test_legacy_import_is_writable():  # 13, policy of reference/dlpack.md 5.3 (torch's)
    p = Producer()
    m = p.managed((3,), (1,), versioned=False)
    t = pytensor.from_dlpack(wrap(m, False))
    t[1] = 42.0
    assert ffi.cast("double *", m.dl_tensor.data)[1] == 42.0


def test_import_shares_memory_with_producer():
    p = Producer()
    m = p.managed((2, 3), (3, 1))
    data = ffi.cast("double *", m.dl_tensor.data)
    t = pytensor.from_dlpack(wrap(m, True))
    assert t.data_ptr() == int(ffi.cast("uintptr_t", data))
    t[1, 2] = -1.0
    assert data[5] == -1.0 and data[4] == 4.0  # neighbour untouched
    data[0] = 99.0
    assert t[0, 0].item() == 99.0


# ---------------------------------------------------------------- devices

def _cuda_edit(device_type):
    return lambda m: setattr(m.dl_tensor.device, "device_type", device_type)


def test_cuda_import_is_metadata_only_and_reexports_zero_copy():  # 27
    p = Producer()
    m = p.managed((2, 3), (3, 1))
    _cuda_edit(2)(m)
    data = int(ffi.cast("uintptr_t", m.dl_tensor.data))
    t = pytensor.from_dlpack(wrap(m, True))
    assert tuple(map(int, t.__dlpack_device__())) == (2, 0)
    assert t.data_ptr() == data and t.shape == (2, 3)
    assert t.device.type == "cuda"
    for touch in (t.tolist, lambda: t.__setitem__(0, 1.0), lambda: t[0, 0].item(), t.clone):
        with pytest.raises(DeviceError):
            touch()
    with pytest.raises((TypeError, DeviceError)):
        t.numpy()
    assert "cuda" in repr(t)  # repr never reads the bytes
    cap = t[1:].__dlpack__(max_version=(1, 0), stream=7)  # CUDA streams are accepted
    back = capsule_managed(cap)
    assert (back.dl_tensor.device.device_type, back.dl_tensor.device.device_id) == (2, 0)
    assert int(ffi.cast("uintptr_t", back.dl_tensor.data)) == data + 3 * 8
    with pytest.raises(BufferError):
        t.__dlpack__(max_version=(1, 0), dl_device=(1, 0))  # no device-to-host copies here
    with pytest.raises(BufferError):
        t.__dlpack__(max_version=(1, 0), copy=True)
    with pytest.raises(BufferError):
        pytensor.from_dlpack(t, device="cpu", copy=False)
    u = pytensor.from_dlpack(t)  # our own metadata-only re-export
    assert u.data_ptr() == data and int(u.__dlpack_device__()[0]) == 2
    del t, u, cap, back, touch  # touch is t.clone, a bound method
    collect()
    assert p.calls == 1


@pytest.mark.parametrize("device_type", [3, 11, 13])  # kDLCUDAHost, kDLROCMHost, kDLCUDAManaged
def test_host_accessible_devices_import_readable(device_type):  # 28
    p = Producer()
    t = pytensor.from_dlpack(p.capsule((3,), (1,), edit=_cuda_edit(device_type)))
    assert t.tolist() == [0.0, 1.0, 2.0]
    assert int(t.__dlpack_device__()[0]) == device_type
    t[0] = 5.0
    assert np.from_dlpack(t)[0] == 5.0


# ---------------------------------------------------------------- from_dlpack arguments

def test_kwargs_passed_to_cpu_producer():  # 35
    p = Producer()
    h = Holder(p.capsule(), p.capsule(), p.capsule())
    pytensor.from_dlpack(h)
    pytensor.from_dlpack(h, copy=True)
    pytensor.from_dlpack(h, device="cpu")
    assert h.calls == [{"max_version": (1, 3)}, {"max_version": (1, 3), "copy": True}, {"max_version": (1, 3)}]


def test_device_cpu_from_another_device_asks_for_a_host_copy():  # 34
    p = Producer()
    h = Holder(p.capsule(), device=(2, 0))
    pytensor.from_dlpack(h, device="cpu")
    assert h.calls == [{"max_version": (1, 3), "dl_device": (1, 0)}]


def test_device_other_than_cpu_is_refused():  # 34
    with pytest.raises(BufferError, match="CPU only"):
        pytensor.from_dlpack(np.arange(3.0), device="cuda")


def test_legacy_only_producer_falls_back():  # 13, 32
    p = Producer()
    h = Holder(p.capsule(versioned=False), legacy_only=True)
    t = pytensor.from_dlpack(h)
    assert h.calls[0] == {"max_version": (1, 3)} and h.calls[-1] == {}
    assert t.tolist() == [0.0, 1.0, 2.0] and not t.is_readonly()
    # copy=True with a producer that cannot copy: we copy after import.
    m = p.managed((3,), (1,), versioned=False)
    h2 = Holder(wrap(m, False), legacy_only=True)
    c = pytensor.from_dlpack(h2, copy=True)
    assert c.data_ptr() != int(ffi.cast("uintptr_t", m.dl_tensor.data))
    assert c.tolist() == [0.0, 1.0, 2.0]
    collect()
    assert p.calls == 1  # the shared import behind the copy is already gone
    del t
    collect()
    assert p.calls == 2


def test_raw_capsule_with_device_or_copy_is_refused():  # 30
    x = pytensor.arange(3.0)
    for kwargs in ({"copy": True}, {"copy": False}, {"device": "cpu"}):
        with pytest.raises(ValueError, match="capsule"):
            pytensor.from_dlpack(x.__dlpack__(), **kwargs)
    with pytest.raises(AssertionError):  # torch's type
        pytensor.from_dlpack(x.__dlpack__(), copy=True)


@pytest.mark.parametrize("obj", [object(), 3, "abc", [1, 2]])
def test_non_producer_raises(obj):  # 31
    with pytest.raises(AttributeError, match="__dlpack__"):
        pytensor.from_dlpack(obj)
    with pytest.raises(RuntimeError):  # torch's type
        pytensor.from_dlpack(obj)


def test_buffer_error_from_producer_propagates():
    class Refuses:
        def __dlpack_device__(self):
            return (1, 0)

        def __dlpack__(self, **kwargs):
            raise BufferError("cannot export this")

    with pytest.raises(BufferError, match="cannot export this"):
        pytensor.from_dlpack(Refuses())


# ---------------------------------------------------------------- export (ours -> any consumer)

@pytest.mark.parametrize("max_version, name", [
    (None, "dltensor"), ((0, 8), "dltensor"), ((1, 0), "dltensor_versioned"), ((1, 3), "dltensor_versioned"),
    ((1, 99), "dltensor_versioned"), ((2, 0), "dltensor_versioned"),
])
def test_export_capsule_kind_follows_max_version(max_version, name):  # 38
    t = pytensor.arange(6.0)
    cap = t.__dlpack__(max_version=max_version)
    assert capsule_name(cap) == name
    m = capsule_managed(cap)
    if name == "dltensor_versioned":
        assert (m.version.major, m.version.minor) == (1, 3)
        assert m.flags == 0


@pytest.mark.parametrize("bad", [3, (1,), (1, 0, 0), ("1", 0), [1, 0]])
def test_export_malformed_max_version(bad):  # 38
    with pytest.raises(TypeError, match="max_version"):
        pytensor.arange(3.0).__dlpack__(max_version=bad)


def test_export_fields():  # 39, 40
    base = pytensor.arange(24, dtype=pytensor.int16).view(4, 6)
    view = base[1:, 2::2].t()
    for mv in (None, (1, 0)):
        cap = view.__dlpack__(max_version=mv)
        m = capsule_managed(cap)
        d = m.dl_tensor
        assert d.byte_offset == 0
        assert int(ffi.cast("uintptr_t", d.data)) == view.data_ptr() == base.data_ptr() + (6 + 2) * 2
        assert (d.device.device_type, d.device.device_id) == (1, 0)
        assert (d.dtype.code, d.dtype.bits, d.dtype.lanes) == (0, 16, 1)
        assert d.ndim == 2
        assert [d.shape[i] for i in range(2)] == list(view.shape)
        assert d.strides != ffi.NULL and [d.strides[i] for i in range(2)] == list(view.stride()) == [2, 6]
    cap = pytensor.tensor(1.5).__dlpack__(max_version=(1, 0))
    scalar = capsule_managed(cap)
    assert scalar.dl_tensor.ndim == 0
    assert scalar.dl_tensor.shape == ffi.NULL and scalar.dl_tensor.strides == ffi.NULL


@pytest.mark.parametrize("name", LT_DTYPES)
def test_export_dtype_codes(name):
    t = pytensor.zeros(2, dtype=getattr(pytensor, name))
    cap = t.__dlpack__(max_version=(1, 0))
    d = capsule_managed(cap).dl_tensor
    assert (d.dtype.code, d.dtype.bits, d.dtype.lanes) == DL_CODES[name] + (1,)


def test_export_copy_flag():  # 44
    t = pytensor.arange(4.0)
    cap_shared = t.__dlpack__(max_version=(1, 0), copy=False)
    shared = capsule_managed(cap_shared)
    assert shared.flags == 0 and int(ffi.cast("uintptr_t", shared.dl_tensor.data)) == t.data_ptr()
    cap = t.__dlpack__(max_version=(1, 0), copy=True)
    copied = capsule_managed(cap)
    assert copied.flags & IS_COPIED and not copied.flags & READ_ONLY
    assert int(ffi.cast("uintptr_t", copied.dl_tensor.data)) != t.data_ptr()
    u = pytensor.from_dlpack(cap)
    u[0] = 10.0
    assert t[0].item() == 0.0 and u.tolist() == [10.0, 1.0, 2.0, 3.0]
    # A legacy copy carries no flag but is still a copy.
    cap_legacy = t.__dlpack__(copy=True)
    legacy = capsule_managed(cap_legacy)
    assert int(ffi.cast("uintptr_t", legacy.dl_tensor.data)) != t.data_ptr()


def test_export_copy_of_read_only_is_writable_and_allowed_as_legacy():
    ro = np.arange(3.0)
    ro.flags.writeable = False
    t = pytensor.from_dlpack(ro)
    assert t.is_readonly()
    assert capsule_name(t.__dlpack__(copy=True)) == "dltensor"
    cap = t.__dlpack__(max_version=(1, 0), copy=True)
    assert capsule_managed(cap).flags == IS_COPIED


def test_export_dl_device():  # 45
    t = pytensor.arange(3.0)
    assert capsule_name(t.__dlpack__(dl_device=(1, 0))) == "dltensor"
    assert capsule_name(t.__dlpack__(dl_device=(1, 0), copy=False)) == "dltensor"
    with pytest.raises(BufferError):
        t.__dlpack__(dl_device=(2, 0))
    with pytest.raises(TypeError):
        t.__dlpack__(dl_device="cpu")


def test_export_stream():  # 46
    t = pytensor.arange(3.0)
    t.__dlpack__(stream=None)
    t.__dlpack__(stream=-1)
    with pytest.raises(ValueError, match="stream"):
        t.__dlpack__(stream=1)
    with pytest.raises(AssertionError):  # torch's type
        t.__dlpack__(stream=0)
    with pytest.raises(TypeError):
        t.__dlpack__(stream="x")


def test_export_arguments_are_keyword_only():  # 47
    with pytest.raises(TypeError):
        pytensor.arange(3.0).__dlpack__(None)
    with pytest.raises(TypeError):
        pytensor.arange(3.0).__dlpack__(copy="yes")


def test_export_refusal_leaves_refcount_unchanged():  # 48
    t = pytensor.arange(3.0, requires_grad=True)
    before = t.untyped_storage().refcount
    with pytest.raises(BufferError, match="gradient"):
        t.__dlpack__()
    ro = np.arange(3.0)
    ro.flags.writeable = False
    r = pytensor.from_dlpack(ro)
    r_before = r.untyped_storage().refcount
    with pytest.raises(BufferError):
        r.__dlpack__()
    collect()
    assert t.untyped_storage().refcount == before and r.untyped_storage().refcount == r_before
    assert pytensor.from_dlpack(t.detach()).tolist() == [0.0, 1.0, 2.0]


def test_dlpack_device_is_cpu():
    assert pytensor.arange(2).__dlpack_device__() == (1, 0)
    assert pytensor.arange(2).__dlpack_device__()[0] is pytensor._dlpack.DLDeviceType.kDLCPU


# ---------------------------------------------------------------- lifetime of exports

def test_capsule_keeps_storage_alive():  # 49, 50
    collect()
    live = pytensor.live_storages()
    t = pytensor.arange(5.0)
    addr = t.data_ptr()
    cap = t.__dlpack__(max_version=(1, 0))
    del t
    collect()
    assert pytensor.live_storages() == live + 1
    u = pytensor.from_dlpack(cap)
    assert u.data_ptr() == addr and u.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    del u
    collect()
    assert pytensor.live_storages() == live + 0
    t = pytensor.arange(5.0)
    before = t.untyped_storage().refcount
    cap = t.__dlpack__()
    assert t.untyped_storage().refcount == before + 1
    del cap
    collect()
    assert t.untyped_storage().refcount == before


def test_own_round_trip_shares_and_frees(live_baseline):  # 54
    t = pytensor.arange(6, dtype=pytensor.int32).view(2, 3)
    for mv in (None, (1, 0)):
        u = pytensor.from_dlpack(t.__dlpack__(max_version=mv))
        assert u.data_ptr() == t.data_ptr()
        u[0, 0] = 100
        assert t[0, 0].item() == 100
        assert u.untyped_storage() is not t.untyped_storage()  # a DLPack import of it
    del t, u


def test_many_exchanges_do_not_leak(live_baseline):  # 55
    t = pytensor.arange(16.0)
    p = Producer()
    for i in range(10000):
        u = pytensor.from_dlpack(t.__dlpack__(max_version=(1, 0) if i % 2 else None))
        assert u.data_ptr() == t.data_ptr()
        if i % 10 == 0:
            pytensor.from_dlpack(p.capsule())
    del t, u
    collect()
    assert p.calls == 1000


def test_utils_dlpack_like_torch():
    from pytensor.utils.dlpack import to_dlpack, from_dlpack
    t = pytensor.arange(3)
    cap = to_dlpack(t)
    assert capsule_name(cap) == "dltensor"
    u = from_dlpack(cap)
    assert capsule_name(cap) == "used_dltensor"
    u[0] = 7
    assert t.tolist() == [7, 1, 2]
    with pytest.raises(TypeError):
        to_dlpack(np.arange(3))
    assert from_dlpack(np.arange(3.0)).tolist() == [0.0, 1.0, 2.0]
