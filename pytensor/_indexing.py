"""Indexing: ints, slices, None, ``...`` and Python bools give views;
integer and boolean tensors (or lists) give copies, as in torch."""
from __future__ import annotations

import operator

from . import dtypes
from ._convert_in import as_index_tensor, as_tensor_operand, copy_preserving_layout, list_to_tensor
from ._conj import for_scatter, resolved
from ._core import TensorBase, empty, make
from ._ffi import ffi, lib, shim
from ._layout import broadcast_shapes, broadcast_strides, numel, result_strides
from ._provenance import OP
from .errors import PytensorError, check

_note = shim.prov_note
_P_INDEX, _P_GATHER = OP["index"], OP["gather"]


class InvalidIndexError(PytensorError, IndexError, TypeError):
    """An index item of no index type (a float, a dict, a generator). torch
    and NumPy raise IndexError here, and torch TypeError for a string, so
    this is both."""


def getitem(t, index):
    """``t[index]``: a view for basic indices, a gathered copy for advanced ones."""
    view, adv = _apply(t, index)
    if not adv:
        # t[...] and t[:] are new tensor objects over the same bytes, as in torch
        view = t._view(t._shape, t._strides) if view is t else view
        return _note(view, _P_INDEX, _recorded_key(index), t)  # one step t[index], not _apply's several
    return _note(_gather(view, adv), _P_GATHER, _key_text(index), t)


_BASIC = (int, slice, type(None), type(Ellipsis))


def _recorded_key(index):
    """The key to record for a view ``t[index]``: ints, slices, None and ``...``
    (or a tuple of them) as they are; anything else as text, so that the record
    holds no index tensor or array (they may hold a storage alive)."""
    items = index if index.__class__ is tuple else (index,)
    for k in items:
        if k.__class__ is slice:
            if not all(v is None or v.__class__ is int for v in (k.start, k.stop, k.step)):
                return _key_text(index)
        elif k.__class__ not in _BASIC:
            return _key_text(index)
    return index


def _key_text(index):
    """An index as short text: tensors and arrays by their shape and dtype (advanced keys)."""
    items = index if index.__class__ is tuple else (index,)
    parts = []
    for k in items:
        if isinstance(k, slice):
            parts.append(":".join("" if v is None else str(v) for v in (k.start, k.stop)) +
                         ("" if k.step is None else f":{k.step}"))
        elif k is None or k is Ellipsis or isinstance(k, (bool, int)):
            parts.append("..." if k is Ellipsis else str(k))
        elif hasattr(k, "shape") and hasattr(k, "dtype"):
            parts.append(f"<{getattr(k.dtype, 'name', k.dtype)} {list(k.shape)}>")
        else:
            text = repr(k)
            parts.append(text if len(text) <= 24 else text[:23] + "…")
    return ", ".join(parts)


def setitem(t, index, value):
    """``t[index] = value``: writes through every alias of the indexed elements."""
    if index is False and isinstance(value, (TensorBase, bool, int, float, complex)):
        return  # torch writes nothing and checks nothing else (not even the value's shape)
    view, adv = _apply(t, index)
    if view is not t:
        _note(view, _P_INDEX, _recorded_key(index), t)  # the writer the storage records is t[index]
    scalar = not isinstance(value, TensorBase) and isinstance(value, (bool, int, float, complex))
    if adv and index.__class__ is not bool:  # t[True] = v alone is a copy into t.unsqueeze(0), as torch
        items = index if index.__class__ is tuple else (index,)
        u8 = any(_is_uint8_mask(i) for i in items)  # _apply read it as the bool mask it stands for
        kinds = ["uint8" if u8 and m._dtype is dtypes.bool else put_kind(m) for _, m in adv]
        check_put_value(t, kinds, value, False, scalar)
        if (kinds == ["bool"] and isinstance(value, TensorBase) and value._dtype is not t._dtype and
                value.numel() == 1 and not value.requires_grad):
            # a masked fill from a one-element tensor of another dtype: torch's masked_fill_ reads its
            # number and checks it as fill_ does (a[mask] = tensor([300]) into int8 raises)
            value, scalar = value.item(), True
    if not adv:
        if scalar:
            view._check_write()  # t[...] = x refuses an expanded target, as torch (fill_ alone does not)
            view.fill_(value)
        else:
            view.copy_(_drop_leading_ones(value, view.dim()) if isinstance(value, TensorBase) else value)
        return
    scatter(t, view, adv, value)


def _is_uint8_mask(item):
    """A uint8 tensor or ndarray of one or more dimensions: torch's deprecated mask (0-d, it is a number)."""
    if isinstance(item, TensorBase):
        return item._dtype is dtypes.uint8 and len(item._shape) > 0
    return type(item).__module__ == "numpy" and getattr(item, "ndim", 0) > 0 and \
        getattr(getattr(item, "dtype", None), "name", "") == "uint8"


def put_kind(index):
    """What torch's index_put_ sees in an index tensor: a "bool" or "uint8" mask, or positions ("index")."""
    if index._dtype is dtypes.bool:
        return "bool"
    return "uint8" if index._dtype is dtypes.uint8 else "index"


def check_put_value(t, kinds, value, accumulate, scalar):
    """torch's index_put_ rule for what may be written into ``t`` (setitem with advanced indices and
    index_put_), ``kinds`` naming each advanced index (see put_kind). One mask and a one-element value,
    without accumulate, is a masked fill: a value of any dtype, but only through a bool mask. Anything
    else needs a value tensor of t's own dtype (a Python number is converted to it, as torch's)."""
    if not accumulate and kinds in (["bool"], ["uint8"]) and (scalar or isinstance(value, TensorBase) and
                                                               value.numel() == 1):
        if kinds[0] == "uint8":
            raise RuntimeError("masked_fill_ only supports boolean masks, but got mask with dtype unsigned char "
                               "(uint8): index with .bool() of it")
        return
    if isinstance(value, TensorBase) and value._dtype is not t._dtype:
        raise RuntimeError(f"Index put requires the source and destination dtypes match, got "
                           f"{t._dtype.scalar_type_name} for the destination and {value._dtype.scalar_type_name} "
                           "for the source.")


def _drop_leading_ones(value, ndim):
    """torch and NumPy drop a written source's leading size-1 dimensions
    beyond the target's: a[0] = b of shape (1, 3) fills a row of 3."""
    while value.dim() > ndim and value.shape[0] == 1:
        value = value.select(0, 0)
    return value


def _reads_storage_of(src, dst):
    """True when the bytes ``src`` reads lie (partly) in ``dst``'s storage,
    compared by address, so two storages over the same memory count too."""
    lo, hi = src._byte_range()
    src_lo, src_hi = src._storage._addr + lo, src._storage._addr + hi
    dst_lo = dst._storage._addr
    dst_hi = dst_lo + dst._storage._nbytes
    return src_lo < src_hi and dst_lo < dst_hi and src_lo < dst_hi and dst_lo < src_hi


# ------------------------------------------------------------------ basic part

def _is_advanced(item):
    if isinstance(item, TensorBase):
        return True
    if isinstance(item, (list, tuple)):
        return True
    if type(item).__module__ != "numpy" or not hasattr(item, "shape"):
        return False
    # A 0-d bool ndarray is a mask, as a 0-d bool tensor (torch); a 0-d
    # integer one is a number (operator.index reads it).
    return getattr(item, "ndim", 0) > 0 or getattr(getattr(item, "dtype", None), "kind", "") == "b"


def _consumed_dims(item):
    """How many of the tensor's dimensions an index item uses up (advanced items already converted)."""
    if item is None or item is Ellipsis or item.__class__ is bool:
        return 0
    if isinstance(item, TensorBase) and item._dtype is dtypes.bool:
        return len(item._shape)
    return 1


def _apply(t, index):
    """Apply the basic part of ``index``; return the view and the advanced
    indices as (dim in the view, int64 index tensor or bool mask) pairs."""
    items = index if index.__class__ is tuple else (index,)
    # each advanced item (tensor, list, array) is converted once, here
    items = [as_index_tensor(i) if _is_advanced(i) else i for i in items]
    if sum(1 for i in items if i is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    used = sum(_consumed_dims(i) for i in items)
    if used > t.dim():
        raise IndexError(f"too many indices for tensor of dimension {t.dim()}")
    view, d, adv = t, 0, []
    for item in items:
        if item is None:
            view = view.unsqueeze(d)
            d += 1
        elif item is Ellipsis:
            d += t.dim() - used
        elif item.__class__ is bool:
            view, d = _add_scalar_bool(view, d, item, adv)
        elif isinstance(item, slice):
            view = _slice(view, d, item)
            d += 1
        elif isinstance(item, TensorBase):
            if item._dtype is dtypes.bool:
                if item._shape:
                    d = _add_mask(view, d, item, adv)
                else:
                    view, d = _add_scalar_bool(view, d, item.item(), adv)
            elif not item._shape:
                # a 0-d integer tensor is a number, as in torch: a select (a view), not a gather
                view = _select(view, d, item.item())
            else:
                adv.append((d, item))
                d += 1
        else:
            try:
                i = operator.index(item)
            except TypeError:
                raise InvalidIndexError(f"only integers, slices (`:`), ellipsis (`...`), None, bools and integer "
                                        f"or bool tensors are valid indices (got {type(item).__name__})") from None
            if not -2**63 <= i < 2**63:
                raise ValueError("Overflow when unpacking long long")  # torch's parse of an int64 index
            view = _select(view, d, i)
    return view, adv


def _select(view, d, i):
    size = view.shape[d]
    if not -size <= i < size:
        raise IndexError(f"index {i} is out of bounds for dimension {d} with size {size}")
    return view.select(d, i)


def _slice(view, d, s):
    size = view.shape[d]
    step = 1 if s.step is None else operator.index(s.step)
    if step <= 0:
        raise ValueError("step must be greater than zero")
    start, stop, step = slice(s.start, s.stop, step).indices(size)
    length = len(range(start, stop, step))
    shape = list(view.shape)
    strides = list(view.stride())
    shape[d] = length
    offset = view.storage_offset() + start * strides[d]
    if length > 1 or -2**63 <= strides[d] * step < 2**63:
        # torch's stride (times the step) wherever it fits in int64. A step that
        # overflows leaves at most one element, where the stride means nothing:
        # a[::2**62] must not carry a stride past int64 into every later use.
        strides[d] *= step
    return view._view(shape, strides, offset)


def _add_scalar_bool(view, d, value, adv):
    """A Python bool (or 0-d bool tensor) as torch and NumPy take it: a new
    dimension of size 1 at ``d``, indexed by ``[0]`` (True) or ``[]`` (False).
    It is an advanced index, so several of them broadcast into one dimension
    (``a[True, True]`` adds one, not two) placed by the advanced-index rules."""
    adv.append((d, list_to_tensor([0] if value else [], dtypes.int64)))
    return view.unsqueeze(d), d + 1


def _add_mask(view, d, mask, adv):
    """A bool mask over dims [d, d + k): checked against the view, kept as
    one advanced entry (the kernels turn it into positions, not Python)."""
    k = mask.dim()
    want = tuple(view.shape[d:d + k])
    if tuple(mask.shape) != want:
        for j, (m, v) in enumerate(zip(mask.shape, want)):
            if m != v:
                raise IndexError(f"The shape of the mask {list(mask.shape)} at index {j} does not match the shape "
                                 f"of the indexed tensor {list(view.shape)} at index {d + j}")
    adv.append((d, mask))
    return d + k


# ------------------------------------------------------------------ advanced part
#
# Every advanced index becomes element offsets in libtensor (gather.c), and
# the copy is one strided walk there: NumPy's three paths. A bool mask over the
# whole view is counted and copied in two passes (lt_mask_gather); any other
# mix of masks and index tensors becomes one offsets array (lt_mask_positions,
# lt_index_offsets, which also range-checks) read or written by
# lt_index_gather / lt_index_scatter. Python only works out the result's shape
# and which strides each of its dimensions walks.

_NO_LIMIT = 2**63 - 1  # the "size" of a dimension that mask positions index: they are in range by construction


def _index_error(rc):
    """IndexError (torch's type) for an out-of-range index, the one translator otherwise."""
    if rc == lib.LT_ERANGE:
        raise IndexError(ffi.string(lib.lt_last_error()).decode())
    check(rc)


def _broadcast_shapes(shapes):
    """The shape index tensors broadcast to (libtensor's rule), refused with NumPy's IndexError."""
    try:
        return broadcast_shapes(*shapes)
    except RuntimeError:
        raise IndexError(f"shape mismatch: indexing tensors could not be broadcast together with shapes "
                         f"{', '.join(str(list(s)) for s in shapes)}") from None


def _i64(t):
    """cdata ``int64_t *`` of element 0 of an int64 tensor."""
    return ffi.cast("int64_t *", t._ptr())


def _strides_over(t, shape):
    """t's strides when broadcast to ``shape``: 0 where t lacks the dimension or
    stretches an extent 1 (an extent 1 that stays 1 keeps its stride, as torch's expand)."""
    return list(broadcast_strides(shape, t._shape, t._strides))


def _all_row_major(operands):
    """True when each operand's nonzero strides strictly decrease from the outer dimension in."""
    for st in operands:
        last = None
        for v in st:
            if v:
                if last is not None and v >= last:
                    return False
                last = v
    return True


def new_output(shape, dt, operands):
    """A new tensor of ``shape`` laid out as torch's TensorIterator lays out its output over ``operands``
    (each a list of strides over ``shape``, 0 where broadcast): libtensor's rule for elementwise results
    (lt_layout_result_strides), so an advanced index or a where() of a transposed tensor gives a
    transposed result, as in torch."""
    out = empty(shape, dt)
    if len(shape) < 2 or _all_row_major(operands):
        return out  # every operand walks row-major: the rule's answer is the row-major layout empty() gave
    strides = result_strides(shape, [(shape, st) for st in operands])
    return out if strides == out._strides else make(out._storage, dt, tuple(shape), strides, 0)


def mask_count(mask):
    """The number of true elements of a bool tensor (one C pass)."""
    out = ffi.new("int64_t *")
    check(lib.lt_mask_count(out, mask._ptr(), mask._strides, mask.dim(), mask._shape))
    return out[0]


def mask_positions(mask, weights_rows, column_major=False):
    """A (count, len(weights_rows)) int64 tensor: for each true element of
    ``mask`` (row-major), its coordinates dotted with each row of weights;
    laid out column by column when ``column_major`` (torch's nonzero())."""
    count = mask_count(mask)
    ncols = len(weights_rows)
    out = empty((count, ncols), dtypes.int64)
    if column_major:
        out = make(out._storage, dtypes.int64, (count, ncols), (1, count), 0)
    weights = [w for row in weights_rows for w in row]
    check(lib.lt_mask_positions(_i64(out), out._strides[0], out._strides[1], count, ncols, weights, mask._ptr(),
                                mask._strides, mask.dim(), mask._shape))
    return out


class _Plan:
    """Where ``view[adv]`` reads: the result shape and, per result dimension,
    the view stride it walks (0 on the indexed ones) and the stride it walks
    in ``offsets`` (the element offsets of the broadcast index, 0 elsewhere)."""

    __slots__ = ("out_shape", "src_strides", "offsets", "offset_strides", "index_operands")


def _plan(view, adv, layout=True):
    """The plan of ``view[adv]``; ``layout`` also works out the operands torch's layout rule reads (reads only)."""
    tensors, sizes, strides, ids, used = [], [], [], [], []
    for d, idx in adv:
        if idx._dtype is dtypes.bool:
            k = idx.dim()
            pos = mask_positions(idx, [view._strides[d:d + k]])
            tensors.append(pos.view((pos._shape[0],)))
            sizes.append(_NO_LIMIT)
            strides.append(1)
            used.extend(range(d, d + k))
        else:
            tensors.append(idx)
            sizes.append(view._shape[d])
            strides.append(view._strides[d])
            used.append(d)
        ids.append(d)
    bshape = tensors[0]._shape if len(tensors) == 1 else _broadcast_shapes([i._shape for i in tensors])
    offsets = empty(bshape, dtypes.int64)
    ptrs = ffi.new("int64_t *[]", [_i64(i) for i in tensors])
    index_strides = tensors[0]._strides if len(tensors) == 1 else \
        [st for i in tensors for st in _strides_over(i, bshape)]
    _index_error(lib.lt_index_offsets(_i64(offsets), len(tensors), ptrs, index_strides, sizes, strides, ids, 1,
                                      len(bshape), bshape))
    rest = [i for i in range(view.dim()) if i not in used]
    consecutive = used == list(range(used[0], used[0] + len(used)))
    before = [i for i in rest if consecutive and i < used[0]]
    after = [i for i in rest if i not in before]
    p = _Plan()
    p.out_shape = tuple(view._shape[i] for i in before) + tuple(bshape) + tuple(view._shape[i] for i in after)
    p.src_strides = [view._strides[i] for i in before] + [0] * len(bshape) + [view._strides[i] for i in after]
    p.offsets = offsets
    p.offset_strides = [0] * len(before) + list(offsets._strides) + [0] * len(after)
    if not layout:
        return p
    # torch's iterator also reads each index tensor, broadcast over the result (its layout rule looks at them)
    # (torch reshapes each to 1s around the broadcast dims, and an extent-1 result dim keeps that view's stride)
    lead = [1 if view._shape[i] == 1 else 0 for i in before]
    trail = [1 if view._shape[i] == 1 else 0 for i in after]
    p.index_operands = []
    for i in tensors:
        own = _strides_over(i, bshape)
        outer = (own[0] * bshape[0] if bshape and own[0] else max(numel(bshape), 1))
        p.index_operands.append([outer * k for k in lead] + own + [(own[-1] if own and own[-1] else 1) * k
                                                                   for k in trail])
    return p


def _whole_mask(view, adv):
    """The mask of ``view[mask]`` when it covers every dimension of the view (the fast path), else None."""
    if len(adv) == 1:
        d, idx = adv[0]
        if d == 0 and idx._dtype is dtypes.bool and idx.dim() == view.dim():
            return idx
    return None


def _gather(view, adv):
    """``view[adv]`` in new memory: one or two C calls."""
    view = resolved(view)  # a conjugate/negative view: its values, not its bytes
    mask = _whole_mask(view, adv)
    dt = view._dtype
    if mask is not None:
        count = mask_count(mask)
        out = empty((count,), dt)
        check(lib.lt_mask_gather(out._ptr(), view._ptr(), view._strides, dt.code, mask._ptr(), mask._strides,
                                 mask.dim(), mask._shape, count))
        return out
    if len(adv) == 1 and adv[0][1]._dtype is not dtypes.bool:
        return _take(view, *adv[0])
    p = _plan(view, adv)
    out = new_output(p.out_shape, dt, [p.src_strides] + p.index_operands)
    check(lib.lt_index_gather(out._ptr(), out._strides, view._ptr(), p.src_strides, _i64(p.offsets),
                              p.offset_strides, dt.code, len(p.out_shape), p.out_shape))
    return out


def _take(view, d, idx):
    """``view[(:,) * d + (idx,)]`` for one int64 index tensor: one C pass, checking each index as it reads it."""
    k = len(idx._shape)
    shape = view._shape[:d] + idx._shape + view._shape[d + 1:]
    vs = view._strides
    src_strides = vs[:d] + (0,) * k + vs[d + 1:]
    after = len(view._shape) - d - 1
    own = idx._strides
    index_strides = (0,) * d + own + (0,) * after
    # the layout torch's iterator gives (see _plan): index strides kept on the extent-1 dims around it
    lead = [max(idx.numel(), 1) if view._shape[i] == 1 else 0 for i in range(d)]
    inner = own[-1] if own and own[-1] else 1
    trail = [inner if view._shape[i] == 1 else 0 for i in range(d + 1, len(view._shape))]
    out = new_output(shape, view._dtype, [src_strides, lead + list(own) + trail])
    _index_error(lib.lt_index_take(out._ptr(), out._strides, view._ptr(), src_strides, _i64(idx), index_strides,
                                   view._shape[d], vs[d], d, 1, view._dtype.code, len(shape), shape))
    return out


def _value_for(value, t, shape, scalar):
    """The written value as a tensor of t's dtype broadcast to ``shape``, read
    whole first when it shares t's memory (the aliasing-safe copy)."""
    value = as_tensor_operand(value, t.dtype)
    if scalar:
        return value.expand(shape) if shape else value
    if _reads_storage_of(value, t):
        # The scatter writes element by element, so a source that aliases the
        # destination would be read after part of it was overwritten
        # (a[[1, 2, 3]] = a[0:3] gave [0, 0, 0, 0, ...]); reading it whole first gives NumPy's answer.
        value = copy_preserving_layout(value)
    value = _drop_leading_ones(value, len(shape))
    if tuple(value._shape) != tuple(shape):
        try:
            value = value.expand(shape)
        except RuntimeError:
            raise RuntimeError(f"shape mismatch: value tensor of shape {list(value._shape)} cannot be broadcast "
                               f"to indexing result of shape {list(shape)}") from None
    return value


def scatter(t, view, adv, value, accumulate=False):
    """``view[adv] = value`` (adding at every hit when ``accumulate``): one C call after the plan."""
    scalar = not isinstance(value, TensorBase) and isinstance(value, (bool, int, float, complex))
    # torch refuses a target where one memory location is several elements, unless it is empty
    view._check_write(refuse_overlap=(not scalar or accumulate) and 0 not in view._shape)
    dt = view._dtype
    mask = None if accumulate else _whole_mask(view, adv)
    if mask is not None:
        if _reads_storage_of(mask, t):
            # the mask is read while the elements are written: a mask in t's own bytes
            # (b[b.roll(1)] = False on a bool b) would see its own writes
            mask = copy_preserving_layout(mask)
        count = mask_count(mask)
        view, src = for_scatter(view, _value_for(value, t, (count,), scalar))
        check(lib.lt_mask_scatter(view._ptr(), view._strides, src._ptr(), src._strides[0] if src.dim() else 0,
                                  dt.code, mask._ptr(), mask._strides, mask.dim(), mask._shape, count))
    else:
        p = _plan(view, adv, layout=False)
        view, src = for_scatter(view, _value_for(value, t, p.out_shape, scalar))
        check(lib.lt_index_scatter(view._ptr(), p.src_strides, _i64(p.offsets), p.offset_strides, src._ptr(),
                                   src._strides, dt.code, 1 if accumulate else 0, len(p.out_shape), p.out_shape))
    view._version_bump()
