"""Devices: ``device``, the default device of factories, and the one table of DLPack device types.

pytensor computes on the CPU only, but it imports (and describes) memory on
any DLPack device, so a device is a name torch accepts plus an optional
index. This module is the only home of which DLPack device types are host
memory and what torch calls each one; storages, DLPack export and import
read them from here.
"""
from __future__ import annotations

import builtins
import re
import threading

from .errors import DeviceError

__all__ = ["device", "CPU", "get_default_device", "set_default_device", "require_cpu", "HOST_DEVICE_TYPES",
           "dlpack_device_name"]

# DLPack device type code -> (torch's device type name, host memory?). Host memory is what pytensor can read and
# write: the CPU's, and the CUDA/ROCm pinned and managed memory that the CPU may address.
_DLPACK_DEVICES = {
    1: ("cpu", True),             # kDLCPU
    2: ("cuda", False),           # kDLCUDA
    3: ("cpu", True),             # kDLCUDAHost
    4: ("opencl", False),         # kDLOpenCL
    7: ("vulkan", False),         # kDLVulkan
    8: ("mps", False),            # kDLMetal
    10: ("cuda", False),          # kDLROCM (torch calls ROCm devices cuda)
    11: ("cpu", True),            # kDLROCMHost
    12: ("privateuseone", False), # kDLExtDev
    13: ("cuda", True),           # kDLCUDAManaged
    14: ("xpu", False),           # kDLOneAPI
}
HOST_DEVICE_TYPES = tuple(code for code, (_, host) in _DLPACK_DEVICES.items() if host)


def dlpack_device_name(code):
    """torch's device type name for DLPack device type ``code`` (``'dlpack<code>'`` for one torch has no name for)."""
    entry = _DLPACK_DEVICES.get(code)
    return entry[0] if entry else f"dlpack{code}"


# torch's device types (torch.device refuses any other name).
_DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga", "maia",
                 "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone")
_DEVICE_STRING = re.compile(r"([a-z_]+)(?::(0|[1-9][0-9]*))?")


class device:
    """Where a tensor's bytes live: ``device('cpu')``, or another DLPack device for imports.

    Takes what torch.device takes (``'cpu'``, ``'cuda:1'``, ``('cuda', 1)``,
    a pytensor or torch device) and refuses the names torch refuses. Used as a
    context manager it sets the default device of the factories inside the
    block, as torch's does; pytensor creates tensors on the CPU only, so only
    a CPU device may be entered (any other raises DeviceError at the ``with``).

    >>> import pytensor
    >>> pytensor.device("cpu"), pytensor.device("cuda", 1)
    (device(type='cpu'), device(type='cuda', index=1))
    >>> with pytensor.device("cpu"):
    ...     pytensor.zeros(2).device
    device(type='cpu')
    """

    __slots__ = ("type", "index")

    def __init__(self, type, index=None):  # noqa: A002  (torch's name)
        if isinstance(type, bytes):
            type = type.decode()
        if isinstance(type, str):
            type, parsed = _parse_device_string(type)
            if parsed is not None and index is not None:
                raise RuntimeError(f"device {type}:{parsed}: the string names an index, so index={index!r} "
                                   "must not be passed as well")
            index = parsed if parsed is not None else index
        elif isinstance(type, int) and not isinstance(type, bool):
            raise DeviceError(f"device({type}) names accelerator {type}, and pytensor has none "
                              "(it computes on the CPU); use 'cpu'")
        elif isinstance(type, device):
            type, index = type.type, type.index if index is None else index
        elif hasattr(type, "type") and hasattr(type, "index"):  # a torch.device
            type, index = _parse_device_string(str(type.type))[0], type.index if index is None else index
        else:
            raise TypeError(f"device() takes a device string such as 'cpu' or 'cuda:0', or a device, not "
                            f"{builtins.type(type).__name__}")
        if index is not None:
            if isinstance(index, bool) or not isinstance(index, int):
                raise TypeError(f"device(): argument 'index' must be int, not {builtins.type(index).__name__}")
            if index < 0:
                raise RuntimeError(f"device index must not be negative, got {index}")
        self.type, self.index = type, index

    @classmethod
    def _of(cls, type, index=None):  # noqa: A002
        """A device as libtensor reports one (any DLPack device, named or not); no checks."""
        d = object.__new__(cls)
        d.type, d.index = type, index
        return d

    def __repr__(self):
        return f"device(type='{self.type}')" if self.index is None else \
            f"device(type='{self.type}', index={self.index})"

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other):
        if isinstance(other, str):
            try:
                other = device(other)
            except (RuntimeError, TypeError):
                return False
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self):
        return hash((self.type, self.index))

    # -- the default device of factories (torch's `with torch.device(...)`) --
    def __enter__(self):
        _check_default_device(self, "with pytensor.device(...)")
        _device_stack().append(self)
        return self

    def __exit__(self, *exc):
        _device_stack().pop()


def _parse_device_string(text):
    """(type, index or None) of 'type' or 'type:index', with torch's refusals."""
    if not text:
        raise RuntimeError("device string must not be empty; use e.g. 'cpu'")
    m = _DEVICE_STRING.fullmatch(text)
    if m is None:
        raise RuntimeError(f"invalid device string {text!r}: expected 'type' or 'type:index', e.g. 'cpu' or "
                           "'cuda:0'")
    if m.group(1) not in _DEVICE_TYPES:
        raise RuntimeError(f"unknown device type {m.group(1)!r} in {text!r}; expected one of "
                           f"{', '.join(_DEVICE_TYPES)}")
    index = m.group(2)
    if index is not None and len(index) > 9:
        raise RuntimeError(f"could not parse the device index {index!r} in {text!r}")
    return m.group(1), None if index is None else int(index)


_default = threading.local()  # each thread's stack of `with device(...)` blocks, as torch's modes are per thread
_global_default = None  # set_default_device's device, or None


def _device_stack():
    stack = getattr(_default, "stack", None)
    if stack is None:
        stack = _default.stack = []
    return stack


def _check_default_device(d, what):
    if d.type != "cpu":
        raise DeviceError(f"{what}: pytensor creates tensors on the CPU only, so it cannot make {d} the "
                          "default device; use 'cpu'")


def get_default_device() -> device:
    """The device factories use when none is given: always a CPU device in pytensor.

    >>> import pytensor
    >>> pytensor.get_default_device()
    device(type='cpu')
    """
    stack = _device_stack()
    return stack[-1] if stack else _global_default or CPU


def set_default_device(device_: str | device | None) -> None:
    """Set the default device of factories (torch's name). Only a CPU device, or None, is accepted."""
    global _global_default
    if device_ is None:
        _global_default = None
        return
    d = device_ if isinstance(device_, device) else device(device_)
    _check_default_device(d, "set_default_device()")
    _global_default = d


def require_cpu(value, fn):
    """``value`` (a device argument) as a device, or None when not given; a
    device other than the CPU raises DeviceError (a RuntimeError, as in torch)."""
    if value is None:
        return None
    d = value if isinstance(value, device) else device(value)
    if d.type != "cpu":
        raise DeviceError(f"{fn}(): pytensor creates tensors on the CPU only; device={str(d)!r} is not available")
    return d


CPU = device("cpu")
