"""The inspector's pure model: tensors and arrays in, plain dicts and bytes out.

Nothing here imports ipywidgets, so the model is testable on its own and the
static HTML and text outputs work without a front end. The widget, the HTML
export and the text summary all draw the same ``snapshot`` dict:

* ``regions``: each distinct piece of memory once. Objects are grouped by
  *address overlap*, not by Python identity, so a NumPy array and the tensor
  made from it, or two ``frombuffer`` tensors at different offsets of one
  ``bytearray``, land in one region. Every region lists its *sources* (the
  pytensor storages and foreign owners that keep it alive) as badges.
* ``views``: one per inspected object, placed in its region by byte offset,
  with its footprint ``[lo, hi)`` (the first to last byte it can touch, by
  libtensor's extent rule, ``pytensor._layout.byte_extent``),
  exact touched-byte counts where they are cheap, self-overlap and idiom tags.
* ``overlaps``: pairs of views whose footprints intersect, with the exact
  number of shared bytes where it is cheap to count.
* who owns what (``account_bytes``): per view ``exclusive_bytes`` (touched
  by no other view of the picture) and ``shared_bytes``; per region
  ``union_bytes`` (each byte once, however many views read it) beside
  ``touched_sum`` (what adding the views up would say). ``None`` means too
  costly to count, and ``ownership_note``/``union_note`` say why.

The bytes themselves travel separately, as one ``bytes`` blob of bounded
windows (``PREVIEW_BYTES`` per region), never as JSON lists. Memory is read
only inside the spans of sources that are alive while the snapshot is taken.

>>> import numpy as np
>>> a = np.arange(8, dtype=np.int32)
>>> snap, blob = snapshot(a, a[::2], names=["a", "evens"])
>>> len(snap["regions"]), [v["footprint"] for v in snap["views"]], len(blob)
(1, [[0, 32], [0, 28]], 32)
"""
from __future__ import annotations

import bisect
import ctypes
import functools
import sys

from pytensor._layout import byte_extent, is_contiguous, numel

from ._files import file_info, in_region
from ._pairs import MAX_PAIRS, Work, listed_prefix, meeting_pairs

__all__ = [
    "PREVIEW_BYTES", "snapshot", "resolve", "build", "footprint", "elements_in_window", "layout_stats",
    "idiom_tags", "shared_bytes", "account_bytes", "read_memory",
]

SNAPSHOT_VERSION = 2      # 2: every byte-valued offset is named byte_offset (it was "offset")
PREVIEW_BYTES = 4096      # bytes of values sent per region; zooming elsewhere asks for another window
EXACT_LIMIT = 1 << 22     # views with more elements get counted by layout rules only
MASK_LIMIT = 1 << 26      # largest byte range we build a boolean mask over

_HOST = "cpu"

# The keys of the snapshot's dicts, and what each means. Units are in the names: a ``byte_offset``,
# ``footprint``, ``lo``/``hi`` or ``*_bytes`` counts bytes from the start of the view's region;
# ``strides`` and ``storage_offset`` count elements, as in torch and libtensor.
# tests/test_widgets_keys.py checks that the dicts have exactly these keys and that the renderer
# reads no other.
VIEW_KEYS = {
    "id": "v0, v1, ... in the order the objects were inspected",
    "name": "the name the caller gave", "kind": "tensor, ndarray or buffer", "type": "the object's class",
    "region": "the id of the region holding its bytes",
    "dtype": "element type name", "itemsize": "bytes per element", "endian": "'<' or '>'",
    "shape": "elements per dimension", "strides": "elements per index step (None if not whole elements)",
    "bstrides": "bytes per index step", "byte_offset": "element 0's first byte, from the region start",
    "storage_offset": "element 0, in elements from its storage's start",
    "footprint": "[lo, hi): the bytes the layout can reach", "numel": "element count",
    "nbytes": "numel * itemsize", "touched_bytes": "distinct bytes read (None: too costly)",
    "max_hits": "most reads of one byte", "exact": "touched_bytes and max_hits are counts, not bounds",
    "self_overlap": "some byte is read twice (None: unknown)", "dense": "the touched bytes fill the footprint",
    "contiguous": "what the object's own is_contiguous / C_CONTIGUOUS says", "readonly": "writes are refused",
    "version": "write counter of its storage (None: not counted)",
    "provenance": "badge text of the memory owner", "provenance_kind": "badge kind of the memory owner",
    "tags": "stride idioms (idiom_tags)", "status": "live or temporary", "note": "why it is temporary",
    "lineage": "the steps that made it", "lineage_text": "lineage as one line",
    "origin": "shared or copied, and from what",
    "in_bounds": "its footprint lies inside a live source", "overlaps_with": "ids of views it shares bytes with",
    "exclusive_bytes": "bytes no other view reads", "shared_bytes": "bytes some other view reads too",
    "ownership_note": "why exclusive/shared bytes are None",
}
SOURCE_KEYS = {
    "kind": "storage or owner", "provenance": "owned, numpy, buffer, file, dlpack, torch or foreign",
    "label": "file name, exporter type, ...", "readonly": "the owner refuses writes",
    "refcount": "libtensor reference count (None: not a pytensor storage)", "version": "write counter",
    "device": "cpu, cuda:0, ...", "type": "the owner's class",
    "byte_offset": "where its bytes start, from the region start", "nbytes": "how many bytes it spans",
}
REGION_KEYS = {
    "id": "r<address>", "addr": "hex address of byte 0", "nbytes": "bytes spanned", "device": "cpu, cuda:0, ...",
    "host": "readable from the host", "sources": "SOURCE_KEYS dicts", "badges": "{kind, text, title} dicts",
    "views": "ids of its views", "readonly": "every source refuses writes", "file": "_files.file_info or None",
    "version": "sum of its storages' write counters", "preview": "{start, length, pos, known}: the bytes sent",
    "union_bytes": "distinct bytes all its views read", "union_note": "why union_bytes is None",
    "touched_sum": "the views' touched_bytes added up",
    "overlaps_total": "pairs of its views whose footprints meet (overlaps lists at most MAX_PAIRS of them)",
    "overlaps_note": "'' when overlaps lists every pair; else which pairs it lists",
}
OVERLAP_KEYS = {
    "region": "region id", "a": "view id", "b": "view id (inspected after a)",
    "lo": "first shared footprint byte", "hi": "end of the shared footprint bytes",
    "shared_bytes": "bytes both touch (None: too costly)",
}


# ====================================================================== layout arithmetic
# The layout rules (extent, contiguity, element count) are libtensor's, asked through
# pytensor._layout; what stays here is the inspector's own counting built on them.
def footprint(shape, bstrides, itemsize, base=0):
    """Half-open byte range ``[lo, hi)`` a view can touch; ``base`` is element 0's byte offset.
    libtensor's rule (``lt_layout_byte_extent``), in the argument order the model uses.

    >>> footprint((3, 2), (8, -4), 4, base=4)     # flipped columns
    (0, 24)
    """
    return byte_extent(shape, bstrides, base, itemsize)


@functools.lru_cache(maxsize=512)
def _suffix_extents(shape, bstrides):
    # each suffix's extent from its element 0, without the last element's own bytes (itemsize 0)
    ext = [byte_extent(shape[d:], bstrides[d:], 0, 0) for d in range(len(shape))] + [(0, 0)]
    return tuple(lo for lo, _ in ext), tuple(hi for _, hi in ext)


def _extents(shape, bstrides):
    """Per dimension d, how far below and above its element 0 the block of dims d.. reaches
    (for pruning): ``(lo_ext, hi_ext)`` tuples, one more entry than ``shape`` (0 past the last)."""
    return _suffix_extents(tuple(shape), tuple(bstrides))


class Elements(list):
    """``(index, byte_start)`` pairs; ``truncated`` is True when a limit stopped the walk early;
    ``visited`` counts the index nodes the walk visited (its work, as in the JS twin)."""
    truncated = False
    visited = 0


def elements_in_window(shape, bstrides, itemsize, base, lo, hi, limit=1 << 16, budget=1 << 20):
    """Elements whose bytes meet ``[lo, hi)``, as ``(index, byte_start)`` pairs.

    Each dimension's index range is cut to the part whose sub-block can still
    reach the window, and a zero-stride dimension is walked once, so the work
    usually follows the answer, not ``numel``. Not always: a block can reach
    the window with none of its elements in it (a huge dimension over a
    gappy inner one), so every visited index also counts against ``budget``.
    The walk stops after ``limit`` pairs or ``budget`` visits and then sets
    ``truncated`` on the result.

    >>> elements_in_window((4,), (8,), 4, 0, 8, 20)
    [((1,), 8), ((2,), 16)]
    """
    out = Elements()
    if 0 in shape or hi <= lo:
        return out
    lo_ext, hi_ext = _extents(shape, bstrides)
    nd = len(shape)
    idx = [0] * nd
    left = [budget]

    def walk(d, off):
        if d == nd:
            if off < hi and off + itemsize > lo:
                out.append((tuple(idx), off))
            return
        n, s = shape[d], bstrides[d]
        # the block under index i covers [off + i*s + lo_ext, off + i*s + hi_ext + itemsize)
        a = lo - itemsize - hi_ext[d + 1] - off     # need i*s > a
        b = hi - lo_ext[d + 1] - off                # need i*s < b
        if s > 0:
            i0, i1 = a // s + 1, -((-b) // s) - 1
        elif s < 0:
            i0, i1 = b // s + 1, -((-a) // s) - 1
        else:
            i0, i1 = (0, n - 1) if a < 0 < b else (1, 0)
        if s == 0 and i0 <= 0 <= i1 and n > 1:
            # every index of a zero-stride dimension covers the same bytes: walk the block once and
            # repeat what it found under each index
            first = len(out)
            idx[d] = 0
            left[0] -= 1
            walk(d + 1, off)
            found = out[first:]
            for i in range(1, n if found else 0):
                for sub, start in found:
                    if len(out) >= limit:
                        out.truncated = True
                        return
                    out.append((sub[:d] + (i,) + sub[d + 1:], start))
            return
        for i in range(max(i0, 0), min(i1, n - 1) + 1):
            if len(out) >= limit or left[0] <= 0:
                out.truncated = True
                return
            left[0] -= 1
            idx[d] = i
            walk(d + 1, off + i * s)

    walk(0, base)
    out.visited = budget - left[0]
    return out


def _offsets(shape, bstrides, base=0):
    """Every element's byte start as a flat NumPy array (the caller bounds numel)."""
    import numpy as np
    off = np.full((), base, dtype=np.int64)
    for n, s in zip(shape, bstrides):
        off = np.add.outer(off, np.arange(n, dtype=np.int64) * s)
    return off.reshape(-1)


@functools.lru_cache(maxsize=512)
def layout_stats(shape, bstrides, itemsize):
    """``(touched_bytes, max_hits, exact)`` of a layout, independent of where it starts.

    ``max_hits`` > 1 means the view reads some byte more than once (stride 0,
    unfold windows, as_strided). ``exact`` is False when the view was too big
    to count and the numbers are a bound: then ``touched_bytes`` is None and
    ``max_hits`` is 2 ("overlapping").

    >>> layout_stats((3, 4), (4, 4), 4)          # sliding windows of 4, step 1
    (24, 3, True)
    """
    shape, bstrides = tuple(shape), tuple(bstrides)
    count = numel(shape)
    if count == 0:
        return 0, 0, True
    dims = sorted((abs(s), n) for n, s in zip(shape, bstrides) if n > 1)
    hits = 1
    for s, n in dims:
        if s == 0:
            hits *= n
    aligned = all(s % itemsize == 0 for s, _ in dims)
    # Sufficient condition for no self-overlap (as numpy's and torch's checks):
    # sorted by |stride|, each stride clears the whole reach of the smaller dims.
    reach, clear = itemsize, True
    for s, n in dims:
        if s == 0:
            continue
        if s < reach:
            clear = False
            break
        reach += (n - 1) * s
    if clear:
        distinct = count // hits
        if aligned or hits == 1:
            return distinct * itemsize, hits, True
    if count > EXACT_LIMIT:
        return None, max(hits, 2), False
    import numpy as np
    starts = _offsets(shape, bstrides)
    if aligned:
        uniq, counts = np.unique(starts, return_counts=True)
        return int(uniq.size) * itemsize, int(counts.max()), True
    lo = int(starts.min())
    span = int(starts.max()) - lo + itemsize
    if span > MASK_LIMIT:
        return None, max(hits, 2), False
    cover = np.zeros(span, dtype=np.int32)
    for k in range(itemsize):
        np.add.at(cover, starts - lo + k, 1)
    return int(np.count_nonzero(cover)), int(cover.max()), True


def _is_row_major(shape, bstrides, itemsize):
    """libtensor's contiguity rule for byte strides. A stride that is not a whole number of
    elements is never row-major, except on an extent-1 dimension, whose stride does not count."""
    if any(s % itemsize for n, s in zip(shape, bstrides) if n != 1):
        return False
    return is_contiguous(shape, [s // itemsize for s in bstrides])


def idiom_tags(shape, bstrides, itemsize, max_hits):
    """The stride idioms a view matches, after ezyang's checklist (a new list each call).

    >>> idiom_tags((3, 2), (4, 12), 4, 1)
    ['transposed']
    >>> idiom_tags((3, 4), (0, 4), 4, 3)
    ['broadcast', 'overlapping']
    """
    return list(_idiom_tags(tuple(shape), tuple(bstrides), itemsize, max_hits))


@functools.lru_cache(maxsize=512)      # ten thousand views of one buffer have a few layouts
def _idiom_tags(shape, bstrides, itemsize, max_hits):
    if numel(shape) == 0:
        return ["empty"]
    if not shape:
        return ["scalar", "contiguous"]
    tags = []
    big = [(n, s) for n, s in zip(shape, bstrides) if n > 1]
    if _is_row_major(shape, bstrides, itemsize):
        return ["contiguous"]
    if any(s == 0 for _, s in big):
        tags.append("broadcast")
    if any(s < 0 for _, s in big):
        tags.append("flipped")
    nonzero = [(n, abs(s)) for n, s in big if s != 0]
    if len(nonzero) >= 2:
        by_stride = sorted(nonzero, key=lambda ns: -ns[1])
        dense = _is_row_major(tuple(n for n, _ in by_stride), tuple(s for _, s in by_stride), itemsize)
        if by_stride != nonzero and (dense or max_hits == 1):
            tags.append("transposed")
    if max_hits > 1:
        if "broadcast" not in tags and len(nonzero) >= 2:
            tags.append("sliding window")
        tags.append("overlapping")
    if not tags:
        tags.append("strided")
    elif max_hits == 1 and "transposed" in tags and not _dense(shape, bstrides, itemsize):
        tags.append("strided")
    return tags


def _dense(shape, bstrides, itemsize):
    """True when the touched bytes fill the footprint with no gaps."""
    touched, hits, exact = layout_stats(tuple(shape), tuple(bstrides), itemsize)
    lo, hi = footprint(shape, bstrides, itemsize)
    return exact and hits == 1 and touched == hi - lo


_COSTLY = object()       # shared_bytes(count=False): the rules do not settle it, counting would


def shared_bytes(a, b, count=True):
    """Exact count of bytes both views touch, or None when too costly to count.

    ``a`` and ``b`` are view dicts (``shape``, ``bstrides``, ``itemsize``,
    ``byte_offset``, ``footprint``, ``touched_bytes``) in the same region.
    With ``count=False`` it answers only what layout rules settle and returns
    ``_COSTLY`` where it would walk the elements.
    """
    lo = max(a["footprint"][0], b["footprint"][0])
    hi = min(a["footprint"][1], b["footprint"][1])
    if hi <= lo:
        return 0
    fa, fb = a["footprint"], b["footprint"]
    # a view whose touched bytes fill its footprint shares everything of the other inside it
    for x, fx, y, fy in ((a, fa, b, fb), (b, fb, a, fa)):
        if x.get("dense") and fx[0] <= fy[0] and fy[1] <= fx[1] and y.get("touched_bytes") is not None:
            return y["touched_bytes"]
    if a.get("dense") and b.get("dense"):
        return hi - lo
    if max(a["numel"], b["numel"]) > EXACT_LIMIT or hi - lo > MASK_LIMIT:
        return None
    if not count:
        return _COSTLY
    import numpy as np
    masks = []
    for v in (a, b):
        mask = np.zeros(hi - lo, dtype=bool)
        starts = _offsets(v["shape"], v["bstrides"], v["byte_offset"]) - lo
        for k in range(v["itemsize"]):
            pos = starts + k
            pos = pos[(pos >= 0) & (pos < hi - lo)]
            mask[pos] = True
        masks.append(mask)
    return int(np.count_nonzero(masks[0] & masks[1]))


# ====================================================================== who owns what
# How many bytes each view reaches alone, and how many distinct bytes all of a
# buffer's views reach together (each byte once, however many views read it).
# Views are split into groups that share bytes (footprints meet and the pair
# count is not 0). Layout rules answer most groups at once (a view inside a
# dense view's footprint owns nothing alone); the rest are counted exactly by
# a sweep over each view's touched intervals, when that is cheap.
ACCOUNT_EVENTS = 1 << 23   # element starts one group's sweep may sort; beyond it the numbers are unknown


def _touched_intervals(v):
    """A view's touched bytes as sorted, disjoint, non-adjacent ``(starts, ends)`` arrays.

    The caller bounds ``numel`` for views that are not dense.
    """
    import numpy as np
    lo, hi = v["footprint"]
    if v["dense"] or v["numel"] == 0:
        return np.array([lo] if hi > lo else [], np.int64), np.array([hi] if hi > lo else [], np.int64)
    s = np.sort(_offsets(v["shape"], v["bstrides"], v["byte_offset"]))     # np.unique hashes: far slower
    # Every element is itemsize long, so ends are as sorted as starts: a run of touching or
    # overlapping (or repeated) elements ends where the next start clears the previous end.
    first = np.flatnonzero(np.concatenate(([True], s[1:] > s[:-1] + v["itemsize"])))
    last = np.concatenate((first[1:] - 1, [len(s) - 1]))
    return s[first], s[last] + v["itemsize"]


def _sweep(intervals):
    """Union length and, per input, the bytes no other input covers; ``intervals[k]`` is ``(starts, ends)``."""
    import numpy as np
    n = len(intervals)
    pos = np.concatenate([a for a, _ in intervals] + [b for _, b in intervals])
    delta = np.concatenate([np.ones(len(a), np.int64) for a, _ in intervals]
                           + [-np.ones(len(b), np.int64) for _, b in intervals])
    who = np.concatenate([np.full(len(a), k, np.int64) for k, (a, _) in enumerate(intervals)] * 2)
    order = np.argsort(pos, kind="stable")      # at one position every start comes before every end
    pos, delta, who = pos[order], delta[order], who[order]
    # Each input's own intervals are disjoint, so between two events the running count is the
    # number of inputs covering the bytes, and when it is 1 the running sum of ids names that input.
    count, ident = np.cumsum(delta)[:-1], np.cumsum(delta * who)[:-1]
    seg = np.diff(pos)
    alone = (count == 1) & (seg > 0)
    excl = np.bincount(ident[alone], weights=seg[alone], minlength=n)
    return int(seg[count > 0].sum()), [int(x) for x in excl]


def _groups(views, overlaps, complete=True):
    """Views joined by pairs whose footprints meet and whose shared count is not 0, as lists.

    When ``overlaps`` does not list every pair (``complete`` False), views are joined by their
    footprints alone: a run of meeting footprints is one group (a sweep, no pair visited).
    """
    if not complete:
        out, cur, end = [], None, None
        for v in sorted(views, key=lambda v: v["footprint"][0]):
            lo, hi = v["footprint"]
            if hi <= lo:
                out.append([v])             # an empty view shares nothing
            elif cur is not None and lo < end:
                cur.append(v)
                end = max(end, hi)
            else:
                cur, end = [v], hi
                out.append(cur)
        return out
    parent = {v["id"]: v["id"] for v in views}

    def root(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x
    for o in overlaps:
        if o["shared_bytes"] != 0:
            parent[root(o["a"])] = root(o["b"])
    out = {}
    for v in views:
        out.setdefault(root(v["id"]), []).append(v)
    return list(out.values())


def _inside(v, d):
    return d["footprint"][0] <= v["footprint"][0] and v["footprint"][1] <= d["footprint"][1]


def _inside_another_dense(group):
    """Per view of ``group``, whether the footprint of a dense view other than itself contains it.

    Dense views sorted by start; for a view, the dense ones starting at or before it are a prefix,
    and it lies inside one of them exactly when the prefix's widest reach (the greatest end, or the
    second greatest where the greatest is the view itself) reaches its end.
    """
    dense = sorted((d for d in group if d["dense"]), key=lambda d: d["footprint"][0])
    starts = [d["footprint"][0] for d in dense]
    best = []           # per prefix: the two greatest (end, position) pairs
    top = ((-1, -1), (-1, -1))
    for k, d in enumerate(dense):
        e = (d["footprint"][1], k)
        top = (e, top[0]) if e > top[0] else (top[0], max(top[1], e))
        best.append(top)
    where = {id(d): k for k, d in enumerate(dense)}
    out = []
    for v in group:
        n = bisect.bisect_right(starts, v["footprint"][0])
        if n == 0:
            out.append(False)
            continue
        first, second = best[n - 1]
        reach = second[0] if where.get(id(v), -2) == first[1] else first[0]
        out.append(reach >= v["footprint"][1])
    return out


def _account_group(group, pair):
    """Exclusive bytes of each view in ``group`` and the group's union: ``(union, note)``."""
    if len(group) == 1:
        v = group[0]
        v["exclusive_bytes"] = v["touched_bytes"]
        return v["touched_bytes"], "" if v["touched_bytes"] is not None else "too many elements to count"
    lo = min(v["footprint"][0] for v in group)
    hi = max(v["footprint"][1] for v in group)
    dense = [v for v in group if v["dense"]]
    union = next((hi - lo for d in dense if d["footprint"] == [lo, hi]), None)
    for v, inside in zip(group, _inside_another_dense(group)):
        # every byte of a view inside another dense view's footprint is read by that view too
        v["exclusive_bytes"] = 0 if inside else None
    if len(group) == 2:
        a, b = group
        n = pair.get((a["id"], b["id"]))
        if n is not None and a["touched_bytes"] is not None and b["touched_bytes"] is not None:
            a["exclusive_bytes"], b["exclusive_bytes"] = a["touched_bytes"] - n, b["touched_bytes"] - n
            return a["touched_bytes"] + b["touched_bytes"] - n, ""
    if union is not None and all(v["exclusive_bytes"] is not None for v in group):
        return union, ""
    return _count_group(group, union)


def _count_group(group, union):
    """The exact sweep over countable views; views too large to walk get what the rules allow."""
    big = [v for v in group if not v["dense"] and v["numel"] > EXACT_LIMIT]
    work = sum(v["numel"] for v in group if not v["dense"])
    if work - sum(v["numel"] for v in big) > ACCOUNT_EVENTS:
        why = f"these views have {work:,} elements together, too many to count"
        for v in group:
            if v["exclusive_bytes"] is None:
                v["ownership_note"] = why
        return union, "" if union is not None else why
    small = [v for v in group if v not in big]
    total, excl = _sweep([_touched_intervals(v) for v in small]) if small else (0, [])
    for v, e in zip(small, excl):
        v["exclusive_bytes"] = e
    for u in big:
        # A view too large to walk can still be placed: inside a dense view it reads nothing alone
        # and adds nothing to the union, but it may take bytes another view seemed to own alone.
        why = f"{u['name']} has {u['numel']:,} elements, too many to count"
        if u["exclusive_bytes"] != 0:
            u["ownership_note"] = why
            u["exclusive_bytes"] = None
            total = None
        for v in small:
            if v["exclusive_bytes"] and _meets(v, u):
                v["exclusive_bytes"], v["ownership_note"] = None, why
    if total is None:
        return union, "" if union is not None else "a view too large to count reaches bytes no other view covers"
    return (union if union is not None else total), ""


def _meets(a, b):
    return a["footprint"][0] < b["footprint"][1] and b["footprint"][0] < a["footprint"][1]


def account_bytes(region, views, overlaps, complete=True):
    """Fill in who owns what: per view ``exclusive_bytes`` (touched by no other view of this picture),
    ``shared_bytes`` (touched by at least one other) and ``ownership_note`` (why a number is None);
    per region ``union_bytes`` (distinct bytes all views touch), ``union_note`` and ``touched_sum``
    (the double-counting total: each view's touched bytes added up). ``complete`` False: ``overlaps``
    lists only some of the pairs (see ``_pairs``), so views are grouped by their footprints.

    >>> vs = [{"id": "a", "name": "a", "footprint": [0, 16], "touched_bytes": 16, "dense": True, "numel": 4},
    ...       {"id": "b", "name": "b", "footprint": [8, 24], "touched_bytes": 16, "dense": True, "numel": 4}]
    >>> r = {}
    >>> account_bytes(r, vs, [{"a": "a", "b": "b", "shared_bytes": 8}])
    >>> r["union_bytes"], [(v["exclusive_bytes"], v["shared_bytes"]) for v in vs]
    (24, [(8, 8), (8, 8)])
    """
    pair = {}
    for o in overlaps:
        pair[(o["a"], o["b"])] = pair[(o["b"], o["a"])] = o["shared_bytes"]
    union, notes = 0, []
    for v in views:
        v["ownership_note"] = ""
    for group in _groups(views, overlaps, complete):
        n, note = _account_group(group, pair)
        union = None if n is None or union is None else union + n
        if note and note not in notes:
            notes.append(note)
    for v in views:
        t, e = v["touched_bytes"], v["exclusive_bytes"]
        v["shared_bytes"] = t - e if t is not None and e is not None else None
        if e is None and not v["ownership_note"]:
            v["ownership_note"] = "too many elements to count" if t is None else "too costly to count"
    sizes = [v["touched_bytes"] for v in views]
    region["union_bytes"] = union
    region["union_note"] = "; ".join(notes) if union is None else ""
    region["touched_sum"] = None if None in sizes else sum(sizes)


# ====================================================================== reading memory
def read_memory(addr, n):
    """``n`` bytes at ``addr``. The caller guarantees the memory is alive (a live owner spans it)."""
    if n <= 0:
        return b""
    return ctypes.string_at(addr, n)


# ====================================================================== resolving objects
_NP_NAMES = {"b1": "bool"}


def _is_pytensor(obj):
    pt = sys.modules.get("pytensor")
    return pt is not None and isinstance(obj, pt.Tensor)


def _tensor_base(obj):
    """The class whose own methods read ``obj``'s layout: pytensor's Tensor, or
    torch's C tensor base for torch tensors (a subclass may override
    ``untyped_storage``, ``stride`` or ``shape`` and describe memory it does
    not hold, and the snapshot reads the bytes it is told about). None for
    anything else, however tensor-like it looks."""
    if _is_pytensor(obj):
        return sys.modules["pytensor"].Tensor
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(obj, torch.Tensor):
        return torch._C.TensorBase
    return None


def _device_str(dev):
    s = str(dev)
    return _HOST if s in ("cpu", "cpu:0") else s


def resolve(obj, holds=None, work=None):
    """Describe one tensor, ndarray or buffer as a plain dict (the dict keeps no references).

    The dict has the view's layout in bytes (``addr0``, ``bstrides``), its
    ``source`` (the memory owner that keeps its bytes alive, with badges) and
    the span ``[span_lo, span_hi)`` of absolute addresses that owner covers.

    A buffer object's address is only valid while someone holds an export
    of it (a ``bytearray`` can be resized and an ``mmap`` closed the moment
    nobody does). ``holds``, a list, receives the exports made here: keep it
    until the bytes have been read, and they cannot move meanwhile.
    ``work`` (a ``_pairs.Work``, one per picture) bounds and remembers the
    residency questions asked of mapped files.
    """
    if holds is None:
        holds = []
    if work is None:
        work = Work()
    if _tensor_base(obj) is not None:
        return _resolve_tensor(obj, work)
    np = sys.modules.get("numpy")
    if np is None:
        import numpy as np
    if isinstance(obj, np.ndarray):
        return _resolve_ndarray(obj, "ndarray", holds, work=work)
    try:
        arr = _buffer_array(obj)
    except (TypeError, ValueError, BufferError) as e:
        raise TypeError(f"the inspector draws pytensor tensors, NumPy arrays and buffer objects "
                        f"(bytes, bytearray, memoryview, array.array, mmap), not {type(obj).__name__}: {e}") from None
    holds.append(arr)
    d = _resolve_ndarray(arr, "buffer", holds, owner=_exporter(obj), work=work)
    d["type"] = type(obj).__name__
    return d


def _buffer_array(obj):
    import numpy as np
    if isinstance(obj, memoryview) or type(obj).__name__ == "array":
        return np.asarray(memoryview(obj))
    return np.frombuffer(obj, dtype=np.uint8)


def _dtype_name(dt):
    name = getattr(dt, "name", None) or str(dt)
    return name.rsplit(".", 1)[-1]


def _resolve_tensor(t, work):
    base = _tensor_base(t)
    st = base.untyped_storage(t)
    dt = base.dtype.__get__(t)
    isz = int(base.element_size(t))
    strides = tuple(int(s) for s in base.stride(t))
    shape = tuple(int(n) for n in base.shape.__get__(t))
    offset = int(base.storage_offset(t))
    s_addr = int(st.data_ptr())
    dev = _device_str(getattr(st, "device", None) or base.device.__get__(t))
    prov = getattr(st, "provenance", None)
    readonly = bool(st.is_readonly()) if hasattr(st, "is_readonly") else False
    src = {
        # pytensor storages are stable objects; torch makes a new wrapper per call, so use the address
        "key": f"storage:{dev}:{s_addr:x}:{int(st.nbytes()):x}:{id(st) if _is_pytensor(t) else 0:x}",
        "kind": "storage",
        "provenance": prov or ("torch" if type(t).__module__.startswith("torch") else "foreign"),
        "label": getattr(st, "label", "") or "",
        "readonly": readonly,
        "refcount": getattr(st, "refcount", None),
        "version": getattr(st, "version", None),
        "device": dev,
        "type": f"{type(st).__module__.split('.')[0]}.{type(st).__name__}",
    }
    nbytes = int(st.nbytes())
    # read before build() reads any preview bytes, so the picture shows what the program pulled in
    src["file"] = file_info(st, s_addr, s_addr + nbytes, work)
    # how it was made: its provenance node (a tuple holding no tensor; see pytensor/_provenance.py)
    lineage_src = {"node": sys.modules["pytensor"]._provenance.node(t), "id": id(t)} if _is_pytensor(t) else None
    return {
        "lineage_src": lineage_src,
        "kind": "tensor",
        "type": f"{type(t).__module__.split('.')[0]}.{type(t).__name__}",
        "dtype": _dtype_name(dt),
        "itemsize": isz,
        "endian": "<" if sys.byteorder == "little" else ">",
        "shape": shape,
        "strides": strides,
        "bstrides": tuple(s * isz for s in strides),
        "addr0": s_addr + offset * isz,
        "device": dev,
        "readonly": readonly,
        "version": src["version"],
        "contiguous": bool(base.is_contiguous(t)),
        "span_lo": s_addr, "span_hi": s_addr + nbytes,
        "source": src,
    }


def _plain(arr):
    """``arr`` as a plain ndarray over the same memory: an ndarray subclass may override
    ``__array_interface__``, ``shape`` or ``strides`` and describe memory it does not hold, so
    every layout fact is read through NumPy's own getters."""
    import numpy as np
    return arr if type(arr) is np.ndarray else np.ndarray.view(arr, np.ndarray)


def _nd_base(arr):
    import numpy as np
    return np.ndarray.base.__get__(arr)


def _owner_of(arr):
    """Walk ``arr.base`` to the first object that is not an ndarray: ``(root_array, owner or None)``.

    Steps through NumPy's stride-trick holders (objects with an
    ``__array_interface__`` and an ndarray ``base``) and through memoryviews
    to the object that exported the buffer.
    """
    import numpy as np
    root, owner = arr, _nd_base(arr)
    for _ in range(1000):
        if isinstance(owner, np.ndarray):
            root, owner = owner, _nd_base(owner)
        elif hasattr(owner, "__array_interface__") and isinstance(getattr(owner, "base", None), np.ndarray) \
                and not _is_pytensor(owner):
            root, owner = owner.base, owner.base.base
        else:
            break
    return root, _exporter(owner)


def _exporter(obj):
    """The object behind a memoryview (``mv.obj``), repeatedly; ``obj`` itself otherwise."""
    while isinstance(obj, memoryview) and obj.obj is not None:
        obj = obj.obj
    return obj


def _resolve_ndarray(arr, kind, holds, owner=None, work=None):
    given = arr
    named_root, base_owner = _owner_of(arr)
    arr, root = _plain(arr), _plain(named_root)
    ai = arr.__array_interface__
    addr0 = int(ai["data"][0])
    readonly = bool(ai["data"][1])
    isz = arr.dtype.itemsize
    shape = tuple(int(n) for n in arr.shape)
    bstrides = tuple(int(s) for s in arr.strides)
    if owner is None:
        owner = base_owner
    src = None
    if owner is not None and _is_pytensor(owner):
        inner = _resolve_tensor(owner, work)
        src, lo, hi = inner["source"], inner["span_lo"], inner["span_hi"]
    elif owner is not None:
        try:
            ob = _buffer_array(owner) if not hasattr(owner, "__array_interface__") else None
        except (TypeError, ValueError, BufferError):
            ob = None
        if ob is not None:
            holds.append(ob)
        if ob is not None and ob.size:
            lo = int(ob.__array_interface__["data"][0])
            hi = lo + ob.nbytes
            ro = bool(ob.__array_interface__["data"][1])
        else:
            rai = root.__array_interface__
            lo, hi = footprint(root.shape, root.strides, root.dtype.itemsize, int(rai["data"][0]))
            ro = bool(rai["data"][1])
        tname = type(owner).__name__
        if type(owner).__module__ not in ("builtins", "mmap", None):
            tname = f"{type(owner).__module__.split('.')[0]}.{tname}"
        label = tname
        if tname == "PyCapsule":      # np.from_dlpack's base: the producer's memory, held by the capsule
            label = "capsule"
        if getattr(named_root, "filename", None):       # np.memmap knows its file and mode
            label = f"{named_root.filename} ({getattr(named_root, 'mode', '?')})"
        src = {"key": f"owner:{lo:x}:{id(owner):x}", "kind": "owner", "provenance": _owner_provenance(owner),
               "label": label, "readonly": ro, "refcount": None, "version": None, "device": _HOST,
               "type": tname}
    else:
        rai = root.__array_interface__
        lo, hi = footprint(root.shape, root.strides, root.dtype.itemsize, int(rai["data"][0]))
        src = {"key": f"owner:{lo:x}:{id(root):x}", "kind": "owner", "provenance": "numpy",
               "label": "numpy.ndarray (owns its data)", "readonly": bool(rai["data"][1]), "refcount": None,
               "version": None, "device": _HOST, "type": "numpy.ndarray"}
    bo = arr.dtype.byteorder
    return {
        "lineage_src": _nd_lineage_src(given) if kind == "ndarray" else None,
        "kind": kind,
        "type": "numpy.ndarray",
        "dtype": _NP_NAMES.get(arr.dtype.str[1:], arr.dtype.name),
        "itemsize": isz,
        "endian": {">": ">", "<": "<"}.get(bo, "<" if sys.byteorder == "little" else ">"),
        "shape": shape,
        "strides": tuple(s // isz for s in bstrides) if isz and all(s % isz == 0 for s in bstrides) else None,
        "bstrides": bstrides,
        "addr0": addr0,
        "device": _HOST,
        "readonly": readonly,
        "version": None,
        "contiguous": bool(arr.flags.c_contiguous),
        "span_lo": lo, "span_hi": hi,
        "source": src,
    }


def _nd_lineage_src(arr):
    """What the model needs to tell how an ndarray was made, without keeping
    anything alive: ``(id, shape, type text)`` of the array and of each
    ``.base`` after it (NumPy records no operation, only the base, and
    collapses view-of-view chains to the owner). The ids serve only to
    match inspected objects that are alive while the snapshot is built."""
    import numpy as np
    steps, obj = [], arr
    while obj is not None and len(steps) < _MAX_STEPS:
        if not isinstance(obj, np.ndarray):
            obj = _exporter(obj)          # a memoryview's own exporter: the bytearray, the mmap
            steps.append((id(obj), None, _type_text(obj)))
            break
        steps.append((id(obj), tuple(int(n) for n in np.ndarray.shape.__get__(obj)), "ndarray"))
        obj = _nd_base(obj)
    return {"nd": steps}


def _type_text(obj):
    tp = type(obj)
    mod = (tp.__module__ or "").split(".")[0]
    return tp.__name__ if mod in ("builtins", "numpy", "mmap", "") else f"{mod}.{tp.__name__}"


def _owner_provenance(owner):
    name = type(owner).__name__
    if name in ("bytes", "bytearray", "memoryview", "array"):
        return "buffer"
    if name == "mmap":
        return "file"
    if name == "PyCapsule" or hasattr(owner, "__dlpack__"):
        return "dlpack"
    return "foreign"


# ====================================================================== building the snapshot
def _badges(src):
    """Provenance / lifetime badges for one source, as ``{"kind", "text", "title"}`` dicts."""
    prov, label = src["provenance"], src["label"]
    out = []
    if src["kind"] == "storage":
        text = {
            "owned": "owned by pytensor",
            "numpy": "NumPy",
            "buffer": f"{label or 'buffer'}" + (" (read-only)" if src["readonly"] else ""),
            "file": f"file {label}".strip(),
            "dlpack": (label if label.lower().startswith("dlpack") else f"DLPack {label}".strip())
            + (f" on {src['device']}" if src["device"] else ""),
            "foreign": label or "foreign",
            "torch": "torch storage",
        }.get(prov, prov)
        out.append({"kind": prov, "text": text,
                    "title": f"{src['type']} at this address; provenance {prov}" + (f", {label}" if label else "")})
    else:
        text = {"buffer": label + (" (read-only)" if src["readonly"] else ""),
                "file": f"file {label}" if label != src["type"] else f"{label} (mapped file)",
                "dlpack": f"DLPack {label}"}.get(prov, label)
        title = f"owner object: {src['type']}"
        if src["type"] == "PyCapsule":
            title += " (a DLPack capsule: it keeps the producer's memory alive for as long as this array lives)"
        out.append({"kind": prov, "text": text, "title": title})
    return out


def _lifetime_badges(sources):
    """C refcount and write-counter badges (one number per pytensor storage), and the lock."""
    out = []
    storages = [s for s in sources if s["kind"] == "storage"]
    if len(storages) > 1:
        out.append({"kind": "storages", "text": f"{len(storages)} storages",
                    "title": "; ".join(f"{s['type']} over bytes [{s['byte_offset']}, {s['byte_offset'] + s['nbytes']})"
                                       for s in storages)})
    refs = [s["refcount"] for s in storages if s.get("refcount") is not None]
    if refs:
        out.append({"kind": "refs", "text": "refs " + "+".join(map(str, refs)),
                    "title": "libtensor reference count of each storage: Python wrappers, DLPack exports, "
                             "C users"})
    versions = [s["version"] for s in storages if s.get("version") is not None]
    if versions:
        out.append({"kind": "version", "text": "writes " + "+".join(map(str, versions)),
                    "title": "each storage's write counter, bumped by every write through pytensor"})
    if sources and all(s["readonly"] for s in sources):
        out.append({"kind": "lock", "text": "read-only", "title": "writes through any alias are refused"})
    return out


def _merge_spans(spans):
    """Group ``(device, lo, hi, i)`` spans into regions by address overlap; returns lists of ``i``."""
    groups = []
    by_dev = {}
    for dev, lo, hi, i in spans:
        by_dev.setdefault(dev, []).append((lo, hi, i))
    for dev in sorted(by_dev):
        cur = None
        for lo, hi, i in sorted(by_dev[dev], key=lambda x: (x[0], -x[1])):
            if cur is not None and (lo < cur[1] or lo == cur[0]):
                cur[1] = max(cur[1], hi)
                cur[2].append(i)
            else:
                cur = [lo, hi, [i]]
                groups.append((dev, cur))
    return [(dev, lo, hi, members) for dev, (lo, hi, members) in groups]


def _intervals_intersect(known, lo, hi):
    out = []
    for a, b in known:
        a, b = max(a, lo), min(b, hi)
        if a < b:
            out.append([a, b])
    return out


def _union(iv):
    out = []
    for a, b in sorted(iv):
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out


def build(items, windows=None, preview_bytes=PREVIEW_BYTES, read=True, gone=(), work=None):
    """Turn resolved items into ``(snapshot dict, previews bytes)``.

    ``items`` are ``(view_id, name, resolved_dict)`` triples (``resolve``'s
    output); ``windows`` maps a region id to the first byte of its preview
    window; ``gone`` lists ``{"name", "note"}`` dicts for views that died;
    ``work`` (a ``_pairs.Work``) receives counts of the work done.
    """
    windows = windows or {}
    work = work if work is not None else Work()
    spans = []
    for i, (_, _, it) in enumerate(items):
        lo, hi = footprint(it["shape"], it["bstrides"], it["itemsize"], it["addr0"])
        it["_fp_abs"] = (lo, hi)
        spans.append((it["device"], min(it["span_lo"], lo) if hi > lo else it["span_lo"],
                      max(it["span_hi"], hi), i))
    regions, views, blob = [], [], bytearray()
    lineages = _lineages(items)
    for dev, r_lo, r_hi, members in _merge_spans(spans):
        rid = f"r{r_lo:x}" if dev == _HOST else f"r{dev.replace(':', '')}-{r_lo:x}"
        sources, known = {}, []
        for i in members:
            src = items[i][2]["source"]
            sources.setdefault(src["key"], dict(src, byte_offset=items[i][2]["span_lo"] - r_lo,
                                                nbytes=items[i][2]["span_hi"] - items[i][2]["span_lo"]))
            # only spans whose owner the caller holds right now may be read
            if dev == _HOST and items[i][2].get("span_live", True):
                known.append([items[i][2]["span_lo"] - r_lo, items[i][2]["span_hi"] - r_lo])
        known = _union(known)
        rviews = []
        for i in members:
            vid, name, it = items[i]
            v = _view_dict(vid, name, it, r_lo, rid)
            v.update(lineages[vid])
            v["in_bounds"] = any(a <= v["footprint"][0] and v["footprint"][1] <= b for a, b in known) \
                or v["numel"] == 0 or dev != _HOST
            rviews.append(v)
        nbytes = r_hi - r_lo
        r = {"id": rid, "addr": f"0x{r_lo:x}", "nbytes": nbytes, "device": dev, "host": dev == _HOST,
             "sources": [], "badges": [], "views": [v["id"] for v in rviews]}
        seen = set()
        for src in sources.values():
            r["sources"].append({k: src[k] for k in ("kind", "provenance", "label", "readonly", "refcount",
                                                      "version", "device", "type", "byte_offset", "nbytes")})
            for b in _badges(src):
                if b["text"] not in seen:
                    seen.add(b["text"])
                    r["badges"].append(b)
        r["badges"] += _lifetime_badges(r["sources"])
        r["readonly"] = all(s["readonly"] for s in r["sources"])
        r["file"] = next((in_region(s["file"], s["byte_offset"]) for s in sources.values() if s.get("file")), None)
        versions = [s["version"] for s in r["sources"] if s["version"] is not None]
        r["version"] = sum(versions) if versions else None
        # the preview window: where the views are, bounded, and only over live memory
        if nbytes <= preview_bytes:
            w0 = 0
        elif rid in windows:
            w0 = int(windows[rid])
        else:
            fps = [v["footprint"][0] for v in rviews if v["numel"]]
            w0 = (min(fps) // 64) * 64 if fps else 0
        w0 = max(0, min(w0, max(0, nbytes - preview_bytes)))
        w1 = min(nbytes, w0 + preview_bytes)
        chunk = bytearray(w1 - w0)
        have = _intervals_intersect(known, w0, w1) if (read and dev == _HOST) else []
        if r["file"] is not None and r["file"]["resident"] is not None:
            # read only pages already in RAM: looking must not pull a page of the file in
            have = [x for a, b in r["file"]["resident"] for x in _intervals_intersect(have, a, b)]
        for a, b in have:
            chunk[a - w0:b - w0] = read_memory(r_lo + a, b - a)
        r["preview"] = {"start": w0, "length": w1 - w0, "pos": len(blob), "known": have}
        blob += chunk
        regions.append(r)
        views.extend(rviews)
    order = {it[0]: k for k, it in enumerate(items)}
    views.sort(key=lambda v: order[v["id"]])
    regions.sort(key=lambda r: min(order[i] for i in r["views"]))
    vmap = {v["id"]: v for v in views}
    overlaps = []
    for r in regions:
        overlaps.extend(_region_overlaps(r, vmap, order, work))
    by_region = {}
    for o in overlaps:
        by_region.setdefault(o["region"], []).append(o)
    for r in regions:
        account_bytes(r, [vmap[i] for i in r["views"]], by_region.get(r["id"], []),
                      complete=r["overlaps_total"] == len(by_region.get(r["id"], [])))
    # with whom each view shares, in picture order (how many bytes: the pair's entry in overlaps)
    partners = {v["id"]: [] for v in views}
    for o in overlaps:
        if o["shared_bytes"] != 0:
            partners[o["a"]].append(o["b"])
            partners[o["b"]].append(o["a"])
    for v in views:
        v["overlaps_with"] = sorted(partners[v["id"]], key=order.__getitem__)
    snap = {"version": SNAPSHOT_VERSION, "byteorder": sys.byteorder, "regions": regions, "views": views,
            "overlaps": overlaps, "gone": list(gone), "preview_bytes": preview_bytes}
    return snap, bytes(blob)


def _region_overlaps(r, vmap, order, work):
    """The overlap dicts of region ``r``, and its ``overlaps_total``/``overlaps_note``.

    Every pair is counted (by sorting footprints, no pair visited); pairs are listed only
    among the region's first views in the inspected order, as many as ``MAX_PAIRS`` allows, and
    their shared bytes counted element by element only while ``work`` allows it.
    """
    views = sorted((vmap[i] for i in r["views"]), key=lambda v: order[v["id"]])
    k, total = listed_prefix([tuple(v["footprint"]) for v in views], MAX_PAIRS - work.pairs_listed)
    rank = {i: n for n, i in enumerate(r["views"])}
    found = []
    for p, q in meeting_pairs(views[:k], work):
        a, b = (p, q) if rank[p["id"]] < rank[q["id"]] else (q, p)
        lo, hi = max(a["footprint"][0], b["footprint"][0]), min(a["footprint"][1], b["footprint"][1])
        found.append((rank[a["id"]], rank[b["id"]], {"region": r["id"], "a": a["id"], "b": b["id"],
                                                     "lo": lo, "hi": hi, "shared_bytes": _shared(a, b, work)}))
    found.sort(key=lambda f: f[:2])
    work.pairs_listed += len(found)
    r["overlaps_total"] = total
    r["overlaps_note"] = "" if len(found) == total else (
        f"too many overlapping pairs to list: showing {len(found):,} of {total:,} "
        f"(those among its first {k:,} of {len(views):,} views)")
    return [f[2] for f in found]


# ====================================================================== lineage: how each view was made
_MAX_STEPS = 16              # steps of a chain followed
LINEAGE_TEXT_MAX = 160       # characters of lineage_text; a longer chain loses its middle steps to "…"
_SHARING_CONSTRUCTORS = ("from_numpy", "asarray", "as_tensor", "frombuffer", "from_dlpack")


def _lineages(items):
    """``{view id: {"lineage", "lineage_text", "origin"}}`` for ``build``'s items.

    Parents are named by the inspected objects they are: a pytensor parent
    by its provenance node (the same tuple object its children point at),
    an ndarray base by ``id()`` (every inspected object is alive while its
    item is resolved), and the object a constructor read by address
    (``from_numpy(a)`` wraps the memory at ``a``'s first byte; a copy records
    the address it copied from).
    """
    node_names, obj_names, addr_names = {}, {}, {}
    for _, name, it in items:
        src = it.get("lineage_src") or {}
        if "node" in src:
            node_names.setdefault(id(src["node"]), name)
            obj_names.setdefault(src["id"], name)
        else:
            if src.get("nd"):
                obj_names.setdefault(src["nd"][0][0], name)
            addr_names.setdefault(it["addr0"], name)
    out = {}
    for vid, name, it in items:
        src = it.get("lineage_src") or {}
        if "node" in src:
            steps, origin = _tensor_lineage(name, it, src["node"], node_names, addr_names)
        elif src.get("nd"):
            steps, origin = _ndarray_lineage(name, src["nd"], obj_names)
        else:
            steps, origin = [], None
        out[vid] = {"lineage": steps, "lineage_text": lineage_text(steps), "origin": origin}
    return out


def _tensor_lineage(name, it, node, node_names, addr_names):
    prov = sys.modules["pytensor"]._provenance
    nodes = prov.chain(node, _MAX_STEPS)
    while nodes and not prov.OPS[nodes[-1][0]]:       # steps nobody recorded (recording was off)
        nodes.pop()
    if not nodes:
        return [], None
    names = _Named(node_names, id(nodes[0]), name)
    root = nodes[-1]
    source = None   # the inspected object the oldest step read, by the address of its first byte
    if root[2] is None:
        addr = prov.source(root)[1]
        if addr is None and prov.OPS[root[0]] in _SHARING_CONSTRUCTORS:
            addr = it["span_lo"]      # a shared source starts where the storage does
        source = addr_names.get(addr)
    texts = prov.inline_refs(nodes, names, source)
    steps = [{"name": name if i == 0 else names.get(id(n)), "expr": texts[i]} for i, n in enumerate(nodes)]
    return steps, _tensor_origin(prov, nodes, texts, names, source)


class _Named:
    """``names`` with one more entry, ``key: name``, without copying ``names`` (10^4 views, 10^4 names):
    what provenance's text functions read of a names dict (``in``, ``[]``) and ``get``."""

    def __init__(self, names, key, name):
        self._names, self._key, self._name = names, key, name

    def get(self, k, default=None):
        return self._name if k == self._key else self._names.get(k, default)

    def __getitem__(self, k):
        return self._name if k == self._key else self._names[k]

    def __contains__(self, k):
        return k == self._key or k in self._names


def _tensor_origin(prov, nodes, texts, names, source):
    shared, why = prov.origin(nodes[0])
    if shared is None:
        return None
    op, arg = prov.OPS[nodes[0][0]], nodes[0][1]
    if op == "from_file":
        return {"shared": True, "text": f"shares the bytes of {arg[0]} (mapped {'shared' if arg[1] else 'private'})"}
    if not shared:
        return _copied_from(prov, nodes, texts, names, source, 0, why)
    # A view of an unnamed copy (grid.T.reshape(12) is grid.T.contiguous().view(12)) holds bytes that
    # copy made: say where they were copied from, as seen from the nearest inspected ancestor.
    for k in range(1, len(nodes)):
        if names.get(id(nodes[k])) is not None:
            break
        copied, why_k = prov.origin(nodes[k])
        if copied is None:
            break
        if copied is False:
            return _copied_from(prov, nodes, texts, names, source, k, why_k)
    return {"shared": True, "text": f"shares {_ref(prov, nodes, texts, names, source, 0)}'s bytes"}


def _ref(prov, nodes, texts, names, source, k):
    """How step k's source is named in an origin: its parent's name or text, or the source read."""
    ref = prov.parent_ref(nodes, texts, k, names) if nodes[k][2] is not None else \
        (source if k == len(nodes) - 1 and source else prov.source_text(nodes[k]))
    if ref == "…" or ref == "?":
        ref = "its parent" if nodes[k][2] is not None else "its source"
    return ref


def _copied_from(prov, nodes, texts, names, source, k, why):
    return {"shared": False, "text": f"copied from {_ref(prov, nodes, texts, names, source, k)}"
                                     + (f" ({why})" if why else "")}


def _dims(shape):
    return "×".join(str(n) for n in shape) if shape else "scalar"


def _ndarray_lineage(name, nd, obj_names):
    """NumPy records no operation: each step is "view of <base>" with the shapes."""
    steps = []
    for i, (oid, shape, kind) in enumerate(nd):
        step_name = name if i == 0 else obj_names.get(oid)
        if i + 1 < len(nd):
            pid, pshape, pkind = nd[i + 1]
            ref = obj_names.get(pid) or pkind
            expr = f"view of {ref} ({_dims(pshape)} → {_dims(shape)})" if pshape is not None \
                else f"over {ref}'s bytes"
        elif step_name is None:
            break          # an unnamed owner: the step before already says what it is
        else:
            expr = None    # the owner of its bytes (or a foreign exporter): nothing before it
        steps.append({"name": step_name, "expr": expr})
    if len(nd) < 2:
        return [], None
    base = nd[1]
    return steps, {"shared": True, "text": f"shares {obj_names.get(base[0]) or base[2]}'s bytes"}


def _step_text(step):
    if step["name"] and step["expr"] and step["name"] != step["expr"]:
        return f"{step['name']} = {step['expr']}"
    return step["expr"] or step["name"] or "?"


def lineage_text(steps, limit=LINEAGE_TEXT_MAX):
    """The lineage as one line, ``"col = grid[:, 2] ← grid = base.view(3, 4) ← base = arange(12)"``;
    past ``limit`` characters the middle steps become "…" (the first and last stay).

    >>> lineage_text([{"name": "v", "expr": "a[1:]"}, {"name": "a", "expr": None}])
    'v = a[1:] ← a'
    """
    parts = [_step_text(s) for s in steps]
    parts = [p if len(p) <= limit // 2 else p[:limit // 2 - 1] + "…" for p in parts]
    text = " ← ".join(parts)
    if len(text) <= limit:
        return text
    head, tail = [parts[0]], [parts[-1]]
    growing = {"head": True, "tail": True}        # a side stops at its first step that does not fit
    for k in range(1, len(parts) - 1):            # keep what fits from both ends, newest first
        for side, part in (("head", parts[k]), ("tail", parts[-1 - k])):
            fits = len(" ← ".join(head + ["…"] + tail)) + len(part) + 3 <= limit
            if not (growing[side] and fits and len(head) + len(tail) < len(parts) - 1):
                growing[side] = False
            elif side == "head":
                head.append(part)
            else:
                tail.insert(0, part)
    return " ← ".join(head + ["…"] + tail)


@functools.lru_cache(maxsize=1 << 16)  # 500 views of one buffer make ~6,000 overlapping pairs
def _shared_cached(sa, sb):
    a = dict(zip(_SHARED_KEYS, sa))
    b = dict(zip(_SHARED_KEYS, sb))
    return shared_bytes(a, b)


_SHARED_KEYS = ("shape", "bstrides", "itemsize", "byte_offset", "footprint", "touched_bytes", "dense", "numel")


def _shared(a, b, work):
    """``shared_bytes`` of two view dicts, counted element by element only while ``work`` allows."""
    def key(v):
        return (tuple(v["shape"]), tuple(v["bstrides"]), v["itemsize"], v["byte_offset"], tuple(v["footprint"]),
                v["touched_bytes"], v["dense"], v["numel"])
    n = shared_bytes(a, b, count=False)
    if n is not _COSTLY:
        return n
    lo, hi = max(a["footprint"][0], b["footprint"][0]), min(a["footprint"][1], b["footprint"][1])
    if not work.may_count(a["numel"] * a["itemsize"] + b["numel"] * b["itemsize"] + 2 * (hi - lo)):
        return None
    return _shared_cached(key(a), key(b))


def _view_dict(vid, name, it, r_lo, rid):
    shape, bstrides, isz = it["shape"], it["bstrides"], it["itemsize"]
    off = it["addr0"] - r_lo
    lo, hi = it["_fp_abs"][0] - r_lo, it["_fp_abs"][1] - r_lo
    touched, hits, exact = layout_stats(shape, bstrides, isz)
    count = numel(shape)
    badge = _badges(it["source"])[0]
    return {
        "id": vid, "name": name, "kind": it["kind"], "type": it["type"], "region": rid,
        "dtype": it["dtype"], "itemsize": isz, "endian": it["endian"],
        "shape": list(shape), "strides": list(it["strides"]) if it["strides"] is not None else None,
        "bstrides": list(bstrides), "byte_offset": off,
        "storage_offset": (it["addr0"] - it["span_lo"]) // isz if isz else 0,
        "footprint": [lo, hi], "numel": count, "nbytes": count * isz,
        "touched_bytes": touched, "max_hits": hits, "exact": exact,
        "self_overlap": (hits > 1) if exact else None,
        "dense": bool(exact and hits <= 1 and touched == hi - lo),
        "contiguous": it["contiguous"], "readonly": it["readonly"], "version": it["version"],
        # the badge of the memory owner this object came through (a buffer can have several)
        "provenance": badge["text"], "provenance_kind": badge["kind"],
        "tags": idiom_tags(shape, bstrides, isz, hits) + ([] if exact else ["maybe overlapping"]),
        # "temporary": the view object is gone and its bytes are not; drawn from its layout record
        "status": it.get("status", "live"),
        "note": it.get("note", ""),
    }


def snapshot(*objs, names=None, windows=None, preview_bytes=PREVIEW_BYTES, work=None):
    """One-shot model of ``objs``: ``(snapshot dict, previews bytes)``; keeps no reference.
    ``work`` (a ``_pairs.Work``) receives counts of the work done, for tests and benchmarks."""
    names = list(names) if names is not None else [f"#{i}" for i in range(len(objs))]
    if len(names) != len(objs):
        raise ValueError(f"got {len(objs)} objects but {len(names)} names")
    holds = []      # buffer exports, held until build() has read the bytes
    work = work if work is not None else Work()
    items = [(f"v{i}", names[i], resolve(o, holds, work)) for i, o in enumerate(objs)]
    return build(items, windows=windows, preview_bytes=preview_bytes, work=work)
