"""The inspector's geometry against brute force, over thousands of random layouts.

Which bytes each element of a view touches is computed by one rule in Python
(``footprint``, ``elements_in_window``, ``layout_stats``) and one in the
renderer (tests/js/layout.property.test.mjs checks that one the same way).
Here every element of every generated layout is enumerated and the rules are
compared with the enumeration. The generator is checked too: the test fails
unless it really produced negative, zero, huge and unaligned strides, empty
shapes and 0-d views.
"""
import itertools
import random
from collections import Counter

from pytensor.widgets import _snapshot as S

N_LAYOUTS = 4000
HUGE = 1 << 40


def random_layout(rng):
    nd = rng.choice([0, 1, 1, 2, 2, 3, 3, 4])
    shape = tuple(rng.choice([0, 1, 2, 3, 4, 5]) if rng.random() < 0.15 else rng.randint(1, 5) for _ in range(nd))
    isz = rng.choice([1, 2, 4, 8, 16])
    strides = []
    for _ in range(nd):
        kind = rng.random()
        if kind < 0.15:
            s = 0
        elif kind < 0.25:
            s = rng.choice([-1, 1]) * (HUGE + rng.randint(0, 7) * isz)
        elif kind < 0.40:
            s = rng.randint(-9, 9)                         # usually not a multiple of the itemsize
        else:
            s = rng.randint(-4, 4) * isz
        strides.append(s)
    strides = tuple(strides)
    lo, _ = S.footprint(shape, strides, isz, 0)
    base = -lo + rng.randint(0, 3) * isz                   # element 0 where the footprint starts >= 0
    return shape, strides, isz, base


def element_starts(shape, strides, base):
    return [(idx, base + sum(i * s for i, s in zip(idx, strides)))
            for idx in itertools.product(*[range(n) for n in shape])]


def brute_stats(starts, isz):
    """Distinct bytes touched and the most times one byte is read, by a sweep over element intervals."""
    events = Counter()
    for _, s in starts:
        events[s] += 1
        events[s + isz] -= 1
    touched = depth = most = 0
    prev = None
    for pos in sorted(events):
        if depth > 0:
            touched += pos - prev
        depth += events[pos]
        most = max(most, depth)
        prev = pos
    return touched, most


def test_geometry_matches_brute_force_on_random_layouts():
    rng = random.Random(20261125)
    seen = Counter()
    windows_checked = 0
    for _ in range(N_LAYOUTS):
        shape, strides, isz, base = random_layout(rng)
        big = [(n, s) for n, s in zip(shape, strides) if n > 1]
        seen["negative"] += any(s < 0 for _, s in big)
        seen["zero"] += any(s == 0 for _, s in big)
        seen["huge"] += any(abs(s) >= HUGE for _, s in big)
        seen["unaligned"] += any(s % isz for _, s in big)
        seen["empty"] += 0 in shape
        seen["0-d"] += not shape
        starts = element_starts(shape, strides, base)

        # footprint: the first to the last byte any element touches
        lo, hi = S.footprint(shape, strides, isz, base)
        if starts:
            assert (lo, hi) == (min(s for _, s in starts), max(s for _, s in starts) + isz), (shape, strides, isz)
            assert lo >= 0
        else:
            assert lo == hi

        # layout_stats: distinct bytes and self-overlap, where it claims to be exact
        touched, hits, exact = S.layout_stats(shape, strides, isz)
        if starts and exact:
            assert (touched, hits) == brute_stats(starts, isz), (shape, strides, isz)
        elif not starts:
            assert (touched, hits, exact) == (0, 0, True)

        # elements_in_window: windows at random, and around random elements (huge spans are sparse)
        probes = [(rng.randint(0, max(1, hi)), rng.randint(0, 3 * isz + 8))]
        if starts:
            _, s = rng.choice(starts)
            probes.append((s + rng.randint(-isz, isz), rng.randint(1, 3 * isz)))
        for w_lo, w_len in probes:
            w_hi = w_lo + w_len
            want = sorted((idx, s) for idx, s in starts if s < w_hi and s + isz > w_lo and w_lo < w_hi)
            got = S.elements_in_window(shape, strides, isz, base, w_lo, w_hi)
            assert sorted(got) == want, (shape, strides, isz, base, w_lo, w_hi)
            assert not got.truncated
            windows_checked += 1
    # the generator really produced what the test claims to cover
    for kind, at_least in [("negative", 800), ("zero", 500), ("huge", 300), ("unaligned", 500),
                           ("empty", 200), ("0-d", 300)]:
        assert seen[kind] >= at_least, (kind, seen)
    assert windows_checked > N_LAYOUTS


def test_element_walk_stops_at_its_budget_instead_of_looping():
    # Stride 0 over a gappy inner dimension is walked once: exact, and cheap.
    els = S.elements_in_window((10_000_000, 2), (0, 1000), 4, 0, 10, 20, budget=50)
    assert els == [] and not els.truncated
    # A huge dimension whose every block reaches the window but holds none of it: the budget stops it.
    els = S.elements_in_window((10_000_000, 2), (1, 100_000_000), 4, 0, 50_000_000, 50_000_004, budget=50_000)
    assert els == [] and els.truncated
    small = S.elements_in_window((1000, 2), (1, 100_000_000), 4, 0, 50_000_000, 50_000_004)
    assert small == [] and not small.truncated


def test_the_teaching_layouts_have_the_bytes_a_teacher_expects():
    import numpy as np
    import pytensor
    from pytensor.widgets import snapshot
    t = pytensor.arange(12, dtype=pytensor.int32)
    a = np.arange(6, dtype=np.int32)
    snap, _ = snapshot(a[::-1], t.view(3, 4).T, t[:1].expand(6), pytensor.from_dlpack(a[::-1]),
                       names=["a[::-1]", "t.view(3, 4).T", "t[:1].expand(6)", "from_dlpack(a[::-1])"])
    v = {x["name"]: x for x in snap["views"]}
    flipped = v["a[::-1]"]
    assert flipped["footprint"] == [0, 24] and flipped["byte_offset"] == 20 and flipped["tags"] == ["flipped"]
    assert [s for _, s in S.elements_in_window(flipped["shape"], flipped["bstrides"], 4, flipped["byte_offset"], 0, 24)] \
        == [20, 16, 12, 8, 4, 0]                        # index order walks memory backwards
    tt = v["t.view(3, 4).T"]
    assert tt["bstrides"] == [4, 16] and tt["tags"] == ["transposed"] and tt["touched_bytes"] == 48
    ex = v["t[:1].expand(6)"]
    assert ex["bstrides"] == [0] and ex["max_hits"] == 6 and ex["touched_bytes"] == 4
    imp = v["from_dlpack(a[::-1])"]
    assert imp["strides"] == [-1] and imp["region"] == flipped["region"]   # one buffer with its producer
