"""Provenance: how each tensor was made, and whether it shares or copied.

Every view and constructor records one step on the tensor it makes (in C,
for a few nanoseconds: see ``_shim_prov.c``): an operation code, the
argument the caller passed (an index key, a size tuple, the source's type)
and its parent's *node*. A node is the tuple ``(op, arg, from_node, depth)``
(depth: the nodes in its chain, at most 255: longer chains are cut to 64);
it holds no tensor, so a chain outlives its tensors and keeps none alive.
Text is made here, only when someone asks.

>>> import pytensor
>>> base = pytensor.arange(12)
>>> col = base.view(3, 4)[:, 2]
>>> [s.text for s in pytensor.provenance(col)]
['arange(12).view(3, 4)[:, 2]', 'arange(12).view(3, 4)', 'arange(12)']
>>> pytensor.provenance(col.contiguous())[0].why
'not contiguous'
"""
from __future__ import annotations

from typing import NamedTuple

from ._ffi import shim

__all__ = ["Step", "provenance", "set_enabled", "is_enabled", "last_writer", "node", "chain", "expr", "origin",
           "source"]

OPS = shim.prov_ops                          # code -> name; the list lives in _shim.h (PYT_PROV_OPS)
OP = {name: code for code, name in enumerate(OPS)}

# Steps whose result is new memory filled from the parent (or the source).
# The why of each: a constant, or made from the argument by _why.
_COPIES = {"contiguous": "not contiguous", "clone": "clone() always copies", "to": None, "convert": None,
           "gather": "advanced indexing copies", "from_dlpack_copied": "producer set IS_COPIED",
           "tensor": "tensor() always copies"}
# Steps that make new memory from nothing: neither shared nor copied.
_FRESH = {"", "factory"}
MAX_INLINE = 48        # an unnamed parent longer than this is written "…" inside its child's text

node = shim.prov_node            # node(t) -> (op, arg, from_node, depth): made on first use, then cached on t
_write_record = shim.last_write


class Step(NamedTuple):
    """One step of a tensor's history, newest first in ``provenance()``."""
    op: str              # the operation's name ("index", "view", "from_numpy", ...; "" when unrecorded)
    text: str            # the expression, unnamed parents written inline: "arange(12).view(3, 4)"
    shared: bool | None  # True: the result shares its source's bytes; False: copied; None: new memory
    why: str | None      # why it copied ("dtype float64 -> float32"), None otherwise


def set_enabled(flag: bool) -> bool:
    """Turn recording on or off for tensors made from now on; returns the previous setting."""
    return shim.prov_enable(bool(flag))


def is_enabled() -> bool:
    """Whether recording is on (a pure read: it never touches the setting)."""
    return shim.prov_is_enabled()


def last_writer(storage):
    """``(version, tensor_id, node)`` of the last write through pytensor into
    ``storage`` (the version that write made, ``id()`` of the tensor written
    through, that tensor's node), or None. No reference to the tensor is kept:
    compare ``tensor_id`` only with tensors known to be alive."""
    return _write_record(storage)


def chain(n, limit=64):
    """The nodes from ``n`` to the oldest recorded one, at most ``limit``."""
    out = []
    while n is not None and len(out) < limit:
        out.append(n)
        n = n[2]
    return out


# ====================================================================== text
def type_name(tp):
    """``ndarray``, ``bytearray``, ``torch.Tensor``: a source type as people write it."""
    mod = getattr(tp, "__module__", "") or ""
    top = mod.split(".")[0]
    if top in ("builtins", "numpy", ""):
        return tp.__name__
    return f"{top}.{tp.__name__}"


def _key(k):
    if k is None:
        return "None"
    if k is Ellipsis:
        return "..."
    if isinstance(k, slice):
        parts = ["" if v is None else str(v) for v in (k.start, k.stop)]
        text = ":".join(parts)
        return text + f":{k.step}" if k.step is not None else text
    if isinstance(k, tuple):
        return ", ".join(_key(x) for x in k) if k else "()"
    return str(k)


def _sizes(args):
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = tuple(args[0])
    return ", ".join(str(a) for a in args)


def _dt(d):
    return getattr(d, "name", str(d))


def _convert_expr(p, arg):
    fn, src_dtype, dst_dtype, reason = arg[:4]
    extra = f", dtype={_dt(dst_dtype)}" if dst_dtype is not None and dst_dtype is not src_dtype else ""
    return f"{fn}({p}{extra}{', copy=True' if reason == 'copy=True' else ''})"


_EXPR = {
    "index": lambda p, a: f"{p}[{'…' if a is None else _key(a)}]",
    "gather": lambda p, a: f"{p}[{a}]",
    "view": lambda p, a: f"{p}.view({_sizes(a)})",
    "reshape": lambda p, a: f"{p}.reshape({_sizes(a)})",
    "view_dtype": lambda p, a: f"{p}.view({_dt(a)})",
    "T": lambda p, a: f"{p}.T",
    "mT": lambda p, a: f"{p}.mT",
    "t": lambda p, a: f"{p}.t()",
    "transpose": lambda p, a: f"{p}.transpose({a[0]}, {a[1]})",
    "permute": lambda p, a: f"{p}.permute({_sizes(a)})",
    "squeeze": lambda p, a: f"{p}.squeeze({'' if a is None else a})",
    "unsqueeze": lambda p, a: f"{p}.unsqueeze({a})",
    "expand": lambda p, a: f"{p}.expand({_sizes(a)})",
    "narrow": lambda p, a: f"{p}.narrow({_sizes(a)})",
    "select": lambda p, a: f"{p}.select({_sizes(a)})",
    "unfold": lambda p, a: f"{p}.unfold({_sizes(a)})",
    "as_strided": lambda p, a: f"{p}.as_strided({', '.join(str(x) for x in a)})",
    "diagonal": lambda p, a: f"{p}.diagonal({_sizes(a)})",
    "detach": lambda p, a: f"{p}.detach()",
    "alias": lambda p, a: f"{a}({p})",
    "contiguous": lambda p, a: f"{p}.contiguous()",
    "clone": lambda p, a: f"{p}.clone()",
    "to": lambda p, a: f"{p}.to({_dt(a[1])})",
    "convert": _convert_expr,
    "from_numpy": lambda p, a: f"from_numpy({p})",
    "asarray": lambda p, a: f"asarray({p})",
    "as_tensor": lambda p, a: f"as_tensor({p})",
    "frombuffer": lambda p, a: f"frombuffer({p})",
    "from_dlpack": lambda p, a: f"from_dlpack({p})",
    "from_dlpack_copied": lambda p, a: f"from_dlpack({p})",
    "from_file": lambda p, a: f"from_file({a[0]!r}, shared={a[1]})",
    "tensor": lambda p, a: f"tensor({p})",
    "factory": lambda p, a: f"{a[0]}({', '.join(x if isinstance(x, str) else repr(x) for x in a[1])})",
}


def source(n):
    """``(type, address)`` of the object a step with no parent read: its type,
    and the address of its first byte where the step recorded one (copies
    made in Python do; a sharing constructor's source starts where its
    storage does). ``(None, None)`` when the step names no source."""
    arg = n[1]
    if isinstance(arg, tuple) and arg and isinstance(arg[-1], tuple):   # convert's argument ends with it
        arg = arg[-1]
    if isinstance(arg, tuple) and len(arg) == 2 and isinstance(arg[0], type):
        return arg
    return (arg, None) if isinstance(arg, type) else (None, None)


def source_text(n):
    """What a step with no parent read from: its source type's name ("ndarray"), or "?"."""
    tp = source(n)[0]
    return type_name(tp) if tp is not None else "?"


def expr(n, parent_ref=None):
    """The text of node ``n``'s own step, its parent written ``parent_ref``
    (default: the parent's source type, or "?"). None for an unrecorded step."""
    op, arg = OPS[n[0]], n[1]
    if not op:
        return None
    if parent_ref is None:
        parent_ref = source_text(n) if n[2] is None else "?"
    try:
        return _EXPR[op](parent_ref, arg)
    except (TypeError, IndexError, KeyError, ValueError):   # an argument recorded in a shape we did not expect
        return f"{op}({parent_ref})"


def _why(n):
    op, arg = OPS[n[0]], n[1]
    if op in ("to", "convert"):
        src, dst = (arg[0], arg[1]) if op == "to" else (arg[1], arg[2])
        reason = arg[2] if op == "to" else arg[3]
        if dst is not None and src is not None and dst is not src:
            return f"dtype {_dt(src)} -> {_dt(dst)}"
        return reason or "a copy was asked for"
    return _COPIES[op]


def origin(n):
    """``(shared, why)`` of node ``n``'s own step: (True, None) when it shares its
    source's bytes, (False, why) when it copied, (None, None) for new memory."""
    op = OPS[n[0]]
    if op in _FRESH:
        return None, None
    if op in _COPIES:
        try:
            return False, _why(n)
        except (TypeError, IndexError):
            return False, None
    return True, None


def parent_ref(nodes, texts, i, names):
    """How step ``i`` of ``nodes`` writes its parent: the parent's name in
    ``names`` (keyed by ``id(node)``), else the parent's text ``texts[i + 1]``
    when short, else "…"; None for a step without a parent."""
    parent = nodes[i][2]
    if parent is None:
        return None
    if id(parent) in names:
        return names[id(parent)]
    if i + 1 < len(nodes) and texts[i + 1] is not None and len(texts[i + 1]) <= MAX_INLINE:
        return texts[i + 1]
    return "…"


def inline_refs(nodes, names=None, source=None):
    """Expression texts for ``nodes`` (newest first, as ``chain`` gives them),
    parents written as ``parent_ref`` says; the step without a parent writes
    its source as ``source`` (default: the source's type)."""
    names = names or {}
    texts = [None] * len(nodes)
    for i in range(len(nodes) - 1, -1, -1):
        ref = parent_ref(nodes, texts, i, names)
        texts[i] = expr(nodes[i], source if nodes[i][2] is None else ref)
    return texts


def provenance(t) -> tuple[Step, ...]:
    """How ``t`` was made: its own step first, the oldest recorded last.

    Each :class:`Step` names the operation, its text (parents written
    inline), and whether it shared its source's bytes or copied them, and why.
    Recording can be turned off with ``pytensor.set_provenance_enabled(False)``.
    """
    nodes = chain(node(t))
    texts = inline_refs(nodes)
    out = []
    for n, text in zip(nodes, texts):
        if not OPS[n[0]]:
            break
        shared, why = origin(n)
        out.append(Step(OPS[n[0]], text, shared, why))
    return tuple(out)
