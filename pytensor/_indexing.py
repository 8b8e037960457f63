"""Indexing: ints, slices, None, ``...`` and Python bools give views;
integer and boolean tensors (or lists) give copies, as in torch."""
from __future__ import annotations

import itertools
import operator

from . import dtypes
from ._convert import as_index_tensor, as_tensor_operand, copy_preserving_layout, list_to_tensor
from ._core import TensorBase, empty
from ._ffi import shim
from ._layout import broadcast_shapes
from ._provenance import OP
from .errors import PytensorError

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
    out_shape, slots = _advanced_plan(view, adv)
    out = empty(out_shape, t.dtype)
    for out_index, src in slots:
        out[out_index].copy_(src) if out_index else out.copy_(src)
    return _note(out, _P_GATHER, _key_text(index), t)


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
    view, adv = _apply(t, index)
    if view is not t:
        _note(view, _P_INDEX, _recorded_key(index), t)  # the writer the storage records is t[index]
    scalar = not isinstance(value, TensorBase) and isinstance(value, (bool, int, float, complex))
    if not adv:
        if scalar:
            view._check_write()  # t[...] = x refuses an expanded target, as torch (fill_ alone does not)
            view.fill_(value)
        else:
            view.copy_(_drop_leading_ones(value, view.dim()) if isinstance(value, TensorBase) else value)
        return
    out_shape, slots = _advanced_plan(view, adv)
    if not scalar:
        value = as_tensor_operand(value, t.dtype)
        if _reads_storage_of(value, t):
            # The slots below are written one by one, so a source that aliases
            # the destination would be read after some of it was overwritten
            # (a[[1, 2, 3]] = a[0:3] gave [0, 0, 0, 0, ...]). Reading it whole
            # first gives NumPy's answer.
            value = copy_preserving_layout(value)
        value = _drop_leading_ones(value, len(out_shape))
        value = value.expand(out_shape) if tuple(value.shape) != tuple(out_shape) else value
    for out_index, dst in slots:
        if scalar:
            dst.fill_(value)
        else:
            dst.copy_(value[out_index] if out_index else value)


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
    """How many of the tensor's dimensions an index item uses up."""
    if item is None or item is Ellipsis or isinstance(item, bool):
        return 0
    if _is_advanced(item):
        idx = as_index_tensor(item)
        return idx.dim() if idx.dtype.kind == "bool" else 1
    return 1


def _apply(t, index):
    """Apply the basic part of ``index``; return the view and the advanced
    indices as (dim in the view, int64 index tensor) pairs."""
    if not isinstance(index, tuple):
        index = (index,)
    n_ell = sum(1 for i in index if i is Ellipsis)
    if n_ell > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    used = sum(_consumed_dims(i) for i in index)
    if used > t.dim():
        raise IndexError(f"too many indices for tensor of dimension {t.dim()}")
    view, d, adv = t, 0, []
    for item in index:
        if item is None:
            view = view.unsqueeze(d)
            d += 1
        elif item is Ellipsis:
            d += t.dim() - used
        elif isinstance(item, bool):
            view, d = _add_scalar_bool(view, d, item, adv)
        elif isinstance(item, slice):
            view = _slice(view, d, item)
            d += 1
        elif _is_advanced(item):
            idx = as_index_tensor(item)
            if idx.dtype.kind == "bool" and idx.dim() == 0:
                view, d = _add_scalar_bool(view, d, idx.item(), adv)
            elif idx.dtype.kind == "bool":
                d = _add_mask(view, d, idx, adv)
            else:
                adv.append((d, idx))
                d += 1
        else:
            try:
                i = operator.index(item)
            except TypeError:
                raise InvalidIndexError(f"only integers, slices (`:`), ellipsis (`...`), None, bools and integer "
                                        f"or bool tensors are valid indices (got {type(item).__name__})") from None
            if not -2**63 <= i < 2**63:
                raise ValueError("Overflow when unpacking long long")  # torch's parse of an int64 index
            size = view.shape[d]
            if not -size <= i < size:
                raise IndexError(f"index {i} is out of bounds for dimension {d} with size {size}")
            view = view.select(d, i)
    return view, adv


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
    k = mask.dim()
    want = tuple(view.shape[d:d + k])
    if tuple(mask.shape) != want:
        for j, (m, v) in enumerate(zip(mask.shape, want)):
            if m != v:
                raise IndexError(f"The shape of the mask {list(mask.shape)} at index {j} does not match the shape "
                                 f"of the indexed tensor {list(view.shape)} at index {d + j}")
    flat = mask.reshape(-1).tolist()
    hits = [i for i, b in enumerate(flat) if b]
    coords = [[] for _ in range(k)]
    for h in hits:
        for j in range(k - 1, -1, -1):
            coords[j].append(h % want[j])
            h //= want[j]
    for j in range(k):
        adv.append((d + j, list_to_tensor(coords[j], dtypes.int64)))
    return d + k


# ------------------------------------------------------------------ advanced part

def _broadcast_shapes(shapes):
    """The shape index tensors broadcast to (libtensor's rule), refused with NumPy's IndexError."""
    try:
        return broadcast_shapes(*shapes)
    except RuntimeError:
        raise IndexError(f"shape mismatch: indexing tensors could not be broadcast together with shapes "
                         f"{', '.join(str(list(s)) for s in shapes)}") from None


def _advanced_plan(view, adv):
    """Result shape, and for each position of the broadcast index a pair
    (index into the result, source view of the elements that land there)."""
    dims = [d for d, _ in adv]
    bshape = _broadcast_shapes([tuple(i.shape) for _, i in adv])
    lists = []
    for d, idx in adv:
        size = view.shape[d]
        values = idx.expand(bshape).reshape(-1).tolist() if bshape else [idx.item()]
        for v in values:
            if not -size <= v < size:
                raise IndexError(f"index {v} is out of bounds for dimension {d} with size {size}")
        lists.append([v + size if v < 0 else v for v in values])
    rest = [i for i in range(view.dim()) if i not in dims]
    consecutive = dims == list(range(dims[0], dims[0] + len(dims)))
    before = [view.shape[i] for i in rest if consecutive and i < dims[0]]
    after = [view.shape[i] for i in rest if not (consecutive and i < dims[0])]
    out_shape = tuple(before) + bshape + tuple(after)
    lead = (slice(None),) * len(before)
    slots = []
    positions = itertools.product(*(range(n) for n in bshape)) if bshape else [()]
    for flat, pos in enumerate(positions):
        src = view
        for d, values in sorted(zip(dims, lists), key=lambda p: -p[0]):
            src = src.select(d, values[flat])
        slots.append((lead + pos, src))
    return out_shape, slots
