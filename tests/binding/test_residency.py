"""Files as memory: which pages of a from_file buffer are in RAM and which a
private map has copied on write, through the binding (UntypedStorage.
resident_pages / copied_pages) and the inspector's model (widgets._files).

How it is observed without fooling ourselves: the page cache is shared with
every process, so "not resident" is only asserted for a fresh sparse file,
whose holes no one has read; "copied" is checked against the file's bytes,
read back with read(); the read-around the kernel adds to a page fault is
switched off with madvise(MADV_RANDOM) where a test asserts exact pages.
"""
import ctypes
import doctest
import gc
import json
import mmap
import os
import sys
import tempfile
import time

import pytest

import pytensor
from pytensor.widgets import _files as F
from support import require_module, run_unprivileged

P = pytensor.UntypedStorage.page_nbytes
MiB = 1 << 20


# ---------------------------------------------------------------- helpers
def _sparse(path, nbytes):
    with open(path, "wb") as f:
        f.truncate(nbytes)
    return str(path)


def _pages_file(path, npages):
    """A file whose page i is filled with the byte i + 1."""
    with open(path, "wb") as f:
        for i in range(npages):
            f.write(bytes([i + 1]) * P)
    return str(path)


def _info(t, lo=0, hi=None):
    """file_info over the storage's bytes [lo, hi) (relative offsets)."""
    st = t.untyped_storage()
    base = st.data_ptr()
    return F.file_info(st, base + lo, base + (st.nbytes() if hi is None else hi))


def _madvise_random(t):
    """Turns the kernel's read-around off for t's mapping, so a touch brings in one page only."""
    st = t.untyped_storage()
    libc = ctypes.CDLL(None, use_errno=True)
    libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    assert libc.madvise(st.data_ptr(), st.nbytes(), mmap.MADV_RANDOM) == 0, os.strerror(ctypes.get_errno())


def _pagemap_readable():
    """Whether this process may read its own pagemap, asked without pytensor."""
    try:
        with open("/proc/self/pagemap", "rb") as f:
            return len(f.read(8)) == 8
    except OSError:
        return False


def _ones(bits):
    return [i for i, b in enumerate(bits) if b]


# ---------------------------------------------------------------- residency (mincore)
@pytest.mark.parametrize("exact", [True, False], ids=["madv-random", "read-around"])
def test_touching_a_view_pulls_its_page_into_a_fresh_sparse_file(tmp_path, exact):
    t = pytensor.from_file(_sparse(tmp_path / "sparse.bin", 64 * MiB), shared=False, dtype=pytensor.uint8)
    st = t.untyped_storage()
    npages = 64 * MiB // P
    if exact:
        _madvise_random(t)
    before = st.resident_pages()
    assert len(before) == npages
    assert _ones(before) == []                      # a hole no one has read is in no cache
    assert _info(t)["resident"] == []
    k = npages // 2
    view = t[k * P + 100: k * P + 164]
    assert view.tolist() == [0] * 64                 # reading the view is the touch
    after = st.resident_pages()
    assert after[k] == 1
    resident = _info(t)["resident"]
    assert any(lo <= k * P + 100 and k * P + 164 <= hi for lo, hi in resident)
    if exact:
        # one page here; a file system that caches in large folios (tmpfs with huge pages) may bring
        # in the 2 MiB-aligned block around it, never more
        block = 2 * MiB // P
        assert set(_ones(after)) <= set(range(k - k % block, k - k % block + block))
        assert len(resident) == 1
    else:
        # the kernel reads around a fault (8 MiB on ext4 here); nothing far away comes in
        window = 16 * MiB // P
        assert len(_ones(after)) <= window
        assert all(abs(i - k) < window for i in _ones(after))


def test_resident_ranges_are_clipped_to_the_region(tmp_path):
    t = pytensor.from_file(_pages_file(tmp_path / "f.bin", 4), shared=False, dtype=pytensor.uint8)
    assert t.sum().item() == sum((i + 1) * P for i in range(4))     # every page read
    info = _info(t, P + 10, 3 * P)
    assert info["file_offset"] == P + 10 and info["nbytes"] == 2 * P - 10
    assert info["resident"] == [[0, 2 * P - 10]]                     # relative to the region's start
    # a region wider than the mapping: ranges stay on the mapped bytes, in region coordinates
    st = t.untyped_storage()
    wide = F.file_info(st, st.data_ptr() - 64, st.data_ptr() + st.nbytes() + 64)
    assert wide["file_offset"] == 0 and wide["nbytes"] == 4 * P
    assert wide["resident"] == [[64, 64 + 4 * P]]


def test_a_storage_that_is_not_a_file_has_no_file_info(tmp_path, np):
    heap = pytensor.zeros(3 * P, dtype=pytensor.uint8)
    borrowed = pytensor.frombuffer(bytearray(3 * P), dtype=pytensor.uint8)
    for t in (heap, borrowed):
        st = t.untyped_storage()
        assert F.file_info(st, st.data_ptr(), st.data_ptr() + st.nbytes()) is None
        with pytest.raises(pytensor.PytensorError, match="no file mapping made by lt_storage_map_file"):
            st.resident_pages()
        with pytest.raises(pytensor.PytensorError, match="no file mapping"):
            st.copied_pages()
    mm = np.memmap(_pages_file(tmp_path / "m.bin", 1), dtype=np.uint8, mode="r")
    assert F.file_info(mm, 0, 1) is None                   # not a pytensor storage
    assert F.file_info(None, 0, 1) is None


def test_an_empty_file_mapping_has_no_pages(tmp_path):
    path = _sparse(tmp_path / "empty.bin", 0)
    for t in (pytensor.from_file(path, shared=False, dtype=pytensor.uint8),
              pytensor.from_file(path, shared=True, size=0, dtype=pytensor.uint8)):
        st = t.untyped_storage()
        assert st.resident_pages() == b"" and st.copied_pages() == b""
        info = _info(t)
        assert info["nbytes"] == 0 and info["resident"] == [] and info["path"] == path


def _info_of_foreign_file(path):
    t = pytensor.from_file(path, shared=False, dtype=pytensor.uint8)
    info = _info(t)
    return {k: info[k] for k in ("mapping", "resident", "resident_note")}


def test_residency_of_a_file_we_neither_own_nor_may_write_is_not_available(tmp_path):
    # Linux reports every page of such a file resident; the model must say "not available", not "all in RAM".
    if os.geteuid() == 0:
        # root may write anything, so the case runs in a child that dropped to nobody,
        # over a root-owned 0644 file in a directory nobody may enter (tmp_path's parents are 0700)
        d = tempfile.mkdtemp(prefix="pytensor_res_", dir="/tmp" if os.path.isdir("/tmp") else None)
        try:
            os.chmod(d, 0o755)
            path = _pages_file(os.path.join(d, "root.bin"), 2)
            os.chmod(path, 0o644)
            got = run_unprivileged(_info_of_foreign_file, path)
        finally:
            for name in os.listdir(d):
                os.unlink(os.path.join(d, name))
            os.rmdir(d)
    else:
        path = "/etc/passwd"
        st = os.stat(path)
        assert st.st_uid != os.geteuid() and not os.access(path, os.W_OK, effective_ids=True), \
            f"{path} is ours or writable here; this test needs a file the process neither owns nor may write"
        got = _info_of_foreign_file(path)
    assert got["mapping"] == "private"
    assert got["resident"] is None
    assert "mincore cannot see this file's pages" in got["resident_note"]


# ---------------------------------------------------------------- copy on write (pagemap)
def test_a_private_write_copies_its_page_and_leaves_the_file(tmp_path):
    path = _pages_file(tmp_path / "cow.bin", 8)
    original = open(path, "rb").read()
    t = pytensor.from_file(path, shared=False, dtype=pytensor.uint8)
    st = t.untyped_storage()
    assert t.sum().item() == sum((i + 1) * P for i in range(8))   # all read: the file's pages, mapped
    if not _pagemap_readable():
        info = _info(t)
        assert info["cow"] is None and info["cow_note"].startswith("pagemap not readable: ")
        with pytest.raises(pytensor.PytensorError, match="pagemap not readable"):
            st.copied_pages()
        return
    assert _ones(st.copied_pages()) == []
    assert _info(t)["cow"] == [] and _info(t)["cow_note"] is None
    t[3 * P + 1] = 0xEE                      # page 3: read, then written
    t[6 * P: 6 * P + 2] = 0xDD               # page 6 too; the write fills two bytes
    assert _ones(st.copied_pages()) == [3, 6]
    info = _info(t)
    assert info["cow"] == [[3 * P, 4 * P], [6 * P, 7 * P]]
    assert info["mapping"] == "private" and info["path"] == path
    assert [3 * P, 4 * P] in info["resident"] or any(lo <= 3 * P and 4 * P <= hi for lo, hi in info["resident"])
    assert open(path, "rb").read() == original                     # the file kept every byte
    assert t[3 * P + 1].item() == 0xEE                              # the process sees its copy
    # a second private map of the same file copied nothing
    other = pytensor.from_file(path, shared=False, dtype=pytensor.uint8)
    assert other[3 * P + 1].item() == 4 and _info(other)["cow"] == []


def test_a_shared_map_copies_nothing_and_says_why(tmp_path):
    path = _pages_file(tmp_path / "shared.bin", 2)
    t = pytensor.from_file(path, shared=True, dtype=pytensor.uint8)
    t[P] = 9
    info = _info(t)
    assert info["mapping"] == "shared"
    assert info["cow"] is None and info["cow_note"] == "shared mapping: writes go to the file"
    assert any(lo <= P < hi for lo, hi in info["resident"])
    assert open(path, "rb").read()[P] == 9
    with pytest.raises(pytensor.PytensorError, match="shared mapping copies no pages"):
        t.untyped_storage().copied_pages()


# ---------------------------------------------------------------- the model's shape and manners
def test_file_info_keeps_no_reference_and_returns_plain_values(tmp_path):
    t = pytensor.from_file(_pages_file(tmp_path / "f.bin", 2), shared=False, dtype=pytensor.uint8)
    st = t.untyped_storage()
    before = (sys.getrefcount(st), st.refcount)
    info = _info(t)
    gc.collect()
    assert (sys.getrefcount(st), st.refcount) == before
    assert set(info) == {"path", "mapping", "file_offset", "nbytes", "page_size", "resident", "resident_note", "asked",
                         "cow", "cow_note"}
    assert info["page_size"] == P == mmap.PAGESIZE
    json.dumps(info)                                        # plain data, ready for the front end


def test_page_runs_and_merging():
    assert list(F.page_runs(b"")) == []
    assert list(F.page_runs(bytes([1, 1, 1]))) == [(0, 3)]
    assert list(F.page_runs(bytes([0, 1, 0, 0, 1, 1]))) == [(1, 2), (4, 6)]
    runs = [[10 * i, 10 * i + 5 + (i % 3)] for i in range(3000)]   # gaps of 5, 4 and 3 bytes: the 3s and most 4s fill
    merged, note = F._merged(runs)
    assert len(merged) == F.MAX_RUNS
    total = sum(b - a for a, b in runs)
    assert note == f"3000 runs ({total} bytes) drawn as {F.MAX_RUNS}: gaps of up to 4 bytes between them are drawn filled"
    assert all(any(lo <= a and b <= hi for lo, hi in merged) for a, b in runs)   # every run still drawn
    assert merged[0][0] == 0 and merged[-1][1] == runs[-1][1]
    # only gaps were filled: every merged run starts and ends where some run does
    starts, ends = {a for a, _ in runs}, {b for _, b in runs}
    assert all(lo in starts and hi in ends for lo, hi in merged)
    # equal gaps: the first ones are filled, the rest stay exact
    even = [[8 * i, 8 * i + 4] for i in range(F.MAX_RUNS + 10)]
    merged, _ = F._merged(even)
    assert len(merged) == F.MAX_RUNS and merged[0] == [0, 8 * 10 + 4] and merged[1:] == even[11:]
    assert F._merged(runs[:5]) == (runs[:5], None)


def test_files_module_doctests():
    result = doctest.testmod(F, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0 and result.attempted >= 3


def test_asking_is_cheap_for_a_large_mapping(tmp_path):
    # The inspector polls; asking about 1 GiB of file (262144 pages of 4 KiB) must stay well under a poll (28 ms on the 2-core dev box).
    t = pytensor.from_file(_sparse(tmp_path / "big.bin", 1 << 30), shared=False, dtype=pytensor.uint8)
    t[::(1 << 20)] = 1                                  # 1024 copied pages, 1024 resident runs or more
    _info(t)
    start = time.perf_counter()
    info = _info(t)
    took = time.perf_counter() - start
    assert took < 0.5, f"file_info over 1 GiB took {took:.3f} s"
    assert len(info["resident"]) <= F.MAX_RUNS


# ---------------------------------------------------------------- the inspector's pictures
def test_the_snapshot_and_the_live_widget_show_pages_coming_in_and_copied(tmp_path):
    """End to end: the region of a from_file buffer carries "file"; the widget redraws when a read
    pulls a page in and when a private write copies one, and looking never pulls a page in itself."""
    require_module("anywidget")
    from pytensor.widgets import snapshot
    from pytensor.widgets.inspector import Inspector
    t = pytensor.from_file(_sparse(tmp_path / "s.bin", 4 * MiB), shared=False, dtype=pytensor.uint8)
    _madvise_random(t)
    k = 5
    view = t[k * P: k * P + 8]
    snap, _ = snapshot(t, view, names=["t", "view"])
    region = snap["regions"][0]
    assert region["file"]["path"] == str(tmp_path / "s.bin") and region["file"]["mapping"] == "private"
    assert region["file"]["resident"] == []                        # the snapshot read nothing either
    w = Inspector(t, view, names=["t", "view"])
    assert w.snapshot["regions"][0]["file"]["resident"] == []
    assert _ones(t.untyped_storage().resident_pages()) == []     # drawing did not touch the file
    assert view.tolist() == [0] * 8                                # the program reads: page k comes in
    assert w.check() is True
    resident = w.snapshot["regions"][0]["file"]["resident"]
    assert any(lo <= k * P and k * P + 8 <= hi for lo, hi in resident)
    if _pagemap_readable():
        view[0] = 1                                                # a private write copies page k
        assert w.check() is True
        assert any(lo <= k * P < hi for lo, hi in w.snapshot["regions"][0]["file"]["cow"])
    w.close()
