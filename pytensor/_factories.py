"""Factories: tensors in new memory (empty, zeros, ones, full, arange,
linspace, rand, randn, randint, randperm and their *_like forms). None of
them shares memory. The random ones draw from _generator's generators."""
from __future__ import annotations

import math
import operator
import struct
import warnings
from collections.abc import Sequence

from . import dtypes as _dt
from ._core import Tensor, TensorBase, empty as _core_empty, make as _make, shape_args as _shape_args
from ._device import device as _device, require_cpu
from ._ffi import lib, shim
from ._generator import Generator, fill_int, fill_normal, fill_perm, fill_uniform, manual_seed
from ._layout import preserve_strides as _preserve_strides
from ._provenance import OP
from .errors import check

__all__ = ["empty", "zeros", "ones", "full", "arange", "linspace", "rand", "randn", "randint", "randperm",
           "manual_seed", "empty_like", "zeros_like", "ones_like", "full_like", "rand_like", "randn_like",
           "randint_like", "eye"]

_note = shim.prov_note
# filled(size, dtype, value, prov_arg[, like]): a new tensor in one crossing for the common case (plain int
# sizes, a plain number, no device or requires_grad); None: declined, and the full path below decides.
_filled = shim.filled
_arange_int = shim.arange_int  # arange of small plain ints as int64 in one C call; None: the full path
# random_new(kind 0 rand / 1 randn, size, dtype, generator, prov_arg, like), randint_new(low, high, size, dtype,
# generator, prov_arg, like) and randperm_new(n, dtype, generator, prov_arg): the random factories in one
# crossing (pytensor/_shim_random.c); None: declined
_random_new, _randint_new, _randperm_new = shim.random_new, shim.randint_new, shim.randperm_new
_default_dtype = _dt.get_default_dtype
_P_FACTORY = OP["factory"]
_P_DIAGONAL = OP["diagonal"]


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
_FILL_FAST = (int, float, bool)  # the fill values the one-call path takes (it declines what it cannot convert)


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


def _size_of(name, size, kwargs):
    """A factory's shape arguments: its positional sizes, else torch's ``size=`` keyword (taken out of
    ``kwargs``); neither is torch's TypeError, not a 0-d tensor (``zeros(())`` is the 0-d one)."""
    if size:
        return size
    if "size" in kwargs:
        return (kwargs.pop("size"),)
    raise TypeError(f'{name}() missing 1 required positional argument: "size"')


def empty(*size: int, dtype: _dt.dtype | str | None = None, device: str | _device | None = None, requires_grad: bool = False,
          **_ignored) -> Tensor:
    """A tensor in new memory, left uninitialised.

    >>> import pytensor
    >>> pytensor.empty(2, 3).shape
    pytensor.Size([2, 3])
    """
    size = _size_of("empty", size, _ignored)
    if device is None and not requires_grad and not _ignored and (dtype is None or dtype.__class__ is _dt.dtype):
        r = _filled(size, dtype or _default_dtype(), None, ("empty", size))
        if r is not None:
            return r
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
    size = _size_of("zeros", size, _ignored)
    if device is None and not requires_grad and not _ignored and (dtype is None or dtype.__class__ is _dt.dtype):
        r = _filled(size, dtype or _default_dtype(), 0, ("zeros", size))
        if r is not None:
            return r
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
    size = _size_of("ones", size, _ignored)
    if device is None and not requires_grad and not _ignored and (dtype is None or dtype.__class__ is _dt.dtype):
        r = _filled(size, dtype or _default_dtype(), 1, ("ones", size))
        if r is not None:
            return r
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
    if device is None and not requires_grad and not _ignored and size.__class__ is tuple \
            and fill_value.__class__ in _FILL_FAST:
        r = _filled((size,), dt, fill_value, ("full", (size, fill_value)))
        if r is not None:
            return r
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
    if device is None and not requires_grad and not _ignored and (dtype is None or dtype.__class__ is _dt.dtype) \
            and isinstance(input, TensorBase):
        r = _filled((), dtype or input._dtype, None, ("empty_like", ()), input)
        if r is not None:
            return r
    return _finish(_new_like(input, dtype, False, "empty_like"), device, requires_grad, "empty_like", ())


def zeros_like(input: Tensor, *, dtype: _dt.dtype | str | None = None, device: str | _device | None = None, requires_grad: bool = False,
               **_ignored) -> Tensor:
    """New zeros with ``input``'s shape, dtype and layout (never shares)."""
    if device is None and not requires_grad and not _ignored and (dtype is None or dtype.__class__ is _dt.dtype) \
            and isinstance(input, TensorBase):
        r = _filled((), dtype or input._dtype, 0, ("zeros_like", ()), input)
        if r is not None:
            return r
    return _finish(_new_like(input, dtype, True, "zeros_like"), device, requires_grad, "zeros_like", ())


def ones_like(input: Tensor, *, dtype: _dt.dtype | str | None = None, device: str | _device | None = None, requires_grad: bool = False,
              **_ignored) -> Tensor:
    """New ones with ``input``'s shape, dtype and layout (never shares)."""
    if device is None and not requires_grad and not _ignored and (dtype is None or dtype.__class__ is _dt.dtype) \
            and isinstance(input, TensorBase):
        r = _filled((), dtype or input._dtype, 1, ("ones_like", ()), input)
        if r is not None:
            return r
    t = _new_like(input, dtype, False, "ones_like").fill_(1)
    return _finish(t, device, requires_grad, "ones_like", ())


def full_like(input: Tensor, fill_value: complex, *, dtype: _dt.dtype | str | None = None, device: str | _device | None = None,
              requires_grad: bool = False, **_ignored) -> Tensor:
    """New memory filled with ``fill_value``, shaped and laid out like ``input`` (never shares)."""
    if dtype is None:
        dtype = input.dtype
    if device is None and not requires_grad and not _ignored and dtype.__class__ is _dt.dtype \
            and isinstance(input, TensorBase) and fill_value.__class__ in _FILL_FAST:
        r = _filled((), dtype, fill_value, ("full_like", (fill_value,)), input)
        if r is not None:
            return r
    t = _new_like(input, dtype, False, "full_like").fill_(fill_value)
    return _finish(t, device, requires_grad, "full_like", (fill_value,))


def _like_input(input, fn):
    if not isinstance(input, TensorBase):
        raise TypeError(f"{fn}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")


def _random_like(input, dtype, kernel, fn):
    """New memory laid out like ``input`` (empty_like's preserve_format: a dense input's strides) for a
    sampler; the samples then go in memory order, as torch's iterator visits a dense tensor."""
    _like_input(input, fn)
    dt = _dt.dtype_arg(fn, dtype) or input.dtype
    _sampled_dtype(dt, kernel)
    return _new_like(input, dt, False, "*_like")


def rand_like(input: Tensor, *, generator: Generator | None = None, dtype: _dt.dtype | str | None = None,
              device: str | _device | None = None, requires_grad: bool = False, **_ignored) -> Tensor:
    """New uniform samples from [0, 1) shaped and laid out like ``input`` (never shares)."""
    if device is None and not requires_grad and not _ignored and (dtype is None or dtype.__class__ is _dt.dtype) \
            and isinstance(input, TensorBase):
        r = _random_new(0, (), dtype or input._dtype, generator, ("rand_like", ()), input)
        if r is not None:
            return r
    require_cpu(device, "rand_like")  # before any memory is filled
    t = _random_like(input, dtype, "check_uniform_bounds", "rand_like")
    fill_uniform(t, 0.0, 1.0, generator, "rand_like")
    return _finish(t, device, requires_grad, "rand_like", ())


def randn_like(input: Tensor, *, generator: Generator | None = None, dtype: _dt.dtype | str | None = None,
               device: str | _device | None = None, requires_grad: bool = False, **_ignored) -> Tensor:
    """New standard normal samples shaped and laid out like ``input`` (never shares)."""
    if device is None and not requires_grad and not _ignored and (dtype is None or dtype.__class__ is _dt.dtype) \
            and isinstance(input, TensorBase):
        r = _random_new(1, (), dtype or input._dtype, generator, ("randn_like", ()), input)
        if r is not None:
            return r
    require_cpu(device, "randn_like")
    t = _random_like(input, dtype, "normal_kernel_cpu", "randn_like")
    # a layout other than row-major takes torch's scalar path (as normal_ of such a view does)
    fill_normal(t, 0.0, 1.0, generator, "randn_like", t.is_contiguous())
    return _finish(t, device, requires_grad, "randn_like", ())


def randint_like(input: Tensor, low: int = 0, high: int | None = None, *, generator: Generator | None = None,
                 dtype: _dt.dtype | str | None = None, device: str | _device | None = None,
                 requires_grad: bool = False, **_ignored) -> Tensor:
    """New integers from [low, high) shaped and laid out like ``input``, in its dtype (never shares)."""
    if high is None:
        low, high = 0, low
    if device is None and not requires_grad and not _ignored and (dtype is None or dtype.__class__ is _dt.dtype) \
            and isinstance(input, TensorBase):
        r = _randint_new(low, high, (), dtype or input._dtype, generator, ("randint_like", (low, high)), input)
        if r is not None:
            return r
    _like_input(input, "randint_like")
    dt = _randint_dtype(_dt.dtype_arg("randint_like", dtype) or input.dtype)
    require_cpu(device, "randint_like")
    low, high = _int_bounds(dt, low, high, "randint_like")
    t = _new_like(input, dt, False, "randint_like")
    fill_int(t, low, high, generator, "randint_like")
    return _finish(t, device, requires_grad, "randint_like", (low, high))


_SAMPLED = frozenset(("float16", "bfloat16", "float32", "float64", "complex64", "complex128"))


def _sampled_dtype(dt, name):
    """torch's NotImplementedError, naming the kernel, for a dtype the float samplers do not fill."""
    if dt.name not in _SAMPLED:
        raise NotImplementedError(f"\"{name}\" not implemented for '{dt.name}': random samples come in "
                                  "float16, bfloat16, float32, float64, complex64 and complex128")


def _random_tensor(size, dtype, name):
    """New memory of ``size`` in ``dtype`` (the default dtype when None), for a
    float sampler: torch's NotImplementedError names the kernel for others."""
    size = _check_size(_shape_args(size))
    dt = _dt.dtype_arg(name, dtype) or _dt.get_default_dtype()
    _sampled_dtype(dt, name)
    return _core_empty(size, dt)


def rand(*size: int, generator: Generator | None = None, dtype: _dt.dtype | str | None = None,
         device: str | _device | None = None, requires_grad: bool = False, **_ignored) -> Tensor:
    """New memory filled with uniform samples from [0, 1), torch's numbers for the same seed.

    >>> import pytensor
    >>> _ = pytensor.manual_seed(0)
    >>> pytensor.rand(3)
    tensor([0.4963, 0.7682, 0.0885])
    """
    size = _size_of("rand", size, _ignored)
    if device is None and not requires_grad and not _ignored and (dtype is None or dtype.__class__ is _dt.dtype):
        r = _random_new(0, size, dtype or _default_dtype(), generator, ("rand", size), None)
        if r is not None:
            return r
    require_cpu(device, "rand")  # before any memory is filled
    t = _random_tensor(size, dtype, "check_uniform_bounds")
    fill_uniform(t, 0.0, 1.0, generator, "rand")
    return _finish(t, device, requires_grad, "rand", size)


def randn(*size: int, generator: Generator | None = None, dtype: _dt.dtype | str | None = None,
          device: str | _device | None = None, requires_grad: bool = False, **_ignored) -> Tensor:
    """New memory filled with standard normal samples, torch's numbers for the same seed.

    >>> import pytensor
    >>> _ = pytensor.manual_seed(0)
    >>> pytensor.randn(2, dtype=pytensor.float64)
    tensor([ 1.5410, -0.2934], dtype=pytensor.float64)
    """
    size = _size_of("randn", size, _ignored)
    if device is None and not requires_grad and not _ignored and (dtype is None or dtype.__class__ is _dt.dtype):
        r = _random_new(1, size, dtype or _default_dtype(), generator, ("randn", size), None)
        if r is not None:
            return r
    require_cpu(device, "randn")  # before any memory is filled
    t = _random_tensor(size, dtype, "normal_kernel_cpu")
    fill_normal(t, 0.0, 1.0, generator, "randn")
    return _finish(t, device, requires_grad, "randn", size)


_DIGITS = {"float16": 11, "bfloat16": 8, "float32": 24, "float64": 53}


def _round_to_digits(v, digits):
    """The int v rounded to ``digits`` significant bits, ties to even (a
    conversion of an int64 to a float of that precision, range aside)."""
    a = abs(v)
    drop = a.bit_length() - digits
    if drop <= 0:
        return v
    q, r = divmod(a, 1 << drop)
    half = 1 << (drop - 1)
    if r > half or (r == half and q & 1):
        q += 1
    return (q << drop) * (1 if v >= 0 else -1)


def _float_ends(low, high, digits):
    """torch's update_from/update_to: an end whose neighbour (low + 1,
    high - 1) rounds past it in the float dtype moves inward by one unit of
    that neighbour's last place, so every drawn integer rounds inside [low, high)."""
    up = _round_to_digits(low + 1, digits)
    if up < low:
        low = up + (1 << (abs(low + 1).bit_length() - 1 - digits + 1))
    down = _round_to_digits(high - 1, digits)
    if down >= high:
        high = down - (1 << (abs(high - 1).bit_length() - 1 - digits + 1))
    return low, high


def _int_bounds(dt, low, high, fn):
    """(low, high) as ints, checked as torch checks them: low < high, both in
    int64, and low and high - 1 representable in ``dt``."""
    low, high = operator.index(low), operator.index(high)
    if low >= high:
        raise RuntimeError(f"{fn}: expects 'from' to be less than 'to', but got from={low} >= to={high}")
    if not (-2**63 <= low and high <= 2**63 - 1):
        raise RuntimeError(f"{fn}: the bounds from={low}, to={high} must fit int64")
    if dt.is_floating_point:
        # torch warns past 2**digits (integers there are not all representable)
        # and refuses only what overflows the dtype: float16 stops at 65504
        digits = _DIGITS[dt.name]
        low, high = _float_ends(low, high, digits)
        if low >= high:
            raise RuntimeError(f"{fn}: expects 'from' to be less than 'to', but got from={low} >= to={high} once "
                               f"both are rounded to {dt.name}")
        for name, v in (("from", low), ("to - 1", high - 1)):
            if abs(v) > 2**digits:
                warnings.warn(f"{fn}: {name} = {v} is out of bounds [-(2^{digits}), 2^{digits}]: {dt.name} holds "
                              "every integer only within this range", UserWarning, stacklevel=3)
        lo, hi = (-65504, 65504) if dt is _dt.float16 else (-2**63, 2**63 - 1)
    elif dt is _dt.bool:
        lo, hi = 0, 1
    else:
        bits = dt.itemsize * 8
        lo, hi = (0, 2**bits - 1) if dt.name.startswith("uint") else (-(2**(bits - 1)), 2**(bits - 1) - 1)
    if not lo <= low <= hi:
        raise RuntimeError(f"{fn}: from={low} is out of bounds for {dt.name} ([{lo}, {hi}])")
    if not lo <= high - 1 <= hi:
        raise RuntimeError(f"{fn}: to - 1 = {high - 1} is out of bounds for {dt.name} ([{lo}, {hi}])")
    return low, high


def _randint_dtype(dt):
    if dt.is_complex or dt.kind in ("float8", "float4"):
        raise RuntimeError(f"randint: check_random_bounds handles only integral, floating-point and boolean "
                           f"types, not {dt.name}")
    return dt


def randint(low: int = 0, high: int | None = None, size: Sequence[int] | None = None, *,
            generator: Generator | None = None, dtype: _dt.dtype | str | None = None,
            device: str | _device | None = None, requires_grad: bool = False, **_ignored) -> Tensor:
    """New memory filled with integers drawn uniformly from [low, high) (int64 unless ``dtype``):
    ``randint(high, size)`` or ``randint(low, high, size)``, torch's numbers for the same seed.

    >>> import pytensor
    >>> _ = pytensor.manual_seed(0)
    >>> pytensor.randint(10, (5,))
    tensor([4, 9, 3, 0, 3])
    """
    if size is None:  # randint(high, size)
        if high is None:
            raise TypeError("randint() missing the size argument: randint(high, size) or randint(low, high, size)")
        low, high, size = 0, low, high
    if high is None:
        raise TypeError("randint() missing the high argument")
    if device is None and not requires_grad and not _ignored and size.__class__ is tuple \
            and (dtype is None or dtype.__class__ is _dt.dtype):
        r = _randint_new(low, high, (size,), dtype or _dt.int64, generator, ("randint", (low, high, size)), None)
        if r is not None:
            return r
    dt = _randint_dtype(_dt.dtype_arg("randint", dtype) or _dt.int64)
    require_cpu(device, "randint")
    low, high = _int_bounds(dt, low, high, "randint")
    size = _check_size(_shape_args((size,)))
    t = _core_empty(size, dt)
    fill_int(t, low, high, generator, "randint")
    return _finish(t, device, requires_grad, "randint", (low, high, size))


def randperm(n: int, *, generator: Generator | None = None, dtype: _dt.dtype | str | None = None,
             device: str | _device | None = None, requires_grad: bool = False, **_ignored) -> Tensor:
    """A random permutation of 0 .. n-1 in new memory (int64 unless ``dtype``), torch's for the same seed.

    >>> import pytensor
    >>> _ = pytensor.manual_seed(0)
    >>> pytensor.randperm(5)
    tensor([4, 0, 1, 3, 2])
    """
    if device is None and not requires_grad and not _ignored and (dtype is None or dtype.__class__ is _dt.dtype):
        r = _randperm_new(n, dtype or _dt.int64, generator, ("randperm", (n,)))
        if r is not None:
            return r
    require_cpu(device, "randperm")
    n = operator.index(n)
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    dt = _dt.dtype_arg("randperm", dtype) or _dt.int64
    if dt.is_complex or dt is _dt.bool or dt.name in ("uint16", "uint32", "uint64") or dt.kind in ("float8", "float4"):
        raise NotImplementedError(f"\"randperm\" not implemented for '{dt.name}'")
    if dt.is_floating_point:
        limit = 2**_DIGITS[dt.name] + 1
    else:
        limit = 2**(dt.itemsize * 8 - (0 if dt.name.startswith("uint") else 1))
    if n > limit:
        raise RuntimeError(f"randperm: n cannot be greater than {limit} for {dt.name}, got {n}")
    t = _core_empty((n,), dt)
    fill_perm(t, generator, "randperm")
    return _finish(t, device, requires_grad, "randperm", (n,))


def arange(start: float, end: float | None = None, step: float = 1, *, dtype: _dt.dtype | str | None = None,
           device: str | _device | None = None, requires_grad: bool = False, **_ignored) -> Tensor:
    """``[start, end)`` every ``step``, in new memory; int64 unless an argument is a float.

    >>> import pytensor
    >>> pytensor.arange(1, 2.5, 0.5)
    tensor([1.0000, 1.5000, 2.0000])
    """
    given = (start,) if end is None else (start, end) if step == 1 else (start, end, step)
    if dtype is None and device is None and not requires_grad and not _ignored:  # plain ints: one C call
        r = _arange_int(0, start, 1, ("arange", given)) if end is None else \
            _arange_int(start, end, step, ("arange", given))
        if r is not None:
            return r
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


_pack_d, _pack_dd = struct.Struct("d").pack, struct.Struct("dd").pack


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
    given = (start, end)
    start, end = (a.item() if isinstance(a, TensorBase) else a for a in given)
    # torch infers a complex range from a Python complex (NumPy's complex128 is one) or a complex
    # tensor's item; NumPy's complex64 is not a complex to it, and reads as a float (with NumPy's warning)
    is_complex = isinstance(start, complex) or isinstance(end, complex)
    dt = _dt.dtype_arg("linspace", dtype)
    if dt is None:  # the default complex dtype when either end is complex
        dt = _dt.default_complex() if is_complex else _dt.get_default_dtype()
    elif is_complex and not dt.is_complex:
        raise RuntimeError(f"linspace(): start {start!r} and end {end!r} make a complex range, which dtype "
                           f"{dt.name} cannot hold; pass a complex dtype, or take .real of the ends first")
    if dt.kind in ("float8", "float4"):
        raise NotImplementedError(f"linspace() is not implemented for {dt.name}, as in torch; make it in float32 "
                                  "and convert with .to()")
    out = _core_empty((steps,), dt)
    if steps:
        if is_complex:
            code = lib.LT_COMPLEX128
            zs, ze = complex(start), complex(end)
            start_bytes, end_bytes = _pack_dd(zs.real, zs.imag), _pack_dd(ze.real, ze.imag)
        else:
            code = lib.LT_FLOAT64
            if dt.kind in ("int", "uint") and not (-2**63 <= start < 2**63 and -2**63 <= end < 2**63):
                # Integer results pass through int64 (see lt_fill_linspace);
                # every value lies between the two ends.
                raise ValueError("Overflow when unpacking long long")
            start_bytes, end_bytes = _pack_d(float(start)), _pack_d(float(end))
        check(lib.lt_fill_linspace(out._storage._ptr, dt.code, steps, start_bytes, end_bytes, code))
    return _finish(out, device, requires_grad, "linspace", (*given, steps))


def eye(n: int, m: int | None = None, *, dtype: _dt.dtype | str | None = None, device: str | _device | None = None,
        requires_grad: bool = False, **_ignored) -> Tensor:
    """The identity matrix in new memory."""
    given = (n,) if m is None else (n, m)
    m = n if m is None else m
    t = zeros(n, m, dtype=dtype, device=device)
    # t.diagonal() (recorded as that view), filled in one C call when the fast fill takes the dtype
    d = _make(t._storage, t._dtype, (min(n, m),), (t._strides[0] + t._strides[1],), 0, _P_DIAGONAL, (0, 0, 1), t)
    if shim.fill_inplace(d, 1) is not None:
        shim.note_write(d)
    else:
        d.fill_(1)
    return _finish(t, None, requires_grad, "eye", given)
