"""Readable in a room (issue 30, item 6), in real Chromium on the product's own output: the page
``python examples/memory_tour.py`` writes, a page of pictures whose order paths matter, and a page of
500 views written by ``write_html``.

- The size control (small, medium, large) is in the picture, keyboard-operable, and the picture's
  own state; at "large" every text of the picture is drawn at 12 px or more. The picture is an SVG
  whose viewBox is magnified, so a text's size on screen is its computed font size times the
  SVG's screen scale (``getScreenCTM``); both are read from the browser.
- Lane labels, chains, table cells and notes wrap: no text ends in an ellipsis, every label ends
  before the byte axis, every value fits its cell (``getComputedTextLength``), nothing runs past
  the picture.
- Strides, offset and "n values from m B" are on each lane, without hovering.
- The order path shows for one lane at a time, and under the pointer.
- 500 views passed as one list are folded into a coverage view one screen tall.

Screenshots at 1366 and 1024 px go to $PYTENSOR_ARTIFACTS (default: the test's tmp dir).
Skips without Chromium or Playwright; fails under CI.
"""
import re

import numpy as np
import pytest

from browser_support import artifacts_dir, chromium_context, new_page, run_tour
from support import require_module

WIDTHS = (1366, 1024)        # a laptop in JupyterLab, a classroom projector
SCREEN_PX = 1000             # "one screen tall" at those widths


@pytest.fixture(scope="module")
def context():
    yield from chromium_context("pti-room-chromium-", viewport={"width": 1366, "height": 900})


@pytest.fixture(scope="module")
def artifacts(tmp_path_factory):
    return artifacts_dir(tmp_path_factory.mktemp("artifacts"))


@pytest.fixture
def page(context):
    pg = new_page(context)
    yield pg
    assert not pg.errors, pg.errors
    pg.close()


@pytest.fixture(scope="module")
def tour(tmp_path_factory):
    require_module("numpy")
    return run_tour(tmp_path_factory.mktemp("tour"))[0]


def views_500(n=500):
    import pytensor
    base = pytensor.arange(1 << 12, dtype=pytensor.int32)
    views = [base[k % 7:k % 7 + 3000:(k % 5) + 1] for k in range(n)] + [base[5:5]]   # and an empty one
    return base, views


@pytest.fixture(scope="module")
def page_500(tmp_path_factory):
    from pytensor.widgets import write_html
    base, views = views_500()
    return write_html(tmp_path_factory.mktemp("v500") / "views500.html", base, views)


def open_page(page, path, width):
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(path.as_uri())
    page.wait_for_selector("svg.pti-svg")


def choose_size(page, size):
    """Every picture's size control set to ``size`` by clicking its radio button."""
    for button in page.locator(f".pti-size[data-size='{size}']").all():
        button.click()
    page.wait_for_function("(s) => [...document.querySelectorAll('.pti-root:not(.pti-tip-layer)')]"
                           ".every((r) => r.dataset.size === s)", arg=size)


# The smallest on-screen font size of each kind of text in the pictures: computed size x SVG scale.
FONT_PX_JS = """() => {
  const out = {};
  for (const svg of document.querySelectorAll('svg.pti-svg')) {
    const scale = svg.getScreenCTM().a;
    for (const t of svg.querySelectorAll('text')) {
      if (!t.textContent.trim()) continue;
      const px = parseFloat(getComputedStyle(t).fontSize) * scale;
      const kind = t.getAttribute('class') || (t.closest('[class]') || svg).getAttribute('class').split(' ')[0];
      out[kind] = Math.min(out[kind] ?? Infinity, px);
    }
  }
  for (const el of document.querySelectorAll('.pti-bar, .pti-size')) {
    out[el.className] = Math.min(out[el.className] ?? Infinity, parseFloat(getComputedStyle(el).fontSize));
  }
  return out;
}"""

# Text that is cut or does not fit: an ellipsis at the end of a label, chain, table cell, note or
# header; a label running into the byte axis; a value wider than its cell; anything past the picture.
CUT_JS = """() => {
  const out = [];
  for (const svg of document.querySelectorAll('svg.pti-svg')) {
    const s = svg.getBoundingClientRect(), scale = svg.getScreenCTM().a;
    const axis = svg.querySelector('.pti-byte, .pti-bucket');
    const axisLeft = axis ? axis.getBoundingClientRect().left : s.right;
    for (const t of svg.querySelectorAll('text')) {
      const text = t.textContent, r = t.getBoundingClientRect(), cls = t.getAttribute('class') || '';
      if (!text.trim()) continue;
      if (r.right > s.right + 0.5 || r.left < s.left - 0.5) out.push(['past the picture', text]);
      if (/pti-val|pti-idx/.test(cls)) continue;            // values shorten numbers to fit; checked below
      if (text.trim().endsWith('\\u2026')) out.push(['ellipsis', text]);
      if (t.closest('.pti-label') && r.right > axisLeft + 0.5) out.push(['label into the axis', text]);
    }
    for (const v of svg.querySelectorAll('text.pti-val')) {
      const lane = v.closest('.pti-lane');
      const cell = lane.querySelector(`.pti-el[data-index="${v.dataset.index}"]`);
      const w = cell.getBoundingClientRect().width, tw = v.getComputedTextLength() * scale;
      if (tw > w + 0.5) out.push(['value wider than its cell', v.textContent, tw, w]);
    }
  }
  return out;
}"""

LABELS_JS = """() => [...document.querySelectorAll('svg.pti-svg g.pti-label')].map((g) =>
  [g.closest('.pti-lane').dataset.name, [...g.querySelectorAll('text')].map((t) => t.textContent).join('\\n')])"""


@pytest.mark.parametrize("width", WIDTHS)
def test_the_tour_at_large_size_draws_every_text_at_12px_or_more_and_cuts_none(page, tour, artifacts, width):
    open_page(page, tour, width)
    default = page.evaluate(FONT_PX_JS)
    assert page.locator(".pti-root:not(.pti-tip-layer)").first.get_attribute("data-size") == "medium"
    assert default["pti-val"] >= 11, default                # the default is already larger than before (9.5)
    assert page.evaluate(CUT_JS) == []
    page.screenshot(path=str(artifacts / f"room_tour_{width}_medium.png"), full_page=True)
    choose_size(page, "large")
    sizes = page.evaluate(FONT_PX_JS)
    assert {"pti-val", "pti-idx", "pti-name", "pti-tags"} <= set(sizes), sizes
    assert min(sizes.values()) >= 12, {k: round(v, 2) for k, v in sizes.items() if v < 12}
    assert page.evaluate(CUT_JS) == []
    assert page.evaluate("() => [...document.querySelectorAll('svg.pti-svg')].every((s) => s.dataset.size === 'large')")
    page.screenshot(path=str(artifacts / f"room_tour_{width}_large.png"), full_page=True)


def test_every_lane_shows_strides_offset_and_how_many_values_from_how_many_bytes(page, tour):
    open_page(page, tour, 1366)
    labels = page.evaluate(LABELS_JS)
    assert len(labels) >= 20
    for name, text in labels:
        flat = " ".join(text.split())
        assert re.search(r"strides \(-?\d+(, -?\d+)*,?\)( B)? \u00b7 offset -?\d+", flat), (name, flat)
        assert re.search(r"\b\d+ values? from (\d+|\?) B", flat), (name, flat)


def test_the_size_control_works_from_the_keyboard_and_is_the_pictures_state(page, tour):
    open_page(page, tour, 1024)
    root = page.locator(".pti-root:not(.pti-tip-layer)").first
    svg = root.locator("svg.pti-svg")
    width_before = svg.evaluate("(s) => s.viewBox.baseVal.width")
    medium = root.locator(".pti-size[data-size='medium']")
    medium.focus()
    page.keyboard.press("ArrowRight")
    assert root.get_attribute("data-size") == "large"
    assert root.locator(".pti-size[data-size='large']").get_attribute("aria-checked") == "true"
    assert page.evaluate("() => document.activeElement.dataset.size") == "large"
    assert svg.get_attribute("data-size") == "large"
    assert svg.evaluate("(s) => s.viewBox.baseVal.width") < width_before      # fewer units, each larger
    # the other pictures keep their own size; Enter on a button picks it
    assert page.locator(".pti-root:not(.pti-tip-layer)").nth(1).get_attribute("data-size") == "medium"
    root.locator(".pti-size[data-size='small']").focus()
    page.keyboard.press("Enter")
    assert root.get_attribute("data-size") == "small"


ORDER_SHOWN_JS = """(fig) => [...fig.querySelectorAll('g.pti-lane')]
  .filter((l) => { const o = l.querySelector('.pti-order'); return o && getComputedStyle(o).visibility === 'visible'; })
  .map((l) => l.dataset.name)"""


def test_the_order_path_shows_for_one_lane_at_a_time(page, tmp_path):
    from pytensor.widgets import figure, write_page
    a = np.arange(12, dtype=np.int32)
    grid = a.reshape(3, 4)
    path = write_page(tmp_path / "order.html", [figure("order", a, grid, grid.T, a[::-1],
                                                       names=["a", "grid", "gT", "flipped"])])
    open_page(page, path, 1366)
    fig = page.locator("section.pti-figure").first
    assert fig.locator(".pti-order").count() == 4                    # every lane has its path...
    assert fig.evaluate(ORDER_SHOWN_JS) == ["gT"]                    # ...one shows: the first that steps back
    fig.locator("g.pti-lane[data-name='grid'] .pti-swatch").hover()
    assert sorted(fig.evaluate(ORDER_SHOWN_JS)) == ["gT", "grid"]     # and the one under the pointer
    page.mouse.move(1, 1)
    assert fig.evaluate(ORDER_SHOWN_JS) == ["gT"]
    label = fig.locator("g.pti-lane[data-name='flipped'] g.pti-label")
    label.focus()
    page.keyboard.press("Enter")                                     # picked from the keyboard
    label = fig.locator("g.pti-lane[data-name='flipped'] g.pti-label")
    assert label.get_attribute("aria-pressed") == "true"
    page.evaluate("() => document.activeElement.blur()")
    assert fig.evaluate(ORDER_SHOWN_JS) == ["flipped"]
    label.click()                                                    # picked again: none
    page.evaluate("() => document.activeElement.blur()")
    page.mouse.move(1, 1)
    assert fig.evaluate(ORDER_SHOWN_JS) == []


@pytest.mark.parametrize("width", WIDTHS)
def test_500_views_in_a_list_fold_into_a_coverage_view_one_screen_tall(page, page_500, artifacts, width):
    open_page(page, page_500, width)
    height = page.evaluate("() => document.documentElement.scrollHeight")
    assert height <= SCREEN_PX, height
    fold = page.locator(".pti-fold")
    assert fold.get_attribute("data-lanes") == "501" and fold.get_attribute("data-hidden") == "1"
    assert "views: 501 lanes folded into" in fold.locator(".pti-fold-head").first.text_content()
    assert page.locator("g.pti-lane").count() == 1                   # base; the 500 are rows
    assert page.locator(".pti-fold-row").count() <= 24
    assert page.locator(".pti-fold-name").first.text_content() == "views[0\u201320]"
    assert page.evaluate(CUT_JS) == []
    rows = page.locator(".pti-fold-name").evaluate_all(
        "(ts) => ts.map((t) => { const r = t.getBoundingClientRect(); return [r.top, r.bottom]; })")
    assert all(b[0] >= a[1] - 1 for a, b in zip(rows, rows[1:])), rows      # row names do not overlap
    page.screenshot(path=str(artifacts / f"room_500_views_{width}.png"), full_page=True)
    choose_size(page, "large")
    page.screenshot(path=str(artifacts / f"room_500_views_{width}_large.png"), full_page=True)
    assert page.evaluate(CUT_JS) == []
    # unfolded (from the keyboard), every lane comes back up to the picture's limit; folded again, one screen
    page.locator(".pti-toggle[data-act='fold']").focus()
    page.keyboard.press("Enter")
    assert page.locator("g.pti-lane").count() > 200
    assert "more views of this buffer, not drawn" in page.locator(".pti-more").text_content()
    page.locator(".pti-toggle[data-act='fold']").click()
    choose_size(page, "medium")
    assert page.locator("g.pti-lane").count() == 1
    assert page.evaluate("() => document.documentElement.scrollHeight") <= SCREEN_PX


def test_inspect_names_a_lists_items_after_it_and_hides_no_object():
    from pytensor.widgets import snapshot
    from pytensor.widgets._names import expand_mappings
    base, views = views_500(20)
    objs, names = expand_mappings([base, views], ["base", "views"])
    assert names == ["base"] + [f"views[{k}]" for k in range(21)] and len(objs) == 22
    snap, _ = snapshot(*objs, names=names)
    assert [v["name"] for v in snap["views"]] == names
