"""Sums along short rows (the 16-127 term rows lt_sum adds in one 64-byte
vector of lanes, its last partial vector zero-padded) and the sign of a
zero sum, against torch 2.13 and an exact float64 reference."""
import math

import pytest

import pytensor
from support import require_module

LENGTHS = list(range(1, 20)) + [31, 32, 33, 47, 63, 64, 65, 100, 127, 128, 129, 255, 256, 1000]


@pytest.mark.parametrize("dt", ["float32", "float64", "float16", "bfloat16", "int32", "int8", "bool", "complex64"])
def test_row_sums_of_every_short_length_match_torch(dt):
    torch = require_module("torch")
    lengths_in_vector_path = 0
    for n in LENGTHS:
        rows = 5
        vals = [((i * 7919) % 23 - 11) * 0.375 for i in range(rows * n)]
        t = torch.tensor(vals, dtype=torch.float64).view(rows, n)
        if dt == "complex64":
            t = torch.complex(t, -t.flip(1))
        t = t.to(getattr(torch, dt))
        p = pytensor.from_dlpack(t.clone()) if dt != "bool" else pytensor.tensor(t.tolist())
        for layout in ("dense", "strided"):
            pt_in = p if layout == "dense" else pytensor.stack([p, p], 2)[..., 0]  # strides (2n, 2)
            got, want = pt_in.sum(1), t.sum(1)
            assert got.dtype.name == str(want.dtype).split(".")[1]
            g = [complex(x) for x in got.tolist()]
            w = [complex(x) for x in want.tolist()]
            tol = {"float16": 2e-2, "bfloat16": 1e-1}.get(dt, 1e-5)
            for a, b in zip(g, w):
                assert abs(a - b) <= tol * max(1.0, abs(b)), (dt, n, layout, g, w)
        lengths_in_vector_path += 16 <= n < 128
    assert lengths_in_vector_path >= 9


def test_row_sums_are_exact_where_the_terms_are():
    """Integers in float32 below 2^24 add exactly in any order: every length gives the exact sum."""
    for n in LENGTHS:
        vals = [float((i * 31) % 17 - 8) for i in range(3 * n)]
        got = pytensor.tensor(vals, dtype=pytensor.float32).view(3, n).sum(1).tolist()
        assert got == [math.fsum(vals[r * n:(r + 1) * n]) for r in range(3)], n


@pytest.mark.parametrize("dt", ["float32", "float64", "float16", "bfloat16"])
def test_a_sum_of_negative_zeros_is_positive_zero_as_torch(dt):
    torch = require_module("torch")
    for shape, dim in (((1,), None), ((3,), None), ((2, 1), 1), ((2, 40), 1), ((40, 2), 0), ((1, 3), 0)):
        t = torch.full(shape, -0.0, dtype=getattr(torch, dt))
        p = pytensor.full(shape, -0.0, dtype=getattr(pytensor, dt))
        for fn in ("sum", "mean"):
            want = getattr(t, fn)() if dim is None else getattr(t, fn)(dim)
            got = getattr(p, fn)() if dim is None else getattr(p, fn)(dim)
            ws = [math.copysign(1.0, x) for x in (want.tolist() if want.dim() else [want.item()])]
            gs = [math.copysign(1.0, x) for x in (got.tolist() if got.dim() else [got.item()])]
            assert gs == ws == [1.0] * len(ws), (dt, shape, dim, fn)
    c = pytensor.tensor([complex(-0.0, -0.0)] * 3).sum()
    assert [math.copysign(1.0, x) for x in (c.item().real, c.item().imag)] == [1.0, 1.0]
