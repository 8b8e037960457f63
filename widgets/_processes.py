"""Processes: which other processes map a region's pages, each one's share, and which pages were copied.

Addresses differ between processes, so a region is matched by what the
kernel names its bytes with. File-backed and shared memory (a memfd, a
``from_file`` mapping, a safetensors load) is named by (device, inode, byte
offset), the triple ``UntypedStorage.identity()`` gives: every process whose
/proc/PID/maps lists a mapping of that file over those offsets maps those
pages. Private anonymous memory (the heap: a tensor, a list's objects) has no
file; only a process forked from this one (or the one this was forked from)
can share its pages, copy-on-write, at the same addresses.

Per process: its PSS from /proc/PID/smaps (the proportional set size of the
mappings holding the bytes: a page mapped by n processes counts 1/n each),
and from /proc/PID/pagemap which of the pages are mapped by another process
too (bit 56, "exclusively mapped", clear) and which are its own copies (a
private mapping's page exclusively mapped again, or anonymous where the file
was). Frame numbers are zeroed for unprivileged readers, so nothing here
reads them. In a shared mapping a write copies nothing; there the pages
written since this process's last picture of the bytes, by any process,
come from per-page digests of the bytes (``_written.py``). Only processes
of this user can be read; the others are not looked at.

The reading of /proc (and why it is Python, not libtensor) is ``_procfs.py``;
its ``Scan`` bounds one picture's work and the note says what was left out.
"""
from __future__ import annotations

import collections
import os

from ._files import _merged, page_runs
from ._procfs import PAGE, Scan
from ._written import differs, written_since

__all__ = ["region_processes", "annotate", "moved", "MAX_LISTED"]

MAX_LISTED = 16           # processes listed per region; the note counts the rest

# the top byte of a pagemap entry: 0x80 present, 0x40 swapped, 0x20 file page or shared memory, 0x01 exclusive
_SHARED = bytes(int(b & 0x80 and not b & 0x01) for b in range(256))           # mapped by another process too
_OWN_ANON = bytes(int(b & 0x80 and b & 0x01) for b in range(256))             # a private page no one else maps
_OWN_FILE = bytes(int(bool(b & 0xC0) and not b & 0x20) for b in range(256))   # anonymous where the file's page was

_last_shared = collections.OrderedDict()   # (pid, lo, hi) -> bitmap of the pages shared at the last picture


def _copies(vma):
    """The page classifier of a process's own copies in this mapping; None for a shared one (none are made)."""
    if vma[2][3] == "s":
        return None
    return _OWN_FILE if vma[5] else _OWN_ANON


def _matches(scan, pid, me_vma, lo, hi):
    """``[(start, end, vma)]``: where ``pid`` maps the pages of this process's ``[lo, hi)`` (in ``me_vma``)."""
    out = []
    if me_vma[5]:                # a file: the same file's offsets, wherever the other process maps them
        f_lo, f_hi = me_vma[3] + lo - me_vma[0], me_vma[3] + hi - me_vma[0]
        for v in scan.maps_of_file(pid, me_vma[4], me_vma[5]):
            a, b = max(f_lo, v[3]), min(f_hi, v[3] + v[1] - v[0])
            if a < b:
                out.append((v[0] + a - v[3], v[0] + b - v[3], v))
        return out
    for v in scan.maps_over(pid, lo, hi):
        # the heap: the same addresses, in a mapping fork copied (its start or end kept), not one an exec'd
        # program happened to place there
        if v[5] == 0 and v[2][3] == "p" and (v[0] == me_vma[0] or v[1] == me_vma[1]):
            out.append((max(lo, v[0]), min(hi, v[1]), v))
    return out


def _pages(scan, pid, spans):
    """``(shared, copied)`` page counts of ``pid`` over its ``spans``; None where it cannot be read."""
    shared = copied = 0
    for a, b, v in spans:
        bits = scan.flags(pid, a, b)
        if bits is None:
            return None, None
        shared += bits.translate(_SHARED).count(1)
        kind = _copies(v)
        copied = None if kind is None or copied is None else copied + bits.translate(kind).count(1)
    return shared, copied


def region_processes(lo, hi, scan=None):
    """The region dict's ``"processes"`` entry for this process's bytes ``[lo, hi)`` (absolute addresses),
    or None when no mapping holds them. See ``widgets/_schema.py`` for its keys."""
    if scan is None:
        scan = Scan()
        try:
            return region_processes(lo, hi, scan)
        finally:
            scan.close()
    me = os.getpid()
    mine = [(max(lo, v[0]), min(hi, v[1]), v) for v in scan.maps_over(me, lo, hi)]
    if hi <= lo or not mine:
        return None
    first = mine[0][2]
    identity = [first[4], first[5], first[3] + lo - first[0]] if first[5] else None
    # who else: for a file, every readable process, the family first; for the heap, the family only. A file's
    # pages all in RAM here and mapped by no one else (pagemap) spare reading every process's maps: another
    # process could at most have mapped them without touching one
    family = scan.family()
    bits = scan.flags(me, lo, hi)
    alone = bits is not None and bits.translate(_OWN_ANON).count(1) == len(bits)
    order = sorted(family) + ([p for p in scan.candidates() if p not in family] if identity and not alone else [])
    found = []
    for pid in order:
        spans = _matches(scan, pid, first, lo, hi) if pid != me else []
        if spans:
            found.append((pid, family.get(pid, "another process"), spans))
    listed = found[:MAX_LISTED]
    if len(found) > MAX_LISTED:
        scan.left_out.add(f"{len(found) - MAX_LISTED} more processes that map these bytes")
    kind = _copies(first)
    # a heap page no other process maps is simply this process's: "copied" says something only beside a relative
    kind = None if kind is _OWN_ANON and not found else kind
    shared_bits = bits.translate(_SHARED) if bits is not None else None
    copied_bits = bits.translate(kind) if bits is not None and kind is not None else None
    # PSS means something beside another process; alone, it is the RSS (and smaps is the costly read)
    pss, rss, mapped, huge = scan.pss(me, lo, hi) if found else (None, None, None, None)
    # in transparent huge pages the kernel gives the flags per 2 MiB page: say so beside the counts
    notes = ["page by page: these bytes lie in huge pages, and the kernel says which are shared one "
                 "2 MiB page at a time"] if huge else []
    me_row = {"pid": me, "name": scan.comm(me), "relation": "this process", "pss_bytes": pss, "rss_bytes": rss,
              "mapped_bytes": mapped, "shared_pages": shared_bits.count(1) if shared_bits is not None else None,
              "copied_pages": copied_bits.count(1) if copied_bits is not None else None}
    page0 = lo - lo % PAGE
    shared = _runs(shared_bits, page0, lo, hi, notes) if shared_bits is not None else None
    copied = _runs(copied_bits, page0, lo, hi, notes) if copied_bits is not None else None
    # in a shared mapping another process's write copies nothing: the bytes say which pages changed (_written.py)
    written_bits, written_count = written_since(scan, _key(first, lo, hi), lo, hi, bits) \
        if first[2][3] == "s" and bits is not None else (None, None)
    return {
        "mapping": "shared" if first[2][3] == "s" else "private",
        "identity": identity,
        "page_size": PAGE,
        "pages": (hi + PAGE - 1) // PAGE - lo // PAGE,
        "shared": shared,
        "copied": copied,
        "copied_since": _since(me, lo, hi, shared_bits, copied_bits) if shared_bits is not None else None,
        "written": _runs(written_bits, page0, lo, hi, notes) if written_bits is not None else None,
        "written_since": written_count,
        "pids": [me_row] + [_row(scan, pid, rel, spans) for pid, rel, spans in listed],
        "note": "; ".join(sorted(scan.left_out) + notes),
    }


def _key(vma, lo, hi):
    """Names the bytes ``[lo, hi)`` of this process for the pages-written digests: where they are, and
    which file's bytes (so that another file mapped there later is not compared with them)."""
    return lo, hi, vma[4], vma[5], vma[3] + lo - vma[0]


def _row(scan, pid, relation, spans):
    pss, rss, mapped, _ = scan.pss(pid, min(a for a, _, _ in spans), max(b for _, b, _ in spans))
    shared, copied = _pages(scan, pid, spans)
    return {"pid": pid, "name": scan.comm(pid), "relation": relation, "pss_bytes": pss, "rss_bytes": rss,
            "mapped_bytes": mapped, "shared_pages": shared, "copied_pages": copied}


def _runs(bits, page0, lo, hi, notes):
    """Byte ranges, relative to ``lo``, of the pages whose byte in ``bits`` is 1: at most MAX_RUNS, merged
    across their smallest gaps as the file strip's are (``_files._merged``), with a note when they were."""
    runs, note = _merged([[max(lo, page0 + i * PAGE) - lo, min(hi, page0 + j * PAGE) - lo]
                          for i, j in page_runs(bits)])
    if note:
        notes.append(f"pages drawn merged ({note})")
    return runs


def _since(pid, lo, hi, shared_bits, copied_bits):
    """Pages that were shared at this process's last picture of ``[lo, hi)`` and are copies now (not pages a
    process that went away left unshared: those were not copied); 0 at the first picture."""
    key = (pid, lo, hi)
    before = _last_shared.pop(key, None)
    _last_shared[key] = int.from_bytes(shared_bits, "little")
    while len(_last_shared) > 64:
        _last_shared.popitem(last=False)
    if before is None:       # a first picture of these bytes: none seen copied (0, so that pictures agree)
        return 0
    return (before & int.from_bytes(copied_bits or b"", "little")).bit_count()


def _pieces(r):
    """``[lo, hi, address]``: where this process reads the region's bytes ``[lo, hi)``. A region that is one
    file seen through several mappings lists them (``mappings``); otherwise it is one piece from ``addr``."""
    return r.get("mappings") or [[0, r["nbytes"], int(r["addr"], 16)]]


def annotate(regions, scan=None):
    """Sets ``"processes"`` on each region dict (None for memory the host cannot read)."""
    scan = scan if scan is not None else Scan()
    try:
        for r in regions:
            parts = [(a, region_processes(addr, addr + b - a, scan)) for a, b, addr in _pieces(r) if b > a] \
                if r["host"] and r["nbytes"] else []
            r["processes"] = _joined([(a, p) for a, p in parts if p is not None])
    finally:
        scan.close()
    return scan


def _joined(parts):
    """One region's entry from its pieces' ``(region position, entry)``: runs moved to region positions,
    counts added, each process once (its numbers over every piece added up)."""
    if not parts:
        return None
    (a0, out), rest = parts[0], parts[1:]
    if a0 == 0 and not rest:
        return out
    out = dict(out, pids=[dict(o) for o in out["pids"]])
    if out["identity"] is not None:
        out["identity"] = out["identity"][:2] + [out["identity"][2] - a0]     # the file offset of region byte 0
    for key in ("shared", "copied", "written"):
        out[key] = None if out[key] is None else [[lo + a0, hi + a0] for lo, hi in out[key]]
    rows = {o["pid"]: o for o in out["pids"]}
    notes = [out["note"]]
    for a, p in rest:
        out["pages"] += p["pages"]
        for key in ("shared", "copied", "written"):
            out[key] = None if out[key] is None or p[key] is None else out[key] + [[lo + a, hi + a] for lo, hi in p[key]]
        for key in ("copied_since", "written_since"):
            out[key] = None if None in (out[key], p[key]) else out[key] + p[key]
        for o in p["pids"]:
            if o["pid"] not in rows:
                rows[o["pid"]] = dict(o)
                out["pids"].append(rows[o["pid"]])
                continue
            row = rows[o["pid"]]
            for key in ("pss_bytes", "rss_bytes", "mapped_bytes", "shared_pages", "copied_pages"):
                row[key] = None if None in (row[key], o[key]) else row[key] + o[key]
        notes.append(p["note"])
    out["note"] = "; ".join(dict.fromkeys(n for n in notes if n))
    return out


def moved(snap):
    """Whether a picture's processes strips are out of date: a process it lists has gone, or this process
    shares another number of a buffer's pages (a child copied some, or exited), or a shared mapping's
    bytes differ from the last picture's (``_written.differs``: any process wrote). Cheap enough for every
    poll: one pagemap read of each buffer that has a strip, a bounded digest of its shared mappings,
    and none for the others."""
    scan = Scan()
    try:
        for r in snap["regions"]:
            p = r.get("processes")
            if p and p["written"] is not None and _rewritten(scan, r):
                return True
            if not p or len(p["pids"]) < 2:
                continue
            if any(not os.path.exists(f"/proc/{o['pid']}") for o in p["pids"][1:]):
                return True
            # whole pages only: a partial page at either end also holds other objects, which this process
            # writes (and so copies) as it runs, and that alone is no reason to redraw
            if p["shared"] is None:
                continue
            was = now = 0
            for a, b, addr in _pieces(r):
                first, end = addr + (-addr) % PAGE, (addr + b - a) - (addr + b - a) % PAGE
                bits = scan.flags(os.getpid(), first, end) if end > first else b""
                if bits is None:
                    break
                rf, re_ = first - addr + a, end - addr + a           # the same pages, in region positions
                was += sum(max(0, min(hi, re_) - max(lo, rf)) for lo, hi in p["shared"]) // PAGE
                now += bits.translate(_SHARED).count(1)
            else:
                if now != was:
                    return True
        return False
    finally:
        scan.close()


def _rewritten(scan, r):
    """Whether a process wrote region ``r``'s shared bytes since the last picture (read, not remembered)."""
    me = os.getpid()
    for a, b, addr in _pieces(r):
        vmas, bits = scan.maps_over(me, addr, addr + b - a), scan.flags(me, addr, addr + b - a)
        if vmas and bits is not None and differs(scan, _key(vmas[0], addr, addr + b - a), addr, addr + b - a, bits):
            return True
    return False
