"""The inspector's pure model: footprints, grouping by memory, overlaps,
provenance, bounded previews and the kernel-free outputs. No widget library
and no browser are needed."""
import gc
import itertools
import json
import re
import sys

import numpy as np
import pytest

import pytensor
from pytensor.widgets import _snapshot as S
from pytensor.widgets import snapshot, to_html, to_text
from pytensor.widgets._pairs import Work


def views_by_name(snap):
    return {v["name"]: v for v in snap["views"]}


def region_of(snap, name):
    v = views_by_name(snap)[name]
    return next(r for r in snap["regions"] if r["id"] == v["region"])


# ---------------------------------------------------------------- layout arithmetic
@pytest.mark.parametrize("shape,bstrides,isz,base,expected", [
    ((4,), (4,), 4, 0, (0, 16)),
    ((3, 4), (16, 4), 4, 8, (8, 56)),
    ((3,), (-8,), 8, 16, (0, 24)),            # flipped: element 0 is the last in memory
    ((3, 4), (0, 4), 4, 0, (0, 16)),          # broadcast rows
    ((0, 5), (20, 4), 4, 12, (12, 12)),       # empty
    ((), (), 2, 6, (6, 8)),                   # scalar
])
def test_footprint_formula(shape, bstrides, isz, base, expected):
    assert S.footprint(shape, bstrides, isz, base) == expected


def brute_elements(shape, bstrides, isz, base, lo, hi):
    out = []
    for idx in itertools.product(*[range(n) for n in shape]):
        o = base + sum(i * s for i, s in zip(idx, bstrides))
        if o < hi and o + isz > lo:
            out.append((idx, o))
    return sorted(out)


def test_elements_in_window_matches_brute_force():
    import random
    rng = random.Random(7)
    for _ in range(1500):
        nd = rng.randint(0, 3)
        shape = tuple(rng.randint(0, 4) for _ in range(nd))
        isz = rng.choice([1, 2, 4, 8])
        bstrides = tuple(rng.randint(-3, 3) * isz for _ in range(nd))
        lo = rng.randint(40, 160)
        hi = lo + rng.randint(0, 40)
        got = sorted(S.elements_in_window(shape, bstrides, isz, 100, lo, hi))
        assert got == brute_elements(shape, bstrides, isz, 100, lo, hi), (shape, bstrides, isz, lo, hi)


def test_elements_in_window_work_is_bounded_on_huge_views():
    els = S.elements_in_window((1 << 20, 1 << 10), (4096, 4), 4, 0, 1 << 30, (1 << 30) + 64)
    assert [e[1] for e in els] == list(range(1 << 30, (1 << 30) + 64, 4))
    # the work follows the answer (16 elements), not the 2**30 elements of the view
    assert 16 <= els.visited <= 2 * 16 + 2, els.visited


def test_layout_stats_counts_self_overlap():
    assert S.layout_stats((12,), (4,), 4) == (48, 1, True)            # contiguous
    assert S.layout_stats((3, 4), (0, 4), 4) == (16, 3, True)         # expand: every byte 3x
    assert S.layout_stats((5, 4), (8, 4), 4) == (48, 2, True)         # unfold(0, 4, 2)
    assert S.layout_stats((4,), (3,), 4) == (13, 2, True)             # as_strided, unaligned bytes
    touched, hits, exact = S.layout_stats((1 << 23, 2), (4, 4), 4)    # too big to count
    assert (touched, hits, exact) == (None, 2, False)


# ---------------------------------------------------------------- one storage, many views
def test_views_of_one_storage_make_one_region_with_footprints():
    base = pytensor.arange(12, dtype=pytensor.int32)
    grid = base.view(3, 4)
    col = grid[:, 2]
    snap, blob = snapshot(base, grid, col, grid.T, names=["base", "grid", "col", "gT"])
    assert len(snap["regions"]) == 1
    r = snap["regions"][0]
    assert r["nbytes"] == 48 and r["host"] and r["addr"] == hex(base.untyped_storage().data_ptr())
    v = views_by_name(snap)
    assert v["col"]["footprint"] == [8, 44] and v["col"]["byte_offset"] == 8 and v["col"]["storage_offset"] == 2
    assert v["col"]["strides"] == [4] and v["col"]["bstrides"] == [16]
    assert v["col"]["touched_bytes"] == 12 and v["col"]["tags"] == ["strided"]
    assert v["gT"]["tags"] == ["transposed"] and v["grid"]["tags"] == ["contiguous"]
    for name, t in (("base", base), ("col", col)):
        assert v[name]["footprint"] == list(t._byte_range())
    # the preview is the storage's bytes, sent as bytes
    assert isinstance(blob, bytes) and blob[r["preview"]["pos"]:][:48] == bytes(np.asarray(base).tobytes())


def test_overlaps_are_exact_where_cheap():
    base = pytensor.arange(16, dtype=pytensor.int32)
    grid = base.view(4, 4)
    row, col, left, right = grid[1], grid[:, 1], base[:8], base[8:]
    snap, _ = snapshot(row, col, left, right, names=["row", "col", "left", "right"])
    pairs = {(o["a"], o["b"]): o for o in snap["overlaps"]}
    ids = {v["name"]: v["id"] for v in snap["views"]}
    rc = pairs[(ids["row"], ids["col"])]
    assert (rc["lo"], rc["hi"], rc["shared_bytes"]) == (16, 32, 4)     # they meet in grid[1, 1]
    assert (ids["left"], ids["right"]) not in pairs                       # disjoint halves
    assert pairs[(ids["col"], ids["right"])]["shared_bytes"] == 8        # col[2], col[3]


def test_stride_tricks_are_tagged_and_marked():
    base = pytensor.arange(12, dtype=pytensor.int32)
    row = base.view(3, 4)[0:1].expand(3, 4)
    win = base.unfold(0, 4, 2)
    odd = base.as_strided((4, 3), (2, 1))
    snap, _ = snapshot(row, win, odd, names=["row", "win", "odd"])
    v = views_by_name(snap)
    assert "broadcast" in v["row"]["tags"] and v["row"]["max_hits"] == 3 and v["row"]["self_overlap"]
    assert v["win"]["tags"] == ["sliding window", "overlapping"] and v["win"]["max_hits"] == 2
    assert "overlapping" in v["odd"]["tags"] and v["odd"]["self_overlap"]


def test_flipped_numpy_view_and_dlpack_import_of_it():
    a = np.arange(8, dtype=np.float32)
    flipped = a[::-1]
    snap, _ = snapshot(a, flipped, names=["a", "flipped"])
    v = views_by_name(snap)
    assert v["flipped"]["tags"] == ["flipped"] and v["flipped"]["footprint"] == [0, 32]
    assert v["flipped"]["byte_offset"] == 28 and v["flipped"]["bstrides"] == [-4]
    t = pytensor.from_dlpack(flipped)              # negative strides survive the import
    snap, _ = snapshot(a, t, names=["a", "t"])
    assert len(snap["regions"]) == 1
    v = views_by_name(snap)["t"]
    assert v["tags"] == ["flipped"] and v["strides"] == [-1] and (v["byte_offset"], v["footprint"]) == (28, [0, 32])


# ---------------------------------------------------------------- grouping by memory, provenance
def test_numpy_array_and_its_tensor_are_one_region():
    a = np.arange(6, dtype=np.float64)
    t = pytensor.from_numpy(a)
    c = pytensor.asarray(a, copy=True)
    snap, _ = snapshot(a, t, c, names=["a", "t", "c"])
    assert len(snap["regions"]) == 2
    r = region_of(snap, "a")
    assert set(r["views"]) == {views_by_name(snap)["a"]["id"], views_by_name(snap)["t"]["id"]}
    kinds = {b["kind"] for b in r["badges"]}
    assert {"numpy", "refs", "version"} <= kinds
    assert region_of(snap, "c")["badges"][0]["text"] == "owned by pytensor"


def test_two_frombuffer_tensors_at_different_offsets_share_one_region():
    buf = bytearray(range(16))
    lo = pytensor.frombuffer(buf, dtype=pytensor.int16, count=4)
    hi = pytensor.frombuffer(buf, dtype=pytensor.int32, offset=8)
    assert lo.untyped_storage() is not hi.untyped_storage()
    snap, blob = snapshot(buf, lo, hi, names=["buf", "lo", "hi"])
    assert len(snap["regions"]) == 1
    r = snap["regions"][0]
    assert r["nbytes"] == 16 and len(r["sources"]) >= 2
    v = views_by_name(snap)
    assert v["lo"]["footprint"] == [0, 8] and v["hi"]["footprint"] == [8, 16]
    assert not any({o["a"], o["b"]} == {v["lo"]["id"], v["hi"]["id"]} for o in snap["overlaps"])
    assert blob[:16] == bytes(range(16))


def test_read_only_bytes_get_a_lock():
    frozen = b"\x01\x02\x03\x04"
    t = pytensor.frombuffer(frozen, dtype=pytensor.uint8)
    snap, _ = snapshot(t, names=["t"])
    texts = [b["text"] for b in snap["regions"][0]["badges"]]
    assert "read-only" in texts and any("bytes" in x for x in texts)
    assert snap["views"][0]["readonly"] and snap["regions"][0]["readonly"]


def test_file_badge_names_path_and_mode(tmp_path):
    path = tmp_path / "weights.bin"
    m = pytensor.from_file(str(path), shared=True, size=16, dtype=pytensor.uint8)
    snap, _ = snapshot(m, m[4:8], names=["m", "part"])
    b = [x for x in snap["regions"][0]["badges"] if x["kind"] == "file"]
    assert b and str(path) in b[0]["text"] and "shared" in b[0]["text"]


def test_numpy_memmap_names_its_file(tmp_path):
    path = tmp_path / "m.bin"
    mm = np.memmap(path, dtype=np.int32, mode="w+", shape=(8,))
    t = pytensor.from_numpy(mm[2:6])
    snap, _ = snapshot(mm, t, names=["mm", "t"])
    assert len(snap["regions"]) == 1
    texts = [b["text"] for b in snap["regions"][0]["badges"]]
    assert any(str(path) in x and "w+" in x for x in texts), texts
    assert views_by_name(snap)["t"]["footprint"] == [8, 24]


def test_dlpack_import_is_grouped_with_its_producer():
    src = np.linspace(0, 1, 8, dtype=np.float32)
    d = pytensor.from_dlpack(src)
    snap, _ = snapshot(src, d, d[::2], names=["src", "d", "evens"])
    assert len(snap["regions"]) == 1
    kinds = [b["kind"] for b in snap["regions"][0]["badges"]]
    assert "dlpack" in kinds and "numpy" in kinds
    dl = next(b for b in snap["regions"][0]["badges"] if b["kind"] == "dlpack")
    assert "cpu" in dl["text"]


def test_numpy_view_of_a_tensor_uses_the_tensor_storage():
    t = pytensor.arange(8, dtype=pytensor.int32)
    arr = t.numpy()[2:6]
    snap, _ = snapshot(t, arr, names=["t", "arr"])
    assert len(snap["regions"]) == 1 and views_by_name(snap)["arr"]["footprint"] == [8, 24]


def test_memoryview_and_bytearray_resolve_to_the_same_memory():
    buf = bytearray(range(16))
    mv = memoryview(buf)[4:12:2]
    snap, _ = snapshot(buf, mv, names=["buf", "mv"])
    assert len(snap["regions"]) == 1
    assert views_by_name(snap)["mv"]["footprint"] == [4, 11]
    assert views_by_name(snap)["mv"]["touched_bytes"] == 4


def test_unsupported_objects_are_refused_clearly():
    with pytest.raises(TypeError, match="pytensor tensors, NumPy arrays and buffer objects"):
        snapshot(object())


# ---------------------------------------------------------------- large buffers stay small
def test_one_gib_storage_gives_a_bounded_preview_fast():
    big = pytensor.empty(1 << 28, dtype=pytensor.float32)     # 1 GiB, never touched
    work = Work()
    snap, blob = snapshot(big, big[::1024], big[1 << 27:], names=["big", "sparse", "half"], work=work)
    # every pair is settled by layout rules (or refused as too costly): no element-by-element count
    assert (work.pairs_visited, work.pairs_counted, work.count_work) == (3, 0, 0)
    r = snap["regions"][0]
    assert r["nbytes"] == 1 << 30 and len(blob) == S.PREVIEW_BYTES
    assert r["preview"]["length"] == S.PREVIEW_BYTES
    v = views_by_name(snap)
    assert v["sparse"]["touched_bytes"] == (1 << 18) * 4 and v["half"]["footprint"] == [1 << 29, 1 << 30]
    shared = next(o for o in snap["overlaps"] if {o["a"], o["b"]} == {v["big"]["id"], v["half"]["id"]})
    assert shared["shared_bytes"] == 1 << 29
    assert len(json.dumps(snap)) < 20_000


def test_windows_move_the_preview():
    big = np.arange(1 << 16, dtype=np.uint8)
    snap, _ = snapshot(big, names=["big"])
    rid = snap["regions"][0]["id"]
    snap2, blob2 = snapshot(big, names=["big"], windows={rid: 10_000})
    p = snap2["regions"][0]["preview"]
    assert p["start"] == 10_000 and blob2[:4] == bytes(big[10_000:10_004])


# ---------------------------------------------------------------- observing changes nothing
def test_snapshot_keeps_no_reference_and_no_storage_reference():
    t = pytensor.arange(6, dtype=pytensor.float32)
    st = t.untyped_storage()
    before = (sys.getrefcount(t), sys.getrefcount(st), st.refcount)
    snapshot(t, t[::2], names=["t", "e"])
    gc.collect()
    assert (sys.getrefcount(t), sys.getrefcount(st), st.refcount) == before


# ---------------------------------------------------------------- kernel-free outputs
def test_text_summary_lists_buffers_views_and_sharing():
    base = pytensor.arange(8, dtype=pytensor.int16)
    text = to_text(*snapshot(base, base[::2], names=["base", "evens"]))
    lines = text.splitlines()
    assert lines[0] == "pytensor memory inspector: 2 views of 1 buffer"
    assert "owned by pytensor" in lines[1]
    k = next(i for i, x in enumerate(lines) if x.strip().startswith("evens") and x.endswith("|"))   # its bar
    assert lines[k].endswith("|##..##..##..##  |")
    about = " ".join(lines[k + 1:])
    assert "shares 8 B with base" in about and "strided" in about and "values [0]=0, [1]=2" in about
    assert max(map(len, lines)) <= 100


def test_html_export_is_self_contained():
    base = pytensor.arange(8, dtype=pytensor.int16)
    html = to_html(*snapshot(base, base[::2], names=["base", "evens"]))
    assert html.startswith("<!DOCTYPE html>")
    assert "export function renderSvg" in html and "mountStatic(" in html and ".pti-root" in html
    assert not re.search(r"""(src|href)\s*=\s*["']?https?:""", html)
    assert "cdn" not in html.lower()
