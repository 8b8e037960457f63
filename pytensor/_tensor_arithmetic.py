"""The Tensor part that computes elementwise: + - * / (and their in-place and reflected forms), comparisons, neg.

The kernels are pytensor/_ops.py's (type promotion, broadcasting, one
libtensor call). Two conventions, as torch's: the methods (``t.add(x)``,
``t.eq(x)``) raise TypeError for what is no operand, while the operators
(``t + x``, ``t == x``) return NotImplemented, so Python decides as it does for
torch: ``==`` falls back to identity (False), ``!=`` to its negation, the rest raise TypeError.
"""
from __future__ import annotations

from ._core import TensorBase
from ._ops import _coerce, binary, inplace, neg as _neg, operand


def _operator(name):
    def method(self, other):
        return NotImplemented if operand(other) is None else binary(self, other, name)
    method.__name__ = name
    return method


def _reflected(name):
    def method(self, other):
        return NotImplemented if operand(other) is None else binary(other, self, name)
    method.__name__ = name
    return method


def _reflected_div(self, other):
    """``other / self`` as torch computes it for a Python number: ``self.reciprocal() * other``
    (the reciprocal rounded to the dtype first, then a product), so ``-257 / t`` rounds as
    torch's does. A complex self keeps the quotient (torch's complex reciprocal is its own
    kernel); a tensor or NumPy array other is a plain quotient."""
    x = operand(other)
    if x is None:
        return NotImplemented
    if isinstance(x, _NUMBERS) and not self._dtype.is_complex:
        return binary(binary(1, self, "div"), x, "mul")
    return binary(x, self, "div")


_NUMBERS = (bool, int, float, complex)


def _inplace_operator(name):
    def method(self, other):
        if operand(other) is None:
            return NotImplemented
        return inplace(self, other, name)
    return method


def _inplace(name):
    def method(self, other):
        return inplace(self, other, name)
    return method


def _method(name):
    def method(self, other):
        return binary(self, other, name)
    method.__name__ = name
    return method


class Arithmetic:
    """Operators and methods for add, sub, mul, div and the six comparisons."""

    __slots__ = ()

    __add__, __radd__, __iadd__, add_ = _operator("add"), _reflected("add"), _inplace_operator("add"), _inplace("add")
    __sub__, __rsub__, __isub__, sub_ = _operator("sub"), _reflected("sub"), _inplace_operator("sub"), _inplace("sub")
    __mul__, __rmul__, __imul__, mul_ = _operator("mul"), _reflected("mul"), _inplace_operator("mul"), _inplace("mul")
    __truediv__, __rtruediv__, __itruediv__, div_ = (_operator("div"), _reflected_div, _inplace_operator("div"),
                                                     _inplace("div"))

    __eq__, __ne__, __lt__, __le__, __gt__, __ge__ = (_operator(n) for n in ("eq", "ne", "lt", "le", "gt", "ge"))
    eq, ne, lt, le, gt, ge = (_method(n) for n in ("eq", "ne", "lt", "le", "gt", "ge"))

    def __hash__(self):
        # Defining __eq__ sets __hash__ to None; tensors hash by identity, as torch's (== is elementwise).
        return id(self)

    def add(self, other, *, alpha=1):
        """``self + alpha * other`` in a new tensor."""
        other = _coerce(other)
        return binary(self, other if alpha == 1 else binary(other, alpha, "mul") if isinstance(other, TensorBase)
                      else other * alpha, "add")

    def sub(self, other, *, alpha=1):
        """``self - alpha * other`` in a new tensor."""
        other = _coerce(other)
        return binary(self, other if alpha == 1 else binary(other, alpha, "mul") if isinstance(other, TensorBase)
                      else other * alpha, "sub")

    mul = multiply = _method("mul")
    div = divide = true_divide = _method("div")
    __neg__ = neg = _neg

    def __pos__(self):
        return self
