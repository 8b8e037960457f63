"""DLPack 1.1's low-precision floats: the five float8s convert bit for bit as torch 2.13 converts, and
float4_e2m1fn_x2 is storage only; both cross DLPack without a copy, and arithmetic is refused as torch
refuses it."""
import numpy as np
import pytest

import pytensor as pt
from support import require_module

torch = require_module("torch")  # every comparison here is with torch: skips the module without it (fails in CI)

FP8 = ["float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu"]
WIDE = {"float32": np.uint32, "float64": np.uint64, "float16": np.uint16, "bfloat16": np.uint16}


def _bytes(dt_name):
    """All 256 bytes as a tensor of dt_name, in pytensor and torch (the same bytes)."""
    raw = np.arange(256, dtype=np.uint8)
    return pt.from_numpy(raw.copy()).view(getattr(pt, dt_name)), torch.from_numpy(raw.copy()).view(
        getattr(torch, dt_name))


def _bits(t, name):
    """The bit patterns of t (pytensor or torch, dtype name), as a NumPy unsigned array."""
    unsigned = {1: "uint8", 2: "int16", 4: "int32", 8: "int64"}[t.element_size()]
    if isinstance(t, torch.Tensor):
        return t.contiguous().view(getattr(torch, unsigned)).numpy().view(WIDE.get(name, np.uint8))
    view = t.contiguous().view(getattr(pt, unsigned if unsigned == "uint8" else unsigned))
    return view.numpy().view(WIDE.get(name, np.uint8))


@pytest.mark.parametrize("name", FP8)
@pytest.mark.parametrize("to", ["float32", "float64", "float16", "bfloat16"])
def test_every_byte_decodes_as_torch(name, to):
    ours, theirs = _bytes(name)
    np.testing.assert_array_equal(_bits(ours.to(getattr(pt, to)), to), _bits(theirs.to(getattr(torch, to)), to))


@pytest.mark.parametrize("name", FP8)
@pytest.mark.parametrize("to", ["int8", "uint8", "int32", "int64", "bool"])
def test_every_byte_converts_to_integers_as_torch(name, to):
    ours, theirs = _bytes(name)
    np.testing.assert_array_equal(ours.to(getattr(pt, to)).numpy(), theirs.to(getattr(torch, to)).numpy())


def _float32_samples():
    """Every float32 whose low 16 bits are one of five patterns (all exponents, signs and leading
    mantissas, with exact ties, just-below and just-above ties), plus 2**20 random patterns."""
    high = np.arange(1 << 16, dtype=np.uint32) << 16
    lows = np.array([0, 0x8000, 0x7FFF, 0xFFFF, 0x0001], dtype=np.uint32)
    grid = (high[:, None] | lows[None, :]).ravel()
    rand = np.random.default_rng(7).integers(0, 1 << 32, size=1 << 20, dtype=np.uint64).astype(np.uint32)
    return np.concatenate([grid, rand]).view(np.float32)


SAMPLES = _float32_samples()


def test_the_samples_cover_what_they_claim():
    x = SAMPLES
    assert np.isnan(x).any() and np.isinf(x).any() and (x == 0).any() and np.signbit(x[x == 0]).any()
    assert (np.abs(x[np.isfinite(x)]) < np.finfo(np.float32).tiny).any()     # float32 subnormals
    for name in FP8:  # an exact tie between two neighbours of every format appears
        grid = pt.from_numpy(np.arange(256, dtype=np.uint8)).view(getattr(pt, name)).to(pt.float32).numpy()
        fin = np.unique(grid[np.isfinite(grid)])
        mids = ((fin[:-1].astype(np.float64) + fin[1:]) / 2).astype(np.float32)
        assert np.isin(mids, x).any(), name


@pytest.mark.parametrize("name", FP8)
def test_float32_encodes_as_torch(name):
    ours = pt.from_numpy(SAMPLES).to(getattr(pt, name))
    theirs = torch.from_numpy(SAMPLES).to(getattr(torch, name))
    got, want = _bits(ours, name), _bits(theirs, name)
    bad = np.nonzero(got != want)[0]
    assert bad.size == 0, [(float(SAMPLES[i]), hex(SAMPLES[i:i + 1].view(np.uint32)[0]), hex(got[i]),
                            hex(want[i])) for i in bad[:5]]


@pytest.mark.parametrize("name", FP8)
@pytest.mark.parametrize("src", ["float64", "float16", "bfloat16", "int64", "int32", "uint8", "bool"])
def test_other_sources_encode_as_torch(name, src):
    rng = np.random.default_rng(3)
    if src in ("float64", "float16", "bfloat16"):
        vals = np.concatenate([rng.standard_normal(4000) * 10.0 ** rng.integers(-12, 12, 4000),
                               [0.0, -0.0, np.inf, -np.inf, np.nan, 448.0, 464.0, 57344.0, 61440.0, 1e300]])
        base = torch.from_numpy(vals).to(getattr(torch, src))
    elif src == "bool":
        base = torch.tensor([True, False])
    else:
        info = np.iinfo(src)
        base = torch.from_numpy(rng.integers(info.min, info.max, 4000, dtype=src, endpoint=True))
    ours = pt.from_dlpack(base.clone()).to(getattr(pt, name))
    np.testing.assert_array_equal(_bits(ours, name), _bits(base.to(getattr(torch, name)), name))


@pytest.mark.parametrize("a", FP8)
@pytest.mark.parametrize("b", FP8)
def test_float8_to_float8_as_torch(a, b):
    ours, theirs = _bytes(a)
    np.testing.assert_array_equal(_bits(ours.to(getattr(pt, b)), b), _bits(theirs.to(getattr(torch, b)), b))


def test_strided_and_transposed_conversions_match_dense_ones():
    x = pt.from_numpy(SAMPLES[:4096].copy()).view(64, 64)
    for name in FP8:
        dt = getattr(pt, name)
        dense = x.contiguous().to(dt)
        assert _bits(x.T.to(dt), name).tolist() == _bits(dense.T, name).tolist()
        assert _bits(x[::3, 1::2].to(dt), name).tolist() == _bits(dense[::3, 1::2], name).tolist()


@pytest.mark.parametrize("name", FP8 + ["float4_e2m1fn_x2"])
def test_dlpack_both_ways_without_a_copy(name):
    raw = torch.arange(16, dtype=torch.uint8)
    theirs = raw.view(getattr(torch, name))[2:10]
    ours = pt.from_dlpack(theirs)
    assert ours.dtype is getattr(pt, name) and ours.data_ptr() == theirs.data_ptr()
    back = torch.from_dlpack(ours)
    assert back.dtype == theirs.dtype and back.data_ptr() == theirs.data_ptr()
    assert torch.equal(back.view(torch.uint8), theirs.view(torch.uint8))


@pytest.mark.parametrize("name", FP8)
def test_values_print_and_list_as_torch(name):
    ours, theirs = _bytes(name)
    ours, theirs = ours[::17], theirs[::17]
    if name == "float8_e8m0fnu":
        # torch prints e8m0fnu's powers of two in fixed notation (2^-127 as 0.0000): we print what
        # float32 values of the same magnitudes print as (README: differences from torch).
        assert repr(ours).split("dtype=")[0].rstrip(", \n") == repr(ours.to(pt.float32))[:-1]
        assert repr(ours).endswith("dtype=pytensor.float8_e8m0fnu)")
    else:
        assert repr(ours).replace("pytensor", "torch") == repr(theirs)
    assert [str(v) for v in ours.tolist()] == [str(v) for v in theirs.tolist()]
    assert str(ours[3].item()) == str(theirs[3].item())


@pytest.mark.parametrize("name", FP8)
def test_made_by_factories_and_constructors(name):
    dt, tdt = getattr(pt, name), getattr(torch, name)
    values = [0.0, 1.0, -2.5, 0.3]
    assert _bits(pt.tensor(values, dtype=dt), name).tolist() == _bits(torch.tensor(values, dtype=tdt), name).tolist()
    assert _bits(pt.full((3,), 0.3, dtype=dt), name).tolist() == _bits(torch.full((3,), 0.3, dtype=tdt),
                                                                       name).tolist()
    assert pt.zeros(2, dtype=dt).tolist() == torch.zeros(2, dtype=tdt).tolist()
    assert pt.ones(2, dtype=dt).tolist() == torch.ones(2, dtype=tdt).tolist()
    assert pt.empty(3, dtype=dt).element_size() == 1
    buf = bytearray(b"\x38\x40\x7f")
    assert pt.frombuffer(buf, dtype=dt).view(pt.uint8).data_ptr() == pt.frombuffer(buf, dtype=pt.uint8).data_ptr()


@pytest.mark.parametrize("name", FP8)
def test_arithmetic_is_refused_as_torch_refuses_it(name):
    dt, tdt = getattr(pt, name), getattr(torch, name)
    x, tx = pt.ones(3, dtype=dt), torch.ones(3, dtype=tdt)
    for op in (lambda a: a + a, lambda a: a * 2, lambda a: a - a, lambda a: a / a, lambda a: a < a,
               lambda a: a.sum(), lambda a: -a):
        with pytest.raises(NotImplementedError):
            op(tx)
        with pytest.raises(NotImplementedError, match=f"not implemented for {name}"):
            op(x)
    for ctor in (lambda m: m.arange(3, dtype=getattr(m, name)), lambda m: m.linspace(0, 1, 3, dtype=getattr(m, name))):
        with pytest.raises(NotImplementedError):
            ctor(torch)
        with pytest.raises(NotImplementedError):
            ctor(pt)
    with pytest.raises(RuntimeError, match="Promotion for Float8 Types is not supported"):
        pt.promote_types(dt, pt.float32)
    with pytest.raises(TypeError, match="unsupported ScalarType"):
        x.numpy()


@pytest.mark.parametrize("name", FP8)
def test_equality_compares_values_as_torch(name):
    ours, theirs = _bytes(name)
    # the two halves: each value against its negation (or, for e8m0fnu, its square), +0 against -0, NaN
    a, b, ta, tb = ours[:128], ours[128:], theirs[:128], theirs[128:]
    assert (a == b).tolist() == (ta == tb).tolist()
    assert (a != b).tolist() == (ta != tb).tolist()
    assert (a == a).tolist() == (ta == ta).tolist()
    assert (ours == 1.0).tolist() == (theirs == 1.0).tolist()


def test_float4_is_storage_only_as_in_torch():
    raw = pt.tensor([0x12, 0xF7, 0x00], dtype=pt.uint8)
    f4 = raw.view(pt.float4_e2m1fn_x2)
    traw = torch.tensor([0x12, 0xF7, 0x00], dtype=torch.uint8)
    t4 = traw.view(torch.float4_e2m1fn_x2)
    assert repr(f4).replace("pytensor", "torch") == repr(t4)
    assert f4.clone().view(pt.uint8).tolist() == [0x12, 0xF7, 0x00]
    assert pt.zeros(2, dtype=pt.float4_e2m1fn_x2).view(pt.uint8).tolist() == [0, 0]
    for bad in (lambda t, m: t.to(m.float32), lambda t, m: t.tolist(), lambda t, m: t[0].item(), lambda t, m: t + t):
        with pytest.raises((NotImplementedError, RuntimeError)):
            bad(t4, torch)
        with pytest.raises(NotImplementedError):
            bad(f4, pt)
    for fill in (lambda m: m.ones(2, dtype=m.float4_e2m1fn_x2), lambda m: m.full((2,), 1.0, dtype=m.float4_e2m1fn_x2)):
        with pytest.raises(NotImplementedError):
            fill(torch)
        with pytest.raises(NotImplementedError, match="storage-only"):
            fill(pt)


def test_names_and_properties_match_torch():
    for name in FP8 + ["float4_e2m1fn_x2"]:
        ours, theirs = getattr(pt, name), getattr(torch, name)
        assert (ours.itemsize, ours.is_floating_point, ours.is_signed, ours.is_complex) == \
               (theirs.itemsize, theirs.is_floating_point, theirs.is_signed, theirs.is_complex), name
        assert pt.dtypes.dtype_arg("empty", name) is ours
