"""The inspector at scale, in real Chromium: a 10-million-element buffer, 200 views of one buffer, and
a 1 GiB buffer whose byte accounting (who owns what) needs an exact sweep.

Run outside the source tree with pytensor installed:
    cd /tmp && python /work/main/tests/bench/bench_inspector.py
Needs Debian's Chromium (/usr/bin/chromium) and Playwright. Prints a Markdown
table: Python-side model times (snapshot, a live check with nothing changed)
and browser times (page load to picture, hover to tooltip, zoom click to
redraw), each the median of several runs. Times are milliseconds; they are
measurements to compare across changes, not limits (no test asserts them).

The second table is one live update of 50, 200 and 500 views of one buffer: Python's check()
after a write, the bytes the widget sends for it, a whole snapshot (what every update resent
before updates became deltas), and the redraw in Chromium, from the message's JSON to a painted
picture, by the live view's own code over a stand-in for anywidget's model.
    cd /tmp && python /work/main/tests/bench/bench_inspector.py updates    # that table only

The third table is the work bounds (issue 25, item 6): hundreds to ten thousand views of one
buffer and a 256 GiB mapped file, each as snapshot(), to_text() and a page load in Chromium,
beside the work the model counted (pairs listed of all that meet, pages asked).
    cd /tmp && python /work/main/tests/bench/bench_inspector.py bounds     # that table only

The fourth table is issue 30's scale item: 500 overlapping views of one buffer, four layouts, as
snapshot(), to_text() and to_html() (whose page carries the text too), beside the text summary as
the commit before widgets/_text.py wrote it (``BEFORE``, loaded from git), whose cost grew with the
square of the views.
    cd /tmp && python /work/main/tests/bench/bench_inspector.py scale500   # that table only (no browser)
"""
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import pytensor
import pytensor.widgets
from pytensor.widgets import Inspector, snapshot, to_html, to_text
from bench import median_cpu_ms, median_ms  # this folder is the script's, so on sys.path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))   # tests/: Chromium and the live page, as the tests have them
from browser_support import live_page, open_chromium, state_json  # noqa: E402

ROUNDS = 5


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


def browser_times(page, path):
    def load():
        page.goto(path.as_uri())
        page.wait_for_selector("svg.pti-svg", timeout=60_000)
    load_ms = median_ms(load, ROUNDS)

    swatch = page.locator("g.pti-lane").last.locator(".pti-swatch")
    swatch.scroll_into_view_if_needed()      # scrolling hides the tooltip: scroll first, then time the hover
    page.wait_for_timeout(200)

    def hover():
        page.mouse.move(0, 0)
        swatch.hover()
        page.wait_for_selector(".pti-tip:visible", timeout=60_000)
    hover_ms = median_ms(hover, ROUNDS)

    def zoom():
        gen = page.locator(".pti-region").first.get_attribute("data-end")
        page.locator(".pti-zoom[data-act='in']").first.click()
        page.wait_for_function("(g) => document.querySelector('.pti-region').dataset.end !== g", arg=gen,
                               timeout=60_000)
        page.locator(".pti-zoom[data-act='reset']").first.click()
    zoom_ms = median_ms(zoom, ROUNDS)
    return load_ms, hover_ms, zoom_ms


# ---------------------------------------------------------------------- live updates
UPDATE_VIEWS = (50, 200, 500)

# From the update message's arrival (its JSON text) to a laid-out, painted picture of it.
REDRAW_JS = """async ([json, gen]) => {
  const t0 = performance.now();
  window.ptiSet(json);
  const svg = () => document.querySelector("svg.pti-svg");
  while (svg().dataset.generation !== String(gen)) await new Promise((r) => setTimeout(r, 0));
  svg().getBoundingClientRect();
  await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  return performance.now() - t0;
}"""


def update_objs(n):
    """``n`` views of one 256 KiB int32 buffer: the buffer and n - 1 strided, overlapping slices."""
    base = pytensor.arange(1 << 16, dtype=pytensor.int32)
    return base, [base] + [base[k * 100:k * 100 + 1200:(k % 5) + 1] for k in range(n - 1)]


def update_times(ctx, tmp, n):
    """One live update of ``n`` views: Python's check(), bytes sent, Chromium redraw; medians."""
    base, objs = update_objs(n)
    w = Inspector(*objs, names=[f"v{k}" for k in range(n)])
    sent = []
    w._send = lambda msg, buffers=None: sent.append((msg, buffers))
    full = len(json.dumps(w.snapshot, separators=(",", ":"))) + len(w.previews)   # what an update resent before
    page = ctx.new_page()
    page.goto(live_page(w, Path(tmp) / f"updates{n}.html").as_uri())
    page.wait_for_selector("svg.pti-svg", timeout=60_000)
    arr = np.asarray(base)
    check_ms, sizes, redraw_ms = [], ([], []), []
    for k in range(2 * ROUNDS):
        sent.clear()
        if k % 2:
            arr[k] = -k                         # a NumPy write: only the preview re-read sees it
        else:
            base[k] = -k                        # a write through pytensor: the write counter moves
        t0 = time.perf_counter()
        assert w.check()
        check_ms.append((time.perf_counter() - t0) * 1e3)
        msg, buffers = sent[-1]
        sizes[k % 2].append(len(json.dumps(msg, separators=(",", ":"), default=lambda b: None))
                            + sum(len(b) for b in buffers or []))
        redraw_ms.append(page.evaluate(REDRAW_JS, [state_json(msg, buffers), w.snapshot["generation"]]))
    lanes = page.locator("g.pti-lane").count()
    page.close()
    w.close()
    return (statistics.median(check_ms), statistics.median(sizes[0]), statistics.median(sizes[1]), full,
            statistics.median(redraw_ms), lanes)


def update_table(ctx, tmp):
    rows = [(n, *update_times(ctx, tmp, n)) for n in UPDATE_VIEWS]
    print("| views of one buffer | check() after a write | sent: pytensor write | sent: NumPy write "
          "| one whole snapshot | redraw in Chromium | lanes drawn |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for n, check_ms, pt, nw, full, redraw, lanes in rows:
        print(f"| {n} | {check_ms:.1f} ms | {pt / 1024:.1f} KiB | {nw / 1024:.1f} KiB | {full / 1024:.0f} KiB "
              f"| {redraw:.0f} ms | {lanes} |")


# ---------------------------------------------------------------------- bounded work
def bound_cases(tmp):
    base = pytensor.arange(1 << 16, dtype=pytensor.int32)
    for n in (300, 1000):
        yield f"{n} strided views of one 256 KiB buffer", [base[k:k + 4000:(k % 7) + 2] for k in range(n)]
    yield "10,000 dense views of one 256 KiB buffer", [base[k % 60000:k % 60000 + 64] for k in range(10_000)]
    yield "10,000 overlapping dense views", [base[k % 600:k % 600 + 6400] for k in range(10_000)]
    path = Path(tmp) / "sparse256.bin"
    with open(path, "wb") as f:
        f.truncate(256 << 30)                      # sparse: no disk is used
    big = pytensor.from_file(str(path), shared=True, size=256 << 30, dtype=pytensor.uint8)
    yield "a 256 GiB mapped file, 3 views", [big, big[::4096], big[1 << 37:]]


def bounds_table(ctx, tmp):
    from pytensor.widgets._pairs import Work
    print("| case | snapshot() | to_text() | page load to picture | pairs listed / meeting | pages asked |")
    print("|---|---:|---:|---:|---:|---:|")
    page = ctx.new_page()
    for name, objs in bound_cases(tmp):
        work = Work()
        snap, blob = snapshot(*objs, work=work)
        snap_ms = median_ms(lambda: snapshot(*objs), 3)
        text_ms = median_ms(lambda: to_text(snap, blob), 3)
        path = Path(tmp) / "bounds.html"
        path.write_text(to_html(snap, blob), encoding="utf-8")

        def load():
            page.goto(path.as_uri())
            page.wait_for_selector("svg.pti-svg", timeout=120_000)
        load_ms = median_ms(load, 3)
        meeting = sum(r["overlaps_total"] for r in snap["regions"])
        print(f"| {name} | {snap_ms:.0f} ms | {text_ms:.0f} ms | {load_ms:.0f} ms "
              f"| {len(snap['overlaps']):,} / {meeting:,} | {work.pages_asked:,} |")
        del objs
    page.close()


# ---------------------------------------------------------------------- 500 overlapping views (issue 30)
BEFORE = "f717c29"            # main before issue 30: to_text in widgets/_export.py


def text_before():
    """``to_text`` as commit BEFORE wrote it, run against today's helpers (None without git)."""
    import importlib.util
    import subprocess
    root = Path(__file__).resolve().parents[2]
    try:
        src = subprocess.run(["git", "show", f"{BEFORE}:widgets/_export.py"], cwd=root, capture_output=True,
                             text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    spec = importlib.util.spec_from_loader("pytensor.widgets._export_before", loader=None)
    mod = importlib.util.module_from_spec(spec)
    mod.__package__ = "pytensor.widgets"
    mod.__file__ = str(Path(pytensor.widgets.__file__).with_name("_export.py"))   # its assets, beside today's
    exec(compile(src, f"{BEFORE}:widgets/_export.py", "exec"), mod.__dict__)
    return mod.to_text


def overlapping_500():
    base = pytensor.arange(1 << 12, dtype=pytensor.int32)
    yield "the same 16 KiB, 500 times", [base[:] for _ in range(500)]
    yield "500 shifted dense slices", [base[k:k + 2000] for k in range(500)]
    yield "500 strided slices (steps 1-5)", [base[k % 7::(k % 5) + 1] for k in range(500)]
    yield "500 short slices of 200", [base[k % 50:k % 50 + 200] for k in range(500)]


def scale_table():
    before = text_before()
    print("| 500 views of one buffer | snapshot() | to_text() | to_html() | all three | text | "
          f"to_text() before ({BEFORE}) | text before |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, objs in overlapping_500():
        names = [f"v{k}" for k in range(len(objs))]
        snap, blob = snapshot(*objs, names=names)
        snap_ms = median_cpu_ms(lambda: snapshot(*objs, names=names), ROUNDS)
        text_ms = median_cpu_ms(lambda: to_text(snap, blob), ROUNDS)
        html_ms = median_cpu_ms(lambda: to_html(snap, blob), ROUNDS)
        cells = [f"{snap_ms:.0f} ms", f"{text_ms:.0f} ms", f"{html_ms:.0f} ms",
                 f"{snap_ms + text_ms + html_ms:.0f} ms", f"{len(to_text(snap, blob)) / 1024:.0f} KiB"]
        if before is not None:
            cells += [f"{median_cpu_ms(lambda: before(snap, blob), 3):.0f} ms",
                      f"{len(before(snap, blob)) / 1024:.0f} KiB"]
        else:
            cells += ["-", "-"]
        print(f"| {name} | " + " | ".join(cells) + " |")


def main():
    if sys.argv[1:] == ["scale500"]:
        print(f"Run: {time.strftime('%Y-%m-%d')} · {sys.platform} · Python {sys.version.split()[0]} · "
              f"numpy {np.__version__} · CPU time of this process, median of {ROUNDS}")
        print()
        scale_table()
        return
    if sys.argv[1:] == ["bounds"]:
        with tempfile.TemporaryDirectory() as tmp, open_chromium("pti-bench-") as ctx:
            print(f"Run: {time.strftime('%Y-%m-%d')} · {sys.platform} · Python {sys.version.split()[0]} · "
                  f"numpy {np.__version__} · Chromium via Playwright · median of 3")
            print()
            bounds_table(ctx, tmp)
        return
    only_updates = sys.argv[1:] == ["updates"]
    rows = []
    with tempfile.TemporaryDirectory() as tmp, open_chromium("pti-bench-") as ctx:
        page = ctx.new_page()
        for name, objs in ([] if only_updates else cases()):
            names = [f"v{k}" for k in range(len(objs))]
            snap_ms = median_ms(lambda: snapshot(*objs, names=names), ROUNDS)
            w = Inspector(*objs, names=names)
            check_ms = median_ms(w.check, ROUNDS)
            path = Path(tmp) / "page.html"
            path.write_text(to_html(w.snapshot, w.previews), encoding="utf-8")
            w.close()
            load_ms, hover_ms, zoom_ms = browser_times(page, path)
            rows.append((name, snap_ms, check_ms, load_ms, hover_ms, zoom_ms, path.stat().st_size))
        print(f"Run: {time.strftime('%Y-%m-%d')} · {sys.platform} · Python {sys.version.split()[0]} · "
              f"numpy {np.__version__} · Chromium via Playwright · median of {ROUNDS}")
        print()
        if rows:
            print("| case | snapshot() | check(), unchanged | page load to picture | hover to tooltip "
                  "| zoom click to redraw | page size |")
            print("|---|---:|---:|---:|---:|---:|---:|")
            for name, snap_ms, check_ms, load_ms, hover_ms, zoom_ms, size in rows:
                print(f"| {name} | {snap_ms:.1f} ms | {check_ms:.1f} ms | {load_ms:.0f} ms | {hover_ms:.0f} ms "
                      f"| {zoom_ms:.0f} ms | {size / 1024:.0f} KiB |")
            print()
        print(f"Live updates: one write per round, alternately through pytensor and through NumPy; "
              f"median of {2 * ROUNDS}.")
        print()
        update_table(ctx, tmp)


if __name__ == "__main__":
    main()
