"""The shim's C constructors and views (pytensor/_shim_*.c) against NumPy and torch.

Where pytensor has a C path it is the only implementation of that case: it
returns a finished Tensor or raises torch's error, and declines (returns
None) only what is not its kind of object. These tests check, for each path,
that values, strides, sharing, dtype and refusals (exception type and
message) match NumPy's and torch's, and that the common case runs in C: no
Python function of pytensor's rule modules runs while it is served.
"""
import array
import gc
import mmap
import sys
import warnings
import weakref

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st, HealthCheck

import pytensor
from pytensor._ffi import lib, shim
from pytensor._provenance import OP
from support import require_module

Tensor = pytensor.Tensor
NP_DTYPES = ["bool", "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64", "float16",
             "float32", "float64", "complex64", "complex128"]
_RULE_MODULES = ("pytensor._convert", "pytensor._core", "pytensor._layout")


def python_calls(fn):
    """The (module, function) of every Python function that runs inside fn() (C calls are not events)."""
    calls = []

    def profile(frame, event, arg):
        if event == "call":
            calls.append((frame.f_globals.get("__name__"), frame.f_code.co_name))

    sys.setprofile(profile)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return calls


def assert_served_in_c(fn):
    """fn() runs no Python code of pytensor's rule modules (shapes, conversions): the rules ran in C."""
    ran = [c for c in python_calls(fn) if (c[0] or "").startswith("pytensor")]
    assert ran and not any(m.startswith(_RULE_MODULES) for m, _ in ran), ran


def same_error(expected, fn):
    """fn() raises an exception of expected's type (pytensor's may subclass it) with the same message."""
    with pytest.raises(type(expected)) as got:
        fn()
    assert str(got.value) == str(expected)


def outcome(fn):
    try:
        return fn(), None
    except Exception as e:  # noqa: BLE001 - the reference's refusal, whatever it is
        return None, e


# ---------------------------------------------------------------- NumPy: from_numpy, asarray, as_tensor

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
def test_from_numpy_matches_numpy_and_torch(name):
    torch = require_module("torch")
    base = np.arange(12).astype(name)
    for a in _layouts(base):
        t = pytensor.from_numpy(a)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # torch warns on read-only arrays
            want = torch.from_numpy(a)
        assert t.dtype.name == str(want.dtype).removeprefix("torch.")
        assert tuple(t.shape) == a.shape == tuple(want.shape)
        assert t.stride() == tuple(s // a.itemsize for s in a.strides) == want.stride()
        assert t.data_ptr() == a.__array_interface__["data"][0]
        assert t.data_ptr() == want.data_ptr() or a.size == 0  # torch gives empty tensors address 0
        assert t.is_readonly() == (not a.flags.writeable)
        s = t.untyped_storage()
        assert (s.provenance, s.label) == ("numpy", "numpy.ndarray")
        np.testing.assert_array_equal(t.numpy(), a)
        for fn in (pytensor.from_numpy, pytensor.as_tensor) + ((pytensor.asarray,) if a.ndim else ()):
            assert_served_in_c(lambda: fn(a))
            assert fn(a).data_ptr() == t.data_ptr()
        assert t.untyped_storage().nbytes() == (0 if a.size == 0 else
                                                sum((n - 1) * st for n, st in zip(a.shape, a.strides)) + a.itemsize)


def test_from_numpy_refuses_what_torch_refuses_with_its_messages():
    torch = require_module("torch")
    a = np.arange(6.0)
    odd_strides = np.ndarray(shape=(2,), dtype=np.int16, buffer=bytearray(8), strides=(3,))
    refused = [a[::-1], a.astype(">f8"), a.astype(">i2"), np.zeros(3, dtype="U3"), np.zeros(3, dtype=object),
               np.zeros(3, dtype=[("x", "i4")]), np.zeros(3, dtype=">M8[s]"), odd_strides, [1, 2], b"ab", 3.0]
    for arr in refused:
        _, expected = outcome(lambda: torch.from_numpy(arr))
        assert expected is not None, arr
        if isinstance(arr, np.ndarray) and any(st < 0 for st in arr.strides):
            # the one message that is ours on purpose: it teaches the way out (issue 30's words)
            with pytest.raises(type(expected), match=r"negative stride.*from_dlpack\(array\) shares it"):
                pytensor.from_numpy(arr)
        else:
            same_error(expected, lambda: pytensor.from_numpy(arr))
        if isinstance(arr, np.ndarray):  # asarray and as_tensor share through the same C path
            with pytest.raises(type(expected)):
                pytensor.as_tensor(arr)
    # declining means only "not an ndarray" (and, for asarray, "0-d": it copies those)
    for obj in ([1, 2], b"ab", 3.0, None):
        assert shim.share_numpy(obj, 0, OP["from_numpy"]) is None
    z = np.array(3.0)
    assert shim.share_numpy(z, 1, OP["asarray"]) is None
    assert pytensor.asarray(z).data_ptr() != z.__array_interface__["data"][0]
    assert pytensor.as_tensor(z).data_ptr() == z.__array_interface__["data"][0]


def test_from_numpy_takes_ml_dtypes_arrays_by_name():
    ml_dtypes = require_module("ml_dtypes")
    for name in ("bfloat16", "float8_e4m3fn", "float8_e5m2"):
        a = np.arange(4).astype(getattr(ml_dtypes, name))
        t = pytensor.from_numpy(a)
        assert t.dtype is getattr(pytensor, name) and t.data_ptr() == a.__array_interface__["data"][0]
        np.testing.assert_array_equal(t.view(pytensor.uint8).numpy(), a.view(np.uint8))


def test_share_numpy_keeps_the_array_alive_exactly_as_long_as_the_storage():
    a = np.arange(4.0)
    base = sys.getrefcount(a)
    gc.collect()  # earlier tests' cycles that hold storages go now, not during the count below
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
    assert sys.getrefcount(a) == base      # the deleter ran: the storage dropped its reference to a
    # The count is process-wide: a storage an earlier test sent through pytensor.multiprocessing is kept until
    # its message is received, and then released on the sender's descriptor-server thread, possibly while this
    # test runs; so the count may have gone down meanwhile, never up.
    assert lib.lt_storage_live_count() <= live


def test_share_numpy_writeable_flag_and_subclasses():
    class Sub(np.ndarray):
        pass

    s = np.arange(3.0).view(Sub)
    t = pytensor.from_numpy(s)
    assert t.tolist() == [0.0, 1.0, 2.0] and t.data_ptr() == s.ctypes.data
    ro = np.arange(3)
    ro.flags.writeable = False
    r = pytensor.from_numpy(ro)
    assert r.is_readonly()
    with pytest.raises(RuntimeError):
        r[0] = 1


# ---------------------------------------------------------------- buffers: frombuffer

@settings(max_examples=200, deadline=None)
@given(n=st.integers(0, 40), dtype=st.sampled_from(["uint8", "int16", "float32", "float64", "complex64"]),
       count=st.integers(-1, 12), offset=st.integers(-1, 41),
       kind=st.sampled_from(["bytearray", "bytes", "memoryview", "array", "mmap"]))
def test_frombuffer_matches_numpy_and_torch(n, dtype, count, offset, kind):
    torch = require_module("torch")
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
        src = mmap.mmap(-1, max(n, 1))
        src[:n] = raw
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # torch warns on read-only buffers
        want, expected = outcome(lambda: torch.frombuffer(src, dtype=getattr(torch, dtype), count=count,
                                                          offset=offset))
    if expected is not None:
        same_error(expected, lambda: pytensor.frombuffer(src, dtype=getattr(pytensor, dtype), count=count,
                                                         offset=offset))
    else:
        t = pytensor.frombuffer(src, dtype=getattr(pytensor, dtype), count=count, offset=offset)
        ref = np.frombuffer(src, dtype=dtype, count=count, offset=offset)
        np.testing.assert_array_equal(t.numpy(), ref)
        np.testing.assert_array_equal(t.numpy(), want.numpy())
        assert t.data_ptr() == ref.__array_interface__["data"][0]
        assert t.data_ptr() == want.data_ptr() or t.numel() == 0
        assert (tuple(t.shape), t.stride()) == (tuple(want.shape), want.stride())
        assert t.is_readonly() == (kind == "bytes")
        assert t.untyped_storage().provenance == "buffer"
        assert_served_in_c(lambda: pytensor.frombuffer(src, dtype=getattr(pytensor, dtype), count=count,
                                                       offset=offset))
        del t, ref, want
    if kind == "mmap":
        gc.collect()
        src.close()  # no export is left behind


def test_frombuffer_holds_the_export_and_releases_it_once():
    buf = bytearray(8)
    base = sys.getrefcount(buf)
    t = pytensor.frombuffer(buf, dtype=pytensor.uint8)
    assert t.untyped_storage().label == "bytearray"
    with pytest.raises(BufferError):
        buf.append(1)  # exported: cannot be resized under the tensor
    t[0] = 9
    assert buf[0] == 9
    del t
    gc.collect()
    buf.append(1)
    assert sys.getrefcount(buf) == base


def test_frombuffer_object_arrays_are_read_only_and_strided_buffers_refused_as_torch():
    torch = require_module("torch")
    objs = np.array([object(), object()])
    t = pytensor.frombuffer(objs, dtype=pytensor.uint8)
    assert t.is_readonly() and t.numel() == objs.nbytes
    assert pytensor.frombuffer(memoryview(objs).cast("B"), dtype=pytensor.uint8).is_readonly()
    strided = memoryview(bytearray(8))[::2]
    _, expected = outcome(lambda: torch.frombuffer(strided, dtype=torch.uint8))
    with pytest.raises(type(expected), match="could not retrieve buffer from object"):
        pytensor.frombuffer(strided, dtype=pytensor.uint8)


def test_frombuffer_declines_only_arguments_it_normalizes_first():
    buf = bytearray(range(8))
    assert shim.share_buffer(buf, "int16", -1, 0, False) is None  # a dtype name
    assert shim.share_buffer(buf, pytensor.int16, np.int64(1), 0, False) is None  # an __index__ count
    assert shim.share_buffer(buf, pytensor.int16, 2**64, 0, False) is None  # beyond int64: int64_arg's error
    assert shim.share_buffer(buf, pytensor.float32, -1, 0, True) is None  # requires_grad: set in Python
    assert pytensor.frombuffer(buf, dtype="int16", count=np.int64(2), offset=np.int8(2)).tolist() == [0x0302, 0x0504]
    with pytest.raises(ValueError, match="Overflow"):
        pytensor.frombuffer(buf, dtype=pytensor.int16, count=2**64)
    with pytest.raises(TypeError):
        pytensor.frombuffer(buf, dtype=pytensor.int16, count=True)
    g = pytensor.frombuffer(bytearray(8), dtype=pytensor.float32, requires_grad=True)
    assert g.requires_grad and g.is_leaf
    with pytest.raises(RuntimeError, match="floating point"):
        pytensor.frombuffer(buf, dtype=pytensor.int16, requires_grad=True)


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


# The view/reshape cases: one generation for the torch differential test and for the test that checks
# what this generation covers.
_VIEW_CASES = (_view_and_shape(), st.booleans(), st.sampled_from(["view", "reshape"]))
_view_settings = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _view_outcome(t, sizes, as_tuple, method):
    """What pytensor did with t.<method>(sizes): "refused", "view" (same storage) or "copy"."""
    try:
        got = getattr(t, method)(*((sizes,) if as_tuple else sizes))
    except RuntimeError:
        return "refused"
    return "view" if got.untyped_storage() is t.untyped_storage() else "copy"


@_view_settings
@given(*_VIEW_CASES)
def test_view_and_reshape_match_torch(case, as_tuple, method):
    torch = require_module("torch")
    t, sizes = case
    args = (sizes,) if as_tuple else sizes
    tt = torch.as_strided(torch.arange(1024, dtype=torch.int32), t.shape, t.stride(), t.storage_offset())
    # torch's view() and reshape() with no argument at all are a TypeError of its argument parser; pytensor
    # reads them as view(()), which is what torch is asked here
    want, expected = outcome(lambda: getattr(tt, method)(*(args or ((),))))
    if expected is not None:
        assert isinstance(expected, RuntimeError)
        with pytest.raises(RuntimeError) as got:
            getattr(t, method)(*args)
        if str(expected).startswith(("shape '", "only one dimension", "view size")):  # messages torch's own
            assert str(got.value) == str(expected)
        return
    got = getattr(t, method)(*args)
    shares = want.data_ptr() == tt.data_ptr() or want.numel() == 0
    assert (tuple(got.shape), got.tolist()) == (tuple(want.shape), want.tolist())
    if shares:
        assert (got.stride(), got.storage_offset()) == (want.stride(), want.storage_offset())
        assert got.untyped_storage() is t.untyped_storage() and got.dtype is t.dtype
        assert_served_in_c(lambda: getattr(t, method)(*args))
    else:
        assert got.untyped_storage() is not t.untyped_storage() and got.is_contiguous()


def test_view_and_reshape_cases_were_generated():
    # The differential test above draws from _VIEW_CASES with the same settings; this test draws its own cases
    # (needing neither torch nor the other test to have run) and checks every outcome comes up. Which outcome
    # a case has is pytensor's answer, which the differential test holds equal to torch's.
    seen = set()

    @_view_settings
    @given(*_VIEW_CASES)
    def draw(case, as_tuple, method):
        t, sizes = case
        seen.add((method, _view_outcome(t, sizes, as_tuple, method)))

    draw()
    assert seen >= {("view", "refused"), ("view", "view"), ("reshape", "view"), ("reshape", "copy"),
                    ("reshape", "refused")}, sorted(seen)


def test_reshape_view_declines_only_sizes_that_are_not_plain_ints():
    t = pytensor.arange(6)
    view = OP["view"]
    for args in ((2.0, 3), (True, 6), ("2", 3), (np.int64(2), 3), (2**64, 1)):
        assert shim.reshape_view(t, args, view) is None
    assert t.reshape(np.int64(2), 3).shape == (2, 3)  # __index__: normalized, then the same C rules
    assert t.view(pytensor.int32).shape == (12,)  # view(dtype) is not a shape
    with pytest.raises(RuntimeError, match="only one dimension can be inferred"):
        shim.reshape_view(t, (-1, -1), view)


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
    with pytest.raises(ValueError, match="too many dimensions"):  # its own first element: torch's sizing error
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
        fast = shim.import_dlpack(t, None, False)  # the exchange table
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
