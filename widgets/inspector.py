"""The live inspector widget: synced traitlets, ``refresh()``, weak references only.

The widget never holds a strong reference to what it shows: each inspected
object is a ``weakref.ref`` plus a ``weakref.finalize`` that only sets a flag
(finalizers run at awkward moments, so they never talk to the front end).
``bytes`` and ``bytearray`` cannot be weakly referenced; they are drawn from
the first snapshot for as long as a tracked alias keeps the same memory alive.

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
from ._snapshot import PREVIEW_BYTES, build, elements_in_window, read_memory, resolve, weakrefable

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
    """One inspected object: a weak reference, or a frozen description when none is possible."""

    __slots__ = ("vid", "name", "ref", "finalizer", "alive", "frozen", "anchors", "note")

    def __init__(self, vid, name):
        self.vid, self.name = vid, name
        self.ref = self.finalizer = self.frozen = None
        self.alive, self.anchors, self.note = True, (), ""


def _mark_dead(wself, vid):
    """Finalizer callback: flag only (it may run inside any allocation, on any thread)."""
    self = wself()
    if self is not None:
        self._dirty = True


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
    keys = ("addr0", "shape", "bstrides", "span_lo", "span_hi", "readonly", "version", "dtype")
    return tuple((vid, tuple(d[k] for k in keys), d["source"]["key"], d["source"].get("refcount"))
                 for vid, _, d in items)


_Base = anywidget.AnyWidget if anywidget is not None else object


class Inspector(_Base):
    """A live picture of which tensors and arrays share which bytes.

    ``Inspector(a, b, names=["a", "b"])`` draws each distinct buffer once,
    one lane per view. It keeps weak references only, so it never extends a
    lifetime or changes a refcount it shows. ``refresh()`` redraws now;
    ``to_html()``/``save_html()`` and ``to_text()`` give kernel-free outputs.
    """

    if anywidget is not None:
        _esm = asset("inspector.js")
        _css = asset("inspector.css")
        snapshot = traitlets.Dict().tag(sync=True)
        previews = traitlets.Bytes(b"").tag(sync=True)
        changes = traitlets.Dict().tag(sync=True)
        poll_ms = traitlets.Int(300).tag(sync=True)

    def __init__(self, *objs, names=None, poll_ms=300, preview_bytes=PREVIEW_BYTES, **kwargs):
        if _MISSING is not None:
            raise ImportError("the live inspector needs anywidget and ipywidgets: "
                              "pip install 'pytensor-mem[widgets]'") from _MISSING
        if names is None:
            names = _guess_names(objs, sys._getframe(1))
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
        self.add(*objs, names=names)
        _LIVE.add(self)
        _install_hook()

    # ---------------------------------------------------------------- tracking
    def add(self, *objs, names=None):
        """Inspect more objects (weakly) and redraw."""
        names = list(names) if names is not None else _guess_names(objs, sys._getframe(1))
        if len(names) != len(objs):
            raise ValueError(f"got {len(objs)} objects but {len(names)} names")
        descs = [resolve(obj) for obj in objs]  # TypeError for what we cannot draw, before anything is kept
        frozen = []
        for obj, name, desc in zip(objs, names, descs):
            e = _Entry(f"v{len(self._entries)}", str(name))
            e.note = f"was {_describe(desc)}"
            if weakrefable(obj):
                e.ref = weakref.ref(obj)
                e.finalizer = weakref.finalize(obj, _mark_dead, weakref.ref(self), e.vid)
                e.finalizer.atexit = False
            else:
                desc["tracked"] = False
                e.frozen = desc
                e.note = f"{type(obj).__name__} cannot be weakly referenced; drawn while an alias keeps it alive"
                frozen.append(e)
            self._entries.append(e)
        for e in frozen:
            e.anchors = tuple(x.vid for x in self._live_entries_covering(e.frozen))
        self.refresh()
        return self

    def _live_entries_covering(self, desc):
        out = []
        for e in self._entries:
            obj = e.ref() if e.ref is not None else None
            if obj is None:
                continue
            d = resolve(obj)
            del obj
            if d["device"] == desc["device"] and d["span_lo"] <= desc["span_lo"] and desc["span_hi"] <= d["span_hi"]:
                out.append(e)
        return out

    def _resolve_live(self):
        """``(vid, name, description)`` of every object still alive; marks the dead ones."""
        items, alive = [], set()
        for e in self._entries:
            if e.ref is None:
                continue
            obj = e.ref()
            if obj is None:
                if e.alive:
                    e.alive = False
                    self._dirty = True
                continue
            items.append((e.vid, e.name, resolve(obj)))
            alive.add(e.vid)
            del obj
        for e in self._entries:
            if e.frozen is not None:
                ok = bool(e.anchors) and any(a in alive for a in e.anchors)
                if ok:
                    items.append((e.vid, e.name, dict(e.frozen)))
                elif e.alive:
                    e.alive = False
                    self._dirty = True
        order = {e.vid: k for k, e in enumerate(self._entries)}
        items.sort(key=lambda it: order[it[0]])
        return items

    # ---------------------------------------------------------------- redraw
    def refresh(self, _items=None):
        """Rebuild the snapshot now and send it to every view of this widget."""
        items = self._resolve_live() if _items is None else _items
        gone = [{"name": e.name, "note": e.note}
                for e in self._entries if not e.alive]
        snap, blob = build(items, windows=self._windows, preview_bytes=self._preview_bytes, gone=gone)
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
        preview windows, which lie inside memory those objects keep alive.
        """
        items = self._resolve_live()
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


def _guess_names(objs, frame):
    """Variable names of ``objs`` in the caller's scope (by identity), else ``#i``."""
    try:
        scopes = [frame.f_locals, frame.f_globals] if frame is not None else []
        names = []
        for i, o in enumerate(objs):
            found = None
            for scope in scopes:
                cands = [k for k, v in list(scope.items()) if v is o and not k.startswith("_")]
                if cands:
                    found = min(cands, key=lambda k: (len(k), k))
                    break
            names.append(found or f"#{i}")
        return names
    finally:
        del frame
