"""The Tensor part that makes copies: contiguous(), clone(), to() and its dtype shorthands, new_tensor().

Each returns self when nothing would change (as torch), else a tensor over new
memory, recorded in provenance as copied from self.
"""
from __future__ import annotations

from typing import Any, Self

from . import creation, dtypes as _dt
from ._convert_in import copy_preserving_layout
from ._core import TensorBase, copy_into, empty
from ._device import device
from ._ffi import shim
from ._provenance import OP
from .errors import DeviceError

_is_contiguous = shim.is_contiguous
_contiguous_copy = shim.contiguous_copy  # contiguous()'s copy, recorded as contiguous from t; None: declined
_cast = shim.cast  # t converted into new memory laid out as preserve_format, in one crossing; None: declined
_note = shim.prov_note  # _note(t, op, arg, parent) records how t was made (see _provenance.py)
_P_CONTIGUOUS, _P_CLONE, _P_TO = OP["contiguous"], OP["clone"], OP["to"]


def _parse_to(args, kwargs):
    dt = dev = None
    copy = bool(kwargs.pop("copy", False))
    kwargs.pop("non_blocking", None)
    kwargs.pop("memory_format", None)
    if kwargs.get("dtype") is not None:
        dt = _dt.dtype_arg("to", kwargs["dtype"])
    if kwargs.get("device") is not None:
        dev = device(kwargs["device"])
    kwargs.pop("dtype", None), kwargs.pop("device", None)
    for a in args:
        if a is None:
            continue
        if isinstance(a, TensorBase):
            dt, dev = a.dtype, a.device
        elif isinstance(a, str) and a in _dt._ARG_NAMES:
            dt = _dt._ARG_NAMES[a]  # a dtype name (no device type is one)
        elif isinstance(a, (str, bytes, device)) or (hasattr(a, "type") and hasattr(a, "index")):
            dev = device(a)
        elif isinstance(a, bool):
            copy = copy or a
        else:
            try:
                dt = _dt.dtype_arg("to", a, required=True)
            except TypeError:
                raise TypeError(f"to() received an invalid argument {a!r}; expected a dtype (or its name), a "
                                "device or a tensor") from None
    if kwargs:
        raise TypeError(f"to() got unexpected keyword arguments {sorted(kwargs)}")
    return dt, dev, copy


def _convert(t, dt):
    """t.to(dt) for the dtype shorthands: one C call unless a graph is recorded (then to(), which records it)."""
    if t._dtype is dt:
        return t
    if not t._requires_grad:
        r = _cast(t, dt.code, _P_TO, (t._dtype, dt, None))
        if r is not None:
            return r
    return t.to(dt)


class Copies:
    """contiguous, clone, to, type, float/double/half/..., cpu, new_tensor."""

    __slots__ = ()

    def contiguous(self, memory_format: object = None) -> Self:
        """Self when already contiguous, otherwise a row-major copy."""
        if _is_contiguous(self):  # one C call on the object: the common case does no other work
            return self
        r = _contiguous_copy(self)  # the row-major copy in one more crossing; None: declined
        if r is not None:
            return r
        out = empty(self._shape, self._dtype)
        copy_into(out, self)
        return _note(out, _P_CONTIGUOUS, None, self)

    def clone(self, memory_format: object = None) -> Self:
        """A copy in new memory (never shares), laid out as torch's ``preserve_format``.

        A dense source keeps its strides (a transposed matrix stays column-major);
        any other source is packed keeping its dimension order.

        >>> import pytensor
        >>> pytensor.zeros(2, 3).T.clone().stride()
        (1, 3)
        """
        r = _cast(self, self._dtype.code, _P_CLONE, None)
        return r if r is not None else _note(copy_preserving_layout(self), _P_CLONE, None, self)

    def to(self, *args: object, **kwargs: object) -> Self:
        """Self when nothing changes, otherwise a converted copy. Accepts a dtype
        (or its name), a device (a string that is not a dtype name is one) or a tensor."""
        if not kwargs and len(args) == 1 and args[0].__class__ is _dt.dtype:  # to(dtype): the common case
            dt = args[0]
            if dt is self._dtype:
                return self
            r = _cast(self, dt.code, _P_TO, (self._dtype, dt, None))
            if r is not None:
                return r
        dt, dev, copy = _parse_to(args, kwargs)
        if dev is not None and dev != self.device:
            raise DeviceError(f"pytensor computes on the CPU only; cannot move a tensor to {dev}")
        if dt is None:
            dt = self._dtype
        if dt is self._dtype and not copy:
            return self
        return _note(copy_preserving_layout(self, dt), _P_TO, (self._dtype, dt, "copy=True" if copy else None), self)

    def type(self, dtype=None):
        """The type name (``'pytensor.FloatTensor'``) without an argument; else ``to(dtype)``,
        where dtype may also be such a type name."""
        if dtype is None:
            return f"pytensor.{self._dtype.tensor_type_name}"
        if isinstance(dtype, str) and dtype.rsplit(".", 1)[-1] in _dt.by_tensor_type_name:
            return self.to(_dt.by_tensor_type_name[dtype.rsplit(".", 1)[-1]])
        return self.to(_dt.dtype_arg("type", dtype, required=True))

    def float(self):
        return _convert(self, _dt.float32)

    def double(self):
        return _convert(self, _dt.float64)

    def half(self):
        return _convert(self, _dt.float16)

    def bfloat16(self):
        return _convert(self, _dt.bfloat16)

    def int(self):
        return _convert(self, _dt.int32)

    def long(self):
        return _convert(self, _dt.int64)

    def short(self):
        return _convert(self, _dt.int16)

    def char(self):
        return _convert(self, _dt.int8)

    def byte(self):
        return _convert(self, _dt.uint8)

    def bool(self):
        return _convert(self, _dt.bool)

    def cfloat(self):
        return _convert(self, _dt.complex64)

    def cdouble(self):
        return _convert(self, _dt.complex128)

    def cpu(self):
        self._storage._check_host()
        return self

    def new_tensor(self, data: Any, *, dtype: _dt.dtype | str | None = None, device: str | device | None = None,
                   requires_grad: bool = False, layout: object = None, pin_memory: bool = False) -> Self:
        """Copies ``data`` (never shares) into a new tensor of this tensor's dtype
        unless ``dtype`` is given: ``pytensor.tensor(data, dtype=self.dtype)``.

        >>> import pytensor
        >>> pytensor.tensor([1, 2]).new_tensor([1.5, 2.5])
        tensor([1, 2])
        """
        if layout is not None and str(layout).rsplit(".", 1)[-1] != "strided":
            raise NotImplementedError(f"new_tensor(): only the strided layout exists in pytensor, not {layout}")
        if pin_memory:
            raise RuntimeError("new_tensor(): pin_memory=True needs an accelerator; pytensor has none")
        if device is None and not self._storage._host:
            raise DeviceError(f"new_tensor(): this tensor lives on {self.device}, and pytensor creates tensors on "
                              "the CPU only; pass device='cpu'")
        dt = _dt.dtype_arg("new_tensor", dtype)
        return creation.tensor(data, dtype=self._dtype if dt is None else dt, device=device,
                               requires_grad=requires_grad)
