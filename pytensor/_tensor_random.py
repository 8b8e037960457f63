"""The Tensor part that fills a tensor with random samples in place: uniform_() and normal_().

A contiguous tensor is filled where it lies, in one libtensor call. Any
other view is filled in memory order (the order torch's iterator visits it
in) through a contiguous temporary, then copied in, so the samples land
where torch puts them for the common views (a transpose, a column).
"""
from __future__ import annotations

from ._autograd_ops import _inplace_guard
from ._core import empty as _core_empty
from ._ffi import shim
from ._generator import fill_normal, fill_uniform

# random_inplace(t, kind 0 uniform_ / 1 normal_, a, b, generator): the common case in one C call, the
# write recorded (pytensor/_shim_random.c: no grad, a dense writable tensor, plain numbers); None: the
# methods below decide. note_writer records t as the writer of a write already counted: libtensor's
# fill and copy_ each bump the version once, so one uniform_ counts one write, as in torch.
_random_inplace, _note_writer = shim.random_inplace, shim.note_writer


def _memory_order(t):
    """The permutation of t's dimensions from outermost to innermost in memory
    (descending stride, ties in dimension order)."""
    return sorted(range(t.dim()), key=lambda d: (-abs(t._strides[d]), d))


def _fill_view(t, fill):
    """Runs fill(contiguous tensor) on t itself or on a temporary copied into t."""
    t._check_write()
    if t.is_contiguous() and not t._bits:  # a conjugate/negative view: through copy_, which applies the bit
        fill(t, True)
    else:
        order = _memory_order(t)
        view = t.permute(*order)
        tmp = _core_empty(tuple(view.shape), t._dtype)
        fill(tmp, False)
        view.copy_(tmp)
    _note_writer(t)
    return t


# the largest finite value of each sampled dtype (a complex dtype: its parts), for torch's check_uniform_bounds
_UNIFORM_MAX = {"float16": 65504.0, "bfloat16": 3.3895313892515355e38, "float32": 3.4028234663852886e38,
                "complex64": 3.4028234663852886e38, "float64": 1.7976931348623157e308,
                "complex128": 1.7976931348623157e308}


def _check_uniform_bounds(t, from_, to):
    """torch's check_uniform_bounds, before either path fills: from and to within the dtype's
    finite range (inf and NaN are not), from <= to, and to - from (in double precision) finite
    in the dtype, so that every sample is a value of the dtype. Other dtypes: the Python path's
    refusal."""
    top = _UNIFORM_MAX.get(t._dtype.name)
    if top is None:
        return
    lo, hi = float(from_), float(to)
    for name, v in (("from", lo), ("to", hi)):
        if not -top <= v <= top:
            raise RuntimeError(f"uniform_(): {name}={v} is out of bounds for {t._dtype.name} ([{-top}, {top}])")
    if not lo <= hi:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={from_} > to={to}")
    if hi - lo > top:
        raise RuntimeError(f"uniform_ expects to-from <= {top} (the largest {t._dtype.name}), but found to={to} "
                           f"and from={from_}, whose difference {hi - lo} exceeds it")


class Random:
    """uniform_, normal_."""

    __slots__ = ()

    def uniform_(self, from_: float = 0.0, to: float = 1.0, *, generator=None, **kwargs):
        """Fill in place with uniform samples from [from, to) (torch's numbers for the same seed).

        >>> import pytensor
        >>> _ = pytensor.manual_seed(0)
        >>> pytensor.empty(2).uniform_(-1, 1)
        tensor([-0.0075, 0.5364])
        """
        from_ = kwargs.pop("from", from_)
        if kwargs:
            raise TypeError(f"uniform_() got an unexpected keyword argument {next(iter(kwargs))!r}")
        _float_dtype(self, "check_uniform_bounds")  # the bounds: _check_uniform_bounds, before either path
        return _fill_view(self, lambda t, _contiguous: fill_uniform(t, from_, to, generator, "uniform_"))

    def normal_(self, mean: float = 0.0, std: float = 1.0, *, generator=None):
        """Fill in place with normal samples of ``mean`` and ``std`` (torch's numbers for the same seed).

        >>> import pytensor
        >>> _ = pytensor.manual_seed(0)
        >>> pytensor.empty(2, dtype=pytensor.float64).normal_(10, 2)
        tensor([13.0820,  9.4131], dtype=pytensor.float64)
        """
        _float_dtype(self, "normal_kernel_cpu")
        if not std >= 0.0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
        return _fill_view(self, lambda t, contiguous: fill_normal(t, mean, std, generator, "normal_", contiguous))

    # a leaf that requires grad, or a tensor inside a graph, is refused as for every in-place write
    _uniform_, _normal_ = _inplace_guard(uniform_), _inplace_guard(normal_)

    def uniform_(self, from_: float = 0.0, to: float = 1.0, *, generator=None, **kwargs):
        _check_uniform_bounds(self, kwargs.get("from", from_), to)  # the shim's fast path does not check
        if not kwargs and _random_inplace(self, 0, from_, to, generator) is not None:
            return self
        return self._uniform_(from_, to, generator=generator, **kwargs)

    def normal_(self, mean: float = 0.0, std: float = 1.0, *, generator=None):
        if _random_inplace(self, 1, mean, std, generator) is not None:
            return self
        return self._normal_(mean, std, generator=generator)

    uniform_.__doc__, normal_.__doc__ = _uniform_.__doc__, _normal_.__doc__


def _float_dtype(t, kernel):
    if not (t._dtype.is_floating_point or t._dtype.is_complex) or t._dtype.kind in ("float8", "float4"):
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{t._dtype.name}': random samples come in "
                                  "float16, bfloat16, float32, float64, complex64 and complex128")
