"""The Tensor part that writes in place: fill_(), zero_(), copy_() and resize_().

Every write checks the storage is writable (and, but for fill_, that no two
elements share a location), goes through one libtensor call, and bumps the
storage's version so that autograd and the inspector see it.
"""
from __future__ import annotations

import math
import struct
from typing import Self

from ._convert_in import as_tensor_operand
from ._conj import fill_bytes
from ._core import MAX_NBYTES, TensorBase, copy_into, shape_args
from ._ffi import lib, shim
from ._layout import contiguous_strides, numel as _numel
from .errors import check


_fill_inplace, _copy_inplace = shim.fill_inplace, shim.copy_inplace  # the common cases in one C call; None: below
_note_write = shim.note_write
_has_shape = shim.has_shape  # whether plain-int sizes are the tensor's shape, one C call


class Writes:
    """fill_, zero_, copy_, resize_, resize_as_."""

    __slots__ = ()

    def fill_(self, value):
        """Set every element to ``value`` in place (writes through every alias)."""
        if _fill_inplace(self, value) is not None:
            _note_write(self)
            return self
        if isinstance(value, TensorBase):
            if value.dim() != 0:
                raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with "
                                   f"{value.dim()} dimensions.")
            return self.copy_(value.expand(self._shape) if self._shape else value)
        self._check_write(refuse_overlap=False)
        if self._dtype.kind == "float4":
            raise NotImplementedError(f"fill_() is not implemented for {self._dtype.name}, as in torch: it is "
                                      "storage-only (two 4-bit floats per byte); write bytes through .view(uint8)")
        code, buf = _scalar_bytes(value, self._dtype)
        dst, code, buf, _keep = fill_bytes(self, code, buf)  # through a conjugate view: the conjugate value
        check(lib.lt_fill(dst._ptr(), dst._strides, dst._dtype.code, buf, code, dst.dim(), dst._shape))
        self._version_bump()
        return self

    def zero_(self):
        """Set every element to zero in place."""
        if _fill_inplace(self, 0) is not None:  # the common case: one C call
            _note_write(self)
            return self
        return self.fill_(0)

    def copy_(self, src, non_blocking=False):
        """Copy ``src`` (broadcast to self's shape, converted to self's dtype) into self's memory."""
        # a tensor goes to lt_copy as it is: one pass converts the dtype (and handles overlap) in C
        if _copy_inplace(self, src) is not None:
            _note_write(self)
            return self
        src = as_tensor_operand(src, None if isinstance(src, TensorBase) else self._dtype)
        self._check_write()
        try:
            src = src.expand(self._shape) if src._shape != self._shape else src
        except RuntimeError:
            raise RuntimeError(f"The size of tensor a ({list(self._shape)}) must match the size of tensor b "
                               f"({list(src._shape)}): src cannot be broadcast to self") from None
        copy_into(self, src)
        self._version_bump()
        return self

    def resize_(self, *sizes: int, memory_format: object = None) -> Self:
        """Give this tensor the shape ``sizes`` in place, row-major over its storage from its offset.

        As torch: the same shape leaves the tensor as it is; another shape
        makes it contiguous (existing elements keep their place in memory);
        a storage too small for the new shape grows, and the new bytes are
        uninitialised. Refused (RuntimeError) for a tensor that requires
        grad, and growth is refused for storages that are not resizable: memory
        pytensor does not own (NumPy, buffers, files, DLPack imports), storages
        whose address was handed to NumPy (``numpy()``), and, unlike torch,
        storages that anything else still uses (another view, a DLPack export,
        a kept ``untyped_storage()``): growing moves the bytes, and pytensor
        never moves bytes under a live view. Not safe against another thread
        using this same tensor at the same time (nor is torch's).

        >>> import pytensor
        >>> t = pytensor.arange(4.)
        >>> t.resize_(2, 2)
        tensor([[0., 1.],
                [2., 3.]])
        >>> t.resize_(3, 3)[0]
        tensor([0., 1., 2.])
        """
        if memory_format is None and sizes and not self._requires_grad and _has_shape(self, sizes):
            return self  # the shape it has, as plain ints: nothing changes (the Python path's answer below)
        if memory_format is not None and str(memory_format).rsplit(".", 1)[-1] != "contiguous_format":
            raise NotImplementedError(f"resize_(): pytensor lays out resized tensors row-major only, not "
                                      f"{memory_format}")
        if not sizes:
            raise TypeError("resize_() missing 1 required positional argument: 'sizes'")
        sizes = shape_args(sizes)
        if any(n < 0 for n in sizes):
            raise RuntimeError(f"resize_(): negative dimension {min(sizes)} in {list(sizes)}")
        if self._requires_grad:
            raise RuntimeError("cannot resize variables that require grad")
        if sizes == self._shape:
            return self
        strides = contiguous_strides(sizes)  # refuses strides past int64, as torch does
        numel = _numel(sizes)  # libtensor's one rule: (2**62, 2**62, 0) is refused here as everywhere
        nbytes = (self._offset + numel) * self._dtype.itemsize if numel else 0
        if nbytes > MAX_NBYTES:
            raise RuntimeError(f"Storage size calculation overflowed with sizes={list(sizes)}")
        if nbytes > self._storage._nbytes:
            provenance = self._storage.provenance
            if provenance != "owned":
                raise RuntimeError(f"Trying to resize storage that is not resizable: its bytes belong to the "
                                   f"{provenance} it wraps ({self._storage.label}); resize a copy (.clone())")
            shim.grow_storage(self, nbytes)  # refused while anything else uses the address
        self._shape, self._strides = sizes, strides
        return self

    def resize_as_(self, other: Self, memory_format: object = None) -> Self:
        """``resize_(other.shape)``."""
        if memory_format is None and not self._requires_grad and isinstance(other, TensorBase) and \
                other._shape == self._shape:
            return self  # resize_ to the shape it has leaves the tensor as it is
        return self.resize_(other.shape, memory_format=memory_format)


_INT_RANGES = {
    "uint8": (-255, 255), "uint16": (-65535, 65535), "uint32": (-(2**32 - 1), 2**32 - 1),
    "uint64": (-(2**64 - 1), 2**64 - 1), "int8": (-128, 127), "int16": (-32768, 32767),
    "int32": (-2**31, 2**31 - 1), "int64": (-2**63, 2**63 - 1),
}
# the largest finite value of each floating dtype torch checks (a complex dtype: its parts); the float8s convert
# as torch converts them (saturating or NaN), so they are left to libtensor's conversion
_FLOAT_MAX = {"float16": 65504.0, "bfloat16": 3.3895313892515355e38, "float32": 3.4028234663852886e38,
              "complex64": 3.4028234663852886e38}


def _scalar_bytes(value, dt):
    """A Python scalar as (lt_dtype code, bytes) for lt_fill, refusing values that overflow ``dt``
    as torch's fill_ does (RuntimeError "value cannot be converted ... without overflow"): an int
    must fit int64 or uint64 (else OverflowError, Python's own), then the dtype's range; a float or
    complex value must be finite within a floating dtype's range (inf and NaN pass), and a complex
    value has a zero imaginary part unless ``dt`` is complex. bool takes every number."""
    if isinstance(value, TensorBase):
        value = value.item()
    if hasattr(value, "item") and not isinstance(value, (int, float, complex)):
        value = value.item()  # numpy scalars
    if isinstance(value, bool):
        return lib.LT_BOOL, struct.pack("?", value)
    if isinstance(value, int):
        if value < -2**63:
            raise OverflowError(f"can't convert negative int to unsigned: {value} is below int64's range")
        if value >= 2**64:
            raise OverflowError(f"int too big to convert: {value} is past uint64's range")
        rng = _INT_RANGES.get(dt.name)
        if rng and not rng[0] <= value <= rng[1]:
            _overflow(value, dt)
        _check_float_range(float(value), value, dt)
        if value >= 2**63:
            return lib.LT_UINT64, struct.pack("Q", value)
        return lib.LT_INT64, struct.pack("q", value)
    if isinstance(value, float):
        _check_real_range(value, value, dt)
        return lib.LT_FLOAT64, struct.pack("d", value)
    if isinstance(value, complex):
        if not dt.is_complex and dt.kind != "bool":
            if value.imag != 0:  # NaN too
                _overflow(value, dt)
            _check_real_range(value.real, value, dt)
        elif dt.is_complex:
            _check_float_range(value.real, value, dt)
            _check_float_range(value.imag, value, dt)
        return lib.LT_COMPLEX128, struct.pack("dd", value.real, value.imag)
    raise TypeError(f"a scalar must be a bool, int, float or complex, not {type(value).__name__}")


def _check_real_range(x, value, dt):
    """A real part ``x`` of ``value`` against ``dt``: an integer dtype takes x within [min, max]
    compared in double precision, as torch compares (127.9 overflows int8, 2.0**63 passes for
    int64, and an unsigned dtype takes no negative float); floating dtypes as _check_float_range."""
    if dt.kind in ("int", "uint"):
        hi = _INT_RANGES[dt.name][1]
        lo = 0 if dt.kind == "uint" else -hi - 1
        if not float(lo) <= x <= float(hi):  # NaN fails too
            _overflow(value, dt)
    _check_float_range(x, value, dt)


def _check_float_range(x, value, dt):
    """torch's check for a floating (or complex) dtype: a finite ``x`` beyond the largest finite
    value overflows, however close (float16 refuses 65505 and 65519.0, which round to 65504)."""
    top = _FLOAT_MAX.get(dt.name)
    if top is not None and math.isfinite(x) and abs(x) > top:
        _overflow(value, dt)


def _overflow(value, dt):
    raise RuntimeError(f"value cannot be converted to type {dt.name} without overflow: {value!r}")
