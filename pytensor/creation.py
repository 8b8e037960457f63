"""The memory-sharing constructors, with torch's names, signatures and
share-versus-copy rules: tensor, as_tensor, asarray, from_numpy, frombuffer.

Each is one decision ladder: find what the input is, decide share or copy,
end in a clear error for anything else. Where torch is unsafe (writable
tensors over read-only buffers, buffers left resizable under a live tensor)
pytensor is safe instead: read-only input gives a read-only tensor, and the
buffer stays exported (locked against resizing) while any tensor uses it.
"""
from __future__ import annotations

from typing import Any
import sys
from types import SimpleNamespace

from . import dtypes as _dt
from ._convert_in import tensor_from_data, copy_preserving_layout, _is_numpy_scalar, _is_ndarray, _is_sequence
from ._core import Tensor, TensorBase, int64_arg
from ._device import device as _device, require_cpu
from ._dlpack import from_dlpack, share_producer
from ._ffi import shim
from ._provenance import OP
from .autograd import as_input_grad, needs_graph, record

__all__ = ["tensor", "as_tensor", "asarray", "from_numpy", "frombuffer"]

# The sharing constructors' rules are C's (pytensor/_shim_share.c), which
# raise their errors: share_numpy(arr, min_ndim, op) returns None only for
# what is not an ndarray (of min_ndim dims or more), share_buffer only for
# arguments frombuffer normalizes first.
_share_numpy = shim.share_numpy
_share_buffer = shim.share_buffer
# Provenance (see _provenance.py): _note(t, op, arg, parent) records how t was
# made; the C paths above record their own (the op code is passed in).
_note = shim.prov_note
_P_FROM_NUMPY, _P_ASARRAY, _P_AS_TENSOR, _P_TENSOR, _P_CONVERT, _P_ALIAS = (
    OP[n] for n in ("from_numpy", "asarray", "as_tensor", "tensor", "convert", "alias"))


# ================================================================== argument checks (torch's TypeErrors)

def _dtype_arg(fn, dtype, required=False):
    return _dt.dtype_arg(fn, dtype, required)  # the one rule: a pytensor dtype or its name


def _bool_arg(fn, name, value, allow_none=False):
    if value is None and allow_none:
        return None
    if not isinstance(value, bool):
        raise TypeError(f"{fn}(): argument '{name}' must be bool, not {type(value).__name__}")
    return value


def _check_device(device, fn="tensor"):
    """The requested device (None when not given); pytensor creates tensors on the CPU only."""
    return require_cpu(device, fn)


def _check_grad_dtype(dtype):
    if not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")


def _set_requires_grad(t, requires_grad):
    if requires_grad:
        _check_grad_dtype(t.dtype)
        t.requires_grad_(True)
    return t


# ================================================================== tensor, from_numpy

def tensor(data: Any, *, dtype: _dt.dtype | str | None = None, device: str | _device | None = None,
           requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """Copies ``data`` (never shares) into a new tensor; the dtype is inferred as torch does.

    A tensor or NumPy source keeps its layout (a transposed array gives a
    column-major copy); sequences give row-major tensors.

    >>> import pytensor
    >>> pytensor.tensor([[1, 2], [3, 4]])
    tensor([[1, 2],
            [3, 4]])
    >>> pytensor.tensor([1, 2.5]).dtype
    pytensor.float32
    """
    dtype = _dtype_arg("tensor", dtype)
    requires_grad = _bool_arg("tensor", "requires_grad", requires_grad)
    if _bool_arg("tensor", "pin_memory", pin_memory):
        raise RuntimeError("tensor(): pin_memory=True needs an accelerator's pinned-memory allocator, and pytensor "
                           "has none (it computes on the CPU); leave pin_memory False")
    _check_device(device)
    described = _described_array(data)
    if _is_ndarray(data) or described is not None or _is_dlpack_producer(data):
        if _is_ndarray(data) or described is not None:
            # torch.from_numpy's checks first, then a copy that keeps the layout
            src = _share_numpy(data if described is None else described, 0)
        else:
            src = share_producer(data, to_copy=True)  # torch copies any DLPack producer, through DLPack
        t = _note(copy_preserving_layout(src, dtype), _P_TENSOR, (type(data), src._storage._addr), None)
    else:
        t = tensor_from_data(data, dtype)  # records tensor(<type>), or tensor(t) from a tensor
    t._requires_grad = False
    return _set_requires_grad(t, requires_grad)


_SEQUENCE_COPIED = "scalars and sequences are always copied"
_ZERO_D_COPIED = "0-d arrays are always copied"


def _is_dlpack_producer(obj):
    """An object torch's constructors read through DLPack: one with ``__dlpack__``
    that is not a tensor, an array or a NumPy scalar (those have their own paths)."""
    return hasattr(type(obj), "__dlpack__") and not isinstance(obj, TensorBase) and not _is_ndarray(obj) \
        and not _is_numpy_scalar(obj)


_PLAIN_DATA = frozenset((list, tuple, int, float, bool, complex))  # the common inputs: no interface to look for


def _described_array(obj):
    """An ndarray over the memory ``obj`` describes with NumPy's array interface
    (``__array_interface__`` or ``__array_struct__``), when that is the only way to
    read it: None for tensors, arrays, buffers, DLPack producers and sequences
    (torch reads those its own ways). The array's base is ``obj``, so a tensor
    sharing the array keeps ``obj`` alive."""
    if obj.__class__ in _PLAIN_DATA or isinstance(obj, TensorBase) or _is_ndarray(obj) or not (
            hasattr(obj, "__array_interface__") or hasattr(obj, "__array_struct__")):
        return None
    if _is_dlpack_producer(obj) or _has_buffer(obj) or _is_sequence(obj):
        return None
    arr = sys.modules["numpy"].asarray(obj)
    if not _is_ndarray(arr):
        raise TypeError(f"{type(obj).__name__}'s array interface did not describe an array")
    return arr


def from_numpy(ndarray: Any, /) -> Tensor:
    """Shares ``ndarray``'s memory (never copies); writes show through both ways.

    Refuses negative strides, non-native byte order and dtypes pytensor lacks,
    as torch.from_numpy does. A read-only array gives a read-only tensor.

    >>> import numpy as np, pytensor
    >>> a = np.arange(3)
    >>> t = pytensor.from_numpy(a); t[0] = 10; a
    array([10,  1,  2])
    """
    t = _share_numpy(ndarray, 0, _P_FROM_NUMPY)  # raises from_numpy's errors for an ndarray it refuses
    if t is None:
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    return t


# ================================================================== as_tensor, asarray

def _alias_or_convert(t, dtype, device, copy, fn="asarray", source=None):
    """The asarray/as_tensor decision for an existing tensor ``t``: ``t``
    itself, or a copy that keeps its layout, recorded as ``fn``'s. ``source``
    is the type of the object ``t`` was just made from (an array, a buffer),
    when ``t`` is that temporary: a copy is then recorded as made from it."""
    wrong_dtype = dtype is not None and dtype is not t.dtype
    wrong_device = device is not None and device != t.device  # torch: 'cpu:0' is not 'cpu'
    if copy is False and wrong_device:
        raise ValueError(f"can't alias tensor from device '{t.device}' to '{device}'.")
    if copy is False and wrong_dtype:
        raise ValueError(f"can't alias tensor with dtype '{t.dtype.scalar_type_name}' into dtype "
                         f"'{dtype.scalar_type_name}'.")
    if copy or wrong_dtype or wrong_device:
        out = _recorded_copy(t, dtype, "ToCopyBackward0" if wrong_dtype or wrong_device else "CloneBackward0")
        from_source = () if source is None else ((source, t._storage._addr),)  # what the model matches names by
        arg = (fn, t._dtype, dtype, "copy=True" if copy else None) + from_source
        return _note(out, _P_CONVERT, arg, None if source is not None else t)
    if source is not None:
        _note(t, _P_ASARRAY if fn == "asarray" else _P_AS_TENSOR, source, None)
    return t


def _recorded_copy(t, dtype, node):
    """A layout-keeping copy that, like torch's ``.to``/``.clone``, stays in
    ``t``'s autograd graph (node ``node``) when ``t`` requires grad."""
    out = copy_preserving_layout(t, dtype)
    if needs_graph(t):
        like = SimpleNamespace(shape=tuple(t.shape), dtype=t.dtype)  # what the gradient is cast back to
        record(out, node, (t,), lambda g: (as_input_grad(g, like),))
    return out


def as_tensor(data: Any, *, dtype: _dt.dtype | str | None = None, device: str | _device | None = None) -> Tensor:
    """Shares memory with ``data`` when it is a tensor or NumPy array of the
    requested dtype (returning the same object for a tensor); otherwise copies.

    Unlike ``asarray``, 0-d arrays are shared too, and buffer objects
    (bytearray, array.array, memoryview) are read as sequences and copied.

    >>> import numpy as np, pytensor
    >>> a = np.array([1, 2, 3])
    >>> t = pytensor.as_tensor(a); t[0] = -1; a
    array([-1,  2,  3])
    >>> pytensor.as_tensor(a, dtype=pytensor.float32).data_ptr() == a.ctypes.data
    False
    """
    if dtype is None and device is None:
        if isinstance(data, TensorBase):
            return data
        t = _share_numpy(data, 0, _P_AS_TENSOR)
        if t is not None:
            return t
    dtype = _dtype_arg("as_tensor", dtype)
    dev = _check_device(device, "as_tensor")
    if isinstance(data, TensorBase):
        return _alias_or_convert(data, dtype, dev, None, "as_tensor")
    if _is_ndarray(data):
        return _alias_or_convert(_share_numpy(data, 0), dtype, dev, None, "as_tensor", type(data))
    if _is_dlpack_producer(data):
        return _alias_or_convert(share_producer(data), dtype, dev, None, "as_tensor", type(data))
    described = _described_array(data)
    if described is not None:
        return _alias_or_convert(_share_numpy(described, 0), dtype, dev, None, "as_tensor", type(data))
    return _note(tensor_from_data(data, dtype), _P_CONVERT,
                 ("as_tensor", None, None, _SEQUENCE_COPIED, (type(data), None)), None)


def asarray(obj: Any, *, dtype: _dt.dtype | str | None = None, device: str | _device | None = None, copy: bool | None = None,
            requires_grad: bool = False) -> Tensor:
    """Shares memory with ``obj`` whenever possible (``copy=None``), always copies
    with ``copy=True``, and raises with ``copy=False`` when sharing is impossible.

    Tensors and n-d NumPy arrays of the requested dtype are shared (a tensor is
    returned as the same object unless ``requires_grad`` changes); buffer-protocol
    objects are shared and their bytes read as ``dtype`` (default: the default
    float dtype); DLPack producers are shared; 0-d arrays, NumPy scalars,
    scalars and sequences are copied. As torch's documentation of ``asarray``
    says, the result does not require grad unless ``requires_grad=True``: a
    tensor that requires grad gives a detached alias (the same memory, no
    grad, no ``grad_fn``), and ``requires_grad=True`` keeps its history. A
    setting that differs from the source's gives a new alias and never changes
    the caller's tensor.

    >>> import pytensor
    >>> buf = bytearray(8)
    >>> t = pytensor.asarray(buf, dtype=pytensor.int32); t[1] = 7; bytes(buf)
    b'\\x00\\x00\\x00\\x00\\x07\\x00\\x00\\x00'
    >>> pytensor.asarray([1, 2], copy=False)
    Traceback (most recent call last):
    ...
    ValueError: can't alias arbitrary sequence into a tensor.
    >>> a = pytensor.tensor([1., 2., 3.], requires_grad=True)
    >>> b = a + 2
    >>> pytensor.asarray(b)
    tensor([3., 4., 5.])
    >>> pytensor.asarray(b, requires_grad=True) is b
    True
    """
    if dtype is None and device is None and copy is None and requires_grad is False:
        if isinstance(obj, TensorBase):
            if not obj.requires_grad:
                return obj  # nothing to change: the same object, as below
        else:
            t = _share_numpy(obj, 1, _P_ASARRAY)  # n-d arrays only: asarray copies 0-d ones
            if t is not None:
                return t
    dtype = _dtype_arg("asarray", dtype)
    copy = _bool_arg("asarray", "copy", copy, allow_none=True)
    requires_grad = _bool_arg("asarray", "requires_grad", requires_grad)
    dev = _check_device(device, "asarray")
    source = type(obj)
    if isinstance(obj, TensorBase):
        out = _alias_or_convert(obj, dtype, dev, copy)
    elif _is_ndarray(obj) or _is_numpy_scalar(obj) or (described := _described_array(obj)) is not None:
        if not (_is_ndarray(obj) or _is_numpy_scalar(obj)):
            obj = described  # shared as the array NumPy reads it as (0-d copied, as an array's)
        if _is_numpy_scalar(obj):
            if copy is False:
                raise RuntimeError("can't alias NumPy scalars. Either remove copy=False or transform it in a "
                                   "ndarray. ")
            obj = sys.modules["numpy"].asarray(obj)
        shared = _share_numpy(obj, 0)
        out = _alias_or_convert(shared, dtype, dev, copy, "asarray", source)
        if shared.dim() == 0 and out.data_ptr() == shared.data_ptr():
            # torch copies every 0-d array, even with copy=False (and without an error)
            out = _note(copy_preserving_layout(out), _P_CONVERT,
                        ("asarray", None, None, _ZERO_D_COPIED, (source, shared._storage._addr)), None)
    elif _is_capsule(obj):
        out = _alias_or_convert(from_dlpack(obj), dtype, dev, copy, "asarray", source)
    elif _has_buffer(obj):
        out = _alias_or_convert(frombuffer(obj, dtype=dtype or _dt.get_default_dtype()), None, dev, copy, "asarray",
                                source)
    elif hasattr(obj, "__dlpack__"):
        out = _alias_or_convert(share_producer(obj), dtype, dev, copy, "asarray", source)
    else:
        if copy is False:
            raise ValueError("can't alias arbitrary sequence into a tensor.")
        out = _note(tensor_from_data(obj, dtype), _P_CONVERT, ("asarray", None, None, _SEQUENCE_COPIED, (source, None)),
                    None)
    if out.requires_grad != requires_grad:
        if out is obj or out.grad_fn is not None:
            # A new alias: never change the caller's tensor (torch's docs, not
            # torch's code, which flips requires_grad on the source itself).
            out = _note(out.detach(), _P_ALIAS, "asarray", out)
        if requires_grad:
            _check_grad_dtype(out.dtype)
            out.requires_grad_(True)
    return out


def _is_capsule(obj):
    return type(obj).__name__ == "PyCapsule"


def _has_buffer(obj):
    try:
        memoryview(obj).release()
    except TypeError:
        return False
    return True


def frombuffer(buffer: Any, *, dtype: _dt.dtype | str, count: int = -1, offset: int = 0,
               requires_grad: bool = False) -> Tensor:
    """Shares the memory of a buffer-protocol object (never copies), as a 1-D tensor.

    ``offset`` counts bytes, ``count`` elements (-1: to the end). The buffer stays
    exported, so e.g. a ``bytearray`` cannot be resized while a tensor uses it, and
    its owner stays alive. Read-only buffers (``bytes``) give read-only tensors.

    >>> import pytensor
    >>> buf = bytearray(b"\\x01\\x00\\x02\\x00")
    >>> t = pytensor.frombuffer(buf, dtype=pytensor.int16); t
    tensor([1, 2], dtype=pytensor.int16)
    >>> t[0] = 5; buf[0]
    5
    """
    if requires_grad is False:
        t = _share_buffer(buffer, dtype, count, offset, False)  # None: an argument to normalize first
        if t is not None:
            return t
    dtype = _dtype_arg("frombuffer", dtype, required=True)
    count = int64_arg("frombuffer", "count", count)
    offset = int64_arg("frombuffer", "offset", offset)
    requires_grad = _bool_arg("frombuffer", "requires_grad", requires_grad)
    if requires_grad:
        _check_grad_dtype(dtype)
    return _set_requires_grad(_share_buffer(buffer, dtype, count, offset, False), requires_grad)
