"""The Tensor part for Python's object protocols: pickle, copy.copy, copy.deepcopy.

A tensor pickles as its fields plus its :class:`UntypedStorage` *object*, so
pickle's memo sends each storage once however many views of it are pickled
together, and ``[x, x[1:], x.T]`` unpickles as three views of one storage.
The storage decides how its bytes travel (``UntypedStorage.__reduce_ex__``):
in-band at protocols 0-4, as one ``pickle.PickleBuffer`` at protocol 5, which
a ``buffer_callback`` (Ray, Dask, ...) takes out of band without a copy.

Unpickling checks the view as every view is checked where it is made
(libtensor's ``lt_layout_check``), so a hostile pickle whose view does not
fit its bytes raises, as any other view would. The buffer protocol itself (``memoryview(t)``) is
the C base's (``_shim_buffer.c``).
"""
from __future__ import annotations

import copy
import operator

from . import dtypes as _dt
from ._core import check_int64, make
from ._ffi import lib
from ._storage import UntypedStorage
from .errors import check

_LEAF_ONLY = ("{what} of a tensor that is not a graph leaf (grad_fn={fn}) is refused, as torch refuses it: "
              "autograd history cannot be {how}. Use .detach() to {what_short} the data alone.")


def _refuse_non_leaf(t, what, how, what_short):
    if t._grad_fn is not None:
        raise RuntimeError(_LEAF_ONLY.format(what=what, fn=type(t._grad_fn).__name__, how=how, what_short=what_short))


def _rebuild_tensor(storage, dtype_name, shape, strides, storage_offset, requires_grad, bits=0):
    """The tensor a pickle describes: a view of ``storage`` (already rebuilt, shared by every view pickled with
    it). Every argument is checked: a pickle is data from outside."""
    if not isinstance(storage, UntypedStorage):
        raise TypeError(f"pickled tensor: expected an UntypedStorage, got {type(storage).__name__}")
    dtype = _dt._by_name.get(dtype_name) if isinstance(dtype_name, str) else None
    if dtype is None:
        raise TypeError(f"pickled tensor: {dtype_name!r} is not a pytensor dtype name")
    if not isinstance(shape, tuple) or not isinstance(strides, tuple) or type(storage_offset) is not int:
        raise TypeError(f"pickled tensor: shape and strides must be tuples and the offset an int, got "
                        f"{type(shape).__name__}, {type(strides).__name__} and {type(storage_offset).__name__}")
    if requires_grad not in (True, False):
        raise TypeError(f"pickled tensor: requires_grad must be a bool, got {requires_grad!r}")
    try:
        shape, strides = tuple(map(operator.index, shape)), tuple(map(operator.index, strides))
    except TypeError:
        raise TypeError(f"pickled tensor: shape {shape!r} and strides {strides!r} must hold ints") from None
    if len(shape) != len(strides):
        raise RuntimeError(f"pickled tensor: {len(shape)} sizes but {len(strides)} strides")
    check_int64("size", shape), check_int64("stride", strides), check_int64("storage_offset", (storage_offset,))
    # Every view is checked against its storage where it is made (libtensor's lt_layout_check, the rule's one
    # home): negative extents, too many dimensions, overflow, or bytes past either end of the storage raise.
    # Negative strides pass when they stay inside, as a DLPack import of a flipped array may carry them.
    check(lib.lt_layout_check(len(shape), shape, strides, storage_offset, dtype.itemsize, storage._nbytes))
    t = make(storage, dtype, shape, strides, storage_offset)
    # the lazy conjugate/negative bits (pytensor/_conj.py), kept as torch's pickles keep them
    if type(bits) is not int or bits not in (0, 1, 2, 3) or (bits & 1 and not dtype.is_complex):
        raise TypeError(f"pickled tensor: bits must be 0 to 3 (conjugate: 1, complex dtypes only; negative: 2), "
                        f"got {bits!r} for {dtype.name}")
    t._bits = bits
    if requires_grad:
        t.requires_grad = True  # refuses dtypes that cannot require grad, as the property does
    return t


class Pickling:
    """__reduce_ex__ (pickle), __copy__ and __deepcopy__."""

    __slots__ = ()

    def __reduce_ex__(self, protocol):
        """(rebuild, (storage, dtype name, shape, strides, offset, requires_grad)); the storage pickles itself once.

        >>> import pickle, pytensor
        >>> x = pytensor.arange(6).view(2, 3)
        >>> a, b = pickle.loads(pickle.dumps([x, x.T]))
        >>> b.untyped_storage() is a.untyped_storage(), b.stride()
        (True, (1, 3))
        """
        _refuse_non_leaf(self, "Pickling", "pickled", "pickle")
        self._storage._check_host()
        return (_rebuild_tensor, (self._storage, self._dtype.name, self._shape, self._strides, self._offset,
                                  self._requires_grad) + ((self._bits,) if self._bits else ()))

    def __copy__(self):
        """A new view of the same storage, with requires_grad but no grad and no history (as torch's copy.copy).

        >>> import copy, pytensor
        >>> x = pytensor.zeros(3); y = copy.copy(x); y[0] = 1.0
        >>> x[0].item(), y is x
        (1.0, False)
        """
        t = make(self._storage, self._dtype, self._shape, self._strides, self._offset)
        t._requires_grad, t._bits = self._requires_grad, self._bits
        return t

    def __deepcopy__(self, memo):
        """A view of a deep copy of the storage (one per storage: views copied together stay views of one
        copy), with requires_grad and a deep copy of grad. The copy is new memory and writable.

        >>> import copy, pytensor
        >>> x = pytensor.arange(4); a, b = copy.deepcopy([x, x[1:]])
        >>> b.untyped_storage() is a.untyped_storage(), a.data_ptr() != x.data_ptr()
        (True, True)
        """
        _refuse_non_leaf(self, "Deep-copying", "deep-copied", "copy")
        storage = copy.deepcopy(self._storage, memo)
        t = make(storage, self._dtype, self._shape, self._strides, self._offset)
        t._requires_grad, t._bits = self._requires_grad, self._bits
        if self._grad is not None:
            t._grad = copy.deepcopy(self._grad, memo)
        return t
