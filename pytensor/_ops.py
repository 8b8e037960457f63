"""The kernels behind arithmetic, comparisons and sums, with torch's type promotion.

Each operation decides the result dtype in Python (``dtypes.result_type_of``),
converts operands that differ, broadcasts with zero strides, and makes one
libtensor call. Results are new tensors; the in-place forms write into self.
"""
from __future__ import annotations

import sys
import warnings

from . import dtypes as _dt
from ._conj import resolved
from ._convert_in import as_tensor_operand
from ._core import MAX_NBYTES, Tensor, TensorBase, contiguous_strides, copy_into, empty, make, user_stacklevel, wrap_dim
from ._ffi import ffi, lib, shim
from ._layout import broadcast_shapes, broadcast_strides, nbytes
from .errors import check

_ARITH = {"add": lib.LT_OP_ADD, "sub": lib.LT_OP_SUB, "mul": lib.LT_OP_MUL, "div": lib.LT_OP_DIV}
_CMP = {"eq": lib.LT_OP_EQ, "ne": lib.LT_OP_NE, "lt": lib.LT_OP_LT, "le": lib.LT_OP_LE,
        "gt": lib.LT_OP_GT, "ge": lib.LT_OP_GE}
_OP_CODES = {**_ARITH, **_CMP}
_fast_binary = shim.binary
_fast_inplace = shim.binary_inplace
_fast_reduce = shim.reduce  # sum/mean/all/any in one crossing (kinds 0..3); None: the Python path below
_note_write = shim.note_write
_fast_equal = shim.equal
_SCALARS = (bool, int, float, complex)
_PLAIN_SCALARS = frozenset(_SCALARS)


def _broadcast_strides(t, shape):
    """t's strides for a broadcast to ``shape``: 0 where t is missing a dim or stretches an extent 1."""
    return broadcast_strides(shape, t._shape, t._strides)


def _operand(x, dt):
    """x as a tensor of dtype dt (a Python number as torch wraps it, see wrapped_number; a NumPy array
    becomes a tensor)."""
    if isinstance(x, TensorBase):
        return (resolved(x) if x._bits else x) if x._dtype is dt else x.to(dt)  # to(): a copy, bits resolved
    if isinstance(x, _SCALARS):
        return wrapped_number(x, dt)
    return as_tensor_operand(x, dt)


# ================================================================== Python numbers as operands

# the dtypes torch computes in float32 (their "op math" type): a product or quotient with a Python
# number takes the number as a float32, not rounded to the dtype first (add, sub and the
# comparisons round it to the dtype: torch 2.13's CPU kernels, checked value by value in the tests)
_REDUCED_FLOATS = frozenset((_dt.float16, _dt.bfloat16))
_OPMATH_OPS = frozenset(("mul", "div"))


def wrapped_number(x, dt):
    """A Python number as a 0-d tensor of ``dt``, converted as torch converts a number that
    meets a tensor in a binary op: with no overflow check. An int is read as int64 (uint64 from
    2**63; past both, Python's OverflowError) and wraps into an integer dtype as a C cast does
    (``int8 + 128`` adds -128); into a floating dtype it rounds, and overflows to inf as a float
    does (``float16 < 1e39`` compares with inf). A float into an integer dtype, or a complex into
    a real one, never comes from promotion: those keep fill_'s checks."""
    out = empty((), dt)
    if dt.kind in ("int", "uint") and x.__class__ is not bool and isinstance(x, int) and -2**63 <= x < 2**64:
        bits = dt.itemsize * 8
        x &= (1 << bits) - 1  # the C cast from int64: the low bits
        if dt.kind == "int" and x >= 1 << (bits - 1):
            x -= 1 << bits
    try:
        out.fill_(x)  # within the dtype's range fill_'s conversion is the C cast itself
    except RuntimeError:  # beyond it: unchecked for a real number into a floating dtype, as torch
        if dt.kind not in ("float", "complex") or isinstance(x, complex) and dt.kind != "complex":
            raise
        src = empty((), _dt.complex128 if isinstance(x, complex) else _dt.float64 if isinstance(x, float)
                    else _dt.int64 if x < 2**63 else _dt.uint64)
        src.fill_(x)
        copy_into(out, src)  # libtensor's conversion: a C cast, inf past the dtype's range
    return out


def where_operand(x, dt):
    """A ``where()`` operand as a tensor of ``dt``: torch checks a Python number against the
    dtype as fill_ does (``where(c, int8_t, 300)`` and ``where(c, float32_t, 1e39)`` raise),
    except for float16 and bfloat16, which take it unchecked (``where(c, float16_t, 1e5)`` is inf)."""
    if isinstance(x, _SCALARS) and dt in _REDUCED_FLOATS:
        return wrapped_number(x, dt)
    return as_tensor_operand(x, dt)


def _in_op_math(a, b, dt):
    """Whether ``a op b`` (op a product or quotient in ``dt``) has a Python number that torch
    keeps in float32 rather than rounding it to float16/bfloat16 (see _REDUCED_FLOATS)."""
    return dt in _REDUCED_FLOATS and (not isinstance(a, TensorBase) or not isinstance(b, TensorBase))


def _op_math_binary(a, b, name, dt, out):
    """``a op b`` as torch computes it for float16/bfloat16 with a Python number: both in float32
    (the tensor's values exactly, the number as a float32), rounded once into ``out`` (of ``dt``)."""
    # the number stays a Python number: binary() in float32 converts it as wrapped_number would
    wide = [_operand(x, dt).to(_dt.float32) if isinstance(x, TensorBase) else x for x in (a, b)]
    r = binary(wide[0], wide[1], name)
    copy_into(out, r if r._shape == out._shape else r.expand(out._shape))
    return out


def _numpy_scalar_value(x):
    """The Python number torch reads a NumPy scalar as, or None for one it does not
    take. torch reads NumPy scalars as Python numbers of their kind, so they
    promote like Python scalars; ``np.bool_`` it reads through ``__float__``
    (``int8 + np.True_`` is float32 in torch, and here). A complex scalar that
    subclasses Python's complex (complex128) is read as complex; the others
    (complex64, clongdouble) torch reads through ``__float__``, which keeps the
    real part and warns as NumPy does (``ComplexWarning``): so ``tensor(1+3j) ==
    np.complex64(1+3j)`` is False in torch, and here."""
    kind = x.dtype.kind
    if kind == "b":
        return float(x)
    if kind in "iu":
        return int(x)
    if kind == "f":
        return float(x)
    if kind == "c":
        if isinstance(x, complex):
            return complex(x)
        np = sys.modules["numpy"]
        warnings.warn("Casting complex values to real discards the imaginary part", np.exceptions.ComplexWarning,
                      stacklevel=user_stacklevel())
        return float(x.real)
    return None


def operand(x):
    """A binary operand as pytensor computes with it, or None when ``x`` is none.

    Tensors and Python numbers pass through, NumPy scalars become Python
    numbers (see _numpy_scalar_value) and NumPy arrays (0-d too) stay arrays
    (``binary`` promotes them as NumPy does). Anything else (lists, tuples,
    strings, None) is no operand: the operators return NotImplemented, so
    ``t == [1, 2]`` is False and ``t < [1, 2]`` a TypeError, as in torch.
    """
    if isinstance(x, TensorBase):
        return x
    if x.__class__ in _PLAIN_SCALARS:
        return x
    np = sys.modules.get("numpy")
    if np is not None:
        if isinstance(x, np.generic):
            return _numpy_scalar_value(x)
        if isinstance(x, np.ndarray):
            return x
    if isinstance(x, _SCALARS):  # subclasses such as IntEnum
        return x
    return None


def _coerce(other):
    """``operand(other)``, or a TypeError for what is none (the methods' rule, as torch's)."""
    x = operand(other)
    if x is None:
        raise TypeError(f"expected a Tensor, a number or a NumPy array as the other operand, not "
                        f"{type(other).__name__} (convert a sequence with pytensor.tensor() first)")
    return x


def _array_dtype(a, b, name):
    """The computing dtype of ``a <name> b`` where one is a NumPy array: NumPy's
    promotion of the two as arrays, which is what torch returns (it hands these
    operations to NumPy). A bfloat16 tensor, which NumPy lacks, promotes as a
    tensor of full rank would."""
    np = sys.modules["numpy"]

    def numpy_side(x):
        if isinstance(x, TensorBase):
            if x._dtype._np_name is None:
                raise TypeError("no NumPy dtype")
            return np.dtype(x._dtype._np_name)
        return x.dtype if isinstance(x, np.ndarray) else x

    try:
        npdt = np.result_type(numpy_side(a), numpy_side(b))
    except TypeError:
        return _dt.promote_types(*(x._dtype if isinstance(x, TensorBase) else
                                   (_dt.from_numpy_dtype(x.dtype) or _dt.float64) if isinstance(x, np.ndarray)
                                   else _dt.scalar_dtype(x) for x in (a, b)))
    if name == "div" and npdt.kind in "biu":
        npdt = np.dtype("float64")  # NumPy's true_divide of integers
    dt = _dt.from_numpy_dtype(npdt)
    if dt is None:
        raise TypeError(f"pytensor has no dtype for NumPy's result type {npdt} of this operation")
    return dt


def binary(a, b, name, out=None):
    """a <name> b for name in add/sub/mul/div and the comparisons.

    Two tensors of one dtype, or a tensor and a Python number of its kind, take
    one C call (the shim's ``binary``, same rules, same layout); it declines
    everything else, which the rest of this function handles."""
    if out is None:
        r = _fast_binary(a, b, _OP_CODES[name])
        if r is not None:
            return r
    b = _coerce(b)
    a = _coerce(a)
    np = sys.modules.get("numpy")
    arrays = np is not None and (isinstance(a, np.ndarray) or isinstance(b, np.ndarray))
    if arrays:
        dt = _array_dtype(a, b, name)
        a, b = (_operand(x, dt) if isinstance(x, np.ndarray) else x for x in (a, b))
    else:
        dt = _dt.result_type_of((a, b))
        if name == "div" and dt.kind in ("bool", "int", "uint"):
            dt = _dt.get_default_dtype()
    if name == "sub":
        if arrays and dt is _dt.bool:
            raise TypeError("subtracting bool operands (a NumPy array among them) is not supported; use the "
                            "`^` operator or logical_xor() instead")  # NumPy's rule, which torch hands these to
        if not arrays:
            _check_sub_operands(a, b)
    cmp = name in _CMP
    if dt.kind in ("float8", "float4"):
        return _low_precision(a, b, name, dt, out)
    if cmp and dt.is_complex and name not in ("eq", "ne"):
        raise NotImplementedError(f'"{name}_cpu" not implemented for \'{dt.name}\'')
    ta, tb = _operand(a, dt), _operand(b, dt)
    # equal shapes broadcast to themselves: the common case skips the C call (about 3 us of cffi)
    shape = ta._shape if ta._shape == tb._shape else broadcast_shapes(ta._shape, tb._shape)
    res_dt = _dt.bool if cmp else dt
    if out is None:
        # laid out as torch lays out the result: the inputs' order (libtensor's rule), judged
        # on the operands as given (before conversion), as torch judges them
        given = (a if isinstance(a, TensorBase) else ta, b if isinstance(b, TensorBase) else tb)
        out = empty_strided(shape, shim.result_strides(shape, *given), res_dt)
    if name in _OPMATH_OPS and _in_op_math(a, b, dt):
        return _op_math_binary(a, b, name, dt, out)
    op = _CMP[name] if cmp else _ARITH[name]
    check(lib.lt_binary(op, dt.code, len(shape), shape, out._ptr(), out._strides, ta._ptr(),
                        _broadcast_strides(ta, shape), tb._ptr(), _broadcast_strides(tb, shape)))
    return out


def empty_strided(shape, strides, dt):
    """New uninitialised memory of ``shape`` laid out with ``strides``, which are
    dense (a permutation of row-major strides, from libtensor's layout rules)."""
    return make(shim.storage_new(nbytes(shape, dt.itemsize), False), dt, tuple(shape), strides, 0)


def _low_precision(a, b, name, dt, out):
    """torch's rule for the float8s: == and != compare values (as float32, exactly); every other
    operation, and anything on the storage-only float4_e2m1fn_x2, is refused."""
    if name in ("eq", "ne") and dt.kind == "float8" and out is None:
        wide = [x.to(_dt.float32) if isinstance(x, TensorBase) else x for x in (a, b)]
        return binary(wide[0], wide[1], name)
    refuse_low_precision(name, dt)


def refuse_low_precision(name, dt):
    raise NotImplementedError(f'"{name}" is not implemented for {dt.name}, as in torch: the float8 and float4 '
                              "dtypes store and convert but have no arithmetic; use .to(pytensor.float32) first")


def _is_bool_operand(x):
    return x._dtype is _dt.bool if isinstance(x, TensorBase) else isinstance(x, bool)


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
    """self <name>= other: computed in the promoted dtype, written into self's memory.

    A dense, writable self with an operand of its own dtype (or a Python number
    of its kind) takes one C call (the shim's ``binary_inplace``); it declines
    the rest, which this function handles with the full rules."""
    code = _ARITH.get(name)
    if code is not None and _fast_inplace(self, other, code) is not None:
        _note_write(self)
        return self
    other = _coerce(other)
    np = sys.modules.get("numpy")
    if np is not None and isinstance(other, np.ndarray):
        other = _operand(other, _array_dtype(self, other, name))  # in place: into self, whatever NumPy says
    if name == "sub":
        _check_sub_operands(self, other)
    dt = _dt.result_type_of((self, other))
    if name == "div" and dt.kind in ("bool", "int", "uint"):
        dt = _dt.get_default_dtype()
    if not _can_cast(dt, self._dtype):
        raise RuntimeError(f"result type {dt.scalar_type_name} can't be cast to the desired "
                           f"output type {self._dtype.scalar_type_name}")
    self._check_write()
    _check_partial_overlap(self, other)
    other_shape = getattr(other, "_shape", ())
    shape = self._shape if other_shape == self._shape else broadcast_shapes(self._shape, other_shape)
    if shape != self._shape:
        raise RuntimeError(f"output with shape {list(self._shape)} doesn't match the broadcast shape {list(shape)}")
    if dt is self._dtype and self.is_contiguous() and not self._bits:  # a conjugate view: copy_ writes through it
        binary(self, other, name, out=self)
        self._version_bump()
    else:
        self.copy_(binary(self, other, name))  # copy_ bumps the version: one write, one bump, as torch
    return self


def _check_partial_overlap(self, other):
    """torch's refusal of an in-place op whose operand shares some, not all, of
    the written memory (``a += a.T``): the result would depend on the order
    the elements are written in. The very same view (``a += a``) is fine."""
    if not isinstance(other, TensorBase) or other._storage is not self._storage:
        return
    if (other._offset, other._shape, other._strides, other._dtype.itemsize) == \
            (self._offset, self._shape, self._strides, self._dtype.itemsize):
        return
    (lo, hi), (olo, ohi) = self._byte_range(), other._byte_range()
    if lo < ohi and olo < hi:
        raise RuntimeError("unsupported operation: some elements of the input tensor and the written-to tensor "
                           "refer to a single memory location. Please clone() the tensor before performing the "
                           "operation.")


def reduced_dims(dim, n):
    """The set of dimensions a reduction over ``dim`` removes from an n-d tensor (None or (): all)."""
    if dim is None or (isinstance(dim, (tuple, list)) and len(dim) == 0):
        return set(range(n))
    if isinstance(dim, (tuple, list)):
        dims = [wrap_dim(d, n) for d in dim]
        for d in dims:
            if dims.count(d) > 1:  # torch refuses a repeated dim (it would count elements twice)
                raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        return set(dims)
    return {wrap_dim(dim, n)}


def reduce_sum(t, dim=None, keepdim=False, dtype=None):
    """Sum over ``dim`` (all dims when None); bool and integers sum to int64, as torch."""
    if dtype is None:
        r = _fast_reduce(t, 0, dim, keepdim)
        if r is not None:
            return r
    n = t.dim()
    dims = reduced_dims(dim, n)
    if t._dtype.kind in ("float8", "float4") and dtype is None:
        refuse_low_precision("sum", t._dtype)
    if dtype is not None:
        want = _dt.dtype_arg("sum", dtype)
        if want.kind in ("bool", "int", "uint") and want is not _dt.int64:
            # libtensor accumulates integers in int64; the requested dtype is the result's
            return reduce_sum(t.to(want), dim, keepdim, _dt.int64).to(want)
        t = t.to(want)
    res_dt = _dt.int64 if t._dtype.kind in ("bool", "int", "uint") and dtype is None else t._dtype
    t = resolved(t)
    kept = tuple(1 if i in dims else s for i, s in enumerate(t._shape))
    out = empty(kept, res_dt)
    dst_strides = [0 if i in dims else s for i, s in enumerate(contiguous_strides(kept))]
    check(lib.lt_sum(out._ptr(), dst_strides, res_dt.code, t._ptr(), t._strides, t._dtype.code, n, t._shape))
    if keepdim:
        return out
    return out.view([s for i, s in enumerate(kept) if i not in dims])


def mean(t, dim=None, keepdim=False, dtype=None):
    if dtype is None:
        r = _fast_reduce(t, 1, dim, keepdim)
        if r is not None:
            return r
    dt = _dt.dtype_arg("mean", dtype) or t._dtype
    if dt.kind in ("float8", "float4"):
        reduced_dims(dim, t.dim())  # a bad dim is torch's first refusal
        refuse_low_precision("mean", dt)
    if not (dt.is_floating_point or dt.is_complex):
        raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either a floating point or "
                           f"complex dtype. Got: {dt.scalar_type_name}")
    # float16 and bfloat16: the float32 sum divided, then rounded once (torch's CPU mean); rounding
    # the sum to the dtype before dividing is one more rounding, a unit in the last place off
    low = dt in _REDUCED_FLOATS
    s = reduce_sum(t, dim, keepdim, _dt.float32 if low else dt)
    per_output = t.numel() // s.numel() if s.numel() else 0
    r = binary(s, per_output, "div")  # 0/0 gives nan for an empty reduction, as torch
    return r.to(dt) if low else r


def _truth(t, dim, keepdim, kind):
    """all()/any() over ``dim``: whether every (some) element is nonzero (NaN
    counts as nonzero). As torch: bool results (uint8 for uint8 input),
    ``dim`` an int or a tuple of ints, ``dim=()`` reducing nothing."""
    n = t.dim()
    if dim is None:
        dims = list(range(n))
    else:
        given = list(dim) if isinstance(dim, (tuple, list)) else [dim]
        dims = [wrap_dim(d, n) for d in given]
        for d in dims:
            if dims.count(d) > 1:
                raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    nonzero = binary(t, 0, "ne")
    if n == 0 or not dims:
        out = nonzero.contiguous()  # a reduction's result is row-major in torch, even one that reduces nothing
    else:
        zeros = reduce_sum(binary(nonzero, False, "eq") if kind == "all" else nonzero, dims, keepdim)
        out = binary(zeros, 0, "eq" if kind == "all" else "ne")
    return out.to(_dt.uint8) if t._dtype is _dt.uint8 else out


def all_(t: Tensor, dim: int | tuple[int, ...] | list[int] | None = None, keepdim: bool = False) -> Tensor:
    """True where every element (along ``dim``) is nonzero; a bool tensor (uint8 for uint8 input)."""
    r = _fast_reduce(t, 2, dim, keepdim)
    if r is not None:
        return r
    return _truth(t, dim, keepdim, "all")


def any_(t: Tensor, dim: int | tuple[int, ...] | list[int] | None = None, keepdim: bool = False) -> Tensor:
    """True where some element (along ``dim``) is nonzero; a bool tensor (uint8 for uint8 input)."""
    r = _fast_reduce(t, 3, dim, keepdim)
    if r is not None:
        return r
    return _truth(t, dim, keepdim, "any")


def neg(t):
    if t._dtype is _dt.bool:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
                           "invert a mask, use the `~` or `logical_not()` operator instead.")
    if t._dtype.is_complex:
        # each part negated as a float (a complex product with -1 would turn inf into nan and
        # lose the sign of zeros), into the parts of a new complex tensor laid out like t
        out = empty_strided(t._shape, shim.result_strides(t._shape, t), t._dtype)
        copy_into(out.real, neg(t.real))
        copy_into(out.imag, neg(t.imag))
        return out
    if t._dtype.is_floating_point:
        # t * -1 keeps the sign of zero: -(0.0) is -0.0, as in torch (0 - x is +0.0)
        r = _fast_binary(t, -1.0, lib.LT_OP_MUL, True)  # one C call, laid out from t alone
        return r if r is not None else binary(t, -1, "mul")
    r = _fast_binary(0, t, lib.LT_OP_SUB, True)  # integers wrap as torch's do (-1 is no uint8 scalar)
    if r is not None:
        return r
    zero = empty((), t._dtype, zero=True)
    # a unary op's result is laid out from its one input (torch's TensorIterator), not from 0 - t
    return binary(zero, t, "sub", out=empty_strided(t._shape, shim.result_strides(t._shape, t), t._dtype))


def equal(a, b):
    """True when shapes and all values are equal (as torch.equal): compared in
    the promoted dtype by libtensor's lt_equal, which stops at the first
    difference instead of comparing and counting everything. Two tensors of
    one dtype take one C call (the shim's ``equal``)."""
    if isinstance(a, TensorBase) and isinstance(b, TensorBase):
        r = _fast_equal(a, b)
        if r is not None:
            return r
    if tuple(a.shape) != tuple(b.shape):
        return False
    dt = _dt.result_type_of((a, b))
    if dt.kind == "float8":
        dt = _dt.float32  # torch compares float8 values exactly, as float32
    elif dt.kind == "float4":
        refuse_low_precision("equal", dt)
    ta, tb = _operand(a, dt), _operand(b, dt)
    flag = ffi.new("int *")
    check(lib.lt_equal(flag, dt.code, len(ta._shape), ta._shape, ta._ptr(), ta._strides, tb._ptr(), tb._strides))
    return bool(flag[0])
