"""Lineage text: how each view was made, as steps and as one line, from pytensor's provenance
records, the records of a torch recording (``_recording``), and NumPy's and torch's ``.base``/``._base``
chains; where none says anything, whether the object shares bytes with another lane at all."""
from __future__ import annotations

from pytensor import _inspect_api

from ._alone import partners, unshared
from ._recording import MAX_INLINE, paused, recorded

__all__ = ["MAX_STEPS", "LINEAGE_TEXT_MAX", "lineages", "lineage_text", "lineage_source", "step_text", "why"]

MAX_STEPS = 16              # steps of a chain followed
LINEAGE_TEXT_MAX = 160       # characters of lineage_text; a longer chain loses its middle steps to "…"
MAX_HOLDERS = 256            # lanes searched for the buffer a sharing constructor read (not every pair)
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
    node_names, obj_names, addr_names, holders = {}, {}, {}, []
    for _, name, it in items:
        src = it.get("lineage_src") or {}
        if "node" in src:
            node_names.setdefault(id(src["node"]), name)
        elif src.get("nd"):
            obj_names.setdefault(src["nd"][0][0], name)
        if "id" in src:
            obj_names.setdefault(src["id"], name)
        if "node" not in src:
            addr_names.setdefault(it["addr0"], name)
            owns = it["kind"] == "buffer" or len(src.get("nd") or ()) == 1     # an exporter, not a view of one
            if owns and len(holders) < MAX_HOLDERS:      # frombuffer(buf, offset=8) starts inside buf, not at it
                holders.append((it["device"], it["span_lo"], it["span_hi"], name))
    out, alone = {}, None
    for vid, name, it in items:
        src = it.get("lineage_src") or {}
        if src.get("rec") is not None and src["rec"].op == "track":
            src = {"id": src["id"]}            # track(a) adds a door, not a step: its bytes are the array's
        first = obj_names.get(src.get("id"), name)
        if first != name:          # one object under two names: inspect(a, b) where b is a
            steps, origin = [], {"shared": True, "text": f"same object as {first}"}
        elif src.get("rec") is not None:
            steps, origin = _recorded_lineage(name, src["rec"], obj_names)
        elif "node" in src:
            steps, origin = _tensor_lineage(name, it, src["node"], node_names, addr_names, holders)
        elif src.get("nd"):
            steps, origin = _ndarray_lineage(name, src["nd"], obj_names)
        else:
            steps, origin = [], None
        if src.get("rec") is None and "node" not in src and src and (origin is None or "capsule" in origin["text"]):
            alone = alone if alone is not None else partners(items)    # torch and NumPy: say what we know
            origin = unshared(name, vid, alone, origin)
        out[vid] = {"lineage": steps, "lineage_text": lineage_text(steps), "origin": origin}
    return out


def _recorded_lineage(name, step, obj_names):
    """A torch recording's steps, newest first: the expression (unnamed inputs written inline), then
    the named input's own steps; and whether the bytes are a view, a copy (and why) or new values."""
    origin = {"shared": step.shared, "text": origin_text(step, obj_names)}
    steps = []
    while step is not None and len(steps) < MAX_STEPS:
        steps.append({"name": name, "expr": step_text(step, obj_names)})
        obj = step.inputs[step.source][0]()
        name = obj_names.get(id(obj)) if obj is not None else None
        if name is None:
            break
        step = recorded(obj)
        if step is None or step.op == "track":
            steps.append({"name": name, "expr": None})
            break
    return steps, origin


def lineage_source(t):
    """What ``lineages`` needs of a torch tensor, keeping nothing alive: its recorded step, its id, and
    its ``._base`` as NumPy's ``.base`` (torch keeps the tensor a view was made from)."""
    with paused():               # reading ._base inside a recording is not an operation to record
        base = t._base
    nd = [(id(t), tuple(t.shape), "tensor"), (id(base), tuple(base.shape), "tensor")] if base is not None else None
    return {"rec": recorded(t), "id": id(t), "nd": nd}


def step_text(step, names=None, depth=0):
    """A recorded step's expression, each input written as its name in ``names`` (``{id: name}`` of
    live objects), else as its own step's text when short, else as it was named where it was made."""
    names = names or {}
    out = []
    for p in step.parts:
        if isinstance(p, str):
            out.append(p)
            continue
        ref, parent, made_as = step.inputs[p]
        obj = ref()
        if obj is not None and id(obj) in names:
            out.append(names[id(obj)])
        elif parent is not None and depth < 8 and len(text := step_text(parent, names, depth + 1)) <= MAX_INLINE:
            out.append(text)
        else:
            out.append(made_as or ("…" if parent is not None else "(a tensor)"))
    return "".join(out)


def origin_text(step, names=None):
    """"shares x's bytes", "copied from x, because …" or "new values computed from x (…)"."""
    ref, parent, made_as = step.inputs[step.source]
    obj, names = ref(), names or {}
    if obj is not None and id(obj) in names:
        src = names[id(obj)]
    elif parent is not None and len(text := step_text(parent, names)) <= MAX_INLINE:
        src = text
    else:
        src = made_as or "its input"
    if step.shared:
        return f"shares {src}'s bytes"
    if step.shared is False:
        return f"copied from {src}, because {step.why}"
    return f"new values computed from {src}, in its own bytes ({step.why})"


def why(obj, names=None):
    """What a recording says of ``obj`` in one sentence, or None where it recorded nothing.

    >>> why(object()) is None
    True
    """
    step = recorded(obj)
    return None if step is None else f"{step_text(step, names)}: {origin_text(step, names)}"


def _tensor_lineage(name, it, node, node_names, addr_names, holders=()):
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
        if source is None and prov.OPS[root[0]] in _SHARING_CONSTRUCTORS:   # the lane whose bytes hold it
            source = next((n for dev, lo, hi, n in holders if dev == it["device"] and lo <= it["span_lo"]
                           and it["span_hi"] <= hi and n != name), None)
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
        (source if k == len(nodes) - 1 and source else unnamed(prov.source_text(nodes[k])))
    if ref == "…" or ref == "?":
        ref = "its parent" if nodes[k][2] is not None else "its source"
    return ref


def _copied_from(prov, nodes, texts, names, source, k, why):
    return {"shared": False, "text": f"copied from {_ref(prov, nodes, texts, names, source, k)}"
                                     + (f" ({why})" if why else "")}


def _dims(shape):
    return "×".join(str(n) for n in shape) if shape else "scalar"


_CAPSULE = "PyCapsule"      # NumPy's from_dlpack keeps the producer's capsule as the array's base
_UNNAMED = {"tensor": "a tensor", "bytes": "a bytes object", "ndarray": "an ndarray", "array": "an array.array",
            "mmap": "an mmap", "?": "?"}


def unnamed(type_text):
    """An object no lane names, said by its type as a sentence does: "a bytearray", "an ndarray"."""
    return _UNNAMED.get(type_text, f"a {type_text}")


def _ndarray_lineage(name, nd, obj_names):
    """NumPy records no operation: each step is "view of <base>" with the shapes (torch's ``._base`` too)."""
    steps = []
    for i, (oid, shape, kind) in enumerate(nd):
        step_name = name if i == 0 else obj_names.get(oid)
        if i + 1 < len(nd):
            pid, pshape, pkind = nd[i + 1]
            ref = obj_names.get(pid) or unnamed(pkind)
            expr = f"view of {ref} ({_dims(pshape)} → {_dims(shape)})" if pshape is not None \
                else "imported through DLPack" if pkind == _CAPSULE else f"over {ref}'s bytes"
        elif step_name is None:
            break          # an unnamed owner: the step before already says what it is
        else:
            expr = None    # the owner of its bytes (or a foreign exporter): nothing before it
        steps.append({"name": step_name, "expr": expr})
    if len(nd) < 2:
        return [], None
    base = nd[1]
    if base[2] == _CAPSULE and base[0] not in obj_names:     # whose bytes: decided by address (_unshared)
        return steps, {"shared": True, "text": "through a DLPack capsule"}
    return steps, {"shared": True, "text": f"shares {obj_names.get(base[0]) or unnamed(base[2])}'s bytes"}


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
