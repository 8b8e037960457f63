"""pytensor.multiprocessing: tensors cross Queues, Pools and Process arguments as the same physical pages.

Real processes with every start method (fork, spawn, forkserver), no mocks.
Each blocking call has a timeout, so a regression fails instead of hanging.
The descriptor bound and the SIGKILL cleanup run in a fresh interpreter
(they change its limits, or kill a process it started).
"""
import multiprocessing
import operator
import os
import pickle
import queue
import signal
import subprocess
import sys
import textwrap
from multiprocessing.reduction import ForkingPickler

import pytest

import pytensor
import pytensor.multiprocessing as pmp
from pytensor.multiprocessing.reductions import reduce_tensor

from mp_children import (TIMEOUT_S, child_arg, child_describe, child_echo_counting_descriptors, child_pipe_write,
                         child_views, child_write_and_return)

METHODS = ["fork", "spawn", "forkserver"]


def _start_child(method, target):
    """``target(q_in, q_out)`` in a started child of start method ``method``: ``(q_in, q_out, process)``."""
    ctx = pmp.get_context(method)
    q_in, q_out = ctx.Queue(), ctx.Queue()
    p = ctx.Process(target=target, args=(q_in, q_out))
    p.start()
    return q_in, q_out, p


def _get(q, p):
    """q.get(), failing at once if the child p died instead of waiting out the timeout."""
    for _ in range(TIMEOUT_S * 10):
        try:
            return q.get(timeout=0.1)
        except queue.Empty:
            assert p.is_alive() or not q.empty(), f"the child died (exit code {p.exitcode})"
    raise AssertionError(f"no answer from the child in {TIMEOUT_S} s")


# ---------------------------------------------------------------- the module is a drop-in
def test_reexports_the_standard_module():
    for name in multiprocessing.__all__:
        assert hasattr(pmp, name), name
    assert pmp.get_context("spawn").get_start_method() == "spawn"
    assert set(multiprocessing.__all__) <= set(pmp.__all__)


@pytest.mark.parametrize("method", METHODS)
def test_queue_round_trip_shares_pages(method):
    q_in, q_out, p = _start_child(method, child_write_and_return)
    t = pytensor.arange(4, dtype=pytensor.int32)
    q_in.put(t)
    back, child_ident, child_shared = _get(q_out, p)
    p.join(TIMEOUT_S)
    assert p.exitcode == 0
    assert t.tolist() == [0, 99, 2, 3]  # the child's write, seen here
    assert t.is_shared() and child_shared
    assert child_ident == tuple(t.untyped_storage().identity())  # both processes name the pages alike
    assert back.untyped_storage() is t.untyped_storage()  # home again: the very same storage object


@pytest.mark.parametrize("method", METHODS)
def test_views_of_one_storage_travel_as_one_storage(method):
    q_in, q_out, p = _start_child(method, child_views)
    x = pytensor.arange(6.0).view(2, 3)
    q_in.put([x, x.view(-1)[1:], x.T])
    q_in.put(x[1])
    same_y, same_z, same_w, y_offset, z_stride, w = _get(q_out, p)
    p.join(TIMEOUT_S)
    assert (same_y, same_z, same_w) == (True, True, True)
    assert y_offset == 1 and z_stride == (1, 3) and w == [3.0, 4.0, 5.0]


@pytest.mark.parametrize("method", METHODS)
def test_process_argument_and_pool(method):
    ctx = pmp.get_context(method)
    t = pytensor.zeros(3, dtype=pytensor.int64)
    if method == "fork":
        # fork pickles no argument: the child inherits private memory copy-on-write, as with torch
        done = ctx.Event()
        p = ctx.Process(target=child_arg, args=(t[1:], done))
        p.start()
        assert done.wait(TIMEOUT_S)
        p.join(TIMEOUT_S)
        assert t.tolist() == [0, 0, 0] and not t.is_shared()
        t.share_memory_()  # shared before the fork: the child's pages are the parent's
    done = ctx.Event()
    p = ctx.Process(target=child_arg, args=(t[1:], done))
    p.start()
    assert done.wait(TIMEOUT_S)
    p.join(TIMEOUT_S)
    assert t.tolist() == [0, 5, 5]
    with ctx.Pool(2) as pool:
        parts = [t[i:i + 1] for i in range(3)]
        results = pool.map_async(operator.methodcaller("add_", 10), parts).get(TIMEOUT_S)
    assert t.tolist() == [10, 15, 15]
    assert all(r.untyped_storage() is t.untyped_storage() for r in results)


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_a_worker_sending_tensors_back_keeps_no_descriptor(method):
    # Regression: a worker that sent back a received 2 MiB tensor (a region of its own) kept a
    # duplicate of its descriptor, and so its pages, for as long as it ran: one more per round.
    q_in, q_out, p = _start_child(method, child_echo_counting_descriptors)
    counts = []
    for i in range(6):
        t = pytensor.full((1 << 19,), i)  # 2 MiB: above the arena limit, a region of its own
        q_in.put(t)
        back = _get(q_out, p)  # the parent maps the region already: it asks the worker for nothing
        assert back.untyped_storage() is t.untyped_storage()
        del back, t
        counts.append(_get(q_out, p))
    q_in.put(None)
    p.join(TIMEOUT_S)
    # the last region may still be held until the worker's server sees it received (a second at most)
    assert max(counts[1:]) - min(counts[1:]) <= 1, counts


@pytest.mark.parametrize("method", ["spawn", "forkserver"])
def test_pipe(method):
    ctx = pmp.get_context(method)
    here, there = ctx.Pipe()
    p = ctx.Process(target=child_pipe_write, args=(there,))
    p.start()
    t = pytensor.zeros(4, dtype=pytensor.int16)
    here.send(t[2:])
    assert here.poll(TIMEOUT_S) and here.recv() is True
    p.join(TIMEOUT_S)
    assert t.tolist() == [0, 0, 3, 3]


def test_large_tensor_travels_without_its_bytes():
    t = pytensor.zeros(64 << 20, dtype=pytensor.uint8)  # 64 MiB
    data = ForkingPickler.dumps(t)
    assert len(data) < 1024 and t.is_shared()


def test_file_backed_storages_travel_as_the_file(tmp_path):
    path = str(tmp_path / "f.bin")
    q_in, q_out, p = _start_child("spawn", child_describe)
    t = pytensor.from_file(path, shared=True, size=4, dtype=pytensor.int32)
    q_in.put(t[1:])
    provenance, mapped, readonly, ident, values = _get(q_out, p)
    assert _get(q_out, p) is True
    p.join(TIMEOUT_S)
    assert (provenance, mapped, readonly) == ("file", (path, "shared"), False)
    assert ident == tuple(t.untyped_storage().identity()) and values == [0, 0, 0]
    assert t.tolist() == [0, 77, 0, 0]  # the child wrote through its own mapping of the file
    with open(path, "rb") as f:
        assert int.from_bytes(f.read()[4:8], "little") == 77


def test_safetensors_load_travels_as_a_private_mapping(tmp_path):
    from pytensor.safetensors import load_file, save_file
    path = str(tmp_path / "m.safetensors")
    save_file({"w": pytensor.arange(4.0)}, path)
    w = load_file(path)["w"]
    q_in, q_out, p = _start_child("forkserver", child_describe)
    q_in.put(w)
    provenance, mapped, readonly, ident, values = _get(q_out, p)
    _get(q_out, p)
    p.join(TIMEOUT_S)
    assert provenance == "file" and mapped == (path, "private") and values == [0.0, 1.0, 2.0, 3.0]
    assert ident == tuple(w.untyped_storage().identity())  # the same page-cache pages
    assert w.tolist() == [0.0, 1.0, 2.0, 3.0]  # copy-on-write: the child's write stays the child's


@pytest.mark.parametrize("kind", ["numpy", "bytes", "written private map"])
def test_storages_that_cannot_move_travel_as_a_shared_copy(kind, tmp_path, np):
    if kind == "numpy":
        t = pytensor.from_numpy(np.arange(3, dtype=np.int64))
    elif kind == "bytes":
        t = pytensor.frombuffer(bytes(range(3)) + bytes(21), dtype=pytensor.int64)[:3]
    else:
        path = str(tmp_path / "p.bin")
        with open(path, "wb") as f:
            f.write(bytes(24))
        t = pytensor.from_file(path, shared=False, dtype=pytensor.int64)
        t[1] = 1
    q_in, q_out, p = _start_child("fork", child_describe)
    before = t.tolist()
    q_in.put(t)
    provenance, _, readonly, ident, values = _get(q_out, p)
    _get(q_out, p)
    p.join(TIMEOUT_S)
    assert provenance == "shared" and values == before and ident is not None
    assert readonly == t.untyped_storage().is_readonly()  # read-only bytes arrive read-only
    assert t.tolist() == before and not t.is_shared()  # a copy: the sender's bytes stay where they were


def test_autograd_rules():
    leaf = pytensor.ones(2, requires_grad=True)
    back = pickle.loads(ForkingPickler.dumps(leaf))
    assert back.requires_grad and back.untyped_storage() is leaf.untyped_storage()
    with pytest.raises(RuntimeError, match="non-leaf"):
        reduce_tensor(leaf * 2)


# ---------------------------------------------------------------- in a fresh interpreter
def _run(tmp_path, code, timeout=300):
    script = tmp_path / "main.py"  # a file, not -c: spawn children import __main__'s functions from it
    script.write_text(textwrap.dedent(code))
    return subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=timeout)


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_ten_thousand_small_tensors_under_256_descriptors(method, tmp_path):
    run = _run(tmp_path, f"""
        import os, resource
        resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))
        import pytensor, pytensor.multiprocessing as mp

        def worker(q):
            for i in range(10_000):
                q.put(pytensor.full((4,), i, dtype=pytensor.int32))
            q.put(None)

        if __name__ == "__main__":
            ctx = mp.get_context({method!r})
            q = ctx.Queue()
            p = ctx.Process(target=worker, args=(q,))
            p.start()
            kept = []
            while (t := q.get(timeout=120)) is not None:
                kept.append(t)
            p.join(60)
            assert p.exitcode == 0, p.exitcode
            assert len(kept) == 10_000 and all(t.tolist() == [i] * 4 for i, t in enumerate(kept))
            regions = pytensor._ffi.lib.lt_shm_region_count()
            print("OK", len(os.listdir("/proc/self/fd")), regions)
    """)
    assert run.returncode == 0, run.stderr[-3000:]
    ok, fds, regions = run.stdout.split()
    assert ok == "OK" and int(fds) < 64 and int(regions) <= 2


def test_no_dev_shm_entry_survives_a_sigkilled_child(tmp_path):
    before = set(os.listdir("/dev/shm"))
    run = _run(tmp_path, """
        import os, signal, pytensor, pytensor.multiprocessing as mp

        def worker(q):
            small = pytensor.arange(10).share_memory_()
            large = pytensor.ones(1 << 20)
            q.put((small, large, os.getpid()))
            signal.pause()

        if __name__ == "__main__":
            ctx = mp.get_context("spawn")
            q = ctx.Queue()
            p = ctx.Process(target=worker, args=(q,))
            p.start()
            small, large, pid = q.get(timeout=120)
            with open(f"/proc/{pid}/maps") as f:
                memfds = [ln for ln in f if "memfd:pytensor-shm" in ln]
            os.kill(pid, signal.SIGKILL)
            p.join(60)
            assert p.exitcode == -signal.SIGKILL, p.exitcode
            # the pages outlive the killed sender: this process maps them
            assert small.tolist() == list(range(10)) and large[-1].item() == 1.0
            print("OK", len(memfds))
    """)
    assert run.returncode == 0, run.stderr[-3000:]
    ok, memfds = run.stdout.split()
    assert ok == "OK" and int(memfds) >= 2  # the child's regions were memfds
    leaked = {n for n in set(os.listdir("/dev/shm")) - before if "pytensor" in n or n.startswith("psm_")}
    assert not leaked


def test_a_message_from_a_dead_sender_raises(tmp_path):
    run = _run(tmp_path, """
        import os, signal, pytensor, pytensor.multiprocessing as mp

        def worker(q, ready):
            q.put(pytensor.arange(10))
            q.close()
            q.join_thread()  # the message is in the pipe
            ready.set()
            signal.pause()

        if __name__ == "__main__":
            ctx = mp.get_context("spawn")
            q, ready = ctx.Queue(), ctx.Event()
            p = ctx.Process(target=worker, args=(q, ready))
            p.start()
            assert ready.wait(120)
            os.kill(p.pid, signal.SIGKILL)
            p.join(60)
            try:
                q.get(timeout=60)
            except RuntimeError as e:
                print("RAISED", "sender must stay alive" in str(e))
    """)
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.stdout.split() == ["RAISED", "True"]


def test_plain_pickle_is_left_alone():
    import copyreg
    assert pytensor.Tensor not in copyreg.dispatch_table  # only ForkingPickler knows the reducers
    assert pytensor.UntypedStorage not in copyreg.dispatch_table
    assert ForkingPickler._extra_reducers[pytensor.Tensor] is reduce_tensor


@pytest.mark.parametrize("args, error", [
    ((11, (100,), (1,), 0), pytensor.LayoutError),  # 100 floats over 4
    ((11, (2,), (1,), 3), pytensor.LayoutError),  # runs past the end
    ((11, (2,), (-1,), 1), ValueError),  # negative strides
    ((11, (2,), (1,), -1), ValueError),
    ((11, (2, 2), (1,), 0), ValueError),
    ((99, (2,), (1,), 0), ValueError),  # no such dtype
    ((11, (2,), (2**64,), 0), TypeError),
])
def test_hostile_tensor_messages_raise(args, error):
    from pytensor.multiprocessing.reductions import _rebuild_tensor
    storage = pytensor.zeros(4).untyped_storage()
    with pytest.raises(error):
        _rebuild_tensor(storage, *args, False)
    with pytest.raises(ValueError):
        _rebuild_tensor(b"not a storage", 11, (1,), (1,), 0, False)


def test_hostile_file_and_region_messages_raise(tmp_path):
    from pytensor.multiprocessing.reductions import _rebuild_file, _rebuild_shared
    with pytest.raises(ValueError):
        _rebuild_file(str(tmp_path / "x"), "bogus", 8, (1, 2, 0))
    with pytest.raises(RuntimeError):  # a file that is not the one named
        path = tmp_path / "y"
        path.write_bytes(bytes(8))
        _rebuild_file(str(path), "private", 8, (1, 2, 0))
    with pytest.raises(RuntimeError, match="could not fetch"):  # nobody serves at that address
        _rebuild_shared("\0pytensor-no-such-server", 1, 2, 0, 8, False)
