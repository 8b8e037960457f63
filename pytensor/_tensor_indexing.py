"""The Tensor part that indexes: t[index] and t[index] = value (pytensor/_indexing.py does the work).

``t[index]`` is the C base's subscript slot; it builds the common views itself
and calls ``_getitem`` by that name for everything else, so the name is part
of the contract with the shim.
"""
from __future__ import annotations

from ._indexing import getitem, setitem


class Indexing:
    """__setitem__ and _getitem (behind t[index])."""

    __slots__ = ()

    def __setitem__(self, index, value):
        setitem(self, index, value)

    # t[index] is the C base's subscript slot (the shim's tensor_subscript): t[i] and t[a:b:c]
    # on dim 0 of a tensor that does not require grad are built there; every
    # other index, and every error, comes here.
    def _getitem(self, index):
        return getitem(self, index)
