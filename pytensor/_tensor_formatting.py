"""The Tensor part that prints: repr() in torch's format, and describe() for the memory behind it."""
from __future__ import annotations

from . import dtypes as _dt
from ._format import format_tensor


class Formatting:
    """__repr__ (torch's), __str__, describe."""

    __slots__ = ()

    def __repr__(self):
        suffixes = []
        if not self._storage._host:
            return (f"tensor(<{self.numel()} elements on {self.device}>, device='{self.device}', "
                    f"dtype=pytensor.{self._dtype.name})")
        if self._grad_fn is not None:
            suffixes.append(f"grad_fn=<{self._grad_fn.name()}>")
        elif self._requires_grad:
            suffixes.append("requires_grad=True")
        d = self._dtype
        kind = {"bool": "bool", "uint": "int", "int": "int", "float8": "float", "float4": "float"}.get(d.kind, d.kind)
        # float4_e2m1fn_x2 has no values, only bytes (two 4-bit floats each): shown as torch shows them
        shown = self.view(_dt.uint8) if d.kind == "float4" else self
        return format_tensor(shown, dtype_name=d.name, kind=kind, default_float=_dt.get_default_dtype().name,
                             suffixes=suffixes)

    __str__ = __repr__

    def describe(self):
        """A one-line account of the memory: storage, byte range, strides, flags."""
        lo, hi = self._byte_range()
        s = self._storage
        flags = [s.provenance] + (["read-only"] if s._readonly else []) + \
            (["contiguous"] if self.is_contiguous() else [])
        return (f"Tensor{list(self._shape)} {self._dtype.name} strides={list(self._strides)} "
                f"offset={self._offset} -> storage 0x{s._addr:x} bytes [{lo}, {hi}) of {s._nbytes} "
                f"({', '.join(flags)})")
