"""Tensor: a view of a storage (dtype + shape + strides + offset).

Every view points at its root storage; slicing a view folds the offsets
into one absolute ``storage_offset`` (in elements), so aliasing is always
"same storage, intersecting byte ranges". Strides are in elements.
"""
from __future__ import annotations

import builtins
import itertools
import math
import operator
import re
import threading
from typing import Any

from . import dtypes as _dt
from ._ffi import ffi, lib, shim
from ._storage import UntypedStorage
from .errors import DeviceError, check
from ._provenance import OP as _OP

__all__ = ["Tensor", "device", "Size", "get_default_device", "set_default_device"]


_reshape_view = shim.reshape_view  # view/reshape's common case in C; None: the Python path decides
_note_write = shim.note_write  # bumps the storage's version and records the writer
_note = shim.prov_note  # _note(t, op, arg, parent) records how t was made (see _provenance.py)
# The provenance codes this module records (names: _shim_prov.h's PROV_OPS).
(_P_INDEX, _P_VIEW, _P_RESHAPE, _P_VIEW_DTYPE, _P_T, _P_MT, _P_TRANSPOSE, _P_T_METHOD, _P_PERMUTE, _P_SQUEEZE,
 _P_UNSQUEEZE, _P_EXPAND, _P_NARROW, _P_SELECT, _P_UNFOLD, _P_AS_STRIDED, _P_DIAGONAL, _P_DETACH, _P_CONTIGUOUS,
 _P_CLONE, _P_TO) = (_OP[n] for n in (
    "index", "view", "reshape", "view_dtype", "T", "mT", "transpose", "t", "permute", "squeeze", "unsqueeze",
    "expand", "narrow", "select", "unfold", "as_strided", "diagonal", "detach", "contiguous", "clone", "to"))
_MAX_NBYTES = 2**63 - 1  # byte sizes are int64 in torch and size_t (<= PTRDIFF_MAX) in libtensor


class Size(tuple):
    """A tensor's shape: a tuple with torch's name and repr.

    >>> import pytensor
    >>> pytensor.zeros(2, 3).shape
    pytensor.Size([2, 3])
    """

    __slots__ = ()

    def __repr__(self):
        return f"pytensor.Size([{', '.join(map(str, self))}])"

    def numel(self):
        return math.prod(self)


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


def contiguous_strides(shape):
    """Row-major strides, in elements, for ``shape``."""
    strides, acc = [], 1
    for n in reversed(shape):
        strides.append(acc)
        acc *= max(n, 1)
    return tuple(reversed(strides))


def wrap_dim(dim, ndim):
    """A dimension index in [-ndim, ndim) made non-negative (ndim 0 acts as 1, as torch)."""
    try:
        dim = operator.index(dim)
    except TypeError:
        raise TypeError(f"dimension must be an integer, got {type(dim).__name__}") from None
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim + n if dim < 0 else dim


def _int64_arg(fn, name, value):
    """An int argument as torch parses one: anything with __index__ except
    bool (TypeError), and a ValueError past int64."""
    if isinstance(value, bool):
        raise TypeError(f"{fn}(): argument '{name}' must be int, not bool")
    try:
        value = operator.index(value)
    except TypeError:
        raise TypeError(f"{fn}(): argument '{name}' must be int, not {type(value).__name__}") from None
    if not -2**63 <= value < 2**63:
        raise ValueError("Overflow when unpacking long long")
    return value


def _shape_args(args):
    """Accept f(2, 3), f((2, 3)) and f([2, 3]) as torch does."""
    if len(args) == 1 and not isinstance(args[0], int) and hasattr(args[0], "__iter__"):
        args = tuple(args[0])
    try:
        sizes = tuple(operator.index(a) for a in args)
    except TypeError:
        raise TypeError(f"size must be a sequence of integers, got {args!r}") from None
    return _check_int64("size", sizes)


def _check_int64(what, values):
    """values, refused with torch's TypeError when one does not fit int64 (C would otherwise wrap or refuse it
    with a message that names no number)."""
    for i, v in enumerate(values):
        if not -2**63 <= v < 2**63:
            raise TypeError(f"argument '{what}' has {v} at position {i}, which does not fit in int64")
    return values


class Tensor(shim.TensorBase):
    """A strided view of an :class:`UntypedStorage`.

    >>> import pytensor
    >>> t = pytensor.arange(6).view(2, 3)
    >>> t.T.stride(), t.T.data_ptr() == t.data_ptr()
    ((1, 3), True)
    """

    # The fields (_storage, _dtype, _shape, _strides, _offset, _requires_grad,
    # _grad, _grad_fn) live in the C base, so that the shim can build a whole
    # Tensor in one allocation (constructors and views cost about what torch's do).
    __slots__ = ()
    __array_priority__ = 1000  # make numpy defer `ndarray + tensor` to us

    # ================================================================ construction
    # _make(storage, dtype, shape, strides, offset): a Tensor (not requiring
    # grad) from its fields; shape and strides must be tuples.
    _make = shim.make_tensor

    @classmethod
    def _empty(cls, shape, dtype, zero=False):
        numel = math.prod(shape)
        if numel * dtype.itemsize > _MAX_NBYTES:
            # torch's check and exception type; the C side would refuse too, but
            # cffi could not even pass a size this large.
            raise RuntimeError(f"Storage size calculation overflowed with sizes={list(shape)}")
        storage = UntypedStorage._new(numel * dtype.itemsize, zero)
        return cls._make(storage, dtype, tuple(shape), contiguous_strides(shape), 0)

    def __init__(self, *args, **kwargs):
        raise TypeError("create tensors with pytensor.tensor(), pytensor.asarray() or a factory "
                        "such as pytensor.zeros(); Tensor() itself is not a constructor")

    def _view(self, shape, strides, offset=None, op=0, arg=None):
        """A new view of the same storage (no copy), made by provenance step
        ``op`` with ``arg`` from self. Views never chain: offset is absolute."""
        return Tensor._make(self._storage, self._dtype, tuple(shape), tuple(strides),
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
        return math.prod(self._shape)

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
        return _is_contiguous(self._shape, self._strides)

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
        self._storage._check_host()
        return ffi.cast("char *", self._storage._addr + self._offset * self._dtype.itemsize)

    def _byte_range(self):
        """Half-open byte range [lo, hi) of the storage this view can touch."""
        lo = hi = self._offset
        if self.numel() == 0:
            return lo * self.itemsize, lo * self.itemsize
        for n, s in zip(self._shape, self._strides):
            if s < 0:
                lo += (n - 1) * s
            else:
                hi += (n - 1) * s
        return lo * self.itemsize, (hi + 1) * self.itemsize

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
            if not isinstance(value, Tensor):
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

    def detach(self) -> Tensor:
        """A view of the same storage without gradient tracking (shares memory)."""
        return self._view(self._shape, self._strides, None, _P_DETACH)

    def detach_(self):
        """Cut this tensor out of its graph in place: it becomes a leaf that does not require grad."""
        self._grad_fn = None
        self._requires_grad = False
        return self

    # ================================================================ views
    def view(self, *shape: int | _dt.dtype) -> Tensor:
        """A view with a new shape over the same bytes; raises when the strides cannot express it.

        >>> import pytensor
        >>> t = pytensor.arange(6)
        >>> v = t.view(2, 3); v[1, 2] = 60; t[5].item()
        60
        """
        t = _reshape_view(self, shape, _P_VIEW)
        if t is not None:
            return t
        if len(shape) == 1 and (isinstance(shape[0], (_dt.dtype, str)) or not (
                hasattr(shape[0], "__index__") or hasattr(shape[0], "__iter__"))):
            return self._view_dtype(_dt.dtype_arg("view", shape[0]))  # a dtype (or its name): not a shape
        sizes = _infer_shape(_shape_args(shape), self.numel())
        strides = _view_strides(self._shape, self._strides, sizes)
        if strides is None:
            raise RuntimeError("view size is not compatible with input tensor's size and stride (at least one "
                               "dimension spans across two contiguous subspaces). Use .reshape(...) instead.")
        return self._view(sizes, strides, None, _P_VIEW, _plain_sizes(shape))

    def _view_dtype(self, dt):
        if dt.itemsize != self._dtype.itemsize:
            if self.dim() == 0 or self._strides[-1] != 1:
                raise RuntimeError("self.stride(-1) must be 1 to view with a dtype of a different size")
            ratio_num, ratio_den = self._dtype.itemsize, dt.itemsize
            last = self._shape[-1] * ratio_num
            off = self._offset * ratio_num
            if last % ratio_den or off % ratio_den or any((s * ratio_num) % ratio_den for s in self._strides[:-1]):
                raise RuntimeError(f"cannot view a tensor of {self._dtype} as {dt}: the last dimension's size "
                                   "and the other strides must be divisible by the size ratio")
            shape = self._shape[:-1] + (last // ratio_den,)
            strides = tuple(s * ratio_num // ratio_den for s in self._strides[:-1]) + (1,)
            return Tensor._make(self._storage, dt, shape, strides, off // ratio_den, _P_VIEW_DTYPE, dt, self)
        return Tensor._make(self._storage, dt, self._shape, self._strides, self._offset, _P_VIEW_DTYPE, dt, self)

    def view_as(self, other):
        return self.view(other.shape)

    def reshape(self, *shape: int) -> Tensor:
        """A view when the strides allow it, otherwise a contiguous copy (as torch)."""
        t = _reshape_view(self, shape, _P_RESHAPE)
        if t is not None:
            return t
        sizes = _infer_shape(_shape_args(shape), self.numel())
        strides = _view_strides(self._shape, self._strides, sizes)
        if strides is not None:
            return self._view(sizes, strides, None, _P_RESHAPE, _plain_sizes(shape))
        return self.contiguous().view(sizes)

    def reshape_as(self, other):
        return self.reshape(other.shape)

    def transpose(self, dim0: int, dim1: int) -> Tensor:
        """Swap two dimensions (a view: only the strides move)."""
        n = self.dim()
        d0, d1 = wrap_dim(dim0, n), wrap_dim(dim1, n)
        if n == 0:
            return self._view((), (), None, _P_TRANSPOSE, (dim0, dim1))
        shape, strides = list(self._shape), list(self._strides)
        shape[d0], shape[d1] = shape[d1], shape[d0]
        strides[d0], strides[d1] = strides[d1], strides[d0]
        return self._view(shape, strides, None, _P_TRANSPOSE, (dim0, dim1))

    swapaxes = swapdims = transpose

    def t(self):
        if self.dim() > 2:
            raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {self.dim()}D")
        if self.dim() < 2:
            return self._view(self._shape, self._strides, None, _P_T_METHOD)
        return _note(self.transpose(0, 1), _P_T_METHOD, None, self)

    @property
    def T(self):
        """All dimensions reversed (a view)."""
        return self._view(self._shape[::-1], self._strides[::-1], None, _P_T)

    @property
    def mT(self):
        if self.dim() < 2:
            raise RuntimeError("tensor.mT is only supported on matrices or batches of matrices. Got 1-D tensor.")
        return _note(self.transpose(-2, -1), _P_MT, None, self)

    def permute(self, *dims: int) -> Tensor:
        """Reorder dimensions (a view)."""
        dims = _shape_args(dims)
        n = self.dim()
        if len(dims) != n:
            raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does not match "
                               f"the length of the desired ordering of dimensions i.e. input.dim() = {n} "
                               f"is not equal to len(dims) = {len(dims)}")
        dims = [wrap_dim(d, n) for d in dims]
        if len(set(dims)) != n:
            raise RuntimeError("permute(): duplicate dims are not allowed.")
        return self._view([self._shape[d] for d in dims], [self._strides[d] for d in dims], None, _P_PERMUTE,
                          tuple(dims))

    def movedim(self, source, destination):
        n = self.dim()
        order = [d for d in range(n) if d != wrap_dim(source, n)]
        order.insert(wrap_dim(destination, n), wrap_dim(source, n))
        return self.permute(order)

    def squeeze(self, dim=None):
        """Drop dimensions of extent 1 (all, or those named); a view."""
        n = self.dim()
        if dim is None:
            keep = [i for i in range(n) if self._shape[i] != 1]
        else:
            dims = {wrap_dim(d, n) for d in (dim if isinstance(dim, (tuple, list)) else (dim,))}
            keep = [i for i in range(n) if not (i in dims and self._shape[i] == 1)]
        return self._view([self._shape[i] for i in keep], [self._strides[i] for i in keep], None, _P_SQUEEZE, dim)

    def unsqueeze(self, dim):
        """Insert a dimension of extent 1 at ``dim`` (a view)."""
        n = self.dim()
        d = wrap_dim(dim, n + 1)
        stride = self._shape[d] * self._strides[d] if d < n else 1
        shape = self._shape[:d] + (1,) + self._shape[d:]
        strides = self._strides[:d] + (stride,) + self._strides[d:]
        return self._view(shape, strides, None, _P_UNSQUEEZE, dim)

    def expand(self, *sizes):
        """Broadcast to ``sizes`` with zero strides: every new element aliases an old one."""
        sizes = _shape_args(sizes)
        n, m = self.dim(), len(sizes)
        if m < n:
            raise RuntimeError(f"expand: the number of sizes provided ({m}) must be greater or equal to the "
                               f"number of dimensions in the tensor ({n})")
        shape, strides = [], []
        for i, want in enumerate(sizes):
            j = i - (m - n)
            have, st = (self._shape[j], self._strides[j]) if j >= 0 else (1, 0)
            if want == -1:
                if j < 0:
                    raise RuntimeError(f"The expanded size of the tensor (-1) isn't allowed in a leading, "
                                       f"non-existing dimension {i}")
                want = have
            if have != want:
                if have != 1:
                    raise RuntimeError(f"The expanded size of the tensor ({want}) must match the existing size "
                                       f"({have}) at non-singleton dimension {i}.  Target sizes: {list(sizes)}.  "
                                       f"Tensor sizes: {list(self._shape)}")
                if want < 0:
                    raise RuntimeError(f"expand: size {want} at dimension {i} is negative")
                st = 0
            shape.append(want)
            strides.append(st)
        return self._view(shape, strides, None, _P_EXPAND, tuple(sizes))

    def expand_as(self, other):
        return self.expand(other.shape)

    def flatten(self, start_dim=0, end_dim=-1):
        """Merge dimensions start_dim..end_dim; a view when possible, else a copy (as reshape)."""
        n = self.dim()
        if n == 0:
            return self.reshape(1)
        s, e = wrap_dim(start_dim, n), wrap_dim(end_dim, n)
        if s > e:
            raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
        if s == e:
            return self  # nothing to merge: torch returns the tensor itself
        shape = self._shape[:s] + (math.prod(self._shape[s:e + 1]),) + self._shape[e + 1:]
        return self.reshape(shape)

    def unflatten(self, dim, sizes):
        d = wrap_dim(dim, self.dim())
        sizes = _infer_shape(tuple(sizes), self._shape[d])
        return self.view(self._shape[:d] + sizes + self._shape[d + 1:])

    def narrow(self, dim, start, length):
        """Elements start..start+length-1 along ``dim`` (a view)."""
        n = self.dim()
        if n == 0:
            raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
        d = wrap_dim(dim, n)
        size = self._shape[d]
        start, length = operator.index(start), operator.index(length)
        if not -size <= start <= size:
            raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], but got {start})")
        if start < 0:
            start += size
        if length < 0:
            raise RuntimeError("narrow(): length must be non-negative.")
        if start + length > size:
            raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
        shape = list(self._shape)
        shape[d] = length
        return self._view(shape, self._strides, self._offset + start * self._strides[d], _P_NARROW,
                          (dim, start, length))

    def select(self, dim, index):
        """The slice at ``index`` along ``dim``, one dimension fewer (a view)."""
        n = self.dim()
        if n == 0:
            raise IndexError("select() cannot be applied to a 0-dim tensor.")
        d = wrap_dim(dim, n)
        size = self._shape[d]
        index = operator.index(index)
        if not -size <= index < size:
            raise IndexError(f"index {index} is out of bounds for dimension {d} with size {size}")
        arg = (dim, index)
        if index < 0:
            index += size
        return self._view(self._shape[:d] + self._shape[d + 1:], self._strides[:d] + self._strides[d + 1:],
                          self._offset + index * self._strides[d], _P_SELECT, arg)

    def unfold(self, dimension, size, step):
        """Sliding windows of ``size`` every ``step`` along ``dimension`` (a view that overlaps itself)."""
        n = self.dim()
        d = wrap_dim(dimension, n)
        size, step = _int64_arg("unfold", "size", size), _int64_arg("unfold", "step", step)
        extent = self._shape[d] if n else 1
        if size > extent:
            raise RuntimeError(f"maximum size for tensor at dimension {d} is {extent} but size is {size}")
        if step <= 0:
            raise RuntimeError(f"step is {step} but must be > 0")
        if size < 0:  # else the window count exceeds the extent and the windows have a negative extent
            raise RuntimeError(f"size is {size} but must be >= 0")
        if n == 0:
            return self._view((size,), (1,), None, _P_UNFOLD, (dimension, size, step))
        shape = list(self._shape)
        strides = list(self._strides)
        shape[d] = (extent - size) // step + 1
        strides[d] = self._strides[d] * step  # the windows' stride: step windows along, in elements
        if not -2**63 <= strides[d] < 2**63:
            raise RuntimeError(f"unfold(): step {step} times stride {self._strides[d]} of dimension {d} does not "
                               "fit in int64; use a smaller step")
        return self._view(shape + [size], strides + [self._strides[d]], None, _P_UNFOLD, (dimension, size, step))

    def as_strided(self, size, stride, storage_offset=None):
        """Any view of the same storage; checked to lie inside it."""
        size = _check_int64("size", tuple(map(operator.index, size)))
        stride = _check_int64("stride", tuple(map(operator.index, stride)))
        if len(size) != len(stride):
            raise RuntimeError(f"mismatch in length of strides and shape: {len(stride)} vs {len(size)}")
        off = self._offset if storage_offset is None else operator.index(storage_offset)
        if off < 0:
            raise RuntimeError(f"Tensor: invalid storage offset {off}")
        if off >= 2**63:
            raise ValueError(f"as_strided(): storage_offset {off} does not fit in int64")
        if any(s < 0 for s in stride):
            raise RuntimeError("as_strided: Negative strides are not supported at the moment, got strides: "
                               f"{list(stride)}")
        check(lib.lt_layout_check(len(size), size, stride, off, self.itemsize, self._storage._nbytes))
        return self._view(size, stride, off, _P_AS_STRIDED, (size, stride, None if storage_offset is None else off))

    def diagonal(self, offset=0, dim1=0, dim2=1):
        n = self.dim()
        d1, d2 = wrap_dim(dim1, n), wrap_dim(dim2, n)
        if d1 == d2:
            raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
        s1, s2 = self._shape[d1], self._shape[d2]
        if offset >= 0:
            length, start = max(min(s1, s2 - offset), 0), offset * self._strides[d2]
        else:
            length, start = max(min(s1 + offset, s2), 0), -offset * self._strides[d1]
        keep = [i for i in range(n) if i not in (d1, d2)]
        shape = [self._shape[i] for i in keep] + [length]
        strides = [self._strides[i] for i in keep] + [self._strides[d1] + self._strides[d2]]
        return self._view(shape, strides, self._offset + (start if length else 0), _P_DIAGONAL, (offset, dim1, dim2))

    def split(self, split_size, dim=0):
        """Views of ``split_size`` elements along ``dim`` (the last may be
        shorter), or of the sizes in a list, which must sum to the extent."""
        if self.dim() == 0:
            raise RuntimeError("split expects at least a 1-dimensional tensor")
        d = wrap_dim(dim, self.dim())
        size = self._shape[d]
        if not isinstance(split_size, (list, tuple)):
            split_size = _int64_arg("split", "split_size", split_size)
            if split_size < 0:
                raise RuntimeError(f"split expects split_size be non-negative, but got split_size={split_size}")
            if split_size == 0 and size != 0:
                raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of "
                                   f"{size}")
            bounds = list(range(0, size, split_size)) if split_size else []
            return tuple(self.narrow(d, b, min(split_size, size - b)) for b in bounds or [0])
        try:
            sizes = [operator.index(n) for n in split_size]
        except TypeError:
            raise TypeError("split_with_sizes(): argument 'split_sizes' must be tuple of ints") from None
        if any(not -2**63 <= n < 2**63 for n in sizes):
            raise TypeError("split_with_sizes(): argument 'split_sizes' failed to unpack: Overflow when unpacking "
                            "long long")
        if any(n < 0 for n in sizes):
            raise RuntimeError(f"split_with_sizes expects split_sizes have only non-negative entries, but got "
                               f"split_sizes={sizes}")
        if sum(sizes) != size:
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's size "
                               f"at dimension {d}), but got split_sizes={sizes}")
        starts = itertools.accumulate([0] + sizes[:-1])
        return tuple(self.narrow(d, b, n) for b, n in zip(starts, sizes))

    def chunk(self, chunks, dim=0):
        """At most ``chunks`` views along ``dim``, each ``ceil(extent / chunks)``
        long (the last may be shorter); an empty dimension gives ``chunks`` empty views."""
        if self.dim() == 0:
            raise RuntimeError("chunk expects at least a 1-dimensional tensor")
        chunks = _int64_arg("chunk", "chunks", chunks)
        if chunks <= 0:
            raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
        size = self.size(dim)
        if size == 0:
            return self.split([0] * chunks, dim)
        return self.split(-(-size // chunks), dim)

    def unbind(self, dim=0):
        return tuple(self.select(dim, i) for i in range(self.size(dim)))

    # ================================================================ copies
    def contiguous(self, memory_format: object = None) -> Tensor:
        """Self when already contiguous, otherwise a row-major copy."""
        if _is_contiguous(self._shape, self._strides):
            return self
        out = Tensor._empty(self._shape, self._dtype)
        _copy_into(out, self)
        return _note(out, _P_CONTIGUOUS, None, self)

    def clone(self, memory_format: object = None) -> Tensor:
        """A copy in new memory (never shares), laid out as torch's ``preserve_format``.

        A dense source keeps its strides (a transposed matrix stays column-major);
        any other source is packed keeping its dimension order.

        >>> import pytensor
        >>> pytensor.zeros(2, 3).T.clone().stride()
        (1, 3)
        """
        from ._convert import copy_preserving_layout
        return _note(copy_preserving_layout(self), _P_CLONE, None, self)

    def to(self, *args: object, **kwargs: object) -> Tensor:
        """Self when nothing changes, otherwise a converted copy. Accepts a dtype
        (or its name), a device (a string that is not a dtype name is one) or a tensor."""
        dt, dev, copy = _parse_to(args, kwargs)
        if dev is not None and dev != self.device:
            raise DeviceError(f"pytensor computes on the CPU only; cannot move a tensor to {dev}")
        if dt is None:
            dt = self._dtype
        if dt is self._dtype and not copy:
            return self
        from ._convert import copy_preserving_layout
        return _note(copy_preserving_layout(self, dt), _P_TO, (self._dtype, dt, "copy=True" if copy else None), self)

    def type(self, dtype=None):
        """The type name (``'pytensor.FloatTensor'``) without an argument; else ``to(dtype)``,
        where dtype may also be such a type name."""
        if dtype is None:
            return f"pytensor.{_TYPE_NAMES[self._dtype.name]}"
        if isinstance(dtype, str) and dtype.rsplit(".", 1)[-1] in _TYPE_DTYPES:
            return self.to(_TYPE_DTYPES[dtype.rsplit(".", 1)[-1]])
        return self.to(_dt.dtype_arg("type", dtype, required=True))

    def float(self):
        return self.to(_dt.float32)

    def double(self):
        return self.to(_dt.float64)

    def half(self):
        return self.to(_dt.float16)

    def bfloat16(self):
        return self.to(_dt.bfloat16)

    def int(self):
        return self.to(_dt.int32)

    def long(self):
        return self.to(_dt.int64)

    def short(self):
        return self.to(_dt.int16)

    def char(self):
        return self.to(_dt.int8)

    def byte(self):
        return self.to(_dt.uint8)

    def bool(self):
        return self.to(_dt.bool)

    def cfloat(self):
        return self.to(_dt.complex64)

    def cdouble(self):
        return self.to(_dt.complex128)

    def cpu(self):
        self._storage._check_host()
        return self

    # ================================================================ storage, resize_, new_tensor
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
        from ._storage import TypedStorage
        return TypedStorage(self._storage, self._dtype)

    def resize_(self, *sizes: int, memory_format: object = None) -> Tensor:
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
        if memory_format is not None and str(memory_format).rsplit(".", 1)[-1] != "contiguous_format":
            raise NotImplementedError(f"resize_(): pytensor lays out resized tensors row-major only, not "
                                      f"{memory_format}")
        if not sizes:
            raise TypeError("resize_() missing 1 required positional argument: 'sizes'")
        sizes = _shape_args(sizes)
        if any(n < 0 for n in sizes):
            raise RuntimeError(f"resize_(): negative dimension {min(sizes)} in {list(sizes)}")
        if self._requires_grad:
            raise RuntimeError("cannot resize variables that require grad")
        if sizes == self._shape:
            return self
        numel = math.prod(sizes)
        nbytes = (self._offset + numel) * self._dtype.itemsize if numel else 0
        if nbytes > _MAX_NBYTES:
            raise RuntimeError(f"Storage size calculation overflowed with sizes={list(sizes)}")
        if nbytes > self._storage._nbytes:
            provenance = self._storage.provenance
            if provenance != "owned":
                raise RuntimeError(f"Trying to resize storage that is not resizable: its bytes belong to the "
                                   f"{provenance} it wraps ({self._storage.label}); resize a copy (.clone())")
            shim.grow_storage(self, nbytes)  # refused while anything else uses the address
        self._shape, self._strides = sizes, contiguous_strides(sizes)
        return self

    def resize_as_(self, other: Tensor, memory_format: object = None) -> Tensor:
        """``resize_(other.shape)``."""
        return self.resize_(other.shape, memory_format=memory_format)

    def new_tensor(self, data: Any, *, dtype: _dt.dtype | str | None = None, device: str | device | None = None,
                   requires_grad: bool = False, layout: object = None, pin_memory: bool = False) -> Tensor:
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
        from .creation import tensor
        dt = _dt.dtype_arg("new_tensor", dtype)
        return tensor(data, dtype=self._dtype if dt is None else dt, device=device, requires_grad=requires_grad)

    # ================================================================ writes
    def _check_write(self, refuse_overlap=True):
        self._storage._check_writable()
        if not refuse_overlap:
            return  # fill_: torch writes one value through every alias, so overlap is harmless
        for n, st in zip(self._shape, self._strides):
            if st == 0 and n > 1:
                # torch's rule: a write where several elements are one memory
                # location (an expand) has no single meaning, so it is refused.
                raise RuntimeError("unsupported operation: more than one element of the written-to tensor "
                                   "refers to a single memory location. Please clone() the tensor before "
                                   "performing the operation.")

    def fill_(self, value):
        """Set every element to ``value`` in place (writes through every alias)."""
        if isinstance(value, Tensor):
            if value.dim() != 0:
                raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with "
                                   f"{value.dim()} dimensions.")
            return self.copy_(value.expand(self._shape) if self._shape else value)
        self._check_write(refuse_overlap=False)
        if self._dtype.kind == "float4":
            raise NotImplementedError(f"fill_() is not implemented for {self._dtype.name}, as in torch: it is "
                                      "storage-only (two 4-bit floats per byte); write bytes through .view(uint8)")
        code, buf = _scalar_bytes(value, self._dtype)
        check(lib.lt_fill(self._ptr(), self._strides, self._dtype.code, buf, code, self.dim(), self._shape))
        self._version_bump()
        return self

    def zero_(self):
        """Set every element to zero in place."""
        return self.fill_(0)

    def copy_(self, src, non_blocking=False):
        """Copy ``src`` (broadcast to self's shape, converted to self's dtype) into self's memory."""
        from ._convert import as_tensor_operand
        # a tensor goes to lt_copy as it is: one pass converts the dtype (and handles overlap) in C
        src = as_tensor_operand(src, None if isinstance(src, Tensor) else self._dtype)
        self._check_write()
        try:
            src = src.expand(self._shape) if src._shape != self._shape else src
        except RuntimeError:
            raise RuntimeError(f"The size of tensor a ({list(self._shape)}) must match the size of tensor b "
                               f"({list(src._shape)}): src cannot be broadcast to self") from None
        _copy_into(self, src)
        self._version_bump()
        return self

    def __setitem__(self, index, value):
        from ._indexing import setitem
        setitem(self, index, value)

    # t[index] is the C base's subscript slot (_shim_view.h): t[i] and t[a:b:c]
    # on dim 0 of a tensor that does not require grad are built there; every
    # other index, and every error, comes here.
    def _getitem(self, index):
        from ._indexing import getitem
        return getitem(self, index)

    # ================================================================ export to Python / NumPy
    def tolist(self) -> Any:
        """Nested Python lists of Python numbers (a copy); a scalar for 0-d tensors."""
        from ._convert import to_pylist
        return to_pylist(self)

    def item(self) -> bool | int | float | complex:
        """The single element as a Python number."""
        if self.numel() != 1:
            raise RuntimeError(f"a Tensor with {self.numel()} elements cannot be converted to Scalar")
        from ._convert import to_pylist
        return to_pylist(self._view((), (), self._offset + 0))

    def __bool__(self):
        n = self.numel()
        if n != 1:
            raise RuntimeError(f"Boolean value of Tensor with {'no values' if n == 0 else 'more than one value'} "
                               "is ambiguous; use .any() or .all() (or .numel()) to say which you mean")
        return bool(self.item())

    def _python_scalar(self, kind):
        """The single element for int()/float()/complex(), refused as torch refuses it: a
        ValueError unless there is exactly one element, and a RuntimeError for a complex
        value whose imaginary part int() or float() would drop."""
        n = self.numel()
        if n != 1:
            raise ValueError(f"only one element tensors can be converted to Python scalars; this one has {n} "
                             "(index it, or use .tolist())")
        value = self.item()
        if kind is not complex and isinstance(value, complex):
            if value.imag != 0:
                raise RuntimeError(f"value cannot be converted to type {kind.__name__} without overflow: {value} "
                                   "has a non-zero imaginary part; take .real first")
            value = value.real
        return value

    def __int__(self):
        return int(self._python_scalar(int))

    def __float__(self):
        if self._requires_grad:
            import warnings
            warnings.warn("Converting a tensor with requires_grad=True to a scalar may lead to unexpected "
                          "behavior.\nConsider using tensor.detach() first.", UserWarning, stacklevel=2)
        return float(self._python_scalar(float))

    def __complex__(self):
        return complex(self._python_scalar(complex))

    def __index__(self):
        if self._dtype.kind not in ("int", "uint", "bool") or self.numel() != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __iter__(self):
        if not self._shape:
            raise TypeError("iteration over a 0-d tensor")
        return (self.select(0, i) for i in range(self._shape[0]))

    def __hash__(self):
        return id(self)

    @property
    def __array_interface__(self):
        from ._convert import array_interface
        return array_interface(self)

    def numpy(self, *, force: bool = False) -> Any:
        """A NumPy array over the same memory (no copy); read-only when the storage is."""
        from ._convert import to_numpy
        return to_numpy(self, force)

    def __array__(self, dtype=None, copy=None):
        from ._convert import to_numpy
        arr = to_numpy(self, True)
        if dtype is not None and arr.dtype != dtype:
            return arr.astype(dtype)
        if copy:
            return arr.copy()
        return arr

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """A DLPack capsule sharing this tensor's memory (a copy's when ``copy=True``).

        Versioned (``dltensor_versioned``) when ``max_version`` >= (1, 0), else legacy;
        read-only storage sets the READ_ONLY flag and is refused on legacy requests.
        """
        return _dlpack_export(self, stream, max_version, dl_device, copy)

    def __dlpack_device__(self):
        """``(device_type, device_id)`` in DLPack codes: ``(kDLCPU, 0)`` for host memory."""
        from ._dlpack import dlpack_device
        return dlpack_device(self)

    # ================================================================ printing
    def __repr__(self):
        from ._format import format_tensor
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


_TYPE_NAMES = {"bool": "BoolTensor", "uint8": "ByteTensor", "int8": "CharTensor", "int16": "ShortTensor",
               "int32": "IntTensor", "int64": "LongTensor", "float16": "HalfTensor",
               "bfloat16": "BFloat16Tensor", "float32": "FloatTensor", "float64": "DoubleTensor",
               "complex64": "ComplexFloatTensor", "complex128": "ComplexDoubleTensor",
               "uint16": "UInt16Tensor", "uint32": "UInt32Tensor", "uint64": "UInt64Tensor"}


_TYPE_DTYPES = {v: _dt.dtype_arg("type", k) for k, v in _TYPE_NAMES.items()}


def _plain_sizes(args):
    """view()/reshape()'s size arguments as a tuple of ints, to record."""
    return tuple(_shape_args(args))


def _is_contiguous(shape, strides):
    if 0 in shape:
        return True  # no elements: any strides describe them
    expected = 1
    for n, s in zip(reversed(shape), reversed(strides)):
        if n != 1 and s != expected:
            return False
        expected *= n
    return True


def _infer_shape(shape, numel):
    """Resolve one -1 entry and check the element count, as torch's view/reshape."""
    neg = [i for i, n in enumerate(shape) if n == -1]
    if len(neg) > 1:
        raise RuntimeError("only one dimension can be inferred")
    if any(n < -1 for n in shape):
        raise RuntimeError(f"invalid shape dimension {min(shape)}")
    if neg:
        rest = math.prod(n for n in shape if n != -1)
        if rest == 0 or numel % rest:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
        shape = shape[:neg[0]] + (numel // rest,) + shape[neg[0] + 1:]
    if math.prod(shape) != numel:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return tuple(shape)


def _view_strides(old_shape, old_strides, new_shape):
    """Strides that express ``new_shape`` over the same elements, or None (torch's computeStride)."""
    if math.prod(old_shape) == 0 and tuple(old_shape) == tuple(new_shape):
        return tuple(old_strides)  # torch (and NumPy) keep the strides of an unchanged empty shape
    if math.prod(old_shape) == 0 or not old_shape:
        return contiguous_strides(new_shape)
    # Group old dims into chunks that are contiguous among themselves, then
    # split each chunk across the new dims that consume exactly its elements.
    new_strides = [0] * len(new_shape)
    view_d = len(new_shape) - 1
    chunk_base_stride = old_strides[-1]
    tensor_numel = 1
    view_numel = 1
    for tensor_d in range(len(old_shape) - 1, -1, -1):
        tensor_numel *= old_shape[tensor_d]
        if tensor_d == 0 or (old_shape[tensor_d - 1] != 1 and
                             old_strides[tensor_d - 1] != tensor_numel * chunk_base_stride):
            while view_d >= 0 and (view_numel < tensor_numel or new_shape[view_d] == 1):
                new_strides[view_d] = view_numel * chunk_base_stride
                view_numel *= new_shape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if tensor_d > 0:
                chunk_base_stride = old_strides[tensor_d - 1]
                tensor_numel = 1
                view_numel = 1
    if view_d != -1:
        return None
    return tuple(new_strides)


def _copy_into(dst, src):
    """dst[...] = src elementwise (same shape), converting dtype; handles overlap in C."""
    if dst._dtype is not src._dtype and _dt.float4_e2m1fn_x2 in (dst._dtype, src._dtype):
        raise NotImplementedError(f"no conversion from {src._dtype.name} to {dst._dtype.name}, as in torch: "
                                  "float4_e2m1fn_x2 packs two 4-bit floats in each byte and is storage-only")
    check(lib.lt_copy(dst._ptr(), dst._strides, dst._dtype.code, src._ptr(), src._strides, src._dtype.code,
                      dst.dim(), dst._shape))


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
        if isinstance(a, Tensor):
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


_INT_RANGES = {
    "uint8": (-255, 255), "uint16": (-65535, 65535), "uint32": (-(2**32 - 1), 2**32 - 1),
    "uint64": (-(2**64 - 1), 2**64 - 1), "int8": (-128, 127), "int16": (-32768, 32767),
    "int32": (-2**31, 2**31 - 1), "int64": (-2**63, 2**63 - 1),
}
_FLOAT_MAX = {"float16": 65504.0, "bfloat16": 3.3895313892515355e38, "float32": 3.4028234663852886e38}


def _scalar_bytes(value, dt):
    """A Python scalar as (lt_dtype code, bytes) for lt_fill, refusing values that overflow ``dt``
    (torch: RuntimeError "value cannot be converted ... without overflow")."""
    import struct
    if isinstance(value, Tensor):
        value = value.item()
    if hasattr(value, "item") and not isinstance(value, (int, float, complex)):
        value = value.item()  # numpy scalars
    if isinstance(value, bool):
        return lib.LT_BOOL, struct.pack("?", value)
    if isinstance(value, int):
        rng = _INT_RANGES.get(dt.name)
        if rng and not rng[0] <= value <= rng[1]:
            _overflow(value, dt)
        if not -2**63 <= value < 2**64:
            _overflow(value, dt)
        if value >= 2**63:
            return lib.LT_UINT64, struct.pack("Q", value)
        return lib.LT_INT64, struct.pack("q", value)
    if isinstance(value, float):
        if dt.kind in ("int", "uint"):
            rng = _INT_RANGES[dt.name]
            if math.isfinite(value) and not rng[0] <= math.trunc(value) <= rng[1] or not math.isfinite(value):
                _overflow(value, dt)
        elif dt.name in _FLOAT_MAX and math.isfinite(value) and abs(value) > _FLOAT_MAX[dt.name] * (1 + 2**-8):
            _overflow(value, dt)
        return lib.LT_FLOAT64, struct.pack("d", value)
    if isinstance(value, complex):
        if not dt.is_complex:
            raise RuntimeError(f"value cannot be converted to type {dt.name} without overflow")
        return lib.LT_COMPLEX128, struct.pack("dd", value.real, value.imag)
    raise TypeError(f"a scalar must be a bool, int, float or complex, not {type(value).__name__}")


def _overflow(value, dt):
    raise RuntimeError(f"value cannot be converted to type {dt.name} without overflow: {value!r}")


from .errors import error_for  # noqa: E402

# The shim instantiates these two classes itself (constructors, views, DLPack
# imports) and reports libtensor's errors through the one translator.
shim.register(UntypedStorage, Tensor, [_dt.by_code[c] for c in range(len(_dt.by_code))], error_for)

# DLPack 1.3's C exchange API (_shim_exchange.h): a C extension that finds this capsule on the type
# exports, imports and allocates tensors through its static table without a Python call. It is the
# type's own attribute, so a subclass that overrides __dlpack__ is not bypassed.
Tensor.__dlpack_c_exchange_api__ = shim.exchange_api_capsule()

from . import _ops  # noqa: E402,F401  (installs the arithmetic methods on Tensor)
from ._dlpack import export as _dlpack_export  # noqa: E402  (imports Tensor, so it comes last)
