"""The processes strip in a shared mapping: which pages were written since this process's last picture.

In a shared mapping another process's write copies nothing, so what the strip
says there comes from the bytes (widgets/_written.py). Real processes: a
forked child that writes pages of shared memory on command, and a separate
Python process that maps the same file with ``from_file(shared=True)``,
writes pages and exits. The parent's next picture must name exactly those
pages, and the picture after none; the parent's own writes count too; a
private mapping keeps "copied" and says nothing of writes.
"""
import os
import subprocess
import sys
import tempfile

import pytest

import pytensor
from pytensor.widgets import _procfs, _processes, _written, snapshot, to_text
from pytensor.widgets._schema import PROCESSES_KEYS
from test_widgets_processes import Child, procs, strip_in_chromium

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
P = os.sysconf("SC_PAGE_SIZE")

WRITER = """
import sys
import pytensor
path, nbytes, pages = sys.argv[1], int(sys.argv[2]), [int(k) for k in sys.argv[3].split(",")]
m = pytensor.from_file(path, shared=True, size=nbytes, dtype=pytensor.uint8)
for k in pages:
    m[k * 4096 + 7] = 200                       # one byte of each page, where the file holds 7
"""


def flat(text):
    return " ".join(text.split())


def test_pages_a_forked_child_writes_in_shared_memory_are_written_since_the_last_picture():
    t = pytensor.ones(1 << 20, dtype=pytensor.float32).share_memory_()   # 4 MiB: a region of its own
    st = t.untyped_storage()
    child = Child(st.data_ptr(), st.nbytes())
    try:
        child.do("r")
        p, _ = procs(t)
        assert set(p) == set(PROCESSES_KEYS)
        assert p["mapping"] == "shared" and p["written"] == [] and p["written_since"] == 0     # a first picture
        first = child.first - st.data_ptr()
        child.do("w3")                           # one byte of each of three pages: the same pages as the parent's
        p, text = procs(t)
        assert p["written"] == [[first, first + 3 * P]] and p["written_since"] == 3
        assert p["copied"] is None and p["pids"][0]["shared_pages"] == p["pages"]      # nothing was copied
        assert "3 pages written since the last picture" in flat(text)
        p, text = procs(t)                       # the picture after: nothing written since that one
        assert p["written"] == [] and p["written_since"] == 0 and "written since" not in flat(text)
        # the parent's own write counts too: element 5000 lies on page 4 of the storage
        t[5000] = 3.0
        p, text = procs(t)
        page = 5000 * 4 // P * P
        assert p["written"] == [[page, page + P]] and p["written_since"] == 1
        assert "1 page written since the last picture" in flat(text)
    finally:
        child.close()


def test_a_separate_process_writing_the_same_file_shows_in_this_ones_next_picture(tmp_path):
    """A process that maps the file with from_file(shared=True), writes three pages and exits: no
    process but this one maps the file any more, and the strip still says which pages were written."""
    path = tmp_path / "weights.bin"
    path.write_bytes(bytes([7]) * (16 * P))
    m = pytensor.from_file(str(path), shared=True, size=16 * P, dtype=pytensor.uint8)
    assert int(m.sum()) == 7 * 16 * P            # read: every page is mapped here
    p, text = procs(m)
    assert p["written_since"] == 0 and "processes:" not in text          # alone, nothing written: no strip
    subprocess.run([sys.executable, "-c", WRITER, str(path), str(16 * P), "2,5,6"], check=True, timeout=120,
                   cwd=tempfile.gettempdir())
    p, text = procs(m)
    assert [o["pid"] for o in p["pids"]] == [os.getpid()]                 # the writer has exited
    assert p["written"] == [[2 * P, 3 * P], [5 * P, 7 * P]] and p["written_since"] == 3
    assert int(m[5 * P + 7]) == 200
    assert "processes: shared with no other process" in flat(text)
    assert "3 pages written since the last picture" in flat(text)
    assert procs(m)[0]["written_since"] == 0


def test_a_storage_a_spawned_worker_received_through_pytensor_multiprocessing_and_wrote():
    """The worker gets the tensor as a Process argument (its pages, not a copy: pytensor.multiprocessing
    passes the shared memory's descriptor), fills it and exits: every page of it was written."""
    import pytensor.multiprocessing as pmp
    from mp_children import TIMEOUT_S, child_arg
    t = pytensor.zeros(1 << 16, dtype=pytensor.float32).share_memory_()     # 256 KiB: 64 pages
    t.sum()
    assert procs(t)[0]["written_since"] == 0
    ctx = pmp.get_context("spawn")
    done = ctx.Event()
    worker = ctx.Process(target=child_arg, args=(t, done))
    worker.start()
    assert done.wait(TIMEOUT_S)
    worker.join(TIMEOUT_S)
    assert worker.exitcode == 0 and float(t[0]) == 5.0
    p, text = procs(t)
    npages = p["pages"]
    assert p["written"] == [[0, t.nbytes]] and p["written_since"] == npages >= 64
    assert f"{npages} pages written since the last picture" in flat(text)


def test_a_private_mapping_keeps_copied_and_says_nothing_of_writes():
    t = pytensor.ones(1 << 18, dtype=pytensor.float32)           # 1 MiB of private heap memory
    st = t.untyped_storage()
    child = Child(st.data_ptr(), st.nbytes())
    try:
        procs(t)
        child.do("w5")
        p, text = procs(t)
        assert p["mapping"] == "private" and p["written"] is None and p["written_since"] is None
        assert p["pids"][0]["copied_pages"] >= 5 and p["copied_since"] >= 5      # copy-on-write, as before
        assert "written since" not in flat(text)
    finally:
        child.close()


def test_only_pages_mapped_here_are_read_and_looking_maps_none(tmp_path):
    """A 16 MiB file of which this process has read one page: the picture reads the few pages its page
    tables map (fault-around maps a few neighbours, a huge page at most 512), not 4,096, and maps no page it
    did not map before."""
    path = tmp_path / "big.bin"
    with open(path, "wb") as f:
        f.truncate(4096 * P)
    m = pytensor.from_file(str(path), shared=True, size=4096 * P, dtype=pytensor.uint8)
    int(m[2000 * P])
    lo, hi = m.data_ptr(), m.data_ptr() + m.nbytes
    present = _procfs.Scan().flags(os.getpid(), lo, hi).translate(bytes(int(b >= 0x80) for b in range(256)))
    scan = _procfs.Scan()
    p = _processes.region_processes(lo, hi, scan)
    assert 1 <= present.count(1) <= 512 and scan.bytes_digested == present.count(1) * P
    after = _procfs.Scan().flags(os.getpid(), lo, hi).translate(bytes(int(b >= 0x80) for b in range(256)))
    assert after == present and p["written_since"] == 0


def test_past_the_bytes_a_picture_compares_the_note_says_not_checked(monkeypatch):
    t = pytensor.ones(1 << 18, dtype=pytensor.float32).share_memory_()   # 1 MiB, 256 pages
    procs(t)
    monkeypatch.setattr(_written, "DIGEST_BYTES", 16 * P)
    t[0] = 2.0
    p, text = procs(t)
    assert p["written"] is None and p["written_since"] is None
    assert f"pages written since the last picture not checked: past the {16 * P / 2**20:g} MiB" in p["note"]
    monkeypatch.setattr(_written, "DIGEST_BYTES", 128 << 20)
    p, _ = procs(t)                              # compared afresh: a first picture, nothing said written
    assert p["written"] == [] and p["written_since"] == 0


def test_a_region_of_two_mappings_of_one_file_says_the_written_pages_at_region_positions(tmp_path):
    """One file read through two mappings of this process (the region's ``mappings`` pieces): a write
    through either is one written page of the region, wherever in the region it lies."""
    path = tmp_path / "two.bin"
    path.write_bytes(bytes(4 * P))
    a = pytensor.from_file(str(path), shared=True, size=4 * P, dtype=pytensor.uint8)
    b = pytensor.from_file(str(path), shared=True, size=4 * P, dtype=pytensor.uint8)
    a.fill_(1)
    b.fill_(2)                                   # both mappings now map all four pages
    region = {"addr": hex(a.data_ptr()), "nbytes": 4 * P, "host": True,
              "mappings": [[0, 2 * P, a.data_ptr()], [2 * P, 4 * P, b.data_ptr() + 2 * P]]}
    _processes.annotate([region])
    assert region["processes"]["written"] == [] and region["processes"]["written_since"] == 0
    a[3 * P] = 5                                 # through the mapping that is not the region's piece there
    b[P + 1] = 6
    _processes.annotate([region])
    p = region["processes"]
    assert p["written"] == [[P, 2 * P], [3 * P, 4 * P]] and p["written_since"] == 2


def test_the_live_widget_redraws_when_another_process_writes_shared_pages(tmp_path):
    """A process that wrote the file and exited: no write counter moved, no process but this one maps the
    file, the preview window (the first 4 KiB) is unchanged. The poll sees the pages from their digests,
    redraws once, and the picture after it has nothing new to say."""
    from support import require_module
    require_module("anywidget")
    from pytensor.widgets import Inspector
    path = tmp_path / "weights.bin"
    path.write_bytes(bytes([7]) * (16 * P))
    m = pytensor.from_file(str(path), shared=True, size=16 * P, dtype=pytensor.uint8)
    m.sum()
    w = Inspector(m, names=["m"])
    try:
        assert w.check() is False
        subprocess.run([sys.executable, "-c", WRITER, str(path), str(16 * P), "3,4,9"], check=True, timeout=120,
                       cwd=tempfile.gettempdir())
        assert w.check() is True
        p = w.snapshot["regions"][0]["processes"]
        assert p["written"] == [[3 * P, 5 * P], [9 * P, 10 * P]] and p["written_since"] == 3
        assert w.check() is False
    finally:
        w.close()


def test_the_marks_are_drawn_in_a_real_browser(tmp_path):
    """The product's own saved page, opened in Chromium: the strip of shared memory a forked child wrote
    three pages of since the last picture marks exactly those pages and says so."""
    from browser_support import artifacts_dir
    from pytensor.widgets import figure, write_page
    t = pytensor.ones(1 << 20, dtype=pytensor.float32).share_memory_()
    st = t.untyped_storage()
    child = Child(st.data_ptr(), st.nbytes())
    try:
        child.do("r")
        snapshot(t, names=["t"])                 # the last picture
        child.do("w3")
        fig = figure("a forked child wrote three pages of shared memory", t, names=["t"])
        path = write_page(tmp_path / "written.html", [fig], title="written")
    finally:
        child.close()
    first = child.first - st.data_ptr()
    with strip_in_chromium(path) as (page, strip):
        assert strip.get_attribute("data-written-pages") == "3" and strip.get_attribute("data-mapping") == "shared"
        marks = strip.locator(".pti-proc-written")
        assert [[int(c.get_attribute("data-lo")), int(c.get_attribute("data-hi"))] for c in marks.all()] == \
            [[first, first + 3 * P]]
        box = marks.first.bounding_box()
        assert box["width"] >= 1 and box["height"] >= 2                       # drawn, not merely present
        assert marks.first.evaluate("(r) => getComputedStyle(r).fill") == "rgb(194, 37, 92)"
        lines = strip.locator("text.pti-proc").evaluate_all(
            "(ts) => ts.map((t) => Array.from(t.querySelectorAll('tspan'), (s) => s.textContent).join(' '))")
        assert "3 pages written since the last picture" in lines
        page.screenshot(path=str(artifacts_dir(tmp_path) / "processes_written.png"), full_page=True)
        assert not page.errors, page.errors
