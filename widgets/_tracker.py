"""The lifetime tracker: which inspected objects are live, temporary or gone. No widget library here.

Each inspected object becomes an entry: its last layout record, a watch on
the object and watches on the owners of its bytes (``_lifetime``). A lane
is *live* while the object exists, *temporary* while only its memory does
(``inspect(t, t[::2])``: the slice dies at once, the storage does not), and
*gone* once the memory is freed, resized or closed. A ``weakref.finalize``
on each object only sets ``dirty`` (finalizers run at awkward moments, so
they never do more).

What was asked for stays in the picture: each entry keeps a *photo* of its
lane as last drawn from memory (its view dict, its region's dict and preview
bytes; plain data, no reference to the object), so the call's picture is kept
even for ``inspect(np.broadcast_to(np.arange(3), (4, 3)))``, whose object dies
before the cell ends. A gone entry is drawn from its photo, marked "freed
since ...", on a strip of its own (its memory may hold something else now):
never read from memory again.
"""
from __future__ import annotations

import weakref

from ._files import file_info
from ._geometry import footprint
from ._lifetime import Watch, owners, span_of
from ._objects import resolve

__all__ = ["Tracker"]


class _Entry:
    """One inspected object: its last layout record and watches on it and on the owners of its bytes."""

    __slots__ = ("vid", "name", "me", "finalizer", "owners", "record", "state", "note", "covered_by", "lent_to",
                 "photo", "first")

    def __init__(self, vid, name, obj, module):
        self.vid, self.name = vid, name
        self.me = Watch(obj, module)
        self.finalizer = None
        self.owners = [Watch(o, module) for o in owners(obj) if not self.me.same(o)]
        self.record = None
        self.state, self.note = "live", ""
        # Other entries that held this one's bytes when both were alive, for when its own owners
        # cannot be watched: a DLPack or buffer storage hides the producer it keeps alive.
        self.covered_by, self.lent_to = (), ()
        self.photo = None           # its region as last drawn from memory (Tracker.remember)
        self.first = None           # the generation of the picture that first drew it (the call's)


def _mark_dead(wself):
    """Finalizer callback: flag only (it may run inside any allocation, on any thread)."""
    tracker = wself()
    if tracker is not None:
        tracker.dirty = True


def _kind_of(owner):
    t = type(owner)
    mod = t.__module__.split(".")[0]
    return t.__name__ if mod in ("builtins", "mmap", "array") else f"{mod}.{t.__name__}"


def _gone_note(e):
    return f"was {_describe(e.record)}; its memory was freed, resized or closed"


def _since(e):
    """When a gone entry was last seen alive, in words: at the call, or in a later picture."""
    return "the call" if e.photo is not None and e.photo["generation"] == e.first else "it was last drawn"


def _describe(d):
    return f"{d['dtype']}[{', '.join(map(str, d['shape']))}]"


class Tracker:
    """The inspected objects, in the order they were added, as entries (``entries``).

    ``dirty`` is set when an object died or a lane changed state since the last picture.
    It holds no strong reference to anything it tracks.
    """

    def __init__(self):
        self.entries = []
        self.dirty = False

    def add(self, objs, names, descs, module):
        """Track ``objs`` (named ``names``, already resolved into ``descs``); returns their entries."""
        added = []
        for obj, name, desc in zip(objs, names, descs):
            e = _Entry(f"v{len(self.entries)}", str(name), obj, module)
            e.record = desc
            if e.me.kind == "weak":
                e.finalizer = weakref.finalize(obj, _mark_dead, weakref.ref(self))
                e.finalizer.atexit = False
            self.entries.append(e)
            added.append(e)
        self._note_anchors()
        return added

    def gone(self):
        """``{"name", "note"}`` of every entry whose memory is gone."""
        return [{"name": e.name, "note": f"freed since {_since(e)}" if e.photo is not None else e.note}
                for e in self.entries if e.state == "gone"]

    # ---------------------------------------------------------------- photos of what was drawn
    def remember(self, snap, blob, generation):
        """Keep, for every entry ``snap`` drew from memory, its lane and region as drawn (``generation``).

        ``snap``/``blob``: a picture built from ``live_items`` only. Plain dicts and a view of the
        immutable ``blob``: nothing here refers to an inspected object or reads memory.
        """
        by_vid = {e.vid: e for e in self.entries}
        views = {v["id"]: v for v in snap["views"]}
        overlaps = {}
        for o in snap["overlaps"]:
            overlaps.setdefault(o["region"], []).append(o)
        data = memoryview(blob)
        for r in snap["regions"]:
            p = r["preview"]
            photo = {"generation": generation, "region": r, "views": views, "overlaps": overlaps.get(r["id"], ()),
                     "bytes": data[p["pos"]:p["pos"] + p["length"]]}
            for vid in r["views"]:
                e = by_vid.get(vid)
                if e is not None:
                    e.photo = photo
                    e.first = generation if e.first is None else e.first

    def with_freed(self, snap, blob):
        """``(snap, blob)`` with the gone entries drawn from their photos after the live picture.

        Entries last drawn on one strip share it again, under an id of its own (``<region>-g<generation>``:
        the address may hold other memory now); their lanes say since when they are freed.
        """
        groups = {}
        for e in self.entries:
            if e.state == "gone" and e.photo is not None:
                groups.setdefault(id(e.photo), (e.photo, []))[1].append(e)
        if not groups:
            return snap, blob
        order = {e.vid: k for k, e in enumerate(self.entries)}
        views, regions, overlaps, out = list(snap["views"]), list(snap["regions"]), list(snap["overlaps"]), [blob]
        pos = len(blob)
        for photo, members in groups.values():
            r = photo["region"]
            rid = f"{r['id']}-g{photo['generation']}"
            keep = {e.vid for e in members}
            for e in members:
                note = f"its memory was freed, resized or closed since {_since(e)}; drawn as it was then"
                v = photo["views"][e.vid]
                views.append(dict(v, region=rid, status="freed", note=note,
                                  overlaps_with=[x for x in v.get("overlaps_with", ()) if x in keep]))
            overlaps += [dict(o, region=rid) for o in photo["overlaps"] if o["a"] in keep and o["b"] in keep]
            freed = {"kind": "freed", "text": f"freed since {_since(members[0])}",
                     "title": "this memory is gone: the strip shows it as it was last drawn, and is never read again"}
            regions.append(dict(r, id=rid, views=[vid for vid in r["views"] if vid in keep], badges=[freed] + r["badges"],
                                preview=dict(r["preview"], pos=pos)))
            out.append(photo["bytes"])
            pos += len(photo["bytes"])
        views.sort(key=lambda v: order.get(v["id"], len(order)))
        regions.sort(key=lambda r: min(order.get(vid, len(order)) for vid in r["views"]))
        return dict(snap, views=views, regions=regions, overlaps=overlaps), b"".join(out)

    def live_items(self, holds, work, fresh=None):
        """``(vid, name, description)`` of every entry whose bytes still exist; marks the rest gone.

        Strong references to the objects and exports that keep those bytes
        alive go to ``holds``: keep it until the bytes have been read.
        ``fresh`` maps a vid to the description just made of its object (by ``add``),
        so an object is resolved once per picture.
        """
        fresh = fresh or {}
        items, orphans = [], []
        for e in self.entries:
            if e.state == "gone":
                continue
            obj = e.me.get()
            if obj is not None:
                try:
                    d = fresh[e.vid] if e.vid in fresh else resolve(obj, holds, work)
                except TypeError:           # alive but no longer readable: a closed mmap
                    e.state, e.note = "gone", f"was {_describe(e.record)}; its memory was closed"
                    self.dirty = True
                    continue
                holds.append(obj)
                if e.record is None or d["source"]["key"] != e.record["source"]["key"]:
                    e.owners = [Watch(o, self._module_of_entry(e)) for o in owners(obj) if not e.me.same(o)]
                e.record, state, note = d, "live", ""
                del obj
            else:
                d, note = self._from_owner(e, holds, work)
                state = "temporary"
                if d is None:
                    orphans.append(e)
                    continue
            if (state, note) != (e.state, e.note):
                e.state, e.note = state, note
                self.dirty = True
            items.append((e.vid, e.name, dict(d, status=state, note=note)))
        for e in orphans:
            d = self._anchored(e, items)
            if d is None:
                e.state, e.note = "gone", _gone_note(e)
                self.dirty = True
            else:
                items.append((e.vid, e.name, d))
        order = {e.vid: k for k, e in enumerate(self.entries)}
        items.sort(key=lambda it: order[it[0]])
        return items

    @staticmethod
    def _module_of_entry(e):
        mod = e.me._module() if e.me._module is not None else None
        return mod

    @staticmethod
    def _from_owner(e, holds, work):
        """The entry's layout record, if an owner of its bytes is alive and still spans them."""
        rec = e.record
        lo, hi = footprint(rec["shape"], rec["bstrides"], rec["itemsize"], rec["addr0"])
        for w in e.owners:
            owner = w.get()
            if owner is None:
                continue
            span = span_of(owner, holds)
            if span is None or span[0] != rec["device"] or not (span[1] <= lo and hi <= span[2]):
                continue                                   # resized, reallocated or closed: not these bytes
            holds.append(owner)
            d = dict(rec, span_lo=span[1], span_hi=span[2])
            if hasattr(owner, "refcount") and hasattr(owner, "version"):   # a pytensor storage: fresh counters
                d["source"] = dict(rec["source"], refcount=owner.refcount, version=owner.version,
                                   file=file_info(owner, span[1], span[2], work))
                d["version"] = owner.version
            return d, f"temporary: the view object is gone, its memory ({_kind_of(owner)}) is alive"
        return None, ""

    def _note_anchors(self):
        """For every entry, which others held its bytes (``covered_by``) or borrowed them (``lent_to``)."""
        recs = [(x.vid, x.record) for x in self.entries if x.state != "gone" and x.record is not None]
        for e in self.entries:
            rec = e.record
            if e.state == "gone" or rec is None:
                continue
            lo, hi = footprint(rec["shape"], rec["bstrides"], rec["itemsize"], rec["addr0"])
            same = [(vid, r) for vid, r in recs if vid != e.vid and r["device"] == rec["device"]]
            e.covered_by = tuple(vid for vid, r in same if r["span_lo"] <= lo and hi <= r["span_hi"])
            e.lent_to = tuple(vid for vid, r in same if e.me.kind != "weak" and r["source"]["kind"] == "storage"
                              and r["source"]["provenance"] == "buffer"
                              and rec["span_lo"] <= r["span_lo"] and r["span_hi"] <= rec["span_hi"])

    @staticmethod
    def _anchored(e, items):
        """An entry whose owners are gone or unwatchable, drawn while another live entry holds its bytes.

        ``covered_by``: a live entry still spans its bytes (a DLPack import's producer); the lane is
        temporary. ``lent_to``: a ``bytes``/``bytearray`` we cannot find again, while a storage
        borrows part of it; that is the bytearray itself, alive.
        """
        rec = e.record
        lo, hi = footprint(rec["shape"], rec["bstrides"], rec["itemsize"], rec["addr0"])
        for vid, name, d in items:
            if not d.get("span_live", True):
                continue
            covers = vid in e.covered_by and d["span_lo"] <= lo and hi <= d["span_hi"]
            lent = vid in e.lent_to and rec["span_lo"] <= d["span_lo"] and d["span_hi"] <= rec["span_hi"]
            if (covers or lent) and e.me.kind != "weak":
                # whoever borrows a bytes/bytearray holds an export of it, so the object itself lives
                note = f"{rec['type']} cannot be watched directly; drawn while {name} borrows its memory"
                return dict(rec, status="live", note=note, span_live=False)
            if covers:
                return dict(rec, status="temporary", span_live=False,
                            note=f"temporary: the view object is gone, its bytes are alive in {name}")
        return None

    def writers_of(self, region):
        """``(alive, storage)`` for a region: its live inspected objects (``{id: (object, name)}``) and the one
        pytensor storage its bytes belong to, or None when there are none or several (a region's summed
        write counter cannot be split among several storages). What ``_sync.through`` asks for."""
        vids = set(region["views"])
        alive, storages = {}, {}
        for e in self.entries:
            if e.vid not in vids:
                continue
            obj = e.me.get()
            if obj is not None:
                alive[id(obj)] = (obj, e.name)
            for w in e.owners:
                o = w.get()
                if o is not None and hasattr(o, "version") and hasattr(o, "refcount"):
                    storages[id(o)] = o
        return alive, (next(iter(storages.values())) if len(storages) == 1 else None)
