"""Result layouts against torch 2.13: the strides of elementwise results,
empty_like/zeros_like/ones_like/full_like, clone and casts, for inputs of
every kind of layout (row-major, transposed, permuted, sliced, expanded,
extent-1 dims with odd strides, empty), alone and broadcast together.

The rule is libtensor's (layout_order.c); these tests compare what a user
sees, ``result.stride()``, with torch's for the same views."""
import itertools

import pytest

import pytensor
from pytensor import _layout
from support import require_module

# (shape, strides, offset) views over a base of 400 elements
LAYOUTS = {
    "row-major 3x4": ((3, 4), (4, 1), 0),
    "transposed 3x4": ((3, 4), (1, 3), 0),
    "sliced rows": ((3, 4), (8, 1), 0),
    "sliced cols of T": ((3, 4), (1, 6), 1),
    "expanded row": ((3, 4), (0, 1), 0),
    "expanded col": ((3, 4), (1, 0), 0),
    "extent-1 odd stride": ((3, 1, 4), (1, 7, 3), 0),
    "permuted 3-d": ((4, 2, 3), (1, 12, 4), 0),
    "permuted 3-d b": ((4, 2, 3), (6, 3, 1), 0),
    "3-d middle transposed": ((4, 2, 3), (6, 1, 2), 0),
    "negative-free flipped order": ((2, 3, 4), (1, 2, 6), 0),
    "row 4": ((4,), (1,), 0),
    "strided row 4": ((4,), (3,), 0),
    "col 3x1": ((3, 1), (1, 1), 0),
    "col 3x1 T-like": ((3, 1), (1, 3), 0),
    "row 1x4": ((1, 4), (1, 1), 0),
    "equal strides": ((2, 2), (1, 1), 0),
    "0-d": ((), (), 5),
    "empty permuted": ((3, 0, 4), (1, 3, 3), 0),
    "empty 0x3 T": ((3, 0), (1, 3), 0),
}


def _pair(torch, name):
    shape, strides, offset = LAYOUTS[name]
    base_pt = pytensor.arange(400, dtype=pytensor.float32)
    base_th = torch.arange(400, dtype=torch.float32)
    return (base_pt.as_strided(shape, strides, offset), base_th.as_strided(shape, strides, offset))


def _broadcastable(a, b):
    a, b = LAYOUTS[a][0], LAYOUTS[b][0]
    for x, y in zip(reversed(a), reversed(b)):
        if x != y and 1 not in (x, y):
            return False
    return True


PAIRS = [(a, b) for a, b in itertools.product(LAYOUTS, repeat=2) if _broadcastable(a, b)]


def test_pairs_cover_broadcasting_of_mixed_layouts():
    # the generator claims mixed layouts broadcast together: check it produced them
    mixed = [(a, b) for a, b in PAIRS if LAYOUTS[a][0] != LAYOUTS[b][0]]
    assert len(PAIRS) > 150 and len(mixed) > 60
    assert ("transposed 3x4", "row 4") in PAIRS and ("negative-free flipped order", "strided row 4") in PAIRS


@pytest.mark.parametrize("a,b", PAIRS)
def test_binary_result_strides_match_torch(a, b):
    torch = require_module("torch")
    pa, ta = _pair(torch, a)
    pb, tb = _pair(torch, b)
    for op in ("__add__", "__mul__", "__lt__"):
        got, want = getattr(pa, op)(pb), getattr(ta, op)(tb)
        assert got.shape == tuple(want.shape)
        assert got.stride() == want.stride(), (op, a, b)
        assert got.tolist() == want.tolist()


@pytest.mark.parametrize("name", list(LAYOUTS))
def test_scalar_and_unary_results_match_torch(name):
    torch = require_module("torch")
    p, t = _pair(torch, name)
    assert (p * 2).stride() == (t * 2).stride()
    assert (2.5 - p).stride() == (2.5 - t).stride()
    assert (-p).stride() == (-t).stride()
    assert (p == 3).stride() == (t == 3).stride()
    assert (p * 2).tolist() == (t * 2).tolist()


@pytest.mark.parametrize("name", list(LAYOUTS))
def test_like_clone_and_casts_keep_layout_as_torch(name):
    torch = require_module("torch")
    p, t = _pair(torch, name)
    assert pytensor.empty_like(p).stride() == torch.empty_like(t).stride()
    assert pytensor.zeros_like(p).stride() == torch.zeros_like(t).stride()
    assert pytensor.ones_like(p).stride() == torch.ones_like(t).stride()
    assert pytensor.full_like(p, 7).stride() == torch.full_like(t, 7).stride()
    assert pytensor.zeros_like(p).tolist() == torch.zeros_like(t).tolist()
    assert pytensor.full_like(p, 7).tolist() == torch.full_like(t, 7).tolist()
    assert p.clone().stride() == t.clone().stride()
    assert p.double().stride() == t.double().stride()
    assert p.half().stride() == t.half().stride()
    assert p.double().tolist() == t.double().tolist()


def test_the_issue_example():
    x = pytensor.randn(4, 3)
    assert (x.T * 2).stride() == (1, 3)
    assert (x.T + x.T).stride() == (1, 3)
    assert pytensor.empty_like(x.T).stride() == (1, 3)


def test_layout_wrappers_answer_torch_rules():
    torch = require_module("torch")
    for name, (shape, strides, offset) in LAYOUTS.items():
        t = torch.arange(400.0).as_strided(shape, strides, offset)
        assert _layout.preserve_strides(shape, strides) == torch.empty_like(t).stride(), name
        assert _layout.result_strides(shape, [(shape, strides)]) == (t + t).stride(), name


def test_non_overlapping_and_dense():
    dense = {"row-major 3x4", "transposed 3x4", "extent-1 odd stride", "permuted 3-d", "permuted 3-d b",
             "3-d middle transposed", "negative-free flipped order", "row 4", "col 3x1", "col 3x1 T-like", "row 1x4",
             "0-d", "empty permuted", "empty 0x3 T"}
    for name, (shape, strides, _) in LAYOUTS.items():
        assert _layout.is_non_overlapping_and_dense(shape, strides) == (name in dense), name


def test_result_strides_refuses_operands_that_do_not_broadcast():
    with pytest.raises(RuntimeError, match="does not broadcast"):
        _layout.result_strides((3, 4), [((2, 4), (4, 1))])
    with pytest.raises(RuntimeError, match="dims"):
        _layout.result_strides((4,), [((3, 4), (4, 1))])
