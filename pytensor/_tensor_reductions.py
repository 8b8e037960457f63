"""The Tensor part that reduces: sum, mean, all, any, equal (kernels in pytensor/_ops.py)."""
from __future__ import annotations

from . import _ops


class Reductions:
    """sum, mean, all, any, equal."""

    __slots__ = ()

    sum = _ops.reduce_sum
    mean = _ops.mean
    all = _ops.all_
    any = _ops.any_
    equal = _ops.equal
