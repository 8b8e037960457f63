"""Sources live exactly as long as a tensor needs them: a shared source stays
alive (and usable) after every other reference is gone, its refcount returns
to baseline when the last tensor dies, copies never hold it, and libtensor's
live-storage count returns to where it started."""
import array
import gc
import mmap
import sys
import weakref

import numpy as np
import pytest

import pytensor


class Buf(bytearray):
    """A bytearray that can be weakly referenced."""


class Arr(np.ndarray):
    """An ndarray subclass, only to name a type here (ndarrays take weak references)."""


def _np_source():
    return np.arange(12.0).reshape(3, 4).view(Arr)


SHARING = {
    "from_numpy": (lambda: np.arange(6.0), pytensor.from_numpy),
    "asarray-ndarray": (lambda: np.arange(6.0), pytensor.asarray),
    "as_tensor-ndarray": (lambda: np.arange(6.0), pytensor.as_tensor),
    "as_tensor-0d": (lambda: np.array(1.5), pytensor.as_tensor),
    "frombuffer-bytearray": (lambda: bytearray(16), lambda s: pytensor.frombuffer(s, dtype=pytensor.int32)),
    "frombuffer-bytes": (lambda: bytes(16), lambda s: pytensor.frombuffer(s, dtype=pytensor.int32)),
    "frombuffer-array": (lambda: array.array("d", [1.0, 2.0]),
                         lambda s: pytensor.frombuffer(s, dtype=pytensor.int64)),
    "frombuffer-memoryview": (lambda: memoryview(bytearray(16)),
                              lambda s: pytensor.frombuffer(s, dtype=pytensor.uint8)),
    "frombuffer-mmap": (lambda: mmap.mmap(-1, 16), lambda s: pytensor.frombuffer(s, dtype=pytensor.uint8)),
    "asarray-buffer": (lambda: bytearray(16), pytensor.asarray),
}
COPYING = {
    "tensor-ndarray": (lambda: np.arange(6.0), pytensor.tensor),
    "asarray-copy": (lambda: np.arange(6.0), lambda s: pytensor.asarray(s, copy=True)),
    "asarray-0d": (lambda: np.array(1.5), pytensor.asarray),
    "asarray-dtype": (lambda: np.arange(6.0), lambda s: pytensor.asarray(s, dtype=pytensor.float32)),
    "as_tensor-bytearray": (lambda: bytearray(4), pytensor.as_tensor),
    "tensor-list": (lambda: [1.0, 2.0], pytensor.tensor),
    "asarray-buffer-copy": (lambda: bytearray(16), lambda s: pytensor.asarray(s, copy=True)),
}


@pytest.mark.parametrize("name", sorted(SHARING))
def test_shared_source_refcount_returns_to_baseline(name, live_baseline):
    make, ctor = SHARING[name]
    src = make()
    baseline = sys.getrefcount(src)
    for _ in range(3):
        t = ctor(src)
        views = [t.view(-1), t.view(-1)[1:]]
        assert sys.getrefcount(src) > baseline          # the tensor holds the source
        del t, views
        gc.collect()
        assert sys.getrefcount(src) == baseline


@pytest.mark.parametrize("name", sorted(COPYING))
def test_copies_never_hold_the_source(name, live_baseline):
    make, ctor = COPYING[name]
    src = make()
    baseline = sys.getrefcount(src)
    t = ctor(src)
    assert sys.getrefcount(src) == baseline
    del t
    gc.collect()
    assert sys.getrefcount(src) == baseline


@pytest.mark.parametrize("make, ctor", [
    (_np_source, pytensor.from_numpy),
    (_np_source, pytensor.asarray),
    (_np_source, pytensor.as_tensor),
    (lambda: Buf(16), lambda s: pytensor.frombuffer(s, dtype=pytensor.float32)),
    (lambda: Buf(16), pytensor.asarray),
], ids=["from_numpy", "asarray", "as_tensor", "frombuffer", "asarray-buffer"])
def test_source_outlives_its_names_and_dies_with_the_last_tensor(make, ctor, live_baseline):
    src = make()
    ref = weakref.ref(src)
    view = ctor(src).view(-1)[1:]                    # only a view of a view is left
    del src
    gc.collect()
    assert ref() is not None                         # it keeps the memory's owner alive
    view.fill_(5)                                    # and using it is safe
    raw = bytes(memoryview(ref()).cast("B"))         # a copy of the owner's bytes, holding no export
    values = np.frombuffer(raw, dtype=np.float64 if isinstance(ref(), np.ndarray) else np.float32)
    assert values[0] == 0 and (values[1:] == 5).all()  # the writes landed in the source
    del view
    gc.collect()
    assert ref() is None


def test_deleted_array_data_stays_valid():
    a = np.arange(1000.0)
    t = pytensor.from_numpy(a)[::7]
    expected = a[::7].tolist()
    del a
    gc.collect()
    _churn = [np.full(1000, -1.0) for _ in range(50)]   # reuse freed memory, if any were freed
    assert t.tolist() == expected
    del _churn


def test_deleted_bytearray_data_stays_valid():
    buf = bytearray(range(200))
    t = pytensor.frombuffer(buf, dtype=pytensor.uint8, offset=10, count=50)
    del buf
    gc.collect()
    _churn = [bytearray(b"\xff" * 200) for _ in range(50)]
    assert t.tolist() == list(range(10, 60))
    del _churn


def test_numpy_view_of_a_tensor_keeps_it_alive(live_baseline):
    src = _np_source()
    ref = weakref.ref(src)
    back = pytensor.from_numpy(src).numpy()
    del src
    gc.collect()
    assert ref() is not None and back.sum() == sum(range(12))
    del back
    gc.collect()
    assert ref() is None


@pytest.mark.filterwarnings("ignore:To copy construct:UserWarning")
def test_gc_stress(live_baseline):
    """Many short-lived shares, views and copies of a few sources, freed in
    every order: nothing leaks and the sources' refcounts come back."""
    sources = [np.arange(64.0), bytearray(64), array.array("i", range(16)), bytes(64), memoryview(bytearray(64))]
    baselines = [sys.getrefcount(s) for s in sources]
    for round_ in range(200):
        held = []
        for s in sources:
            t = pytensor.asarray(s, dtype=None if isinstance(s, np.ndarray) else pytensor.int32)
            held += [t, t[1:], t.view(-1)[::2], pytensor.tensor(t) if round_ % 7 == 0 else t]
        if round_ % 3 == 0:
            held.reverse()
        cycle = [held]
        cycle.append(cycle)                           # a reference cycle only the collector can free
        del held, t, s, cycle
        if round_ % 10 == 0:
            gc.collect()
    gc.collect()
    assert [sys.getrefcount(s) for s in sources] == baselines


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_failed_constructions_leak_nothing(live_baseline):
    arr = np.arange(4.0)[::-1]
    buf = bytearray(7)
    before = sys.getrefcount(arr), sys.getrefcount(buf)
    for _ in range(300):
        for bad in (lambda: pytensor.from_numpy(arr), lambda: pytensor.asarray(arr),
                    lambda: pytensor.tensor(arr), lambda: pytensor.frombuffer(buf, dtype=pytensor.int32),
                    lambda: pytensor.frombuffer(buf, dtype=pytensor.int32, offset=8),
                    lambda: pytensor.asarray(buf, dtype=pytensor.float64)):
            with pytest.raises((ValueError, TypeError, RuntimeError)):
                bad()
    gc.collect()
    assert (sys.getrefcount(arr), sys.getrefcount(buf)) == before
    buf.extend(b"x")                                  # no export was left behind


def test_same_object_results_add_no_reference():
    t = pytensor.zeros(3)
    baseline = sys.getrefcount(t)
    out = pytensor.asarray(t)
    assert out is t and sys.getrefcount(t) == baseline + 1   # just the name `out`
    del out
    assert sys.getrefcount(t) == baseline
