"""Leak loops: create / view / export / import / delete, thousands of times, for
every constructor and for DLPack both ways. Memory must stay flat: libtensor's
live-storage count returns to its baseline, and the process's resident set
(``/proc/self/statm``) grows by less than a few MiB after a warm-up.

Each iteration moves a 64 KiB buffer, so one leaked buffer per iteration
would grow the resident set by over 100 MiB; the bound allows 8 MiB for the
allocator's own slack. Under AddressSanitizer (the sanitized pass of
test_sanitized_suite.py) freed memory sits in ASan's quarantine, so there the
RSS bound is not asserted; the live-storage count still is.
"""
import array
import gc
import mmap
import os

import numpy as np
import pytest

import pytensor
from dlpack_producer import Producer
from support import require_module

NBYTES = 64 << 10
ITERATIONS = 2000
WARMUP = 200
RSS_SLACK = 8 << 20
UNDER_ASAN = bool(os.environ.get("PYTENSOR_UNDER_SANITIZER"))


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def open_fds():
    return len(os.listdir("/proc/self/fd"))


def assert_flat(body, iterations=ITERATIONS):
    """Runs body(i) WARMUP times, then ``iterations`` times; live storages and
    open file descriptors come back, and RSS grows by less than RSS_SLACK."""
    gc.collect()
    live0, fds0 = pytensor.live_storages(), open_fds()
    for i in range(WARMUP):
        body(i)
    gc.collect()
    rss0 = rss_bytes()
    for i in range(iterations):
        body(i)
    gc.collect()
    grown = rss_bytes() - rss0
    assert pytensor.live_storages() == live0, "a storage leaked"
    assert open_fds() == fds0, "a file descriptor leaked"
    if not UNDER_ASAN:
        assert grown < RSS_SLACK, f"RSS grew by {grown / 2**20:.1f} MiB over {iterations} iterations"


def round_trip(t, writable=True):
    """Views, exports and re-imports of t; checks that all of them alias it."""
    v = t.view(-1)[1:]
    w = v[::2]
    a = w.numpy()                                   # export: numpy view
    cap = t.__dlpack__(max_version=(1, 0))          # export: capsule, consumed below
    u = pytensor.from_dlpack(cap)                   # import our own capsule
    n = np.from_dlpack(t)                           # export to numpy through DLPack
    back = pytensor.from_dlpack(n)                  # and back again
    unused = t.__dlpack__(max_version=(1, 0))       # a capsule nobody consumes
    assert u.data_ptr() == t.data_ptr() == back.data_ptr()
    if writable:
        w.fill_(7)
        assert a[0] == 7 and n[1] == 7
    del v, w, a, cap, u, n, back, unused


SMALL = 2048  # sequences convert element by element in Python: keep them small
LIST = [k % 256 for k in range(SMALL)]
CONSTRUCTORS = {
    "tensor-list": lambda i: pytensor.tensor(LIST, dtype=pytensor.uint8),
    "tensor-ndarray": lambda i: pytensor.tensor(np.zeros(NBYTES, np.uint8)),
    "as_tensor-ndarray": lambda i: pytensor.as_tensor(np.zeros(NBYTES, np.uint8)),
    "as_tensor-bytearray-copy": lambda i: pytensor.as_tensor(bytearray(SMALL)),
    "asarray-ndarray": lambda i: pytensor.asarray(np.zeros(NBYTES, np.uint8)),
    "asarray-bytearray": lambda i: pytensor.asarray(bytearray(NBYTES)),
    "asarray-copy": lambda i: pytensor.asarray(np.zeros(NBYTES, np.uint8), copy=True),
    "asarray-memoryview": lambda i: pytensor.asarray(memoryview(bytearray(NBYTES))),
    "from_numpy": lambda i: pytensor.from_numpy(np.zeros(NBYTES, np.uint8)),
    "frombuffer-bytearray": lambda i: pytensor.frombuffer(bytearray(NBYTES), dtype=pytensor.uint8),
    "frombuffer-array": lambda i: pytensor.frombuffer(array.array("B", bytes(NBYTES)), dtype=pytensor.uint8),
    "frombuffer-mmap": lambda i: pytensor.frombuffer(mmap.mmap(-1, NBYTES), dtype=pytensor.uint8),
    "zeros": lambda i: pytensor.zeros(NBYTES, dtype=pytensor.uint8),
}


@pytest.mark.parametrize("name", sorted(CONSTRUCTORS))
def test_constructor_round_trips_leak_nothing(name):
    make = CONSTRUCTORS[name]
    iterations = ITERATIONS // 4 if name in ("tensor-list", "as_tensor-bytearray-copy") else ITERATIONS

    def body(i):
        round_trip(make(i))

    assert_flat(body, iterations)


def test_read_only_sources_leak_nothing():
    src = bytes(NBYTES)

    def body(i):
        t = pytensor.frombuffer(bytes(src), dtype=pytensor.uint8)
        v = t[1:][::2]
        a = v.numpy()
        assert not a.flags.writeable
        n = np.from_dlpack(t)                       # versioned, READ_ONLY set
        back = pytensor.from_dlpack(n)
        assert back.is_readonly()
        with pytest.raises(BufferError):
            t.__dlpack__()                          # a legacy capsule cannot say read-only
        del t, v, a, n, back

    assert_flat(body, ITERATIONS // 2)


@pytest.mark.parametrize("shared", [True, False], ids=["shared", "private"])
def test_from_file_round_trips_leak_nothing(tmp_path, shared):
    path = tmp_path / "data.bin"
    path.write_bytes(bytes(NBYTES))

    def body(i):
        t = pytensor.from_file(str(path), shared=shared, size=NBYTES, dtype=pytensor.uint8)
        round_trip(t)
        del t

    assert_flat(body, ITERATIONS // 2)
    assert path.stat().st_size == NBYTES


def test_failed_constructions_leak_nothing(tmp_path):
    short = tmp_path / "short.bin"
    short.write_bytes(b"123")

    def body(i):
        buf = bytearray(NBYTES)
        for bad in (lambda: pytensor.frombuffer(buf, dtype=pytensor.int64, offset=NBYTES - 1),
                    lambda: pytensor.frombuffer(buf, dtype=pytensor.int32, count=NBYTES),
                    lambda: pytensor.from_file(str(short), shared=False, size=NBYTES),
                    lambda: pytensor.from_file(str(short), dtype=pytensor.int16),
                    lambda: pytensor.zeros(4).as_strided((NBYTES,), (1,)),
                    lambda: pytensor.from_numpy(np.zeros(4, ">f8"))):
            with pytest.raises(Exception):
                bad()
        buf.append(1)                               # no export is left behind on the bytearray

    assert_flat(body, ITERATIONS // 4)


def test_numpy_dlpack_both_ways_leak_nothing():
    def body(i):
        src = np.zeros(NBYTES // 8)
        t = pytensor.from_dlpack(src)               # numpy -> pytensor
        back = np.from_dlpack(t[1:])                # pytensor -> numpy
        back[0] = i
        assert src[1] == i
        del src, t, back

    assert_flat(body)


def test_torch_dlpack_both_ways_leak_nothing():
    torch = require_module("torch")

    def body(i):
        src = torch.zeros(NBYTES // 8, dtype=torch.float64)
        t = pytensor.from_dlpack(src)               # torch -> pytensor
        back = torch.from_dlpack(t[1:])             # pytensor -> torch
        back[0] = i
        assert src[1].item() == i
        mine = pytensor.zeros(NBYTES // 8, dtype=pytensor.float64)
        theirs = torch.from_dlpack(mine)            # a storage we own, held by torch
        again = pytensor.from_dlpack(theirs)        # and imported back: one storage, two layers
        assert again.data_ptr() == mine.data_ptr()
        del src, t, back, mine, theirs, again

    assert_flat(body)


def test_foreign_producer_capsules_are_freed_exactly_once():
    p = Producer()
    count = [0]

    def body(i):
        t = pytensor.from_dlpack(p.capsule((NBYTES // 8,), (1,)))
        v = t[1:].view(-1)
        assert np.from_dlpack(v)[0] == 1.0
        unconsumed = p.capsule((4,), (1,))
        del t, v, unconsumed
        count[0] += 2

    assert_flat(body)
    assert p.calls == count[0]
