"""The live inspector's outputs that need no live view: text, HTML, and the static copies a notebook keeps.

A mixin of ``Inspector``: it reads the widget's current picture (``snapshot``,
``previews``, ``_snap``, ``_generation``) and brings it up to date with
``check()`` first.
"""
from __future__ import annotations

import functools
from pathlib import Path

from ._export import fallback_html, live_loader, renderer_packed, to_html, to_text

__all__ = ["Outputs", "MAX_FALLBACKS", "renderer_model"]

MAX_FALLBACKS = 4              # displays of one widget whose static picture follows its changes


class _Carrier:
    """Which static copy of this kernel stores the renderer (``fallback_html``'s ``carry``): the first one,
    again whenever the cell whose output held it runs anew (running a cell clears its outputs).

    Cells are known by the id the front end sends with each execution (JupyterLab, Notebook 7 and
    VS Code send one); without ids, the first copy of the kernel's life carries it.
    """

    def __init__(self):
        self.stored, self.cell, self._hooked = False, None, []
        self._repaired = float("-inf")

    def take(self):
        """Whether the copy being displayed now must store the renderer (and, if so, it now does)."""
        self._hook()
        if self.stored:
            return False
        self.stored, self.cell = True, _running_cell()
        return True

    def may_repair(self, now):
        """Whether a live view's report that the page lost the renderer is the first in a while (all live
        views report it at once; one copy storing it again is enough)."""
        if now - self._repaired < 10:
            return False
        self._repaired, self.stored, self.cell = now, True, None
        return True

    def _before_cell(self, info=None):
        if self.cell is not None and getattr(info, "cell_id", None) == self.cell:
            self.stored = False

    def _hook(self):
        from IPython import get_ipython
        ip = get_ipython()
        if ip is not None and not any(h is ip for h in self._hooked):
            ip.events.register("pre_run_cell", self._before_cell)
            self._hooked.append(ip)


def _running_cell():
    """The id of the cell running now, as the front end sent it (None when it sent none)."""
    from IPython import get_ipython
    ip = get_ipython()
    kernel = getattr(ip, "kernel", None)
    try:
        parent = kernel.get_parent() if kernel is not None else getattr(ip, "parent_header", None)
    except (AttributeError, TypeError):
        parent = None
    return ((parent or {}).get("metadata") or {}).get("cellId")


_CARRIER = _Carrier()


@functools.lru_cache(maxsize=1)
def _renderer_class():
    import ipywidgets
    import traitlets

    class InspectorRenderer(ipywidgets.Widget):
        """What the live views of this kernel load their renderer with: a plain widget model, no view."""
        loader = traitlets.Unicode(live_loader()).tag(sync=True)      # loader_live.js
        packed = traitlets.Unicode("").tag(sync=True)                 # the renderer, once a view asked

        def send_renderer(self):
            self.packed = renderer_packed()

    return InspectorRenderer


_RENDERER = []


def renderer_model():
    """The one widget model of this kernel through which the live views load the renderer.

    Each widget's ``_esm`` is saved with the notebook's widget state, once per inspector: the whole
    renderer there made 13 pictures 2 MB. So ``_esm`` only finds this model; the code that loads the
    renderer is stored here once, and the renderer itself comes from the static copy that stores it
    (``loader_live.js``), or, where none is on the page, from here once a view asks
    (``send_renderer``). A new one replaces it if it was closed (``Widget.close_all()``).
    """
    if not _RENDERER or _RENDERER[0].comm is None:
        _RENDERER[:] = [_renderer_class()()]
    return _RENDERER[0]


class Outputs:
    """Text, HTML and display for a widget with ``check()``, ``snapshot``, ``previews``, ``_snap``,
    ``_generation`` and a ``_fallbacks`` list (display handles of its static copies)."""

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
        """The live view, then the same picture as a static copy for when there is no live view.

        Two outputs, so that every front end shows one clean picture:

        * the widget view, with an empty ``text/plain``: JupyterLab and Notebook 7 draw a widget output
          from its model or not at all, so the static copy cannot be another mimetype of this output;
          nbconvert and VS Code, without a model, draw the next mimetype, which must not be the text
          summary (it would show above the picture);
        * the static copy: ``text/html`` (``fallback_html``: drawn only while no live view shares its
          output area; in JupyterLab and Notebook 7 it also hides the dead widget output before it),
          with the text summary as ``text/plain`` for viewers that show text only.
        """
        from IPython.display import display
        bundle = self._repr_mimebundle_(**kwargs)
        data, meta = bundle if isinstance(bundle, tuple) else (bundle, {})
        if data:
            display(dict(data, **{"text/plain": ""}), metadata=meta, raw=True)
        carry = _CARRIER.take()
        handle = display(self._fallback_bundle(carry), raw=True, display_id=True)
        if handle is not None:
            self._fallbacks.append((handle, carry))
            self._fallback_generation = self._generation

    def _fallback_bundle(self, carry=True):
        return {"text/html": fallback_html(self._snap, self.previews, carry=carry),
                "text/plain": to_text(self._snap, self.previews)}

    def _update_fallbacks(self):
        """After a cell: bring the saved pictures up to date, so a notebook saved now keeps today's.

        Once per cell that changed something, not per poll: each is a whole page fragment.
        """
        if self._fallbacks and self._fallback_generation != self._generation:
            for handle, carry in self._fallbacks[-MAX_FALLBACKS:]:
                handle.update(self._fallback_bundle(carry), raw=True)
            self._fallback_generation = self._generation

    def _carry_again(self):
        """A live view found no stored renderer on its page (the cell that held it was deleted, or ran
        anew and showed no inspector): this widget's newest static copy stores it again, so the
        notebook saved next draws every picture."""
        import time
        if self._fallbacks and _CARRIER.may_repair(time.monotonic()):
            handle, _ = self._fallbacks[-1]
            self._fallbacks[-1] = (handle, True)
            handle.update(self._fallback_bundle(True), raw=True)

    def save_html(self, path, title="pytensor memory inspector"):
        """Write ``to_html()`` to ``path``; returns the path."""
        path = Path(path)
        path.write_text(self.to_html(title=title), encoding="utf-8")
        return path
