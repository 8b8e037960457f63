"""The Tensor part that converts to Python and NumPy: tolist(), item(), int()/float()/bool(), numpy().

tolist() and item() copy into Python numbers; numpy(), __array__ and
__array_interface__ share the tensor's memory with NumPy (read-only stays
read-only).
"""
from __future__ import annotations

import warnings
from typing import Any

from ._convert_out import array_interface, to_numpy, to_pylist
from ._ffi import shim

_fast_item = shim.item  # element 0 in one C call; it calls Conversion._item for what is rare
_fast_tolist = shim.tolist
_select_views = shim.select_views  # t.select(0, i) for every i, in one C call
_pin_for_numpy = shim.pin_for_numpy
_asarray = None  # numpy.asarray, imported on the first numpy() (import pytensor does not import NumPy)


def _load_asarray():
    global _asarray
    import numpy
    _asarray = numpy.asarray
    return _asarray


class Conversion:
    """tolist, __iter__, numpy, __array__; and the Python paths of item() and the number conversions.

    ``float(t)``, ``int(t)``, ``bool(t)``, ``operator.index(t)`` and ``complex(t)`` are the C base's
    (pytensor/_shim_types.c reads element 0 in one call), and ``item()`` is one call into the same code.
    It calls the methods ``_item``, ``_float``, ``_int``, ``_bool``, ``_index`` and ``_complex`` here for
    what is rare (their refusals, a lazy conjugate/negative bit, the float4, float() of a tensor that
    requires grad); these are the reference the tests compare the C path with. Defining ``__float__``
    and the others here would replace the C slots, so they keep these names.
    """

    __slots__ = ()

    def tolist(self) -> Any:
        """Nested Python lists of Python numbers (a copy); a scalar for 0-d tensors."""
        out = _fast_tolist(self)  # one C pass for the common dtypes; None: the Python path
        return to_pylist(self) if out is None else out

    def item(self) -> bool | int | float | complex:
        """The single element as a Python number."""
        return _fast_item(self)

    def _item(self) -> bool | int | float | complex:
        """The single element as a Python number (item()'s Python path)."""
        if self.numel() != 1:
            raise RuntimeError(f"a Tensor with {self.numel()} elements cannot be converted to Scalar")
        return to_pylist(self._view((), (), self._offset + 0))

    def _bool(self):
        n = self.numel()
        if n != 1:
            raise RuntimeError(f"Boolean value of Tensor with {'no values' if n == 0 else 'more than one value'} "
                               "is ambiguous; use .any() or .all() (or .numel()) to say which you mean")
        return bool(self._item())

    def _python_scalar(self, kind):
        """The single element for int()/float()/complex(), refused as torch refuses it: a
        ValueError unless there is exactly one element, and a RuntimeError for a complex
        value whose imaginary part int() or float() would drop."""
        n = self.numel()
        if n != 1:
            raise ValueError(f"only one element tensors can be converted to Python scalars; this one has {n} "
                             "(index it, or use .tolist())")
        value = self._item()
        if kind is not complex and isinstance(value, complex):
            if value.imag != 0:
                raise RuntimeError(f"value cannot be converted to type {kind.__name__} without overflow: {value} "
                                   "has a non-zero imaginary part; take .real first")
            value = value.real
        return value

    def _int(self):
        return int(self._python_scalar(int))

    def _float(self):
        if self._requires_grad:
            warnings.warn("Converting a tensor with requires_grad=True to a scalar may lead to unexpected "
                          "behavior.\nConsider using tensor.detach() first.", UserWarning, stacklevel=2)
        return float(self._python_scalar(float))

    def _complex(self):
        return complex(self._python_scalar(complex))

    def _index(self):
        if self._dtype.kind not in ("int", "uint", "bool") or self.numel() != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self._item())

    def __iter__(self):
        if not self._shape:
            raise TypeError("iteration over a 0-d tensor")
        if self._requires_grad:  # each row recorded by select's autograd wrapper, as it is made
            return (self.select(0, i) for i in range(self._shape[0]))
        return iter(_select_views(self, 0, 0))  # every row's view in one C call

    @property
    def __array_interface__(self):
        return array_interface(self)

    def numpy(self, *, force: bool = False) -> Any:
        """A NumPy array over the same memory (no copy); read-only when the storage is."""
        if _pin_for_numpy(self):  # host memory, no grad, no bits: pinned, as to_numpy pins it
            return (_asarray or _load_asarray())(self)
        return to_numpy(self, force)

    def __array__(self, dtype=None, copy=None):
        """NumPy 2's protocol: an array over this tensor's memory when it can be
        one; ``copy=True`` always copies, ``copy=None`` copies only for a dtype
        conversion, and ``copy=False`` refuses (ValueError) what needs a copy,
        so that writes through the result always reach the tensor."""
        arr = to_numpy(self)  # refuses a tensor that requires grad, as torch's __array__ (its numpy())
        if dtype is not None and arr.dtype != dtype:
            if copy is False:
                raise ValueError(f"Unable to avoid copy while creating an array as requested: the tensor is "
                                 f"{self.dtype.name} ({arr.dtype}) and dtype={dtype!r} needs a converted copy, "
                                 "which copy=False forbids")
            return arr.astype(dtype)
        if copy:
            return arr.copy()
        return arr
