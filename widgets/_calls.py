"""The call as the program wrote it (``x.T.reshape(6)``, ``x[[0, 2]]``, ``torch.cat([x, y])``), as parts:
strings, and ints naming the call's tensor inputs, so that each input can be written later by the
name it has in a picture. Nothing here keeps an argument alive."""
from __future__ import annotations

import sys
from inspect import CO_OPTIMIZED

__all__ = ["call_parts", "name_in_frames"]


def name_in_frames(obj):
    """The variable that holds ``obj`` in the nearest caller outside torch and this package, or None.

    A function's own variables are not read: on Python 3.12 and before, ``f_locals`` of a running
    function stores a dict of all its locals on the frame, which would keep them alive until it
    returns. Module code, a notebook cell and ``exec`` keep their variables in a plain dict."""
    f = sys._getframe(1)
    while f is not None and f.f_globals.get("__name__", "").split(".")[0] in ("torch", "numpy", "pytensor"):
        f = f.f_back
    if f is None:
        return None
    for scope in (f.f_globals,) if f.f_code.co_flags & CO_OPTIMIZED else (f.f_locals, f.f_globals):
        for k, v in list(scope.items()):
            if v is obj and not k.startswith("_"):
                return k
    return None


def _value(v, inputs):
    """One argument as Python source; a tensor or an array becomes the int naming it in ``inputs``."""
    torch, np = sys.modules.get("torch"), sys.modules.get("numpy")
    if (torch is not None and isinstance(v, torch.Tensor)) or (np is not None and isinstance(v, np.ndarray)):
        inputs.append(v)
        return [len(inputs) - 1]
    if isinstance(v, (list, tuple)) and not (torch is not None and isinstance(v, torch.Size)):
        inner = _join([_value(x, inputs) for x in v])
        return ["[" if isinstance(v, list) else "("] + inner + (["]"] if isinstance(v, list) else
                                                               [",)"] if len(v) == 1 else [")"])
    if isinstance(v, slice):
        text = ":".join("" if x is None else str(x) for x in (v.start, v.stop))
        return [text + (f":{v.step}" if v.step is not None else "")]
    if v is Ellipsis:
        return ["..."]
    if torch is not None and isinstance(v, torch.Size):
        return [repr(tuple(v))]
    if isinstance(v, (int, float, bool, str, type(None))) or (np is not None and isinstance(v, np.generic)):
        return [repr(v.item() if np is not None and isinstance(v, np.generic) else v)]
    if (torch is not None and isinstance(v, torch.dtype)) or (np is not None and isinstance(v, np.dtype)):
        return [str(v)]
    if isinstance(v, type):
        return [v.__name__]
    return [type(v).__name__]


def _join(pieces, sep=", "):
    out = []
    for k, p in enumerate(pieces):
        out += ([sep] if k else []) + p
    return out


def call_parts(name, args, kwargs, inputs):
    """The call as written: ``x.reshape(6)``, ``x.T``, ``x[[0, 2]]``, ``torch.cat([x, y])``, ``numpy.add(a, 1)``."""
    short = name.rsplit(".", 2)
    method = name.startswith(("torch.Tensor.", "numpy.ndarray."))
    if method and name.endswith(".__get__"):
        return _value(args[0], inputs) + ["." + short[-2]], short[-2]
    op = short[-1]
    rest = _join([_value(a, inputs) for a in args[1:]] + [[f"{k}="] + _value(v, inputs) for k, v in kwargs.items()])
    if method:
        head = _value(args[0], inputs)
        if op == "__getitem__":
            key = args[1]
            inner = _join([_value(x, inputs) for x in key]) if isinstance(key, tuple) else _value(key, inputs)
            return head + ["["] + inner + ["]"], op
        if op == "__array__":
            return ["numpy.asarray("] + head + [")"], op
        return head + [f".{op}("] + rest + [")"], op
    every = _join([_value(a, inputs) for a in args] + [[f"{k}="] + _value(v, inputs) for k, v in kwargs.items()])
    return [f"{name}("] + every + [")"], op
