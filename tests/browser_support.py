"""Real-browser plumbing shared by the inspector's browser tests.

Debian's Chromium driven by Playwright (``executable_path``; a test never
downloads a browser), with the flags this closed network needs, and the
tour's own page made the way a newcomer makes it.
"""
import os
import shutil
import subprocess
import sys
import tempfile
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
