"""Saved notebooks keep the picture: the widget's display adds a static HTML fallback (the same
renderer, inlined; no CDN) after the live view, and only one of the two is drawn.

1. Python: the display is the widget view, then ``text/html`` that mounts ``mountFallback``.
2. nbclient executes a notebook, ``jupyter nbconvert --to html`` renders it, Chromium opens the
   file: the fallback draws the lanes, with the names typed at the call and the values a later
   cell wrote (the fallback follows the widget after each cell), with or without the
   widget state stored in the notebook (with it, nbconvert's page wants the widget libraries from
   a CDN this machine cannot reach, which is the point).
3. JupyterLab and Notebook 7 open the saved notebook: before anything runs, the widget output has
   no model and the fallback shows the picture; after Run All, the live view draws and the
   fallback is gone.

Skips without nbclient, nbconvert, JupyterLab, Playwright or Chromium; fails under CI.
"""
import subprocess
import sys
import tempfile

import pytest

from browser_support import artifacts_dir, chromium_context, jupyter_env, jupyter_server, new_page, run_all_cells
from support import require_module

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
SOURCE = """\
import pytensor
from pytensor.widgets import inspect
base = pytensor.arange(12, dtype=pytensor.int32)
grid = base.view(3, 4)
col = grid[:, 1]
inspect(base, col)
"""
LATER = "base[9] = 99   # a later cell writes: the saved picture follows"
LANES = ["base", "col"]
ARTIFACTS = artifacts_dir(tempfile.gettempdir())
LANES_JS = "(ls) => ls.map((l) => l.dataset.name)"

pytestmark = pytest.mark.usefixtures("widget_packages")


def test_display_is_the_live_view_then_a_static_fallback(monkeypatch):
    import IPython.display
    import pytensor
    from pytensor.widgets import Inspector
    shown, updated = [], []

    class Handle:
        def update(self, obj, **kw):
            updated.append((obj, kw))

    def display(*objs, **kw):
        shown.append((objs, kw))
        return Handle() if kw.get("display_id") else None
    monkeypatch.setattr(IPython.display, "display", display)
    base = pytensor.arange(6, dtype=pytensor.int32)
    w = Inspector(base, base[1:4], names=["base", "mid"])
    w._ipython_display_()
    assert [kw.get("raw") for _, kw in shown] == [True, True]
    assert [bool(kw.get("display_id")) for _, kw in shown] == [False, True]
    (live,), (fallback,) = (objs for objs, _ in shown)
    assert WIDGET_VIEW in live and live["text/plain"] == "", "no text above the picture where HTML is shown"
    assert "text/html" not in live, "JupyterLab would prefer the widget view anyway; one picture per output"
    assert fallback["text/plain"].startswith("pytensor memory inspector"), "text-only viewers get the summary"
    html = fallback["text/html"]
    assert 'class="pti-figure pti-fallback"' in html and 'ptiDraw("' in html
    assert "https://" not in html and "<!DOCTYPE" not in html
    # after a cell that changed the bytes, the saved picture is brought up to date, once
    from pytensor.widgets import inspector as inspector_mod
    inspector_mod._after_cell()
    assert updated == [], "nothing changed: nothing resent"
    base[2] = 77
    inspector_mod._after_cell()
    inspector_mod._after_cell()
    (obj, kw), = updated
    assert kw == {"raw": True} and 'ptiDraw("' in obj["text/html"]
    assert obj["text/html"] != html and "77" in w.to_text()
    w.close()


def test_the_static_copy_carries_its_snapshot_packed_and_script_safe():
    """A saved notebook stores one static copy per picture: its snapshot travels as base64 of gzipped
    JSON (``ptiDraw`` unpacks it), which reads back as the snapshot, hostile names included, and is
    a fraction of the JSON it replaced."""
    import base64
    import json
    import re
    import pytensor
    from pytensor.widgets import snapshot
    from pytensor.widgets._export import fallback_html, script_json, unpack_json
    base = pytensor.arange(64, dtype=pytensor.int32)
    views = [base] + [base[k:k + 20:(k % 3) + 1] for k in range(12)]
    snap, previews = snapshot(*views, names=["</script><!--<script>&"] + [f"v{k}" for k in range(12)])
    html = fallback_html(snap, previews, carry=False)
    (h, packed, b64), = re.findall(r'ptiDraw\("(\w+)", "pti-\w+", "([A-Za-z0-9+/=]+)", "([A-Za-z0-9+/=]*)"\);', html)
    assert unpack_json(packed) == json.loads(json.dumps(snap)) and base64.b64decode(b64) == previews
    as_json = script_json(snap)                  # what the copy carried before
    assert "</script><!--" not in html and len(packed) < len(as_json) / 3, (len(packed), len(as_json))


def _notebook(tmp_path, store_state):
    nbformat = require_module("nbformat")
    nbclient = require_module("nbclient")
    require_module("ipykernel")
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(SOURCE), nbformat.v4.new_code_cell(LATER)]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbclient.NotebookClient(nb, kernel_name="python3", timeout=120, store_widget_state=store_state,
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = nb.cells[0].outputs
    assert [WIDGET_VIEW in o.get("data", {}) for o in outputs] == [True, False], outputs
    assert 'ptiDraw("' in outputs[1]["data"]["text/html"]
    path = tmp_path / "fallback.ipynb"
    nbformat.write(nb, path)
    return path


@pytest.fixture(scope="module")
def context():
    yield from chromium_context("pti-fallback-chromium-")


@pytest.mark.parametrize("store_state", [False, True], ids=["no-widget-state", "widget-state"])
def test_nbconvert_html_shows_the_picture_without_a_kernel(context, tmp_path, store_state):
    from playwright.sync_api import expect
    require_module("nbconvert")
    nb = _notebook(tmp_path, store_state)
    run = subprocess.run([sys.executable, "-m", "jupyter", "nbconvert", "--to", "html", nb.name],
                         cwd=tmp_path, capture_output=True, text=True, timeout=180)
    assert run.returncode == 0, run.stderr[-3000:]
    html = tmp_path / "fallback.html"
    assert ("application/vnd.jupyter.widget-state+json" in html.read_text()) == store_state
    page = new_page(context)
    page.goto(html.as_uri())
    svg = page.locator(".pti-fallback svg.pti-svg")
    expect(svg).to_be_visible(timeout=30_000)
    assert svg.locator("g.pti-lane").evaluate_all(LANES_JS) == LANES
    expect(svg.locator(".pti-val[data-view='v1'][data-index='2']")).to_have_text("99")   # col[2] = base[9]
    assert page.locator("svg.pti-svg").count() == 1
    assert "saved with the notebook" in page.locator(".pti-fallback .pti-bar").text_content()
    assert not [e for e in page.errors if "pti" in e or "mountFallback" in e], page.errors
    page.close()


# ---------------------------------------------------------------------- JupyterLab and Notebook 7
# The two front ends: the module that serves each, and the page that opens a notebook in it.
FRONT_ENDS = {"jupyterlab": ("jupyterlab", "lab/tree"), "notebook7": ("notebook", "notebooks")}


@pytest.fixture(params=sorted(FRONT_ENDS))
def saved_notebook_url(request, tmp_path):
    """JupyterLab or Notebook 7 serving a notebook saved with its outputs and no widget state (what
    JupyterLab saves by default): the URL that opens it."""
    module, route = FRONT_ENDS[request.param]
    require_module(module)
    root = tmp_path / "nb"
    root.mkdir()
    nb = _notebook(root, store_state=False)
    env = jupyter_env(tmp_path)
    # A notebook this user saved is trusted (its outputs' HTML may run); `jupyter trust` signs it as a save would.
    trust = subprocess.run([sys.executable, "-m", "jupyter", "trust", str(nb)], env=env, cwd=tmp_path,
                           capture_output=True, text=True, timeout=60)
    assert trust.returncode == 0, trust.stderr
    for base, token in jupyter_server(module, root, env, tmp_path / "server.log"):
        yield f"{base}/{route}/{nb.name}?reset&token={token}"


def test_jupyter_shows_the_saved_picture_until_the_live_view_replaces_it(context, saved_notebook_url, request):
    from playwright.sync_api import expect
    app = request.node.callspec.params["saved_notebook_url"]
    page = new_page(context)
    page.goto(saved_notebook_url)
    panel = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)")
    # nothing has run: the widget output has no model, the fallback draws the picture
    fallback = panel.locator(".jp-OutputArea .pti-fallback svg.pti-svg")
    expect(fallback).to_be_visible(timeout=90_000)
    assert fallback.locator("g.pti-lane").evaluate_all(LANES_JS) == LANES
    expect(fallback.locator(".pti-val[data-view='v1'][data-index='2']")).to_have_text("99")
    assert panel.locator(".pti-live").count() == 0
    page.screenshot(path=str(ARTIFACTS / f"{app}_saved_notebook_fallback.png"))
    # run it: the live view draws, and the fallback goes
    run_all_cells(page)
    live = panel.locator(".jp-OutputArea .pti-live svg.pti-svg")
    expect(live).to_be_visible(timeout=90_000)
    expect(panel.locator(".jp-OutputArea-output svg.pti-svg")).to_have_count(1, timeout=30_000)
    assert live.locator("g.pti-lane").evaluate_all(LANES_JS) == LANES
    assert not panel.locator(".pti-fallback").first.is_visible()
    page.screenshot(path=str(ARTIFACTS / f"{app}_saved_notebook_live.png"))
    assert not [e for e in page.errors if "pti" in e], page.errors
    page.close()


def test_a_fallback_replaced_before_its_script_runs_draws_nothing_and_raises_nothing(context, tmp_path):
    """Each cell that changes a widget updates its saved picture; a quick succession replaces an output
    before its (deferred, module) script has run, and that script then finds no element."""
    import pytensor
    from pytensor.widgets import snapshot, to_html
    snap, blob = snapshot(pytensor.arange(4, dtype=pytensor.int32), names=["t"])
    html = to_html(snap, blob, fallback=True)
    gone = html.replace('<script type="module">', '<script>document.querySelector(".pti-static").remove();</script>'
                        '<script type="module">', 1)
    assert gone != html
    path = tmp_path / "replaced.html"
    path.write_text(f'<!DOCTYPE html><html><body><div class="jp-OutputArea">{gone}</div></body></html>',
                    encoding="utf-8")
    page = new_page(context)
    page.goto(path.as_uri())
    page.wait_for_function("document.readyState === 'complete'")
    page.wait_for_timeout(300)
    assert page.errors == [] and page.locator("svg.pti-svg").count() == 0
    page.close()
