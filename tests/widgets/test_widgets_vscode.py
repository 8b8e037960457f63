"""Saved notebooks in VS Code's own notebook view, with no kernel: one clean picture per inspector.

VS Code's workbench runs in a browser as ``code-server`` (.ci/run installs it; locally, put
``code-server`` on PATH or set $CODE_SERVER). Only VS Code's built-in extensions are there, as in a
VS Code without the Jupyter extension or with no kernel picked: the ``ipynb`` extension opens the
file and the built-in renderers draw ``text/html`` and ``text/plain``. VS Code draws every output of a
notebook into one webview document (one ``.output`` element each), so a static copy finds the
renderer stored by another output of the notebook, wherever that cell is.

What a VS Code user sees, read from that webview:

- every inspector output draws one SVG picture with the lanes it had in the kernel, the renderer's
  carrier cell moved last included, and the tour's eleven questions with their lanes;
- the widget output (no renderer for the widget mimetype here) is its empty ``text/plain``: no
  "model not found", no "No renderer could be found", and the text summary is nowhere on screen.

Screenshots go to $PYTENSOR_ARTIFACTS (default: the temporary directory).
Skips without code-server, Node, nbclient, Playwright or Chromium; fails under CI.
"""
import json
import os
import shutil
import tempfile
import time
from pathlib import Path

import pytest

from browser_support import artifacts_dir, chromium_context, free_port, new_page, serving
from notebook_support import PICTURES, SETUP, THIRTEEN, carrier_last, execute, expected_lanes, save, tour_cells
from support import IN_CI, require_module
from tour_expectations import QUESTIONS, check_lanes

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = artifacts_dir(tempfile.gettempdir())
# where .ci/run installs it (a cache of the CI's own, outside the package)
CI_CODE_SERVER = ROOT / ".ci" / "cache" / "code-server" / "node_modules" / ".bin" / "code-server"
SETTINGS = {"workbench.startupEditor": "none", "security.workspace.trust.enabled": False,
            "workbench.tips.enabled": False, "telemetry.telemetryLevel": "off",
            "extensions.ignoreRecommendations": True, "workbench.enableExperiments": False,
            "update.mode": "none", "notebook.output.scrolling": False}
# each output of the notebook's webview: its place, its text, its pictures, and the lanes of each picture
# (text: what the page shows as text, visible or scrolled away, scripts and styles left out)
SHOWN_TEXT = """const shownText = (root) => {
  const walk = document.createTreeWalker(root, NodeFilter.SHOW_TEXT, { acceptNode: (n) =>
    ["SCRIPT", "STYLE"].includes(n.parentNode.nodeName) ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT });
  let text = "";
  while (walk.nextNode()) text += walk.currentNode.nodeValue;
  return text;
};"""
OUTPUTS_JS = "() => {" + SHOWN_TEXT + """ return [...document.querySelectorAll('.output')].map((o) => ({
  top: o.getBoundingClientRect().top + window.scrollY, text: shownText(o),
  plain: [...o.querySelectorAll('.output-plaintext')].map((p) => p.textContent).join(''),
  lanes: [...o.querySelectorAll('svg.pti-svg')].map((s) => [...s.querySelectorAll('g.pti-lane')].map(
    (l) => [l.dataset.name, l.dataset.region])),
  gone: [...o.querySelectorAll('svg.pti-svg .pti-gone')].map((g) => g.textContent).join('\\n')}))
  .sort((a, b) => a.top - b.top); }"""
BODY_TEXT_JS = "() => {" + SHOWN_TEXT + " return shownText(document.body); }"
FAILURES = ("model not found", "Error displaying widget", "No renderer could be found", "Loading widget",
            "pytensor memory inspector:", "waits for its renderer", "could not load its renderer")


def code_server_path():
    """code-server's launcher: $CODE_SERVER, on PATH, or where .ci/run installs it; skips (fails under CI)."""
    found = os.environ.get("CODE_SERVER") or shutil.which("code-server") or (
        str(CI_CODE_SERVER) if CI_CODE_SERVER.exists() else None)
    if found is None:
        if IN_CI:
            pytest.fail(f"CI needs code-server for this test (.ci/run installs it into {CI_CODE_SERVER.parent})")
        pytest.skip("code-server is not installed (npm install code-server; see .ci/run)")
    return found


@pytest.fixture(autouse=True, scope="module")
def _tools():
    for name in ("anywidget", "ipywidgets", "nbformat", "nbclient", "ipykernel"):
        require_module(name)


@pytest.fixture(scope="module")
def context():
    yield from chromium_context("pti-vscode-chromium-", viewport={"width": 1400, "height": 1000})


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    """The folder VS Code opens, with the notebooks this module looks at, executed and saved."""
    code_server_path()                     # skip (fail under CI) before executing anything
    folder = tmp_path_factory.mktemp("vscode-ws")
    _, nb = execute([SETUP] + [src for src, _ in PICTURES], folder, "pictures.ipynb")
    save(carrier_last(nb), folder, "pictures.ipynb")
    execute(THIRTEEN, folder, "thirteen.ipynb")
    execute(tour_cells(), folder, "memory_tour.ipynb")
    return folder


@pytest.fixture(scope="module")
def vscode(workspace, tmp_path_factory):
    """The URL of VS Code (code-server) serving ``workspace``, with a user data folder of its own."""
    launcher = code_server_path()
    home = tmp_path_factory.mktemp("code-server")
    (home / "data" / "User").mkdir(parents=True)
    (home / "data" / "User" / "settings.json").write_text(json.dumps(SETTINGS))
    port = free_port()
    (home / "config.yaml").write_text(f"bind-addr: 127.0.0.1:{port}\nauth: none\ncert: false\n")
    cmd = [launcher, "--config", str(home / "config.yaml"), "--user-data-dir", str(home / "data"),
           "--extensions-dir", str(home / "extensions"), "--disable-telemetry", "--disable-update-check",
           "--disable-workspace-trust", "--disable-getting-started-override", str(workspace)]
    env = dict(os.environ, XDG_CONFIG_HOME=str(home / "xdg-config"), XDG_DATA_HOME=str(home / "xdg-data"))
    url = f"http://127.0.0.1:{port}"
    with serving("code-server", cmd, f"{url}/healthz", home / "code-server.log", cwd=home, env=env):
        yield f"{url}/?folder={workspace}"


def open_in_vscode(context, url, name, pictures):
    """``name`` opened from VS Code's explorer in its notebook view; returns ``(page, webview frame)`` once
    the webview holds ``pictures`` SVG pictures.

    The explorer lists the file before the extension host has registered the ``ipynb`` notebook type;
    a click then opens the JSON text. The click is repeated (the text editor closed) until the
    notebook view opens."""
    from playwright.sync_api import expect
    page = new_page(context)
    page.goto(url)
    row = page.locator(".explorer-folders-view .monaco-list-row", has_text=name).first
    notebook = page.locator(".notebook-editor .cell-list-container")
    for _ in range(10):
        row.click(timeout=90_000)
        try:
            expect(notebook.first).to_be_visible(timeout=6_000)
            break
        except AssertionError:
            page.keyboard.press("Control+w" if page.locator(".monaco-editor .view-lines").count() else "Escape")
    else:
        pytest.fail(f"VS Code did not open {name} as a notebook")
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        for frame in page.frames:
            try:
                if frame.locator("svg.pti-svg").count() >= pictures:
                    page.wait_for_timeout(1000)         # let a late output settle before looking
                    return page, frame
            except Exception:                            # noqa: BLE001 (a frame navigating away)
                continue
        page.wait_for_timeout(500)
    found = {f.url[:100]: f.locator("svg.pti-svg").count() for f in page.frames if not f.is_detached()}
    page.screenshot(path=str(ARTIFACTS / f"vscode_{Path(name).stem}_failed.png"))
    pytest.fail(f"VS Code's notebook view drew fewer than {pictures} pictures: {found}")


def inspector_outputs(frame):
    """The webview's outputs, top to bottom."""
    return frame.evaluate(OUTPUTS_JS)


def screenshot(page, outs, name):
    """The notebook scrolled to its first picture (the webview's coordinates are the notebook's), saved."""
    first = next(o for o in outs if o["lanes"])
    page.mouse.move(800, 500)
    page.mouse.wheel(0, max(0, first["top"] - 120))
    page.wait_for_timeout(800)
    page.screenshot(path=str(ARTIFACTS / name))


def check_clean(page, frame, outs, pictures):
    """One picture per picture output, nothing but empty text in the others, and no failure text anywhere."""
    drawn = [o for o in outs if o["lanes"]]
    assert len(drawn) == pictures and all(len(o["lanes"]) == 1 for o in drawn), [o["text"][:80] for o in outs]
    for before, o in zip(outs, outs[1:]):
        if o["lanes"]:     # the output before a picture is its widget output: its empty text/plain, no picture
            assert not before["lanes"] and before["text"].strip() == "", before["text"][:300]
    shown = page.locator(".notebook-editor").first.inner_text() + frame.evaluate(BODY_TEXT_JS)
    for bad in FAILURES:
        assert bad not in shown, (bad, shown[-2000:])
    assert not [e for e in page.errors if "pti" in e], page.errors
    return drawn


def test_vscode_draws_each_saved_picture_once_with_its_lanes(context, vscode):
    page, frame = open_in_vscode(context, vscode, "pictures.ipynb", len(PICTURES))
    outs = inspector_outputs(frame)
    drawn = check_clean(page, frame, outs, len(PICTURES))
    assert [[n for n, _ in o["lanes"][0]] for o in drawn] == expected_lanes()    # the carrier's cell moved last
    screenshot(page, outs, "vscode_saved_pictures.png")
    page.close()


def test_vscode_draws_thirteen_pictures(context, vscode):
    page, frame = open_in_vscode(context, vscode, "thirteen.ipynb", 13)
    drawn = check_clean(page, frame, inspector_outputs(frame), 13)
    assert all([n for n, _ in o["lanes"][0]] == [f"x{k}", f"x{k}[::2]", f"x{k}[1:]"] for k, o in enumerate(drawn))
    page.close()


def test_vscode_draws_the_executed_tour(context, vscode):
    page, frame = open_in_vscode(context, vscode, "memory_tour.ipynb", len(QUESTIONS))
    outs = inspector_outputs(frame)
    drawn = check_clean(page, frame, outs, len(QUESTIONS))
    for q, o in zip(QUESTIONS, drawn):
        check_lanes(q["heading"], q["lanes"], [tuple(x) for x in o["lanes"][0]])
        for name in q.get("freed_later", []):          # drawn as it was, and said to be freed since
            assert f"{name} (freed since" in o["gone"], (q["heading"], o["gone"])
    screenshot(page, outs, "vscode_tour.png")
    page.close()
