"""Notebooks saved WITH their widget state (JupyterLab's "Save Widget State Automatically", nbclient's
``store_widget_state=True``): the renderer is stored once there too, and the pictures draw with no kernel.

Each widget's ``_esm`` is saved with it; it is a small loader (``loader_live.js``) and the renderer
lives in one model of the kernel (``renderer_model()``), which every inspector names in its
``_renderer`` trait. Before, each ``_esm`` was the whole renderer: 13 pictures saved with widget
state made 2 MB.

1. nbclient's widget state of the 13-picture notebook: one model stores the renderer, each
   inspector's ``_esm`` is small, names that model and carries no CSS of its own;
2. JupyterLab opens that notebook: with a new kernel (which knows none of the saved widgets) every
   picture is drawn by its widget view restored from the saved state, the renderer loaded from the
   one model; with the kernel shut down, by its static copy; no widget error either way;
3. JupyterLab itself saving the widget state (its setting on), after Run All: the file stays
   under 300 KB, the renderer in it once;
4. a live view with no static copy on the page (an inspector inside another widget) gets the
   renderer from the kernel and draws; the loaders as stored (without comments) still parse.

Screenshots go to $PYTENSOR_ARTIFACTS (default: the temporary directory).
Skips without nbclient, JupyterLab, Playwright or Chromium; fails under CI.
"""
import json
import os
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from browser_support import artifacts_dir, chromium_context, jupyter_env, jupyter_server, run_all_cells
from notebook_support import MAX_BYTES, THIRTEEN, WIDGET_STATE, execute, open_notebook, read, save
from support import require_module

ARTIFACTS = artifacts_dir(tempfile.gettempdir())
LIVE_LANES_JS = """(svgs) => svgs.map((s) => [...s.querySelectorAll('g.pti-lane')].map((l) => l.dataset.name))"""
STATE_MAX_BYTES = 240_000           # nbclient's save of THIRTEEN with widget state (see its test)
FAILURES = ("model not found", "Error displaying widget", "could not load its renderer", "Loading widget")


@pytest.fixture(autouse=True, scope="module")
def _tools():
    for name in ("anywidget", "ipywidgets", "nbformat", "nbclient", "ipykernel"):
        require_module(name)


def widget_state(nb):
    return nb.metadata["widgets"][WIDGET_STATE]["state"]


def check_renderer_stored_once(path, inspectors):
    """The saved notebook holds the renderer once (in a static copy's block), the live views' loader
    once (in the renderer model), and each of its ``inspectors`` inspectors names that model and
    carries only a way to it."""
    from pytensor.widgets._export import live_loader, renderer_packed
    text = path.read_text()
    assert text.count(renderer_packed()[:4000]) == 1, "the renderer is stored more than once"
    state = widget_state(read(path))
    holders = [mid for mid, m in state.items() if m["state"].get("loader") == live_loader()]
    assert len(holders) == 1, f"the live views' loader is stored in {len(holders)} models"
    views = [m["state"] for m in state.values() if m["model_name"] == "AnyModel"]
    assert len(views) == inspectors
    for v in views:
        assert v["_renderer"] == f"IPY_MODEL_{holders[0]}"
        assert len(v["_esm"]) < 1500 and "_css" not in v, sorted(v)


def test_a_view_without_a_stored_renderer_on_its_page_gets_it_from_the_kernel():
    """Shown where no static copy is (inside another widget), a view asks; the renderer model then
    holds the renderer, for every view of the page and the widget state saved next."""
    import pytensor
    from pytensor.widgets import Inspector
    from pytensor.widgets._export import renderer_packed
    t = pytensor.arange(4)
    w = Inspector(t, names=["t"])
    assert w._renderer.packed == ""
    w._on_custom_msg(w, {"op": "renderer"}, [])
    assert w._renderer.packed == renderer_packed()
    assert Inspector(t, names=["t"])._renderer is w._renderer          # one per kernel
    w.close()


def test_the_loaders_are_stored_without_comments_and_still_parse(tmp_path):
    """``compact_script`` drops full-line comments and indentation: right only while no string spans
    lines (a template literal's line could start with //), and what it keeps must parse."""
    from support import require_program
    from pytensor.widgets._export import _static_loader, compact_script, live_loader, live_module
    node = require_program("node")
    for name in ("unpack.js", "loader.js", "loader_live.js", "live_esm.js"):
        source = (Path(__file__).resolve().parents[2] / "widgets" / name).read_text()
        for line in source.splitlines():
            assert line.count("`") % 2 == 0 and not line.endswith("\\"), (name, line)
        assert "//" not in [line.strip()[:2] for line in compact_script(name).splitlines()]
    for k, (text, kind) in enumerate([(_static_loader(), ".js"), (live_module(), ".mjs"), (live_loader(), ".mjs")]):
        path = tmp_path / f"stored{k}{kind}"
        path.write_text(text)
        env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}   # the sanitized pass checks Python, not node
        run = subprocess.run([node, "--check", str(path)], capture_output=True, text=True, timeout=60, env=env)
        assert run.returncode == 0, (k, run.stderr)


@pytest.fixture(scope="module")
def thirteen(tmp_path_factory):
    folder = tmp_path_factory.mktemp("state")
    return execute(THIRTEEN, folder, "thirteen_state.ipynb", widget_state=True)


# ---------------------------------------------------------------------- 1. nbclient's saved state
def test_nbclient_widget_state_stores_the_renderer_once(thirteen):
    path, nb = thirteen
    check_renderer_stored_once(path, 13)
    # 224,126 bytes measured (2026-11): it was 2 MB with the renderer in each _esm, then 299,491 with
    # each snapshot as JSON twice (static copy and ``base`` trait); both now travel packed (pack_json)
    assert path.stat().st_size < STATE_MAX_BYTES, path.stat().st_size


# ---------------------------------------------------------------------- 2. and 3. in JupyterLab
@pytest.fixture(scope="module")
def context():
    yield from chromium_context("pti-state-chromium-")


def lab_server(tmp_path, save_state):
    require_module("jupyterlab")
    root = tmp_path / "nb"
    root.mkdir()
    env = jupyter_env(tmp_path)
    if save_state:                     # JupyterLab's "Save Widget State Automatically"
        plugin = tmp_path / "settings" / "@jupyter-widgets" / "jupyterlab-manager"
        plugin.mkdir(parents=True)
        (plugin / "plugin.jupyterlab-settings").write_text('{"saveState": true}')
    for base, token in jupyter_server("jupyterlab", root, env, tmp_path / "server.log"):
        yield "jupyterlab", root, f"{base}/lab/tree", token, env


@pytest.fixture
def lab(tmp_path):
    yield from lab_server(tmp_path, save_state=False)


@pytest.fixture
def lab_saving_state(tmp_path):
    yield from lab_server(tmp_path, save_state=True)


def expected_lanes():
    return [[f"x{k}", f"x{k}[::2]", f"x{k}[1:]"] for k in range(13)]


def check_pictures(page, panel, selector, name):
    from playwright.sync_api import expect
    svgs = panel.locator(selector)
    expect(svgs).to_have_count(13, timeout=90_000)
    assert svgs.evaluate_all(LIVE_LANES_JS) == expected_lanes()
    expect(panel.locator(".jp-OutputArea svg.pti-svg")).to_have_count(13)   # one picture per inspector
    page.wait_for_timeout(1000)
    shown = panel.inner_text()
    for bad in FAILURES:
        assert bad not in shown, (bad, shown[-2000:])
    page.screenshot(path=str(ARTIFACTS / name), full_page=True)
    assert not [e for e in page.errors if "pti" in e], page.errors
    page.close()


def test_jupyterlab_draws_the_saved_widget_state_with_a_kernel_that_never_ran_it(context, lab, thirteen):
    """Opened later, the notebook gets a new kernel, which knows none of the saved widgets: JupyterLab
    restores them from the saved state and each view loads the renderer from the one model there."""
    page, panel = open_notebook(context, lab, thirteen[0])
    check_pictures(page, panel, ".jp-OutputArea .pti-live svg.pti-svg", "jupyterlab_widget_state_restored.png")


def test_jupyterlab_draws_the_saved_widget_state_notebook_with_no_kernel(context, lab, thirteen):
    """With the kernel shut down the widget manager lets its models go: the static copies draw."""
    page, panel = open_notebook(context, lab, thirteen[0], kernel=False)
    check_pictures(page, panel, ".jp-OutputArea .pti-fallback svg.pti-svg", "jupyterlab_widget_state_no_kernel.png")


def test_jupyterlab_saving_the_widget_state_stays_under_300_kb(context, lab_saving_state, tmp_path):
    from playwright.sync_api import expect
    import nbformat
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(src) for src in THIRTEEN]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    path = save(nb, tmp_path, "thirteen_lab.ipynb")
    page, panel = open_notebook(context, lab_saving_state, path)
    run_all_cells(page, panel)
    expect(panel.locator(".jp-OutputArea .pti-live svg.pti-svg")).to_have_count(13, timeout=120_000)
    expect(panel.locator(".jp-Notebook-ExecutionIndicator").first).to_have_attribute("data-status", "idle",
                                                                                     timeout=60_000)
    saved = lab_saving_state[1] / path.name
    before = saved.read_text()
    page.keyboard.press("Control+s")
    deadline, done = time.monotonic() + 30, None
    while done is None and time.monotonic() < deadline:
        time.sleep(0.25)
        text = saved.read_text()
        if text != before:
            try:
                done = read(saved)
            except Exception:            # noqa: BLE001 (caught while JupyterLab writes it)
                continue
    assert done is not None, "JupyterLab did not save the notebook"
    check_renderer_stored_once(saved, 13)
    assert saved.stat().st_size < MAX_BYTES, saved.stat().st_size
    page.close()


def test_a_live_view_with_no_static_copy_on_the_page_draws(context, lab, tmp_path):
    """Inside another widget an inspector has no static copy, so no stored renderer is on the page:
    its view asks the kernel, which puts the renderer in the renderer model, and it draws."""
    from playwright.sync_api import expect
    import nbformat
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("import ipywidgets\nimport pytensor\nfrom pytensor.widgets import Inspector\n"
                                          "t = pytensor.arange(6)\nipywidgets.VBox([Inspector(t, names=['t'])])")]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    page, panel = open_notebook(context, lab, save(nb, tmp_path, "boxed.ipynb"))
    run_all_cells(page, panel)
    svgs = panel.locator(".jp-OutputArea .pti-live svg.pti-svg")
    expect(svgs).to_have_count(1, timeout=60_000)
    assert svgs.evaluate_all(LIVE_LANES_JS) == [["t"]]
    assert panel.locator(".pti-fallback").count() == 0          # no static copy: the kernel sent it
    assert "could not load its renderer" not in panel.inner_text()
    page.close()
