"""Real-browser plumbing shared by the inspector's browser tests.

Debian's Chromium driven by Playwright (``executable_path``; a test never
downloads a browser), with the flags this closed network needs; the live
view in a plain page over a stand-in model; servers started and waited for;
and the tour's own page made the way a newcomer makes it.
"""
import base64
import contextlib
import json
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

from support import require_module, require_program

ROOT = Path(__file__).resolve().parent.parent
WIDGETS = ROOT / "widgets"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def chromium_context(prefix="pti-chromium-", **options):
    """Yields a Playwright browser context over a fresh profile (skips, or fails under CI, without Chromium)."""
    chromium = require_program(os.environ.get("CHROMIUM", "/usr/bin/chromium"))
    require_module("playwright")
    from playwright.sync_api import sync_playwright
    profile = tempfile.mkdtemp(prefix=prefix)
    options.setdefault("viewport", {"width": 1280, "height": 900})
    try:
        with sync_playwright() as p:
            # Playwright refuses --user-data-dir in args: the profile is the first argument instead.
            ctx = p.chromium.launch_persistent_context(profile, executable_path=chromium, headless=True,
                                                       args=CHROMIUM_ARGS, **options)
            yield ctx
            ctx.close()
    finally:
        shutil.rmtree(profile, ignore_errors=True)


def new_page(context):
    """A new page of ``context`` whose uncaught script errors collect in ``page.errors``."""
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    return page


# ``with open_chromium(prefix, **options) as context``: chromium_context where no fixture yields it
open_chromium = contextlib.contextmanager(chromium_context)
# What starts Chromium here: conftest.py skips, in the sanitized pass, a test or fixture that names one.
CHROMIUM_STARTERS = {"chromium_context", "open_chromium", "chromium_page"}


@contextlib.contextmanager
def chromium_page(url=None, prefix="pti-chromium-", **options):
    """One page (``new_page``) of a fresh Chromium (``chromium_context``), at ``url`` if given."""
    with open_chromium(prefix, **options) as context:
        page = new_page(context)
        if url is not None:
            page.goto(url)
        yield page


def hover(page, target):
    """Hover ``target`` once the page has stopped scrolling to it (a scroll hides the tooltip)."""
    target.scroll_into_view_if_needed()
    page.wait_for_timeout(150)
    target.hover()


def artifacts_dir(default):
    """Where a test's screenshots go: $PYTENSOR_ARTIFACTS, else ``default``; made if missing."""
    out = Path(os.environ.get("PYTENSOR_ARTIFACTS") or default)
    out.mkdir(parents=True, exist_ok=True)
    return out


# The live view in a plain page: inspector.js's anywidget entry point over a stand-in model.
# ``ptiSet(json)`` stores traits as the comm would and fires their change events, ``ptiMsg(json,
# [base64])`` delivers a custom message, ``ptiSent`` collects what the view sent.
LIVE_HARNESS = """
const traits = {}, handlers = {};
window.ptiSent = [];
window.ptiLimits = LIMITS;
window.pti = { renderSvg, attachPreviews, patchPicture, toU8, applyDelta };
const model = { get: (k) => traits[k], on: (ev, f) => (handlers[ev] = handlers[ev] || []).push(f),
  off() {}, send: (msg) => window.ptiSent.push(msg) };
const unpack = (state) => { for (const [k, v] of Object.entries(state)) traits[k] = k === "previews" ? toU8(v) : v; };
window.ptiSet = (json) => {
  const state = JSON.parse(json);
  unpack(state);
  for (const k of Object.keys(state)) for (const f of handlers[`change:${k}`] || []) f();
};
window.ptiMsg = (json, buffers) => {
  for (const f of handlers["msg:custom"] || []) f(JSON.parse(json), buffers.map((b) => new DataView(toU8(b).buffer)));
};
unpack(INITIAL);
window.ptiCleanup = render({ model, el: document.getElementById("w") });
"""


def b64(data):
    """Bytes as base64 text, as a widget's buffers travel in a page."""
    return base64.b64encode(bytes(data)).decode("ascii")


def state_json(msg, buffers):
    """A widget update as the front end receives it: its state, buffers put back in place (base64)."""
    state = dict(msg["state"])
    for path, buf in zip(msg.get("buffer_paths", []), buffers or []):
        state[path[0]] = b64(buf)
    return json.dumps(state, separators=(",", ":"))


def live_page(w, path):
    """A page running the live view of ``w``'s current state; returns ``path``."""
    initial = {"base": w.base, "checkpoint": w.checkpoint, "delta": w.delta, "previews": b64(w.previews),
               "changes": w.changes, "steps": w.steps, "poll_ms": 0}
    path.write_text('<!DOCTYPE html><html><head><meta charset="utf-8"><style>'
                    + (WIDGETS / "inspector.css").read_text(encoding="utf-8") + "</style></head>"
                    '<body><div id="w"></div><script type="module">\n'
                    + (WIDGETS / "inspector.js").read_text(encoding="utf-8")
                    + "\nconst INITIAL = " + json.dumps(initial).replace("</", "<\\/") + ";\n" + LIVE_HARNESS
                    + "</script></body></html>", encoding="utf-8")
    return path


def run_tour(folder):
    """``python examples/memory_tour.py`` in ``folder``: ``(path of the page it wrote, what it printed)``."""
    run = subprocess.run([sys.executable, str(ROOT / "examples" / "memory_tour.py")], cwd=folder,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    page = Path(folder) / "memory_tour.html"
    assert page.exists(), run.stdout[-2000:]
    return page, run.stdout


def jupyter_env(home):
    """Environment for a Jupyter server whose config, data, runtime and settings all live under
    ``home``, with JupyterLab's news and update checks switched off (nothing outside is reachable)."""
    home = Path(home)
    notif = home / "settings" / "@jupyterlab" / "apputils-extension"
    notif.mkdir(parents=True, exist_ok=True)
    (notif / "notification.jupyterlab-settings").write_text('{"fetchNews": "false", "checkForUpdates": false}')
    return dict(os.environ, JUPYTER_CONFIG_DIR=str(home / "config"), JUPYTER_DATA_DIR=str(home / "data"),
                JUPYTER_RUNTIME_DIR=str(home / "runtime"), JUPYTERLAB_SETTINGS_DIR=str(home / "settings"),
                JUPYTERLAB_WORKSPACES_DIR=str(home / "workspaces"))


def free_port():
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def serving(what, cmd, probe_url, log_path, **popen):
    """Runs ``cmd`` (its output to ``log_path``) until ``probe_url`` answers, then yields the process; stops
    the process it started on exit. If it exits first or does not answer in 90 s: RuntimeError, naming
    ``what`` and quoting the end of its log."""
    log = open(log_path, "w")
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, **popen)
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                urllib.request.urlopen(probe_url, timeout=2)
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"{what} did not start: {Path(log_path).read_text()[-3000:]}")
                time.sleep(0.25)
        yield proc
    finally:
        proc.terminate()                           # the process this started, by its handle
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


def jupyter_server(module, root, env, log_path):
    """Yields ``(base URL, token)`` of ``python -m module`` (jupyterlab or notebook) serving ``root``,
    once it answers; stops the process it started on exit. Its output goes to ``log_path``."""
    port = free_port()
    token = secrets.token_hex(16)
    cmd = [sys.executable, "-m", module, "--no-browser", "--allow-root", "--ip=127.0.0.1",
           f"--port={port}", f"--ServerApp.root_dir={root}", f"--IdentityProvider.token={token}",
           "--LabApp.news_url=None", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"]
    base = f"http://127.0.0.1:{port}"
    with serving(module, cmd, f"{base}/api/status?token={token}", log_path, env=env, cwd=root):
        yield base, token


def run_all_cells(page, scope=None):
    """Run All Cells in the JupyterLab or Notebook 7 page once its kernel is up (``scope``: the notebook
    panel to watch, default the page). The execution indicator says "idle" before a kernel exists, so
    the kernel's name is awaited first."""
    from playwright.sync_api import expect
    where = scope if scope is not None else page
    expect(where.locator(".jp-Toolbar-kernelName, .jp-NotebookKernelName").first).to_contain_text(
        "Python 3", timeout=90_000)
    expect(where.locator(".jp-Notebook-ExecutionIndicator").first).to_have_attribute("data-status", "idle",
                                                                                     timeout=90_000)
    page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
    page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()
    page.wait_for_timeout(300)
    if page.locator(".jp-Dialog .jp-mod-accept").count():
        page.locator(".jp-Dialog .jp-mod-accept").click()

