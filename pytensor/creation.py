"""The memory-sharing constructors, with torch's names, signatures and
share-versus-copy rules: tensor, as_tensor, asarray, from_numpy, frombuffer.

Each is one decision ladder: find what the input is, decide share or copy,
end in a clear error for anything else. Where torch is unsafe (writable
tensors over read-only buffers, buffers left resizable under a live tensor)
pytensor is safe instead: read-only input gives a read-only tensor, and the
buffer stays exported (locked against resizing) while any tensor uses it.
"""
from __future__ import annotations

from . import dtypes as _dt
from ._convert import from_numpy as _from_numpy, tensor_from_data, _is_numpy_scalar
from ._ffi import ffi
from ._storage import UntypedStorage
from .tensor import Tensor, device as _device

__all__ = ["tensor", "as_tensor", "asarray", "from_numpy", "frombuffer"]

_TORCH_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16",
                "int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
                "bool": "Bool", "complex64": "ComplexFloat", "complex128": "ComplexDouble",
                "uint16": "UInt16", "uint32": "UInt32", "uint64": "UInt64"}


def _dtype_arg(fn, dtype, required=False):
    if dtype is None:
        if required:
            raise TypeError(f"{fn}(): argument 'dtype' must be pytensor.dtype, not NoneType")
        return None
    if not isinstance(dtype, _dt.dtype):
        raise TypeError(f"{fn}(): argument 'dtype' must be pytensor.dtype, not {type(dtype).__name__}")
    return dtype


def _check_device(device):
    if device is None:
        return None
    d = _device(device) if not isinstance(device, int) else None
    if d is None or d.type != "cpu":
        raise RuntimeError(f"pytensor creates tensors on the CPU only; device={device!r} is not available")
    return d


def _set_requires_grad(t, requires_grad):
    if requires_grad:
        t.requires_grad_(True)
    return t


def tensor(data, *, dtype=None, device=None, requires_grad=False):
    """Copies ``data`` (never shares) into a new tensor; the dtype is inferred as torch does.

    >>> import pytensor
    >>> pytensor.tensor([[1, 2], [3, 4]])
    tensor([[1, 2],
            [3, 4]])
    >>> pytensor.tensor([1, 2.5]).dtype
    pytensor.float32
    """
    dtype = _dtype_arg("tensor", dtype)
    _check_device(device)
    t = tensor_from_data(data, dtype)
    t._requires_grad = False
    return _set_requires_grad(t, requires_grad)


def from_numpy(ndarray):
    """Shares ``ndarray``'s memory (never copies); writes show through both ways.

    Refuses negative strides, non-native byte order and dtypes pytensor lacks,
    as torch.from_numpy does. A read-only array gives a read-only tensor.

    >>> import numpy as np, pytensor
    >>> a = np.arange(3)
    >>> t = pytensor.from_numpy(a); t[0] = 10; a
    array([10,  1,  2])
    """
    return _from_numpy(ndarray)


def _is_ndarray(obj):
    return type(obj).__module__ == "numpy" and type(obj).__name__ == "ndarray"


def _alias_or_convert(t, dtype, device, copy, what):
    """The asarray/as_tensor decision for an existing tensor ``t``."""
    wrong_dtype = dtype is not None and dtype is not t.dtype
    if copy is False and wrong_dtype:
        raise ValueError(f"can't alias {what} with dtype '{_TORCH_NAMES[t.dtype.name]}' into dtype "
                         f"'{_TORCH_NAMES[dtype.name]}'.")
    if copy:
        return t.to(dtype or t.dtype, copy=True)
    if wrong_dtype:
        return t.to(dtype)
    return t


def as_tensor(data, dtype=None, device=None):
    """Shares memory with ``data`` when it is a tensor or NumPy array of the
    requested dtype (returning the same object for a tensor); otherwise copies.

    >>> import numpy as np, pytensor
    >>> a = np.array([1, 2, 3])
    >>> t = pytensor.as_tensor(a); t[0] = -1; a
    array([-1,  2,  3])
    >>> pytensor.as_tensor(a, dtype=pytensor.float32).data_ptr() == a.ctypes.data
    False
    """
    dtype = _dtype_arg("as_tensor", dtype)
    _check_device(device)
    if isinstance(data, Tensor):
        return _alias_or_convert(data, dtype, device, None, "tensor")
    if _is_ndarray(data):
        return _alias_or_convert(_from_numpy(data), dtype, device, None, "tensor")
    if hasattr(data, "__dlpack__") and not _is_numpy_scalar(data):
        from ._dlpack import from_dlpack
        return _alias_or_convert(from_dlpack(data), dtype, device, None, "tensor")
    if isinstance(data, bytes):
        raise TypeError("new(): invalid data type 'bytes'")
    if _is_numpy_scalar(data) and data.dtype.name == "uint64":
        raise TypeError("an integer is required")
    return tensor_from_data(data, dtype)


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    """Shares memory with ``obj`` whenever possible (``copy=None``), always copies
    with ``copy=True``, and raises with ``copy=False`` when sharing is impossible.

    Tensors and n-d NumPy arrays of the requested dtype are shared (a tensor is
    returned as the same object unless ``requires_grad`` changes); buffer-protocol
    objects are shared and their bytes read as ``dtype`` (default: the default
    float dtype); DLPack producers are shared; 0-d arrays, NumPy scalars,
    scalars and sequences are copied.

    >>> import pytensor
    >>> buf = bytearray(8)
    >>> t = pytensor.asarray(buf, dtype=pytensor.int32); t[1] = 7; bytes(buf)
    b'\\x00\\x00\\x00\\x00\\x07\\x00\\x00\\x00'
    >>> pytensor.asarray([1, 2], copy=False)
    Traceback (most recent call last):
    ...
    ValueError: can't alias arbitrary sequence into a tensor.
    """
    dtype = _dtype_arg("asarray", dtype)
    if copy is not None and not isinstance(copy, bool):
        raise TypeError(f"asarray(): argument 'copy' must be bool, not {type(copy).__name__}")
    _check_device(device)
    if requires_grad and dtype is not None and not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
    if isinstance(obj, Tensor):
        out = _alias_or_convert(obj, dtype, device, copy, "tensor")
        if out is obj and obj.requires_grad != bool(requires_grad):
            out = obj.detach()  # never change the caller's tensor (torch's docs, not torch's code)
    elif _is_ndarray(obj) or _is_numpy_scalar(obj):
        if _is_numpy_scalar(obj) and copy is False:
            raise RuntimeError("can't alias NumPy scalars. Either remove copy=False or transform it in a ndarray. ")
        if obj.ndim == 0:
            out = tensor_from_data(obj, dtype)  # torch never aliases 0-d arrays
        else:
            out = _alias_or_convert(_from_numpy(obj), dtype, device, copy, "tensor")
    elif _is_capsule(obj):
        from ._dlpack import from_dlpack
        out = _alias_or_convert(from_dlpack(obj), dtype, device, copy, "tensor")
    elif _has_buffer(obj):
        out = frombuffer(obj, dtype=dtype or _dt.get_default_dtype())
        if copy:
            out = out.clone()
    elif hasattr(obj, "__dlpack__"):
        from ._dlpack import from_dlpack
        out = _alias_or_convert(from_dlpack(obj), dtype, device, copy, "tensor")
    else:
        if copy is False:
            raise ValueError("can't alias arbitrary sequence into a tensor.")
        out = tensor_from_data(obj, dtype)
    return _set_requires_grad(out, requires_grad)


def _is_capsule(obj):
    return type(obj).__name__ == "PyCapsule"


def _has_buffer(obj):
    try:
        memoryview(obj).release()
    except TypeError:
        return False
    return True


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
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
    dtype = _dtype_arg("frombuffer", dtype, required=True)
    for name, v in (("count", count), ("offset", offset)):
        if not isinstance(v, int) or isinstance(v, bool):
            raise TypeError(f"frombuffer(): argument '{name}' must be int, not {type(v).__name__}")
    if requires_grad and not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
    readonly = False
    try:
        cd = ffi.from_buffer(buffer, require_writable=True)
    except BufferError:
        # cffi says "not writable" with BufferError: a read-only exporter (bytes,
        # a read-only memoryview). Take it read-only and mark the storage so.
        try:
            cd = ffi.from_buffer(buffer)
            readonly = True
        except (TypeError, BufferError, ValueError):
            raise RuntimeError("could not retrieve buffer from object (it must be C-contiguous)") from None
    except TypeError:
        if not _has_buffer(buffer):
            raise ValueError("object does not implement Python buffer protocol.") from None
        try:
            cd = ffi.from_buffer(buffer)
            readonly = True
        except (TypeError, BufferError, ValueError):
            raise RuntimeError("could not retrieve buffer from object (it must be C-contiguous)") from None
    except ValueError:
        raise RuntimeError("could not retrieve buffer from object (it must be C-contiguous)") from None
    if not memoryview(buffer).c_contiguous:
        raise RuntimeError("could not retrieve buffer from object (it must be C-contiguous)")
    length = ffi.sizeof(cd)
    elsize = dtype.itemsize
    if length <= 0 or count == 0:
        raise ValueError(f"both buffer length ({length}) and count ({count}) must not be 0")
    if not 0 <= offset < length:
        raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater than buffer length "
                         f"({length} bytes) minus 1")
    if count < 0 and (length - offset) % elsize:
        raise ValueError(f"buffer length ({length - offset} bytes) after offset ({offset} bytes) must be a "
                         f"multiple of element size ({elsize})")
    n = count if count > 0 else (length - offset) // elsize
    if offset + n * elsize > length:
        raise ValueError(f"requested buffer length ({n} * {elsize} bytes) after offset ({offset} bytes) must not "
                         f"be greater than actual buffer length ({length} bytes)")
    addr = int(ffi.cast("uintptr_t", cd)) + offset
    label = type(buffer).__name__
    storage = UntypedStorage._wrap_object(cd, addr, n * elsize, readonly, "buffer", label)
    t = Tensor._make(storage, dtype, (n,), (1,), 0)
    return _set_requires_grad(t, requires_grad)
