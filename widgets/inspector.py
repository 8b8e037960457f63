"""The live inspector widget: synced traitlets, ``refresh()``, no strong references.

Each inspected object becomes an entry: its last layout record, a watch on
the object and watches on the owners of its bytes (``_lifetime``). A lane
is *live* while the object exists, *temporary* while only its memory does
(``inspect(t, t[::2])``: the slice dies at once, the storage does not), and
*gone* once the memory is freed, resized or closed. A ``weakref.finalize``
on each object only sets a flag (finalizers run at awkward moments, so they
never talk to the front end).

How live redraw works:

* after every notebook cell (IPython's ``post_run_cell`` event) and whenever
  the front end polls (one ``{"op": "poll"}`` message in flight at a time,
  every ``poll_ms``), ``check()`` compares a cheap signature (layout,
  addresses, storage write counters, C refcounts) and re-reads the bounded
  preview windows (a few KiB per buffer) to catch foreign writers such as
  NumPy, which do not bump pytensor's counter;
* when anything differs it rebuilds the snapshot and sets ``changes`` to the
  byte ranges that changed and the views that read them, which the front end
  flashes. When only bytes and write counters changed (the layout of every
  view is the same), it re-reads the previews and counters into the last
  snapshot instead of rebuilding it: the model's pairwise overlap work is
  skipped on the common update, a write.

What travels: ``base`` is a whole snapshot, sent rarely; ``checkpoint`` is
the change from ``base`` to a recent snapshot and ``delta`` the change from
that one to now, each keyed by view, region and overlap id, field by field
(``_delta``). An update sends ``delta`` and the previews (a few KiB per
buffer), not the snapshot; ``_send_snapshot`` says when the others move.

History: the last ``HISTORY_STEPS`` pictures (each a snapshot, which shares
its unchanged dicts with its neighbours, and its preview bytes) stay in
Python, within ``HISTORY_BYTES`` of previews. ``steps`` lists them for the
front end's slider (generation and time only, so an update stays small);
the front end asks for one step's picture with a ``{"op": "step"}``
message, and the answer carries the byte ranges that changed and who wrote
them.
"""
from __future__ import annotations

import sys
import time
import weakref
from collections import deque
from pathlib import Path

from ._export import asset, to_html, to_text
from ._files import file_info
from ._lifetime import Watch, module_of, owners, span_of
from ._names import guess_names
from ._pairs import Work
from ._snapshot import PREVIEW_BYTES, build, elements_in_window, footprint, read_memory, resolve
from ._snapshot import _lifetime_badges

try:
    import anywidget
    import traitlets
except ImportError as _e:  # the package imports without the extra; using the widget says what to install
    anywidget = traitlets = None
    _MISSING = _e
else:
    _MISSING = None

__all__ = ["Inspector"]

_LIVE = weakref.WeakSet()      # inspectors to check after each cell
_HOOKED = []                   # the IPython shell our post_run_cell hook is registered with
MAX_RANGES = 64                # changed byte ranges sent per region
HISTORY_STEPS = 32             # pictures kept for the history slider
HISTORY_BYTES = 4 << 20        # ... and at most this many preview bytes among them
REBASE_FRACTION = 0.5          # a checkpoint bigger than this share of its base is sent as a new base
TAIL_FIELDS = 64               # a delta this small never moves the checkpoint
MAX_FALLBACKS = 4              # displays of one widget whose static picture follows its changes


class _Entry:
    """One inspected object: its last layout record and watches on it and on the owners of its bytes."""

    __slots__ = ("vid", "name", "me", "finalizer", "owners", "record", "state", "note", "covered_by", "lent_to")

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


def _mark_dead(wself):
    """Finalizer callback: flag only (it may run inside any allocation, on any thread)."""
    self = wself()
    if self is not None:
        self._dirty = True


def _kind_of(owner):
    t = type(owner)
    mod = t.__module__.split(".")[0]
    return t.__name__ if mod in ("builtins", "mmap", "array") else f"{mod}.{t.__name__}"


def _gone_note(e):
    return f"was {_describe(e.record)}; its memory was freed, resized or closed"


def _after_cell(*_args):
    for w in list(_LIVE):
        try:
            w.check()
            w._update_fallbacks()
        except Exception as e:  # never break the user's cell for a picture
            print(f"pytensor inspector: refresh failed: {e!r}", file=sys.stderr)


def _install_hook():
    ipy = sys.modules.get("IPython")
    ip = ipy.get_ipython() if ipy is not None and hasattr(ipy, "get_ipython") else None
    if ip is None or any(h is ip for h in _HOOKED):
        return
    ip.events.register("post_run_cell", _after_cell)
    _HOOKED.append(ip)


def _describe(d):
    return f"{d['dtype']}[{', '.join(map(str, d['shape']))}]"


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


def _signature(items):
    """``(layout, counters)``: what a rebuild depends on, and the counters a re-read can refresh."""
    keys = ("addr0", "shape", "bstrides", "span_lo", "span_hi", "readonly", "dtype", "status", "note", "span_live")
    layout = tuple((vid, tuple(d.get(k) for k in keys), d["source"]["key"], _file_key(d)) for vid, _, d in items)
    counters = tuple((d["version"], d["source"].get("version"), d["source"].get("refcount")) for _, _, d in items)
    return layout, counters


# ---------------------------------------------------------------------- deltas
# A delta turns the base snapshot into the current one. "views"/"regions": {id: changed fields},
# a whole dict for a new id, None for a removed one; "views_order"/"regions_order": the ids in
# order, when it changed; "overlaps": the whole list, when it changed; "top": other changed keys.
_LISTS = ("views", "regions")


def _fields(old, new):
    """The fields of ``new`` that differ from ``old`` (a field ``new`` lacks comes back as None)."""
    out = {k: v for k, v in new.items() if k not in old or old[k] != v}
    out.update({k: None for k in old if k not in new})
    return out


def _delta(base, snap):
    """What turns ``base`` into ``snap`` (both snapshot dicts), and its size in fields.

    A write changes only the bytes' version and preview, so the delta is a few
    fields, and applying it gives the new snapshot back:

    >>> import pytensor
    >>> from pytensor.widgets import snapshot
    >>> t = pytensor.zeros(4)
    >>> before, _ = snapshot(t, names=["t"])
    >>> t[1] = 5.0
    >>> after, _ = snapshot(t, names=["t"])
    >>> delta, size = _delta(before, after)
    >>> _apply(before, delta) == after, size < _size(after)
    (True, True)
    """
    out, size = {}, 0
    for kind in _LISTS:
        old = {x["id"]: x for x in base[kind]}
        patch = {}
        for x in snap[kind]:
            o = old.get(x["id"])
            p = x if o is None else {} if o is x else _fields(o, x)
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


def _size(snap):
    """A snapshot's size in fields, the unit ``_delta`` counts in."""
    return sum(len(x) for kind in _LISTS for x in snap[kind]) + 6 * len(snap["overlaps"]) + len(snap)


def _apply(base, *deltas):
    """``base`` with each delta applied in turn: what the front end computes (applyDelta)."""
    for delta in deltas:
        base = _apply_one(base, delta)
    return base


def _apply_one(base, delta):
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


def _writer(old_version, new_version, bytes_changed, through=None):
    """Who wrote a region between two pictures, as far as the counters, pytensor's write record
    (``through``: the tensor written through, when known) and the poll can tell."""
    if old_version is not None and new_version is not None and new_version != old_version:
        # the write record keeps the last write only: with several, it names the last one's tensor
        last = "last " if new_version - old_version > 1 else ""
        out = f"pytensor wrote here{f', {last}through {through}' if through else ''} " \
              f"(write counter {old_version} \u2192 {new_version})"
        return out if bytes_changed else out + ", outside the preview or with equal values"
    return "written outside pytensor (NumPy or another foreign writer; seen by the poll)"


def _provenance():
    """pytensor's write record (``last_writer``), where this pytensor has one."""
    try:
        from pytensor import _provenance as prov
    except ImportError:
        return None
    return prov if hasattr(prov, "last_writer") else None


def _through(prov, storage, alive, since):
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


def _step_info(h):
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


_Base = anywidget.AnyWidget if anywidget is not None else object


class Inspector(_Base):
    """A live picture of which tensors and arrays share which bytes.

    ``Inspector(a, b, names=["a", "b"])`` draws each distinct buffer once,
    one lane per view. A view is drawn for as long as its bytes exist: when
    the view object itself dies (``Inspector(t, t[::2])``) its lane stays,
    marked temporary, until the memory is freed. It holds no strong
    reference to anything it shows, so it never extends a lifetime or
    changes a refcount it shows (see ``_lifetime``). ``refresh()`` redraws now;
    ``to_html()``/``save_html()`` and ``to_text()`` give kernel-free outputs.
    """

    if anywidget is not None:
        _esm = asset("inspector.js")
        _css = asset("inspector.css")
        base = traitlets.Dict().tag(sync=True)        # a whole snapshot, resent only when delta outgrows it
        checkpoint = traitlets.Dict().tag(sync=True)  # base -> a recent snapshot (see _delta)
        delta = traitlets.Dict().tag(sync=True)       # checkpoint -> the current snapshot
        previews = traitlets.Bytes(b"").tag(sync=True)
        changes = traitlets.Dict().tag(sync=True)
        steps = traitlets.List().tag(sync=True)       # the history slider's steps, oldest first
        poll_ms = traitlets.Int(300).tag(sync=True)

    def __init__(self, *objs, names=None, poll_ms=300, preview_bytes=PREVIEW_BYTES, _namespace=None, **kwargs):
        if _MISSING is not None:
            raise ImportError("the live inspector needs anywidget and ipywidgets: "
                              "pip install 'pytensor-mem[widgets]'") from _MISSING
        if _namespace is None:      # where bytes/bytearray objects are looked up again by identity
            _namespace = sys._getframe(1).f_globals
        if names is None:
            names = guess_names(objs, sys._getframe(1))
        names = list(names)
        if len(names) != len(objs):
            raise ValueError(f"got {len(objs)} objects but {len(names)} names")
        for obj in objs:
            resolve(obj)  # refuse what we cannot draw before a widget (and its comm) exists
        super().__init__(poll_ms=poll_ms, **kwargs)
        self._entries = []
        self._windows = {}
        self._preview_bytes = int(preview_bytes)
        self._dirty = False
        self._sig = None
        self._snap = {}
        self._mark, self._mark_size = {}, 0      # the snapshot ``checkpoint`` leads to, and its size
        self._history = deque()
        self._fallbacks, self._fallback_generation = [], 0   # display handles of the static pictures
        self._generation = 0
        self._tick = 0
        self.on_msg(self._on_custom_msg)
        self.add(*objs, names=names, _namespace=_namespace)
        _LIVE.add(self)
        _install_hook()

    # ---------------------------------------------------------------- tracking
    def add(self, *objs, names=None, _namespace=None):
        """Inspect more objects and redraw. Nothing here keeps them, or their memory, alive."""
        frame = sys._getframe(1)
        names = list(names) if names is not None else guess_names(objs, frame)
        if len(names) != len(objs):
            raise ValueError(f"got {len(objs)} objects but {len(names)} names")
        module = module_of(_namespace if _namespace is not None else frame.f_globals)
        del frame
        holds, work = [], Work()
        descs = [resolve(obj, holds, work) for obj in objs]  # TypeError for what we cannot draw, before anything is kept
        for obj, name, desc in zip(objs, names, descs):
            e = _Entry(f"v{len(self._entries)}", str(name), obj, module)
            e.record = desc
            if e.me.kind == "weak":
                e.finalizer = weakref.finalize(obj, _mark_dead, weakref.ref(self))
                e.finalizer.atexit = False
            self._entries.append(e)
        self._note_anchors()
        # objs are still held here, so this first picture shows every one of them as live
        self.refresh(self._resolve_live(holds, work), _work=work)
        return self

    def _resolve_live(self, holds, work):
        """``(vid, name, description)`` of every entry whose bytes still exist; marks the rest gone.

        Strong references to the objects and exports that keep those bytes
        alive go to ``holds``: keep it until the bytes have been read.
        """
        items, orphans = [], []
        for e in self._entries:
            if e.state == "gone":
                continue
            obj = e.me.get()
            if obj is not None:
                try:
                    d = resolve(obj, holds, work)
                except TypeError:           # alive but no longer readable: a closed mmap
                    e.state, e.note = "gone", f"was {_describe(e.record)}; its memory was closed"
                    self._dirty = True
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
                self._dirty = True
            items.append((e.vid, e.name, dict(d, status=state, note=note)))
        for e in orphans:
            d = self._anchored(e, items)
            if d is None:
                e.state, e.note = "gone", _gone_note(e)
                self._dirty = True
            else:
                items.append((e.vid, e.name, d))
        order = {e.vid: k for k, e in enumerate(self._entries)}
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
        recs = [(x.vid, x.record) for x in self._entries if x.state != "gone" and x.record is not None]
        for e in self._entries:
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

    # ---------------------------------------------------------------- redraw
    @property
    def snapshot(self):
        """The current snapshot dict (``base`` with ``checkpoint`` and ``delta`` applied)."""
        return self._snap

    def refresh(self, _items=None, _record=True, _work=None):
        """Rebuild the snapshot now and send it to every view of this widget."""
        holds, work = [], _work if _work is not None else Work()
        items = self._resolve_live(holds, work) if _items is None else _items
        gone = [{"name": e.name, "note": e.note} for e in self._entries if e.state == "gone"]
        snap, blob = build(items, windows=self._windows, preview_bytes=self._preview_bytes, gone=gone, work=work)
        del holds
        self._publish(snap, blob, _signature(items), record=_record)
        return self

    def check(self):
        """Redraw if anything changed since the last snapshot; returns True when it redrew.

        Cheap: re-resolves the live objects (attribute reads) and re-reads the
        preview windows, which lie inside memory the objects in ``holds``
        keep alive until this returns. A change of layout rebuilds the
        snapshot; a change of bytes or counters only is read into a copy of
        the last one.
        """
        holds, work = [], Work()
        items = self._resolve_live(holds, work)
        sig = _signature(items)
        if self._dirty or self._sig is None or sig[0] != self._sig[0]:
            self.refresh(items, _work=work)
            return True
        blob = self._reread_previews()
        if sig == self._sig and blob == self.previews:
            return False
        if any(r.get("file") for r in self._snap["regions"]):
            self.refresh(items, _work=work)            # a mapped file's resident and copied pages move with its writes
        else:
            self._publish(self._recount(items), blob, sig)
        return True

    def _reread_previews(self):
        """The preview bytes of the current snapshot, read again from memory."""
        blob = bytearray(self.previews)
        for r in self._snap.get("regions", []):
            p, base = r["preview"], int(r["addr"], 16)
            for a, b in p["known"]:
                pos = p["pos"] + a - p["start"]
                blob[pos:pos + b - a] = read_memory(base + a, b - a)
        return bytes(blob)

    def _recount(self, items):
        """The current snapshot with fresh write counters and refcounts (same layout: nothing else moved).

        Builds new dicts only where a counter changed, so history entries share the rest.
        """
        found = {vid: d for vid, _, d in items}
        views = [v if v["version"] == found[v["id"]]["version"] else dict(v, version=found[v["id"]]["version"])
                 for v in self._snap["views"]]
        regions = []
        for r in self._snap["regions"]:
            srcs = {}
            for vid in r["views"]:
                src = found[vid]["source"]
                srcs.setdefault(src["key"], src)
            sources = [dict(old, refcount=new.get("refcount"), version=new.get("version"))
                       for old, new in zip(r["sources"], srcs.values())]
            if sources == r["sources"]:
                regions.append(r)
                continue
            keep = len(r["badges"]) - len(_lifetime_badges(r["sources"]))   # provenance badges come first
            versions = [x["version"] for x in sources if x["version"] is not None]
            regions.append(dict(r, sources=sources, badges=r["badges"][:keep] + _lifetime_badges(sources),
                                version=sum(versions) if versions else None))
        return dict(self._snap, views=views, regions=regions)

    def _publish(self, snap, blob, sig, record=True):
        """Number ``snap``, work out what changed and who wrote it, remember it, and send the difference."""
        self._generation += 1
        snap["generation"] = self._generation
        changes = self._changes(snap, blob) if self._snap else None
        if record and (changes or not self._history or snap["views"] != self._history[-1]["snap"]["views"]):
            self._remember(snap, blob, changes)
        with self.hold_sync():
            self._send_snapshot(snap)
            self.previews = blob
            if changes:
                self.changes = changes
            if record:
                self.steps = [{"generation": h["generation"], "time": h["time"]} for h in self._history]
        self._snap = snap
        self._sig = sig
        self._dirty = False

    def _send_snapshot(self, snap):
        """Sync ``snap`` as ``base`` + ``checkpoint`` + ``delta``, sending as little as it can.

        ``delta`` (checkpoint -> now) is what an update usually sends: a NumPy write changes no
        field at all, a pytensor write the counters. When it outgrows half the checkpoint, now
        becomes the checkpoint (``checkpoint``: base -> now, resent); when that outgrows half the
        base, now becomes the base.
        """
        if not self.base:
            self.base, self.checkpoint, self.delta = snap, {}, {}
            self._mark, self._mark_size = snap, 0
            return
        tail, tail_size = _delta(self._mark, snap)
        if tail_size <= max(TAIL_FIELDS, self._mark_size / 2):
            self.delta = tail
            return
        settled, size = _delta(self.base, snap)
        if size > REBASE_FRACTION * _size(self.base):
            self.base, self.checkpoint, self.delta = snap, {}, {}
            self._mark, self._mark_size = snap, 0
        else:
            self.checkpoint, self.delta = settled, {}
            self._mark, self._mark_size = snap, size

    def _remember(self, snap, blob, changes):
        """One history step; the oldest go first when there are too many or their previews too big."""
        note = "views added, freed or moved" if self._history else "the first picture"
        self._history.append({"generation": snap["generation"], "time": round(time.time(), 1),
                              "snap": snap, "previews": blob, "changes": changes, "note": note})
        while len(self._history) > 1 and (len(self._history) > HISTORY_STEPS or
                                          sum(len(h["previews"]) for h in self._history) > HISTORY_BYTES):
            self._history.popleft()

    def _changes(self, snap, blob):
        """What changed since the last snapshot: byte ranges per region and the views reading them."""
        old = {r["id"]: r for r in self._snap.get("regions", [])}
        old_blob = self.previews
        regions, views, writers = {}, set(), {}
        vmap = {v["id"]: v for v in snap["views"]}
        for r in snap["regions"]:
            o = old.get(r["id"])
            if o is None:
                continue
            p, q = r["preview"], o["preview"]
            ranges = []
            if (p["start"], p["length"]) == (q["start"], q["length"]):
                for a, b in p["known"]:
                    if any(x <= a and b <= y for x, y in q["known"]):
                        ranges += _ranges(old_blob[q["pos"] + a - q["start"]:q["pos"] + b - q["start"]],
                                          blob[p["pos"] + a - p["start"]:p["pos"] + b - p["start"]], a)
            bumped = r["version"] is not None and o["version"] is not None and r["version"] != o["version"]
            if ranges or bumped:
                through = self._written_through(r, o["version"]) if bumped else None
                writers[r["id"]] = _writer(o["version"], r["version"], bool(ranges), through)
            if ranges:
                regions[r["id"]] = ranges
                for vid in r["views"]:
                    v = vmap[vid]
                    if any(elements_in_window(v["shape"], v["bstrides"], v["itemsize"], v["byte_offset"], a, b, limit=1)
                           for a, b in ranges):
                        views.add(vid)
            elif bumped:  # written through pytensor, outside the window or with equal values
                views.update(r["views"])
        if not regions and not views:
            return None
        self._tick += 1
        return {"tick": self._tick, "generation": snap["generation"], "regions": regions,
                "views": sorted(views, key=lambda s: int(s[1:])), "writers": writers}

    def _written_through(self, region, since):
        """The tensor the last write into ``region`` went through (see ``_through``), or None.

        ``since`` is the region's summed write counter in the previous picture; with one
        storage it is that storage's own counter, with several it cannot be split, so only a
        region of one pytensor storage is attributed.
        """
        prov = _provenance()
        if prov is None:
            return None
        vids = set(region["views"])
        alive, storages = {}, {}
        for e in self._entries:
            if e.vid not in vids:
                continue
            obj = e.me.get()
            if obj is not None:
                alive[id(obj)] = (obj, e.name)
            for w in e.owners:
                o = w.get()
                if o is not None and hasattr(o, "version") and hasattr(o, "refcount"):
                    storages[id(o)] = o
        if len(storages) != 1:
            return None
        return _through(prov, next(iter(storages.values())), alive, since)

    # ---------------------------------------------------------------- front-end messages
    def _on_custom_msg(self, _widget, content, _buffers):
        op = content.get("op") if isinstance(content, dict) else None
        if op == "poll":
            changed = False
            try:
                changed = self.check()
            finally:
                self.send({"op": "pong", "changed": changed})
        elif op == "window":
            rid, start = content.get("region"), content.get("start")
            if isinstance(rid, str) and isinstance(start, (int, float)):
                self._windows[rid] = max(0, int(start))
                self.refresh(_record=False)          # a moved window is not a change in memory
        elif op == "step":
            self._send_step(content.get("generation"))

    def _send_step(self, generation):
        """One history step's picture, as a delta from the current base and its previews as a buffer."""
        h = next((h for h in self._history if h["generation"] == generation), None)
        if h is None:
            self.send({"op": "step", "generation": generation, "missing": True})
            return
        self.send({"op": "step", "generation": generation, "delta": _delta(self.base, h["snap"])[0],
                   "changes": h["changes"] or {}, "info": _step_info(h)}, buffers=[h["previews"]])

    # ---------------------------------------------------------------- outputs
    def to_text(self):
        """The terminal summary, brought up to date first."""
        self.check()
        return to_text(self.snapshot, self.previews)

    def __repr__(self):
        if getattr(self, "_entries", None) is None:  # still being constructed
            return object.__repr__(self)
        return self.to_text()

    def to_html(self, title="pytensor memory inspector", fragment=False):
        """A self-contained HTML page (inline JS and CSS, no CDN); hover works with no kernel."""
        self.check()
        return to_html(self.snapshot, self.previews, title=title, fragment=fragment)

    def _ipython_display_(self, **kwargs):
        """The live view, then the same picture as static HTML for when there is no live view.

        JupyterLab and Notebook 7 draw a widget output from its model or not at
        all ("model not found" once the kernel that held the model is gone), so
        the fallback is a second output, not a second mimetype of the first.
        The live view hides it (see ``mountFallback`` in inspector.js and
        inspector.css); ``nbconvert``, a kernel-less JupyterLab and sites that
        render outputs show it.
        """
        from IPython.display import display
        bundle = self._repr_mimebundle_(**kwargs)
        data, meta = bundle if isinstance(bundle, tuple) else (bundle, {})
        if data:
            display(data, metadata=meta, raw=True)
        handle = display(self._fallback_bundle(), raw=True, display_id=True)
        if handle is not None:
            self._fallbacks.append(handle)
            self._fallback_generation = self._generation

    def _fallback_bundle(self):
        return {"text/html": to_html(self._snap, self.previews, fragment=True, fallback=True), "text/plain": ""}

    def _update_fallbacks(self):
        """After a cell: bring the saved pictures up to date, so a notebook saved now keeps today's.

        Once per cell that changed something, not per poll: each is a whole page fragment.
        """
        if self._fallbacks and self._fallback_generation != self._generation:
            bundle = self._fallback_bundle()
            for handle in self._fallbacks[-MAX_FALLBACKS:]:
                handle.update(bundle, raw=True)
            self._fallback_generation = self._generation

    def save_html(self, path, title="pytensor memory inspector"):
        """Write ``to_html()`` to ``path``; returns the path."""
        path = Path(path)
        path.write_text(self.to_html(title=title), encoding="utf-8")
        return path

    def close(self):
        """Stop tracking (detach every finalizer) and close the widget."""
        for e in getattr(self, "_entries", ()):
            if e.finalizer is not None:
                e.finalizer.detach()
        _LIVE.discard(self)
        super().close()
