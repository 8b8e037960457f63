"""The inspector answers "why do these share, and what did that cost?": who owns which bytes, and the teaching layouts.

Three levels, like the rest of the inspector's tests:

* the model: each view's exclusive and shared bytes and each buffer's union
  (``account_bytes``) against brute force over random layouts, and the text
  summary that prints them;
* the renderer runs under ``node --test`` (tests/js/walk_order_and_owners.test.mjs, run by
  test_widgets_js.py);
* a page of the tour's classic layouts (views, stride tricks, NumPy, a mapped
  file, five views of one bytearray), written here with ``write_page`` as
  ``examples/memory_tour.py`` writes its own and opened in Chromium: the
  logical-order path, element hover across lanes, and the ownership table.
  (It is built here, not taken from the tour, so the tour's prose can change
  without moving these pictures.)

The browser tests need Debian's Chromium and Playwright (``executable_path``;
never ``playwright install``); they skip without them, and fail under CI.
"""
import itertools
import random
import re
from collections import Counter

import numpy as np
import pytest

import pytensor
from pytensor.widgets import _accounting as A
from pytensor.widgets import _geometry as G
from pytensor.widgets import _snapshot as S
from pytensor.widgets import snapshot, to_text
from browser_support import chromium_context, hover, new_page

BASE = 1 << 20                 # a made-up address: build() reads no memory here (read=False)
N_PICTURES = 1500


# ---------------------------------------------------------------- random pictures of one buffer
def random_view(rng, nbytes):
    """A layout that fits in ``[0, nbytes)``: element 0 at a random place, strides of every sign."""
    isz = rng.choice([1, 2, 4, 8])
    nd = rng.choice([0, 1, 1, 2, 2, 3])
    shape = tuple(rng.randint(1, 4) if rng.random() > 0.05 else 0 for _ in range(nd))
    kinds = rng.random()
    if kinds < 0.2:
        strides = tuple(rng.choice([0, isz, -isz]) for _ in range(nd))       # broadcast and flips
    elif kinds < 0.35:
        strides = tuple(rng.randint(-9, 9) for _ in range(nd))                # unaligned, often self-overlapping
    else:
        strides = tuple(rng.randint(-4, 6) * isz for _ in range(nd))
    lo, hi = S.footprint(shape, strides, isz, 0)
    if hi - lo > nbytes:
        return random_view(rng, nbytes)
    return shape, strides, isz, -lo + rng.randint(0, nbytes - (hi - lo))


def item(shape, strides, isz, offset, nbytes):
    """A resolved dict as ``resolve`` makes it, over one owner spanning ``[BASE, BASE + nbytes)``."""
    src = {"key": "owner:test", "kind": "owner", "provenance": "numpy", "label": "test buffer", "readonly": False,
           "refcount": None, "version": None, "device": "cpu", "type": "numpy.ndarray"}
    return {"kind": "ndarray", "type": "numpy.ndarray", "dtype": f"uint{8 * isz}", "itemsize": isz, "endian": "<",
            "shape": shape, "strides": None, "bstrides": strides, "addr0": BASE + offset, "device": "cpu",
            "readonly": False, "version": None, "contiguous": False, "span_lo": BASE, "span_hi": BASE + nbytes,
            "source": src}


def touched(shape, strides, isz, offset):
    return {offset + sum(i * s for i, s in zip(idx, strides)) + k
            for idx in itertools.product(*[range(n) for n in shape]) for k in range(isz)}


def brute(layouts):
    """Exclusive and shared bytes per view, pairwise shared bytes and the union, from byte sets."""
    sets = [touched(*lay) for lay in layouts]
    union = set().union(*sets)
    excl, shared = [], []
    for k, s in enumerate(sets):
        others = set().union(*(t for j, t in enumerate(sets) if j != k))
        excl.append(len(s - others))
        shared.append(len(s & others))
    pairs = {(a, b): len(sets[a] & sets[b]) for a, b in itertools.combinations(range(len(sets)), 2)}
    return excl, shared, pairs, len(union), sets


def picture(rng):
    nbytes = rng.randint(8, 64)
    layouts = [random_view(rng, nbytes) for _ in range(rng.randint(1, 5))]
    if rng.random() < 0.3:                       # a whole-buffer view: the dense-cover rule applies
        layouts.insert(rng.randint(0, len(layouts)), ((nbytes,), (1,), 1, 0))
    return nbytes, layouts


def check_picture(nbytes, layouts):
    items = [(f"v{k}", f"n{k}", item(*lay, nbytes)) for k, lay in enumerate(layouts)]
    snap, _ = S.build(items, read=False)
    assert len(snap["regions"]) == 1, "one owner spans every view, so one buffer"
    r, views = snap["regions"][0], snap["views"]
    excl, shared, pairs, union, sets = brute(layouts)
    for k, v in enumerate(views):
        if v["exclusive_bytes"] is not None:
            assert v["exclusive_bytes"] == excl[k], (layouts, k)
        else:
            assert v["ownership_note"], (layouts, k)
        # shared = touched - exclusive: unknown when either is (a view inside a dense one owns 0 B
        # alone, however many bytes it touches)
        assert v["shared_bytes"] in (None, shared[k]), (layouts, k)
        assert (v["shared_bytes"] is None) == (v["exclusive_bytes"] is None or v["touched_bytes"] is None)
        partners = {int(w[1:]) for w in v["overlaps_with"]}
        # every view that really shares a byte is named (pairs whose count is unknown may be named too)
        assert {j for j in range(len(sets)) if j != k and sets[j] & sets[k]} <= partners, (layouts, k)
    for o in snap["overlaps"]:
        a, b = sorted((int(o["a"][1:]), int(o["b"][1:])))
        assert o["shared_bytes"] in (None, pairs[(a, b)]), (layouts, o)
    if r["union_bytes"] is not None:
        assert r["union_bytes"] == union, layouts
    else:
        assert r["union_note"], layouts
    sizes = [len(s) for s in sets]
    assert r["touched_sum"] in (None, sum(sizes))
    return snap, excl, sets


def flat(text):
    """The text with every run of whitespace (line wraps and their indents) as one space."""
    return re.sub(r"\s+", " ", text)


def test_exclusive_shared_and_union_bytes_match_brute_force():
    rng = random.Random(19)
    seen = Counter()
    for _ in range(N_PICTURES):
        nbytes, layouts = picture(rng)
        snap, excl, sets = check_picture(nbytes, layouts)
        assert all(v["exclusive_bytes"] is not None for v in snap["views"]), layouts   # small: always exact
        assert snap["regions"][0]["union_bytes"] is not None
        pairs = list(itertools.combinations(sets, 2))
        seen["overlapping"] += any(a & b for a, b in pairs)
        seen["disjoint"] += any(a and b and not a & b for a, b in pairs)
        seen["self-overlapping"] += any(v["max_hits"] > 1 for v in snap["views"])
        seen["3+ sharing one byte"] += any(
            sum(b in s for s in sets) >= 3 for b in set().union(*sets)) if sets else 0
        seen["partly exclusive"] += any(0 < e < len(s) for e, s in zip(excl, sets))
        seen["negative stride"] += any(any(x < 0 for x in lay[1]) for lay in layouts)
    # the generator produced every case the test claims to cover
    for kind, at_least in [("overlapping", 400), ("disjoint", 150), ("self-overlapping", 300),
                           ("3+ sharing one byte", 150), ("partly exclusive", 300), ("negative stride", 400)]:
        assert seen[kind] >= at_least, (kind, seen)


def test_views_too_large_to_count_get_none_and_a_reason(monkeypatch):
    """With tiny limits the rules and the sweep may leave numbers unknown; what they do say is exact."""
    rng = random.Random(20)
    monkeypatch.setattr(G, "EXACT_LIMIT", 6)          # each limit where it lives
    monkeypatch.setattr(A, "ACCOUNT_EVENTS", 12)
    S.layout_stats.cache_clear()
    S._shared_cached.cache_clear()
    try:
        unknown = known = 0
        for _ in range(600):
            nbytes, layouts = picture(rng)
            snap, _, _ = check_picture(nbytes, layouts)
            unknown += sum(v["exclusive_bytes"] is None for v in snap["views"])
            known += sum(v["exclusive_bytes"] is not None for v in snap["views"])
        assert unknown >= 50 and known >= 500, (unknown, known)
    finally:
        S.layout_stats.cache_clear()
        S._shared_cached.cache_clear()


def test_a_view_inside_a_dense_view_owns_nothing_even_when_too_big_to_walk():
    big = pytensor.empty(1 << 24, dtype=pytensor.float32)          # 64 MiB, never touched
    snap, _ = snapshot(big, big[::2], big[:10], names=["big", "evens", "head"])
    v = {x["name"]: x for x in snap["views"]}
    assert v["evens"]["numel"] > S.EXACT_LIMIT
    assert v["evens"]["exclusive_bytes"] == 0 and v["head"]["exclusive_bytes"] == 0
    assert snap["regions"][0]["union_bytes"] == 1 << 26
    # big's odd elements are its own, but evens is too big to count which of big's bytes it takes
    assert v["big"]["exclusive_bytes"] is None and "evens" in v["big"]["ownership_note"]


def test_the_teaching_layouts_account_as_a_teacher_expects():
    a = np.arange(8, dtype=np.int32)
    snap, blob = snapshot(a[:3], a[2:6], a[1:7:2], a[::-1][:2], names=["head", "mid", "odds", "tail"])
    v = {x["name"]: x for x in snap["views"]}
    # head: a[0] alone; mid: a[4] alone; odds: every element is in head or mid; tail: a[7], a[6] alone
    assert [v[n]["exclusive_bytes"] for n in ("head", "mid", "odds", "tail")] == [4, 4, 0, 8]
    pair = {frozenset((o["a"], o["b"])): o["shared_bytes"] for o in snap["overlaps"]}
    odds = v["odds"]
    assert [(w, pair[frozenset((w, odds["id"]))]) for w in odds["overlaps_with"]] == [("v0", 4), ("v1", 8)]
    assert odds["shared_bytes"] == 12 and v["tail"]["overlaps_with"] == []
    r = snap["regions"][0]
    assert r["union_bytes"] == 32 and r["touched_sum"] == 12 + 16 + 12 + 8
    assert {x["provenance"] for x in snap["views"]} == {r["badges"][0]["text"]}     # the array that owns the bytes
    text = flat(to_text(snap, blob))
    assert "its views reach 32 B of this 32 B buffer, each byte once (48 B if each view were counted alone)" in text
    assert "touches 12 B, 0 B alone" in text and "touches 8 B, 8 B alone" in text


def test_the_text_summary_prints_ownership_within_100_columns():
    t = pytensor.arange(64, dtype=pytensor.float64)
    long = "a_name_long_enough_to_push_every_line_of_the_summary_towards_its_right_edge"
    snap, blob = snapshot(t, t[::3], t.view(8, 8).T, t[5:9], t[:1].expand(40),
                          names=["t", "t[::3]", long, "mid", "rep"])
    text = to_text(snap, blob)
    lines = text.splitlines()
    assert max(map(len, lines)) <= 100, max(lines, key=len)
    assert "512 B of this 512 B buffer" in flat(text)
    for v in snap["views"]:
        assert f"touches {v['touched_bytes']} B, {v['exclusive_bytes']} B alone" in flat(text)


# ---------------------------------------------------------------- the tour's own page, in Chromium


@pytest.fixture(scope="module")
def tour_page(tmp_path_factory):
    """The teaching page and the text summary of its last picture: ``(path, text)``."""
    from pytensor.widgets import figure, write_page
    folder = tmp_path_factory.mktemp("teaching")
    base = pytensor.arange(12, dtype=pytensor.int32)
    grid = base.view(3, 4)
    col = grid[:, 2]
    col[:] = -1
    figures = [figure("1. Views: one storage, many shapes", base, grid, col, grid.T, grid[1]),
               figure("2. Stride tricks: broadcast and sliding windows", base, grid[0:1].expand(3, 4),
                      base[:1].expand(6), base.unfold(0, 4, 2))]
    a = np.arange(6, dtype=np.float64).reshape(2, 3)
    figures.append(figure("3. NumPy: asarray shares, copy=True does not", a, pytensor.asarray(a),
                          pytensor.asarray(a, copy=True), names=["a", "asarray(a)", "asarray(a, copy=True)"]))
    path = folder / "weights.bin"
    np.arange(6, dtype=np.float32).tofile(path)
    m = pytensor.from_file(str(path), shared=True, dtype=pytensor.float32)
    tail = m[4:]
    p = pytensor.from_file(str(path), shared=False, dtype=pytensor.float32)
    figures.append(figure("5. from_file: a memory-mapped file", m, tail, p))
    del m, tail, p
    buf = bytearray(range(16))
    base16 = pytensor.frombuffer(buf, dtype=pytensor.int16)
    grid16 = base16.view(2, 4)
    views = [base16, grid16, grid16[:, 1], base16.unfold(0, 3, 2), np.from_dlpack(base16)[::-1]]
    names = ["base", "grid", "col", "window", "flipped"]
    figures.append(figure("7. All together: five views of one bytearray", *views, names=names))
    page = write_page(folder / "teaching.html", figures, title="pytensor memory tour")
    return page, to_text(*snapshot(*views, names=names))


@pytest.fixture(scope="module")
def context():
    yield from chromium_context("pti-teach-chromium-")


@pytest.fixture
def page(context, tour_page):
    pg = new_page(context)
    pg.goto(tour_page[0].as_uri())
    pg.wait_for_function("document.querySelectorAll('svg.pti-svg').length === 5", timeout=10_000)
    yield pg
    assert not pg.errors, pg.errors
    pg.close()


def section(page, heading):
    return page.locator("section.pti-figure").filter(has=page.locator("h3", has_text=heading))


def lane(fig, name):
    return fig.locator(f"g.pti-lane[data-name='{name}']")


# The order path's visible geometry: the centre x of each cell it visits, in visiting order, from
# the cells the browser laid out (not from the path's own attributes).
ORDER_X_JS = """(lane) => {
  const path = lane.querySelector('.pti-order');
  if (!path) return null;
  const cell = (s) => lane.querySelector(`.pti-el[data-start="${s}"]`).getBBox();
  return path.dataset.starts.split(',').map((s) => { const b = cell(s); return b.x + b.width / 2; });
}"""


def test_flipped_lane_order_path_runs_backwards(page):
    fig = section(page, "7. All together")
    flipped, base = lane(fig, "flipped"), lane(fig, "base")
    xs = flipped.evaluate(ORDER_X_JS)
    assert len(xs) == 8 and all(a > b for a, b in zip(xs, xs[1:])), xs     # right to left
    xb = base.evaluate(ORDER_X_JS)
    assert all(a < b for a, b in zip(xb, xb[1:])), xb                      # left to right
    # the path's arrowheads point the way it walks: each tip is left of its tail in flipped
    tips = flipped.locator(".pti-step-arrow").evaluate_all(
        "(ps) => ps.flatMap((p) => p.getAttribute('d').split('M').filter(Boolean).map((sub) => {"
        " const x = sub.replace('Z', '').split('L').map((q) => +q.trim().split(' ')[0]);"
        " return x[0] - (x[1] + x[2]) / 2; }))")
    assert len(tips) == 7 and all(d < 0 for d in tips), tips
    # indices are drawn on the cells: flipped[0] sits on the last two bytes, flipped[7] on the first
    labels = flipped.locator(".pti-idx").evaluate_all("(ts) => ts.map((t) => [t.textContent, t.getBBox().x])")
    by_text = dict(labels)
    assert by_text["[0]"] > by_text["[7]"], labels


def test_transpose_jumps_and_expand_repeats(page):
    fig = section(page, "1. Views")
    xs = lane(fig, "grid.T").evaluate(ORDER_X_JS)
    steps = [b - a for a, b in zip(xs, xs[1:])]
    assert sum(s < 0 for s in steps) == 3 and sum(s > 0 for s in steps) == 8, steps   # 4 columns: 3 jumps back
    fig2 = section(page, "2. Stride tricks")
    rep = lane(fig2, "base[:1].expand(6)")
    cell = rep.locator(".pti-el")
    assert cell.count() == 1
    assert cell.get_attribute("data-hits") == "6"
    assert cell.get_attribute("data-indices") == "0;1;2;3;4;5"
    loop = rep.locator(".pti-loop")
    assert loop.count() == 1 and "\u00d76" in loop.text_content()
    hover(page, cell)
    tip = page.locator(".pti-tip:visible")
    for k in range(6):
        assert f"[{k}]" in tip.inner_text()


def test_hovering_an_element_highlights_the_same_bytes_in_every_other_lane(page):
    fig = section(page, "7. All together")
    cell = lane(fig, "flipped").locator(".pti-el[data-index='4']")        # bytes [6, 8): base[3]
    assert cell.get_attribute("data-start") == "6"
    hover(page, cell)
    tip = page.locator(".pti-tip:visible")
    text = tip.inner_text()
    for reader in ("flipped[4]", "base[3]", "grid[0, 3]", "window[1, 1]"):
        assert reader in text, text
    assert "col[" not in text and "window[0" not in text, text
    lit = fig.locator(".pti-el.pti-hl").evaluate_all("(es) => es.map((e) => e.closest('.pti-lane').dataset.name)")
    assert sorted(lit) == sorted(["flipped", "base", "grid", "window"]), lit
    # a byte hover still lists every reader and lights their cells
    hover(page, fig.locator(".pti-byte[data-off='2']"))
    text = page.locator(".pti-tip:visible").inner_text()
    for reader in ("base[1]", "grid[0, 1]", "col[0]", "window[0, 1]", "flipped[6]"):
        assert reader in text, text
    assert fig.locator(".pti-el.pti-hl").count() == 5


def test_order_toggle_hides_and_restores_the_path(page):
    fig = section(page, "7. All together")
    assert fig.locator(".pti-order").count() == 5
    fig.locator(".pti-toggle[data-act='order']").click()
    assert fig.locator(".pti-order").count() == 0 and fig.locator(".pti-idx").count() == 0
    assert fig.locator(".pti-toggle[data-act='order']").get_attribute("aria-pressed") == "false"
    fig.locator(".pti-toggle[data-act='order']").click()
    assert fig.locator(".pti-order").count() == 5


def table_rows(fig):
    return fig.locator(".pti-table .pti-row").evaluate_all(
        "(rs) => rs.map((r) => Object.fromEntries([...r.querySelectorAll('[data-col]')]"
        ".map((c) => [c.dataset.col, (c.querySelector('title') || c).textContent.trim()])))")


def test_ownership_table_shows_exclusive_shared_and_the_union(page, tour_page):
    fig = section(page, "7. All together")
    rows = {r["view"]: r for r in table_rows(fig)}
    assert list(rows) == ["base", "grid", "col", "window", "flipped"]
    f = rows["flipped"]
    assert (f["shape"], f["dtype"], f["strides"], f["bstrides"]) == ("(8,)", "int16", "(-1,)", "(-2,)")
    assert (f["storage_offset"], f["byte_offset"]) == ("7", "14")
    assert (f["touched"], f["exclusive"], f["shared"]) == ("16 B", "0 B", "16 B")
    assert f["with"] == "base 16 B, grid 16 B, col 4 B, window 14 B"
    assert f["provenance"] == "DLPack capsule" and rows["base"]["provenance"] == "bytearray"
    assert rows["col"]["touched"] == "4 B" and rows["window"]["shared"] == "14 B"
    total = fig.locator(".pti-table .pti-total").text_content()
    assert "16 B of this 16 B buffer" in total and "66 B" in total
    # a copy owns its bytes alone
    rows3 = {r["view"]: r for r in table_rows(section(page, "3. NumPy"))}
    assert rows3["asarray(a, copy=True)"]["exclusive"] == "48 B" and rows3["a"]["exclusive"] == "0 B"
    # one file, one region: p, a private mapping none of whose pages was written, reads the file's bytes
    # too, so m owns nothing alone and neither does m[4:]
    rows5 = {r["view"]: r for r in table_rows(section(page, "5. from_file"))}
    assert (rows5["m"]["exclusive"], rows5["m"]["shared"], rows5["tail"]["exclusive"]) == ("0 B", "24 B", "0 B")
    assert rows5["p"]["shared"] == "24 B"
    # the same numbers as the text summary the tour printed
    assert "16 B of this 16 B buffer" in tour_page[1]
    # the table folds away and comes back
    fig.locator(".pti-toggle[data-act='table']").click()
    assert fig.locator(".pti-table").count() == 0
    fig.locator(".pti-toggle[data-act='table']").click()
    assert fig.locator(".pti-table .pti-row").count() == 5


def test_tour_page_text_never_overlaps(page, tmp_path):
    """No two text boxes of one picture overlap, and none runs past the picture's edge."""
    overlaps = page.evaluate("""() => {
      const out = [];
      for (const svg of document.querySelectorAll('svg.pti-svg')) {
        const w = +svg.getAttribute('width');
        const boxes = [...svg.querySelectorAll('text')].filter((t) => t.textContent.trim()).map((t) => {
          const r = t.getBoundingClientRect(); return [t.textContent, r.left, r.top, r.right, r.bottom]; });
        const s = svg.getBoundingClientRect();
        for (const [t, l, tp, r] of boxes) if (r > s.left + w + 0.5 || l < s.left - 0.5) out.push(['edge', t]);
        for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
          const [a, al, at, ar, ab] = boxes[i], [b, bl, bt, br, bb] = boxes[j];
          const dx = Math.min(ar, br) - Math.max(al, bl), dy = Math.min(ab, bb) - Math.max(at, bt);
          if (dx > 1 && dy > 1) out.push([a, b]);
        }
      }
      return out;
    }""")
    assert overlaps == [], overlaps[:10]
    page.screenshot(path=str(tmp_path / "tour.png"), full_page=True)
