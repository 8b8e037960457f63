"""The inspector at scale, in real Chromium: a 10-million-element buffer, 200 views of one buffer, and
a 1 GiB buffer whose byte accounting (who owns what) needs an exact sweep.

Run outside the source tree with pytensor installed:
    cd /tmp && python /work/main/tests/bench/bench_inspector.py
Needs Debian's Chromium (/usr/bin/chromium) and Playwright. Prints a Markdown
table: Python-side model times (snapshot, a live check with nothing changed)
and browser times (page load to picture, hover to tooltip, zoom click to
redraw), each the median of several runs. Times are milliseconds; they are
measurements to compare across changes, not limits (no test asserts them).
"""
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import pytensor
from pytensor.widgets import Inspector, snapshot, to_html

ROUNDS = 5
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def cases():
    big = pytensor.arange(10_000_000, dtype=pytensor.float32)
    yield "10M-element float32 buffer, 4 views", [big, big[::7], big[5_000_000:5_000_100], big.view(1000, 10_000).T]
    base = pytensor.arange(1 << 16, dtype=pytensor.int32)
    many = [base] + [base[k * 300:k * 300 + 1200:(k % 5) + 1] for k in range(199)]
    yield "200 views of one 256 KiB buffer", many
    small = pytensor.arange(96, dtype=pytensor.int32)
    yield "200 views of one 384 B buffer (byte detail)", [small] + [small[k % 90:(k % 90) + 6] for k in range(199)]
    # who owns what: big's bytes alone need an exact sweep over the strided view's 262 144 elements
    huge = pytensor.empty(1 << 28, dtype=pytensor.float32)
    yield "1 GiB buffer, a strided view over it (ownership sweep)", [huge, huge[::1024], huge[1 << 27:]]


def median_ms(fn, rounds=ROUNDS):
    out = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(out)


def browser_times(page, path):
    def load():
        page.goto(path.as_uri())
        page.wait_for_selector("svg.pti-svg", timeout=60_000)
    load_ms = median_ms(load)

    swatch = page.locator("g.pti-lane").last.locator(".pti-swatch")
    swatch.scroll_into_view_if_needed()      # scrolling hides the tooltip: scroll first, then time the hover
    page.wait_for_timeout(200)

    def hover():
        page.mouse.move(0, 0)
        swatch.hover()
        page.wait_for_selector(".pti-tip:visible", timeout=60_000)
    hover_ms = median_ms(hover)

    def zoom():
        gen = page.locator(".pti-region").first.get_attribute("data-end")
        page.locator(".pti-zoom[data-act='in']").first.click()
        page.wait_for_function("(g) => document.querySelector('.pti-region').dataset.end !== g", arg=gen,
                               timeout=60_000)
        page.locator(".pti-zoom[data-act='reset']").first.click()
    zoom_ms = median_ms(zoom)
    return load_ms, hover_ms, zoom_ms


def main():
    from playwright.sync_api import sync_playwright
    rows = []
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        ctx = p.chromium.launch_persistent_context(str(Path(tmp) / "profile"), executable_path=CHROMIUM,
                                                   headless=True, args=ARGS, viewport={"width": 1280, "height": 900})
        page = ctx.new_page()
        for name, objs in cases():
            names = [f"v{k}" for k in range(len(objs))]
            snap_ms = median_ms(lambda: snapshot(*objs, names=names))
            w = Inspector(*objs, names=names)
            check_ms = median_ms(w.check)
            path = Path(tmp) / "page.html"
            path.write_text(to_html(w.snapshot, w.previews), encoding="utf-8")
            w.close()
            load_ms, hover_ms, zoom_ms = browser_times(page, path)
            rows.append((name, snap_ms, check_ms, load_ms, hover_ms, zoom_ms, path.stat().st_size))
        ctx.close()
    print(f"Run: {time.strftime('%Y-%m-%d')} · {sys.platform} · Python {sys.version.split()[0]} · "
          f"numpy {np.__version__} · Chromium via Playwright · median of {ROUNDS}")
    print()
    print("| case | snapshot() | check(), unchanged | page load to picture | hover to tooltip | zoom click to redraw "
          "| page size |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, snap_ms, check_ms, load_ms, hover_ms, zoom_ms, size in rows:
        print(f"| {name} | {snap_ms:.1f} ms | {check_ms:.1f} ms | {load_ms:.0f} ms | {hover_ms:.0f} ms "
              f"| {zoom_ms:.0f} ms | {size / 1024:.0f} KiB |")


if __name__ == "__main__":
    main()
