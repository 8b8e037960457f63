"""The Tensor part that indexes: t[index], t[index] = value, and the gather
family's methods (pytensor/_indexing.py and pytensor/_gather_ops.py do the work).

``t[index]`` is the C base's subscript slot; it builds the common views itself
and calls ``_getitem`` by that name for everything else, so the name is part
of the contract with the shim.
"""
from __future__ import annotations

from . import _gather_ops as _g
from ._core import TensorBase
from ._ffi import shim
from ._indexing import getitem, setitem

# t[idx] with one int64 index tensor, t[mask], t[idx] = v and t[mask] = number in one crossing
# (pytensor/_shim_index.c); None declines to the Python rules in _indexing.
_fast_take, _fast_put_index, _fast_put_mask, _note_write = shim.take_index, shim.put_index, shim.put_mask, \
    shim.note_write
_fast_take_mask = shim.take_mask  # t[mask] with a bool mask of t's shape
_GETITEM = 3


class Indexing:
    """__setitem__ and _getitem (behind t[index]); index_select, gather, take, masked_select,
    nonzero, where, flip, roll, index_put_ (copies, as in torch)."""

    __slots__ = ()

    def __setitem__(self, index, value):
        if isinstance(index, TensorBase) and (_fast_put_index(self, index, value, False) is not None or
                                              _fast_put_mask(self, index, value) is not None):
            _note_write(self)
            return
        setitem(self, index, value)

    # t[index] is the C base's subscript slot (the shim's tensor_subscript): t[i] and t[a:b:c]
    # on dim 0 of a tensor that does not require grad are built there; every
    # other index, and every error, comes here.
    def _getitem(self, index):
        if isinstance(index, TensorBase):
            r = _fast_take(_GETITEM, self, 0, index)
            if r is None:
                r = _fast_take_mask(1, self, index)
            if r is not None:
                return r
        return getitem(self, index)

    def index_select(self, dim, index):
        return _g.index_select(self, dim, index)

    def gather(self, dim, index, *, sparse_grad=False):
        return _g.gather(self, dim, index)

    def take(self, index):
        return _g.take(self, index)

    def masked_select(self, mask):
        return _g.masked_select(self, mask)

    def nonzero(self, *, as_tuple=False):
        return _g.nonzero(self, as_tuple=as_tuple)

    def where(self, condition, other):
        """``self`` where ``condition`` is true, else ``other`` (torch's Tensor.where)."""
        return _g.where(condition, self, other)

    def flip(self, *dims):
        return _g.flip(self, dims[0] if len(dims) == 1 and not isinstance(dims[0], int) else dims)

    def roll(self, shifts, dims=None):
        return _g.roll(self, shifts, dims)

    def index_put_(self, indices, values, accumulate=False):
        return _g.index_put_(self, indices, values, accumulate)

    def index_put(self, indices, values, accumulate=False):
        """index_put_ on a clone."""
        return _g.index_put_(self.clone(), indices, values, accumulate)
