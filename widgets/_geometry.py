"""Layout geometry in bytes: footprints, the elements in a byte window, touched bytes and idioms.

The layout rules (extent, contiguity, element count) are libtensor's, asked
through ``pytensor._layout``; what is here is the inspector's own counting
built on them. It is the Python twin of the renderer's geometry
(``elementsInWindow`` in the JS); both are checked against
``tests/layout_vectors.json``.
"""
from __future__ import annotations

import functools

from pytensor._inspect_api import byte_extent, is_contiguous, numel

__all__ = ["EXACT_LIMIT", "MASK_LIMIT", "footprint", "elements_in_window", "Elements", "layout_stats", "idiom_tags",
           "shared_bytes", "offsets"]

EXACT_LIMIT = 1 << 22     # views with more elements get counted by layout rules only
MASK_LIMIT = 1 << 26      # largest byte range we build a boolean mask over

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


def offsets(shape, bstrides, base=0):
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
    starts = offsets(shape, bstrides)
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


COSTLY = object()       # shared_bytes(count=False): the rules do not settle it, counting would


def shared_bytes(a, b, count=True):
    """Exact count of bytes both views touch, or None when too costly to count.

    ``a`` and ``b`` are view dicts (``shape``, ``bstrides``, ``itemsize``,
    ``byte_offset``, ``footprint``, ``touched_bytes``) in the same region.
    With ``count=False`` it answers only what layout rules settle and returns
    ``COSTLY`` where it would walk the elements.
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
        return COSTLY
    import numpy as np
    masks = []
    for v in (a, b):
        mask = np.zeros(hi - lo, dtype=bool)
        starts = offsets(v["shape"], v["bstrides"], v["byte_offset"]) - lo
        for k in range(v["itemsize"]):
            pos = starts + k
            pos = pos[(pos >= 0) & (pos < hi - lo)]
            mask[pos] = True
        masks.append(mask)
    return int(np.count_nonzero(masks[0] & masks[1]))
