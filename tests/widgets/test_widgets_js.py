"""The inspector's front end on its own: ``node --test tests/js`` (the pure renderer), and
the DOM glue in headless Chromium on a hand-built page (no kernel, no Python model), so
these tests keep working while the model changes.

The browser test needs Debian's Chromium and Playwright (``executable_path``; never
``playwright install``); it skips without them, and fails under CI.
"""
import json
import re
import subprocess
from pathlib import Path

import pytest

from browser_support import chromium_context, new_page
from support import require_program

HERE = Path(__file__).resolve().parents[1]
WIDGETS = HERE.parent / "widgets"


def test_renderer_node_tests():
    node = require_program("node")
    proc = subprocess.run([node, "--test", str(HERE / "js")], capture_output=True, text=True, timeout=120,
                          cwd=HERE.parent)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "# fail 0" in proc.stdout and "# pass 0" not in proc.stdout
    # the renderer's geometry against libtensor's vectors, and its hover fields, ran and passed
    for name in ("footprint, elementsInWindow and flatIndex agree with libtensor's vectors",
                 "a renderer whose rule drifts fails the check", "tooltips read only what describeView"):
        assert re.search(rf"^ok \d+ - {re.escape(name)}", proc.stdout, re.M), (name, proc.stdout[-4000:])


# ---------------------------------------------------------------------- a page built by hand
def _view(vid, name, shape, bstrides, byte_offset, **extra):
    numel = 1
    for n in shape:
        numel *= n
    lo = byte_offset + sum(min(0, (n - 1) * s) for n, s in zip(shape, bstrides))
    hi = byte_offset + sum(max(0, (n - 1) * s) for n, s in zip(shape, bstrides)) + 4
    v = {"id": vid, "name": name, "region": "r1", "kind": "tensor", "type": "numpy.ndarray", "dtype": "int32",
         "itemsize": 4, "endian": "<", "shape": shape, "bstrides": bstrides, "strides": [s // 4 for s in bstrides],
         "byte_offset": byte_offset, "storage_offset": byte_offset // 4, "footprint": [lo, hi], "numel": numel,
         "touched_bytes": numel * 4, "max_hits": 1, "exact": True, "self_overlap": False, "dense": True,
         "contiguous": False, "readonly": False, "in_bounds": True, "tags": []}
    v.update(extra)
    return v


def _snapshot():
    """Six int32s read forwards, backwards and as a temporary pair; bytes 24..31 are outside the preview."""
    views = [_view("v0", "a", [6], [4], 0, contiguous=True, tags=["contiguous"]),
             _view("v1", "flipped", [6], [-4], 20, tags=["flipped"]),
             _view("v2", "pair", [2], [4], 8, status="temporary", note="a[2:4], collected")]
    overlaps = [{"region": "r1", "a": "v0", "b": "v1", "lo": 0, "hi": 24, "shared_bytes": 24},
                {"region": "r1", "a": "v0", "b": "v2", "lo": 8, "hi": 16, "shared_bytes": 8},
                {"region": "r1", "a": "v1", "b": "v2", "lo": 8, "hi": 16, "shared_bytes": 8}]
    region = {"id": "r1", "addr": "0x1000", "nbytes": 32, "device": "cpu", "host": True, "readonly": False,
              "version": 0, "badges": [{"kind": "numpy", "text": "NumPy", "title": ""}], "sources": [],
              "views": ["v0", "v1", "v2"], "preview": {"start": 0, "length": 24, "pos": 0, "known": [[0, 24]]}}
    return {"version": 1, "regions": [region], "views": views, "overlaps": overlaps,
            "gone": [{"name": "tmp", "note": "was int32[2]"}]}


PREVIEW_B64 = "AAAAAAEAAAACAAAAAwAAAAQAAAAFAAAA"      # int32 0..5, little-endian


def _page_html():
    snap = json.dumps(_snapshot()).replace("</", "<\\/")
    js = (WIDGETS / "inspector.js").read_text(encoding="utf-8")
    css = (WIDGETS / "inspector.css").read_text(encoding="utf-8")
    return ('<!DOCTYPE html><html><head><meta charset="utf-8"><style>' + css + '</style></head>'
            '<body style="margin: 12px">'
            '<div id="one"></div><div style="height: 500px"></div><div id="two"></div>'
            '<div style="height: 1200px"></div>'
            '<script type="module">\n' + js + '\n'
            f'window.ptiViews = ["one", "two"].map((id) => mountStatic(document.getElementById(id), {snap}, '
            f'"{PREVIEW_B64}"));\n</script></body></html>')


@pytest.fixture(scope="module")
def page_factory():
    yield from chromium_context("pti-js-chromium-")


@pytest.fixture
def page(page_factory, tmp_path):
    path = tmp_path / "two_pictures.html"
    path.write_text(_page_html(), encoding="utf-8")
    pg = new_page(page_factory)
    pg.goto(path.as_uri())
    pg.wait_for_function("window.ptiViews && document.querySelectorAll('svg.pti-svg').length === 2")
    yield pg
    assert not pg.errors, pg.errors
    pg.close()


PATTERN_TARGETS = """(svg) => [...svg.querySelectorAll('[fill^="url(#"]')].map((n) => {
  const id = n.getAttribute('fill').slice(5, -1);
  const target = document.getElementById(id);
  return [id, !!target && svg.contains(target)];
})"""


def test_pattern_ids_survive_removing_another_picture(page):
    svgs = page.locator("svg.pti-svg")
    first, second = (svgs.nth(k).evaluate(PATTERN_TARGETS) for k in range(2))
    assert first and second
    assert all(ok for _, ok in first + second), (first, second)
    assert not {i for i, _ in first} & {i for i, _ in second}
    assert page.locator(".pti-tip-layer").count() == 2
    page.evaluate("window.ptiViews[0].destroy()")
    assert page.locator("svg.pti-svg").count() == 1
    assert page.locator(".pti-tip-layer").count() == 1, "destroy() removes its tooltip layer"
    left = page.locator("svg.pti-svg").evaluate(PATTERN_TARGETS)
    assert left and all(ok for _, ok in left), left


def test_lowest_lane_tooltip_stays_inside_the_viewport(page):
    lane = page.locator("#two .pti-lane[data-name='pair']")
    assert "pti-temp" in lane.get_attribute("class")
    # bring the picture's lowest lane to the bottom edge of the viewport
    page.evaluate("""() => { const r = document.querySelector("#two .pti-lane[data-name='pair']").getBoundingClientRect();
                            window.scrollBy(0, r.bottom - window.innerHeight + 2); }""")
    for target in ("#two .pti-lane[data-name='pair'] .pti-el", "#two .pti-lane[data-name='pair'] .pti-swatch",
                   "#two .pti-byte[data-off='11']"):
        page.locator(target).first.hover()
        tip = page.locator(".pti-tip-layer .pti-tip:visible")
        tip.wait_for()
        box = tip.bounding_box()
        vw, vh = page.evaluate("[document.documentElement.clientWidth, document.documentElement.clientHeight]")
        assert box["x"] >= 0 and box["y"] >= 0 and box["x"] + box["width"] <= vw and box["y"] + box["height"] <= vh, \
            (target, box, vw, vh)
    page.locator("#two .pti-lane[data-name='pair'] .pti-swatch").hover()
    text = page.locator(".pti-tip-layer .pti-tip:visible").inner_text()
    assert "temporary" in text and "a[2:4], collected" in text
    page.locator("#two .pti-byte[data-off='8']").hover()
    text = page.locator(".pti-tip-layer .pti-tip:visible").inner_text()
    for reader in ("a[2]", "flipped[3]", "pair[0]"):
        assert reader in text, text


def test_dark_theme_keeps_dark_ink_on_light_cells(page):
    page.evaluate("""() => { document.body.dataset.jpThemeLight = "false";
                            document.documentElement.style.setProperty("--jp-ui-font-color1", "#e0e0e0");
                            document.documentElement.style.setProperty("--jp-layout-color1", "#111111"); }""")
    fill = "(n) => getComputedStyle(n).fill"
    assert page.locator("#one .pti-title").first.evaluate(fill) == "rgb(224, 224, 224)"   # theme text follows the theme
    assert page.locator("#one .pti-hex").first.evaluate(fill) == "rgb(52, 58, 64)"
    assert page.locator("#one .pti-val").first.evaluate(fill) == "rgb(17, 20, 24)"
    assert page.locator("#one .pti-badge text").first.evaluate(fill) == "rgb(33, 37, 41)"
    assert page.locator("#one .pti-gone").evaluate(fill) == "rgb(255, 135, 135)"
    # the picture scrolls sideways inside its holder, not the whole widget
    assert page.locator("#one .pti-holder").evaluate("(n) => getComputedStyle(n).overflowX") == "auto"
    assert page.locator("#one .pti-root").evaluate("(n) => getComputedStyle(n).overflowX") == "visible"
