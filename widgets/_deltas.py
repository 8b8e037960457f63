"""Deltas: a snapshot sent as the change from another, field by field, and which picture is the base.

A delta turns the base snapshot into the current one. "views"/"regions": {id: changed fields},
a whole dict for a new id, None for a removed one; "views_order"/"regions_order": the ids in
order, when it changed; "overlaps": the whole list, when it changed; "top": other changed keys.
``apply`` is what the front end computes (``applyDelta`` in the renderer).
"""
from __future__ import annotations

__all__ = ["delta", "apply", "size", "Channel", "REBASE_FRACTION", "TAIL_FIELDS"]

REBASE_FRACTION = 0.5          # a checkpoint bigger than this share of its base is sent as a new base
TAIL_FIELDS = 64               # a delta this small never moves the checkpoint
_LISTS = ("views", "regions")


def fields(old, new):
    """The fields of ``new`` that differ from ``old`` (a field ``new`` lacks comes back as None)."""
    out = {k: v for k, v in new.items() if k not in old or old[k] != v}
    out.update({k: None for k in old if k not in new})
    return out


def delta(base, snap):
    """What turns ``base`` into ``snap`` (both snapshot dicts), and its size in fields.

    A write changes only the bytes' version and preview, so the delta is a few
    fields, and applying it gives the new snapshot back:

    >>> import pytensor
    >>> from pytensor.widgets import snapshot
    >>> t = pytensor.zeros(4)
    >>> before, _ = snapshot(t, names=["t"])
    >>> t[1] = 5.0
    >>> after, _ = snapshot(t, names=["t"])
    >>> change, fields_changed = delta(before, after)
    >>> apply(before, change) == after, fields_changed < size(after)
    (True, True)
    """
    out, size = {}, 0
    for kind in _LISTS:
        old = {x["id"]: x for x in base[kind]}
        patch = {}
        for x in snap[kind]:
            o = old.get(x["id"])
            p = x if o is None else {} if o is x else fields(o, x)
            if p:
                patch[x["id"]] = p
                size += len(p)
        ids = {x["id"] for x in snap[kind]}
        patch.update({i: None for i in old if i not in ids})
        if patch:
            out[kind] = patch
            size += len(patch)
        order = [x["id"] for x in snap[kind]]
        if order != [x["id"] for x in base[kind]]:
            out[kind + "_order"] = order
            size += len(order)
    if snap["overlaps"] is not base["overlaps"] and snap["overlaps"] != base["overlaps"]:
        out["overlaps"] = snap["overlaps"]
        size += 6 * len(snap["overlaps"])
    top = {k: v for k, v in snap.items() if k not in _LISTS and k != "overlaps" and base.get(k) != v}
    top.update({k: None for k in base if k not in snap})
    if top:
        out["top"] = top
        size += len(top)
    return out, size


def size(snap):
    """A snapshot's size in fields, the unit ``delta`` counts in."""
    return sum(len(x) for kind in _LISTS for x in snap[kind]) + 6 * len(snap["overlaps"]) + len(snap)


def apply(base, *deltas):
    """``base`` with each delta applied in turn: what the front end computes (applyDelta)."""
    for delta in deltas:
        base = apply_one(base, delta)
    return base


def apply_one(base, delta):
    snap = dict(base, **delta.get("top", {}))
    for kind in _LISTS:
        cur = {x["id"]: x for x in base[kind]}
        for i, p in delta.get(kind, {}).items():
            if p is None:
                cur.pop(i, None)
            else:
                cur[i] = dict(cur[i], **p) if i in cur else p
        order = delta.get(kind + "_order", [x["id"] for x in base[kind]])
        snap[kind] = [cur[i] for i in order if i in cur]
    snap["overlaps"] = delta.get("overlaps", base["overlaps"])
    return snap


class Channel:
    """Sync a snapshot as ``base`` + ``checkpoint`` + ``delta``, sending as little as it can.

    ``delta`` (checkpoint -> now) is what an update usually sends: a NumPy write changes no
    field at all, a pytensor write the counters. When it outgrows half the checkpoint, now
    becomes the checkpoint (``checkpoint``: base -> now, resent); when that outgrows half the
    base, now becomes the base. ``update`` returns the traits to set.
    """

    def __init__(self):
        self.base = {}
        self._mark, self._mark_size = {}, 0      # the snapshot ``checkpoint`` leads to, and its size

    def update(self, snap):
        if not self.base:
            return self._rebase(snap)
        tail, tail_size = delta(self._mark, snap)
        if tail_size <= max(TAIL_FIELDS, self._mark_size / 2):
            return {"delta": tail}
        settled, n = delta(self.base, snap)
        if n > REBASE_FRACTION * size(self.base):
            return self._rebase(snap)
        self._mark, self._mark_size = snap, n
        return {"checkpoint": settled, "delta": {}}

    def _rebase(self, snap):
        self.base, self._mark, self._mark_size = snap, snap, 0
        return {"base": snap, "checkpoint": {}, "delta": {}}
