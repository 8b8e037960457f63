"""Lineage text: how each view was made, as steps and as one line, from pytensor's provenance
records and NumPy's ``.base`` chains."""
from __future__ import annotations

from pytensor import _inspect_api

__all__ = ["MAX_STEPS", "LINEAGE_TEXT_MAX", "lineages", "lineage_text"]

MAX_STEPS = 16              # steps of a chain followed
LINEAGE_TEXT_MAX = 160       # characters of lineage_text; a longer chain loses its middle steps to "…"
_SHARING_CONSTRUCTORS = ("from_numpy", "asarray", "as_tensor", "frombuffer", "from_dlpack")


def lineages(items):
    """``{view id: {"lineage", "lineage_text", "origin"}}`` for ``build``'s items.

    Parents are named by the inspected objects they are: a pytensor parent
    by its provenance node (the same tuple object its children point at),
    an ndarray base by ``id()`` (every inspected object is alive while its
    item is resolved), and the object a constructor read by address
    (``from_numpy(a)`` wraps the memory at ``a``'s first byte; a copy records
    the address it copied from).
    """
    node_names, obj_names, addr_names = {}, {}, {}
    for _, name, it in items:
        src = it.get("lineage_src") or {}
        if "node" in src:
            node_names.setdefault(id(src["node"]), name)
            obj_names.setdefault(src["id"], name)
        else:
            if src.get("nd"):
                obj_names.setdefault(src["nd"][0][0], name)
            addr_names.setdefault(it["addr0"], name)
    out = {}
    for vid, name, it in items:
        src = it.get("lineage_src") or {}
        if "node" in src:
            steps, origin = _tensor_lineage(name, it, src["node"], node_names, addr_names)
        elif src.get("nd"):
            steps, origin = _ndarray_lineage(name, src["nd"], obj_names)
        else:
            steps, origin = [], None
        out[vid] = {"lineage": steps, "lineage_text": lineage_text(steps), "origin": origin}
    return out


def _tensor_lineage(name, it, node, node_names, addr_names):
    prov = _inspect_api
    nodes = prov.chain(node, MAX_STEPS)
    while nodes and not prov.OPS[nodes[-1][0]]:       # steps nobody recorded (recording was off)
        nodes.pop()
    if not nodes:
        return [], None
    names = _Named(node_names, id(nodes[0]), name)
    root = nodes[-1]
    source = None   # the inspected object the oldest step read, by the address of its first byte
    if root[2] is None:
        addr = prov.source(root)[1]
        if addr is None and prov.OPS[root[0]] in _SHARING_CONSTRUCTORS:
            addr = it["span_lo"]      # a shared source starts where the storage does
        source = addr_names.get(addr)
    texts = prov.inline_refs(nodes, names, source)
    steps = [{"name": name if i == 0 else names.get(id(n)), "expr": texts[i]} for i, n in enumerate(nodes)]
    return steps, _tensor_origin(prov, nodes, texts, names, source)


class _Named:
    """``names`` with one more entry, ``key: name``, without copying ``names`` (10^4 views, 10^4 names):
    what provenance's text functions read of a names dict (``in``, ``[]``) and ``get``."""

    def __init__(self, names, key, name):
        self._names, self._key, self._name = names, key, name

    def get(self, k, default=None):
        return self._name if k == self._key else self._names.get(k, default)

    def __getitem__(self, k):
        return self._name if k == self._key else self._names[k]

    def __contains__(self, k):
        return k == self._key or k in self._names


def _tensor_origin(prov, nodes, texts, names, source):
    shared, why = prov.origin(nodes[0])
    if shared is None:
        return None
    op, arg = prov.OPS[nodes[0][0]], nodes[0][1]
    if op == "from_file":
        return {"shared": True, "text": f"shares the bytes of {arg[0]} (mapped {'shared' if arg[1] else 'private'})"}
    if not shared:
        return _copied_from(prov, nodes, texts, names, source, 0, why)
    # A view of an unnamed copy (grid.T.reshape(12) is grid.T.contiguous().view(12)) holds bytes that
    # copy made: say where they were copied from, as seen from the nearest inspected ancestor.
    for k in range(1, len(nodes)):
        if names.get(id(nodes[k])) is not None:
            break
        copied, why_k = prov.origin(nodes[k])
        if copied is None:
            break
        if copied is False:
            return _copied_from(prov, nodes, texts, names, source, k, why_k)
    return {"shared": True, "text": f"shares {_ref(prov, nodes, texts, names, source, 0)}'s bytes"}


def _ref(prov, nodes, texts, names, source, k):
    """How step k's source is named in an origin: its parent's name or text, or the source read."""
    ref = prov.parent_ref(nodes, texts, k, names) if nodes[k][2] is not None else \
        (source if k == len(nodes) - 1 and source else prov.source_text(nodes[k]))
    if ref == "…" or ref == "?":
        ref = "its parent" if nodes[k][2] is not None else "its source"
    return ref


def _copied_from(prov, nodes, texts, names, source, k, why):
    return {"shared": False, "text": f"copied from {_ref(prov, nodes, texts, names, source, k)}"
                                     + (f" ({why})" if why else "")}


def _dims(shape):
    return "×".join(str(n) for n in shape) if shape else "scalar"


def _ndarray_lineage(name, nd, obj_names):
    """NumPy records no operation: each step is "view of <base>" with the shapes."""
    steps = []
    for i, (oid, shape, kind) in enumerate(nd):
        step_name = name if i == 0 else obj_names.get(oid)
        if i + 1 < len(nd):
            pid, pshape, pkind = nd[i + 1]
            ref = obj_names.get(pid) or pkind
            expr = f"view of {ref} ({_dims(pshape)} → {_dims(shape)})" if pshape is not None \
                else f"over {ref}'s bytes"
        elif step_name is None:
            break          # an unnamed owner: the step before already says what it is
        else:
            expr = None    # the owner of its bytes (or a foreign exporter): nothing before it
        steps.append({"name": step_name, "expr": expr})
    if len(nd) < 2:
        return [], None
    base = nd[1]
    return steps, {"shared": True, "text": f"shares {obj_names.get(base[0]) or base[2]}'s bytes"}


def _step_text(step):
    if step["name"] and step["expr"] and step["name"] != step["expr"]:
        return f"{step['name']} = {step['expr']}"
    return step["expr"] or step["name"] or "?"


def lineage_text(steps, limit=LINEAGE_TEXT_MAX):
    """The lineage as one line, ``"col = grid[:, 2] ← grid = base.view(3, 4) ← base = arange(12)"``;
    past ``limit`` characters the middle steps become "…" (the first and last stay).

    >>> lineage_text([{"name": "v", "expr": "a[1:]"}, {"name": "a", "expr": None}])
    'v = a[1:] ← a'
    """
    parts = [_step_text(s) for s in steps]
    parts = [p if len(p) <= limit // 2 else p[:limit // 2 - 1] + "…" for p in parts]
    text = " ← ".join(parts)
    if len(text) <= limit:
        return text
    head, tail = [parts[0]], [parts[-1]]
    growing = {"head": True, "tail": True}        # a side stops at its first step that does not fit
    for k in range(1, len(parts) - 1):            # keep what fits from both ends, newest first
        for side, part in (("head", parts[k]), ("tail", parts[-1 - k])):
            fits = len(" ← ".join(head + ["…"] + tail)) + len(part) + 3 <= limit
            if not (growing[side] and fits and len(head) + len(tail) < len(parts) - 1):
                growing[side] = False
            elif side == "head":
                head.append(part)
            else:
                tail.insert(0, part)
    return " ← ".join(head + ["…"] + tail)
