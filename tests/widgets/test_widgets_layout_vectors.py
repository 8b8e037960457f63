"""The inspector's model against libtensor's layout vectors (tests/layout_vectors.json).

The model asks libtensor for every layout rule (``pytensor._layout``); these checks pin the
wiring (argument order, units: byte strides and byte offsets) and the model's own functions built
on the rules: the element walk, the touched-byte count and the contiguity idiom. The renderer's
copy of the same geometry is checked against the same file by tests/js/layout_vectors.test.mjs.
"""
import json
import random
from pathlib import Path

import numpy as np
import pytest

from pytensor.errors import LayoutError
from pytensor.widgets import _snapshot as S

VECTORS = json.loads((Path(__file__).resolve().parents[1] / "layout_vectors.json").read_text(encoding="utf-8"))
LAYOUTS = [c for c in VECTORS["layouts"] if c["byte_strides"] is not None]
WALK_MAX = 4096      # layouts with more elements are checked by extent and idiom only


def label(c):
    return f"{c['shape']}:{c['byte_strides']}+{c['byte_offset']}x{c['itemsize']}"


def test_the_vectors_cover_the_hard_layouts():
    seen = {cat for c in LAYOUTS for cat in c["categories"]}
    assert {"contiguous", "non_contiguous", "negative_stride", "zero_stride", "zero_size", "ndim0", "extent_one_dim",
            "byte_strides_not_multiple_of_itemsize", "huge_stride", "overflow", "overflow_adjacent"} <= seen, seen
    assert sum(isinstance(c["numel"], int) and 0 < c["numel"] <= WALK_MAX for c in LAYOUTS) >= 10


@pytest.mark.parametrize("c", LAYOUTS, ids=label)
def test_footprint_is_libtensors_byte_extent(c):
    args = (c["shape"], c["byte_strides"], c["itemsize"], c["byte_offset"])
    if c["byte_extent"] == "overflow":
        with pytest.raises(LayoutError):
            S.footprint(*args)
        return
    assert S.footprint(*args) == tuple(c["byte_extent"])
    if c["strides"] is not None and isinstance(c["extent"], list):
        # the same layout given in elements, as a tensor's view dict gets it (strides * itemsize)
        isz = c["itemsize"]
        assert S.footprint(c["shape"], [s * isz for s in c["strides"]], isz, c["offset"] * isz) == tuple(c["extent"])


WALKABLE = [c for c in LAYOUTS if isinstance(c["byte_extent"], list) and isinstance(c["numel"], int)
            and c["numel"] <= WALK_MAX]


@pytest.mark.parametrize("c", WALKABLE, ids=label)
def test_elements_and_touched_bytes_fill_the_extent(c):
    shape, bs, isz, off = c["shape"], c["byte_strides"], c["itemsize"], c["byte_offset"]
    lo, hi = c["byte_extent"]
    els = S.elements_in_window(shape, bs, isz, off, lo, hi, limit=WALK_MAX + 1, budget=1 << 24)
    assert len(els) == c["numel"] and not els.truncated
    for idx, start in els:
        assert start == off + sum(i * s for i, s in zip(idx, bs)) and lo <= start and start + isz <= hi
    if els:
        assert min(s for _, s in els) == lo and max(s for _, s in els) + isz == hi
    assert not S.elements_in_window(shape, bs, isz, off, hi, hi + 64)
    touched, hits, exact = S.layout_stats(tuple(shape), tuple(bs), isz)
    assert exact and touched <= hi - lo and (touched == 0) == (c["numel"] == 0)


IDIOMS = [c for c in LAYOUTS if isinstance(c["contiguous"], bool) and isinstance(c["numel"], int) and c["numel"] > 0
          and isinstance(c["byte_extent"], list) and c["shape"]]


@pytest.mark.parametrize("c", IDIOMS, ids=label)
def test_contiguous_idiom_is_libtensors_contiguity(c):
    """A view with elements is tagged "contiguous" exactly when libtensor says its strides are row-major."""
    shape, bs, isz = tuple(c["shape"]), tuple(c["byte_strides"]), c["itemsize"]
    assert S._is_row_major(shape, bs, isz) == c["contiguous"]
    hits = S.layout_stats(shape, bs, isz)[1]
    assert ("contiguous" in S.idiom_tags(shape, bs, isz, hits)) == c["contiguous"]


def test_the_idiom_vectors_include_both_answers():
    assert {c["contiguous"] for c in IDIOMS} == {True, False}
    assert any("extent_one_dim" in c["categories"] for c in IDIOMS)      # a stride that must not count
    assert any("negative_stride" in c["categories"] or "zero_stride" in c["categories"] for c in IDIOMS)


def test_byte_strides_that_are_not_whole_elements_match_numpy_contiguity():
    """The vectors give no contiguity for byte-only layouts; NumPy's C_CONTIGUOUS flag does (it too ignores
    extent-1 strides), so the model's byte-to-element step is checked against it."""
    rng, kinds = random.Random(18), set()
    buf = np.zeros(4096, dtype=np.uint8)
    for _ in range(3000):
        isz = rng.choice([2, 4, 8])
        shape = tuple(rng.choice([1, 1, 2, 3]) for _ in range(rng.randint(1, 3)))
        bs = tuple(rng.choice([isz, 3 * isz, rng.randint(1, 3 * isz), 6 * isz]) for _ in shape)
        a = np.lib.stride_tricks.as_strided(buf.view(f"u{isz}"), shape, bs)
        got, want = S._is_row_major(shape, bs, isz), bool(a.flags.c_contiguous)
        assert got == want, (shape, bs, isz)
        kinds.add((want, any(s % isz for s in bs), any(n == 1 and s % isz for n, s in zip(shape, bs))))
    assert {(True, True, True), (False, True, False), (True, False, False), (False, False, False)} <= kinds, kinds
