"""Real-browser plumbing shared by the inspector's browser tests.

Debian's Chromium driven by Playwright (``executable_path``; a test never
downloads a browser), with the flags this closed network needs, and the
tour's own page made the way a newcomer makes it.
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

from support import require_module, require_program

ROOT = Path(__file__).resolve().parent.parent
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


def jupyter_server(module, root, env, log_path):
    """Yields ``(base URL, token)`` of ``python -m module`` (jupyterlab or notebook) serving ``root``,
    once it answers; stops the process it started on exit. Its output goes to ``log_path``."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    token = secrets.token_hex(16)
    cmd = [sys.executable, "-m", module, "--no-browser", "--allow-root", "--ip=127.0.0.1",
           f"--port={port}", f"--ServerApp.root_dir={root}", f"--IdentityProvider.token={token}",
           "--LabApp.news_url=None", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"]
    log = open(log_path, "w")
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
                    raise RuntimeError(f"{module} did not start: {Path(log_path).read_text()[-2000:]}")
                time.sleep(0.25)
        yield base, token
    finally:
        proc.terminate()                           # the process this started, by its handle
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


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

