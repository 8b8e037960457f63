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

import functools
import sys

from pytensor._inspect_api import numel

from ._accounting import account_bytes
from ._badges import badges as _badges
from ._badges import lifetime_badges as _lifetime_badges
from ._files import in_region, joined, merged_info
from ._geometry import COSTLY, elements_in_window, footprint, idiom_tags, layout_stats, shared_bytes
from ._lineage import lineages as _lineages
from ._identity import mappings as _mappings
from ._identity import read_mapped, region_id, region_identity, source_identity, space
from ._objects import read_memory, resolve
from ._pairs import MAX_PAIRS, Work, listed_prefix, meeting_pairs
from ._processes import annotate as _annotate_processes
from ._schema import HOST as _HOST
from ._schema import PREVIEW_BYTES, SNAPSHOT_VERSION

# Names the package's older callers and tests reach through this module; each is defined in the module named.
from ._accounting import ACCOUNT_EVENTS, _inside, _inside_another_dense  # noqa: E402,F401
from ._geometry import EXACT_LIMIT, MASK_LIMIT, Elements, _is_row_major  # noqa: E402,F401
from ._lineage import LINEAGE_TEXT_MAX, lineage_text  # noqa: E402,F401
from ._schema import OVERLAP_KEYS, REGION_KEYS, SOURCE_KEYS, VIEW_KEYS  # noqa: E402,F401

__all__ = [
    "PREVIEW_BYTES", "snapshot", "resolve", "build", "footprint", "elements_in_window", "layout_stats",
    "idiom_tags", "shared_bytes", "account_bytes", "read_memory",
]


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


def build(items, windows=None, preview_bytes=PREVIEW_BYTES, read=True, gone=(), work=None):
    """Turn resolved items into ``(snapshot dict, previews bytes)``.

    ``items`` are ``(view_id, name, resolved_dict)`` triples (``resolve``'s
    output); ``windows`` maps a region id to the first byte of its preview
    window; ``gone`` lists ``{"name", "note"}`` dicts for views that died;
    ``work`` (a ``_pairs.Work``) receives counts of the work done.
    """
    windows = windows or {}
    work = work if work is not None else Work()
    spans, shifts = [], []
    for i, (_, _, it) in enumerate(items):
        lo, hi = footprint(it["shape"], it["bstrides"], it["itemsize"], it["addr0"])
        it["_fp_abs"] = (lo, hi)
        space_name, shift = space(it)
        shifts.append(shift)
        spans.append((space_name, (min(it["span_lo"], lo) if hi > lo else it["span_lo"]) + shift,
                      max(it["span_hi"], hi) + shift, i))
    regions, views, blob = [], [], bytearray()
    lineages = _lineages(items)
    for space_name, r_lo, r_hi, members in _merge_spans(spans):
        dev = items[members[0]][2]["device"]
        # where byte 0 of the region would lie in each member's own mapping (its addresses minus r_lo)
        base = {i: r_lo - shifts[i] for i in members}
        rid = region_id(space_name, dev, r_lo, _HOST)
        sources, live = {}, []
        for i in members:
            it = items[i][2]
            src = it["source"]
            sources.setdefault(src["key"], dict(src, byte_offset=it["span_lo"] - base[i],
                                                nbytes=it["span_hi"] - it["span_lo"],
                                                identity=source_identity(it)))
            # only spans whose owner the caller holds right now may be read
            if dev == _HOST and it.get("span_live", True):
                live.append((it["span_lo"] - base[i], it["span_hi"] - base[i], base[i]))
        mappings = _mappings(live)
        known = joined([[a, b] for a, b, _ in mappings])
        index = {key: k for k, key in enumerate(sources)}
        rviews = []
        for i in members:
            vid, name, it = items[i]
            v = _view_dict(vid, name, it, base[i], rid)
            v.update(lineages[vid])
            v["source"] = index[it["source"]["key"]]
            v["in_bounds"] = any(a <= v["footprint"][0] and v["footprint"][1] <= b for a, b in known) \
                or v["numel"] == 0 or dev != _HOST
            rviews.append(v)
        nbytes = r_hi - r_lo
        r = {"id": rid, "addr": f"0x{(mappings[0][2] - mappings[0][0]) if mappings else base[members[0]]:x}",
             "nbytes": nbytes, "device": dev, "host": dev == _HOST, "identity": region_identity(space_name, r_lo),
             "mappings": mappings, "sources": [], "badges": [], "views": [v["id"] for v in rviews]}
        seen = set()
        for src in sources.values():
            r["sources"].append({k: src[k] for k in ("kind", "provenance", "label", "readonly", "refcount", "version",
                                                      "device", "type", "byte_offset", "nbytes", "identity")})
            for b in _badges(src):
                if b["text"] not in seen:
                    seen.add(b["text"])
                    r["badges"].append(b)
        r["badges"] += _lifetime_badges(r["sources"])
        r["readonly"] = all(s["readonly"] for s in r["sources"])
        # one file, one strip: every member's answer about its pages, in the region's byte positions
        r["file"] = merged_info([in_region(items[i][2]["source"].get("file"), items[i][2]["span_lo"] - base[i])
                                 for i in members])
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
            chunk[a - w0:b - w0] = read_mapped(mappings, a, b, read_memory)
        r["preview"] = {"start": w0, "length": w1 - w0, "pos": len(blob), "known": have}
        blob += chunk
        regions.append(r)
        views.extend(rviews)
    _processes_of(regions)
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


def _processes_of(regions):
    """Who else maps each region's pages, their PSS and the pages copied (widgets/_processes.py): one
    bounded reading of /proc a picture."""
    _annotate_processes(regions)


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
    if n is not COSTLY:
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
