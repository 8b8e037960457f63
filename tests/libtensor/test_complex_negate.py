"""lt_complex_negate_parts (cast.c): the one-pass sign flips behind conj_physical,
resolve_conj and resolve_neg, raw and through the Tensor methods, against NumPy
bit patterns and torch."""
import numpy as np
import pytest

import pytensor
from pytensor._ffi import ffi, lib
from support import require_module

SPECIAL = [0.0, -0.0, 1.5, -2.25, np.inf, -np.inf, np.nan, 1e-45, 3.4e38]


def _values(np_dtype, n=37):
    rng = np.random.default_rng(5)
    re = np.concatenate([SPECIAL, rng.standard_normal(n - len(SPECIAL))])
    im = np.concatenate([SPECIAL[::-1], rng.standard_normal(n - len(SPECIAL))])
    out = np.empty(n, np_dtype)
    out.real, out.imag = re, im  # not re + 1j * im: 1j * inf would be nan + infj
    return out


def _signs(a):
    return np.signbit(a.real), np.signbit(a.imag), np.isnan(a.real), np.isnan(a.imag)


@pytest.mark.parametrize("np_dtype,code", [(np.complex64, "LT_COMPLEX64"), (np.complex128, "LT_COMPLEX128")])
@pytest.mark.parametrize("neg_re,neg_im", [(0, 1), (1, 0), (1, 1), (0, 0)])
@pytest.mark.parametrize("in_place", [False, True])
def test_sign_flips_match_numpy_bit_for_bit(np_dtype, code, neg_re, neg_im, in_place):
    src = _values(np_dtype)
    want = src.copy()
    # the sign bit flips (numpy's negative of a float flips it too, NaN included)
    want.real = -want.real if neg_re else want.real
    want.imag = -want.imag if neg_im else want.imag
    dst = src if in_place else np.empty_like(src)
    keep = src.copy()
    rc = lib.lt_complex_negate_parts(ffi.from_buffer(dst), ffi.from_buffer(src), len(src), getattr(lib, code),
                                     neg_re, neg_im)
    assert rc == lib.LT_OK
    for got, exp in zip(_signs(dst), _signs(want)):
        assert (got == exp).all()
    finite = ~np.isnan(want)
    assert (dst[finite] == want[finite]).all()
    if not in_place:
        assert (np.signbit(src.imag) == np.signbit(keep.imag)).all()  # the source is untouched


def test_refusals():
    buf = np.zeros(4, np.float32)
    assert lib.lt_complex_negate_parts(ffi.from_buffer(buf), ffi.from_buffer(buf), 4, lib.LT_FLOAT32, 0, 1) == \
        lib.LT_EDTYPE
    assert lib.lt_complex_negate_parts(ffi.from_buffer(buf), ffi.from_buffer(buf), -1, lib.LT_COMPLEX64, 0, 1) == \
        lib.LT_EINVAL
    assert lib.lt_complex_negate_parts(ffi.NULL, ffi.from_buffer(buf), 1, lib.LT_COMPLEX64, 0, 1) == lib.LT_EINVAL


@pytest.mark.parametrize("dt", ["complex64", "complex128"])
def test_conj_physical_and_resolve_dense_and_strided_match_torch(dt):
    torch = require_module("torch")
    base = _values(np.dtype(dt), 24).reshape(4, 6)
    p, t = pytensor.from_numpy(base.copy()), torch.from_numpy(base.copy())
    cases = [(lambda x: x, "plain"), (lambda x: x.T, "transposed (dense, one pass)"),
             (lambda x: x[:, ::2], "strided (two passes)"), (lambda x: x.flip(0) if hasattr(x, "flip") else x, "flip")]
    for view, _name in cases:
        for make in (lambda x: x, lambda x: x.conj(), lambda x: (x * 1).conj()):
            pv, tv = make(view(p)), make(view(t))
            for fn in (lambda x: x.conj_physical(), lambda x: x.resolve_conj(), lambda x: x.conj().imag.resolve_neg()):
                got, want = fn(pv), fn(tv)
                assert got.stride() == want.stride() and got.is_conj() == want.is_conj()
                g, w = got.numpy(), want.resolve_conj().resolve_neg().numpy()
                for gp, wp in ([(g.real, w.real), (g.imag, w.imag)] if g.dtype.kind == "c" else [(g, w)]):
                    number = ~np.isnan(wp)  # a NaN's sign is not a value torch keeps consistently
                    assert (np.signbit(gp[number]) == np.signbit(wp[number])).all()
                assert np.array_equal(g, w, equal_nan=True)
