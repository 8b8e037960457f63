"""NumPy in a recording, through the hooks NumPy offers: ``track(a)``.

NumPy calls ``__array_function__`` and ``__array_ufunc__`` only on types other than ndarray and
on its subclasses, and a plain array's indexing and methods are C code that nothing can hook: so a
recording cannot see plain arrays. ``track(a)`` returns ``a`` viewed as a subclass whose NumPy
functions (``np.reshape``, ``np.transpose``, ...), ufuncs, indexing and copying methods
(``reshape``, ``ravel``, ``flatten``, ``copy``, ``astype``, ``transpose``, ``T``) are recorded while a
recording is on; results stay tracked, so a chain is recorded step by step. NumPy has no schema:
whether a result is a view is read from its ``.base`` chain (does it reach the input?), and the
reason for a copy from the layouts, as for torch.
"""
from __future__ import annotations

import weakref

from ._calls import call_parts, name_in_frames
from ._recording import Step, keep, recorded, recording

__all__ = ["track"]

_COPYING = {"reshape", "ravel", "flatten", "copy", "astype", "__getitem__", "take", "ascontiguousarray",
            "concatenate", "stack", "repeat", "tile", "flip", "sort", "array", "asarray"}
_Tracked = None


def track(arr):
    """``arr`` (any array-like) as a tracked NumPy array over the same bytes, recorded in a recording.

    >>> import numpy as np
    >>> a = track(np.arange(3))
    >>> type(a).__name__, a.base is not None
    ('TrackedArray', True)
    """
    import numpy as np
    plain = np.asarray(arr)
    out = plain.view(_tracked_class())
    keep(out, Step("track", ("track(", 0, ")"), ((weakref.ref(plain), None, None),), 0, True, None, "base"))
    return out


def _plain(x):
    import numpy as np
    return x.view(np.ndarray) if isinstance(x, _Tracked) else x


def _tracked_class():
    global _Tracked
    if _Tracked is not None:
        return _Tracked
    import numpy as np

    def method(name):
        def call(self, *args, **kwargs):
            out = getattr(np.ndarray, name)(self, *args, **kwargs)
            _note(f"numpy.ndarray.{name}", (self,) + args, kwargs, out)
            return out
        call.__name__ = name
        return call

    class TrackedArray(np.ndarray):
        """An ndarray whose operations a recording sees (``track``)."""

        def __array_function__(self, func, types, args, kwargs):
            out = super().__array_function__(func, types, args, kwargs)
            _note(f"numpy.{func.__name__}", args, kwargs, out)
            return out

        def __array_ufunc__(self, ufunc, method_name, *inputs, **kwargs):
            if "out" in kwargs:
                kwargs["out"] = tuple(_plain(o) for o in kwargs["out"])
            out = getattr(ufunc, method_name)(*[_plain(x) for x in inputs], **kwargs)
            if isinstance(out, np.ndarray) and not isinstance(out, TrackedArray):
                out = out.view(TrackedArray)
            _note(f"numpy.{ufunc.__name__}", inputs, {k: v for k, v in kwargs.items() if k != "out"}, out,
                  computed=True)
            return out

        @property
        def T(self):
            out = np.ndarray.T.__get__(self)
            _note("numpy.ndarray.T.__get__", (self,), {}, out)
            return out

    for name in ("__getitem__", "reshape", "ravel", "flatten", "copy", "astype", "transpose", "swapaxes"):
        setattr(TrackedArray, name, method(name))
    _Tracked = TrackedArray
    return _Tracked


def _reaches(out, src):
    """Whether ``out``'s ``.base`` chain reaches ``src`` (or ``src``'s own base): out is a view of it."""
    roots = {id(src)}
    if getattr(src, "base", None) is not None:
        roots.add(id(src.base))
    obj = out
    for _ in range(64):
        obj = getattr(obj, "base", None)
        if obj is None:
            return False
        if id(obj) in roots:
            return True
    return False


def _why(op, src, out):
    """Why NumPy made new memory, from the call and the layouts."""
    from pytensor import _inspect_api as api
    isz = src.itemsize
    if op == "__getitem__":
        return "indexing with a list or an array picks elements one by one into new memory (advanced indexing)"
    if op in ("reshape", "ravel") and all(s % isz == 0 for s in src.strides):
        strides = tuple(s // isz for s in src.strides)
        if api.view_strides(tuple(src.shape), strides, tuple(out.shape)) is None:
            return f"{op} could not make a view: strides {strides} cannot express shape {tuple(out.shape)}"
    if op in ("astype", "asarray", "array") and src.dtype != out.dtype:
        return f"it converts {src.dtype} to {out.dtype}"
    if op in ("flatten", "copy", "astype"):
        return f"{op}() always copies"
    return f"{op} wrote its result into new memory"


def _note(name, args, kwargs, out, computed=False):
    import numpy as np
    if not recording() or not isinstance(out, np.ndarray):
        return
    try:
        inputs = []
        parts, op = call_parts(name, args, kwargs, inputs)
        given = [x for x in inputs if isinstance(x, np.ndarray)]
        if not given or any(out is g for g in given):
            return
        ins = tuple((weakref.ref(t), step, None if step else name_in_frames(t)) for t in inputs
                    for step in [recorded(t)])
        j = next((k for k, g in enumerate(inputs) if isinstance(g, np.ndarray) and _reaches(out, g)), None)
        if j is not None:
            keep(out, Step(op, tuple(parts), ins, j, True, None, "base"))
            return
        j = next(k for k, g in enumerate(inputs) if isinstance(g, np.ndarray))
        copied = not computed and op in _COPYING
        keep(out, Step(op, tuple(parts), ins, j, False if copied else None,
                       _why(op, inputs[j], out) if copied else f"{op} computes new values into new memory",
                       ""))
    except Exception:             # noqa: BLE001  a record we cannot make must not break the program
        return

