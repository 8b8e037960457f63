"""share_memory_(), is_shared() and identity(): moving a storage into anonymous shared memory.

The move keeps the storage object, so every view follows it; what cannot
follow (a NumPy array, a DLPack export, a borrowed buffer) makes the move
refuse. identity() names bytes the same way in every process that maps
them, checked here across real processes (fork, and a separate interpreter
for file mappings).
"""
import ctypes
import gc
import os
import subprocess
import sys
import tempfile
import textwrap

import pytest

import pytensor
from pytensor._ffi import lib


def test_share_memory_moves_the_bytes_and_every_view_follows():
    t = pytensor.arange(12, dtype=pytensor.int32).view(3, 4)
    row, col = t[1], t[:, 2]
    storage, before = t.untyped_storage(), t.data_ptr()
    assert not t.is_shared() and storage.identity() is None
    assert t.share_memory_() is t
    assert t.is_shared() and row.is_shared() and col.is_shared()
    assert row.untyped_storage() is storage and storage.provenance == "shared"
    assert t.data_ptr() != before  # the bytes moved (as torch's share_memory_)
    assert row.data_ptr() == t.data_ptr() + 16 and col.data_ptr() == t.data_ptr() + 8
    assert t.tolist() == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]
    row[0] = 40  # a write through a view reaches the one storage
    assert t[1, 0].item() == 40 and col[1].item() == 6


def test_the_old_bytes_live_as_long_as_the_storage(live_baseline):
    # A kernel in another thread may have read the old address just before the move (kernels run
    # without the GIL): the moved storage keeps the old block until it dies, so that read stays valid.
    t = pytensor.arange(8)
    t.share_memory_()
    assert pytensor.live_storages() - live_baseline == 3  # the shared storage, its arena span, the old block
    del t


def test_share_memory_twice_is_a_no_op_and_storages_share_too():
    t = pytensor.ones(5)
    t.share_memory_()
    ptr = t.data_ptr()
    assert t.share_memory_().data_ptr() == ptr
    s = pytensor.UntypedStorage(10)
    ctypes.memset(s.data_ptr(), 7, 10)
    assert s.share_memory_() is s and s.is_shared() and s.nbytes() == 10
    assert ctypes.string_at(s.data_ptr(), 10) == b"\7" * 10  # the bytes came along


def test_shared_storage_cannot_grow():
    t = pytensor.zeros(4).share_memory_()
    assert not t.untyped_storage().resizable()
    with pytest.raises(RuntimeError, match="not resizable"):
        t.resize_(100)


def test_refusals_leave_the_tensor_untouched(np):
    a = np.arange(4, dtype=np.float32)
    from_numpy = pytensor.from_numpy(a)
    with pytest.raises(RuntimeError, match="belong to the numpy"):
        from_numpy.share_memory_()
    pinned = pytensor.arange(4.0)
    view = pinned.numpy()  # NumPy now holds the address
    with pytest.raises(RuntimeError, match="a NumPy array uses their address"):
        pinned.share_memory_()
    exported = pytensor.arange(3.0)
    capsule = exported.__dlpack__()
    with pytest.raises(RuntimeError, match="1 other holders"):
        exported.share_memory_()
    del capsule
    gc.collect()
    assert exported.share_memory_().is_shared()  # the export is gone: the move is allowed again
    with pytest.raises(RuntimeError, match="belong to the buffer"):
        pytensor.frombuffer(bytearray(8), dtype=pytensor.uint8).share_memory_()
    for t in (from_numpy, pinned):
        assert not t.is_shared() and t.tolist() == [0.0, 1.0, 2.0, 3.0]
    view[0] = 9.0
    assert pinned[0].item() == 9.0  # still the same bytes as the NumPy array


def test_torch_moves_numpy_bytes_away_where_pytensor_refuses(np, torch):
    # the README's comparison: torch's share_memory_ swaps the bytes and the NumPy array loses the tensor
    a = np.zeros(3, dtype=np.float32)
    t = torch.from_numpy(a)
    t.share_memory_()
    t[0] = 5
    assert a[0] == 0.0
    with pytest.raises(RuntimeError):
        pytensor.from_numpy(a).share_memory_()


def test_file_mappings(tmp_path):
    path = str(tmp_path / "f.bin")
    shared = pytensor.from_file(path, shared=True, size=16, dtype=pytensor.uint8)
    ptr = shared.data_ptr()
    assert shared.is_shared() and shared.share_memory_().data_ptr() == ptr  # shared already
    private = pytensor.from_file(path, shared=False, size=16, dtype=pytensor.uint8)
    assert not private.is_shared()
    with pytest.raises(RuntimeError, match="belong to the file"):
        private.share_memory_()
    st = os.stat(path)
    ident = shared.untyped_storage().identity()
    assert (ident.inode, ident.byte_offset) == (st.st_ino, 0)
    assert private.untyped_storage().identity() == ident  # the same file's bytes, until written


def test_identity_names_arena_spans():
    a, b = pytensor.zeros(3).share_memory_(), pytensor.zeros(3).share_memory_()
    ia, ib = a.untyped_storage().identity(), b.untyped_storage().identity()
    # small storages are spans of one arena file: one inode, different offsets
    assert (ia.device, ia.inode) == (ib.device, ib.inode) and ia.byte_offset != ib.byte_offset
    assert ia.byte_offset % 64 == 0 and ib.byte_offset % 64 == 0
    assert a[1:].untyped_storage().identity() == ia  # a view names its storage's first byte


def test_many_small_shared_storages_use_few_descriptors():
    before_regions, before_fds = lib.lt_shm_region_count(), len(os.listdir("/proc/self/fd"))
    kept = [pytensor.full((4,), i).share_memory_() for i in range(10_000)]
    assert lib.lt_shm_region_count() - before_regions <= 2
    assert len(os.listdir("/proc/self/fd")) - before_fds <= 2
    assert kept[9_999].tolist() == [9_999] * 4 and kept[0].tolist() == [0] * 4


def test_large_storage_gets_its_own_region_which_goes_with_it():
    gc.collect()
    regions = lib.lt_shm_region_count()
    big = pytensor.zeros(1 << 20).share_memory_()  # 4 MiB: above the 1 MiB arena limit
    assert lib.lt_shm_region_count() == regions + 1 and big.untyped_storage().identity().byte_offset == 0
    del big
    gc.collect()
    assert lib.lt_shm_region_count() == regions


def test_shared_memory_has_no_name_in_dev_shm():
    t = pytensor.zeros(8).share_memory_()
    with open("/proc/self/maps") as f:
        maps = f.read()
    line = next(ln for ln in maps.splitlines() if ln.startswith(f"{t.data_ptr() - t.untyped_storage().identity().byte_offset:x}-"))
    assert "/memfd:pytensor-shm (deleted)" in line, line


def test_forked_child_writes_are_seen_by_the_parent():
    t = pytensor.zeros(4, dtype=pytensor.int64).share_memory_()
    ident = t.untyped_storage().identity()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: write, and report the identity it sees
        try:
            t[2] = 1234
            os.write(w, repr(tuple(t.untyped_storage().identity())).encode())
        finally:
            os._exit(0)
    os.close(w)
    with os.fdopen(r) as f:
        child_ident = f.read()
    os.waitpid(pid, 0)
    assert t.tolist() == [0, 0, 1234, 0]
    assert child_ident == repr(tuple(ident))


def test_identity_of_a_file_agrees_across_processes(tmp_path):
    path = str(tmp_path / "g.bin")
    with open(path, "wb") as f:
        f.write(bytes(3 * 4096))
    mine = pytensor.from_file(path, shared=True, dtype=pytensor.uint8)[4096 + 8:]
    code = textwrap.dedent(f"""
        import pytensor
        t = pytensor.from_file({path!r}, shared=False, dtype=pytensor.uint8)
        print(tuple(t.untyped_storage().identity()), t.data_ptr())
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True, cwd=tempfile.gettempdir())
    theirs, _ = out.stdout.rsplit(" ", 1)
    ident = mine.untyped_storage().identity()
    assert theirs == repr(tuple(ident))
    assert ident.byte_offset == 0 and mine.storage_offset() == 4096 + 8


def test_zero_byte_storages_share():
    t = pytensor.zeros(0).share_memory_()
    assert t.is_shared() and t.tolist() == [] and t.untyped_storage().nbytes() == 0


def test_the_shim_refuses_bad_spans_and_arguments():
    from pytensor._ffi import shim
    s = pytensor.zeros(4).share_memory_().untyped_storage()
    ident = s.identity()
    for offset, nbytes in ((-8, 8), (ident.byte_offset, 1 << 40), ((1 << 62), 8)):
        with pytest.raises(pytensor.LayoutError, match="run past the region"):
            shim.shm_receive(-1, ident.device, ident.inode, offset, nbytes, False)
    with pytest.raises(ValueError):
        shim.shm_receive(-1, ident.device, ident.inode, 0, -1, False)
    assert shim.shm_receive(-1, ident.device, ident.inode + 1_000_003, 0, 8, False) is None  # not mapped here
    with open(__file__, "rb") as f:  # a descriptor of a regular file maps as that file; past its end is refused
        with pytest.raises(pytensor.LayoutError):
            shim.shm_receive(f.fileno(), 1, 1, 0, 1 << 40, True)
    with pytest.raises(TypeError):
        shim.move_to_shared(pytensor.zeros(2))  # a tensor, not a storage


def _rss_anon_kib():
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("RssAnon:"))


def test_a_large_moved_block_gives_its_pages_back():
    t = pytensor.ones(16 << 20)  # 64 MiB, every page touched
    before = _rss_anon_kib()
    t.share_memory_()
    # the old block stays mapped (for readers in other threads) but its 64 MiB of pages are returned
    assert before - _rss_anon_kib() > 48 << 10
    assert t[-1].item() == 1.0
