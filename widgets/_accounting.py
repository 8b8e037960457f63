"""Who owns what: per view the bytes no other view reads, per buffer the bytes all its views read.

How many bytes each view reaches alone, and how many distinct bytes all of a
buffer's views reach together (each byte once, however many views read it).
Views are split into groups that share bytes (footprints meet and the pair
count is not 0). Layout rules answer most groups at once (a view inside a
dense view's footprint owns nothing alone); the rest are counted exactly by
a sweep over each view's touched intervals, when that is cheap.
"""
from __future__ import annotations

import bisect

from . import _geometry
from ._geometry import offsets

__all__ = ["ACCOUNT_EVENTS", "account_bytes"]

ACCOUNT_EVENTS = 1 << 21   # element starts the sweeps of one buffer may sort together; beyond, the numbers are unknown
# (2**21 starts sort and sweep in about 0.2 s; 2**23 took 1.6 s on a busy machine, for 1,000 strided views)


def _touched_intervals(v):
    """A view's touched bytes as sorted, disjoint, non-adjacent ``(starts, ends)`` arrays.

    The caller bounds ``numel`` for views that are not dense.
    """
    import numpy as np
    lo, hi = v["footprint"]
    if v["dense"] or v["numel"] == 0:
        return np.array([lo] if hi > lo else [], np.int64), np.array([hi] if hi > lo else [], np.int64)
    s = np.sort(offsets(v["shape"], v["bstrides"], v["byte_offset"]))     # np.unique hashes: far slower
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


def _account_group(group, pair, budget):
    """Exclusive bytes of each view in ``group`` and the group's union: ``(union, note)``. ``budget[0]``
    is what is left of the buffer's ``ACCOUNT_EVENTS``; an exact sweep spends it."""
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
    return _count_group(group, union, budget)


def _count_group(group, union, budget):
    """The exact sweep over countable views; views too large to walk get what the rules allow."""
    big = [v for v in group if not v["dense"] and v["numel"] > _geometry.EXACT_LIMIT]
    work = sum(v["numel"] for v in group if not v["dense"])
    if work - sum(v["numel"] for v in big) > budget[0]:
        why = f"these views have {work:,} elements together, too many to count"
        for v in group:
            if v["exclusive_bytes"] is None:
                v["ownership_note"] = why
        return union, "" if union is not None else why
    budget[0] -= work - sum(v["numel"] for v in big)
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
    budget = [ACCOUNT_EVENTS]          # one buffer's sweeps together, so the picture's work is bounded
    for group in _groups(views, overlaps, complete):
        n, note = _account_group(group, pair, budget)
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
