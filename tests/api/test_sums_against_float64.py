"""Sums against NumPy's float64 (or int64) sums of the same values, over the
shapes where the summation kernels change course: pairwise blocks of 32
rounds of 256 bytes of lanes (2048 float32, 1024 float64 or integer terms),
column sums that add eight rows in one pass plus a shorter remainder,
tails narrower than a vector, strided rows and columns, and the threaded
splits.

Integer-valued floats small enough that every partial sum is exact make a
missing, repeated or misplaced term show as an inexact result, whatever the
order of the additions; random reals check the rounding error against the
pairwise bound."""
import math

import numpy as np
import pytest

import pytensor

ROWS = [1, 7, 8, 9, 16, 17, 100, 1000]
COLS = [1, 7, 8, 9, 64, 65, 1000]
LAYOUTS = ["contiguous", "every_other_row", "every_other_column", "column_major"]
# dtype -> (largest |value|, NumPy dtype of the values); every partial sum of
# up to 2000 terms stays exact in the accumulator (float32 for the 16-bit floats)
DTYPES = {"float32": (8, np.float32), "float64": (8, np.float64), "float16": (4, np.float32),
          "bfloat16": (4, np.float32), "int8": (100, np.int8), "int32": (10**6, np.int32),
          "int64": (10**12, np.int64), "bool": (1, np.bool_), "complex64": (8, np.complex64)}


def values(dtype, shape, seed):
    top, np_dt = DTYPES[dtype]
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return rng.random(shape) < 0.5
    v = rng.integers(-top, top + 1, size=shape)
    if dtype == "complex64":
        v = v + 1j * rng.integers(-top, top + 1, size=shape)
    return v.astype(np_dt)


def as_pytensor(a, dtype):
    t = pytensor.from_numpy(np.ascontiguousarray(a))
    return t.to(getattr(pytensor, dtype)) if dtype in ("float16", "bfloat16") else t


def expected(exact, dtype):
    """The exact sums as the result dtype holds them: one rounding, from a
    float32 that holds them exactly for the 16-bit floats."""
    if dtype in ("float16", "bfloat16"):
        return pytensor.from_numpy(exact.astype(np.float32)).to(getattr(pytensor, dtype)).to(pytensor.float64).numpy()
    return exact


def laid_out(a, layout):
    """(NumPy values, view maker): the view has a's values in the named layout."""
    if layout == "contiguous":
        return a, lambda t: t
    if layout == "every_other_row":  # rows 2 apart: column sums still read dense rows
        return a, lambda t: t[::2]
    if layout == "every_other_column":  # each row strided
        return a, lambda t: t[:, ::2]
    return a, lambda t: t.T.contiguous().T  # column-major: column sums are row sums in memory


def reference(a, layout):
    return {"contiguous": a, "every_other_row": a[::2], "every_other_column": a[:, ::2],
            "column_major": a}[layout]


def result(t):
    return t.to(pytensor.float64).numpy() if t.dtype.is_floating_point else t.numpy()


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("layout", LAYOUTS)
def test_column_and_row_sums_are_exact_for_exactly_summable_values(dtype, layout):
    cases = 0
    for r in ROWS:
        for c in COLS:
            a = values(dtype, (2 * r if layout == "every_other_row" else r, 2 * c if layout == "every_other_column" else c),
                       seed=r * 1009 + c)
            src, view = laid_out(a, layout)
            t = view(as_pytensor(src, dtype))
            ref = reference(a, layout)
            assert tuple(t.shape) == ref.shape
            wide = ref.astype(np.complex128 if ref.dtype.kind == "c" else np.float64 if ref.dtype.kind == "f" else np.int64)
            for dim in (0, 1):
                got = result(t.sum(dim))
                want = expected(wide.sum(dim), dtype)
                assert np.array_equal(got, want), (dtype, layout, r, c, dim)
                cases += 1
    assert cases == 2 * len(ROWS) * len(COLS)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int8", "int32", "int64", "bool", "complex64"])
def test_full_sums_are_exact_for_exactly_summable_values_at_block_edges(dtype):
    sizes = [1, 2, 31, 32, 33, 63, 64, 65, 1023, 1024, 1025, 2047, 2048, 2049, 3072, 4095, 4096, 4097, 6145, 100_003]
    for n in sizes:
        a = values(dtype, (3 * n,), seed=n)
        t = as_pytensor(a, dtype)
        for view, ref in ((t[:n], a[:n]), (t[::3], a[::3])):
            wide = ref.astype(np.complex128 if ref.dtype.kind == "c" else np.float64 if ref.dtype.kind == "f" else np.int64)
            assert np.array_equal(result(view.sum()), expected(np.asarray(wide.sum()), dtype)), (dtype, n)


def pairwise_bound(terms, chain, eps=2.0**-24):
    """Bound on a float sum's rounding error: each term passes through at most
    `chain` sequential additions and then a pairwise tree over the rest."""
    depth = chain + max(0, math.ceil(math.log2(max(terms / chain, 1)))) + 2
    return depth * eps


def test_float32_sums_keep_the_pairwise_error_bound():
    rng = np.random.default_rng(5)
    checked = 0
    for shape in [(100_003,), (1000, 1000), (37, 5000), (5000, 37)]:
        a = (rng.random(shape, dtype=np.float32) * 2 - 0.5).astype(np.float32)
        t = pytensor.from_numpy(a)
        wide, mag = a.astype(np.float64), np.abs(a.astype(np.float64))
        dims = [None] if len(shape) == 1 else [None, 0, 1]
        for dim in dims:
            got = np.asarray(t.sum(dim).numpy(), dtype=np.float64)
            exact = wide.sum(dim)
            size = a.size if dim is None else shape[dim]
            # rows: 32-term lane chains; columns: 8-row chains, then pairwise
            chain = 8 if dim == 0 else 32
            bound = pairwise_bound(size, chain) * mag.sum(dim) + 2.0**-24 * np.abs(exact)
            assert np.all(np.abs(got - exact) <= bound), (shape, dim, np.max(np.abs(got - exact) / bound))
            checked += 1
    assert checked == 10
    # a running float32 sum of 10^6 tenths is off by about 1%; the pairwise one by a few ulps
    tenths = pytensor.from_numpy(np.full(10**6, 0.1, dtype=np.float32))
    assert abs(tenths.sum().item() - 10**6 * float(np.float32(0.1))) < 1e-6 * 10**6 * 0.1


def test_threaded_sums_split_exactly():
    """Sums of over 16 MiB run on threads: one column tile split by rows, tiles
    over threads, a full sum split into parts."""
    before = pytensor.get_num_threads()
    pytensor.set_num_threads(2)
    try:
        for shape in [(4201, 1024), (1024, 8195)]:
            a = values("float32", shape, seed=shape[1])
            t = pytensor.from_numpy(a)
            wide = a.astype(np.float64)
            assert np.array_equal(t.sum(0).numpy(), wide.sum(0))
            assert np.array_equal(t.sum(1).numpy(), wide.sum(1))
            assert t.sum().item() == wide.sum()
    finally:
        pytensor.set_num_threads(before)
