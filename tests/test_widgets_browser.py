"""The inspector in a real browser.

1. JupyterLab, started headless on 127.0.0.1 with a random token, serves a
   copy of examples/memory_tour.ipynb. Playwright drives Debian's Chromium
   (``executable_path``; never ``playwright install``): it runs every cell,
   then types new cells that write through an alias (seen through pytensor's
   write counter) and, from a background thread, through NumPy (seen only by
   the front end's poll), and asserts that the widgets redrew.
2. The static export (``Inspector.save_html``) is opened from file:// with
   no kernel: the SVG renders, hover lists the readers of a byte, and the
   1 GiB overview zooms to bytes.

Screenshots go to $PYTENSOR_ARTIFACTS (default: the test's tmp dir).
Skips when Chromium, Playwright or JupyterLab is missing; fails under CI.
"""
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest

from browser_support import chromium_context, run_tour
from support import require_module, require_program
from tour_expectations import TOUR_NOTEBOOK, TOUR_PAGE, check_lanes

ROOT = Path(__file__).resolve().parent.parent
TOUR = ROOT / "examples" / "memory_tour.ipynb"
N_TOUR_WIDGETS = 7


@pytest.fixture(scope="module")
def chromium():
    path = require_program(os.environ.get("CHROMIUM", "/usr/bin/chromium"))
    require_module("playwright")
    require_module("anywidget")
    return path


@pytest.fixture(scope="module")
def artifacts(tmp_path_factory):
    out = Path(os.environ.get("PYTENSOR_ARTIFACTS") or tmp_path_factory.mktemp("artifacts"))
    out.mkdir(parents=True, exist_ok=True)
    return out


@pytest.fixture(scope="module")
def context(chromium):
    yield from chromium_context()


@pytest.fixture
def page(context):
    pg = context.new_page()
    pg.errors = []
    pg.on("pageerror", lambda e: pg.errors.append(str(e)))
    yield pg
    pg.close()


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def lab(chromium, artifacts):
    require_module("jupyterlab")
    require_module("ipykernel")
    token, port = secrets.token_hex(16), _free_port()
    tmp = Path(tempfile.mkdtemp(prefix="pti-jlab-"))
    root = tmp / "nb"
    root.mkdir()
    shutil.copy(TOUR, root / TOUR.name)            # JupyterLab autosaves: serve a copy
    notif = tmp / "settings" / "@jupyterlab" / "apputils-extension"
    notif.mkdir(parents=True)
    (notif / "notification.jupyterlab-settings").write_text('{"fetchNews": "false", "checkForUpdates": false}')
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(tmp / "config"), JUPYTER_RUNTIME_DIR=str(tmp / "runtime"),
               JUPYTERLAB_SETTINGS_DIR=str(tmp / "settings"), JUPYTERLAB_WORKSPACES_DIR=str(tmp / "workspaces"))
    cmd = [sys.executable, "-m", "jupyterlab", "--no-browser", "--allow-root", "--ip=127.0.0.1",
           f"--port={port}", f"--ServerApp.root_dir={root}", f"--IdentityProvider.token={token}",
           "--LabApp.news_url=None", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"]
    log = open(artifacts / "jupyterlab.log", "w")
    proc = subprocess.Popen(cmd, env=env, cwd=root, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2)
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"JupyterLab did not start; see {artifacts / 'jupyterlab.log'}")
                time.sleep(0.25)
        yield base, token
    finally:
        proc.terminate()                           # the process we started, by its handle
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
        shutil.rmtree(tmp, ignore_errors=True)


def _run_new_cell(page, panel, source):
    """Append a cell after the last one, type ``source`` and run it (Shift+Enter)."""
    panel.locator(".jp-Cell").last.locator(".jp-InputPrompt").click()
    page.keyboard.press("Escape")
    page.keyboard.press("b")
    page.keyboard.press("Enter")
    page.keyboard.insert_text(source)
    page.keyboard.press("Shift+Enter")


def test_tour_notebook_redraws_after_writes_through_aliases(lab, page, artifacts):
    from playwright.sync_api import expect
    base, token = lab
    page.goto(f"{base}/lab/tree/{TOUR.name}?reset&token={token}")
    panel = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)")
    # The execution indicator says "idle" before a kernel exists: wait for the kernel name first.
    expect(panel.locator(".jp-Toolbar-kernelName")).to_have_text("Python 3 (ipykernel)", timeout=90_000)
    expect(panel.locator(".jp-Notebook-ExecutionIndicator")).to_have_attribute("data-status", "idle",
                                                                               timeout=90_000)
    page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
    page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()
    page.wait_for_timeout(300)
    if page.locator(".jp-Dialog .jp-mod-accept").count():
        page.locator(".jp-Dialog .jp-mod-accept").click()

    svgs = panel.locator(".jp-OutputArea-output svg.pti-svg")
    expect(svgs).to_have_count(N_TOUR_WIDGETS, timeout=90_000)
    expect(panel.locator(".jp-OutputArea-output", has_text="memory_tour.html")).to_have_count(1, timeout=60_000)
    assert panel.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']",
                         has_text="Error").count() == 0
    printed = panel.locator(".jp-OutputArea-output", has_text="pytensor memory inspector").last
    assert "freed: scratch (" in printed.inner_text() and "base[3:6]" in printed.inner_text()
    # every section draws each lane its text names, on the right buffer, temporaries included
    for k, (heading, expected) in enumerate(TOUR_NOTEBOOK):
        check_lanes(heading, expected, svgs.nth(k).locator("g.pti-lane").evaluate_all(LANES_JS))
        assert svgs.nth(k).locator(".pti-gone").count() == 0, heading
    # the lowest lane's tooltip is not clipped by the widget or by JupyterLab's output area
    lowest = svgs.nth(4).locator("g.pti-lane").last          # from_dlpack(src[::-1]), a negative stride
    lowest.scroll_into_view_if_needed()
    lowest.locator(".pti-el").first.hover()
    tip = page.locator(".pti-tip:visible")
    expect(tip).to_have_count(1)
    expect(tip).to_contain_text("pytensor.from_dlpack(src[::-1])")
    assert tip.evaluate(TIP_CLIPPED_BY) == []

    views = svgs.nth(0)                            # inspect(base, grid, col, gT)
    expect(views.locator(".pti-val[data-view='v0'][data-index='2']")).to_have_text("-1")   # col[:] = -1 ran
    expect(views.locator(".pti-val[data-view='v0'][data-index='0']")).to_have_text("0")
    gen = int(views.get_attribute("data-generation"))

    # 1. a write through pytensor, in another cell: the storage's write counter changes
    _run_new_cell(page, panel, "grid[0, 0] = -7")
    expect(views.locator(".pti-val[data-view='v0'][data-index='0']")).to_have_text("-7", timeout=20_000)
    expect(views.locator(".pti-val[data-view='v1'][data-index='0,0']")).to_have_text("-7")
    expect(views.locator(".pti-val[data-view='v3'][data-index='0,0']")).to_have_text("-7")  # gT too
    assert int(views.get_attribute("data-generation")) > gen
    root = panel.locator(".pti-root").nth(0)
    assert int(root.get_attribute("data-flashes") or 0) >= 1

    # 2. a NumPy write from a background thread, after the cell finished: only the poll sees it
    shared = svgs.nth(2)                           # inspect(a, t, c)
    expect(shared.locator(".pti-val[data-view='v1'][data-index='0']")).to_have_text("42.")
    _run_new_cell(page, panel, "import threading; threading.Timer(1.5, a.__setitem__, (1, -5.0)).start()")
    expect(shared.locator(".pti-val[data-view='v0'][data-index='1']")).to_have_text("-5.", timeout=20_000)
    expect(shared.locator(".pti-val[data-view='v1'][data-index='1']")).to_have_text("-5.")
    expect(shared.locator(".pti-val[data-view='v2'][data-index='1']")).to_have_text("1.")  # the copy

    # hover a byte: the tooltip names every reader
    views.locator(".pti-byte[data-off='0']").hover()
    tip = page.locator(".pti-tip:visible")
    expect(tip).to_contain_text("base[0]")
    expect(tip).to_contain_text("gT[0, 0]")

    # the live widget draws each lane's index order, and folds its ownership table until asked
    expect(views.locator(".pti-order")).to_have_count(4)
    assert views.locator(".pti-table").count() == 0
    views.locator(".pti-toggle[data-act='table']").click()
    expect(views.locator(".pti-table .pti-row")).to_have_count(4)
    expect(views.locator(".pti-table .pti-total")).to_contain_text("48 B of this 48 B buffer")

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


def test_tour_prints_in_100_columns_and_computes_its_verdicts(tour_page):
    _, printed = tour_page
    lines = printed.splitlines()
    assert max(map(len, lines)) <= 100, max(lines, key=len)
    assert "copy it with .clone() to write" in printed      # the read-only error, whole
    verdicts = [line for line in lines if " SHARES " in line or " copies " in line]
    assert len(verdicts) >= 25
    assert "PyCapsule" not in printed and "DLPack capsule" in printed


def test_tour_page_draws_every_section_in_chromium(page, tour_page, artifacts):
    from playwright.sync_api import expect
    path, _ = tour_page
    t0 = time.monotonic()
    page.goto(path.as_uri())
    svgs = page.locator("svg.pti-svg")
    expect(svgs).to_have_count(len(TOUR_PAGE), timeout=5_000)     # a hang (issue 14) never gets here
    rendered_s = time.monotonic() - t0
    figures = page.locator("section.pti-figure")
    expect(figures).to_have_count(len(TOUR_PAGE))
    for k, (heading, expected) in enumerate(TOUR_PAGE):
        fig = figures.nth(k)
        expect(fig.locator("h3")).to_contain_text(heading)
        check_lanes(heading, expected, fig.locator("g.pti-lane").evaluate_all(LANES_JS))
        assert fig.locator(".pti-gone").count() == 0, heading
    page.screenshot(path=str(artifacts / "memory_tour_page.png"), full_page=True)
    assert rendered_s < 5, rendered_s
    assert not page.errors, page.errors


def test_tour_page_tooltips_of_the_lowest_lanes_are_not_clipped(page, tour_page):
    from playwright.sync_api import expect
    path, _ = tour_page
    page.set_viewport_size({"width": 1100, "height": 700})
    page.goto(path.as_uri())
    expect(page.locator("svg.pti-svg")).to_have_count(len(TOUR_PAGE), timeout=5_000)
    for k in range(len(TOUR_PAGE)):
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
    expect(page.locator("svg.pti-svg")).to_have_count(len(TOUR_PAGE), timeout=5_000)
    ids = page.locator("svg.pti-svg pattern").evaluate_all("(ps) => ps.map((p) => p.id)")
    assert len(ids) == len(set(ids)), "pattern ids repeat across pictures"
    page.locator("section.pti-figure").first.evaluate("(s) => s.remove()")
    dangling = page.evaluate("""() => [...document.querySelectorAll('svg.pti-svg [fill^="url(#"]')]
        .map((n) => n.getAttribute('fill').slice(5, -1)).filter((id) => !document.getElementById(id))""")
    assert dangling == []
    assert page.locator("svg.pti-svg .pti-ovl").count() > 0
    assert not page.errors, page.errors


# ---------------------------------------------------------------- one picture, three outputs
def _teaching_cases(tmp_path):
    """The layouts a teacher shows first, each as (title, objects, names)."""
    import numpy as np
    import pytensor
    t = pytensor.arange(12, dtype=pytensor.int32)
    a = np.arange(6, dtype=np.int32)
    buf = bytearray(range(24))
    path = tmp_path / "weights.bin"
    np.arange(8, dtype=np.float32).tofile(path)
    m = pytensor.from_file(str(path), shared=True, dtype=pytensor.float32)
    return [
        ("flipped", [a, a[::-1]], ["a", "a[::-1]"]),
        ("transposed", [t, t.view(3, 4).T], ["t", "t.view(3, 4).T"]),
        ("expanded", [t, t[:1].expand(6)], ["t", "t[:1].expand(6)"]),
        ("negative-stride DLPack import", [a, pytensor.from_dlpack(a[::-1])], ["a", "from_dlpack(a[::-1])"]),
        ("one bytearray, two offsets", [buf, pytensor.frombuffer(buf, dtype=pytensor.int16, count=4),
                                        pytensor.frombuffer(buf, dtype=pytensor.int32, offset=8)],
         ["buf", "lo", "hi"]),
        ("from_file at an offset", [m, m[3:6]], ["m", "m[3:6]"]),
    ]


def test_static_export_live_widget_and_text_agree_on_the_teaching_layouts(page, tmp_path):
    """The text summary, the live widget's model and the static page draw the same lanes and bytes."""
    from playwright.sync_api import expect
    require_module("anywidget")
    from pytensor.widgets import Inspector, figure, snapshot, to_text, write_page
    from pytensor.widgets._snapshot import elements_in_window
    cases = _teaching_cases(tmp_path)
    figures, expected = [], []
    for title, objs, names in cases:
        snap, blob = snapshot(*objs, names=names)
        w = Inspector(*objs, names=names)
        live = w.snapshot
        w.close()
        keys = ("name", "region", "shape", "bstrides", "offset", "footprint", "touched_bytes", "tags")
        assert [[v[k] for k in keys] for v in live["views"]] == [[v[k] for k in keys] for v in snap["views"]], title
        text = to_text(snap, blob)
        assert text.count(" |") >= len(names) and all(f"  {n} " in text for n in names), title
        figures.append(figure(title, *objs, names=names))
        # every element of every view, as (lane, index, first byte): what the page must draw
        # every element of every view, grouped by first byte (one cell per start, its first index and
        # how many indices read it): what the page must draw
        drawn = {}
        for v in snap["views"]:
            for idx, start in elements_in_window(v["shape"], v["bstrides"], v["itemsize"], v["offset"],
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
        got = fig.locator("g.pti-lane").evaluate_all("""(ls) => ls.flatMap((l) =>
            [...l.querySelectorAll('.pti-el')].map((e) =>
              [l.dataset.name, +e.dataset.start, e.dataset.index, +e.dataset.hits]))""")
        assert {(n, s): (i, h) for n, s, i, h in got} == drawn, title
        assert len(got) == len(drawn), title
    assert not page.errors, page.errors
