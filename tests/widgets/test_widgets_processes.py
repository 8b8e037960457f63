"""The processes strip: which processes map a buffer's pages, each one's PSS, and the pages copied.

Real processes throughout: a child made by os.fork that maps the storage and
blocks on a pipe until told to read or write pages, and a separate Python
process that maps the same file. The parent's snapshot must name the child,
give each process about half of the pages' PSS, and see the pages the child
writes as copied (no longer shared). Linux only (/proc), as the CI is.
"""
import contextlib
import ctypes
import os
import re
import subprocess
import sys
import time

import pytest

import pytensor
from pytensor.widgets import _procfs, _processes, snapshot, to_text
from pytensor.widgets._processes_text import processes_text

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
P = os.sysconf("SC_PAGE_SIZE")


class Child:
    """A forked child that keeps the parent's mappings and obeys one-letter commands on a pipe:
    ``r`` reads every page of [addr, addr + nbytes) (mapping them), ``w`` writes one byte to each of
    the first ``k`` whole pages, then it answers and waits for the next; closing the pipe ends it."""

    def __init__(self, addr, nbytes):
        self.first = addr + (-addr) % P          # the first page boundary inside the bytes
        self.addr, self.nbytes = addr, nbytes
        cmd_r, self.cmd = os.pipe()
        self.ack, ack_w = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:                         # the child: only ctypes and os, then os._exit
            os.close(self.cmd)
            os.close(self.ack)
            try:
                while True:
                    c = os.read(cmd_r, 16)
                    if not c:
                        break
                    if c[:1] == b"r":
                        ctypes.string_at(addr, nbytes)
                    elif c[:1] == b"w":
                        for k in range(int(c[1:])):
                            ctypes.memset(self.first + k * P, 7, 1)
                    os.write(ack_w, b"k")
            finally:
                os._exit(0)
        os.close(cmd_r)
        os.close(ack_w)

    def do(self, command):
        os.write(self.cmd, command.encode())
        assert os.read(self.ack, 1) == b"k"

    def close(self):
        if self.cmd is not None:                 # closing the pipe ends the child
            os.close(self.cmd)
            os.close(self.ack)
            os.waitpid(self.pid, 0)
            self.cmd = None


def whole_pages(runs, first, nbytes):
    """``runs`` cut to the whole pages of a buffer of ``nbytes`` whose first whole page starts at byte
    ``first``. Its two partial pages, at either end, may also hold other heap objects, which this process
    may write (and so copy) while the test runs."""
    end = first + (nbytes - first) // P * P
    return [[max(a, first), min(b, end)] for a, b in runs if min(b, end) > max(a, first)]


@contextlib.contextmanager
def strip_in_chromium(path):
    """The processes strip of the saved page ``path`` as a fresh Chromium draws it: ``(page, strip)``."""
    from browser_support import chromium_page
    with chromium_page(path.as_uri()) as page:
        strip = page.locator("svg.pti-svg .pti-procs")
        strip.wait_for(timeout=10_000)
        yield page, strip


def procs(t):
    """The processes entry of ``t``'s region in a fresh snapshot, and the snapshot's text."""
    snap, blob = snapshot(t, names=["t"])
    return snap["regions"][0]["processes"], to_text(snap, blob)


def test_a_forked_child_that_maps_shared_memory_is_listed_with_half_the_pss():
    t = pytensor.ones(1 << 20, dtype=pytensor.float32).share_memory_()   # 4 MiB: a region of its own
    st = t.untyped_storage()
    child = Child(st.data_ptr(), st.nbytes())
    try:
        child.do("r")                            # a shared mapping is mapped page by page, as it is read
        p, text = procs(t)
        me, others = p["pids"][0], p["pids"][1:]
        assert [(o["pid"], o["relation"]) for o in others] == [(child.pid, "child")]
        assert p["mapping"] == "shared" and p["identity"] == list(st.identity())
        npages = st.nbytes() // P
        assert me["shared_pages"] == others[0]["shared_pages"] == npages == p["pages"]
        assert p["shared"] == [[0, st.nbytes()]] and p["copied"] is None      # a shared mapping copies nothing
        for o in p["pids"]:                      # each maps the 1024 pages both read, plus the region's header
            assert abs(o["pss_bytes"] - st.nbytes() // 2) <= 2 * P, (o, st.nbytes())
            assert o["rss_bytes"] >= st.nbytes()
        assert f"processes: shared with pid {child.pid} (child)" in " ".join(text.split())
        # a write in the child is a write to the same pages: still shared, nothing copied
        child.do("w3")
        assert ctypes.string_at(child.first + 2 * P, 1) == b"\x07"      # the parent sees the child's write
        assert procs(t)[0]["pids"][0]["shared_pages"] == npages
    finally:
        child.close()
    p, text = procs(t)
    assert len(p["pids"]) == 1 and "processes:" not in text     # alone again: the strip says nothing


def test_pages_a_forked_child_writes_are_copied_and_no_longer_shared():
    t = pytensor.ones(1 << 18, dtype=pytensor.float32)           # 1 MiB of private heap memory (no huge pages)
    st = t.untyped_storage()
    child = Child(st.data_ptr(), st.nbytes())
    try:
        p, _ = procs(t)
        assert p["mapping"] == "private" and p["identity"] is None
        me, kid = p["pids"]
        first = child.first - st.data_ptr()      # the region starts at the storage's first byte
        whole = [[first, first + (st.nbytes() - first) // P * P]]
        assert kid["pid"] == child.pid and whole_pages(p["shared"], first, st.nbytes()) == whole
        # the partial pages at either end are the parent's to write at any moment, even between its reading
        # its own pagemap and the child's: the counts of the two processes may differ by those
        assert p["pages"] - 2 <= me["shared_pages"] <= p["pages"] and p["pages"] - 2 <= kid["shared_pages"]
        assert whole_pages(p["copied"], first, st.nbytes()) == [] and me["copied_pages"] <= 2
        child.do("w5")                           # copy-on-write: the child gets its own five pages
        p, text = procs(t)
        me, kid = p["pids"]
        assert whole_pages(p["copied"], first, st.nbytes()) == [[first, first + 5 * P]]
        assert 5 <= me["copied_pages"] <= 7 and 5 <= kid["copied_pages"] <= 7
        assert me["shared_pages"] == p["pages"] - me["copied_pages"]
        assert 5 <= p["copied_since"] <= me["copied_pages"]      # shared at the last picture, copied now
        flat = " ".join(text.split())
        assert f"{me['copied_pages']} pages copied by this process, {kid['copied_pages']} by pid {child.pid}" in flat
        assert f"{p['copied_since']} pages copied since the last picture" in flat
        # not again at the next: at most the two partial pages at the ends, which this process's other heap
        # objects may have written since (CI saw one)
        assert procs(t)[0]["copied_since"] <= 2
    finally:
        child.close()


READER = """
import mmap, os, sys
path, ready, stop = sys.argv[1:]
m = mmap.mmap(os.open(path, os.O_RDONLY), 0, prot=mmap.PROT_READ)
sum(m[::4096])                                  # one byte a page: all four pages are mapped here
open(ready, "w").write(str(os.getpid()))
open(stop).read()                               # a FIFO: blocks until the test opens it and closes it
"""


def test_another_process_mapping_the_same_file_is_found_by_the_file_identity(tmp_path):
    """A process that is no relative of this one (started by a launcher that exits at once) maps the
    same file: it is found by the file's (device, inode, offset), at whatever address it maps it."""
    path, ready, stop = tmp_path / "weights.bin", tmp_path / "ready", tmp_path / "stop"
    path.write_bytes(bytes(range(256)) * 64)     # 16 KiB: four pages
    os.mkfifo(stop)
    m = pytensor.from_file(str(path), shared=True, size=16384, dtype=pytensor.uint8)
    launch = ("import subprocess, sys; subprocess.Popen([sys.executable, '-c', sys.argv[1]] + sys.argv[2:], "
              "start_new_session=True)")
    subprocess.run([sys.executable, "-c", launch, READER, str(path), str(ready), str(stop)], check=True, timeout=60)
    try:
        for _ in range(600):                     # the reader writes its pid once it maps the file
            if ready.exists() and ready.read_text():
                break
            time.sleep(0.05)
        reader = int(ready.read_text())
        m.sum()
        p, text = procs(m)
        assert p["identity"] == list(m.untyped_storage().identity())
        other = [o for o in p["pids"] if o["pid"] == reader]
        assert other and other[0]["relation"] == "another process" and other[0]["shared_pages"] == 4
        assert other[0]["copied_pages"] is None and p["pids"][0]["shared_pages"] == 4
        assert f"pid {reader} (another process)" in " ".join(text.split())
    finally:
        with open(stop, "w"):
            pass                                 # the reader's read returns: it exits
    for _ in range(600):
        if not os.path.exists(f"/proc/{reader}"):
            break
        time.sleep(0.05)
    assert all(o["pid"] != reader for o in procs(m)[0]["pids"])


def test_the_page_query_reads_only_the_pages_of_the_bytes_asked_about():
    t = pytensor.ones(1024, dtype=pytensor.uint8).share_memory_()   # 1 KiB inside a 16 MiB arena
    st = t.untyped_storage()
    child = Child(st.data_ptr(), st.nbytes())
    try:
        child.do("r")
        scan = _procfs.Scan()
        p = _processes.region_processes(st.data_ptr(), st.data_ptr() + st.nbytes(), scan)
        assert any(o["pid"] == child.pid for o in p["pids"])
        assert p["pages"] <= 2 and scan.pages_read <= 2 * p["pages"]      # not the arena's 4,096 pages
        assert scan.maps_read <= _procfs.MAX_PIDS and scan.smaps_read <= len(p["pids"])
        # one picture reads each process's maps once, however many regions it asks about
        before = scan.maps_read
        _processes.region_processes(st.data_ptr(), st.data_ptr() + st.nbytes(), scan)
        assert scan.maps_read == before
    finally:
        child.close()


def test_the_bounds_say_what_they_left_out(monkeypatch):
    t = pytensor.ones(1 << 16, dtype=pytensor.uint8).share_memory_()
    st = t.untyped_storage()
    lo, hi = st.data_ptr(), st.data_ptr() + st.nbytes()
    monkeypatch.setattr(_procfs, "PICTURE_PAGES", 4)            # fewer pages than the 16 asked about
    scan = _procfs.Scan()
    p = _processes.region_processes(lo, hi, scan)
    assert p["shared"] is None and scan.pages_read == 0 and "page states past 4 pages a picture" in p["note"]
    monkeypatch.setattr(_procfs, "PICTURE_PAGES", 1 << 20)
    child = Child(lo, st.nbytes())
    try:
        child.do("r")
        monkeypatch.setattr(_procfs, "MAX_PIDS", 1)              # this process's maps, and no other's
        scan = _procfs.Scan()
        p = _processes.region_processes(lo, hi, scan)
        assert scan.maps_read == 1 and len(p["pids"]) == 1
        assert "processes past the picture's bound on /proc reads" in p["note"]
    finally:
        child.close()
    monkeypatch.setattr(_procfs, "MAX_PIDS", 0)                  # no maps file at all
    assert _processes.region_processes(lo, hi, _procfs.Scan()) is None


def test_heap_memory_no_other_process_maps_draws_no_strip():
    t = pytensor.arange(100, dtype=pytensor.int64)
    p, text = procs(t)
    assert len(p["pids"]) == 1 and p["pids"][0]["copied_pages"] is None and p["copied_since"] in (None, 0)
    assert processes_text(p) == "" and "processes:" not in text


def test_the_strip_in_a_real_browser_names_the_child_and_marks_its_copied_pages(tmp_path):
    """The product's own saved page, opened in Chromium: the strip under the buffer lists the child with
    its PSS, marks the pages still shared, and the pages the child's writes made copies."""
    from browser_support import artifacts_dir
    from pytensor.widgets import figure, write_page
    t = pytensor.ones(1 << 18, dtype=pytensor.float32)           # 1 MiB of heap memory, 256 pages
    st = t.untyped_storage()
    child = Child(st.data_ptr(), st.nbytes())
    try:
        child.do("w3")
        alone = pytensor.ones(1 << 19, dtype=pytensor.float32).share_memory_()   # made after the fork: ours only
        fig = figure("a forked child wrote three pages", t, alone, names=["t", "alone"])
        path = write_page(tmp_path / "processes.html", [fig], title="processes")
    finally:
        child.close()
    first = child.first - st.data_ptr()
    with strip_in_chromium(path) as (page, strip):
        assert page.locator("svg.pti-svg .pti-region").count() == 2 and strip.count() == 1   # none for `alone`
        assert strip.get_attribute("data-pids") == str(child.pid)
        edges = int(strip.get_attribute("data-copied-pages")) - 3   # see whole_pages
        assert 0 <= edges <= 2
        copied = strip.locator(".pti-proc-copied")
        runs = [[int(c.get_attribute("data-lo")), int(c.get_attribute("data-hi"))] for c in copied.all()]
        assert whole_pages(runs, first, st.nbytes()) == [[first, first + 3 * P]]
        assert strip.locator(".pti-proc-shared").count() >= 1
        lines = strip.locator("text.pti-proc").evaluate_all(  # a line's rows are tspans (it wraps, never cut)
            "(ts) => ts.map((t) => Array.from(t.querySelectorAll('tspan'), (s) => s.textContent).join(' '))")
        assert lines[0].startswith(f"this process (pid {os.getpid()}): PSS ")
        assert lines[1].startswith(f"pid {child.pid} (") and "child): PSS" in lines[1]
        assert 3 <= int(re.search(r"(\d+) copied by it", lines[1]).group(1)) <= 5     # its three, and edge pages
        assert strip.bounding_box()["height"] > 20
        page.screenshot(path=str(artifacts_dir(tmp_path) / "processes_strip.png"), full_page=True)
        assert not page.errors, page.errors


def test_huge_pages_are_said_to_be_answered_per_huge_page():
    """A 4 MiB tensor lies in memory pytensor asks to be transparent huge pages; where the kernel gave it
    huge pages (smaps' AnonHugePages), pagemap's flags come per 2 MiB page, and the note says so."""
    t = pytensor.ones(1 << 20, dtype=pytensor.float32)
    st = t.untyped_storage()
    child = Child(st.data_ptr(), st.nbytes())
    try:
        p, _ = procs(t)
        _, _, _, huge = _procfs.Scan().pss(os.getpid(), st.data_ptr(), st.data_ptr() + st.nbytes())
        assert any(o["pid"] == child.pid for o in p["pids"])
        assert ("lie in huge pages" in p["note"]) == bool(huge), (huge, p["note"])
    finally:
        child.close()


def test_many_runs_of_pages_are_drawn_merged_and_the_note_says_so(tmp_path):
    """A private file mapping whose every other page was written: 3,000 runs of copied pages, more than a
    strip draws (MAX_RUNS); they are merged across the smallest gaps and the note gives the exact total."""
    from pytensor.widgets._files import MAX_RUNS
    path = tmp_path / "sparse.bin"
    with open(path, "wb") as f:
        f.truncate(6000 * P)
    m = pytensor.from_file(str(path), shared=False, size=6000 * P, dtype=pytensor.uint8)
    m.view(-1, P)[::2, 0] = 1                    # copy-on-write: every other page becomes this process's own
    p = _processes.region_processes(m.data_ptr(), m.data_ptr() + m.nbytes)
    assert p["pids"][0]["copied_pages"] == 3000 and len(p["copied"]) == MAX_RUNS
    assert f"pages drawn merged (3000 runs ({3000 * P} bytes) drawn as {MAX_RUNS}" in p["note"]


def test_the_live_widget_redraws_when_a_child_copies_pages_or_exits():
    """The poll notices what no write counter says: pages the child copied, and the child gone."""
    from support import require_module
    require_module("anywidget")
    from pytensor.widgets import Inspector
    t = pytensor.ones(1 << 18, dtype=pytensor.float32)
    st = t.untyped_storage()
    child = Child(st.data_ptr(), st.nbytes())
    w = Inspector(t, names=["t"])
    try:
        kid = w.snapshot["regions"][0]["processes"]["pids"][1]
        assert kid["pid"] == child.pid and w.check() is False        # nothing moved: no redraw
        before = kid["copied_pages"]
        child.do("w4")
        assert w.check() is True
        assert w.snapshot["regions"][0]["processes"]["pids"][1]["copied_pages"] == before + 4
        child.close()
        assert w.check() is True
        assert len(w.snapshot["regions"][0]["processes"]["pids"]) == 1   # the strip goes with the child
        assert w.check() is False
    finally:
        child.close()
        w.close()


def test_a_file_no_one_else_shares_a_page_of_costs_no_scan_of_every_process():
    """Shared memory whose pages are all in RAM here and exclusively mapped: only this process's family is
    read, not every process's maps; once a child maps a page, the scan finds it."""
    t = pytensor.ones(1 << 19, dtype=pytensor.float32).share_memory_()   # 2 MiB, a region of its own
    st = t.untyped_storage()
    lo, hi = st.data_ptr(), st.data_ptr() + st.nbytes()
    scan = _procfs.Scan()
    p = _processes.region_processes(lo, hi, scan)
    assert len(p["pids"]) == 1 and scan.maps_read <= 1 + len(scan.family())
    child = Child(lo, st.nbytes())
    try:
        child.do("r")
        scan = _procfs.Scan()
        p = _processes.region_processes(lo, hi, scan)
        assert [o["pid"] for o in p["pids"][1:]] == [child.pid]
        assert scan.maps_read > 1 + len(scan.family()) or len(scan.candidates()) <= len(scan.family()) + 1
    finally:
        child.close()


def test_a_region_seen_through_two_mappings_of_one_file_is_asked_piece_by_piece(tmp_path):
    """A region can be one file read through several mappings of this process (its ``mappings`` pieces):
    each piece is asked where it lies, runs land at region positions, each process is listed once."""
    path = tmp_path / "two.bin"
    path.write_bytes(bytes(4 * P))
    a = pytensor.from_file(str(path), shared=True, size=4 * P, dtype=pytensor.uint8)
    b = pytensor.from_file(str(path), shared=True, size=4 * P, dtype=pytensor.uint8)
    a.fill_(1)
    b.fill_(2)                                   # the same pages: both mappings now map all four
    region = {"addr": hex(a.data_ptr()), "nbytes": 4 * P, "host": True,
              "mappings": [[0, 2 * P, a.data_ptr()], [2 * P, 4 * P, b.data_ptr() + 2 * P]]}
    child = Child(a.data_ptr(), 4 * P)
    try:
        child.do("r")                            # the child maps the pages of its copy of `a`'s mapping
        _processes.annotate([region])
        p = region["processes"]
        ident = a.untyped_storage().identity()
        assert p["identity"] == [ident.device, ident.inode, 0] and p["pages"] == 4
        assert [o["pid"] for o in p["pids"]] == [os.getpid(), child.pid]
        assert p["shared"] == [[0, 2 * P], [2 * P, 4 * P]] and p["pids"][0]["shared_pages"] == 4
        assert _processes.moved({"regions": [region]}) is False
    finally:
        child.close()
    assert _processes.moved({"regions": [region]}) is True   # the child is gone
