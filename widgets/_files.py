"""Files as memory: what the inspector says about a buffer that is a mapped file.

A ``from_file`` storage is a window onto a file. ``file_info`` describes the
part of that window a region of the picture shows: which file, how it is
mapped, which bytes of the file it is, which of its pages are in RAM now
(mincore), and, for a private map, which pages were written and so copied
on write and no longer match the file (/proc/self/pagemap). Both page
questions are asked of libtensor, which reads no byte to answer them, so
looking never pulls a page in; reading a view does, and the next snapshot
shows which pages it pulled in.

Byte ranges are half-open ``[lo, hi)`` and relative to the region's first
byte, as every offset in the snapshot is; runs of neighbouring pages are
merged. The dict holds plain values only: no reference to the storage
outlives the call.

>>> import os, tempfile, pytensor
>>> path = os.path.join(tempfile.mkdtemp(), "f.bin")
>>> t = pytensor.from_file(path, shared=True, size=100, dtype=pytensor.uint8)
>>> st = t.untyped_storage()
>>> info = file_info(st, st.data_ptr(), st.data_ptr() + st.nbytes())
>>> info["mapping"], info["file_offset"], info["nbytes"], info["cow"], info["cow_note"]
('shared', 0, 100, None, 'shared mapping: writes go to the file')
"""
from __future__ import annotations

import sys

from pytensor import _inspect_api

__all__ = ["file_info", "copied_runs", "merged_info", "joined", "in_region", "page_runs", "MAX_RUNS", "PICTURE_PAGES"]

MAX_RUNS = 1024  # byte ranges per list; more are drawn merged across their smallest gaps
# Pages one picture may ask about. Only the pages under the inspected views are asked (a view of a
# few bytes of a large mapping asks one page); past this many in one picture a mapping is not asked:
# 2**20 pages (4 GiB of 4 KiB pages) take about 50 ms; 2**26 (256 GiB) took 2.8 s a picture.
PICTURE_PAGES = 1 << 20

_NO_COPIES = {
    "shared": "shared mapping: writes go to the file",
    "read-only": "read-only mapping: it cannot be written, so no page is copied",
}


def file_info(storage, region_lo_addr, region_hi_addr, work=None, ask=None):
    """The region dict's ``"file"`` entry for the absolute addresses
    ``[region_lo_addr, region_hi_addr)``, or None when ``storage`` is not a
    pytensor file mapping (heap memory, a buffer, a torch storage, ...).

    ``file_offset`` is where in the file the first mapped byte of the region
    lies and ``nbytes`` how many mapped bytes the region shows (the region
    can only be wider than the mapping when other memory abuts it).
    ``resident``/``cow`` are None where the kernel cannot say, with the reason
    in ``resident_note``/``cow_note``; a note beside a list says how it was
    simplified for drawing. ``asked`` lists the bytes whose pages were asked
    about: ``ask``, absolute addresses ``(lo, hi)`` (the bytes a view can
    reach), narrows the residency question to the pages under them; by
    default every page of the mapping is asked. Copied-on-write pages are
    asked of the whole mapping: they decide whether its bytes are still the
    file's (``_identity.identity_of``).

    ``work`` (a ``_pairs.Work``, one per picture) remembers each storage's answers, so
    a page is asked once per picture however many views lie on it, and counts the pages
    asked: past ``PICTURE_PAGES`` in one picture a mapping is not asked, and the note
    says so.
    """
    pt = sys.modules.get("pytensor")
    if pt is None or not isinstance(storage, pt.UntypedStorage):
        return None
    # Through the class, not the object: a subclass could describe another file or address.
    cls = pt.UntypedStorage
    mapped = cls.mapped_file.__get__(storage)
    if not mapped:
        return None
    path, mode = mapped
    s_lo = int(cls.data_ptr(storage))
    s_hi = s_lo + int(cls.nbytes(storage))
    lo, hi = max(region_lo_addr, s_lo), min(region_hi_addr, s_hi)
    hi = max(lo, hi)
    page = cls.page_nbytes
    first = s_lo - s_lo % page   # address of page 0 in the bitmaps libtensor returns
    npages = (s_hi - first + page - 1) // page if s_hi > s_lo else 0
    a_lo, a_hi = (s_lo, s_hi) if ask is None else (max(ask[0], s_lo), min(ask[1], s_hi))
    pages = ((a_lo - first) // page, (a_hi - first + page - 1) // page) if a_hi > a_lo else (0, 0)

    def ranges(query, want):
        """(runs relative to the region, note): note says why runs is None, or how it was merged."""
        bits = _ask(query, storage, (query.__name__, s_lo, s_hi, id(storage)), want, npages,
                    (first, page, s_lo, s_hi), work)
        if isinstance(bits, str):
            return None, bits
        runs = [[max(lo, first + (want[0] + i) * page) - region_lo_addr,
                 min(hi, first + (want[0] + j) * page) - region_lo_addr] for i, j in page_runs(bits)]
        runs = [r for r in runs if r[1] > r[0]]
        return _merged(runs)

    resident, resident_note = ranges(cls.resident_pages, pages)
    if mode == "private":
        cow, cow_note = ranges(cls.copied_pages, (0, npages))
    else:
        cow, cow_note = None, _NO_COPIES[mode]
    a0, a1 = max(lo, first + pages[0] * page), min(hi, first + pages[1] * page)
    return {
        "path": path,
        "mapping": mode,
        "file_offset": cls.file_range.__get__(storage)[0] + (lo - s_lo),
        "nbytes": hi - lo,
        "page_size": page,
        "resident": resident,
        "resident_note": resident_note,
        "asked": [[a0 - region_lo_addr, a1 - region_lo_addr]] if a1 > a0 and resident is not None else [],
        "cow": cow,
        "cow_note": cow_note,
    }


def copied_runs(lo, hi, work=None):
    """For a private file mapping no storage describes (a NumPy memmap of mode "c", torch's
    ``from_file(shared=False)``): the byte ranges of ``[lo, hi)`` (absolute addresses; ranges relative
    to ``lo``) whose pages were copied on write, or None where that could not be asked (another kind
    of mapping, no pagemap, past the picture's ``PICTURE_PAGES``). Asked once a picture, as
    ``file_info`` asks, within the same budget."""
    page = sys.modules["pytensor"].UntypedStorage.page_nbytes
    first = lo - lo % page
    npages = (hi - first + page - 1) // page if hi > lo else 0

    def query(_, byte_offset, nbytes):
        return _inspect_api.address_copied_pages(lo + byte_offset, nbytes)
    bits = _ask(query, None, ("copied_at", lo, hi), (0, npages), npages, (first, page, lo, hi), work)
    if isinstance(bits, str):
        return None
    return [[max(lo, first + i * page) - lo, min(hi, first + j * page) - lo] for i, j in page_runs(bits)]


def _ask(query, storage, key, want, npages, geometry, work):
    """``query``'s page bits for pages ``want = (i, j)`` of the mapping (numbered from the page
    holding its first byte), or the reason they were not asked (a str). A picture keeps each
    answer, so a page is asked about once however many views lie on it: only the pages of ``want``
    no earlier question covered are asked now."""
    i, j = want
    if j <= i:
        return b""
    pieces = work.pages_cache.setdefault(key, []) if work is not None else []
    gaps, at = [], i
    for p0, p1, _ in sorted(pieces):
        if p1 <= at or p0 >= j:
            continue
        if p0 > at:
            gaps.append((at, p0))
        at = max(at, p1)
    if at < j:
        gaps.append((at, j))
    asked = work.pages_asked if work is not None else 0
    todo = sum(b - a for a, b in gaps)
    if asked + todo > PICTURE_PAGES:
        return (f"not asked: the mapping has {npages:,} pages and one picture asks about at most "
                f"{PICTURE_PAGES:,}" + ("" if j - i == npages else
                                       f" (the views here lie on {j - i:,} of them, {asked:,} asked already)"))
    first, page, s_lo, s_hi = geometry
    for a, b in gaps:
        byte_offset = max(s_lo, first + a * page) - s_lo
        nbytes = min(s_hi, first + b * page) - s_lo - byte_offset
        try:
            bits = query(storage, byte_offset, nbytes)
        except sys.modules["pytensor"].PytensorError as e:
            return str(e)
        pieces.append((a, b, bits))
        if work is not None:
            work.pages_asked += b - a
    out = bytearray()
    for p0, p1, bits in sorted(pieces):
        lo, hi = max(p0, i), min(p1, j)
        if lo < hi:
            out += bits[lo - p0:hi - p0]
    return bytes(out)


def merged_info(parts):
    """One region's ``"file"`` entry from the entries of the mappings it shows, each already in the
    region's byte positions (``in_region``): one file, so one strip. Resident, asked and copied
    ranges are joined; the first part that could not say gives the note. None when no part is a file.
    """
    parts = [p for p in parts if p]
    if not parts:
        return None
    if len(parts) == 1:
        return {k: v for k, v in parts[0].items() if not k.startswith("_")}
    first = min(parts, key=lambda p: p["_at"] if "_at" in p else 0)
    out = {k: v for k, v in first.items() if not k.startswith("_")}
    modes = sorted({p["mapping"] for p in parts})
    out["mapping"] = " and ".join(modes)
    lo = min(p.get("_at", 0) for p in parts)
    out["nbytes"] = max(p.get("_at", 0) + p["nbytes"] for p in parts) - lo
    for key, note in (("resident", "resident_note"), ("cow", "cow_note")):
        known = [p for p in parts if p[key] is not None]
        if not known:
            out[key], out[note] = None, "; ".join(dict.fromkeys(p[note] for p in parts if p[note]))
            continue
        runs = joined([r for p in known for r in p[key]])
        out[key], merged_note = _merged(runs)
        missing = [p[note] for p in parts if p[key] is None and p[note]]
        out[note] = "; ".join(dict.fromkeys(([merged_note] if merged_note else []) + missing)) or None
    out["asked"] = joined([r for p in parts for r in p.get("asked", [])])
    return out


def joined(runs):
    """Byte ranges ``[lo, hi)`` sorted, with those that meet or touch joined."""
    out = []
    for a, b in sorted(runs):
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out


def in_region(info, offset):
    """``info`` (from ``file_info`` over a storage's own bytes) redrawn for a region in which
    that storage starts ``offset`` bytes in: its ranges move by ``offset``. None stays None.

    >>> in_region({"resident": [[0, 4096]], "cow": None, "asked": [], "nbytes": 4096}, 64)["resident"]
    [[64, 4160]]
    """
    if info is None:
        return None
    out = dict(info, _at=offset)
    for key in ("resident", "cow", "asked"):
        if info.get(key) is not None:
            out[key] = [[lo + offset, hi + offset] for lo, hi in info[key]]
    return out


def page_runs(bits):
    """``(i, j)`` for each run of pages ``i..j-1`` whose byte in ``bits`` is 1.

    >>> list(page_runs(bytes([0, 1, 1, 0, 1])))
    [(1, 3), (4, 5)]
    """
    i = bits.find(1)
    while i >= 0:
        j = bits.find(0, i)
        if j < 0:
            j = len(bits)
        yield i, j
        i = bits.find(1, j)


def _merged(runs, limit=MAX_RUNS):
    """``(runs, note)``: at most ``limit`` runs. Past it, the smallest gaps (the first of equal
    ones) are drawn filled until ``limit`` runs are left, so a picture a few hundred pixels wide
    stays exact where it can be, and the note says where it is not and what the exact total is."""
    if len(runs) <= limit:
        return runs, None
    by_size = sorted(range(len(runs) - 1), key=lambda g: (runs[g + 1][0] - runs[g][1], g))
    filled = set(by_size[:len(runs) - limit])     # gap g lies between runs g and g + 1
    out = [list(runs[0])]
    for g, r in enumerate(runs[1:]):
        if g in filled:
            out[-1][1] = r[1]
        else:
            out.append(list(r))
    widest = max(runs[g + 1][0] - runs[g][1] for g in filled)
    total = sum(hi - lo for lo, hi in runs)
    return out, (f"{len(runs)} runs ({total} bytes) drawn as {len(out)}: "
                 f"gaps of up to {widest} bytes between them are drawn filled")
