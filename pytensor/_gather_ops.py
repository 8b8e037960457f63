"""The copying ops of the gather family, with torch's semantics: index_select,
masked_select, nonzero, take, gather, where, cat/stack, flip and roll.

Every result is new memory, as in torch (none of them returns a view). Each
runs on gather.c's kernels (or lt_copy) in one or a few C calls. A tensor that
requires grad takes the differentiable route where there is one: the op is
written as ``t[index]``, whose backward scatter-adds (``flip``, ``roll``,
``index_select``, ``take``, ``masked_select``, ``gather``); ``cat``, ``stack``
and ``where`` have no backward here yet and refuse such inputs rather than
return a result that silently drops the gradient.
"""
from __future__ import annotations

import operator
from types import SimpleNamespace

from . import dtypes as _dt
from ._convert_in import list_to_tensor, warn_once
from ._conj import resolved
from ._core import TensorBase, empty, make, wrap_dim
from ._ffi import ffi, lib, shim
from ._indexing import _apply as apply_index
from ._indexing import _i64, _strides_over, mask_count, mask_positions, new_output, scatter
from ._indexing import check_put_value, put_kind
from ._layout import broadcast_shapes, infer_dense_strides, preserve_strides
from ._ops import where_operand
from .autograd import as_input_grad, is_grad_enabled, no_grad, record
from .errors import check

# The common cases in one crossing (pytensor/_shim_index.c); each returns None to decline (grad, promotion,
# conjugate/negative bits, rare dtypes, every refusal), and the Python code below is then the whole rule.
_fast_join, _fast_where, _fast_flip, _fast_roll = shim.join, shim.where, shim.flip, shim.roll
_fast_take, _fast_nonzero, _fast_put_index = shim.take_index, shim.nonzero, shim.put_index
_fast_take_mask = shim.take_mask
_SELECT, _TAKE, _GATHER = 0, 1, 2


def _tracks_grad(*tensors):
    """True when one of ``tensors`` requires grad and grad mode is on (the differentiable route)."""
    if not any(isinstance(t, TensorBase) and t._requires_grad for t in tensors):
        return False
    return is_grad_enabled()


def _like(t):
    """Shape and dtype of an input that requires grad (what ``as_input_grad`` reads), without its memory;
    None for an input that does not."""
    return SimpleNamespace(shape=tuple(t._shape), dtype=t._dtype) if isinstance(t, TensorBase) and \
        t._requires_grad else None


def _check_tensor(fn, name, x):
    if not isinstance(x, TensorBase):
        raise TypeError(f"{fn}(): argument '{name}' must be Tensor, not {type(x).__name__}")


def _like_layout(shape, strides):
    """Strides for a new tensor laid out as ``empty_like(preserve_format)``: a
    dense input's order, else row-major in the input's dimension order."""
    if 0 in shape:  # an empty result: torch's iterator orders its dims as below, whatever its strides were
        return infer_dense_strides(shape, strides)
    return preserve_strides(shape, strides)


def _new_like(t, shape=None):
    shape = t._shape if shape is None else shape
    out = empty(shape, t._dtype)
    strides = _like_layout(shape, t._strides) if shape == t._shape else out._strides
    return make(out._storage, t._dtype, tuple(shape), tuple(strides), 0)


# ------------------------------------------------------------------ index_select, take, gather, masked_select

def _index_vector(fn, index, dtypes=(_dt.int64, _dt.int32)):
    _check_tensor(fn, "index", index)
    if index._dtype not in dtypes:
        names = " or ".join(d.scalar_type_name for d in dtypes)
        raise RuntimeError(f"{fn}(): Expected dtype {names} for index, got {index._dtype.scalar_type_name}")
    return index if index._dtype is _dt.int64 else index.to(_dt.int64)


def _take_into(out, src, src_strides, index, index_strides, d, error=IndexError, wrap=True):
    """One C pass (lt_index_take): out[i] = src at src_strides . i + index[index_strides . i] along dimension d."""
    src = resolved(src)  # same layout: the values of a conjugate/negative view in new memory
    rc = lib.lt_index_take(out._ptr(), out._strides, src._ptr(), list(src_strides), _i64(index), list(index_strides),
                           src._shape[d], src._strides[d], d, int(wrap), src._dtype.code, out.dim(), out._shape)
    if rc == lib.LT_ERANGE:
        raise error(ffi.string(lib.lt_last_error()).decode())
    check(rc)
    return out


def index_select(input, dim, index):
    """The entries ``index`` (a vector, int64 or int32) of dimension ``dim`` of ``input``, copied.

    >>> import pytensor
    >>> pytensor.arange(6).view(2, 3).index_select(1, pytensor.tensor([2, 0]))
    tensor([[2, 0],
            [5, 3]])
    """
    r = _fast_take(_SELECT, input, dim, index)
    if r is not None:
        return r
    _check_tensor("index_select", "input", input)
    _check_tensor("index_select", "index", index)
    d = wrap_dim(dim, input.dim())  # first, as torch: a bad dim is the error whatever the index
    index = _index_vector("index_select", index)
    if index.dim() > 1:
        raise IndexError(f"index_select(): Index is supposed to be a vector, got {index.dim()} dimensions")
    flat = index.reshape(-1)
    if input.dim() == 0:
        # torch reads a 0-d input as its one element: exactly one index, which must be 0 (no
        # wrapping, as for any input here), and the result is 0-d again
        if flat.numel() != 1:
            raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got {flat.numel()} value(s)")
        if (i := flat.item()) != 0:
            raise IndexError(f"index_select(): index {i} is out of range for a 0-d input (its one element is "
                             "index 0)")
        return take(input, flat).view(())
    if _tracks_grad(input):
        return input[(slice(None),) * d + (flat,)]
    shape = input._shape[:d] + flat._shape + input._shape[d + 1:]
    src_strides = list(input._strides)
    src_strides[d] = 0
    index_strides = [0] * input.dim()
    index_strides[d] = flat._strides[0]
    # torch: no negative indices here
    return _take_into(empty(shape, input._dtype), input, src_strides, flat, index_strides, d, wrap=False)


def take(input, index):
    """``input`` read as a 1-d tensor (row-major) at the positions ``index``; the result has index's shape."""
    r = _fast_take(_TAKE, input, 0, index)
    if r is not None:
        return r
    _check_tensor("take", "input", input)
    index = _index_vector("take", index, (_dt.int64,))
    flat = input.reshape(-1)
    if _tracks_grad(input):
        return flat[index]
    out = empty(index._shape, input._dtype)
    return _take_into(out, flat, [0] * index.dim(), index, index._strides, 0)


def gather(input, dim, index, *, sparse_grad=False):
    """``out[i][j][k] = input[index[i][j][k]][j][k]`` (for dim 0): index has input's number of
    dimensions and no extent larger than input's outside ``dim``; the result has index's shape."""
    r = _fast_take(_GATHER, input, dim, index)
    if r is not None:
        return r
    _check_tensor("gather", "input", input)
    _check_tensor("gather", "index", index)
    n = input.dim()
    d = wrap_dim(dim, n)  # first, as torch: a bad dim is the error whatever the index
    index = _index_vector("gather", index)  # int64 or int32, as torch 2.13
    if index.dim() != n and not (max(n, 1) == 1 and index.dim() <= 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    if n == 0 or index.dim() == 0:
        # a 0-d input is one element along dim and a 0-d index one position: read as take() reads
        # them, but with gather's rule for positions (in [0, size), no wrapping, RuntimeError)
        flat = input.reshape(-1)
        out = _take_into(empty(index._shape, input._dtype), flat, [0] * index.dim(), index, index._strides, 0,
                         RuntimeError, wrap=False)
        return flat[index] if _tracks_grad(input) else out  # positions checked above: the graph's read is right
    for i in range(n):
        if i != d and index._shape[i] > input._shape[i]:
            raise RuntimeError(f"Size does not match at dimension {i} expected index {list(index._shape)} to be no "
                               f"larger than self {list(input._shape)} apart from dimension {d}")
    if _tracks_grad(input):
        grids = [_positions(range(m)).view([m if j == i else 1 for j in range(n)]) for i, m in enumerate(index._shape)]
        grids[d] = index
        return input[tuple(grids)]
    src_strides = list(input._strides)
    src_strides[d] = 0
    out = empty(index._shape, input._dtype)
    return _take_into(out, input, src_strides, index, index._strides, d, RuntimeError, wrap=False)


def _positions(values):
    """An int64 vector of Python ints (the differentiable routes' index tensors; rare, so a list is fine)."""
    return list_to_tensor(list(values), _dt.int64)


def _bool_mask(fn, mask):
    _check_tensor(fn, "mask", mask)
    if mask._dtype is not _dt.bool:
        raise RuntimeError(f"{fn}: expected BoolTensor for mask, got {mask._dtype.scalar_type_name}")
    return mask


def masked_select(input, mask):
    """The elements of ``input`` where the bool ``mask`` is true (both broadcast), as a 1-d copy."""
    r = _fast_take_mask(0, input, mask)  # a mask of input's shape, in one crossing (_shim_index.c)
    if r is not None:
        return r
    _check_tensor("masked_select", "input", input)
    mask = _bool_mask("masked_select", mask)
    shape = broadcast_shapes(input._shape, mask._shape)
    x = input.expand(shape) if input._shape != shape else input
    m = mask.expand(shape) if mask._shape != shape else mask
    if _tracks_grad(input):
        return x[m] if shape else x.view(1)[m.view(1)]
    count = mask_count(m)
    out = empty((count,), input._dtype)
    x = resolved(x)
    check(lib.lt_mask_gather(out._ptr(), x._ptr(), _strides_over(x, shape), x._dtype.code, m._ptr(),
                             _strides_over(m, shape), len(shape), shape, count))
    return out


# ------------------------------------------------------------------ nonzero, where

def nonzero(input, *, as_tuple=False):
    """Coordinates of the nonzero elements, row-major: a (count, ndim) int64 tensor, or
    with ``as_tuple`` one int64 vector per dimension (a 0-d input counts as 1-d there)."""
    if not as_tuple:
        r = _fast_nonzero(input)
        if r is not None:
            return r
    _check_tensor("nonzero", "input", input)
    m = input if input._dtype is _dt.bool else (input != 0)
    n = m.dim()
    eye = [[1 if i == j else 0 for j in range(n)] for i in range(n)]
    coords = mask_positions(m, eye, column_major=True)
    if not as_tuple:
        return coords
    if n == 0:
        return (empty((coords._shape[0],), _dt.int64, zero=True),)  # a 0-d input reads as 1-d: index 0
    return tuple(coords.select(1, j) for j in range(n))


def where(condition, input=None, other=None):
    """``input`` where ``condition`` is true, else ``other`` (all three broadcast; numbers allowed),
    in the dtype the two promote to. ``where(condition)`` is ``nonzero(condition, as_tuple=True)``."""
    if input is None and other is None:
        return nonzero(condition, as_tuple=True)
    r = _fast_where(condition, input, other)
    if r is not None:
        return r
    _check_tensor("where", "condition", condition)
    if condition._dtype is _dt.uint8:
        warn_once("where uint8", "where received a uint8 condition tensor: deprecated, as in torch; use a bool "
                  "condition (condition.bool())")
        condition = condition != 0  # torch still reads a uint8 condition, nonzero as true
    if condition._dtype is not _dt.bool:
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with dtype "
                           f"{condition._dtype.scalar_type_name}")
    if _tracks_grad(input, other):
        with no_grad():
            out = where(condition, input, other)
        a, b = _like(input), _like(other)

        def where_backward(g):
            return (as_input_grad(where(condition, g, 0), a) if a else None,
                    as_input_grad(where(condition, 0, g), b) if b else None)
        return record(out, "WhereBackward0", (input, other), where_backward)
    dt = _dt.result_type_of((input, other))
    a, b = where_operand(input, dt), where_operand(other, dt)
    shape = broadcast_shapes(condition._shape, a._shape, b._shape)
    out = new_output(shape, dt, [_strides_over(x, shape) for x in (condition, a, b)])
    check(lib.lt_where(out._ptr(), out._strides, condition._ptr(), _strides_over(condition, shape), a._ptr(),
                       _strides_over(a, shape), b._ptr(), _strides_over(b, shape), dt.code, len(shape), shape))
    return out


# ------------------------------------------------------------------ cat, stack

def _tensor_list(fn, tensors):
    if isinstance(tensors, TensorBase) or not hasattr(tensors, "__iter__"):
        raise TypeError(f"{fn}(): argument 'tensors' must be tuple of Tensors, not {type(tensors).__name__}")
    tensors = list(tensors)
    for i, t in enumerate(tensors):
        if not isinstance(t, TensorBase):
            raise TypeError(f"{fn}(): argument 'tensors' must be tuple of Tensors, but element {i} is "
                            f"{type(t).__name__}")
    return tensors


def cat(tensors, dim=0):
    """The tensors joined along ``dim`` in new memory, in their promoted dtype. As torch, a 1-d
    tensor of size 0 is skipped whatever the others' shape."""
    r = _fast_join(tensors, dim, False)
    if r is not None:
        return r
    tensors = _tensor_list("cat", tensors)
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    if _tracks_grad(*tensors):
        return _cat_recorded(tensors, dim)
    parts = [t for t in tensors if t._shape != (0,)]
    ref = parts[0] if parts else tensors[0]
    if ref.dim() == 0:
        raise RuntimeError("zero-dimensional tensor (at position 0) cannot be concatenated")
    d = wrap_dim(dim, ref.dim())
    dt = tensors[0]._dtype
    for t in tensors[1:]:
        dt = _dt.promote_types(dt, t._dtype)
    total = 0
    for i, t in enumerate(tensors):
        if t._shape == (0,) and t is not ref:
            continue
        if t.dim() != ref.dim():
            raise RuntimeError(f"Tensors must have same number of dimensions: got {ref.dim()} and {t.dim()}")
        for j in range(ref.dim()):
            if j != d and t._shape[j] != ref._shape[j]:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. Expected size "
                                   f"{ref._shape[j]} but got size {t._shape[j]} for tensor number {i} in the list.")
        total += t._shape[d]
    shape = ref._shape[:d] + (total,) + ref._shape[d + 1:]
    out = empty(shape, dt)
    at = 0
    for t in parts:
        n = t._shape[d]
        if n:
            out.narrow(d, at, n).copy_(t)
            at += n
    return out


def _cat_recorded(tensors, dim):
    """cat with its backward: each input's gradient is its slice of the output's along ``dim``."""
    with no_grad():
        out = cat(tensors, dim)
    d = wrap_dim(dim, out.dim())
    spans, at = [], 0
    for t in tensors:
        skipped = t._shape == (0,) and out.dim() != 1     # cat passes over a 1-d empty tensor
        n = 0 if skipped else t._shape[d]
        spans.append((at, n, skipped))
        at += n
    likes = [_like(t) for t in tensors]

    def cat_backward(g):
        return tuple(None if like is None else empty((0,), like.dtype) if skipped
                     else as_input_grad(g.narrow(d, start, n), like)
                     for like, (start, n, skipped) in zip(likes, spans))
    return record(out, "CatBackward0", tuple(tensors), cat_backward)


def stack(tensors, dim=0):
    """The tensors (all one shape) joined along a new dimension ``dim``, in new memory."""
    r = _fast_join(tensors, dim, True)
    if r is not None:
        return r
    tensors = _tensor_list("stack", tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    for i, t in enumerate(tensors[1:], 1):
        if t._shape != tensors[0]._shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {list(tensors[0]._shape)} at "
                               f"entry 0 and {list(t._shape)} at entry {i}")
    d = wrap_dim(dim, tensors[0].dim() + 1)
    return cat([t.unsqueeze(d) for t in tensors], d)


# ------------------------------------------------------------------ flip, roll

def _dims_arg(fn, dims, n):
    out = [wrap_dim(x, n) for x in dims]
    for x in out:
        if out.count(x) > 1:
            raise RuntimeError(f"dim {x} appears multiple times in the list of dims")
    return out


def flip(input, dims):
    """A copy with the order of the elements along each of ``dims`` reversed (torch never returns a view here)."""
    r = _fast_flip(input, dims)
    if r is not None:
        return r
    _check_tensor("flip", "input", input)
    if not isinstance(dims, (tuple, list)):
        raise TypeError(f"flip(): argument 'dims' (position 2) must be tuple of ints, not {type(dims).__name__}")
    n = input.dim()
    dims = _dims_arg("flip", dims, n)
    if n == 0:
        dims = []  # a 0-d tensor: its one valid dim (0 or -1) holds one element, nothing to reverse
    if _tracks_grad(input):
        out = input
        for d in dims:
            m = input._shape[d]
            out = out[(slice(None),) * d + (_positions(range(m - 1, -1, -1)),)]
        return out if out is not input else input.clone()  # a copy even with nothing reversed, as torch
    shape, strides, offset = input._shape, list(input._strides), input._offset
    for d in dims:
        if shape[d] > 1:
            offset += (shape[d] - 1) * strides[d]  # element 0 of the flipped view is the last along d
            strides[d] = -strides[d]
    src = make(input._storage, input._dtype, shape, tuple(strides), offset)
    src._bits = input._bits
    src = resolved(src)  # a conjugate/negative input: its values, not its bytes
    out = _new_like(input)
    if out.numel():
        check(lib.lt_copy(out._ptr(), out._strides, out._dtype.code, src._ptr(), src._strides, src._dtype.code, n,
                          shape))
    return out


def roll(input, shifts, dims=None):
    """A copy with the elements shifted by ``shifts`` along ``dims``, wrapping around; with no dims
    the tensor is rolled as if flattened and then given its shape back."""
    r = _fast_roll(input, shifts, dims)
    if r is not None:
        return r
    _check_tensor("roll", "input", input)
    shifts = (shifts,) if isinstance(shifts, int) or hasattr(shifts, "__index__") else tuple(shifts)
    if dims is None:
        if len(shifts) != 1:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:0")
        return roll(input.reshape(-1), shifts, 0).view(input._shape)
    dims = (dims,) if isinstance(dims, int) or hasattr(dims, "__index__") else tuple(dims)
    if len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    n = input.dim()
    dims = [wrap_dim(d, n) for d in dims]
    shifts = [operator.index(s) for s in shifts]
    if _tracks_grad(input):
        out = input
        for s, d in zip(shifts, dims):
            m = input._shape[d]
            out = out[(slice(None),) * d + (_positions((i - s) % m for i in range(m)),)]
        return out
    src = input
    for s, d in zip(shifts, dims):
        m = src._shape[d]
        k = s % m if m else 0
        dst = empty(input._shape, input._dtype)
        if k == 0 or dst.numel() == 0:
            dst.copy_(src)
        else:  # dst[k:] = src[:m-k] and dst[:k] = src[m-k:] along d
            dst.narrow(d, k, m - k).copy_(src.narrow(d, 0, m - k))
            dst.narrow(d, 0, k).copy_(src.narrow(d, m - k, k))
        src = dst
    return src if src is not input else input.clone()


# ------------------------------------------------------------------ index_put_

def index_put_(t, indices, values, accumulate=False):
    """``t[indices] = values`` in place, or with ``accumulate`` ``t[indices] += values`` where every
    repeated index adds (``t[idx] += v`` itself reads, adds and writes, so a repeat counts once)."""
    if not isinstance(indices, (tuple, list)):
        raise TypeError(f"index_put_(): argument 'indices' must be tuple of Tensors, not {type(indices).__name__}")
    if indices.__class__ in (tuple, list) and len(indices) == 1 and isinstance(values, TensorBase) and \
            accumulate.__class__ is bool and _fast_put_index(t, indices[0], values, accumulate) is not None:
        t._version_bump()
        return t
    _check_tensor("index_put_", "values", values)
    for i, idx in enumerate(indices):
        if not isinstance(idx, TensorBase):
            raise TypeError(f"index_put_(): argument 'indices' must be tuple of Tensors, but element {i} is "
                            f"{type(idx).__name__}")
    # the value's dtype, and a uint8 mask in a masked fill (index_put_ sees every index tensor as it is,
    # a 0-d bool one too, where t[...] = v reads a 0-d bool as a position first)
    check_put_value(t, [put_kind(idx) for idx in indices], values, accumulate, False)
    if _tracks_grad(t, values):
        raise RuntimeError("pytensor's autograd does not record index_put_; write inside pytensor.no_grad() or "
                           "into a detach()ed tensor")
    view, adv = apply_index(t, tuple(indices))
    if adv:
        scatter(t, view, adv, values, accumulate)
    elif accumulate:
        view.add_(values)
    else:
        view.copy_(values)
    return t
