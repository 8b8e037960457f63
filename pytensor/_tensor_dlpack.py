"""The Tensor part that exports through DLPack: __dlpack__ and __dlpack_device__ (pytensor/_dlpack.py does the work).

The C exchange API capsule (__dlpack_c_exchange_api__) is set in tensor.py's
class body: it must be Tensor's own attribute (see there).
"""
from __future__ import annotations

from ._dlpack import dlpack_device, export


class DLPackExport:
    """__dlpack__, __dlpack_device__."""

    __slots__ = ()

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """A DLPack capsule sharing this tensor's memory (a copy's when ``copy=True``).

        Versioned (``dltensor_versioned``) when ``max_version`` >= (1, 0), else legacy;
        read-only storage sets the READ_ONLY flag and is refused on legacy requests.
        """
        return export(self, stream, max_version, dl_device, copy)

    def __dlpack_device__(self):
        """``(device_type, device_id)`` in DLPack codes: ``(kDLCPU, 0)`` for host memory."""
        return dlpack_device(self)
