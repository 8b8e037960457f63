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

from support import require_module, require_program

ROOT = Path(__file__).resolve().parent.parent
TOUR = ROOT / "examples" / "memory_tour.ipynb"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
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
    from playwright.sync_api import sync_playwright
    profile = tempfile.mkdtemp(prefix="pti-chromium-")
    try:
        with sync_playwright() as p:
            # Playwright refuses --user-data-dir in args: the profile is the first argument instead.
            ctx = p.chromium.launch_persistent_context(profile, executable_path=chromium, headless=True,
                                                       args=CHROMIUM_ARGS, viewport={"width": 1280, "height": 900})
            yield ctx
            ctx.close()
    finally:
        shutil.rmtree(profile, ignore_errors=True)


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
    assert "freed: tmp" in printed.inner_text()

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
    tip = panel.locator(".pti-tip").nth(0)
    expect(tip).to_contain_text("base[0]")
    expect(tip).to_contain_text("gT[0, 0]")

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
