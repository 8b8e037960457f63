"""Factories: tensors in new memory (empty, zeros, ones, full, arange,
linspace, rand, randn and their *_like forms). None of them shares memory."""
from __future__ import annotations

import math
import operator
import random as _random
import struct
from collections.abc import Sequence

from . import dtypes as _dt
from ._convert import list_to_tensor
from ._core import Tensor, TensorBase, empty as _core_empty, make as _make, shape_args as _shape_args
from ._device import device as _device, require_cpu
from ._ffi import lib, shim
from ._layout import preserve_strides as _preserve_strides
from ._provenance import OP
from .errors import check

__all__ = ["empty", "zeros", "ones", "full", "arange", "linspace", "rand", "randn", "manual_seed",
           "empty_like", "zeros_like", "ones_like", "full_like", "rand_like", "randn_like", "eye"]

_rng = _random.Random(0)


def manual_seed(seed: int) -> _random.Random:
    """Seed the generator behind rand() and randn() (pytensor's own; values differ from torch's)."""
    _rng.seed(operator.index(seed))
    return _rng


_note = shim.prov_note
_P_FACTORY = OP["factory"]


def _finish(t, device, requires_grad, fn="factory", args=None):
    """The end of every factory: device check, requires_grad, and the
    provenance step ``fn(*args)`` (when args is given)."""
    require_cpu(device, fn)
    if args is not None:
        _note(t, _P_FACTORY, (fn, tuple(_plain_arg(a) for a in args)), None)
    if requires_grad:
        t.requires_grad_(True)
    return t


_PLAIN = (int, float, bool, complex, type(None))


def _plain_arg(a):
    """A factory argument to record: numbers and tuples of them as they are,
    anything else (a 0-d tensor, say) as the text ``<type>``, so that the
    record holds no tensor."""
    if a.__class__ in _PLAIN:
        return a
    if isinstance(a, (tuple, list)) and all(x.__class__ in _PLAIN for x in a):
        return tuple(a)
    return f"<{type(a).__name__}>"


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
    dt = _dt.dtype_arg("empty", dtype) or _dt.get_default_dtype()
    return _finish(_core_empty(size, dt), device, requires_grad, "empty", size)


def zeros(*size: int, dtype: _dt.dtype | str | None = None, device: str | _device | None = None, requires_grad: bool = False,
          **_ignored) -> Tensor:
    """A tensor of zeros in new memory.

    >>> import pytensor
    >>> pytensor.zeros(2, dtype=pytensor.int32)
    tensor([0, 0], dtype=pytensor.int32)
    """
    size = _check_size(_shape_args(size))
    dt = _dt.dtype_arg("zeros", dtype) or _dt.get_default_dtype()
    return _finish(_core_empty(size, dt, zero=True), device, requires_grad, "zeros", size)


def ones(*size: int, dtype: _dt.dtype | str | None = None, device: str | _device | None = None, requires_grad: bool = False,
         **_ignored) -> Tensor:
    """A tensor of ones in new memory.

    >>> import pytensor
    >>> pytensor.ones(3)
    tensor([1., 1., 1.])
    """
    t = empty(*size, dtype=dtype, device=device)
    return _finish(t.fill_(1), None, requires_grad, "ones", size)


def full(size: Sequence[int], fill_value: complex, *, dtype: _dt.dtype | str | None = None, device: str | _device | None = None,
         requires_grad: bool = False, **_ignored) -> Tensor:
    """A tensor of ``fill_value`` in new memory; the dtype follows the value when not given.

    >>> import pytensor
    >>> pytensor.full((2,), 7)
    tensor([7, 7])
    """
    dt = _dt.dtype_arg("full", dtype) or _dt.scalar_dtype(fill_value)
    t = empty(size, dtype=dt, device=device)
    return _finish(t.fill_(fill_value), None, requires_grad, "full", (size, fill_value))


def _like(t, dtype):
    return tuple(t.shape), (_dt.dtype_arg("*_like", dtype) or t.dtype)


def _new_like(input, dtype, zero, fn):
    """New memory shaped like ``input`` and laid out as torch's preserve_format
    lays it out (a dense input's strides; libtensor's lt_layout_preserve_strides)."""
    shape, dt = _like(input, dtype)
    _check_size(shape)
    strides = _preserve_strides(shape, input.stride())
    t = _core_empty(shape, dt, zero=zero)
    return t if strides == t._strides else _make(t.untyped_storage(), dt, shape, strides, 0)


def empty_like(input: Tensor, *, dtype: _dt.dtype | str | None = None, device: str | _device | None = None, requires_grad: bool = False,
               **_ignored) -> Tensor:
    """New uninitialised memory with ``input``'s shape, dtype and layout (never shares).

    >>> import pytensor
    >>> pytensor.empty_like(pytensor.zeros(2, 3).T).stride()
    (1, 3)
    """
    return _finish(_new_like(input, dtype, False, "empty_like"), device, requires_grad, "empty_like", ())


def zeros_like(input: Tensor, *, dtype: _dt.dtype | str | None = None, device: str | _device | None = None, requires_grad: bool = False,
               **_ignored) -> Tensor:
    """New zeros with ``input``'s shape, dtype and layout (never shares)."""
    return _finish(_new_like(input, dtype, True, "zeros_like"), device, requires_grad, "zeros_like", ())


def ones_like(input: Tensor, *, dtype: _dt.dtype | str | None = None, device: str | _device | None = None, requires_grad: bool = False,
              **_ignored) -> Tensor:
    """New ones with ``input``'s shape, dtype and layout (never shares)."""
    t = _new_like(input, dtype, False, "ones_like").fill_(1)
    return _finish(t, device, requires_grad, "ones_like", ())


def full_like(input: Tensor, fill_value: complex, *, dtype: _dt.dtype | str | None = None, device: str | _device | None = None,
              requires_grad: bool = False, **_ignored) -> Tensor:
    """New memory filled with ``fill_value``, shaped and laid out like ``input`` (never shares)."""
    if dtype is None:
        dtype = input.dtype
    t = _new_like(input, dtype, False, "full_like").fill_(fill_value)
    return _finish(t, device, requires_grad, "full_like", (fill_value,))


def rand_like(input: Tensor, *, dtype: _dt.dtype | str | None = None, device: str | _device | None = None, requires_grad: bool = False,
              **_ignored) -> Tensor:
    shape, dt = _like(input, dtype)
    return rand(shape, dtype=dt, device=device, requires_grad=requires_grad)


def randn_like(input: Tensor, *, dtype: _dt.dtype | str | None = None, device: str | _device | None = None, requires_grad: bool = False,
               **_ignored) -> Tensor:
    shape, dt = _like(input, dtype)
    return randn(shape, dtype=dt, device=device, requires_grad=requires_grad)


# Samples are drawn this many at a time, so a large tensor costs its own
# memory plus one chunk of Python numbers (1-4 MiB), not a Python list of
# every sample (8 to 15 times the tensor).
_SAMPLE_CHUNK = 1 << 15


def _random_fill(size, dtype, draw, name):
    size = _check_size(_shape_args(size))
    dt = _dt.dtype_arg(name, dtype) or _dt.get_default_dtype()
    if not (dt.is_floating_point or dt.is_complex):
        raise NotImplementedError(f"\"{name}\" not implemented for '{dt.name}'")
    def samples(count):
        if dt.is_complex:
            return list_to_tensor([complex(draw(), draw()) for _ in range(count)], dt)
        return list_to_tensor([draw() for _ in range(count)], dt)

    n = math.prod(size)
    if n <= _SAMPLE_CHUNK:
        return samples(n).view(size)
    out = _core_empty(size, dt)
    flat = out.view(-1)
    for first in range(0, n, _SAMPLE_CHUNK):
        count = min(_SAMPLE_CHUNK, n - first)
        flat[first:first + count].copy_(samples(count))
    return out


def rand(*size: int, dtype: _dt.dtype | str | None = None, device: str | _device | None = None, requires_grad: bool = False,
         generator: _random.Random | None = None, **_ignored) -> Tensor:
    """New memory filled with uniform samples from [0, 1).

    >>> import pytensor
    >>> _ = pytensor.manual_seed(0)
    >>> v = pytensor.rand(100).tolist(); 0 <= min(v) and max(v) < 1
    True
    """
    t = _random_fill(size, dtype, _rng.random, "check_uniform_bounds")
    return _finish(t, device, requires_grad, "rand", size)


def randn(*size: int, dtype: _dt.dtype | str | None = None, device: str | _device | None = None, requires_grad: bool = False,
          generator: _random.Random | None = None, **_ignored) -> Tensor:
    """New memory filled with standard normal samples."""
    t = _random_fill(size, dtype, lambda: _rng.gauss(0.0, 1.0), "normal_kernel_cpu")
    return _finish(t, device, requires_grad, "randn", size)


def arange(start: float, end: float | None = None, step: float = 1, *, dtype: _dt.dtype | str | None = None,
           device: str | _device | None = None, requires_grad: bool = False, **_ignored) -> Tensor:
    """``[start, end)`` every ``step``, in new memory; int64 unless an argument is a float.

    >>> import pytensor
    >>> pytensor.arange(1, 2.5, 0.5)
    tensor([1.0000, 1.5000, 2.0000])
    """
    given = (start,) if end is None else (start, end) if step == 1 else (start, end, step)
    if end is None:
        start, end = 0, start
    args = [a.item() if isinstance(a, TensorBase) else a for a in (start, end, step)]
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
        dt = _dt.dtype_arg("arange", dtype)
    if dt.kind in ("float8", "float4"):
        raise NotImplementedError(f"arange() is not implemented for {dt.name}, as in torch; make it in float32 "
                                  "and convert with .to()")
    n = max(math.ceil((end - start) / step), 0)
    out = _core_empty((n,), dt)
    if n:
        start_bytes, step_bytes, code = _arange_operands(start, step, n, dt)
        check(lib.lt_fill_arange(out._storage._ptr, dt.code, n, start_bytes, step_bytes, code))
    return _finish(out, device, requires_grad, "arange", given)


def _arange_operands(start, step, n, dt):
    """(start, step, arithmetic dtype) for lt_fill_arange: exact 64-bit
    integers when start and step are ints (uint64 bits for a uint64 result
    past int64), else doubles."""
    if not (isinstance(start, int) and isinstance(step, int)):
        return struct.pack("d", float(start)), struct.pack("d", float(step)), lib.LT_FLOAT64
    lo, hi = sorted((start, start + (n - 1) * step))
    if -2**63 <= lo and hi < 2**63:
        return struct.pack("q", start), struct.pack("q", step), lib.LT_INT64
    if dt is _dt.uint64 and 0 <= lo and hi < 2**64:
        return struct.pack("Q", start), struct.pack("Q", step % 2**64), lib.LT_UINT64
    raise ValueError("Overflow when unpacking long long")


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
    dt = _dt.dtype_arg("linspace", dtype) or _dt.get_default_dtype()
    if dt.kind in ("float8", "float4"):
        raise NotImplementedError(f"linspace() is not implemented for {dt.name}, as in torch; make it in float32 "
                                  "and convert with .to()")
    out = _core_empty((steps,), dt)
    if steps:
        ends = (start, end)
        if any(isinstance(v, complex) for v in ends):
            code, fmt = lib.LT_COMPLEX128, "dd"
            parts = [complex(v) for v in ends]
            start_bytes, end_bytes = (struct.pack(fmt, v.real, v.imag) for v in parts)
        else:
            code, fmt = lib.LT_FLOAT64, "d"
            if dt.kind in ("int", "uint") and not all(-2**63 <= v < 2**63 for v in ends):
                # Integer results pass through int64 (see lt_fill_linspace);
                # every value lies between the two ends.
                raise ValueError("Overflow when unpacking long long")
            start_bytes, end_bytes = (struct.pack(fmt, float(v)) for v in ends)
        check(lib.lt_fill_linspace(out._storage._ptr, dt.code, steps, start_bytes, end_bytes, code))
    return _finish(out, device, requires_grad, "linspace", (start, end, steps))


def eye(n: int, m: int | None = None, *, dtype: _dt.dtype | str | None = None, device: str | _device | None = None,
        requires_grad: bool = False, **_ignored) -> Tensor:
    """The identity matrix in new memory."""
    given = (n,) if m is None else (n, m)
    m = n if m is None else m
    t = zeros(n, m, dtype=dtype, device=device)
    t.diagonal().fill_(1)
    return _finish(t, None, requires_grad, "eye", given)
