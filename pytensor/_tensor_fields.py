"""The Tensor part every other part stands on: its fields, metadata and autograd flags.

The fields (_storage, _dtype, _shape, _strides, _offset, _requires_grad,
_grad, _grad_fn, and _bits: torch's lazy conjugate/negative bits, see
_conj.py) live in the C base (the shim's TensorBase), so that the shim
builds a whole Tensor in one allocation; this part reads them with torch's
names (shape, stride(), storage_offset(), ...) and adds the few helpers the
other parts share (``_view``, ``_ptr``, ``_check_write``, ``_version_bump``).
"""
from __future__ import annotations

from typing import Any, Self

from . import dtypes as _dt
from ._core import Size, TensorBase, empty, make, wrap_dim
from ._device import CPU, device  # noqa: F401  (device: the annotation of the property named device)
from ._ffi import ffi, shim
from ._layout import extent, has_internal_overlap
from ._provenance import OP
from ._storage import TypedStorage, UntypedStorage

_is_contiguous = shim.is_contiguous  # lt_layout_is_contiguous on the object, one C call
_note_write = shim.note_write  # bumps the storage's version and records the writer
_fast_numel = shim.numel
_P_DETACH = OP["detach"]


class Fields:
    """Metadata and flags of a strided view: shape, strides, offset, dtype, storage, device, grad."""

    __slots__ = ()
    __array_priority__ = 1000  # make numpy defer `ndarray + tensor` to us

    # ================================================================ construction
    _make = make  # Tensor._make(storage, dtype, shape, strides, offset[, op, arg, parent])
    _empty = staticmethod(empty)  # Tensor._empty(shape, dtype, zero=False)

    def __init__(self, *args, **kwargs):
        raise TypeError("create tensors with pytensor.tensor(), pytensor.asarray() or a factory "
                        "such as pytensor.zeros(); Tensor() itself is not a constructor")

    def _view(self, shape, strides, offset=None, op=0, arg=None):
        """A new view of the same storage (no copy), made by provenance step
        ``op`` with ``arg`` from self. Views never chain: offset is absolute."""
        return make(self._storage, self._dtype, tuple(shape), tuple(strides),
                    self._offset if offset is None else offset, op, arg, self)

    # ================================================================ metadata
    @property
    def shape(self) -> Size:
        return Size(self._shape)

    def size(self, dim: int | None = None) -> Size | int:
        """The shape, or one extent when ``dim`` is given."""
        if dim is None:
            return Size(self._shape)
        return self._shape[wrap_dim(dim, len(self._shape))] if self._shape else \
            (wrap_dim(dim, 0), 1)[1]

    def stride(self, dim: int | None = None) -> tuple[int, ...] | int:
        """Strides in elements (torch's unit), or one of them."""
        if dim is None:
            return self._strides
        return self._strides[wrap_dim(dim, len(self._shape))]

    def storage_offset(self) -> int:
        """Offset of element 0 from the storage start, in elements."""
        return self._offset

    @property
    def dtype(self) -> _dt.dtype:
        return self._dtype

    @property
    def device(self) -> device:
        return self._storage.device if not self._storage._host else CPU

    @property
    def is_cpu(self):
        return self._storage._host

    @property
    def layout(self):
        return "strided"

    def data_ptr(self) -> int:
        """Address of element 0: ``untyped_storage().data_ptr() + storage_offset() * element_size()``."""
        return self._storage._addr + self._offset * self._dtype.itemsize

    def untyped_storage(self) -> UntypedStorage:
        """The storage this view reads (shared by every alias)."""
        return self._storage

    def element_size(self) -> int:
        return self._dtype.itemsize

    @property
    def itemsize(self):
        return self._dtype.itemsize

    @property
    def nbytes(self) -> int:
        """``numel() * element_size()``: the bytes of the elements, not of the storage."""
        return self.numel() * self._dtype.itemsize

    def numel(self) -> int:
        return _fast_numel(self)  # lt_layout_numel over the shape, one C call

    nelement = numel

    def dim(self) -> int:
        return len(self._shape)

    ndimension = dim

    @property
    def ndim(self):
        return len(self._shape)

    def __len__(self):
        if not self._shape:
            raise TypeError("len() of a 0-d tensor")
        return self._shape[0]

    def is_contiguous(self, memory_format: object = None) -> bool:
        """True when the strides are row-major for the shape (extent-1 dims ignored)."""
        return _is_contiguous(self)

    def is_floating_point(self):
        return self._dtype.is_floating_point

    def is_complex(self):
        return self._dtype.is_complex

    def is_readonly(self):
        """True when the storage refuses writes (bytes, read-only arrays or files)."""
        return self._storage._readonly

    def _version_bump(self):
        """Count a write through self, and record self as the storage's last writer."""
        _note_write(self)

    @property
    def _version(self):
        return self._storage.version

    def _ptr(self):
        """cdata ``char *`` of element 0, for kernels."""
        if self._bits:  # the bytes are not the values: every kernel entry resolves first (pytensor/_conj.py)
            raise RuntimeError(f"internal error: a tensor with the {'conjugate' if self._bits & 1 else 'negative'} "
                               "bit reached a kernel unresolved; please report it (t.resolve_conj() avoids it)")
        self._storage._check_host()
        return ffi.cast("char *", self._storage._addr + self._offset * self._dtype.itemsize)

    def _byte_range(self):
        """Half-open byte range [lo, hi) of the storage this view can touch (libtensor's extent rule)."""
        return extent(self._shape, self._strides, self._offset, self._dtype.itemsize)

    # ================================================================ autograd flags
    @property
    def requires_grad(self):
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value):
        value = bool(value)
        if value and not (self._dtype.is_floating_point or self._dtype.is_complex):
            raise RuntimeError("only Tensors of floating point and complex dtype can require gradients")
        if self._grad_fn is not None and not value:
            raise RuntimeError("you can only change requires_grad flags of leaf variables. If you want to use a "
                               "computed variable in a subgraph that doesn't require differentiation use "
                               "var_no_grad = var.detach().")
        self._requires_grad = value

    def requires_grad_(self, requires_grad=True):
        self.requires_grad = requires_grad
        return self

    @property
    def grad(self):
        """The gradient accumulated by ``backward()`` (leaves only; None until then)."""
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is not None:
            if not isinstance(value, TensorBase):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type "
                                f"{type(value).__name__}")
            if value._dtype is not self._dtype:
                raise RuntimeError("assigned grad has data of a different type")
            if value._shape != self._shape:
                raise RuntimeError("assigned grad has data of a different size")
        self._grad = value

    @property
    def grad_fn(self):
        return self._grad_fn

    @property
    def is_leaf(self):
        return self._grad_fn is None

    def detach(self) -> Self:
        """A view of the same storage without gradient tracking (shares memory)."""
        return self._view(self._shape, self._strides, None, _P_DETACH)

    def detach_(self):
        """Cut this tensor out of its graph in place: it becomes a leaf that does not require grad."""
        self._grad_fn = None
        self._requires_grad = False
        return self

    # ================================================================ writes
    def _check_write(self, refuse_overlap=True):
        self._storage._check_writable()
        if not refuse_overlap:
            return  # fill_: torch writes one value through every alias, so overlap is harmless
        if has_internal_overlap(self._shape, self._strides):
            # torch's rule (libtensor's layout.c): a write where several elements are one memory location (an
            # expand) has no single meaning, so it is refused; a view with no elements writes nothing.
            raise RuntimeError("unsupported operation: more than one element of the written-to tensor "
                               "refers to a single memory location. Please clone() the tensor before "
                               "performing the operation.")

    # ================================================================ storage
    def storage(self) -> Any:
        """This tensor's storage read as elements of its dtype (a :class:`TypedStorage`).

        The same bytes as ``untyped_storage()``, from byte 0, ``nbytes // element_size()``
        elements long: torch's (deprecated) TypedStorage without its copies and
        conversions. Reads and writes go to the storage; nothing is copied.

        >>> import pytensor
        >>> t = pytensor.arange(4)[1:]
        >>> s = t.storage(); len(s), s[0], s.dtype
        (4, 0, pytensor.int64)
        """
        return TypedStorage(self._storage, self._dtype)
