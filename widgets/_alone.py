"""Lanes that share no bytes with any other: a torch or NumPy result no record explains says so
plainly ("not a view of x: its own bytes"), and an array NumPy imported through DLPack says whose
bytes it reads, by address (the capsule it keeps says nothing a learner can use)."""
from __future__ import annotations

__all__ = ["partners", "unshared"]


def partners(items):
    """``{view id: (the first other lane whose owner's bytes meet its own, or None; a few lane names;
    the number of lanes)}`` for ``build``'s items: sorted spans swept once, not every pair."""
    spans = sorted((it["device"], it["span_lo"], it["span_hi"], k) for k, (_, _, it) in enumerate(items))
    first, group = {}, []
    for dev, lo, hi, k in spans + [(None, 0, 0, -1)]:
        if group and (dev != group[0][0] or lo >= max(h for _, _, h, _ in group)):
            members = sorted(j for _, _, _, j in group)
            for j in members:
                first[j] = next((items[i][1] for i in members if i != j), None)
            group = []
        group.append((dev, lo, hi, k))
    few = [n for _, n, _ in items[:3]]         # "not a view of x or a" names at most two others
    return {items[k][0]: (first.get(k), few, len(items)) for k in range(len(items))}


def unshared(name, vid, partners, origin):
    """"not a view of x: its own bytes" where no other lane's owner meets this one's bytes."""
    other, few, count = partners[vid]
    via = " (handed over through a DLPack capsule)" if origin is not None else ""
    if other is not None:
        return {"shared": True, "text": f"shares {other}'s bytes{via}"} if via else origin
    others = [n for n in few if n != name][:count - 1]
    if not others:
        return {"shared": None, "text": "its own bytes" + via} if via else None
    who = others[0] if count == 2 else f"{others[0]} or {others[1]}" if count == 3 else "any other lane"
    return {"shared": None, "text": f"not a view of {who}: its own bytes{via}"}
