"""Saved notebooks without a kernel: one clean picture per inspector, in every viewer, and a small file.

A notebook executed with nbclient and saved as JupyterLab saves it (outputs, no widget state), then:

1. its size: the renderer is stored once (one static copy carries it, the others load it from
   there), so the executed tour and a 13-picture notebook stay under 300 KB; the widget output's
   text is empty and the static copy's text is the summary (for text-only viewers);
2. JupyterLab and Notebook 7 open it with no kernel running, the carrier's cell moved last:
   no "model not found" (or any widget error) is visible, and every inspector shows one SVG
   picture with its lanes;
3. nbconvert's HTML in Chromium: every picture drawn, no text summary visible;
4. the executed tour in JupyterLab: every question's picture shows its lanes
   (tests/tour_expectations.py), first as saved, then after a presenter's Run All, live,
   without touching the history slider (question 7's memory is freed by the next cell: its lanes
   stay drawn, marked freed);
5. a live session whose carrier cell is deleted stores the renderer again, so the notebook saved
   next still draws.

Screenshots go to $PYTENSOR_ARTIFACTS (default: the test's tmp dir).
Skips without nbclient, nbconvert, JupyterLab, Notebook, Playwright or Chromium; fails under CI.
"""
import re
import subprocess
import sys
import tempfile

import pytest

from browser_support import artifacts_dir, chromium_context, jupyter_env, jupyter_server, new_page, run_all_cells
from notebook_support import (LANES_JS, MAX_BYTES, PICTURES, SETUP, THIRTEEN, WIDGET_VIEW, carrier_cells,
                              carrier_last, carriers, execute, expected_lanes, open_notebook, outputs, save,
                              static_copies, tour_cells)
from notebook_support import read as nbformat_read
from support import require_module
from tour_expectations import QUESTIONS, check_lanes

ARTIFACTS = artifacts_dir(tempfile.gettempdir())


@pytest.fixture(autouse=True, scope="module")
def _tools():
    for name in ("anywidget", "ipywidgets", "nbformat", "nbclient", "ipykernel"):
        require_module(name)


# ---------------------------------------------------------------------- 1. size and mimetypes
def test_the_executed_tour_stores_the_renderer_once_and_stays_small(tmp_path):
    path, done = execute(tour_cells(), tmp_path, "tour.ipynb")
    copies = static_copies(done)
    assert len(copies) == len(QUESTIONS) and len(carriers(done)) == 1
    assert path.stat().st_size < MAX_BYTES, path.stat().st_size
    for d in outputs(done):
        if WIDGET_VIEW in d:            # nothing to print above the picture where the widget cannot draw
            assert d["text/plain"] == "" and "text/html" not in d
    assert all(d["text/plain"].startswith("pytensor memory inspector") for d in copies)


def test_thirteen_pictures_stay_under_300_kb(tmp_path):
    path, done = execute(THIRTEEN, tmp_path, "thirteen.ipynb")
    assert len(static_copies(done)) == 13 and len(carriers(done)) == 1
    assert path.stat().st_size < MAX_BYTES, path.stat().st_size


# ---------------------------------------------------------------------- 2. and 3. in a browser
@pytest.fixture(scope="module")
def context():
    yield from chromium_context("pti-saved-chromium-")


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """The three-picture notebook, executed and saved with its carrier cell moved last."""
    folder = tmp_path_factory.mktemp("saved")
    path, nb = execute([SETUP] + [src for src, _ in PICTURES], folder, "pictures.ipynb")
    assert carriers(nb) == [1], "the first picture carries the renderer"
    return save(carrier_last(nb), folder, "pictures.ipynb")


FRONT_ENDS = {"jupyterlab": ("jupyterlab", "lab/tree"), "notebook7": ("notebook", "notebooks")}


@pytest.fixture(params=sorted(FRONT_ENDS))
def server(request, tmp_path):
    module, route = FRONT_ENDS[request.param]
    require_module(module)
    root = tmp_path / "nb"
    root.mkdir()
    env = jupyter_env(tmp_path)
    for base, token in jupyter_server(module, root, env, tmp_path / "server.log"):
        yield request.param, root, f"{base}/{route}", token, env


def test_jupyter_without_a_kernel_shows_one_clean_picture_per_inspector(context, server, saved):
    from playwright.sync_api import expect
    page, panel = open_notebook(context, server, saved, kernel=False)
    svgs = panel.locator(".jp-OutputArea svg.pti-svg")
    expect(svgs).to_have_count(len(PICTURES), timeout=90_000)
    # the widget outputs are there, dead: "Loading widget..." (no kernel) or "model not found"
    dead = panel.locator(".jp-OutputArea-output.lm-Panel", has_text=re.compile("Loading widget|model not found"))
    expect(dead).to_have_count(len(PICTURES), timeout=30_000)
    page.wait_for_timeout(1000)
    shown = panel.inner_text()
    assert "model not found" not in shown and "Error displaying widget" not in shown, shown[-2000:]
    assert "Loading widget" not in shown
    for k, lanes in enumerate(expected_lanes()):
        assert [n for n, _ in svgs.nth(k).evaluate(LANES_JS)] == lanes
    for area in panel.locator(".jp-Cell .jp-OutputArea").all():   # one picture per output area
        assert area.locator("svg.pti-svg").count() <= 1
    assert "pytensor memory inspector:" not in shown, "the text summary shows where HTML does"
    page.screenshot(path=str(ARTIFACTS / f"{server[0]}_saved_without_kernel.png"), full_page=True)
    assert not [e for e in page.errors if "pti" in e], page.errors
    page.close()


def test_nbconvert_html_draws_every_picture_and_no_text_summary(context, saved, tmp_path):
    require_module("nbconvert")
    from playwright.sync_api import expect
    run = subprocess.run([sys.executable, "-m", "jupyter", "nbconvert", "--to", "html", "--output-dir", str(tmp_path),
                          str(saved)], capture_output=True, text=True, timeout=180)
    assert run.returncode == 0, run.stderr[-3000:]
    page = new_page(context)
    page.goto((tmp_path / "pictures.html").as_uri())
    svgs = page.locator("svg.pti-svg")
    expect(svgs).to_have_count(len(PICTURES), timeout=30_000)
    for k, lanes in enumerate(expected_lanes()):
        assert [n for n, _ in svgs.nth(k).evaluate(LANES_JS)] == lanes
    shown = page.inner_text("body")
    assert "pytensor memory inspector:" not in shown and "model not found" not in shown, shown[-2000:]
    page.screenshot(path=str(ARTIFACTS / "nbconvert_saved_pictures.png"), full_page=True)
    assert not [e for e in page.errors if "pti" in e], page.errors
    page.close()


# ---------------------------------------------------------------------- 4. the tour, saved and Run All
PICTURE_LANES_JS = "(svgs) => svgs.map((s) => [...s.querySelectorAll('g.pti-lane')].map((l) => [l.dataset.name, l.dataset.region]))"


def check_tour_pictures(panel, selector, freed_shown):
    from playwright.sync_api import expect
    svgs = panel.locator(selector)
    expect(svgs).to_have_count(len(QUESTIONS), timeout=120_000)
    drawn = svgs.evaluate_all(PICTURE_LANES_JS)
    for q, lanes in zip(QUESTIONS, drawn):
        check_lanes(q["heading"], q["lanes"], [tuple(x) for x in lanes])
    for k, q in enumerate(QUESTIONS):
        freed = q.get("freed_later", [])
        if freed:                      # drawn as they were, and said to be freed since
            gone = svgs.nth(k).locator(".pti-gone")
            expect(gone).to_have_count(1 if freed_shown else 0)
            if freed_shown:
                assert all(f"{n} (freed since" in gone.text_content() for n in freed), gone.text_content()


@pytest.fixture
def lab(tmp_path):
    require_module("jupyterlab")
    root = tmp_path / "nb"
    root.mkdir()
    env = jupyter_env(tmp_path)
    for base, token in jupyter_server("jupyterlab", root, env, tmp_path / "server.log"):
        yield "jupyterlab", root, f"{base}/lab/tree", token, env


def test_the_executed_tour_shows_every_point_saved_and_after_run_all(context, lab, tmp_path):
    path, _ = execute(tour_cells(), tmp_path, "memory_tour.ipynb")
    page, panel = open_notebook(context, lab, path)
    # as saved: the static copies, each kept up to date after every cell (question 7 freed by the next)
    check_tour_pictures(panel, ".jp-OutputArea .pti-fallback svg.pti-svg", freed_shown=True)
    page.screenshot(path=str(ARTIFACTS / "lab_tour_saved.png"), full_page=True)
    # a presenter's Run All: the live pictures make every point with the slider untouched
    from playwright.sync_api import expect
    run_all_cells(page, panel)
    expect(panel.locator(".jp-OutputArea-output", has_text="as_tensor(t) is t: True")).to_have_count(1,
                                                                                                timeout=120_000)
    check_tour_pictures(panel, ".jp-OutputArea .pti-live svg.pti-svg", freed_shown=True)
    expect(panel.locator(".jp-OutputArea-output svg.pti-svg")).to_have_count(len(QUESTIONS), timeout=30_000)
    page.screenshot(path=str(ARTIFACTS / "lab_tour_run_all.png"), full_page=True)
    assert not [e for e in page.errors if "pti" in e], page.errors
    page.close()


# ---------------------------------------------------------------------- 5. the carrier cell deleted
def test_deleting_the_carrier_cell_in_a_live_session_stores_the_renderer_again(context, lab, saved, tmp_path):
    import time
    from playwright.sync_api import expect
    from pytensor.widgets._export import renderer_hash
    page, panel = open_notebook(context, lab, saved)
    run_all_cells(page, panel)
    expect(panel.locator(".jp-OutputArea .pti-live svg.pti-svg")).to_have_count(len(PICTURES), timeout=90_000)
    block = page.locator(f'script[data-pti-renderer="{renderer_hash()}"]')
    expect(block).to_have_count(1, timeout=30_000)          # this kernel's first picture stores it
    carrier = panel.locator(".jp-Cell").filter(has=block)
    expect(carrier).to_have_count(1)
    first = carrier.get_attribute("data-cell-id") or carrier.evaluate("(c) => [...c.parentNode.children].indexOf(c)")
    # running that cell anew clears its outputs: its new static copy stores the renderer again
    carrier.locator(".jp-InputArea-editor").click()
    page.keyboard.press("Shift+Enter")
    expect(carrier.locator(".jp-InputPrompt")).not_to_contain_text("[2]", timeout=30_000)
    expect(carrier.locator(".jp-OutputArea .pti-live svg.pti-svg")).to_have_count(1, timeout=30_000)
    expect(carrier.locator(f'script[data-pti-renderer="{renderer_hash()}"]')).to_have_count(1, timeout=30_000)
    expect(block).to_have_count(1)
    assert (carrier.get_attribute("data-cell-id") or
            carrier.evaluate("(c) => [...c.parentNode.children].indexOf(c)")) == first
    carrier.locator(".jp-InputPrompt").click()
    page.keyboard.press("Escape")
    page.keyboard.press("d")
    page.keyboard.press("d")
    expect(panel.locator(".jp-OutputArea .pti-live svg.pti-svg")).to_have_count(len(PICTURES) - 1, timeout=30_000)
    expect(block).to_have_count(1, timeout=30_000)          # a live view asked, a remaining copy stores it
    before = (lab[1] / saved.name).read_text()
    page.keyboard.press("Control+s")
    deadline = time.monotonic() + 30
    while (lab[1] / saved.name).read_text() == before and time.monotonic() < deadline:
        time.sleep(0.25)
    nb = nbformat_read(lab[1] / saved.name)
    assert len(static_copies(nb)) == len(PICTURES) - 1 and len(carriers(nb)) == 1
    page.close()
    # the notebook saved after the deletion draws every picture with no kernel
    require_module("nbconvert")
    run = subprocess.run([sys.executable, "-m", "jupyter", "nbconvert", "--to", "html", "--output-dir", str(tmp_path),
                          str(lab[1] / saved.name)], capture_output=True, text=True, timeout=180)
    assert run.returncode == 0, run.stderr[-3000:]
    page = context.new_page()
    page.goto((tmp_path / "pictures.html").as_uri())
    expect(page.locator("svg.pti-svg")).to_have_count(len(PICTURES) - 1, timeout=30_000)
    page.close()


def test_a_copy_whose_renderer_is_gone_says_so(context, saved, tmp_path):
    """Deleted while no kernel ran, the carrier cannot be stored again: the other copies say why they
    draw nothing, rather than staying blank."""
    require_module("nbconvert")
    from playwright.sync_api import expect
    nb = nbformat_read(saved)
    nb.cells = [c for k, c in enumerate(nb.cells) if k not in carrier_cells(nb)]
    path = save(nb, tmp_path, "lost.ipynb")
    run = subprocess.run([sys.executable, "-m", "jupyter", "nbconvert", "--to", "html", str(path)], cwd=tmp_path,
                         capture_output=True, text=True, timeout=180)
    assert run.returncode == 0, run.stderr[-3000:]
    page = context.new_page()
    page.goto((tmp_path / "lost.html").as_uri())
    expect(page.locator(".pti-static", has_text="waits for its renderer")).to_have_count(len(PICTURES) - 1,
                                                                                          timeout=30_000)
    assert page.locator("svg.pti-svg").count() == 0
    page.close()

