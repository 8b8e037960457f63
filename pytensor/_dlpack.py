"""DLPack: ``Tensor.__dlpack__`` / ``__dlpack_device__`` (export) and
``from_dlpack`` (import), over libtensor's lt_dlpack_export/import and the
shim's capsule functions.

Export shares memory (a capsule holds one storage reference until its
consumer calls the deleter); import shares memory (the producer's deleter
runs exactly once, when the last pytensor view of it dies, on any thread).
"""
from __future__ import annotations

import enum
import sys
from typing import Any

from ._conj import CONJ
from ._core import Tensor, TensorBase
from ._device import HOST_DEVICE_TYPES, device as _device
from ._ffi import lib, shim
from .errors import DLPackError, PytensorError

__all__ = ["from_dlpack", "DLDeviceType"]

_VERSIONED = lib.LT_EXPORT_VERSIONED


class DLPackUsageError(PytensorError, ValueError, AssertionError):
    """A DLPack argument that is well-typed but not allowed here (a CPU stream
    other than None/-1, device/copy given with a raw capsule). torch raises
    AssertionError and the DLPack spec ValueError, so this is both."""


class DLPackDeviceError(DLPackError, AssertionError):
    """``from_dlpack(device=...)`` named a device pytensor cannot import onto.
    torch's CPU build raises AssertionError here, and pytensor's DLPack
    refusals are BufferError, so this is both."""


class NotDLPackError(PytensorError, RuntimeError, AttributeError):
    """``from_dlpack`` was given neither a DLPack capsule nor an object with
    ``__dlpack__``. torch raises RuntimeError and the Array API AttributeError,
    so this is both."""


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


def _int_pair(value, name):
    """``value`` as a tuple of two ints, or TypeError (numpy's rule for max_version and dl_device)."""
    if not isinstance(value, tuple) or len(value) != 2 or not all(isinstance(v, int) for v in value):
        raise TypeError(f"{name} must be None or a tuple of two ints, not {value!r}")
    return int(value[0]), int(value[1])


def export(t, stream=None, max_version=None, dl_device=None, copy=None):
    """The body of ``Tensor.__dlpack__``: a capsule sharing t's memory (or a copy's)."""
    if stream is None and dl_device is None and copy is None and not t._requires_grad:
        # The common request (no stream, no device, no copy): nothing below applies.
        if max_version is None:
            return shim.to_capsule(t, 0)
        if max_version.__class__ is tuple and len(max_version) == 2 and max_version[0].__class__ is int \
                and max_version[1].__class__ is int:
            return shim.to_capsule(t, _VERSIONED if max_version[0] >= 1 else 0)
    own = tuple(map(int, _device_tuple(t)))
    if stream is not None and not isinstance(stream, int):
        raise TypeError(f"stream must be an int or None, not {type(stream).__name__}")
    if stream is not None and stream != -1 and own[0] == DLDeviceType.kDLCPU:
        raise DLPackUsageError(f"stream must be None or -1 for CPU tensors, got {stream!r}")
    if max_version is not None:
        max_version = _int_pair(max_version, "max_version")
    if copy is not None and not isinstance(copy, bool):
        raise TypeError(f"copy must be None or a bool, not {type(copy).__name__}")
    if t.requires_grad:
        raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
    if dl_device is not None and _int_pair(dl_device, "dl_device") != own:
        if dl_device != (1, 0) or own[0] not in HOST_DEVICE_TYPES:
            raise BufferError(f"pytensor cannot move a tensor from device {own} to {dl_device}")
        if copy is False:
            raise BufferError(f"exporting to device {dl_device} from {own} needs a copy, but copy=False")
    if copy and own[0] not in HOST_DEVICE_TYPES:
        raise BufferError(f"copy=True needs host memory, and this tensor lives on device {own}; "
                          "export it without copy and copy it in the consumer")
    flags = 0
    if max_version is not None and max_version[0] >= 1:
        flags |= lib.LT_EXPORT_VERSIONED
    if copy:
        t = t.clone()
        flags |= lib.LT_EXPORT_COPIED
    return shim.to_capsule(t, flags)


def _is_capsule(obj):
    return type(obj).__name__ == "PyCapsule"


def from_dlpack(ext_tensor: Any, *, device: object = None, copy: bool | None = None) -> Tensor:
    """Shares the memory of a DLPack producer (an object with ``__dlpack__``, or a capsule).

    ``copy=True`` asks the producer for a copy (or copies after import);
    ``copy=False`` never copies. The capsule is consumed once; the producer's
    deleter runs exactly once, when the last view of the memory dies.

    >>> import numpy as np, pytensor
    >>> a = np.arange(4.0)
    >>> t = pytensor.from_dlpack(a); t[0] = 9.0; a
    array([9., 1., 2., 3.])
    """
    # The import itself (capsule, C exchange table, the __dlpack__ keyword
    # ladder, the copy) is shim.import_dlpack's (pytensor/_shim_dlpack.c);
    # this function checks the arguments it is given.
    if device is None and copy is None:
        t = shim.import_dlpack(ext_tensor, None, False)
        if t is not None:
            return t
    elif _is_capsule(ext_tensor):
        raise DLPackUsageError("from_dlpack(capsule) takes no device or copy argument: pass the producer "
                               "object itself, or call .clone() on the result to copy")
    if not hasattr(ext_tensor, "__dlpack__"):
        raise NotDLPackError(f"from_dlpack() needs a DLPack capsule or an object with __dlpack__ and "
                             f"__dlpack_device__, not {type(ext_tensor).__name__}")
    if device is not None:
        if not isinstance(device, (str, _device)) and not (hasattr(device, "type") and hasattr(device, "index")):
            # torch's check and type: a device is a str or a device object (not an index)
            raise DLPackUsageError(f"from_dlpack: unsupported device type: {type(device)}; pass 'cpu' or a "
                                   "pytensor.device")
        if _device(device).type != "cpu":
            raise DLPackDeviceError(f"pytensor imports onto the CPU only, not {device}; leave device=None to "
                                    "import a view of memory on another device")
    # The producer's device matters only when a device is asked for: without
    # one, memory on any device imports as it is (host or metadata-only).
    host_copy = device is not None and int(ext_tensor.__dlpack_device__()[0]) not in HOST_DEVICE_TYPES
    return shim.import_dlpack(ext_tensor, copy, host_copy)


def share_producer(obj: Any, to_copy: bool = False) -> Tensor:
    """``from_dlpack(obj)`` for the constructors that read a DLPack producer
    (``asarray`` and ``as_tensor`` share it, ``tensor`` copies it, and says so
    with ``to_copy``), which read a torch tensor's conjugate bit as torch's own
    constructors do. torch's ``__dlpack__`` refuses such a tensor
    (``from_dlpack`` keeps that error, as torch's), so its bytes come through
    ``obj.conj()``, torch's view of the same bytes with the bit cleared, and
    the import gets the bit back. The negative bit is carried by every import
    (shim.import_dlpack). A tensor that requires grad is refused by
    ``__dlpack__`` too; ``tensor`` copies it all the same, as torch.tensor
    does, through ``obj.detach()`` (the same memory, outside torch's graph)."""
    torch = sys.modules.get("torch")
    if torch is None or not isinstance(obj, torch.Tensor):
        return from_dlpack(obj)
    if to_copy and obj.requires_grad:
        obj = obj.detach()
    if obj.is_conj():
        t = from_dlpack(obj.conj())
        t._bits |= CONJ
        return t
    return from_dlpack(obj)


def to_dlpack(tensor: Tensor) -> Any:
    """A legacy ``"dltensor"`` capsule sharing ``tensor``'s memory (as torch.utils.dlpack.to_dlpack).

    Like torch's, it exports a tensor that requires grad (the importer gets
    plain memory, no grad); only ``__dlpack__`` refuses those."""
    if not isinstance(tensor, TensorBase):
        raise TypeError(f"to_dlpack(): argument 'tensor' must be Tensor, not {type(tensor).__name__}")
    return export(tensor.detach() if tensor._requires_grad else tensor)


__all__ += ["to_dlpack", "DLPackError", "DLPackUsageError", "DLPackDeviceError", "NotDLPackError"]
