"""Lane names: what the user typed at the call site, else a variable bound to the object.

``inspect(o, o[::2], o[1:3])`` should label its lanes ``o``, ``o[::2]`` and
``o[1:3]``: the expressions are the best names a teacher could give them, and
the temporaries have no variable at all. The call's own source text is found
through the calling instruction's position (``co_positions``, Python 3.11+)
and the file's lines (``linecache``, which IPython fills with each cell).
Anything that cannot be read that way (no source, ``*args``, an odd frame)
falls back to a module-level variable bound to the same object, then to ``#i``.
"""
from __future__ import annotations

import ast
import linecache
from collections.abc import Mapping

__all__ = ["guess_names", "expand_mappings"]

MAX_NAME = 32   # characters; longer expressions are cut with an ellipsis


def guess_names(objs, frame, skip=0):
    """A name per object in ``objs``, the ``skip``-th and later positional arguments of ``frame``'s current call."""
    try:
        exprs = _call_arguments(frame, skip, len(objs)) if frame is not None else None
        # Only a module's namespace is searched: reading a function frame's f_locals makes CPython
        # (before 3.13) cache a dict of its locals on the frame, a strong reference to every object
        # we were handed that outlives this call.
        scopes = [frame.f_globals] if frame is not None else []
        names = []
        for i, o in enumerate(objs):
            name = exprs[i] if exprs else None
            if name is None:
                for scope in scopes:
                    cands = [k for k, v in list(scope.items()) if v is o and not k.startswith("_")]
                    if cands:
                        name = min(cands, key=lambda k: (len(k), k))
                        break
            names.append(name or f"#{i}")
        return names
    finally:
        del frame


def _call_arguments(frame, skip, count):
    """Source text of the positional arguments of the call running in ``frame``, or None."""
    try:
        positions = list(frame.f_code.co_positions())[frame.f_lasti // 2]
    except (AttributeError, IndexError, ValueError):
        return None
    line0, line1, col0, col1 = positions
    if None in positions:
        return None
    lines = linecache.getlines(frame.f_code.co_filename, frame.f_globals)
    if not lines or line1 > len(lines):
        return None
    chunk = lines[line0 - 1:line1]
    chunk[-1] = chunk[-1][:col1]
    chunk[0] = chunk[0][col0:]
    text = "".join(chunk)
    try:
        call = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        return None
    if not isinstance(call, ast.Call) or any(isinstance(a, ast.Starred) for a in call.args):
        return None
    args = call.args[skip:]
    if len(args) != count:
        return None
    return [_short(ast.get_source_segment(text.strip(), a) or ast.unparse(a)) for a in args]


def _short(text):
    text = " ".join(text.split())
    return text if len(text) <= MAX_NAME else text[:MAX_NAME - 1] + "\u2026"


def expand_mappings(objs, names):
    """``(objs, names)`` with every mapping argument replaced by its values, each named by its key:
    ``inspect(safetensors.load_file(path))`` draws one lane per tensor, labelled with its name; and
    every list or tuple argument by its items, named ``views[i]`` after the argument (the picture
    folds such a family of lanes into one compact coverage view)."""
    if not any(isinstance(o, (Mapping, list, tuple)) for o in objs):
        return list(objs), list(names)
    out_objs, out_names = [], []
    for obj, name in zip(objs, names):
        if isinstance(obj, Mapping):
            out_objs.extend(obj.values())
            out_names.extend(str(k) for k in obj.keys())
        elif isinstance(obj, (list, tuple)):
            out_objs.extend(obj)
            out_names.extend(f"{name}[{i}]" for i in range(len(obj)))
        else:
            out_objs.append(obj)
            out_names.append(name)
    return out_objs, out_names
