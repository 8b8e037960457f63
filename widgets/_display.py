"""The live inspector's outputs that need no live view: text, HTML, and the static copies a notebook keeps.

A mixin of ``Inspector``: it reads the widget's current picture (``snapshot``,
``previews``, ``_snap``, ``_generation``) and brings it up to date with
``check()`` first.
"""
from __future__ import annotations

from pathlib import Path

from ._export import to_html, to_text

__all__ = ["Outputs", "MAX_FALLBACKS"]

MAX_FALLBACKS = 4              # displays of one widget whose static picture follows its changes


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
