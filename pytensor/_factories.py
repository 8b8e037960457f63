"""Factories: tensors in new memory (empty, zeros, ones, full, arange,
linspace, rand, randn and their *_like forms). None of them shares memory."""
from __future__ import annotations

import math
import operator
import random as _random
from collections.abc import Sequence

from . import dtypes as _dt
from ._convert import list_to_tensor
from .tensor import Tensor, _shape_args, device as _device

__all__ = ["empty", "zeros", "ones", "full", "arange", "linspace", "rand", "randn", "manual_seed",
           "empty_like", "zeros_like", "ones_like", "full_like", "rand_like", "randn_like", "eye"]

_rng = _random.Random(0)


def manual_seed(seed: int) -> _random.Random:
    """Seed the generator behind rand() and randn() (pytensor's own; values differ from torch's)."""
    _rng.seed(operator.index(seed))
    return _rng


def _finish(t, device, requires_grad):
    if device is not None and _device(device).type != "cpu":
        raise RuntimeError(f"pytensor creates tensors on the CPU only, not on {device}")
    if requires_grad:
        t.requires_grad_(True)
    return t


def _check_size(size):
    for n in size:
        if n < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {n}: {list(size)}")
    return size


def empty(*size: int, dtype: _dt.dtype | str | None = None, device: str | _device | None = None, requires_grad: bool = False,
          **_ignored) -> Tensor:
    """A tensor in new memory, left uninitialised.

    >>> import pytensor
    >>> pytensor.empty(2, 3).shape
    pytensor.Size([2, 3])
    """
    size = _check_size(_shape_args(size))
    dt = _dt.as_dtype(dtype) if dtype is not None else _dt.get_default_dtype()
    return _finish(Tensor._empty(size, dt), device, requires_grad)


def zeros(*size: int, dtype: _dt.dtype | str | None = None, device: str | _device | None = None, requires_grad: bool = False,
          **_ignored) -> Tensor:
    """A tensor of zeros in new memory.

    >>> import pytensor
    >>> pytensor.zeros(2, dtype=pytensor.int32)
    tensor([0, 0], dtype=pytensor.int32)
    """
    size = _check_size(_shape_args(size))
    dt = _dt.as_dtype(dtype) if dtype is not None else _dt.get_default_dtype()
    return _finish(Tensor._empty(size, dt, zero=True), device, requires_grad)


def ones(*size: int, dtype: _dt.dtype | str | None = None, device: str | _device | None = None, requires_grad: bool = False,
         **_ignored) -> Tensor:
    """A tensor of ones in new memory.

    >>> import pytensor
    >>> pytensor.ones(3)
    tensor([1., 1., 1.])
    """
    t = empty(*size, dtype=dtype, device=device)
    return _finish(t.fill_(1), None, requires_grad)


def full(size: Sequence[int], fill_value: complex, *, dtype: _dt.dtype | str | None = None, device: str | _device | None = None,
         requires_grad: bool = False, **_ignored) -> Tensor:
    """A tensor of ``fill_value`` in new memory; the dtype follows the value when not given.

    >>> import pytensor
    >>> pytensor.full((2,), 7)
    tensor([7, 7])
    """
    dt = _dt.as_dtype(dtype) if dtype is not None else _dt.scalar_dtype(fill_value)
    t = empty(size, dtype=dt, device=device)
    return _finish(t.fill_(fill_value), None, requires_grad)


def _like(t, dtype):
    return tuple(t.shape), (_dt.as_dtype(dtype) if dtype is not None else t.dtype)


def empty_like(input: Tensor, *, dtype: _dt.dtype | str | None = None, device: str | _device | None = None, requires_grad: bool = False,
               **_ignored) -> Tensor:
    """New uninitialised memory with ``input``'s shape and dtype (never shares)."""
    shape, dt = _like(input, dtype)
    return empty(shape, dtype=dt, device=device, requires_grad=requires_grad)


def zeros_like(input: Tensor, *, dtype: _dt.dtype | str | None = None, device: str | _device | None = None, requires_grad: bool = False,
               **_ignored) -> Tensor:
    """New zeros with ``input``'s shape and dtype (never shares)."""
    shape, dt = _like(input, dtype)
    return zeros(shape, dtype=dt, device=device, requires_grad=requires_grad)


def ones_like(input: Tensor, *, dtype: _dt.dtype | str | None = None, device: str | _device | None = None, requires_grad: bool = False,
              **_ignored) -> Tensor:
    """New ones with ``input``'s shape and dtype (never shares)."""
    shape, dt = _like(input, dtype)
    return ones(shape, dtype=dt, device=device, requires_grad=requires_grad)


def full_like(input: Tensor, fill_value: complex, *, dtype: _dt.dtype | str | None = None, device: str | _device | None = None,
              requires_grad: bool = False, **_ignored) -> Tensor:
    """New memory filled with ``fill_value``, shaped like ``input`` (never shares)."""
    shape, dt = _like(input, dtype)
    return full(shape, fill_value, dtype=dt, device=device, requires_grad=requires_grad)


def rand_like(input: Tensor, *, dtype: _dt.dtype | str | None = None, device: str | _device | None = None, requires_grad: bool = False,
              **_ignored) -> Tensor:
    shape, dt = _like(input, dtype)
    return rand(shape, dtype=dt, device=device, requires_grad=requires_grad)


def randn_like(input: Tensor, *, dtype: _dt.dtype | str | None = None, device: str | _device | None = None, requires_grad: bool = False,
               **_ignored) -> Tensor:
    shape, dt = _like(input, dtype)
    return randn(shape, dtype=dt, device=device, requires_grad=requires_grad)


def _random_fill(size, dtype, draw, name):
    size = _check_size(_shape_args(size))
    dt = _dt.as_dtype(dtype) if dtype is not None else _dt.get_default_dtype()
    if not (dt.is_floating_point or dt.is_complex):
        raise NotImplementedError(f"\"{name}\" not implemented for '{dt.name}'")
    n = math.prod(size)
    if dt.is_complex:
        values = [complex(draw(), draw()) for _ in range(n)]
    else:
        values = [draw() for _ in range(n)]
    return list_to_tensor(values, dt).view(size)


def rand(*size: int, dtype: _dt.dtype | str | None = None, device: str | _device | None = None, requires_grad: bool = False,
         generator: _random.Random | None = None, **_ignored) -> Tensor:
    """New memory filled with uniform samples from [0, 1).

    >>> import pytensor
    >>> _ = pytensor.manual_seed(0)
    >>> v = pytensor.rand(100).tolist(); 0 <= min(v) and max(v) < 1
    True
    """
    t = _random_fill(size, dtype, _rng.random, "check_uniform_bounds")
    return _finish(t, device, requires_grad)


def randn(*size: int, dtype: _dt.dtype | str | None = None, device: str | _device | None = None, requires_grad: bool = False,
          generator: _random.Random | None = None, **_ignored) -> Tensor:
    """New memory filled with standard normal samples."""
    t = _random_fill(size, dtype, lambda: _rng.gauss(0.0, 1.0), "normal_kernel_cpu")
    return _finish(t, device, requires_grad)


def arange(start: float, end: float | None = None, step: float = 1, *, dtype: _dt.dtype | str | None = None,
           device: str | _device | None = None, requires_grad: bool = False, **_ignored) -> Tensor:
    """``[start, end)`` every ``step``, in new memory; int64 unless an argument is a float.

    >>> import pytensor
    >>> pytensor.arange(1, 2.5, 0.5)
    tensor([1.0000, 1.5000, 2.0000])
    """
    if end is None:
        start, end = 0, start
    args = [a.item() if isinstance(a, Tensor) else a for a in (start, end, step)]
    start, end, step = args
    if step == 0:
        raise RuntimeError("step must be nonzero")
    for a in args:
        if isinstance(a, float) and not math.isfinite(a):
            raise RuntimeError(f"unsupported range: {start} -> {end}")
    if (end - start) * step < 0 and end != start:
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    if dtype is None:
        dt = _dt.get_default_dtype() if any(isinstance(a, float) for a in args) else _dt.int64
    else:
        dt = _dt.as_dtype(dtype)
    n = max(math.ceil((end - start) / step), 0)
    if isinstance(start, int) and isinstance(step, int):
        values = list(range(start, start + n * step, step))
    else:
        values = [start + i * step for i in range(n)]
    return _finish(list_to_tensor(values, dt), device, requires_grad)


def linspace(start: float, end: float, steps: int, *, dtype: _dt.dtype | str | None = None, device: str | _device | None = None,
             requires_grad: bool = False, **_ignored) -> Tensor:
    """``steps`` evenly spaced values from start to end inclusive, in new memory.

    >>> import pytensor
    >>> pytensor.linspace(0, 1, 5)
    tensor([0.0000, 0.2500, 0.5000, 0.7500, 1.0000])
    """
    steps = operator.index(steps)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    dt = _dt.as_dtype(dtype) if dtype is not None else _dt.get_default_dtype()
    if steps == 1:
        values = [start]
    else:
        step = (end - start) / (steps - 1) if steps > 1 else 0
        half = steps // 2
        # torch fills the first half forward from start and the second half
        # backward from end, so both endpoints are exact.
        values = [start + i * step if i < half else end - (steps - 1 - i) * step for i in range(steps)]
    if dt.kind in ("int", "uint"):
        values = [int(v) for v in values]
    return _finish(list_to_tensor(values, dt), device, requires_grad)


def eye(n: int, m: int | None = None, *, dtype: _dt.dtype | str | None = None, device: str | _device | None = None,
        requires_grad: bool = False, **_ignored) -> Tensor:
    """The identity matrix in new memory."""
    m = n if m is None else m
    t = zeros(n, m, dtype=dtype, device=device)
    t.diagonal().fill_(1)
    return _finish(t, None, requires_grad)
