"""Threads: many Python threads retain and release (views, deletes), export and
import (numpy, DLPack both ways) the same storages at once; DLPack deleters run
on foreign threads; every deleter runs exactly once and the live-storage count
returns to its baseline.

cffi drops the GIL around every libtensor call, so retains and releases from
different threads do race in C; the GIL only orders the Python parts.
"""
import gc
import queue
import sys
import threading

import numpy as np
import pytest

import pytensor
from dlpack_producer import Producer
from support import require_module

THREADS = 8
ROUNDS = 300


@pytest.fixture(autouse=True)
def fast_switching():
    """Switch threads every 10 us instead of every 5 ms, so the Python parts interleave too."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    yield
    sys.setswitchinterval(old)


def run_threads(target, n=THREADS):
    """Runs target(k) on n threads started together; re-raises the first failure."""
    barrier = threading.Barrier(n)
    errors = []

    def wrapped(k):
        try:
            barrier.wait()
            target(k)
        except BaseException as e:  # noqa: BLE001  (reported below, on the main thread)
            errors.append(e)

    threads = [threading.Thread(target=wrapped, args=(k,)) for k in range(n)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    if errors:
        raise errors[0]


def shared_sources(tmp_path, producer):
    """One tensor per kind of storage, each 8 * 64 float64 elements."""
    n = THREADS * 64
    path = tmp_path / "shared.bin"
    path.write_bytes(bytes(n * 8))
    return {
        "owned": pytensor.zeros(n, dtype=pytensor.float64),
        "numpy": pytensor.from_numpy(np.zeros(n)),
        "buffer": pytensor.frombuffer(bytearray(n * 8), dtype=pytensor.float64),
        "file": pytensor.from_file(str(path), shared=True, size=n, dtype=pytensor.float64),
        "dlpack": pytensor.from_dlpack(producer.capsule((n,), (1,))),
    }


def test_threads_share_views_and_exports_of_the_same_storages(tmp_path):
    gc.collect()
    live0 = pytensor.live_storages()
    p = Producer()
    sources = shared_sources(tmp_path, p)
    refcounts = {k: t.untyped_storage().refcount for k, t in sources.items()}

    def work(k):
        for r in range(ROUNDS):
            for t in sources.values():
                mine = t[k * 64:(k + 1) * 64]                 # each thread owns 64 elements
                row = mine.view(8, 8)[r % 8]
                row.fill_(k * 1000 + r)
                a = np.from_dlpack(mine)                    # export to numpy
                u = pytensor.from_dlpack(a)                 # and import it back
                c = pytensor.from_dlpack(t.__dlpack__(max_version=(1, 0)))  # our own capsule
                spare = t.__dlpack__()                      # a capsule nobody consumes
                v = u.view(8, 8)[r % 8].numpy()
                assert (v == k * 1000 + r).all(), (k, r, v)  # no other thread wrote here
                assert c.data_ptr() == t.data_ptr()
                del mine, row, a, u, c, spare, v

    run_threads(work)
    gc.collect()
    for k, t in sources.items():
        assert t.untyped_storage().refcount == refcounts[k], k
        last = t.view(THREADS, 8, 8).numpy()[:, (ROUNDS - 1) % 8, :]
        assert (last == (np.arange(THREADS) * 1000 + ROUNDS - 1)[:, None]).all(), k
    assert p.calls == 0
    del sources, t, last
    gc.collect()
    assert p.calls == 1
    assert pytensor.live_storages() == live0


def test_threads_race_to_drop_the_last_reference():
    """Many wrappers of one storage, each dropped by a different thread at once;
    repeated so that every thread gets to be the last one some of the time."""
    gc.collect()
    live0 = pytensor.live_storages()
    p = Producer()
    for _ in range(100):
        t = pytensor.from_dlpack(p.capsule((16,), (1,)))
        boxes = [[t[k:], np.from_dlpack(t), t.view(4, 4)] for k in range(THREADS)]
        del t
        run_threads(lambda k: boxes[k].clear())
    gc.collect()
    assert p.calls == 100
    assert pytensor.live_storages() == live0


def test_deleters_run_on_the_thread_that_drops_the_last_reference():
    """Imports made on the main thread are dropped on worker threads: each
    producer deleter runs once, on a worker, and borrowed Python buffers are
    released there too (taking the GIL from that thread)."""
    gc.collect()
    live0 = pytensor.live_storages()
    p = Producer()
    work, done = queue.Queue(), queue.Queue()

    def worker():
        while (item := work.get()) is not None:
            item.clear()                                     # the last reference dies here
            done.put(threading.get_ident())

    threads = [threading.Thread(target=worker) for _ in range(THREADS)]
    for th in threads:
        th.start()
    total, main, workers_seen = 400, threading.get_ident(), set()
    for i in range(total):
        t = pytensor.from_dlpack(p.capsule((32,), (1,)))
        buf = pytensor.frombuffer(bytearray(64), dtype=pytensor.uint8)
        work.put([t[i % 32:], np.from_dlpack(t), buf.view(8, 8)])
        del t, buf
        ident = done.get(timeout=60)
        assert ident != main
        workers_seen.add(ident)
        assert p.calls == i + 1                              # it ran during that worker's clear()
    for _ in threads:
        work.put(None)
    for th in threads:
        th.join()
    gc.collect()
    assert p.calls == total
    assert len(workers_seen) > 1
    assert pytensor.live_storages() == live0


def test_numpy_and_torch_views_dropped_on_other_threads(tmp_path):
    torch = require_module("torch")
    gc.collect()
    live0 = pytensor.live_storages()
    src = pytensor.arange(THREADS * 64, dtype=pytensor.float32)
    refcount0 = src.untyped_storage().refcount
    held = queue.Queue()

    def export(k):
        for r in range(ROUNDS // 3):
            part = src[k * 64:(k + 1) * 64]
            held.put(torch.from_dlpack(part))                # pytensor -> torch
            held.put(np.from_dlpack(part))                   # pytensor -> numpy
            back = pytensor.from_dlpack(torch.from_dlpack(part))  # pytensor -> torch -> pytensor
            assert back.data_ptr() == part.data_ptr()
            theirs = torch.full((8,), float(k))
            mine = pytensor.from_dlpack(theirs)              # torch -> pytensor
            held.put(mine)
            del part, back, theirs, mine

    def drop(k):
        for _ in range(ROUNDS // 3 * 3):
            held.get(timeout=60)                             # this thread drops what another made

    run_threads(lambda k: export(k) if k % 2 == 0 else drop(k - 1), n=2)
    run_threads(lambda k: export(k) if k < THREADS // 2 else drop(k), n=THREADS)
    while not held.empty():
        held.get()
    gc.collect()
    assert src.untyped_storage().refcount == refcount0
    del src
    gc.collect()
    assert pytensor.live_storages() == live0


def test_raw_retain_release_without_the_gil():
    """libtensor's atomic refcount under true parallelism: cffi releases the GIL
    around lt_storage_retain/release, so 8 threads hammer the same count."""
    from pytensor._ffi import lib
    p = Producer()
    t = pytensor.from_dlpack(p.capsule((8,), (1,)))
    raw = t.untyped_storage()._ptr
    count0 = lib.lt_storage_refcount(raw)

    def hammer(k):
        for _ in range(20000):
            lib.lt_storage_retain(raw)
            lib.lt_storage_release(raw)

    run_threads(hammer)
    assert lib.lt_storage_refcount(raw) == count0
    del t, raw
    gc.collect()
    assert p.calls == 1
