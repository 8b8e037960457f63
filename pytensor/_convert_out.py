"""What goes out: a tensor's values as Python data and NumPy arrays.

``tolist()`` (nested lists of Python numbers), ``numpy()`` (an ndarray over
the tensor's memory, its storage pinned) and ``__array_interface__`` (shared,
read-only flag carried over), and the unpinned scratch arrays pytensor uses
inside one call. What comes in (data made into tensors) is ``_convert_in``.
"""
from __future__ import annotations

import sys

from . import dtypes as _dt
from ._conj import resolved
from ._ffi import ffi, lib


def _memoryview_of(t):
    """A memoryview over a contiguous tensor's bytes (borrowed: keep t alive)."""
    return memoryview(ffi.buffer(ffi.cast("char *", t.data_ptr()), t.nbytes))


def to_pylist(t):
    """t's values as nested lists of Python numbers (a scalar for 0-d)."""
    t._storage._check_host()
    t = resolved(t)  # a conjugate/negative view: its values
    d = t.dtype
    if d.kind == "float4":
        raise NotImplementedError(f"tolist() and item() are not implemented for {d.name}, as in torch: it packs two "
                                  "4-bit floats in each byte; .view(pytensor.uint8) reads the bytes")
    if d is _dt.bfloat16 or d is _dt.float16 or d.kind == "float8":
        # exact: every 16-bit and 8-bit float is a float32; and memoryview.cast
        # cannot produce 'e' on every Python we support.
        t = t.to(_dt.float32)
        d = _dt.float32
    t = t.contiguous()  # row-major, as the flat read below assumes
    shape = t._shape
    if d.is_complex:
        part = "f" if d is _dt.complex64 else "d"
        flat = _memoryview_of(t).cast(part).tolist()
        values = [complex(r, i) for r, i in zip(flat[0::2], flat[1::2])]
    else:
        values = _memoryview_of(t).cast(d._struct).tolist()
    if not shape:
        return values[0]
    return _nest(values, shape)


def _nest(values, shape):
    """Row-major flat values -> nested lists of ``shape``."""
    if 0 in shape:
        return _empty_nest(shape)
    for n in reversed(shape[1:]):
        values = [values[i:i + n] for i in range(0, len(values), n)]
    return values


def _empty_nest(shape):
    if len(shape) == 1 or shape[0] == 0:
        return []
    return [_empty_nest(shape[1:]) for _ in range(shape[0])]


def _typestr(d):
    if d is _dt.bfloat16 or d.kind in ("float8", "float4"):  # NumPy has no such type (torch's message)
        raise TypeError(f"Got unsupported ScalarType {d.scalar_type_name}")
    kind = {"bool": "b", "uint": "u", "int": "i", "float": "f", "complex": "c"}[d.kind]
    order = "|" if d.itemsize == 1 else ("<" if sys.byteorder == "little" else ">")
    return f"{order}{kind}{d.itemsize}"


def array_interface(t, pin=True):
    """NumPy's ``__array_interface__`` (v3) describing t's memory in place.

    The address leaves pytensor's control here (an array keeps it for as long
    as it lives), so the storage is pinned: ``resize_`` may never move its
    bytes again (torch makes such a storage non-resizable too). Internal
    scratch arrays that die before control returns pass ``pin=False``."""
    if not t._storage._host:
        raise TypeError(f"can't convert {t.device} device type tensor to numpy. pytensor only reads host memory.")
    if t._requires_grad and pin:
        # NumPy would read (and could write) a graph's memory behind autograd's back: torch's
        # __array__ refuses this as numpy() does; numpy(force=True) exports a detached alias.
        raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
    _refuse_bits(t)
    isz = t.itemsize
    info = {
        "version": 3,
        "shape": t._shape,
        "typestr": _typestr(t.dtype),
        "data": (t.data_ptr(), t._storage._readonly),
        "strides": None if t.is_contiguous() else tuple(s * isz for s in t._strides),
    }
    if pin:
        lib.lt_storage_pin(t._storage._ptr)
    return info


class _Scratch:
    """Holds a tensor and describes it to NumPy without pinning its storage."""

    __slots__ = ("tensor", "__array_interface__")

    def __init__(self, t):
        self.tensor, self.__array_interface__ = t, array_interface(t, pin=False)


def scratch_ndarray(t):
    """An ndarray over t's memory for pytensor's own use inside one call (the
    array must not outlive the call: the storage is not pinned)."""
    import numpy as np
    return np.asarray(_Scratch(t))


def _refuse_bits(t):
    """torch's refusal: NumPy would read a conjugate/negative view's bytes as its values."""
    if t._bits:
        which, fix = ("conjugate", "resolve_conj") if t._bits & 1 else ("negative", "resolve_neg")
        raise RuntimeError(f"Can't call numpy() on Tensor that has {which} bit set. Use tensor.{fix}().numpy() "
                           "instead.")


def to_numpy(t, force=False):
    """An ndarray over t's memory (no copy); its base keeps t's storage alive."""
    import numpy as np
    if t.requires_grad and not force:
        raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
    _refuse_bits(t)
    if not t._storage._host:
        raise TypeError(f"can't convert {t.device} device type tensor to numpy. Use Tensor.cpu() to copy the "
                        "tensor to host memory first.")
    # NumPy takes t through its buffer export, which refuses resize_ while the array lives; numpy() also pins
    # the storage for good, as torch makes a storage it handed to NumPy non-resizable.
    lib.lt_storage_pin(t._storage._ptr)
    return np.asarray(t.detach() if t._requires_grad else t)  # forced: the same memory, out of the graph
