"""What keeps an inspected object's bytes alive, and how to watch it without keeping it alive.

The live inspector must draw a view for as long as its *bytes* exist, even
when the view object itself was a temporary (``inspect(t, t[::2])``), and
must never extend a lifetime by observing it. So for each object it records
the layout once and watches the object that owns the memory:

* a pytensor tensor: its ``UntypedStorage`` (one per root, stable identity);
* a NumPy array: the object at the end of its ``.base`` chain (the exporter
  of a buffer, a pytensor storage) and the root array;
* a torch tensor: the root of its ``._base`` chain;
* a buffer object (``bytes``, ``bytearray``, ``array.array``,
  ``memoryview``, ``mmap``): the object that exported the memory.

Most owners take a weak reference. ``bytes``, ``bytearray`` and DLPack
capsules do not: for them a :class:`Watch` remembers the module namespace
(the notebook's, usually) where the object was bound, and finds it again by
identity (``id`` and type) in that namespace. An owner is only trusted while
its current span still covers the recorded bytes: a ``bytearray`` that was
resized, an array that was ``resize``-d, an ``mmap`` that was closed are
treated as gone, so the inspector never reads memory nobody holds.
"""
from __future__ import annotations

import sys
import weakref

from ._geometry import footprint
from ._objects import buffer_array, exporter, is_pytensor, owner_of, plain_array, tensor_base

__all__ = ["owners", "span_of", "Watch", "module_of"]


def owners(obj):
    """Objects whose life keeps ``obj``'s bytes alive, the longest-lived first (strong refs; do not keep)."""
    if is_pytensor(obj):
        return [obj.untyped_storage()]
    np = sys.modules.get("numpy")
    if np is not None and isinstance(obj, np.ndarray):
        root, owner = owner_of(obj)
        out = []
        if owner is not None:
            out += owners(owner) if (is_pytensor(owner) or isinstance(owner, np.ndarray)) else [owner]
        return _unique(out + [root, obj])
    if tensor_base(obj) is not None:                                        # torch
        root = obj
        for _ in range(1000):
            nxt = getattr(root, "_base", None)
            if nxt is None:
                break
            root = nxt
        return _unique([root, obj])
    exp = exporter(obj)
    if exp is not obj and (is_pytensor(exp) or (np is not None and isinstance(exp, np.ndarray))):
        return _unique(owners(exp) + [obj])
    return _unique([exp, obj])


def _unique(objs):
    seen, out = set(), []
    for o in objs:
        if id(o) not in seen:
            seen.add(id(o))
            out.append(o)
    return out


def span_of(owner, holds):
    """``(device, lo, hi)`` of the memory ``owner`` keeps alive now, or None when it keeps none.

    Buffer exports made to find the address go to ``holds`` (see ``resolve``).
    """
    if _is_storage(owner):
        lo = int(owner.data_ptr())
        dev = str(getattr(owner, "device", "cpu"))
        return ("cpu" if dev in ("cpu", "cpu:0") else dev), lo, lo + int(owner.nbytes())
    np = sys.modules.get("numpy")
    if np is not None and isinstance(owner, np.ndarray):
        owner = plain_array(owner)
        ai = owner.__array_interface__
        lo, hi = footprint(owner.shape, owner.strides, owner.dtype.itemsize, int(ai["data"][0]))
        return "cpu", lo, hi
    base = tensor_base(owner)
    if base is not None:      # through the base class: a subclass could claim memory long freed is alive
        st = base.untyped_storage(owner)
        dev = str(base.device.__get__(owner))
        lo = int(st.data_ptr())
        return ("cpu" if dev in ("cpu", "cpu:0") else dev), lo, lo + int(st.nbytes())
    if getattr(owner, "closed", False):                               # a closed mmap holds nothing
        return None
    try:
        arr = buffer_array(owner)
    except (TypeError, ValueError, BufferError):
        return None                                                   # a capsule: no span to check
    holds.append(arr)
    lo = int(arr.__array_interface__["data"][0])
    return "cpu", lo, lo + arr.nbytes


def _is_storage(obj):
    pt = sys.modules.get("pytensor")
    return pt is not None and isinstance(obj, pt.UntypedStorage)


def module_of(namespace):
    """The module whose ``__dict__`` is ``namespace`` (a notebook's ``__main__``), or None."""
    if not isinstance(namespace, dict):
        return None
    mod = sys.modules.get(namespace.get("__name__"))
    return mod if mod is not None and getattr(mod, "__dict__", None) is namespace else None


class Watch:
    """Finds one object again later without keeping it alive.

    A weak reference where the type allows one; otherwise the object's
    ``id`` and type, looked up by identity among the values of a module's
    namespace (held weakly, through the module). ``get()`` returns the
    object (a strong reference for the caller to drop) or None.
    """

    __slots__ = ("_ref", "_module", "_id", "_type", "kind")

    def __init__(self, obj, module=None):
        self._ref = self._module = None
        self._id, self._type = id(obj), type(obj)
        try:
            self._ref = weakref.ref(obj)
            self.kind = "weak"
        except TypeError:
            if module is not None and self._find(module.__dict__) is obj:
                self._module = weakref.ref(module)
                self.kind = "name"
            else:
                self.kind = "none"

    def _find(self, namespace):
        for value in list(namespace.values()):
            if id(value) == self._id and type(value) is self._type:
                return value
        return None

    def get(self):
        if self._ref is not None:
            return self._ref()
        mod = self._module() if self._module is not None else None
        return self._find(mod.__dict__) if mod is not None else None

    def same(self, obj):
        return id(obj) == self._id and type(obj) is self._type
