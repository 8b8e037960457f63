"""The inspector's work is bounded by the picture, not by the square of its views or the size of a file.

Counted, never timed (timings are tests/bench/bench_inspector.py's): pairs of views compared,
pairs whose shared bytes were counted element by element, pages of mapped files asked about,
views described in the text summary. Where a bound leaves something out, the snapshot and the
text say "showing N of M".
"""
import os
import random

import numpy as np

import pytensor
from pytensor.widgets import _pairs as P
from pytensor.widgets import _snapshot as S
from pytensor.widgets import snapshot, to_text
from pytensor.widgets._export import TEXT_VIEWS
from pytensor.widgets._pairs import Work


def brute_meeting(fps):
    return [(i, j) for j in range(len(fps)) for i in range(j)
            if fps[i][1] > fps[i][0] and fps[j][1] > fps[j][0] and fps[i][0] < fps[j][1] and fps[j][0] < fps[i][1]]


def test_listed_prefix_counts_every_meeting_pair_and_cuts_at_the_budget():
    rng = random.Random(7)
    kinds = set()
    for case in range(400):
        n = rng.randrange(0, 30)
        fps = []
        for _ in range(n):
            lo = rng.randrange(0, 50)
            fps.append((lo, lo + rng.choice([0, 1, 3, 10, 40])))
        budget = rng.randrange(0, 40)
        k, total = P.listed_prefix(fps, budget)
        pairs = brute_meeting(fps)
        assert total == len(pairs), fps
        among = lambda m: sum(1 for i, j in pairs if j < m)     # noqa: E731
        assert among(k) <= budget and (k == n or among(k + 1) > budget), (fps, budget, k)
        kinds.add("cut" if k < n else "all")
        kinds.update(["empty"] if any(lo == hi for lo, hi in fps) else [])
    assert kinds == {"cut", "all", "empty"}, kinds


def test_inside_another_dense_view_agrees_with_checking_every_pair():
    rng = random.Random(3)
    seen = set()
    for case in range(300):
        group = []
        for k in range(rng.randrange(1, 12)):
            lo = rng.randrange(0, 20)
            group.append({"id": k, "footprint": [lo, lo + rng.randrange(0, 12)], "dense": rng.random() < 0.5})
        got = S._inside_another_dense(group)
        want = [any(d is not v and d["dense"] and S._inside(v, d) for d in group) for v in group]
        assert got == want, group
        seen.update(got)
    assert seen == {True, False}


def test_a_thousand_overlapping_strided_views_list_a_bounded_number_of_pairs():
    base = pytensor.arange(1 << 16, dtype=pytensor.int32)
    n = 1000
    views = [base[k:k + 4000:(k % 7) + 2] for k in range(n)]
    work = Work()
    snap, _ = snapshot(*views, work=work)
    r, = snap["regions"]
    assert r["overlaps_total"] == n * (n - 1) // 2            # every pair meets, and every pair is counted
    assert len(snap["overlaps"]) == work.pairs_listed <= P.MAX_PAIRS
    assert work.pairs_visited <= P.MAX_PAIRS                  # not n^2 / 2 = 499,500
    assert work.pairs_counted <= P.COUNTED_PAIRS and work.count_work <= P.COUNT_WORK
    # the pairs listed are all of those among the first views, in the inspected order
    k = int(r["overlaps_note"].split("first ")[1].split(" ")[0].replace(",", ""))
    assert len(snap["overlaps"]) == k * (k - 1) // 2
    assert {(o["a"], o["b"]) for o in snap["overlaps"]} == {(f"v{i}", f"v{j}") for j in range(k) for i in range(j)}
    assert r["overlaps_note"].startswith(f"too many overlapping pairs to list: showing {len(snap['overlaps']):,} "
                                         f"of {n * (n - 1) // 2:,}")
    # pairs whose bytes were not counted say so (None), and the counted ones are exact
    counted = [o for o in snap["overlaps"] if o["shared_bytes"] is not None]
    assert 0 < len(counted) < len(snap["overlaps"])
    vmap = {v["id"]: v for v in snap["views"]}
    for o in counted[:20]:
        a, b = vmap[o["a"]], vmap[o["b"]]
        assert o["shared_bytes"] == S.shared_bytes(a, b)


def test_who_owns_what_is_the_same_whether_every_pair_is_listed_or_not(monkeypatch):
    base = np.arange(4096, dtype=np.int32)
    views = [base[k * 7:k * 7 + 900:(k % 4) + 1] for k in range(60)] + [base[2000:2100]]
    full, _ = snapshot(*views)
    assert full["regions"][0]["overlaps_note"] == ""
    monkeypatch.setattr(S, "MAX_PAIRS", 40)
    cut, _ = snapshot(*views)
    assert cut["regions"][0]["overlaps_note"] and len(cut["overlaps"]) <= 40
    keys = ("exclusive_bytes", "shared_bytes", "touched_bytes")
    assert [[v[k] for k in keys] for v in cut["views"]] == [[v[k] for k in keys] for v in full["views"]]
    assert cut["regions"][0]["union_bytes"] == full["regions"][0]["union_bytes"]
    # and the numbers are right: each byte once, by brute force over the views' element offsets
    touched = np.zeros(base.nbytes, dtype=np.int32)
    for v in views:
        start = (v.__array_interface__["data"][0] - base.__array_interface__["data"][0])
        for off in start + np.arange(v.size) * v.strides[0]:
            touched[off:off + 4] += 1
    assert full["regions"][0]["union_bytes"] == np.count_nonzero(touched)


def test_ten_thousand_dense_views_are_summarised_not_listed():
    base = pytensor.arange(1 << 16, dtype=pytensor.int32)
    n = 10_000
    views = [base[k % 600:k % 600 + 6400] for k in range(n)]
    work = Work()
    snap, blob = snapshot(*views, work=work)
    assert work.pairs_visited <= P.MAX_PAIRS and work.pairs_counted == 0
    assert snap["regions"][0]["overlaps_total"] == n * (n - 1) // 2
    text = to_text(snap, blob)
    lanes = [line for line in text.splitlines() if line.startswith("  #") and "|" in line]
    assert len(lanes) == TEXT_VIEWS
    assert f"too many to list: showing {TEXT_VIEWS} of this buffer's {n} views" in text
    assert "too many overlapping pairs to list: showing" in text


def test_a_mapped_file_is_asked_about_once_per_picture_and_not_past_the_budget(tmp_path, monkeypatch):
    page = pytensor.UntypedStorage.page_nbytes
    path = os.path.join(tmp_path, "f.bin")
    t = pytensor.from_file(path, shared=True, size=16 * page, dtype=pytensor.uint8)
    t[3 * page] = 1
    work = Work()
    snap, _ = snapshot(t, t[::2], t[page:], work=work)
    f = snap["regions"][0]["file"]
    assert work.pages_asked == 16                    # three views of one storage: one question
    assert f["resident"] is not None and any(a <= 3 * page and 4 * page <= b for a, b in f["resident"])
    from pytensor.widgets import _files
    monkeypatch.setattr(_files, "PICTURE_PAGES", 15)
    work = Work()
    snap, _ = snapshot(t, t[::2], work=work)
    f = snap["regions"][0]["file"]
    assert work.pages_asked == 0 and f["resident"] is None
    assert f["resident_note"].startswith("not asked: the mapping has 16 pages and one picture asks about at most 15")
    assert "not asked: the mapping has 16 pages" in to_text(*snapshot(t))


def test_the_exact_ownership_sweeps_of_one_buffer_share_one_budget(monkeypatch):
    """Groups of views that do not meet are swept one by one; together they spend one budget, so a
    buffer with many such groups costs at most ACCOUNT_EVENTS sorted starts, not that per group."""
    from pytensor.widgets import _accounting as A
    monkeypatch.setattr(A, "ACCOUNT_EVENTS", 200)
    base = pytensor.arange(4096, dtype=pytensor.int32)
    # four groups far apart, each three strided views that share elements (steps 2, 3, 2 from o and o + 1):
    # 60 + 40 + 60 = 160 element starts to sweep a group
    objs = []
    for o in (0, 1000, 2000, 3000):
        objs += [base[o:o + 120:2], base[o:o + 120:3], base[o + 1:o + 121:2]]
    snap, _ = snapshot(*objs)
    views = snap["views"]
    assert len(snap["regions"]) == 1 and len(views) == 12
    counted = [v for v in views if v["exclusive_bytes"] is not None]
    refused = [v for v in views if v["exclusive_bytes"] is None]
    assert len(counted) == 3 and len(refused) == 9               # the first group fits, then the budget is spent
    assert all("too many to count" in v["ownership_note"] for v in refused)
    monkeypatch.setattr(A, "ACCOUNT_EVENTS", 1000)
    snap, _ = snapshot(*objs)
    assert all(v["exclusive_bytes"] is not None for v in snap["views"])  # with room for all four, every view is exact
