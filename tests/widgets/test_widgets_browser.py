"""The inspector in a real browser, and the memory tour that teaches with it.

The tour (examples/memory_tour.py, and the notebook made from it) asks
questions and answers each with computed text and one picture;
tests/tour_expectations.py is the table of what each picture must draw and
what each answer must say, and of the claims an answer makes about its
picture ("`x` shares `y`'s bytes", "`x` has its own bytes", ...), which are
checked against what the browser drew.

1. JupyterLab, started headless on 127.0.0.1 with a random token, serves a
   copy of examples/memory_tour.ipynb. Playwright drives Debian's Chromium
   (``executable_path``; never ``playwright install``): it runs every cell,
   checks each answer against its live picture, then types new cells that
   write through an alias (seen through pytensor's write counter) and, from a
   background thread, through NumPy (seen only by the front end's poll), and
   asserts that the widgets redrew.
2. The page ``python examples/memory_tour.py`` writes is opened from
   file://: each figure's answer against its picture (hovering the bytes an
   answer names), fast rendering, unclipped tooltips, hatching ids.
3. The static export (``Inspector.save_html``) is opened with no kernel: the
   SVG renders, hover lists the readers of a byte, and the 1 GiB overview
   zooms to bytes; the text, widget and page agree on the teaching layouts.

Screenshots go to $PYTENSOR_ARTIFACTS (default: the test's tmp dir).
Skips when Chromium, Playwright or JupyterLab is missing; fails under CI.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from browser_support import (artifacts_dir, chromium_context, hover, jupyter_env, jupyter_server, live_page,
                             new_page, run_all_cells, run_tour)
from support import require_module, require_program, teaching_cases
from tour_expectations import QUESTIONS, check_claims, check_lanes, check_says, flat

ROOT = Path(__file__).resolve().parents[2]
TOUR = ROOT / "examples" / "memory_tour.ipynb"


@pytest.fixture(scope="module")
def chromium():
    path = require_program(os.environ.get("CHROMIUM", "/usr/bin/chromium"))
    require_module("playwright")
    require_module("anywidget")
    return path


@pytest.fixture(scope="module")
def artifacts(tmp_path_factory):
    return artifacts_dir(tmp_path_factory.mktemp("artifacts"))


@pytest.fixture(scope="module")
def context(chromium):
    yield from chromium_context()


@pytest.fixture
def page(context):
    pg = new_page(context)
    yield pg
    pg.close()


@pytest.fixture(scope="module")
def lab(chromium, artifacts):
    require_module("jupyterlab")
    require_module("ipykernel")
    tmp = Path(tempfile.mkdtemp(prefix="pti-jlab-"))
    root = tmp / "nb"
    root.mkdir()
    shutil.copy(TOUR, root / TOUR.name)            # JupyterLab autosaves: serve a copy
    try:
        yield from jupyter_server("jupyterlab", root, jupyter_env(tmp), artifacts / "jupyterlab.log")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _run_new_cell(page, panel, source):
    """Append a cell after the last one, type ``source`` and run it (Shift+Enter)."""
    panel.locator(".jp-Cell").last.locator(".jp-InputPrompt").click()
    page.keyboard.press("Escape")
    page.keyboard.press("b")
    page.keyboard.press("Enter")
    page.keyboard.insert_text(source)
    page.keyboard.press("Shift+Enter")


# Each cell of the notebook as JupyterLab shows it: its rendered heading, its printed text, its picture.
CELLS_JS = """(cells) => cells.map((c) => ({
  heading: (c.querySelector('.jp-RenderedMarkdown h2') || {textContent: ''}).textContent.replace('\\u00b6', '').trim(),
  stdout: [...c.querySelectorAll(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stdout']")]
    .map((o) => o.textContent).join('\\n'),
  picture: !!c.querySelector('svg.pti-svg'),
}))"""

# What a picture draws, lane by lane, and the marks the answers' claims are checked against.
PICTURE_JS = """(svg) => ({
  lanes: [...svg.querySelectorAll('g.pti-lane')].map((l) => ({name: l.dataset.name, region: l.dataset.region,
    locked: !!l.querySelector('.pti-lock'), temporary: l.classList.contains('pti-temp'),
    copied: l.classList.contains('pti-copied')})),
  badges: [...svg.querySelectorAll('.pti-badge text')].map((t) => t.textContent),
  cow: [...svg.querySelectorAll('.pti-file')].filter((f) => f.querySelector('.pti-cow')).map((f) => f.dataset.region),
  gone: [...svg.querySelectorAll('.pti-gone')].map((t) => t.textContent),
  procs: [...svg.querySelectorAll('.pti-procs')].map((g) => [g.dataset.region,
    [g.dataset.pids.split(' ').filter(Boolean).length, g.dataset.copiedPages === '' ? null : Number(g.dataset.copiedPages)]]),
})"""


def check_picture(question, text, drawn, live=False):
    """The picture draws the question's lanes, and every claim its answer makes holds in it.

    ``live``: a notebook widget after Run All, which also shows what later cells did (temporaries,
    memory freed by a later cell). Returns the byte-reader claims (checked by hovering)."""
    heading = question["heading"]
    check_says(question, text)
    lanes = [(ln["name"], ln["region"]) for ln in drawn["lanes"]]
    expected = question["lanes"]
    if live:
        freed = question.get("freed_later", [])
        expected = [(n, g) for n, g in expected if n not in freed]
        gone = " ".join(drawn["gone"])                # one line: "freed: middle (why), arr (why)"
        assert all(re.search(rf"(freed: |, ){re.escape(n)} \(", gone) for n in freed), (heading, gone)
        assert sorted(ln["name"] for ln in drawn["lanes"] if ln["temporary"]) == sorted(question.get("temporary", []))
        if freed:          # the claims were about the picture before the memory went
            return []
    assert drawn["gone"] == [], (heading, drawn["gone"])
    check_lanes(heading, expected, lanes)
    return check_claims(heading, text, lanes, locked=[ln["name"] for ln in drawn["lanes"] if ln["locked"]],
                        badges=drawn["badges"], copied=[ln["name"] for ln in drawn["lanes"] if ln["copied"]],
                        cow_regions=drawn["cow"], procs=[(r, tuple(n)) for r, n in drawn["procs"]])


def answers_by_question(cells):
    """The printed text under each question's heading, up to the next one, and its picture's index."""
    out, k, current = {}, 0, None
    headings = {q["heading"].replace("`", ""): q["heading"] for q in QUESTIONS}
    for c in cells:
        if c["heading"] in headings:
            current = headings[c["heading"]]
            out[current] = {"text": "", "picture": None}
        elif current is not None:
            out[current]["text"] += c["stdout"] + "\n"
            if c["picture"] and out[current]["picture"] is None:
                out[current]["picture"] = k
        k += c["picture"]
    return out


def test_tour_notebook_answers_match_its_pictures_and_redraw_after_writes(lab, page, artifacts):
    from playwright.sync_api import expect
    base, token = lab
    page.goto(f"{base}/lab/tree/{TOUR.name}?reset&token={token}")
    panel = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)")
    run_all_cells(page, panel)

    svgs = panel.locator(".jp-OutputArea-output svg.pti-svg")
    expect(svgs).to_have_count(len(QUESTIONS), timeout=90_000)
    expect(panel.locator(".jp-OutputArea-output", has_text="as_tensor(t) is t: True")).to_have_count(1,
                                                                                                timeout=60_000)
    assert panel.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']",
                         has_text="Error").count() == 0
    # every answer is under its question, and its picture shows what it says (after the later cells
    # ran: temporaries drawn as such, the memory freed by a later cell said to be freed)
    answers = answers_by_question(panel.locator(".jp-Cell").evaluate_all(CELLS_JS))
    assert list(answers) == [q["heading"] for q in QUESTIONS]
    for k, q in enumerate(QUESTIONS):
        assert answers[q["heading"]]["picture"] == k, q["heading"]
        expect(svgs.nth(k).locator(".pti-gone")).to_have_count(int(bool(q.get("freed_later"))), timeout=20_000)
        check_picture(q, answers[q["heading"]]["text"], svgs.nth(k).evaluate(PICTURE_JS), live=True)
    # the lowest lane's tooltip is not clipped by the widget or by JupyterLab's output area
    lowest = svgs.locator("g.pti-lane[data-name='flipped']")   # question 8's lowest lane, a negative stride
    tip = page.locator(".pti-tip:visible")
    for _ in range(10):     # JupyterLab's windowed notebook may scroll again after laying out its cells, and a
        page.mouse.move(0, 0)                        # scroll hides the tooltip: hover anew until it stays shown
        hover(page, lowest.locator(".pti-el").first)
        page.wait_for_timeout(500)
        if tip.count():
            break
    expect(tip).to_have_count(1)
    expect(tip).to_contain_text("flipped")
    assert tip.evaluate(TIP_CLIPPED_BY) == []

    views = svgs.nth(0)                            # question 1: t, t[::2], t[4:], picked
    expect(views.locator(".pti-val[data-view='v0'][data-index='2']")).to_have_text("-1")   # t[::2][1] = -1 ran
    gen = int(views.get_attribute("data-generation"))

    # 1. a write through pytensor, in another cell: the storage's write counter changes
    _run_new_cell(page, panel, "t[0] = -7")
    expect(views.locator(".pti-val[data-view='v0'][data-index='0']")).to_have_text("-7", timeout=20_000)
    expect(views.locator(".pti-val[data-view='v1'][data-index='0']")).to_have_text("-7")   # t[::2], temporary
    expect(views.locator(".pti-val[data-view='v3'][data-index='0']")).to_have_text("0")    # picked: a copy
    assert int(views.get_attribute("data-generation")) > gen
    root = panel.locator(".pti-root").nth(0)
    assert int(root.get_attribute("data-flashes") or 0) >= 1

    # 2. a NumPy write from a background thread, after the cell finished: only the poll sees it
    crossed = svgs.nth(5)                          # question 6: x, a = np.from_dlpack(x), c (a copy)
    unchanged = crossed.locator(".pti-val[data-view='v2'][data-index='1']").text_content()
    _run_new_cell(page, panel, "import threading; threading.Timer(1.5, a.__setitem__, (1, -5.0)).start()")
    expect(crossed.locator(".pti-val[data-view='v0'][data-index='1']")).to_have_text("-5.", timeout=20_000)
    expect(crossed.locator(".pti-val[data-view='v1'][data-index='1']")).to_have_text("-5.")
    expect(crossed.locator(".pti-val[data-view='v2'][data-index='1']")).to_have_text(unchanged)

    # hover a byte: the tooltip names every reader
    views.locator(".pti-byte[data-off='0']").first.hover()
    tip = page.locator(".pti-tip:visible")
    expect(tip).to_contain_text("t[0]")
    expect(tip).to_contain_text("t[::2][0]")

    # the live widget draws each lane's index order, and folds its ownership table until asked
    expect(views.locator(".pti-order")).to_have_count(4)
    assert views.locator(".pti-table").count() == 0
    views.locator(".pti-toggle[data-act='table']").first.click()
    expect(views.locator(".pti-table .pti-row")).to_have_count(3)             # t, t[::2], t[4:]
    expect(views.locator(".pti-table .pti-total").first).to_contain_text("32 B of this 32 B buffer")

    out = panel.locator(".jp-OutputArea-output").filter(has=page.locator("svg.pti-svg")).first
    out.scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts / "lab_memory_tour.png"))
    out.screenshot(path=str(artifacts / "lab_memory_tour_widget.png"))
    assert not page.errors, page.errors


def test_static_export_renders_hovers_and_zooms_without_a_kernel(page, artifacts, tmp_path):
    from playwright.sync_api import expect
    import pytensor
    from pytensor.widgets import Inspector
    base = pytensor.arange(12, dtype=pytensor.int32)
    grid = base.view(3, 4)
    big = pytensor.empty(1 << 28, dtype=pytensor.float32)
    big[:4] = 1.5
    col, gT, sparse = grid[:, 1], grid.T, big[::1024]      # named: the inspector holds weak references only
    w = Inspector(base, col, gT, big, sparse, names=["base", "col", "gT", "big", "sparse"])
    path = w.save_html(tmp_path / "inspector.html")
    w.close()
    del big

    page.goto(path.as_uri())
    svg = page.locator("svg.pti-svg")
    expect(svg).to_be_visible(timeout=20_000)
    expect(svg.locator(".pti-region")).to_have_count(2)
    expect(svg.locator(".pti-val[data-view='v1'][data-index='2']")).to_have_text("9")
    svg.locator(".pti-byte[data-off='21']").hover()   # element 5 = grid[1, 1]
    tip = page.locator(".pti-tip")
    expect(tip).to_be_visible()
    for reader in ("base[5]", "col[1]", "gT[1, 1]"):
        expect(tip).to_contain_text(reader)

    big_region = svg.locator(".pti-region").nth(1)
    expect(big_region).to_have_class("pti-region pti-summary")
    big_region.locator(".pti-bucket").first.click()
    big_region = page.locator("svg.pti-svg .pti-region").nth(1)
    expect(big_region).to_have_class("pti-region pti-detail")
    expect(big_region.locator(".pti-val[data-view='v3'][data-index='0']")).to_have_text("1.5")
    page.screenshot(path=str(artifacts / "static_export.png"), full_page=True)
    assert not page.errors, page.errors


# ---------------------------------------------------------------- the tour's own page
LANES_JS = "(ls) => ls.map((l) => [l.dataset.name, l.dataset.region])"
# A paragraph's text with each <code> written back in backticks, as the tour printed it.
PROSE_JS = """(ps) => ps.map((p) => { const c = p.cloneNode(true);
  c.querySelectorAll("code").forEach((k) => k.replaceWith("`" + k.textContent + "`")); return c.textContent; })"""

# Every ancestor that could clip the tooltip, and whether the tooltip lies inside it and the viewport.
# A fixed-position tooltip escapes every ancestor's overflow except one that makes itself the
# containing block of fixed descendants (transform, filter, perspective, contain: paint/layout).
TIP_CLIPPED_BY = """(tip) => {
  const r = tip.getBoundingClientRect(), out = [];
  if (r.width === 0 || r.height === 0) out.push("tooltip has no size");
  if (r.left < 0 || r.top < 0 || r.right > innerWidth || r.bottom > innerHeight) out.push("viewport");
  let fixed = getComputedStyle(tip).position === "fixed";
  for (let el = tip.parentElement; el && el !== document.body; el = el.parentElement) {
    const s = getComputedStyle(el);
    const contains = s.transform !== "none" || s.filter !== "none" || s.perspective !== "none"
        || /paint|layout|strict|content/.test(s.contain);
    if (fixed && !contains) continue;
    fixed = false;
    if ([s.overflow, s.overflowX, s.overflowY].some((o) => o !== "visible")) {
      const b = el.getBoundingClientRect();
      if (r.left < b.left - 0.5 || r.top < b.top - 0.5 || r.right > b.right + 0.5 || r.bottom > b.bottom + 0.5)
        out.push(el.className || el.tagName);
    }
  }
  return out;
}"""


@pytest.fixture(scope="module")
def tour_page(tmp_path_factory):
    """The README's first command, run as a newcomer would: it prints the tour and writes the page."""
    require_module("numpy")
    return run_tour(tmp_path_factory.mktemp("tour"))


def printed_answers(printed):
    """The tour's printed output cut at its question lines: ``{heading: text under it}``."""
    out, current = {}, None
    for line in printed.splitlines():
        if line.startswith("== "):
            current = line[3:]
            out[current] = ""
        elif current is not None:
            out[current] += line + "\n"
    return out


def test_tour_prints_in_100_columns_and_computes_its_verdicts(tour_page):
    _, printed = tour_page
    lines = printed.splitlines()
    assert max(map(len, lines)) <= 100, max(lines, key=len)
    answers = printed_answers(printed)
    assert [h for h in answers if h[0].isdigit()] == [q["heading"] for q in QUESTIONS]
    for q in QUESTIONS:
        check_says(q, answers[q["heading"]])
    # messages are printed whole, and names in backticks are never split by the wrapping
    assert "copy it with .clone() to write" in printed and "Use .reshape(...) instead." in printed
    assert all(line.count("`") % 2 == 0 for line in lines), [line for line in lines if line.count("`") % 2]
    verdicts = [line for line in lines if " SHARES " in line or " copies " in line]
    assert len(verdicts) >= 12
    assert "DLPack capsule" in printed


def test_the_answers_follow_the_objects(tmp_path):
    """Were slicing to copy, the tour would say so, in words and in its picture: it computes its
    verdicts. The tour runs here with a pytensor whose slices are clones."""
    require_module("numpy")
    copying = ("import runpy, sys, pytensor\n"
               "get = pytensor.Tensor.__getitem__\n"
               "pytensor.Tensor.__getitem__ = lambda t, i: get(t, i).clone() if isinstance(i, slice) else get(t, i)\n"
               f"sys.argv = ['memory_tour.py']\nrunpy.run_path({str(ROOT / 'examples' / 'memory_tour.py')!r}, "
               "run_name='__main__')\n")
    run = subprocess.run([sys.executable, "-c", copying], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    slicing = flat(printed_answers(run.stdout)[QUESTIONS[0]["heading"]])
    assert "Yes: `t[::2]` has its own bytes" in slicing and "`t[4:]` has its own bytes" in slicing, slicing
    assert "After t[::2][1] = -1, t = [0, 1, 2, 3," in slicing
    assert len(re.findall(r"buffer \d+: ", slicing)) == 4        # the picture: a buffer for each lane
    with pytest.raises(AssertionError):
        check_says(QUESTIONS[0], slicing)


def test_tour_page_pictures_show_what_their_answers_say(page, tour_page, artifacts):
    from playwright.sync_api import expect
    path, printed = tour_page
    t0 = time.monotonic()
    page.goto(path.as_uri())
    svgs = page.locator("svg.pti-svg")
    expect(svgs).to_have_count(len(QUESTIONS), timeout=5_000)     # a renderer that hangs never gets here
    rendered_s = time.monotonic() - t0
    figures = page.locator("section.pti-figure")
    expect(figures).to_have_count(len(QUESTIONS))
    answers = printed_answers(printed)
    for k, q in enumerate(QUESTIONS):
        fig = figures.nth(k)
        expect(fig.locator("h3")).to_have_text(q["heading"])
        paras = fig.locator("p").evaluate_all(PROSE_JS)       # code is set as code: read back as `code`
        text = "\n\n".join(paras)
        # the answer printed is the one on the page (the terminal prints the picture's text as well)
        assert all(flat(para) in flat(answers[q["heading"]]) for para in paras)
        assert "`" not in "".join(fig.locator("p").all_inner_texts()), "raw backticks on the page"
        assert "PyCapsule" not in text, text          # the answers name the capsule as the badges do
        for _, byte, who in check_picture(q, text, fig.locator("svg.pti-svg").evaluate(PICTURE_JS)):
            hover(page, fig.locator(f".pti-byte[data-off='{byte}']"))
            tip = page.locator(".pti-tip:visible").inner_text()
            assert all(w in tip for w in who), (q["heading"], who, tip)
            assert fig.locator(".pti-el.pti-hl").count() == len(who), (q["heading"], who)
    page.screenshot(path=str(artifacts / "memory_tour_page.png"), full_page=True)
    assert rendered_s < 5, rendered_s
    assert not page.errors, page.errors


def test_tour_page_tooltips_of_the_lowest_lanes_are_not_clipped(page, tour_page):
    from playwright.sync_api import expect
    path, _ = tour_page
    page.set_viewport_size({"width": 1100, "height": 700})
    page.goto(path.as_uri())
    expect(page.locator("svg.pti-svg")).to_have_count(len(QUESTIONS), timeout=5_000)
    for k in range(len(QUESTIONS)):
        fig = page.locator("section.pti-figure").nth(k)
        lane = fig.locator("g.pti-lane").last
        target = lane.locator(".pti-el, .pti-run").first
        target.scroll_into_view_if_needed()
        target.hover()
        tip = page.locator(".pti-tip:visible")
        expect(tip).to_have_count(1)
        expect(tip).to_contain_text(lane.get_attribute("data-name"))
        assert tip.evaluate(TIP_CLIPPED_BY) == [], k
        # the byte strip's lowest row of the same buffer too
        byte = fig.locator(".pti-byte, .pti-bucket").last
        byte.hover()
        expect(page.locator(".pti-tip:visible")).to_have_count(1)
        assert page.locator(".pti-tip:visible").evaluate(TIP_CLIPPED_BY) == [], k
    assert not page.errors, page.errors


def test_overlap_hatching_survives_when_another_picture_is_removed(page, tour_page):
    from playwright.sync_api import expect
    path, _ = tour_page
    page.goto(path.as_uri())
    expect(page.locator("svg.pti-svg")).to_have_count(len(QUESTIONS), timeout=5_000)
    ids = page.locator("svg.pti-svg pattern").evaluate_all("(ps) => ps.map((p) => p.id)")
    assert len(ids) == len(set(ids)), "pattern ids repeat across pictures"
    page.locator("section.pti-figure").first.evaluate("(s) => s.remove()")
    dangling = page.evaluate("""() => [...document.querySelectorAll('svg.pti-svg [fill^="url(#"]')]
        .map((n) => n.getAttribute('fill').slice(5, -1)).filter((id) => !document.getElementById(id))""")
    assert dangling == []
    assert page.locator("svg.pti-svg .pti-ovl").count() > 0
    assert not page.errors, page.errors


def test_the_notebook_is_the_script_cut_into_cells(tmp_path):
    """examples/memory_tour.ipynb is exactly what examples/tour_notebook.py makes of memory_tour.py:
    clean (no outputs), and asking the same questions in the same order."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("tour_notebook", ROOT / "examples" / "tour_notebook.py")
    maker = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(maker)
    source = (ROOT / "examples" / "memory_tour.py").read_text(encoding="utf-8")
    assert TOUR.read_text(encoding="utf-8") == maker.render(source), "run: python examples/tour_notebook.py"
    nb = maker.notebook(source)
    assert all(c.get("outputs", []) == [] and c.get("execution_count") is None for c in nb["cells"])
    headings = [c["source"][0][3:] for c in nb["cells"] if c["source"] and c["source"][0].startswith("## ")]
    assert headings[:len(QUESTIONS)] == [q["heading"] for q in QUESTIONS]
    assert not any("argparse" in "".join(c["source"]) or "write_page" in "".join(c["source"]) for c in nb["cells"])


# ---------------------------------------------------------------- one picture, three outputs
def test_static_export_live_widget_and_text_agree_on_the_teaching_layouts(page, tmp_path):
    """The text summary, the live widget and the static page draw the same lanes and bytes, compared element by
    element: the page's cells against the model's elements (the JS geometry against the Python twin), the
    live widget's own drawing against the page's, and each text bar, character by character, against
    the page's cells."""
    from playwright.sync_api import expect
    require_module("anywidget")
    from pytensor.widgets import Inspector, figure, snapshot, to_text, write_page
    from pytensor.widgets._snapshot import elements_in_window
    cases = teaching_cases(tmp_path)
    figures, expected, texts, widgets = [], [], [], []
    for title, objs, names in cases:
        snap, blob = snapshot(*objs, names=names)
        w = Inspector(*objs, names=names)
        live = w.snapshot
        widgets.append(w)
        keys = ("name", "region", "shape", "bstrides", "byte_offset", "footprint", "touched_bytes", "tags")
        assert [[v[k] for k in keys] for v in live["views"]] == [[v[k] for k in keys] for v in snap["views"]], title
        text = to_text(snap, blob)
        assert text.count(" |") >= len(names) and all(f"  {n} " in text for n in names), title
        texts.append(text)
        figures.append(figure(title, *objs, names=names))
        # every element of every view, as (lane, index, first byte): what the page must draw
        # every element of every view, grouped by first byte (one cell per start, its first index and
        # how many indices read it): what the page must draw
        drawn = {}
        for v in snap["views"]:
            for idx, start in elements_in_window(v["shape"], v["bstrides"], v["itemsize"], v["byte_offset"],
                                                 0, v["footprint"][1] + 1):
                drawn.setdefault((v["name"], start), []).append(",".join(map(str, idx)))
        drawn = {key: (idxs[0], len(idxs)) for key, idxs in drawn.items()}
        expected.append((title, snap, drawn))
    path = write_page(tmp_path / "teaching.html", figures, title="teaching layouts")
    page.goto(path.as_uri())
    expect(page.locator("svg.pti-svg")).to_have_count(len(cases), timeout=5_000)
    for k, (title, snap, drawn) in enumerate(expected):
        fig = page.locator("section.pti-figure").nth(k)
        lanes = fig.locator("g.pti-lane").evaluate_all(LANES_JS)
        assert [n for n, _ in lanes] == [v["name"] for v in snap["views"]], title
        assert len({r for _, r in lanes}) == len(snap["regions"]), title
        got = fig.locator("g.pti-lane").evaluate_all(LANE_CELLS_JS)
        assert {(n, s): (i, h) for n, s, i, h in got} == drawn, title
        assert len(got) == len(drawn), title
        # the text's bars, character by character, against the cells the page drew
        assert text_bars(texts[k]) == page_bars(snap, got), title
        # the live widget's own view, drawn by its anywidget entry point: the same lanes and cells
        live_path = live_page(widgets[k], tmp_path / f"live{k}.html")
        live = page.context.new_page()
        live.goto(live_path.as_uri())
        live.wait_for_selector("svg.pti-svg")
        live_got = live.locator("g.pti-lane").evaluate_all(LANE_CELLS_JS)
        assert sorted(map(tuple, live_got)) == sorted(map(tuple, got)), title
        assert live.locator("g.pti-lane").evaluate_all(LANES_JS) == lanes, title
        live.close()
    for w in widgets:
        w.close()
    assert not page.errors, page.errors


LANE_CELLS_JS = """(ls) => ls.flatMap((l) => [...l.querySelectorAll('.pti-el')].map((e) =>
  [l.dataset.name, +e.dataset.start, e.dataset.index, +e.dataset.hits]))"""


def text_bars(text):
    """Each lane's bar in the text summary, in order: ``[(name, bar)]``."""
    return [(m.group(1), m.group(2)) for m in re.finditer(r"^  (\S.*?) +\|(.*)\|$", text, re.M)]


def page_bars(snap, cells):
    """The bars the text should print, made from the cells the page drew: per character of a lane, '#'
    where a drawn element's bytes meet its byte range, '.' inside the footprint, ' ' outside it."""
    from pytensor.widgets._export import BAR
    vmap = {v["name"]: v for v in snap["views"]}
    starts = {}
    for name, start, _, _ in cells:
        starts.setdefault(name, []).append(start)
    out = []
    for r in snap["regions"]:
        nbytes = r["nbytes"]
        width = min(BAR, max(1, nbytes))
        for vid in r["views"]:
            v = next(x for x in snap["views"] if x["id"] == vid)
            lo, hi = v["footprint"]
            bar = ""
            for k in range(width):
                a, b = nbytes * k // width, nbytes * (k + 1) // width
                if b <= lo or a >= hi:
                    bar += " "
                else:
                    hit = any(s < b and s + v["itemsize"] > a for s in starts.get(v["name"], []))
                    bar += "#" if hit else "."
            out.append((v["name"], bar))
    assert len(out) == len(vmap)
    return out
