"""Arithmetic, comparisons and sums, with torch's type promotion.

Each operation decides the result dtype in Python (``dtypes.result_type_of``),
converts operands that differ, broadcasts with zero strides, and makes one
libtensor call. Results are new tensors; the in-place forms write into self.
"""
from __future__ import annotations

import math

from . import dtypes as _dt
from ._ffi import lib
from .errors import check
from .tensor import Tensor, contiguous_strides, wrap_dim

_ARITH = {"add": lib.LT_OP_ADD, "sub": lib.LT_OP_SUB, "mul": lib.LT_OP_MUL, "div": lib.LT_OP_DIV}
_CMP = {"eq": lib.LT_OP_EQ, "ne": lib.LT_OP_NE, "lt": lib.LT_OP_LT, "le": lib.LT_OP_LE,
        "gt": lib.LT_OP_GT, "ge": lib.LT_OP_GE}
_SCALARS = (bool, int, float, complex)


def broadcast_shapes(*shapes):
    """The shape all ``shapes`` broadcast to, as torch.broadcast_shapes."""
    ndim = max((len(s) for s in shapes), default=0)
    out = [1] * ndim
    for s in shapes:
        for i, n in enumerate(s):
            j = ndim - len(s) + i
            if out[j] == 1:
                out[j] = n
            elif n != 1 and n != out[j]:
                a, b = shapes[0], s
                k = i - len(s)
                raise RuntimeError(f"The size of tensor a ({a[k] if -k <= len(a) else 1}) must match the size of "
                                   f"tensor b ({n}) at non-singleton dimension {j}")
    return tuple(out)


def _broadcast_strides(t, shape):
    """t's strides for a broadcast to ``shape``: 0 where t has extent 1 or is missing."""
    pad = len(shape) - t.dim()
    out = [0] * pad
    for n, s in zip(t._shape, t._strides):
        out.append(0 if n == 1 else s)
    return out


def _operand(x, dt):
    """x as a tensor of dtype dt (a Python scalar becomes a 0-d tensor)."""
    if isinstance(x, Tensor):
        return x if x._dtype is dt else x.to(dt)
    from ._convert import as_tensor_operand
    return as_tensor_operand(x, dt)


def _coerce(other):
    if isinstance(other, (Tensor,) + _SCALARS):
        return other
    from ._convert import as_tensor_operand
    return as_tensor_operand(other, None)


def binary(a, b, name, out=None):
    """a <name> b for name in add/sub/mul/div and the comparisons."""
    b = _coerce(b)
    a = _coerce(a)
    dt = _dt.result_type_of((a, b))
    if name == "div" and dt.kind in ("bool", "int", "uint"):
        dt = _dt.get_default_dtype()
    if name == "sub":
        _check_sub_operands(a, b)
    cmp = name in _CMP
    if cmp and dt.is_complex and name not in ("eq", "ne"):
        raise NotImplementedError(f'"{name}_cpu" not implemented for \'{dt.name}\'')
    ta, tb = _operand(a, dt), _operand(b, dt)
    shape = broadcast_shapes(ta._shape, tb._shape)
    res_dt = _dt.bool if cmp else dt
    if out is None:
        out = Tensor._empty(shape, res_dt)
    op = _CMP[name] if cmp else _ARITH[name]
    check(lib.lt_binary(op, dt.code, len(shape), shape, out._ptr(), out._strides, ta._ptr(),
                        _broadcast_strides(ta, shape), tb._ptr(), _broadcast_strides(tb, shape)))
    return out


def _is_bool_operand(x):
    return x._dtype is _dt.bool if isinstance(x, Tensor) else isinstance(x, bool)


def _check_sub_operands(a, b):
    """torch refuses subtraction whenever either side is bool (a Python bool counts)."""
    ba, bb = _is_bool_operand(a), _is_bool_operand(b)
    if ba and bb:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                           "Use the `^` or `logical_xor()` operator instead.")
    if ba or bb:
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                           "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.")


def _can_cast(src, dst):
    # torch.can_cast: never complex -> real, floating -> integral, non-bool -> bool.
    if src.is_complex and not dst.is_complex:
        return False
    if src.is_floating_point and dst.kind in ("bool", "int", "uint"):
        return False
    if src is not _dt.bool and dst is _dt.bool:
        return False
    return True


def inplace(self, other, name):
    """self <name>= other: computed in the promoted dtype, written into self's memory."""
    other = _coerce(other)
    if name == "sub":
        _check_sub_operands(self, other)
    dt = _dt.result_type_of((self, other))
    if name == "div" and dt.kind in ("bool", "int", "uint"):
        dt = _dt.get_default_dtype()
    if not _can_cast(dt, self._dtype):
        raise RuntimeError(f"result type {_TORCH_NAMES.get(dt.name, dt.name)} can't be cast to the desired "
                           f"output type {_TORCH_NAMES.get(self._dtype.name, self._dtype.name)}")
    self._check_write()
    shape = broadcast_shapes(self._shape, getattr(other, "_shape", ()))
    if shape != self._shape:
        raise RuntimeError(f"output with shape {list(self._shape)} doesn't match the broadcast shape {list(shape)}")
    if dt is self._dtype and self.is_contiguous():
        binary(self, other, name, out=self)
    else:
        self.copy_(binary(self, other, name))
    self._version_bump()
    return self


_TORCH_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16",
                "int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
                "bool": "Bool", "complex64": "ComplexFloat", "complex128": "ComplexDouble"}


def reduced_dims(dim, n):
    """The set of dimensions a reduction over ``dim`` removes from an n-d tensor (None or (): all)."""
    if dim is None or (isinstance(dim, (tuple, list)) and len(dim) == 0):
        return set(range(n))
    if isinstance(dim, (tuple, list)):
        return {wrap_dim(d, n) for d in dim}
    return {wrap_dim(dim, n)}


def reduce_sum(t, dim=None, keepdim=False, dtype=None):
    """Sum over ``dim`` (all dims when None); bool and integers sum to int64, as torch."""
    n = t.dim()
    dims = reduced_dims(dim, n)
    if dtype is not None:
        src_dt = _dt.as_dtype(dtype)
        t = t.to(src_dt)
    res_dt = _dt.int64 if t._dtype.kind in ("bool", "int", "uint") and dtype is None else t._dtype
    kept = tuple(1 if i in dims else s for i, s in enumerate(t._shape))
    out = Tensor._empty(kept, res_dt)
    dst_strides = [0 if i in dims else s for i, s in enumerate(contiguous_strides(kept))]
    check(lib.lt_sum(out._ptr(), dst_strides, res_dt.code, t._ptr(), t._strides, t._dtype.code, n, t._shape))
    if keepdim:
        return out
    return out.view([s for i, s in enumerate(kept) if i not in dims])


def mean(t, dim=None, keepdim=False, dtype=None):
    dt = _dt.as_dtype(dtype) if dtype is not None else t._dtype
    if not (dt.is_floating_point or dt.is_complex):
        raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either a floating point or "
                           f"complex dtype. Got: {_TORCH_NAMES.get(dt.name, dt.name)}")
    s = reduce_sum(t, dim, keepdim, dt)
    per_output = t.numel() // s.numel() if s.numel() else 0
    return binary(s, per_output, "div")  # 0/0 gives nan for an empty reduction, as torch


def neg(t):
    if t._dtype is _dt.bool:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
                           "invert a mask, use the `~` or `logical_not()` operator instead.")
    zero = Tensor._empty((), t._dtype, zero=True)
    return binary(zero, t, "sub")


def equal(a, b):
    """True when shapes and all values are equal (as torch.equal)."""
    if tuple(a.shape) != tuple(b.shape):
        return False
    return bool(reduce_sum(binary(a, b, "ne")).item() == 0)


def _install():
    def make(name, reflected=False):
        if reflected:
            def method(self, other):
                return binary(other, self, name)
        else:
            def method(self, other):
                return binary(self, other, name)
        method.__name__ = name
        return method

    def make_inplace(name):
        def method(self, other):
            return inplace(self, other, name)
        return method

    T = Tensor
    for name, dunder in (("add", "add"), ("sub", "sub"), ("mul", "mul"), ("div", "truediv")):
        setattr(T, f"__{dunder}__", make(name))
        setattr(T, f"__r{dunder}__", make(name, reflected=True))
        setattr(T, f"__i{dunder}__", make_inplace(name))
        setattr(T, f"{name}_", make_inplace(name))
    for name in _CMP:
        setattr(T, f"__{name}__", make(name))
        setattr(T, name, make(name))
    T.__hash__ = lambda self: id(self)

    def add(self, other, *, alpha=1):
        """``self + alpha * other`` in a new tensor."""
        return binary(self, other if alpha == 1 else binary(other, alpha, "mul") if isinstance(other, Tensor)
                      else other * alpha, "add")

    def sub(self, other, *, alpha=1):
        """``self - alpha * other`` in a new tensor."""
        return binary(self, other if alpha == 1 else binary(other, alpha, "mul") if isinstance(other, Tensor)
                      else other * alpha, "sub")

    T.add, T.sub = add, sub
    T.mul = T.multiply = make("mul")
    T.div = T.divide = T.true_divide = make("div")
    T.__neg__ = T.neg = neg
    T.__pos__ = lambda self: self
    T.sum = reduce_sum
    T.mean = mean
    T.equal = equal


_install()
