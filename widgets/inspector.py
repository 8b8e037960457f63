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
  flashes.
"""
from __future__ import annotations

import sys
import weakref
from pathlib import Path

from ._export import asset, to_html, to_text
from ._lifetime import Watch, module_of, owners, span_of
from ._names import guess_names
from ._snapshot import PREVIEW_BYTES, build, elements_in_window, footprint, read_memory, resolve

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


def _signature(items):
    keys = ("addr0", "shape", "bstrides", "span_lo", "span_hi", "readonly", "version", "dtype", "status")
    return tuple((vid, tuple(d[k] for k in keys), d["source"]["key"], d["source"].get("refcount"))
                 for vid, _, d in items)


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
        snapshot = traitlets.Dict().tag(sync=True)
        previews = traitlets.Bytes(b"").tag(sync=True)
        changes = traitlets.Dict().tag(sync=True)
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
        holds = []
        descs = [resolve(obj, holds) for obj in objs]  # TypeError for what we cannot draw, before anything is kept
        for obj, name, desc in zip(objs, names, descs):
            e = _Entry(f"v{len(self._entries)}", str(name), obj, module)
            e.record = desc
            if e.me.kind == "weak":
                e.finalizer = weakref.finalize(obj, _mark_dead, weakref.ref(self))
                e.finalizer.atexit = False
            self._entries.append(e)
        self._note_anchors()
        # objs are still held here, so this first picture shows every one of them as live
        self.refresh(self._resolve_live(holds))
        return self

    def _resolve_live(self, holds):
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
                    d = resolve(obj, holds)
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
                d, note = self._from_owner(e, holds)
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
    def _from_owner(e, holds):
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
                d["source"] = dict(rec["source"], refcount=owner.refcount, version=owner.version)
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
    def refresh(self, _items=None):
        """Rebuild the snapshot now and send it to every view of this widget."""
        holds = []
        items = self._resolve_live(holds) if _items is None else _items
        gone = [{"name": e.name, "note": e.note} for e in self._entries if e.state == "gone"]
        snap, blob = build(items, windows=self._windows, preview_bytes=self._preview_bytes, gone=gone)
        del holds
        self._generation += 1
        snap["generation"] = self._generation
        changes = self._changes(snap, blob) if self.snapshot else None
        with self.hold_sync():
            self.snapshot = snap
            self.previews = blob
            if changes:
                self.changes = changes
        self._sig = _signature(items)
        self._dirty = False
        return self

    def check(self):
        """Redraw if anything changed since the last snapshot; returns True when it redrew.

        Cheap: re-resolves the live objects (attribute reads) and re-reads the
        preview windows, which lie inside memory the objects in ``holds``
        keep alive until this returns.
        """
        holds = []
        items = self._resolve_live(holds)
        if self._dirty or _signature(items) != self._sig:
            self.refresh(items)
            return True
        blob = self.previews
        for r in self.snapshot.get("regions", []):
            p = r["preview"]
            base = int(r["addr"], 16)
            for a, b in p["known"]:
                pos = p["pos"] + a - p["start"]
                if read_memory(base + a, b - a) != blob[pos:pos + b - a]:
                    self.refresh(items)
                    return True
        return False

    def _changes(self, snap, blob):
        """What changed since the last snapshot: byte ranges per region and the views reading them."""
        old = {r["id"]: r for r in self.snapshot.get("regions", [])}
        old_blob = self.previews
        regions, views = {}, set()
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
            if ranges:
                regions[r["id"]] = ranges
                for vid in r["views"]:
                    v = vmap[vid]
                    if any(elements_in_window(v["shape"], v["bstrides"], v["itemsize"], v["offset"], a, b, limit=1)
                           for a, b in ranges):
                        views.add(vid)
            elif bumped:  # written through pytensor, outside the window or with equal values
                views.update(r["views"])
        if not regions and not views:
            return None
        self._tick += 1
        return {"tick": self._tick, "regions": regions, "views": sorted(views, key=lambda s: int(s[1:]))}

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
                self.refresh()

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
