"""The mask kernels of libtensor/src/gather.c against NumPy at lengths around
the 8-byte groups they work in (issue 27): nonzero's branch-free groups of
eight (taken while eight more output rows exist, so the tail near the count
runs the per-element path) and t[mask] = value's popcount-and-blend rows
(dense target and mask) beside the strided paths. The cases are generated and
counted."""
import itertools

import numpy as np

import pytensor

LENGTHS = (0, 1, 7, 8, 9, 31, 32, 33, 63, 64, 65, 1000)


def _patterns(n, rng):
    """The masks of one length: all false, all true, alternating (both phases), one true at each end, random."""
    one_first, one_last = np.zeros(n, bool), np.zeros(n, bool)
    if n:
        one_first[0] = one_last[-1] = True
    alt = np.arange(n) % 2 == 0
    return {"none": np.zeros(n, bool), "all": np.ones(n, bool), "alt": alt, "alt1": ~alt, "first": one_first,
            "last": one_last, "random": rng.random(n) < 0.5, "sparse": rng.random(n) < 0.05}


def _rows(n):
    """2-D shapes with n as the last (contiguous) dimension."""
    return [(n,), (3, n)]


def test_nonzero_matches_numpy_around_group_widths():
    rng = np.random.default_rng(27)
    cases = set()
    for n, shape in itertools.chain.from_iterable(((n, s) for s in _rows(n)) for n in LENGTHS):
        for name, _ in _patterns(n, rng).items():
            lead = shape[:-1]
            m = np.stack([_patterns(n, rng)[name] for _ in range(int(np.prod(lead)))]).reshape(shape) \
                if lead else _patterns(n, rng)[name]
            for layout in ("dense", "transposed"):  # transposed: a mask whose last stride is not 1
                t = pytensor.from_numpy(np.ascontiguousarray(m.T)).permute(*range(m.ndim - 1, -1, -1)) if layout == "transposed" \
                    else pytensor.from_numpy(np.ascontiguousarray(m))
                got = t.nonzero()
                assert got.numpy().tolist() == np.argwhere(m).tolist(), (n, shape, name, layout)
                assert [x.numpy().tolist() for x in t.nonzero(as_tuple=True)] == [x.tolist() for x in np.nonzero(m)]
                cases.add((n, len(shape), name, layout))
    assert len(cases) == len(LENGTHS) * 2 * 8 * 2, len(cases)


def test_nonzero_of_three_dimensions_and_a_sliced_mask():
    rng = np.random.default_rng(3)
    m = rng.random((4, 5, 70)) < 0.5
    assert pytensor.from_numpy(m).nonzero().numpy().tolist() == np.argwhere(m).tolist()
    assert pytensor.from_numpy(m)[:, 1:4, 3:68].nonzero().numpy().tolist() == np.argwhere(m[:, 1:4, 3:68]).tolist()


def test_masked_fill_by_setitem_matches_numpy_around_group_widths():
    rng = np.random.default_rng(33)
    cases = set()
    for dt in ("uint8", "int16", "float32", "float64", "int64"):
        for n in LENGTHS:
            for name, m1 in _patterns(n, rng).items():
                m = np.stack([m1, _patterns(n, rng)["random"], ~m1])
                base = (rng.random((3, 2 * n)) * 100 + 1).astype(dt)
                for layout, value in itertools.product(("dense", "strided", "transposed mask"), (0, 7)):
                    want = base.copy()
                    t = pytensor.from_numpy(base.copy())
                    if layout == "strided":  # every other column: the per-element path
                        want[:, ::2][m] = value
                        t[:, ::2][pytensor.from_numpy(m)] = value
                    elif layout == "transposed mask":
                        want[:, :n][m] = value
                        mt = pytensor.from_numpy(np.ascontiguousarray(m.T)).transpose(0, 1)
                        t[:, :n][mt] = value
                    else:
                        want[:, :n][m] = value
                        t[:, :n][pytensor.from_numpy(m)] = value
                    assert t.numpy().tolist() == want.tolist(), (dt, n, name, layout, value)
                    cases.add((dt, n, name, layout, value))
    assert len(cases) == 5 * len(LENGTHS) * 8 * 3 * 2, len(cases)


def test_masked_fill_of_a_tensor_value_and_of_a_whole_contiguous_tensor():
    rng = np.random.default_rng(5)
    for n in (65, 1000):
        base = rng.standard_normal((4, n)).astype(np.float32)
        m = base > 0
        want = base.copy()
        want[m] = 3.0
        t = pytensor.from_numpy(base.copy())
        t[pytensor.from_numpy(m)] = pytensor.tensor(3.0)
        assert t.numpy().tolist() == want.tolist()
        # the bench's case: x[x > 0] = 0, every element not under the mask kept bit for bit
        t = pytensor.from_numpy(base.copy())
        t[t > 0] = 0.0
        want = base.copy()
        want[want > 0] = 0
        assert t.numpy().tobytes() == want.tobytes()


def test_getitem_of_a_leading_mask_matches_numpy():
    rng = np.random.default_rng(9)
    for rows in (1, 9, 33, 64, 65):
        x = rng.standard_normal((rows, 3, 4)).astype(np.float32)
        m = rng.random((rows, 3)) < 0.5
        assert pytensor.from_numpy(x)[pytensor.from_numpy(m)].numpy().tolist() == x[m].tolist()
