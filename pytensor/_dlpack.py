"""DLPack: ``Tensor.__dlpack__`` / ``__dlpack_device__`` (export) and
``from_dlpack`` (import), over libtensor's lt_dlpack_export/import and the
shim's capsule functions.

Export shares memory (a capsule holds one storage reference until its
consumer calls the deleter); import shares memory (the producer's deleter
runs exactly once, when the last pytensor view of it dies, on any thread).
"""
from __future__ import annotations

import enum

from . import dtypes as _dt
from ._ffi import ffi, lib, shim
from ._storage import UntypedStorage
from .errors import error_for, DLPackError
from .tensor import Tensor

__all__ = ["from_dlpack", "DLDeviceType"]

_SUPPORTED_MAX = (1, 3)


class DLDeviceType(enum.IntEnum):
    """DLPack device codes (the spec's values)."""
    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3
    kDLOpenCL = 4
    kDLVulkan = 7
    kDLMetal = 8
    kDLVPI = 9
    kDLROCM = 10
    kDLROCMHost = 11
    kDLExtDev = 12
    kDLCUDAManaged = 13
    kDLOneAPI = 14
    kDLWebGPU = 15
    kDLHexagon = 16
    kDLMAIA = 17
    kDLTrn = 18


def _device_tuple(t):
    ptr = t._storage._ptr
    code = int(lib.lt_storage_device_type(ptr))
    try:
        code = DLDeviceType(code)
    except ValueError:
        pass
    return code, int(lib.lt_storage_device_id(ptr))


def dlpack_device(t):
    """``(device_type, device_id)`` of the tensor's memory, e.g. ``(DLDeviceType.kDLCPU, 0)``."""
    return _device_tuple(t)


def export(t, stream=None, max_version=None, dl_device=None, copy=None):
    """The body of ``Tensor.__dlpack__``: a capsule sharing t's memory (or a copy's)."""
    own = _device_tuple(t)
    if stream is not None and stream != -1 and own[0] == DLDeviceType.kDLCPU:
        raise BufferError(f"stream must be None or -1 for CPU tensors, got {stream!r}")
    if t.requires_grad:
        raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
    if dl_device is not None and tuple(map(int, dl_device)) != tuple(map(int, own)):
        if tuple(map(int, dl_device)) != (1, 0) or own[0] not in (1, 3, 11, 13):
            raise BufferError(f"pytensor cannot move a tensor from device {tuple(map(int, own))} to "
                              f"{tuple(map(int, dl_device))}")
    if copy is False and dl_device is not None and tuple(map(int, dl_device)) != tuple(map(int, own)):
        raise BufferError("a copy is required to export to the requested device, but copy=False")
    flags = 0
    if max_version is not None and int(max_version[0]) >= 1:
        flags |= lib.LT_EXPORT_VERSIONED
    if copy:
        t = t.clone()
        flags |= lib.LT_EXPORT_COPIED
    st = t._storage
    res = shim.to_capsule(int(ffi.cast("uintptr_t", st._ptr)), t._dtype.code, t._shape, t._strides, t._offset, flags)
    if isinstance(res, tuple):
        raise error_for(res[0], res[1])
    return res


def _is_capsule(obj):
    return type(obj).__name__ == "PyCapsule"


def _consume(capsule):
    try:
        res = shim.from_capsule(capsule)
    except ValueError:
        raise RuntimeError("from_dlpack received an invalid capsule. Note that DLTensor capsules can be consumed "
                           "only once, so you might have already constructed a tensor from it once.") from None
    if len(res) == 2:
        raise error_for(res[0], res[1])
    addr, code, shape, strides, offset, _dev_type, _dev_id = res
    storage = UntypedStorage._adopt(ffi.cast("lt_storage *", addr))
    return Tensor._make(storage, _dt.by_code[code], shape, strides, offset)


def from_dlpack(ext_tensor, *, device=None, copy=None):
    """Shares the memory of a DLPack producer (an object with ``__dlpack__``, or a capsule).

    ``copy=True`` asks the producer for a copy (or copies after import);
    ``copy=False`` never copies. The capsule is consumed once; the producer's
    deleter runs exactly once, when the last view of the memory dies.

    >>> import numpy as np, pytensor
    >>> a = np.arange(4.0)
    >>> t = pytensor.from_dlpack(a); t[0] = 9.0; a
    array([9., 1., 2., 3.])
    """
    if _is_capsule(ext_tensor):
        if device is not None or copy is not None:
            raise AssertionError("device and copy kwargs not supported when ext_tensor is already a DLPack capsule.")
        return _consume(ext_tensor)
    if not hasattr(ext_tensor, "__dlpack__"):
        raise RuntimeError("from_dlpack received an invalid capsule. Note that DLTensor capsules can be consumed "
                           "only once, so you might have already constructed a tensor from it once.")
    if device is not None:
        from .tensor import device as _device
        if _device(device).type != "cpu":
            raise RuntimeError(f"pytensor imports onto the CPU only, not {device}")
    src_dev = tuple(map(int, ext_tensor.__dlpack_device__()))
    kwargs = {"max_version": _SUPPORTED_MAX}
    if copy is not None:
        kwargs["copy"] = copy
    if device is not None and src_dev[0] not in (1, 3, 11, 13):
        kwargs["dl_device"] = (1, 0)
    copied_by_producer = True
    while True:
        try:
            cap = ext_tensor.__dlpack__(**kwargs)
            break
        except TypeError:
            # Older producers lack newer keywords: drop them one at a time, as torch does.
            for key in ("dl_device", "copy", "max_version"):
                if key in kwargs:
                    if key == "copy":
                        copied_by_producer = False
                    del kwargs[key]
                    break
            else:
                raise
    t = _consume(cap)
    if copy and not copied_by_producer:
        t = t.clone()
    return t


def to_dlpack(tensor):
    """A legacy ``"dltensor"`` capsule sharing ``tensor``'s memory (as torch.utils.dlpack.to_dlpack)."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"to_dlpack(): argument 'tensor' must be Tensor, not {type(tensor).__name__}")
    return export(tensor)


__all__ += ["to_dlpack", "DLPackError"]
