"""Object resolution: a tensor, ndarray or buffer described as a plain dict that keeps no reference.

``resolve`` reads each object's layout through the class's own getters (a
subclass may describe memory it does not hold), finds the owner that keeps
its bytes alive and the span of addresses that owner covers, and for a mapped
file what ``_files`` says about its pages. One call per object per picture.
"""
from __future__ import annotations

import ctypes
import sys

from pytensor import _inspect_api

from ._files import copied_runs, file_info
from ._identity import owner_identity, tensor_identity
from ._geometry import footprint
from ._lineage import MAX_STEPS, lineage_source, recorded
from ._pairs import Work
from ._schema import HOST

__all__ = ["resolve", "read_memory", "tensor_base", "is_pytensor", "buffer_array", "exporter", "owner_of",
           "plain_array"]


def read_memory(addr, n):
    """``n`` bytes at ``addr``. The caller guarantees the memory is alive (a live owner spans it)."""
    if n <= 0:
        return b""
    return ctypes.string_at(addr, n)


# ====================================================================== resolving objects
_NP_NAMES = {"b1": "bool"}


def is_pytensor(obj):
    pt = sys.modules.get("pytensor")
    return pt is not None and isinstance(obj, pt.Tensor)


def tensor_base(obj):
    """The class whose own methods read ``obj``'s layout (pytensor's Tensor, torch's C tensor base: a subclass
    may describe memory it does not hold), or None for anything else, however tensor-like it looks."""
    if is_pytensor(obj):
        return sys.modules["pytensor"].Tensor
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(obj, torch.Tensor):
        return torch._C.TensorBase
    return None


def _device_str(dev):
    s = str(dev)
    return HOST if s in ("cpu", "cpu:0") else s


def resolve(obj, holds=None, work=None):
    """Describe one tensor, ndarray or buffer as a plain dict (the dict keeps no references).

    The dict has the view's layout in bytes (``addr0``, ``bstrides``), its ``source`` (the memory owner that
    keeps its bytes alive, with badges) and the span ``[span_lo, span_hi)`` of addresses that owner covers.

    A buffer object's address is only valid while someone holds an export
    of it (a ``bytearray`` can be resized and an ``mmap`` closed the moment
    nobody does). ``holds``, a list, receives the exports made here: keep it
    until the bytes have been read, and they cannot move meanwhile.
    ``work`` (a ``_pairs.Work``, one per picture) bounds and remembers the residency questions.
    """
    if holds is None:
        holds = []
    if work is None:
        work = Work()
    if tensor_base(obj) is not None:
        return _resolve_tensor(obj, work)
    np = sys.modules.get("numpy")
    if np is None:
        import numpy as np
    if isinstance(obj, np.ndarray):
        return _resolve_ndarray(obj, "ndarray", holds, work=work)
    try:
        arr = buffer_array(obj)
    except (TypeError, ValueError, BufferError) as e:
        raise TypeError(f"the inspector draws pytensor tensors, NumPy arrays and buffer objects "
                        f"(bytes, bytearray, memoryview, array.array, mmap), not {type(obj).__name__}: {e}") from None
    holds.append(arr)
    d = _resolve_ndarray(arr, "buffer", holds, owner=exporter(obj), work=work)
    d["type"] = type(obj).__name__
    return d


def buffer_array(obj):
    import numpy as np
    if isinstance(obj, memoryview) or type(obj).__name__ == "array":
        return np.asarray(memoryview(obj))
    return np.frombuffer(obj, dtype=np.uint8)


def _dtype_name(dt):
    name = getattr(dt, "name", None) or str(dt)
    return name.rsplit(".", 1)[-1]


def _resolve_tensor(t, work):
    base = tensor_base(t)
    st = base.untyped_storage(t)
    dt = base.dtype.__get__(t)
    isz = int(base.element_size(t))
    strides = tuple(int(s) for s in base.stride(t))
    shape = tuple(int(n) for n in base.shape.__get__(t))
    offset = int(base.storage_offset(t))
    s_addr = int(st.data_ptr())
    dev = _device_str(getattr(st, "device", None) or base.device.__get__(t))
    prov = getattr(st, "provenance", None)
    readonly = bool(st.is_readonly()) if hasattr(st, "is_readonly") else False
    src = {
        # pytensor storages are stable objects; torch makes a new wrapper per call, so use the address
        "key": f"storage:{dev}:{s_addr:x}:{int(st.nbytes()):x}:{id(st) if is_pytensor(t) else 0:x}",
        "kind": "storage",
        "provenance": prov or ("torch" if type(t).__module__.startswith("torch") else "foreign"),
        "label": getattr(st, "label", "") or "",
        "readonly": readonly,
        "refcount": getattr(st, "refcount", None),
        "version": getattr(st, "version", None),
        "device": dev,
        "type": f"{type(st).__module__.split('.')[0]}.{type(st).__name__}",
    }
    nbytes = int(st.nbytes())
    fp = footprint(shape, tuple(s * isz for s in strides), isz, s_addr + offset * isz)
    # read before build() reads any bytes, so the picture shows what the program pulled in; only this view's pages
    src["file"] = file_info(st, s_addr, s_addr + nbytes, work, ask=fp)
    ident = tensor_identity(st, is_pytensor(t), dev == HOST, s_addr, nbytes, src, work, copied_runs)
    # how it was made: its provenance node (a tuple holding no tensor; see pytensor/_provenance.py)
    lineage_src = {"node": _inspect_api.node(t), "id": id(t)} if is_pytensor(t) else lineage_source(t)
    return {
        "lineage_src": lineage_src,
        "kind": "tensor",
        "type": f"{type(t).__module__.split('.')[0]}.{type(t).__name__}",
        "dtype": _dtype_name(dt),
        "itemsize": isz,
        "endian": "<" if sys.byteorder == "little" else ">",
        "shape": shape,
        "strides": strides,
        "bstrides": tuple(s * isz for s in strides),
        "addr0": s_addr + offset * isz,
        "device": dev,
        "readonly": readonly,
        "version": src["version"],
        "contiguous": bool(base.is_contiguous(t)),
        "span_lo": s_addr, "span_hi": s_addr + nbytes,
        "source": src, "identity": ident,
    }


def plain_array(arr):
    """``arr`` as a plain ndarray over the same memory: an ndarray subclass may override
    ``__array_interface__``, ``shape`` or ``strides`` and describe memory it does not hold, so
    every layout fact is read through NumPy's own getters."""
    import numpy as np
    return arr if type(arr) is np.ndarray else np.ndarray.view(arr, np.ndarray)


def _nd_base(arr):
    import numpy as np
    return np.ndarray.base.__get__(arr)


def owner_of(arr):
    """Walk ``arr.base`` to the first object that is not an ndarray: ``(root_array, owner or None)``.

    Steps through NumPy's stride-trick holders (objects with an
    ``__array_interface__`` and an ndarray ``base``) and through memoryviews
    to the object that exported the buffer.
    """
    import numpy as np
    root, owner = arr, _nd_base(arr)
    for _ in range(1000):
        if isinstance(owner, np.ndarray):
            root, owner = owner, _nd_base(owner)
        elif hasattr(owner, "__array_interface__") and isinstance(getattr(owner, "base", None), np.ndarray) \
                and not is_pytensor(owner):
            root, owner = owner.base, owner.base.base
        else:
            break
    return root, exporter(owner)


def exporter(obj):
    """The object behind a memoryview (``mv.obj``), repeatedly; ``obj`` itself otherwise."""
    while isinstance(obj, memoryview) and obj.obj is not None:
        obj = obj.obj
    return obj


def _resolve_ndarray(arr, kind, holds, owner=None, work=None):
    given = arr
    named_root, base_owner = owner_of(arr)
    arr, root = plain_array(arr), plain_array(named_root)
    ai = arr.__array_interface__
    addr0 = int(ai["data"][0])
    readonly = bool(ai["data"][1])
    isz = arr.dtype.itemsize
    shape = tuple(int(n) for n in arr.shape)
    bstrides = tuple(int(s) for s in arr.strides)
    if owner is None:
        owner = base_owner
    src, ident = None, None
    if owner is not None and is_pytensor(owner):
        inner = _resolve_tensor(owner, work)
        src, lo, hi, ident = inner["source"], inner["span_lo"], inner["span_hi"], inner["identity"]
    elif owner is not None:
        try:
            ob = buffer_array(owner) if not hasattr(owner, "__array_interface__") else None
        except (TypeError, ValueError, BufferError):
            ob = None
        if ob is not None:
            holds.append(ob)
        if ob is not None and ob.size:
            lo = int(ob.__array_interface__["data"][0])
            hi = lo + ob.nbytes
            ro = bool(ob.__array_interface__["data"][1])
        else:
            rai = root.__array_interface__
            lo, hi = footprint(root.shape, root.strides, root.dtype.itemsize, int(rai["data"][0]))
            ro = bool(rai["data"][1])
        tname = type(owner).__name__
        if type(owner).__module__ not in ("builtins", "mmap", None):
            tname = f"{type(owner).__module__.split('.')[0]}.{tname}"
        label = tname
        if tname == "PyCapsule":      # np.from_dlpack's base: the producer's memory, held by the capsule
            label = "capsule"
        if getattr(named_root, "filename", None):       # np.memmap knows its file and mode
            label = f"{named_root.filename} ({getattr(named_root, 'mode', '?')})"
        src = {"key": f"owner:{lo:x}:{id(owner):x}", "kind": "owner", "provenance": _owner_provenance(owner),
               "label": label, "readonly": ro, "refcount": None, "version": None, "device": HOST,
               "type": tname}
        ident = owner_identity(owner, lo, hi, work, copied_runs)
    else:
        rai = root.__array_interface__
        lo, hi = footprint(root.shape, root.strides, root.dtype.itemsize, int(rai["data"][0]))
        src = {"key": f"owner:{lo:x}:{id(root):x}", "kind": "owner", "provenance": "numpy",
               "label": "numpy.ndarray (owns its data)", "readonly": bool(rai["data"][1]), "refcount": None,
               "version": None, "device": HOST, "type": "numpy.ndarray"}
    bo = arr.dtype.byteorder
    return {
        "lineage_src": _nd_lineage_src(given) if kind == "ndarray" else None,
        "kind": kind,
        "type": "numpy.ndarray",
        "dtype": _NP_NAMES.get(arr.dtype.str[1:], arr.dtype.name),
        "itemsize": isz,
        "endian": {">": ">", "<": "<"}.get(bo, "<" if sys.byteorder == "little" else ">"),
        "shape": shape,
        "strides": tuple(s // isz for s in bstrides) if isz and all(s % isz == 0 for s in bstrides) else None,
        "bstrides": bstrides,
        "addr0": addr0,
        "device": HOST,
        "readonly": readonly,
        "version": None,
        "contiguous": bool(arr.flags.c_contiguous),
        "span_lo": lo, "span_hi": hi,
        "source": src, "identity": ident,
    }


def _nd_lineage_src(arr):
    """What the model needs to tell how an ndarray was made, without keeping
    anything alive: ``(id, shape, type text)`` of the array and of each
    ``.base`` after it (NumPy records no operation, only the base, and
    collapses view-of-view chains to the owner). The ids serve only to
    match inspected objects that are alive while the snapshot is built."""
    import numpy as np
    steps, obj = [], arr
    while obj is not None and len(steps) < MAX_STEPS:
        if not isinstance(obj, np.ndarray) and isinstance(getattr(obj, "base", None), np.ndarray):
            obj = obj.base               # NumPy's stride-trick holder (as_strided): its base is the array
        elif not isinstance(obj, np.ndarray):
            obj = exporter(obj)          # a memoryview's own exporter: the bytearray, the mmap
            steps.append((id(obj), None, _type_text(obj)))
            break
        else:
            steps.append((id(obj), tuple(int(n) for n in np.ndarray.shape.__get__(obj)), "ndarray"))
            obj = _nd_base(obj)
    return {"nd": steps, "id": id(arr), "rec": recorded(arr)}


def _type_text(obj):
    tp = type(obj)
    mod = (tp.__module__ or "").split(".")[0]
    return tp.__name__ if mod in ("builtins", "numpy", "mmap", "") else f"{mod}.{tp.__name__}"


def _owner_provenance(owner):
    name = type(owner).__name__
    if name in ("bytes", "bytearray", "memoryview", "array"):
        return "buffer"
    if name == "mmap":
        return "file"
    if name == "PyCapsule" or hasattr(owner, "__dlpack__"):
        return "dlpack"
    return "foreign"
