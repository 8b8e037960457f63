"""The live inspector widget: synced traitlets, ``refresh()``, no strong references.

Wiring only: traitlets, messages and display. The way through is one direction: the tracker
(``_tracker``: which objects are live, temporary or gone) gives the items, ``build`` (``_snapshot``)
makes the picture, sync (``_sync``, ``_deltas``: what changed, who wrote it, what to send, the
history) decides what travels, and the renderer (``inspector.js``) draws it.

How live redraw works:

* after every notebook cell (IPython's ``post_run_cell`` event) and whenever
  the front end polls (one ``{"op": "poll"}`` message in flight at a time,
  every ``poll_ms``), ``check()`` compares a cheap signature (layout,
  addresses, storage write counters, C refcounts) and re-reads the bounded
  preview windows (a few KiB per buffer) to catch foreign writers such as
  NumPy, which do not bump pytensor's counter;
* when anything differs it rebuilds the snapshot and sets ``changes`` to the byte ranges that
  changed and the views that read them, which the front end flashes. When only bytes and write
  counters changed (the layout of every view is the same), it re-reads the previews and counters
  into the last snapshot instead of rebuilding it: the model's pairwise overlap work is skipped on
  the common update, a write.

What travels: ``base`` is a whole snapshot, sent rarely; ``checkpoint`` is the change from
``base`` to a recent snapshot and ``delta`` the change from that one to now, each keyed by view,
region and overlap id, field by field (``_delta``), sent as text (``delta`` as JSON, the two others
packed: ``pack_json``). An update sends ``delta``
and the previews (a few KiB per buffer), not the snapshot; ``_send_snapshot`` says when others move.

History: the last ``HISTORY_STEPS`` pictures (each a snapshot, which shares its unchanged
dicts with its neighbours, and its preview bytes) stay in Python, within ``HISTORY_BYTES`` of
previews. ``steps`` lists them for the front end's slider (generation and time only, so an
update stays small); the front end asks for one step's picture with a ``{"op": "step"}``
message, and the answer carries the byte ranges that changed and who wrote them.
"""
from __future__ import annotations

import sys
import weakref

from . import _processes, _sync
from ._deltas import Channel
from ._deltas import apply as _apply  # noqa: F401  (tests reach _apply, _writer, HISTORY_STEPS here)
from ._deltas import delta as _delta
from ._display import Outputs, renderer_model
from ._export import PACKED_TRAIT, TEXT_TRAIT, live_module, renderer_hash
from ._lifetime import module_of
from ._names import guess_names
from ._objects import resolve
from ._pairs import Work
from ._schema import PREVIEW_BYTES
from ._snapshot import build
from ._sync import HISTORY_BYTES, HISTORY_STEPS, History  # noqa: F401
from ._sync import provenance as _provenance
from ._sync import writer as _writer  # noqa: F401
from ._tracker import Tracker

try:
    import anywidget
    import traitlets
    from ipywidgets import Widget, widget_serialization
except ImportError as _e:  # the package imports without the extra; using the widget says what to install
    anywidget = traitlets = None
    _MISSING = _e
else:
    _MISSING = None

__all__ = ["Inspector"]

_LIVE = weakref.WeakSet()      # inspectors to check after each cell
_HOOKED = []                   # the IPython shell our post_run_cell hook is registered with


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


_Base = anywidget.AnyWidget if anywidget is not None else object


class Inspector(Outputs, _Base):
    """A live picture of which tensors and arrays share which bytes.

    ``Inspector(a, b, names=["a", "b"])`` draws each distinct buffer once,
    one lane per view. A view is drawn for as long as its bytes exist: when
    the view object itself dies (``Inspector(t, t[::2])``) its lane stays,
    marked temporary, until the memory is freed. It holds no strong
    reference to anything it shows, so it never extends a lifetime or
    changes a refcount it shows (see ``_lifetime``). ``refresh()`` redraws now;
    ``to_html()``/``save_html()`` and ``to_text()`` give kernel-free outputs.

    >>> import pytensor
    >>> t = pytensor.arange(6, dtype=pytensor.int16)
    >>> w = Inspector(t, t[::2], names=["t", "evens"])
    >>> w.check()                  # t[::2] died after the call; its bytes did not
    True
    >>> [(v["name"], v["status"]) for v in w.snapshot["views"]]
    [('t', 'live'), ('evens', 'temporary')]
    >>> w.close()
    """

    if anywidget is not None:
        _esm = live_module()       # small: loads the renderer through renderer_model() (_display)
        _renderer = traitlets.Instance(Widget, allow_none=True).tag(sync=True, **widget_serialization)
        base = traitlets.Dict().tag(sync=True, **PACKED_TRAIT)   # a whole snapshot, resent only when delta outgrows it
        checkpoint = traitlets.Dict().tag(sync=True, **PACKED_TRAIT)   # base -> a recent snapshot (see _delta)
        delta = traitlets.Dict().tag(sync=True, **TEXT_TRAIT)       # checkpoint -> the current snapshot
        previews = traitlets.Bytes(b"").tag(sync=True)
        changes = traitlets.Dict().tag(sync=True)
        steps = traitlets.List().tag(sync=True)       # the history slider's steps, oldest first
        poll_ms = traitlets.Int(300).tag(sync=True)
        renderer = traitlets.Unicode(renderer_hash()).tag(sync=True)   # the id saved copies load it by

    def __init__(self, *objs, names=None, poll_ms=300, preview_bytes=PREVIEW_BYTES, _namespace=None, **kwargs):
        if _MISSING is not None:
            raise ImportError("the live inspector needs anywidget and ipywidgets: "
                              "pip install 'pytensor-mem[widgets]'") from _MISSING
        if _namespace is None:      # where bytes/bytearray objects are looked up again by identity
            _namespace = sys._getframe(1).f_globals
        if names is None:
            names = guess_names(objs, sys._getframe(1))
        # resolved once, before a widget (and its comm) exists: what we cannot draw is refused here
        holds, work = [], Work()
        descs, names = self._describe(objs, names, holds, work)
        super().__init__(poll_ms=poll_ms, _renderer=renderer_model(), **kwargs)
        self._tracker = Tracker()
        self._channel = Channel()
        self._history = History()
        self._windows = {}
        self._preview_bytes = int(preview_bytes)
        self._sig = None
        self._snap = {}
        self._live = ({"regions": [], "views": []}, b"")   # the last picture without its freed lanes, and its bytes
        self._fallbacks, self._fallback_generation = [], 0   # display handles of the static pictures
        self._generation = 0
        self._tick = 0
        self.on_msg(self._on_custom_msg)
        self._track(objs, names, descs, module_of(_namespace), holds, work)
        _LIVE.add(self)
        _install_hook()

    @property
    def _entries(self):
        return self._tracker.entries

    # ---------------------------------------------------------------- tracking
    def add(self, *objs, names=None, _namespace=None):
        """Inspect more objects and redraw. Nothing here keeps them, or their memory, alive."""
        frame = sys._getframe(1)
        names = list(names) if names is not None else guess_names(objs, frame)
        module = module_of(_namespace if _namespace is not None else frame.f_globals)
        del frame
        holds, work = [], Work()
        descs, names = self._describe(objs, names, holds, work)
        return self._track(objs, names, descs, module, holds, work)

    @staticmethod
    def _describe(objs, names, holds, work):
        """Each object resolved (TypeError for what we cannot draw, before anything is kept)."""
        names = list(names)
        if len(names) != len(objs):
            raise ValueError(f"got {len(objs)} objects but {len(names)} names")
        return [resolve(obj, holds, work) for obj in objs], names

    def _track(self, objs, names, descs, module, holds, work):
        added = self._tracker.add(objs, names, descs, module)
        fresh = {e.vid: d for e, d in zip(added, descs)}
        # objs are still held here, so this first picture shows every one of them as live
        self.refresh(self._tracker.live_items(holds, work, fresh), _work=work)
        return self

    # ---------------------------------------------------------------- redraw
    @property
    def snapshot(self):
        """The current snapshot dict (``base`` with ``checkpoint`` and ``delta`` applied)."""
        return self._snap

    def refresh(self, _items=None, _record=True, _work=None):
        """Rebuild the snapshot now and send it to every view of this widget."""
        holds, work = [], _work if _work is not None else Work()
        items = self._tracker.live_items(holds, work) if _items is None else _items
        snap, blob = build(items, windows=self._windows, preview_bytes=self._preview_bytes,
                           gone=self._tracker.gone(), work=work)
        del holds
        self._publish(snap, blob, _sync.signature(items), record=_record)
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
        items = self._tracker.live_items(holds, work)
        sig = _sync.signature(items)
        if self._tracker.dirty or self._sig is None or sig[0] != self._sig[0]:
            self.refresh(items, _work=work)
            return True
        # only the live part is read again and recounted: freed lanes are photos, never memory
        live, old = self._live
        blob = _sync.reread(live, old)
        procs = _processes.moved(live)                     # a child copied pages, or exited
        if sig == self._sig and blob == old and not procs:
            return False
        if procs or any(r.get("file") for r in live["regions"]):
            self.refresh(items, _work=work)            # a mapped file's resident and copied pages move with its writes
        else:
            self._publish(_sync.recount(live, items), blob, sig)
        return True

    def _publish(self, live, live_blob, sig, record=True):
        """Number the picture, add the freed lanes, work out what changed and who wrote it, remember it,
        and send the difference. ``live``/``live_blob``: the picture of what memory holds now."""
        self._generation += 1
        self._tracker.remember(live, live_blob, self._generation)
        self._live = (live, live_blob)
        snap, blob = self._tracker.with_freed(live, live_blob)
        snap = dict(snap) if snap is live else snap
        snap["generation"] = self._generation
        changes = None
        if self._snap:
            changes = _sync.changes(self._snap, self.previews, snap, blob, self._tick + 1, self._written_through)
            self._tick += changes is not None
        if record and self._history.wants(snap, changes):
            self._history.remember(snap, blob, changes)
        with self.hold_sync():
            for trait, value in self._channel.update(snap).items():
                setattr(self, trait, value)
            self.previews = blob
            if changes:
                self.changes = changes
            if record:
                self.steps = self._history.steps()
        self._snap = snap
        self._sig = sig
        self._tracker.dirty = False

    def _written_through(self, region, since):
        """The tensor the last write into ``region`` went through (``_sync.through``), or None."""
        prov = _provenance()
        if prov is None:
            return None
        alive, storage = self._tracker.writers_of(region)
        return _sync.through(prov, storage, alive, since) if storage is not None else None

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
        elif op in ("carry", "renderer"):         # a view found no stored renderer on its page (loader_live.js)
            (self._carry_again if op == "carry" else self._renderer.send_renderer)()

    def _send_step(self, generation):
        """One history step's picture, as a delta from the current base and its previews as a buffer."""
        h = self._history.find(generation)
        if h is None:
            self.send({"op": "step", "generation": generation, "missing": True})
            return
        self.send({"op": "step", "generation": generation, "delta": _delta(self.base, h["snap"])[0],
                   "changes": h["changes"] or {}, "info": _sync.step_info(h)}, buffers=[h["previews"]])

    def close(self):
        """Stop tracking (detach every finalizer) and close the widget."""
        tracker = getattr(self, "_tracker", None)
        for e in tracker.entries if tracker is not None else ():
            if e.finalizer is not None:
                e.finalizer.detach()
        _LIVE.discard(self)
        super().close()
