"""The shim's fast paths (pytensor/_shim_*.h) against the Python paths they
shortcut, and against NumPy and torch.

Each fast path returns a finished Tensor for the common case or None, and
the public function then runs the complete Python path. These tests check
both halves: the common case really is taken in C (so the benchmarks measure
what they claim), it gives exactly what the Python path gives, and every
input it declines still reaches the Python path's result or error.
"""
import array
import gc
import mmap
import sys
import weakref

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st, HealthCheck

import pytensor
from pytensor import _convert
from pytensor._ffi import lib, shim
from pytensor.tensor import Tensor, _infer_shape, _view_strides
from support import require_module

NP_DTYPES = ["bool", "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64", "float16",
             "float32", "float64", "complex64", "complex128"]


def _fields(t):
    s = t.untyped_storage()
    return (t.dtype, t.shape, t.stride(), t.storage_offset(), t.data_ptr(), s.data_ptr(), s.nbytes(),
            s.is_readonly(), s.provenance, s.label)


# ---------------------------------------------------------------- NumPy

def _layouts(a):
    yield a
    yield a[::2]
    yield a.reshape(3, 4).T
    yield np.asfortranarray(a.reshape(3, 4))
    yield a.reshape(2, 3, 2)[:, 1:, ::2]
    yield a[:0]
    yield a[5, ...]  # 0-d view
    ro = a.copy()
    ro.flags.writeable = False
    yield ro


@pytest.mark.parametrize("name", NP_DTYPES)
def test_share_numpy_matches_the_python_path(name):
    base = np.arange(12).astype(name)
    for a in _layouts(base):
        fast = shim.share_numpy(a, 0)
        assert isinstance(fast, Tensor), (name, a.shape, a.strides)
        slow = _convert.from_numpy(a)
        assert _fields(fast) == _fields(slow)
        assert pytensor.from_numpy(a).data_ptr() == a.__array_interface__["data"][0]
        np.testing.assert_array_equal(fast.numpy(), a)


def test_share_numpy_declines_what_from_numpy_refuses_and_from_numpy_still_raises():
    a = np.arange(6.0)
    odd_strides = np.ndarray(shape=(2,), dtype=np.int16, buffer=bytearray(8), strides=(3,))
    declined = [a[::-1], a.astype(">f8"), np.zeros(3, dtype="U3"), np.zeros(3, dtype=object),
                np.zeros(3, dtype=[("x", "i4")]), odd_strides]
    for arr in declined:
        assert shim.share_numpy(arr, 0) is None, arr.dtype
        with pytest.raises((TypeError, ValueError)):
            pytensor.from_numpy(arr)
    # not an ndarray at all
    for obj in ([1, 2], b"ab", 3.0, None):
        assert shim.share_numpy(obj, 0) is None
    # asarray's min_ndim: a 0-d array is left to the caller (asarray copies it)
    z = np.array(3.0)
    assert shim.share_numpy(z, 1) is None
    assert pytensor.asarray(z).data_ptr() != z.__array_interface__["data"][0]
    assert pytensor.as_tensor(z).data_ptr() == z.__array_interface__["data"][0]


def test_share_numpy_keeps_the_array_alive_exactly_as_long_as_the_storage():
    a = np.arange(4.0)
    base = sys.getrefcount(a)
    live = lib.lt_storage_live_count()
    t = pytensor.from_numpy(a)
    v = t[1:]
    del t
    gc.collect()
    assert sys.getrefcount(a) == base + 1  # the storage's one reference
    v[0] = 7.0
    assert a[1] == 7.0
    del v
    gc.collect()
    assert sys.getrefcount(a) == base
    assert lib.lt_storage_live_count() == live


def test_share_numpy_writeable_flag_and_subclasses():
    class Sub(np.ndarray):
        pass

    s = np.arange(3.0).view(Sub)
    t = pytensor.from_numpy(s)
    assert isinstance(shim.share_numpy(s, 0), Tensor) and t.tolist() == [0.0, 1.0, 2.0]
    ro = np.arange(3)
    ro.flags.writeable = False
    r = pytensor.from_numpy(ro)
    assert r.is_readonly()
    with pytest.raises(RuntimeError):
        r[0] = 1


# ---------------------------------------------------------------- buffers

needs_buffer_api = pytest.mark.skipif(sys.version_info < (3, 11),
                                      reason="the buffer protocol is in the limited API from 3.11")


@needs_buffer_api
def test_share_buffer_is_built_on_311():
    assert hasattr(shim, "share_buffer")


@needs_buffer_api
@settings(max_examples=150, deadline=None)
@given(n=st.integers(1, 40), dtype=st.sampled_from(["uint8", "int16", "float32", "float64", "complex64"]),
       count=st.integers(-1, 12), offset=st.integers(0, 41),
       kind=st.sampled_from(["bytearray", "bytes", "memoryview", "array", "mmap"]))
def test_share_buffer_matches_numpy_frombuffer(n, dtype, count, offset, kind):
    raw = bytes(range(n))
    if kind == "bytearray":
        src = bytearray(raw)
    elif kind == "bytes":
        src = raw
    elif kind == "memoryview":
        src = memoryview(bytearray(raw))
    elif kind == "array":
        src = array.array("B", raw)
    else:
        src = mmap.mmap(-1, n)
        src[:] = raw
    pdt = getattr(pytensor, dtype)
    try:
        want = np.frombuffer(src, dtype=dtype, count=count, offset=offset)
    except ValueError:
        want = None
    if count == 0:
        want = None  # torch refuses count=0 (numpy gives an empty array)
    fast = shim.share_buffer(src, pdt, count, offset, False)
    if want is None or want.size == 0:
        assert fast is None
        with pytest.raises(ValueError):
            pytensor.frombuffer(src, dtype=pdt, count=count, offset=offset)
    else:
        assert isinstance(fast, Tensor)
        t = pytensor.frombuffer(src, dtype=pdt, count=count, offset=offset)
        for got in (fast, t):
            np.testing.assert_array_equal(got.numpy(), want)
            assert got.data_ptr() == want.__array_interface__["data"][0]
            assert got.is_readonly() == (kind == "bytes")
            assert got.untyped_storage().provenance == "buffer"
        del fast, t, got
    if kind == "mmap":
        del want
        gc.collect()
        src.close()  # no export is left behind


@needs_buffer_api
def test_share_buffer_holds_the_export_and_releases_it_once():
    buf = bytearray(8)
    base = sys.getrefcount(buf)
    t = shim.share_buffer(buf, pytensor.uint8, -1, 0, False)
    assert t.untyped_storage().label == "bytearray"
    with pytest.raises(BufferError):
        buf.append(1)  # exported: cannot be resized under the tensor
    t[0] = 9
    assert buf[0] == 9
    del t
    gc.collect()
    buf.append(1)
    assert sys.getrefcount(buf) == base


@needs_buffer_api
def test_share_buffer_declines_object_arrays_and_non_contiguous_buffers():
    objs = np.array([object(), object()])
    assert shim.share_buffer(objs, pytensor.uint8, -1, 0, False) is None
    assert pytensor.frombuffer(objs, dtype=pytensor.uint8).is_readonly()
    strided = memoryview(bytearray(8))[::2]
    assert shim.share_buffer(strided, pytensor.uint8, -1, 0, False) is None
    with pytest.raises(RuntimeError):
        pytensor.frombuffer(strided, dtype=pytensor.uint8)


# ---------------------------------------------------------------- view / reshape

@st.composite
def _view_and_shape(draw):
    shape = draw(st.lists(st.integers(0, 4), min_size=0, max_size=4))
    base = pytensor.arange(max(1, int(np.prod(shape)) * 2), dtype=pytensor.int32)
    t = base[::2][:int(np.prod(shape))].view(shape) if shape else base[0]
    if len(shape) >= 2 and draw(st.booleans()):
        t = t.transpose(0, -1)
    if t.dim() and draw(st.booleans()):
        t = t[:max(0, t.shape[0] - 1)]
    numel = t.numel()
    target = []
    rest = numel
    for _ in range(draw(st.integers(0, 4))):
        divisors = [d for d in range(1, 9) if rest % d == 0] if rest else [0, 1, 2]
        d = draw(st.sampled_from(divisors))
        target.append(d)
        rest = rest // d if d else rest
    if draw(st.booleans()) and target:
        target[draw(st.integers(0, len(target) - 1))] = -1
    elif rest != 1 and numel:
        target.append(rest)
    if draw(st.booleans()):
        target = [draw(st.integers(-3, 9)) for _ in range(len(target))]  # often invalid
    return t, tuple(target)


def _python_reshape(t, sizes):
    try:
        shape = _infer_shape(sizes, t.numel())
    except RuntimeError:
        return "error"
    strides = _view_strides(t._shape, t._strides, shape)
    return None if strides is None else (shape, strides)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_view_and_shape(), st.booleans())
def test_reshape_view_matches_the_python_rules(case, as_tuple):
    t, sizes = case
    args = (sizes,) if as_tuple else sizes
    fast = shim.reshape_view(t, args)
    want = _python_reshape(t, sizes)
    if want in ("error", None):
        assert fast is None  # the Python path raises, or copies (reshape)
    else:
        assert fast is not None
        assert (fast.shape, fast.stride(), fast.storage_offset()) == (want[0], want[1], t.storage_offset())
        assert fast.untyped_storage() is t.untyped_storage() and fast.dtype is t.dtype
    # the public methods agree with torch either way
    torch = require_module("torch")
    tt = torch.as_strided(torch.arange(1024, dtype=torch.int32), t.shape, t.stride(), t.storage_offset())
    try:
        expect = tt.reshape(sizes)
    except RuntimeError:
        with pytest.raises(RuntimeError):
            t.reshape(sizes)
    else:
        got = t.reshape(sizes)
        assert tuple(got.shape) == tuple(expect.shape)
        assert got.tolist() == expect.tolist()
        if want not in ("error", None):
            assert got.stride() == expect.stride()


def test_reshape_view_declines_non_int_sizes():
    t = pytensor.arange(6)
    for args in ((2.0, 3), (True, 6), ("2", 3), (np.int64(2), 3)):
        assert shim.reshape_view(t, args) is None
    assert t.reshape(np.int64(2), 3).shape == (2, 3)  # __index__ still works on the Python path
    assert t.view(pytensor.int32).shape == (12,)  # view(dtype) is the Python path's


# ---------------------------------------------------------------- nested lists

_leaf = st.one_of(st.floats(allow_nan=True, allow_infinity=True, width=64),
                  st.integers(-2**63, 2**63 - 1))


@st.composite
def _nests(draw):
    shape = draw(st.lists(st.integers(1, 4), min_size=1, max_size=3))
    n = int(np.prod(shape))
    kind = draw(st.sampled_from(["float", "int", "mixed"]))
    elem = {"float": st.floats(width=64), "int": st.integers(-2**63, 2**63 - 1), "mixed": _leaf}[kind]
    flat = draw(st.lists(elem, min_size=n, max_size=n))
    nest = flat
    for d in reversed(shape[1:]):
        nest = [nest[i:i + d] for i in range(0, len(nest), d)]
    if draw(st.booleans()):
        nest = tuple(nest)
    return nest


@settings(max_examples=300, deadline=None)
@given(_nests(), st.sampled_from([None, "float32", "float64", "int64"]))
def test_pack_nest_matches_torch(data, dtype):
    torch = require_module("torch")
    pdt = None if dtype is None else getattr(pytensor, dtype)
    tdt = None if dtype is None else getattr(torch, dtype)
    try:
        want = torch.tensor(data, dtype=tdt)
    except Exception as e:  # torch's refusal: ours must be of the same type
        with pytest.raises(type(e)):
            pytensor.tensor(data, dtype=pdt)
        return
    got = pytensor.tensor(data, dtype=pdt)
    assert got.dtype.name == str(want.dtype).replace("torch.", "")
    assert tuple(got.shape) == tuple(want.shape) and got.is_contiguous()
    np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_pack_nest_takes_the_common_case_and_declines_the_rest():
    f32 = pytensor.float32.code
    assert isinstance(shim.pack_nest([[1.5, 2], [3, 4]], -1, f32), Tensor)
    assert shim.pack_nest([1, 2], -1, f32).dtype is pytensor.int64
    assert shim.pack_nest([1, 2.5], -1, pytensor.float64.code).dtype is pytensor.float64
    declined = [[], [[]], [True, 2], [1, np.float32(2)], [[1, 2], [3]], [[1, 2], 3], [1, "a"], [2**64],
                [1, 2.0 + 1j], [pytensor.tensor(1.0)]]
    for data in declined:
        assert shim.pack_nest(data, -1, f32) is None, data
    assert shim.pack_nest([1.5], pytensor.int64.code, f32) is None  # the Python path refuses or converts
    assert shim.pack_nest([1, 2], pytensor.int8.code, f32) is None
    deep = [1.0]
    for _ in range(70):
        deep = [deep]
    assert shim.pack_nest(deep, -1, f32) is None
    selfref = [1.0]
    selfref[0] = selfref
    assert shim.pack_nest(selfref, -1, f32) is None
    with pytest.raises(TypeError):
        pytensor.tensor(selfref)


def test_pack_nest_follows_the_default_dtype():
    pytensor.set_default_dtype(pytensor.float64)
    try:
        assert pytensor.tensor([0.1, 2]).dtype is pytensor.float64
        assert pytensor.tensor([0.1]).item() == 0.1
    finally:
        pytensor.set_default_dtype(pytensor.float32)
    assert pytensor.tensor([0.1]).item() == float(np.float32(0.1))


# ---------------------------------------------------------------- the C bases themselves

def test_tensor_and_storage_take_weak_references_and_cycles_are_collected():
    t = pytensor.arange(4.0)
    s = t.untyped_storage()
    wt, ws = weakref.ref(t), weakref.ref(s)
    t._grad_fn = [t]  # a reference cycle through a C field
    del t, s
    gc.collect()
    assert wt() is None and ws() is None


def test_the_c_bases_are_not_constructors():
    with pytest.raises(TypeError):
        Tensor()
    s = pytensor.UntypedStorage(5)
    assert s.nbytes() == 5 and bytes(pytensor.frombuffer(bytearray(5), dtype=pytensor.uint8).tolist()) == bytes(5)
    assert isinstance(s, shim.StorageBase) and s.provenance == "owned" and s.refcount == 1


def test_storage_fields_are_read_only_where_the_c_storage_decides():
    s = pytensor.arange(3).untyped_storage()
    for name in ("_addr", "_nbytes", "_readonly", "_host"):
        with pytest.raises(AttributeError):
            setattr(s, name, 0)
    assert s._ptr == s._ptr and int(pytensor._ffi.ffi.cast("uintptr_t", s._ptr)) == s._saddr


def test_dlpack_round_trip_through_the_c_paths_keeps_refcounts():
    a = np.arange(5.0)
    base = sys.getrefcount(a)
    live = lib.lt_storage_live_count()
    for _ in range(200):
        t = pytensor.from_dlpack(a)          # import_dlpack
        cap = t.__dlpack__(max_version=(1, 0))  # to_capsule, versioned
        u = pytensor.from_dlpack(cap)        # import of a capsule
        assert u.data_ptr() == t.data_ptr() == a.__array_interface__["data"][0]
        del t, cap, u
    gc.collect()
    assert sys.getrefcount(a) == base
    assert lib.lt_storage_live_count() == live


# ---------------------------------------------------------------- t[index]

@settings(max_examples=300, deadline=None)
@given(shape=st.lists(st.integers(0, 5), min_size=1, max_size=3), transpose=st.booleans(),
       index=st.one_of(st.integers(-7, 7),
                       st.builds(slice, st.none() | st.integers(-8, 8), st.none() | st.integers(-8, 8),
                                 st.none() | st.integers(1, 4))))
def test_subscript_slot_matches_the_python_indexer_and_torch(shape, transpose, index):
    torch = require_module("torch")
    base = pytensor.arange(max(1, int(np.prod(shape))), dtype=pytensor.int16)[:int(np.prod(shape))].view(shape)
    t = base.transpose(0, -1) if transpose and len(shape) > 1 else base
    tt = torch.as_strided(torch.arange(256, dtype=torch.int16), t.shape, t.stride(), t.storage_offset())
    try:
        want = tt[index]
    except IndexError:
        with pytest.raises(IndexError):
            t[index]
        with pytest.raises(IndexError):
            t._getitem(index)
        return
    for got in (t[index], t._getitem(index)):
        assert (tuple(got.shape), got.stride(), got.storage_offset()) == \
            (tuple(want.shape), want.stride(), want.storage_offset())
        assert got.untyped_storage() is t.untyped_storage() and got.dtype is t.dtype
        assert got.tolist() == want.tolist()


def test_subscript_slot_leaves_graphs_and_odd_indices_to_python():
    x = pytensor.arange(6.0).requires_grad_()
    assert x[1:].grad_fn.name() == "SliceBackward0" and x[2].grad_fn.name() == "SelectBackward0"
    with pytensor.no_grad():
        assert x[1:].grad_fn is None
    t = pytensor.arange(6)
    assert t[np.int64(2)].item() == 2 and t[True].shape == (1, 6) and t[None].shape == (1, 6)
    assert t[...].data_ptr() == t.data_ptr() and t[...] is not t
    with pytest.raises(ValueError):
        t[::0]
    with pytest.raises(ValueError):
        t[::-1]  # torch refuses negative steps
    with pytest.raises(IndexError):
        t[6]
    with pytest.raises(IndexError):
        pytensor.tensor(1.0)[0]
    with pytest.raises(ValueError):
        t[2**70]  # beyond int64, as torch


# ---------------------------------------------------------------- DLPack C exchange API (torch)

def _torch_cases(torch):
    base = torch.arange(24, dtype=torch.float32).reshape(2, 3, 4)
    yield base
    yield base[:, 1:, ::2]
    yield base.transpose(0, 2)
    yield base[1, 2, 3]  # 0-d
    yield base[:, :0]  # empty
    for dt in (torch.bool, torch.uint8, torch.int16, torch.int64, torch.float16, torch.bfloat16,
               torch.float64, torch.complex64):
        yield torch.ones(3, 2, dtype=dt)[::2]


def test_exchange_api_import_matches_the_dlpack_capsule_path():
    torch = require_module("torch")
    assert hasattr(torch.Tensor, "__dlpack_c_exchange_api__")  # torch 2.13 publishes it
    for t in _torch_cases(torch):
        fast = shim.import_dlpack(t)  # the exchange table
        slow = pytensor.from_dlpack(t.__dlpack__(max_version=(1, 3)))  # a capsule
        assert isinstance(fast, Tensor)
        assert (fast.dtype, fast.shape, fast.stride(), fast.storage_offset(), fast.data_ptr()) == \
            (slow.dtype, slow.shape, slow.stride(), slow.storage_offset(), slow.data_ptr())
        assert fast.data_ptr() == t.data_ptr() or t.numel() == 0
        assert fast.untyped_storage().provenance == "dlpack"
        if t.dtype is not torch.bfloat16:
            np.testing.assert_array_equal(fast.numpy(), t.numpy())


def test_exchange_api_import_shares_memory_and_frees_the_producer_once():
    torch = require_module("torch")
    src = torch.zeros(4)
    base = sys.getrefcount(src)
    live = lib.lt_storage_live_count()
    for _ in range(300):
        t = pytensor.from_dlpack(src)
        t[1] = 5.0
        del t
    gc.collect()
    assert src[1].item() == 5.0
    assert sys.getrefcount(src) == base and lib.lt_storage_live_count() == live
    keep = pytensor.from_dlpack(torch.arange(3.0))  # the producer's only owner is now our storage
    gc.collect()
    assert keep.tolist() == [0.0, 1.0, 2.0]


def test_exchange_api_keeps_torch_refusals_and_subclass_overrides():
    torch = require_module("torch")
    with pytest.raises(BufferError):  # torch's C export would take it; its __dlpack__ refuses
        pytensor.from_dlpack(torch.ones(2, requires_grad=True))
    with pytest.raises(BufferError):  # the conjugate bit: the memory holds unconjugated values
        pytensor.from_dlpack(torch.tensor([1 + 2j]).conj())
    assert pytensor.from_dlpack(torch.tensor([1 + 2j]).conj().resolve_conj()).tolist() == [1 - 2j]
    with pytest.raises(BufferError):
        pytensor.from_dlpack(torch.ones(2).to_sparse())

    calls = []

    class Sub(torch.Tensor):
        def __dlpack__(self, *args, **kwargs):
            calls.append(kwargs)
            return super().__dlpack__(*args, **kwargs)

    s = torch.arange(3.0).as_subclass(Sub)
    assert pytensor.from_dlpack(s).tolist() == [0.0, 1.0, 2.0]
    assert calls == [{"max_version": (1, 3)}]  # the override ran: no inherited table was used
