"""The bottom of the tensor stack: making tensors and reading their arguments, without the Tensor class.

Every module that makes or checks tensors imports this one, never
``tensor.py``: the shim builds the registered Tensor class itself (``make``),
and ``TensorBase``, the C base every Tensor derives from, serves isinstance
checks. So imports point one way: this module, then the Tensor parts, then
``tensor.py``, which declares Tensor and registers it with the shim.
"""
from __future__ import annotations

import operator
import sys
import warnings
from typing import TYPE_CHECKING

from . import _conj
from . import dtypes as _dt
from ._ffi import lib, shim
from ._layout import contiguous_strides, nbytes, numel
from .errors import check

__all__ = ["TensorBase", "Tensor", "Size", "make", "empty", "contiguous_strides", "wrap_dim", "int64_arg", "shape_args",
           "check_int64", "copy_into", "MAX_NBYTES"]

TensorBase = shim.TensorBase  # every Tensor is one: isinstance(x, TensorBase) asks "is x a tensor?"

# For annotations only (``-> Tensor`` below tensor.py): type checkers see the class tensor.py declares; at run
# time, where importing tensor.py here would be a circle, annotations resolve to the C base it derives from.
if TYPE_CHECKING:
    from .tensor import Tensor
else:
    Tensor = TensorBase

# make(storage, dtype, shape, strides, offset[, op, arg, parent]): a Tensor (the class tensor.py registers, not
# requiring grad) from its fields; shape and strides must be tuples, offset is in elements. The optional three
# record provenance: a _provenance.OP code, its argument and the parent tensor.
make = shim.make_tensor

MAX_NBYTES = 2**63 - 1  # byte sizes are int64 in torch and size_t (<= PTRDIFF_MAX) in libtensor


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
        return numel(self)


def empty(shape, dtype, zero=False):
    """A new contiguous tensor of ``shape`` over new memory (zeroed when ``zero``).

    Sized by libtensor's one rule (``lt_layout_nbytes``), so a shape every
    other constructor refuses, such as ``(2**62, 2**62, 0)``, is refused
    here too, with ``LayoutError`` (a ``RuntimeError``, as torch raises)."""
    shape = tuple(shape)
    strides = contiguous_strides(shape)  # refuses strides past int64, as torch's "Stride calculation overflowed"
    storage = shim.storage_new(nbytes(shape, dtype.itemsize), zero)  # an UntypedStorage (the shim's class)
    return make(storage, dtype, shape, strides, 0)


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


def int64_arg(fn, name, value):
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


def shape_args(args):
    """Accept f(2, 3), f((2, 3)) and f([2, 3]) as torch does."""
    if len(args) == 1 and not isinstance(args[0], int) and hasattr(args[0], "__iter__"):
        args = tuple(args[0])
    try:
        sizes = tuple(operator.index(a) for a in args)
    except TypeError:
        raise TypeError(f"size must be a sequence of integers, got {args!r}") from None
    return check_int64("size", sizes)


def check_int64(what, values):
    """values, refused with torch's TypeError when one does not fit int64 (C would otherwise wrap or refuse it
    with a message that names no number)."""
    for i, v in enumerate(values):
        if not -2**63 <= v < 2**63:
            raise TypeError(f"argument '{what}' has {v} at position {i}, which does not fit in int64")
    return values


def user_stacklevel():
    """The ``stacklevel`` that makes a warning raised by this function's caller
    name the first frame outside pytensor (the user's call), however deep
    inside pytensor the warning is raised."""
    frame, level = sys._getframe(2), 2
    while frame is not None and frame.f_globals.get("__name__", "").partition(".")[0] == "pytensor":
        frame, level = frame.f_back, level + 1
    return level


_warned_complex_to_real = False  # torch warns once a process


def copy_into(dst, src):
    """dst[...] = src elementwise (same shape), converting dtype; handles overlap in C.

    Every conversion between tensors passes here (``to``, ``copy_``, ``t[i] = u``),
    so this is where a complex source written into a real (not bool) tensor warns,
    as torch's copy does, once a process: only the real parts are kept."""
    global _warned_complex_to_real
    if dst._dtype is not src._dtype and _dt.float4_e2m1fn_x2 in (dst._dtype, src._dtype):
        raise NotImplementedError(f"no conversion from {src._dtype.name} to {dst._dtype.name}, as in torch: "
                                  "float4_e2m1fn_x2 packs two 4-bit floats in each byte and is storage-only")
    if src._dtype.is_complex and not dst._dtype.is_complex and dst._dtype is not _dt.bool \
            and not _warned_complex_to_real:
        _warned_complex_to_real = True
        warnings.warn("Casting complex values to real discards the imaginary part", UserWarning,
                      stacklevel=user_stacklevel())
    if dst._bits or src._bits:  # a conjugate/negative view on either side: the bytes to copy (pytensor/_conj.py)
        dst, src = _conj.for_write(dst, src)
    check(lib.lt_copy(dst._ptr(), dst._strides, dst._dtype.code, src._ptr(), src._strides, src._dtype.code,
                      dst.dim(), dst._shape))
