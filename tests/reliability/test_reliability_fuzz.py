"""Hostile input, fuzzed with hypothesis: every input either succeeds with a
result that is checked against a model, or raises an ordinary Python
exception with a message; nothing crashes, leaks or reaches outside its
buffer (the sanitized pass of test_sanitized_suite.py runs this file too, so
an out-of-bounds read would be reported there).

Covered: frombuffer (buffers, offsets, counts, dtypes), as_strided and
view / reshape / expand (negative, zero, huge and int64-overflowing shapes,
strides and offsets), tensor() (nested values of every kind, every dtype),
malformed DLPack tensors made by the C test producer (versions, flags, NULL
shape, absurd ndim, overflowing shape * strides, byte offsets, dtypes,
devices), and from_file (sizes, dtypes, file lengths).
"""
import array
import gc
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st

import pytensor
from dlpack_producer import Producer, capsule_name
from pytensor._ffi import lib

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck), database=None)
DTYPES = [pytensor.bool, pytensor.uint8, pytensor.uint16, pytensor.uint32, pytensor.uint64, pytensor.int8,
          pytensor.int16, pytensor.int32, pytensor.int64, pytensor.float16, pytensor.bfloat16, pytensor.float32,
          pytensor.float64, pytensor.complex64, pytensor.complex128]
# What a refusal may be: the builtin types torch raises for bad arguments.
REFUSALS = (ValueError, TypeError, RuntimeError, OverflowError, IndexError, BufferError, MemoryError)
I64 = 2**63

# Integers that matter at the edges: small ones, and ones around every power of two up to beyond int64.
edge_ints = st.one_of(
    st.integers(-4, 70),
    st.sampled_from([2**k + d for k in (31, 32, 62, 63, 64, 65) for d in (-1, 0, 1)]).flatmap(
        lambda v: st.sampled_from([v, -v])),
    st.integers(-2**66, 2**66),
)


def refused(excinfo_value):
    """A refusal is an ordinary exception with a message."""
    assert isinstance(excinfo_value, REFUSALS), repr(excinfo_value)
    assert str(excinfo_value).strip(), f"{type(excinfo_value).__name__} without a message"


def attempt(f):
    """(result, None) or (None, the exception), after checking that the exception is a clean refusal."""
    try:
        return f(), None
    except REFUSALS as e:
        refused(e)
        return None, e


def footprint_ok(t):
    """Exact (Python integer) check that every byte t can reach lies in its storage."""
    if t.numel() == 0:
        lo = hi = t.storage_offset() * t.itemsize
    else:
        lo = hi = t.storage_offset()
        for n, s in zip(t.shape, t.stride()):
            lo, hi = (lo + (n - 1) * s, hi) if s < 0 else (lo, hi + (n - 1) * s)
        lo, hi = lo * t.itemsize, (hi + 1) * t.itemsize
    return 0 <= lo <= hi <= t.untyped_storage().nbytes()


@pytest.fixture(autouse=True, scope="module")
def nothing_leaks():
    gc.collect()
    live0 = pytensor.live_storages()
    yield
    gc.collect()
    assert pytensor.live_storages() == live0


# ---------------------------------------------------------------- frombuffer

BUFFER_KINDS = [bytes, bytearray, lambda b: memoryview(bytearray(b)), lambda b: array.array("B", b),
                lambda b: np.frombuffer(bytearray(b), np.uint8), lambda b: memoryview(b)]
buffers = st.tuples(st.binary(max_size=64), st.sampled_from(BUFFER_KINDS)).map(lambda bk: bk[1](bk[0]))


@SETTINGS
@given(buf=buffers, dtype=st.sampled_from(DTYPES), count=st.one_of(st.just(-1), edge_ints),
       offset=st.one_of(st.just(0), edge_ints))
def test_frombuffer_takes_exactly_the_bytes_it_may(buf, dtype, count, offset):
    raw = bytes(memoryview(buf).cast("B"))
    length, size = len(raw), dtype.itemsize
    t, err = attempt(lambda: pytensor.frombuffer(buf, dtype=dtype, count=count, offset=offset))
    # torch's rules, computed with exact integers
    fits = -I64 <= count < I64 and -I64 <= offset < I64
    n = count if count > 0 else (length - offset) // size if length else 0
    ok = (fits and length > 0 and count != 0 and 0 <= offset < length
          and not (count < 0 and (length - offset) % size) and offset + n * size <= length)
    if not ok:
        assert err is not None, f"accepted count={count} offset={offset} over {length} bytes of {dtype}"
        return
    assert err is None, err
    assert t.shape == (n,) and t.untyped_storage().nbytes() == n * size
    got = bytes(t.view(pytensor.uint8).numpy()) if n else b""
    assert got == raw[offset:offset + n * size]


# ---------------------------------------------------------------- as_strided, view, reshape, expand

def base_tensors():
    return st.sampled_from([
        lambda: pytensor.arange(24, dtype=pytensor.int32),
        lambda: pytensor.arange(24, dtype=pytensor.float64).view(2, 3, 4).permute(2, 0, 1),
        lambda: pytensor.arange(24, dtype=pytensor.int16)[3:17],
        lambda: pytensor.arange(24, dtype=pytensor.uint8).view(4, 6)[:, ::2],
        lambda: pytensor.zeros(0),
        lambda: pytensor.tensor(5.0),
        lambda: pytensor.arange(2, dtype=pytensor.complex128)[:1].expand(3, 4),
    ]).map(lambda make: make())


@SETTINGS
@given(base=base_tensors(), data=st.data(), small=st.booleans())
def test_as_strided_never_reaches_outside_the_storage(base, data, small):
    ints = st.integers(-3, 30) if small else edge_ints
    ndim = data.draw(st.integers(0, 6))
    size = data.draw(st.lists(ints, min_size=ndim, max_size=ndim))
    stride = data.draw(st.lists(ints, min_size=ndim, max_size=ndim + data.draw(st.integers(0, 1))))
    offset = data.draw(st.one_of(st.none(), ints))
    v, err = attempt(lambda: base.as_strided(size, stride, offset))
    if err is not None:
        # Moderate, non-negative input that lies inside the storage must not be refused.
        off = base.storage_offset() if offset is None else offset
        if small and len(size) == len(stride) and min(size + stride + [off], default=0) >= 0:
            probe = pytensor.Tensor._make(base.untyped_storage(), base.dtype, tuple(size), tuple(stride), off)
            assert not footprint_ok(probe), f"refused a valid view: {err}"
        return
    assert footprint_ok(v)
    assert v.data_ptr() - base.data_ptr() == (v.storage_offset() - base.storage_offset()) * base.itemsize
    if v.numel() <= 4096:
        v.clone()                     # reads every element (an out-of-bounds read fails under ASan)


@SETTINGS
@given(base=base_tensors(), shape=st.lists(st.one_of(st.integers(-2, 30), edge_ints), max_size=6),
       how=st.sampled_from(["view", "reshape", "expand"]))
def test_view_reshape_expand_refuse_or_agree_with_numpy(base, shape, how):
    out, err = attempt(lambda: getattr(base, how)(*shape) if shape else getattr(base, how)(()))
    if err is not None:
        return
    assert footprint_ok(out)
    if out.numel() == 0:
        return                        # numpy cannot always hold such shapes (e.g. (0, 2**62))
    ref = base.numpy()
    if how == "expand":
        assert out.numel() == math.prod(out.shape)
        want_shape = tuple(base.shape[i - (len(shape) - base.dim())] if s == -1 else s for i, s in enumerate(shape))
        assert out.shape == want_shape
        if out.numel() <= 4096:
            np.testing.assert_array_equal(out.numpy(), np.broadcast_to(ref, want_shape))
    else:
        assert out.numel() == base.numel()
        np.testing.assert_array_equal(out.numpy(), ref.reshape(out.shape))
        if how == "view":
            assert out.data_ptr() == base.data_ptr() or base.numel() == 0


# ---------------------------------------------------------------- tensor()

scalars = st.one_of(st.booleans(), edge_ints, st.floats(allow_nan=True, allow_infinity=True),
                    st.complex_numbers(allow_nan=True, allow_infinity=True))
nested = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4), max_leaves=24)


@SETTINGS
@given(value=nested, dtype=st.one_of(st.none(), st.sampled_from(DTYPES)))
def test_tensor_of_any_nested_value_is_built_or_refused(value, dtype):
    t, err = attempt(lambda: pytensor.tensor(value, dtype=dtype))
    if err is not None:
        return
    assert dtype is None or t.dtype is dtype
    assert t.untyped_storage().nbytes() == t.numel() * t.itemsize
    back = t.tolist()
    if dtype is None and t.dtype in (pytensor.int64, pytensor.float64):
        want = np.asarray(value, dtype=np.float64 if t.dtype is pytensor.float64 else np.int64)
        np.testing.assert_array_equal(np.asarray(back, dtype=want.dtype), want)


# ---------------------------------------------------------------- malformed DLPack

dl_dims = st.one_of(st.integers(-2, 6), st.sampled_from([2**31 - 1, -2**31, 65, 64]))
dl_ints = st.one_of(st.integers(-3, 8), st.sampled_from([2**62, 2**63 - 1, -2**63, -2**62, 2**32]))


@settings(SETTINGS, max_examples=200)
@given(data=st.data(), versioned=st.booleans(), dtype=st.sampled_from(range(lib.LT_DTYPE_COUNT)))
def test_malformed_dlpack_is_refused_before_ownership_or_imported_safely(data, versioned, dtype):
    p = Producer()
    ndim = data.draw(st.integers(0, 5))
    shape = data.draw(st.one_of(st.none(), st.lists(dl_ints, min_size=ndim, max_size=ndim)))
    strides = data.draw(st.one_of(st.none(), st.lists(dl_ints, min_size=ndim, max_size=ndim)))
    byte_offset = data.draw(st.one_of(st.just(0), st.sampled_from([1, 3, 8, 2**63, 2**64 - 8])))
    flags = data.draw(st.one_of(st.just(0), st.sampled_from([1, 2, 4, 8, 1 << 5, 1 << 63]), st.integers(0, 2**64 - 1)))
    major = data.draw(st.one_of(st.just(1), st.sampled_from([0, 2, 2**32 - 1])))
    edits = data.draw(st.fixed_dictionaries({}, optional={
        "ndim": dl_dims, "lanes": st.sampled_from([0, 2, 65535]), "code": st.sampled_from([3, 7, 99, 255]),
        "bits": st.sampled_from([0, 1, 7, 128, 255]), "device": st.sampled_from([2, 5, 4, 13, 99, -1]),
        "minor": st.sampled_from([0, 99, 2**32 - 1])}))
    if shape is None:
        strides = None

    def edit(m):
        t = m.dl_tensor
        if "ndim" in edits:
            t.ndim = edits["ndim"]
        for name in ("lanes", "code", "bits"):
            if name in edits:
                setattr(t.dtype, name, edits[name])
        if "device" in edits:
            t.device.device_type = edits["device"]
        if versioned and "minor" in edits:
            m.version.minor = edits["minor"]

    kw = dict(flags=flags, major=major) if versioned else {}
    if shape is None and ndim:
        edits.setdefault("ndim", ndim)  # a NULL shape with ndim > 0
    cap = p.capsule(tuple(shape) if shape is not None else None, strides, versioned=versioned, edit=edit,
                    dtype=dtype, byte_offset=byte_offset, **kw)
    t, err = attempt(lambda: pytensor.from_dlpack(cap))
    if err is not None:
        assert isinstance(err, BufferError), repr(err)
        assert capsule_name(cap) in ("dltensor", "dltensor_versioned")   # ownership never taken
        assert p.calls == 0
    else:
        assert capsule_name(cap).startswith("used_")
        assert footprint_ok(t)
        if t.is_cpu and t.numel() <= 4096 and t.untyped_storage().nbytes() <= 256 << 20:
            t.clone()                 # reads every element the producer promised
    del cap, t, err
    if p.calls != 1:
        gc.collect()                  # a reference cycle elsewhere (e.g. a traceback) may hold the last view
    assert p.calls == 1               # the deleter ran exactly once, whoever owned it


# ---------------------------------------------------------------- from_file

@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(length=st.integers(0, 64), shared=st.sampled_from([None, False, True]), dtype=st.sampled_from(DTYPES),
       size=st.one_of(st.none(), st.integers(-3, 40), st.sampled_from([2**61, 2**62, 2**63, 2**64])))
def test_from_file_maps_exactly_the_file_or_refuses(tmp_path_factory, length, shared, dtype, size):
    # a shared map would create a sparse file of that size; beyond int64 bytes it is refused first
    assume(not (shared and size is not None and 64 < size * dtype.itemsize < I64))
    path = tmp_path_factory.mktemp("ff") / "f.bin"
    content = bytes(range(length))
    path.write_bytes(content)
    t, err = attempt(lambda: pytensor.from_file(str(path), shared=shared, size=size, dtype=dtype))
    nbytes = size * dtype.itemsize if size is not None else length
    if err is not None:
        assert (size is not None and (size < 0 or nbytes >= I64 or (not shared and nbytes > length))) or \
            (size is None and length % dtype.itemsize), err
        assert path.read_bytes() == content   # a refusal changes nothing
        return
    assert t.shape == (nbytes // dtype.itemsize,)
    got = bytes(t.view(pytensor.uint8).numpy()) if t.numel() else b""
    assert got == content[:nbytes] + bytes(max(0, nbytes - length))
    del t
    gc.collect()
    on_disk = path.read_bytes()
    assert on_disk[:length] == content        # existing bytes never change
    assert len(on_disk) == (max(length, nbytes) if shared else length)
