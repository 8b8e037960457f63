"""pytensor.widgets: the memory inspector, a picture of which tensors share which bytes.

``inspect(a, b, ...)`` returns a live Jupyter widget (needs the ``widgets``
extra: anywidget and ipywidgets). ``snapshot``, ``to_text`` and ``write_html``
need neither and work in any Python.

>>> import numpy as np
>>> from pytensor.widgets import snapshot, to_text
>>> a = np.arange(4, dtype=np.int16)
>>> print(to_text(*snapshot(a, a[::2], names=["a", "evens"])).splitlines()[0])
pytensor memory inspector: 2 views of 1 buffer
"""
import sys

from pathlib import Path

from ._export import to_html, to_html_page, to_text
from ._lineage import why
from ._names import expand_mappings, guess_names
from ._recording import record, recorded
from ._snapshot import snapshot
from ._tracked import track
from .inspector import Inspector

__all__ = ["inspect", "Inspector", "snapshot", "to_text", "to_html", "write_html", "figure", "write_page", "record",
           "recorded", "why", "track", "load_ipython_extension"]


def inspect(*tensors_or_arrays, names=None, **kwargs):
    """A live :class:`Inspector` of the given tensors, NumPy arrays or buffers.

    ``names`` defaults to the argument expressions as written at the call
    (``inspect(t, t[::2])`` names its lanes ``t`` and ``t[::2]``); a dict
    argument (``inspect(safetensors.load_file(path))``) gives one lane per
    value, named by its key. Extra keyword arguments (``poll_ms``,
    ``preview_bytes``) go to ``Inspector``.
    """
    frame = sys._getframe(1)
    if names is None:
        names = guess_names(tensors_or_arrays, frame)
    objs, names = expand_mappings(tensors_or_arrays, names)
    return Inspector(*objs, names=names, _namespace=frame.f_globals, **kwargs)


def write_html(path, *tensors_or_arrays, names=None, title="pytensor memory inspector"):
    """Write a self-contained HTML picture of the objects to ``path`` (no widget libraries needed)."""
    if names is None:
        names = guess_names(tensors_or_arrays, sys._getframe(1), skip=1)
    objs, names = expand_mappings(tensors_or_arrays, names)
    snap, blob = snapshot(*objs, names=names)
    path = Path(path)
    path.write_text(to_html(snap, blob, title=title), encoding="utf-8")
    return path


def figure(heading, *tensors_or_arrays, names=None, text=""):
    """A picture of the objects as they are now, with a heading and prose, for ``write_page``.

    It is a plain dict (the snapshot and its preview bytes): it keeps no
    reference to the objects, so temporaries can be drawn and then die.
    """
    if names is None:
        names = guess_names(tensors_or_arrays, sys._getframe(1), skip=1)
    objs, names = expand_mappings(tensors_or_arrays, names)
    snap, blob = snapshot(*objs, names=names)
    return {"heading": heading, "text": text, "snapshot": snap, "previews": blob}


def write_page(path, figures, title="pytensor memory inspector"):
    """Write several ``figure()`` pictures as one self-contained HTML page; returns the path."""
    path = Path(path)
    path.write_text(to_html_page(figures, title=title), encoding="utf-8")
    return path


def load_ipython_extension(shell):
    """``%load_ext pytensor.widgets``: registers the ``%%record`` cell magic, which runs its cell inside
    ``record()`` (done already when ``pytensor.widgets`` is imported in IPython)."""
    from ._recording import record_cell

    def record_magic(line, cell):
        """%%record: run the cell recording which torch operation made each tensor, view or copy, and why."""
        record_cell(shell, cell)

    shell.register_magic_function(record_magic, magic_kind="cell", magic_name="record")


def _register_in_ipython():
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    if shell is not None and hasattr(shell, "register_magic_function"):
        load_ipython_extension(shell)


_register_in_ipython()
