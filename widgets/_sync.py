"""Sync: what changed between two pictures, who wrote it, and what to send. No widget library here.

* ``signature``: what a rebuild depends on (layout) and what a re-read can refresh (counters);
* (``_deltas``: a snapshot sent as the change from another, and which picture is the base;)
* ``changes``: the byte ranges that changed per region, the views reading them, and who wrote them
  (``writer``; ``through`` names the tensor pytensor's write record says was written through);
* ``reread``/``recount``: a picture brought up to date when only bytes and counters moved;
* ``History``: the last pictures, for the history slider, within a step and byte budget.

``Inspector`` wires these to traitlets and messages; tests drive them directly.
"""
from __future__ import annotations

import time
from collections import deque

from ._badges import lifetime_badges
from ._geometry import elements_in_window
from ._identity import read_mapped
from ._objects import read_memory

__all__ = ["signature", "changes", "writer", "through", "provenance", "reread", "recount", "History", "step_info",
           "MAX_RANGES", "HISTORY_STEPS", "HISTORY_BYTES"]

MAX_RANGES = 64                # changed byte ranges sent per region
HISTORY_STEPS = 32             # pictures kept for the history slider
HISTORY_BYTES = 4 << 20        # ... and at most this many preview bytes among them


def _ranges(old, new, base):
    """Byte ranges (offsets from ``base``) where two equal-length byte strings differ."""
    if old == new:
        return []
    import numpy as np
    a = np.frombuffer(old, dtype=np.uint8)
    b = np.frombuffer(new, dtype=np.uint8)
    diff = np.flatnonzero(a != b)
    out = []
    for i in diff.tolist():
        if out and i <= out[-1][1]:
            out[-1][1] = i + 1
        else:
            out.append([i, i + 1])
    if len(out) > MAX_RANGES:
        out = [[out[0][0], out[-1][1]]]
    return [[base + x, base + y] for x, y in out]


def _file_key(d):
    """A mapped file's resident and copied-on-write pages, hashable: a page read in or copied redraws."""
    f = d["source"].get("file")
    if not f:
        return None
    runs = lambda xs: tuple(map(tuple, xs)) if xs else None  # noqa: E731
    return runs(f["resident"]), runs(f["cow"]), f["resident_note"], f["cow_note"]


def signature(items):
    """``(layout, counters)``: what a rebuild depends on, and the counters a re-read can refresh."""
    keys = ("addr0", "shape", "bstrides", "span_lo", "span_hi", "readonly", "dtype", "status", "note", "span_live")
    layout = tuple((vid, tuple(d.get(k) for k in keys), d["source"]["key"], _file_key(d)) for vid, _, d in items)
    counters = tuple((d["version"], d["source"].get("version"), d["source"].get("refcount")) for _, _, d in items)
    return layout, counters


def writer(old_version, new_version, bytes_changed, through=None):
    """Who wrote a region between two pictures, as far as the counters, pytensor's write record
    (``through``: the tensor written through, when known) and the poll can tell."""
    if old_version is not None and new_version is not None and new_version != old_version:
        # the write record keeps the last write only: with several, it names the last one's tensor
        last = "last " if new_version - old_version > 1 else ""
        out = f"pytensor wrote here{f', {last}through {through}' if through else ''} " \
              f"(write counter {old_version} \u2192 {new_version})"
        return out if bytes_changed else out + ", outside the preview or with equal values"
    return "written outside pytensor (NumPy or another foreign writer; seen by the poll)"


def provenance():
    """pytensor's write record (``last_writer``), where this pytensor has one."""
    try:
        from pytensor import _inspect_api as prov
    except ImportError:
        return None
    return prov if hasattr(prov, "last_writer") else None


def through(prov, storage, alive, since):
    """The tensor the last write into ``storage`` went through, if it was made after version ``since``.

    ``alive`` maps ``id()`` of each live inspected object to ``(object, name)``: a recorded writer
    is named only when it is one of them (same id and same provenance node, so a reused id of a
    dead tensor is not mistaken for it); otherwise it is described by the expression that made it.
    """
    try:
        rec = prov.last_writer(storage)
    except (TypeError, ValueError):
        return None
    if rec is None or since is None or rec[0] <= since:
        return None
    version, tid, node = rec
    hit = alive.get(tid)
    if hit is not None:
        try:
            if prov.node(hit[0]) is node:
                return hit[1]
        except (TypeError, ValueError):
            pass
    if node is None:
        return None
    names = {}
    for obj, name in alive.values():           # parents that are inspected objects go by their names
        try:
            names[id(prov.node(obj))] = name
        except (TypeError, ValueError):
            pass
    try:
        text = prov.inline_refs(prov.chain(node), names)[0]
    except (TypeError, ValueError, IndexError, KeyError):
        return None
    return f"a view made by {text}" if text else None


def changes(old_snap, old_blob, snap, blob, tick, written_through):
    """What changed from ``old_snap`` to ``snap``: byte ranges per region and the views reading them,
    numbered ``tick``; None when nothing did. ``written_through(region, since)`` names the tensor a
    pytensor write went through, or returns None."""
    old = {r["id"]: r for r in old_snap.get("regions", [])}
    regions, views, writers = {}, set(), {}
    vmap = {v["id"]: v for v in snap["views"]}
    for r in snap["regions"]:
        o = old.get(r["id"])
        if o is None:
            continue
        ranges = _changed_ranges(r["preview"], o["preview"], old_blob, blob)
        bumped = r["version"] is not None and o["version"] is not None and r["version"] != o["version"]
        if ranges or bumped:
            by = written_through(*_written_part(r, o, vmap)) if bumped else None
            writers[r["id"]] = writer(o["version"], r["version"], bool(ranges), by)
        if ranges:
            regions[r["id"]] = ranges
            views.update(vid for vid in r["views"] if _reads(vmap[vid], ranges))
        elif bumped:  # written through pytensor, outside the window or with equal values
            views.update(r["views"])
    if not regions and not views:
        return None
    return {"tick": tick, "generation": snap["generation"], "regions": regions,
            "views": sorted(views, key=lambda s: int(s[1:])), "writers": writers}


def _written_part(r, o, vmap):
    """``(region, since)`` to ask who wrote region ``r`` (``o`` before). A region that is one file seen
    through several pytensor mappings sums their write counters; when exactly one of them moved,
    the question is asked of that mapping's views and its own counter, so the writer is named."""
    if len(r["sources"]) != len(o["sources"]) or sum(s["version"] is not None for s in r["sources"]) < 2:
        return r, o["version"]
    moved = [k for k, (s, t) in enumerate(zip(r["sources"], o["sources"]))
             if s["version"] is not None and t["version"] is not None and s["version"] != t["version"]]
    if len(moved) != 1:
        return r, o["version"]
    k = moved[0]
    return dict(r, views=[vid for vid in r["views"] if vmap[vid].get("source") == k]), o["sources"][k]["version"]


def _changed_ranges(p, q, old_blob, blob):
    """Byte ranges that differ between two previews of one region (``p`` now, ``q`` before)."""
    ranges = []
    if (p["start"], p["length"]) == (q["start"], q["length"]):
        for a, b in p["known"]:
            if any(x <= a and b <= y for x, y in q["known"]):
                ranges += _ranges(old_blob[q["pos"] + a - q["start"]:q["pos"] + b - q["start"]],
                                  blob[p["pos"] + a - p["start"]:p["pos"] + b - p["start"]], a)
    return ranges


def _reads(v, ranges):
    return any(elements_in_window(v["shape"], v["bstrides"], v["itemsize"], v["byte_offset"], a, b, limit=1)
               for a, b in ranges)


def reread(snap, previews):
    """The preview bytes of ``snap``, read again from memory (its owners must be held alive)."""
    blob = bytearray(previews)
    for r in snap.get("regions", []):
        p = r["preview"]
        for a, b in p["known"]:
            pos = p["pos"] + a - p["start"]
            blob[pos:pos + b - a] = read_mapped(r["mappings"], a, b, read_memory)     # one file: through its mappings
    return bytes(blob)


def recount(snap, items):
    """``snap`` with fresh write counters and refcounts from ``items`` (same layout: nothing else moved).

    Builds new dicts only where a counter changed, so history entries share the rest.
    """
    found = {vid: d for vid, _, d in items}
    views = [v if v["version"] == found[v["id"]]["version"] else dict(v, version=found[v["id"]]["version"])
             for v in snap["views"]]
    regions = []
    for r in snap["regions"]:
        srcs = {}
        for vid in r["views"]:
            src = found[vid]["source"]
            srcs.setdefault(src["key"], src)
        sources = [dict(old, refcount=new.get("refcount"), version=new.get("version"))
                   for old, new in zip(r["sources"], srcs.values())]
        if sources == r["sources"]:
            regions.append(r)
            continue
        keep = len(r["badges"]) - len(lifetime_badges(r["sources"]))   # provenance badges come first
        versions = [x["version"] for x in sources if x["version"] is not None]
        regions.append(dict(r, sources=sources, badges=r["badges"][:keep] + lifetime_badges(sources),
                            version=sum(versions) if versions else None))
    return dict(snap, views=views, regions=regions)


class History:
    """The last pictures, oldest first: at most ``HISTORY_STEPS``, and within ``HISTORY_BYTES`` of previews
    (the newest always stays). Each step is a dict: generation, time, snap, previews, changes, note."""

    def __init__(self):
        self._steps = deque()

    def __iter__(self):
        return iter(self._steps)

    def __len__(self):
        return len(self._steps)

    def wants(self, snap, changes):
        """Whether ``snap`` is a step worth keeping: something changed, or its views did."""
        return bool(changes) or not self._steps or snap["views"] != self._steps[-1]["snap"]["views"]

    def remember(self, snap, blob, changes):
        note = "views added, freed or moved" if self._steps else "the first picture"
        self._steps.append({"generation": snap["generation"], "time": round(time.time(), 1),
                            "snap": snap, "previews": blob, "changes": changes, "note": note})
        while len(self._steps) > 1 and (len(self._steps) > HISTORY_STEPS or
                                        sum(len(h["previews"]) for h in self._steps) > HISTORY_BYTES):
            self._steps.popleft()

    def steps(self):
        """What the slider needs of each step: its generation and time."""
        return [{"generation": h["generation"], "time": h["time"]} for h in self._steps]

    def find(self, generation):
        return next((h for h in self._steps if h["generation"] == generation), None)


def step_info(h):
    """What the slider says about one history step."""
    ch = h["changes"] or {}
    names = {v["id"]: v["name"] for v in h["snap"]["views"]}
    what = []
    for k, r in enumerate(h["snap"]["regions"]):
        if r["id"] in ch.get("writers", {}):
            ranges = ch.get("regions", {}).get(r["id"], [])
            where = ", ".join(f"[{a}, {b})" for a, b in ranges[:3]) + (", \u2026" if len(ranges) > 3 else "")
            what.append(f"buffer {k + 1}: {ch['writers'][r['id']]}" + (f"; bytes {where}" if where else ""))
    readers = [names[v] for v in ch.get("views", []) if v in names]
    return {"generation": h["generation"], "time": h["time"], "what": "; ".join(what) or h["note"],
            "views": readers[:8], "more_views": max(0, len(readers) - 8)}

