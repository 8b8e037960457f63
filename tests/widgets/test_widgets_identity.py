"""One file, one identity: the inspector names bytes a file or shared memory holds by
(device, inode, byte offset in the file), as ``UntypedStorage.identity()`` does, not by address.

Two mappings of one file range are one region of that file with a lane each, placed at its file
byte offset; a write through one is seen in the other (changed ranges, the views that read
them, the writer, the write counter); the page-residency strip is the file's. Real files, real
mappings (pytensor, NumPy, torch), real shared memory and a real second process.
"""
import mmap
import os
import queue

import numpy as np
import pytest

import pytensor
import pytensor.multiprocessing as pmp
from pytensor import safetensors
from pytensor.widgets import _sync as Y
from pytensor.widgets import snapshot
from pytensor.widgets._pairs import Work

from identity_children import child_region_identity
from support import require_module

P = pytensor.UntypedStorage.page_nbytes


def _file(tmp_path, nbytes, name="data.bin"):
    path = str(tmp_path / name)
    with open(path, "wb") as f:
        f.write(bytes(range(256)) * (nbytes // 256))
    return path


def _views(snap):
    return {v["name"]: v for v in snap["views"]}


def _one_region(snap):
    assert len(snap["regions"]) == 1, [(r["id"], r["nbytes"]) for r in snap["regions"]]
    return snap["regions"][0]


def _file_id(path):
    st = os.stat(path)
    return st.st_dev, st.st_ino


# ---------------------------------------------------------------- one region, both lanes
def test_two_shared_mappings_of_one_file_are_one_region_with_both_lanes(tmp_path):
    path = _file(tmp_path, 4 * P)
    a = pytensor.from_file(path, shared=True, dtype=pytensor.uint8)
    b = pytensor.from_file(path, shared=True, dtype=pytensor.uint8)
    assert a.data_ptr() != b.data_ptr()                 # two mappings, two addresses
    snap, blob = snapshot(a, b[P:2 * P], names=["a", "b_page1"])
    r = _one_region(snap)
    dev, ino = _file_id(path)
    assert r["identity"] == {"device": dev, "inode": ino, "byte_offset": 0}
    assert r["id"] == f"f{dev:x}-{ino:x}-0"
    assert r["nbytes"] == 4 * P and r["views"] == ["v0", "v1"]
    v = _views(snap)
    assert v["a"]["footprint"] == [0, 4 * P]
    assert v["b_page1"]["byte_offset"] == P and v["b_page1"]["footprint"] == [P, 2 * P]   # its file byte offset
    assert [s["identity"] for s in r["sources"]] == [[dev, ino, 0], [dev, ino, 0]]
    # the bytes are the file's, read through one of the mappings
    p = r["preview"]
    assert blob[p["pos"]:p["pos"] + 256] == bytes(range(256))
    # both lanes read the same bytes: nothing is "read by one view" where they overlap
    assert v["b_page1"]["exclusive_bytes"] == 0 and v["b_page1"]["shared_bytes"] == P
    assert r["union_bytes"] == 4 * P


def test_partial_overlaps_of_two_ranges_of_one_file_share_one_file_axis(tmp_path):
    path = _file(tmp_path, 8 * P)
    head = np.memmap(path, dtype=np.uint8, mode="r+", shape=(3 * P,))                 # file bytes [0, 3P)
    tail = np.memmap(path, dtype=np.uint8, mode="r+", offset=2 * P, shape=(4 * P,))   # file bytes [2P, 6P)
    far = np.memmap(path, dtype=np.uint8, mode="r", offset=7 * P, shape=(P,))         # [7P, 8P): meets neither
    snap, blob = snapshot(head, tail, far, names=["head", "tail", "far"])
    dev, ino = _file_id(path)
    assert len(snap["regions"]) == 2
    joined, alone = snap["regions"]
    assert joined["identity"] == {"device": dev, "inode": ino, "byte_offset": 0} and joined["nbytes"] == 6 * P
    assert alone["identity"] == {"device": dev, "inode": ino, "byte_offset": 7 * P}
    v = _views(snap)
    assert v["head"]["footprint"] == [0, 3 * P] and v["tail"]["footprint"] == [2 * P, 6 * P]
    assert v["head"]["shared_bytes"] == P and v["tail"]["shared_bytes"] == P
    assert snap["overlaps"] and snap["overlaps"][0]["shared_bytes"] == P
    # bytes past the first mapping are read through the second
    assert [m[:2] for m in joined["mappings"]] == [[0, 3 * P], [3 * P, 6 * P]]


def test_npy_memmap_and_a_pytensor_mapping_of_the_same_npy_file(tmp_path):
    path = str(tmp_path / "x.npy")
    np.save(path, np.arange(1024, dtype=np.int32))
    arr = np.load(path, mmap_mode="r")
    whole = pytensor.from_file(path, shared=True, dtype=pytensor.uint8)     # header and data
    snap, _ = snapshot(whole, arr, names=["whole", "arr"])
    r = _one_region(snap)
    header = os.path.getsize(path) - 4096
    assert _views(snap)["arr"]["byte_offset"] == header              # the array's lane starts after the header
    assert r["file"]["path"] == path and r["file"]["file_offset"] == 0


def test_safetensors_loaded_twice_is_one_region_until_a_private_page_is_copied(tmp_path):
    path = str(tmp_path / "w.safetensors")
    safetensors.save_file({"w": pytensor.arange(2048, dtype=pytensor.float32), "b": pytensor.ones(8)}, path)
    first = safetensors.load_file(path)["w"]
    with safetensors.safe_open(path, framework="pt") as f:
        second = f.get_tensor("w")
    assert first.data_ptr() != second.data_ptr()
    snap, _ = snapshot(first, second, names=["first", "second"])
    r = _one_region(snap)
    assert r["file"]["mapping"] == "private" and r["file"]["cow"] == []
    assert _views(snap)["first"]["byte_offset"] == _views(snap)["second"]["byte_offset"] > 0
    first[0] = 5.0          # private: this page is now this mapping's own copy, no longer the file's
    snap, _ = snapshot(first, second, names=["first", "second"])
    assert len(snap["regions"]) == 2
    mine = next(r for r in snap["regions"] if r["views"] == ["v0"])
    assert mine["identity"] is None and mine["file"]["cow"]
    assert second[0].item() == 0.0                 # the other mapping still shows the file's bytes


def test_a_numpy_copy_on_write_memmap_joins_the_file_until_it_writes(tmp_path):
    path = _file(tmp_path, 2 * P)
    cow = np.memmap(path, dtype=np.uint8, mode="c")                  # private: its writes stay here
    ro = np.memmap(path, dtype=np.uint8, mode="r")
    snap, _ = snapshot(cow, ro[P:], names=["cow", "ro"])
    assert _one_region(snap)["identity"]["inode"] == os.stat(path).st_ino
    cow[P + 1] = 99                                                   # page 1 is now this process's copy
    snap, _ = snapshot(cow, ro[P:], names=["cow", "ro"])
    assert len(snap["regions"]) == 2 and ro[1] == 1
    mine, file_region = snap["regions"]
    assert mine["identity"] is None and mine["views"] == ["v0"]
    assert file_region["identity"]["byte_offset"] == 0 and _views(snap)["ro"]["byte_offset"] == P


def test_two_private_torch_mappings_are_one_region_until_one_is_written(tmp_path):
    torch = require_module("torch")
    path = _file(tmp_path, P)
    a = torch.from_file(path, shared=False, size=P, dtype=torch.uint8)
    b = torch.from_file(path, shared=False, size=P, dtype=torch.uint8)
    snap, _ = snapshot(a, b, names=["a", "b"])
    assert _one_region(snap)["identity"]["byte_offset"] == 0
    a[0] = 7
    snap, _ = snapshot(a, b, names=["a", "b"])
    assert len(snap["regions"]) == 2 and b[0].item() == 0


def test_torch_from_file_shared_and_a_pytensor_mapping_are_one_region(tmp_path):
    torch = require_module("torch")
    path = _file(tmp_path, 2 * P)
    t = torch.from_file(path, shared=True, size=2 * P, dtype=torch.uint8)
    p = pytensor.from_file(path, shared=True, dtype=pytensor.uint8)
    snap, _ = snapshot(t, p[P:], names=["torch", "pytensor"])
    r = _one_region(snap)
    assert r["identity"]["inode"] == os.stat(path).st_ino
    assert _views(snap)["pytensor"]["byte_offset"] == P


def test_shared_memory_seen_twice_is_one_region(tmp_path):
    from pytensor._ffi import ffi, lib
    first = pytensor.zeros(40).share_memory_()  # so t's bytes start past byte 0 of the arena's region
    t = pytensor.arange(1000, dtype=pytensor.int32)
    st = t.untyped_storage().share_memory_()
    fd, region, offset = ffi.new("int *"), ffi.new("size_t *"), ffi.new("int64_t *")
    assert lib.lt_storage_shared_fd(fd, region, offset, st._ptr) == lib.LT_OK
    m = mmap.mmap(fd[0], region[0])            # a second mapping of the same memfd (closed when collected)
    again = np.frombuffer(m, dtype=np.int32, count=1000, offset=offset[0])
    assert again.ctypes.data != t.data_ptr() and again[999] == 999
    snap, _ = snapshot(t, again[500:], names=["t", "again"])
    r = _one_region(snap)
    ident = st.identity()
    assert ident.byte_offset == offset[0] > 0 and first.is_shared()
    # the region starts where the lowest mapping of its memory starts (again's mmap maps the region from 0);
    # each lane sits at its byte offset in that memory
    start = r["identity"]["byte_offset"]
    assert {k: r["identity"][k] for k in ("device", "inode")} == {"device": ident.device, "inode": ident.inode}
    assert start <= ident.byte_offset
    assert _views(snap)["t"]["byte_offset"] == ident.byte_offset - start
    assert _views(snap)["again"]["byte_offset"] == ident.byte_offset - start + 2000


def test_heap_memory_keeps_its_address_as_its_name():
    a = pytensor.arange(4)
    snap, _ = snapshot(a, np.arange(3), names=["a", "n"])
    assert all(r["identity"] is None and r["id"].startswith("r") for r in snap["regions"])


# ---------------------------------------------------------------- writes seen on both
def test_a_write_through_one_mapping_is_seen_through_the_other(tmp_path):
    path = _file(tmp_path, P)
    a = pytensor.from_file(path, shared=True, dtype=pytensor.uint8)
    b = pytensor.from_file(path, shared=True, dtype=pytensor.uint8)
    names = ["a", "b"]
    old, old_blob = snapshot(a, b, names=names)
    assert "writes 0" in [x["text"] for x in old["regions"][0]["badges"]]
    a[10] = 0xEE
    new, blob = snapshot(a, b, names=names)
    r = _one_region(new)
    asked = []

    def through(region, since):
        asked.append((region["views"], since))
        return "a"
    old["generation"], new["generation"] = 1, 2
    ch = Y.changes(old, old_blob, new, blob, 1, through)
    assert ch["regions"] == {r["id"]: [[10, 11]]}
    assert ch["views"] == ["v0", "v1"]                          # b's lane flashes too: its bytes changed
    assert asked == [(["v0"], 0)]                               # the writer is looked for among a's views
    assert ch["writers"][r["id"]] == "pytensor wrote here, through a (write counter 0 \u2192 1)"
    badge = next(x for x in r["badges"] if x["kind"] == "version")
    assert badge["text"] == "writes 1" and "2 mappings" in badge["title"]
    assert b[10].item() == 0xEE


def test_the_live_inspector_names_the_writer_and_flashes_both_mappings(tmp_path):
    require_module("anywidget")
    from pytensor.widgets import Inspector
    path = _file(tmp_path, P)
    a = pytensor.from_file(path, shared=True, dtype=pytensor.uint8)
    b = pytensor.from_file(path, shared=True, dtype=pytensor.uint8)
    w = Inspector(a, b, names=["a", "b"])
    try:
        b[3] = 0x99
        assert w.check() is True
        rid = w.snapshot["regions"][0]["id"]
        assert len(w.snapshot["regions"]) == 1
        assert w.changes["regions"] == {rid: [[3, 4]]} and w.changes["views"] == ["v0", "v1"]
        # pytensor's write record: the write went through the view b[3] made, a view of b's mapping
        assert w.changes["writers"][rid] == "pytensor wrote here, through a view made by b[3] (write counter 0 \u2192 1)"
        assert "writes 1" in [x["text"] for x in w.snapshot["regions"][0]["badges"]]
        with open(path, "r+b") as f:                 # a write through neither: the poll sees it on both
            f.seek(7)
            f.write(b"\x42")
        assert w.check() is True
        assert w.changes["regions"] == {rid: [[7, 8]]} and w.changes["views"] == ["v0", "v1"]
    finally:
        w.close()


# ---------------------------------------------------------------- across processes
def test_another_process_names_the_shared_region_as_this_one_does():
    ctx = pmp.get_context("spawn")
    q_in, q_out = ctx.Queue(), ctx.Queue()
    p = ctx.Process(target=child_region_identity, args=(q_in, q_out))
    p.start()
    try:
        t = pytensor.arange(64, dtype=pytensor.int64)
        t.share_memory_()
        q_in.put(t[8:])
        try:
            addr, rid, ident = q_out.get(timeout=120)
        except queue.Empty:
            pytest.fail(f"no answer from the child (alive: {p.is_alive()}, exit code {p.exitcode})")
    finally:
        p.join(60)
    assert p.exitcode == 0
    snap, _ = snapshot(t[8:], names=["t"])
    mine = snap["regions"][0]
    assert mine["identity"] is not None and addr != t.data_ptr() + 64
    assert ident == mine["identity"] and rid == mine["id"]


# ---------------------------------------------------------------- pages: the file's, under the views
def test_residency_is_asked_only_for_the_pages_under_the_views(tmp_path):
    path = str(tmp_path / "sparse.bin")
    with open(path, "wb") as f:
        f.truncate(1 << 30)                                     # 1 GiB, 262,144 pages, all holes
    t = pytensor.from_file(path, shared=False, dtype=pytensor.uint8)
    assert t[5 * P + 7].item() == 0                            # reads (and so brings in) page 5
    work = Work()
    snap, _ = snapshot(t[5 * P:5 * P + 100], t[5 * P + 50:6 * P + 10], work=work, names=["x", "y"])
    f = _one_region(snap)["file"]
    # two pages lie under the views (5 and 6) and the cow question covers the private mapping
    resident_asked = work.pages_asked - (1 << 30) // P
    assert resident_asked == 2
    assert f["asked"] == [[5 * P, 7 * P]]
    assert any(a <= 5 * P and 5 * P + 100 <= b for a, b in f["resident"])


def test_the_residency_strip_of_two_mappings_is_the_files(tmp_path):
    path = str(tmp_path / "f.bin")
    with open(path, "wb") as f:
        f.truncate(64 * P)
    a = pytensor.from_file(path, shared=True, dtype=pytensor.uint8)
    b = pytensor.from_file(path, shared=True, dtype=pytensor.uint8)
    a[3 * P] = 1                                                # page 3, written through a
    snap, _ = snapshot(a[:8 * P], b[3 * P:4 * P], b[40 * P:41 * P], names=["a", "b3", "b40"])
    r = _one_region(snap)
    f = r["file"]
    assert f["mapping"] == "shared" and f["nbytes"] == 64 * P
    assert f["asked"] == [[0, 8 * P], [40 * P, 41 * P]]
    assert any(lo <= 3 * P and 4 * P <= hi for lo, hi in f["resident"])       # seen from both lanes' file


# ---------------------------------------------------------------- what a user sees, in a real browser
@pytest.fixture
def page():
    from browser_support import chromium_page
    with chromium_page(prefix="pti-identity-") as pg:
        yield pg


def test_the_saved_page_draws_one_region_of_the_file_with_both_lanes_and_the_write(page, tmp_path):
    require_module("anywidget")
    from browser_support import artifacts_dir
    from playwright.sync_api import expect
    from pytensor.widgets import Inspector
    path = str(tmp_path / "weights.bin")
    with open(path, "wb") as f:
        f.write(bytes(range(32)))                       # small: drawn byte by byte, values and all
    a = pytensor.from_file(path, shared=True, dtype=pytensor.uint8)
    b = pytensor.from_file(path, shared=True, dtype=pytensor.uint8)
    b_tail = b[8:24]
    w = Inspector(a, b_tail, names=["a", "b_tail"])
    a[12] = 0xEE                                    # through a; b_tail reads byte 12 too
    assert w.check() is True
    html = w.save_html(tmp_path / "identity.html")
    w.close()

    page.goto(html.as_uri())
    svg = page.locator("svg.pti-svg")
    expect(svg).to_be_visible(timeout=20_000)
    region = svg.locator(".pti-region")
    expect(region).to_have_count(1)                                    # one region of the file
    expect(region).to_have_attribute("data-file-offset", "0")
    expect(region).to_have_attribute("data-mappings", "2")
    expect(region.locator(".pti-title")).to_contain_text("of one file from its byte 0, seen through 2 mappings")
    lanes = region.locator(".pti-lane")
    expect(lanes).to_have_count(2)                                     # both lanes, in that one region
    assert lanes.evaluate_all("(ls) => ls.map((l) => l.dataset.name)") == ["a", "b_tail"]
    badges = region.locator(".pti-badge text").all_text_contents()
    assert "writes 1" in badges, badges                                # the write counted once, for the file
    expect(region.locator(".pti-file-head")).to_contain_text("weights.bin")
    expect(region.locator(".pti-lbl", has_text="file bytes")).to_have_count(1)
    # b_tail's lane starts at its file byte 8 and its element 4 is the byte a wrote
    cell = region.locator(".pti-lane[data-name='b_tail'] .pti-el[data-index='4']")
    expect(cell).to_have_attribute("data-start", "12")
    expect(region.locator(".pti-hex[data-off='12']")).to_have_text("ee")
    expect(region.locator(".pti-val[data-view='v1'][data-index='4']")).to_have_text("238")     # 0xEE, seen in b
    expect(region.locator(".pti-resident")).not_to_have_count(0)       # the file's pages, in RAM
    region.locator(".pti-byte[data-off='12']").hover()
    tip = page.locator(".pti-tip")
    expect(tip).to_be_visible()
    for reader in ("a[12]", "b_tail[4]"):
        expect(tip).to_contain_text(reader)
    expect(tip).to_contain_text("byte 12 (file byte 12) = 0xee")    # named by the file, not by one mapping's address
    page.screenshot(path=str(artifacts_dir(tmp_path) / "identity_one_file_two_mappings.png"), full_page=True)
    assert not page.errors, page.errors
