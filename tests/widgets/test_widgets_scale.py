"""Scale without timing (timing is tests/bench/bench_inspector.py's): an update after a write sends
a delta that grows with the number of views, not with its square, and skips the model's rebuild;
500 views of one buffer draw a bounded picture in Chromium through the live view's own code.

The live view runs in a plain page over a stand-in model (browser_support.live_page).
"""
import json

import numpy as np
import pytest

from browser_support import b64, chromium_context, live_page, new_page, state_json

import pytensor
from pytensor.widgets import Inspector
from pytensor.widgets._export import unpack_json

pytestmark = pytest.mark.usefixtures("widget_packages")


def sent_trait(name, text):
    """A snapshot trait as the comm sent it (text: ``delta`` JSON, ``base``/``checkpoint`` packed), read back."""
    if name == "delta":
        return json.loads(text)
    assert not text.startswith("{"), (name, text[:40])         # packed: base64 of gzipped JSON
    return unpack_json(text)


def many(n):
    base = pytensor.arange(1 << 16, dtype=pytensor.int32)
    return base, [base] + [base[k * 100:k * 100 + 1200:(k % 5) + 1] for k in range(n - 1)]


def update_bytes(updates, w, write):
    updates.clear()
    write()
    assert w.check() is True
    (msg, buffers), = updates
    return len(json.dumps(msg, default=lambda b: "")) + sum(len(b) for b in buffers or [])


def test_update_bytes_grow_with_the_views_not_their_square(updates):
    sizes, wholes = {}, {}
    for n in (50, 500):
        base, objs = many(n)
        w = Inspector(*objs, names=[f"v{k}" for k in range(n)])
        wholes[n] = len(json.dumps(w.snapshot))
        arr = np.asarray(base)
        sizes[n] = (update_bytes(updates, w, lambda: base.__setitem__(3, -1)),
                    update_bytes(updates, w, lambda: arr.__setitem__(4, -2)))
        w.close()
    # a NumPy write changes bytes only: its update does not depend on the number of views
    assert sizes[500][1] < 1.2 * sizes[50][1], sizes
    # a pytensor write bumps the counter every view shows: linear in views (x10), not quadratic (x100)
    assert sizes[500][0] < 15 * sizes[50][0], sizes
    assert max(sizes[500]) < wholes[500] / 20, (sizes, wholes)
    assert wholes[500] > 10 * wholes[50], "the snapshot itself grows faster: the delta is what keeps updates small"


def test_the_text_summary_grows_with_the_picture_not_the_square_of_its_views():
    """Every pair of these views overlaps, and the model lists every pair: the text used to name each
    view's every partner (n^2 names); it names at most TEXT_PARTNERS and counts the rest."""
    from pytensor.widgets import snapshot, to_text
    from pytensor.widgets._pairs import Work
    from pytensor.widgets._text import TEXT_PARTNERS
    base = pytensor.arange(1 << 12, dtype=pytensor.int32)
    sizes, named = {}, {}
    for n in (40, 160):
        views = [base[k % 7:k % 7 + 3000:(k % 5) + 1] for k in range(n)]
        snap, blob = snapshot(*views, names=[f"v{k}" for k in range(n)])
        assert len(snap["overlaps"]) == n * (n - 1) // 2, "every pair is listed, so a quadratic text could be"
        work = Work()
        text = to_text(snap, blob, work=work)
        assert work.text_views == n
        assert work.text_partners == n * TEXT_PARTNERS
        sizes[n], named[n] = len(text), work.text_partners
        # v0 names its first partners and counts the rest
        flat = " ".join(text.split())
        assert f"shares {snap['overlaps'][0]['shared_bytes']} B with v1," in flat
        assert f"and {n - 1 - TEXT_PARTNERS} more views" in flat
    assert named[160] == 4 * named[40]
    assert sizes[160] < 5 * sizes[40], sizes          # 4x the views, about 4x the text (it was 16x)


@pytest.fixture(scope="module")
def context():
    yield from chromium_context("pti-scale-chromium-")


MARK_LANES = "() => document.querySelectorAll('g.pti-lane').forEach((l) => { l.ptiMark = true; })"

PATCH_JS = """(pics) => {
  const { renderSvg, attachPreviews, patchPicture, toU8 } = window.pti;
  const draw = ([snap, b64, zoom]) => renderSvg(attachPreviews(snap, toU8(b64)), { zoom, width: 1000, uid: "t" });
  const svgs = pics.map(draw);
  const patched = document.createElement("div"), fresh = document.createElement("div");
  document.body.append(patched, fresh);
  patched.innerHTML = svgs[0];
  const out = [];
  for (const svg of svgs.slice(1)) {
    const before = new Set(patched.querySelectorAll("*"));
    patchPicture(patched, svg);
    fresh.innerHTML = svg;
    const kept = [...patched.querySelectorAll("*")].filter((n) => before.has(n)).length;
    out.push([patched.innerHTML === fresh.innerHTML, kept, fresh.querySelectorAll("*").length]);
  }
  patched.remove(); fresh.remove();
  return out;
}"""


def test_patching_the_picture_gives_what_drawing_it_anew_gives(context, tmp_path):
    base, objs = many(60)
    w = Inspector(*objs, names=[f"v{k}" for k in range(60)])
    pics = [(w.snapshot, b64(w.previews), {})]
    arr = np.asarray(base)
    for k, write in enumerate([lambda: base.__setitem__(1, -1), lambda: arr.__setitem__(2, -2),
                               lambda: base.__setitem__(slice(0, 600), 5)]):
        write()
        w.check()
        pics.append((w.snapshot, b64(w.previews), {}))
    pics.append((w.snapshot, b64(w.previews), {w.snapshot["regions"][0]["id"]: [0, 64]}))   # zoomed to bytes
    w.add(base[::1000], names=["sparse"])                                                     # a new lane
    pics.append((w.snapshot, b64(w.previews), {}))
    page = context.new_page()
    page.goto(live_page(w, tmp_path / "patch.html").as_uri())
    page.wait_for_selector("svg.pti-svg")
    results = page.evaluate(PATCH_JS, pics)
    assert [same for same, _, _ in results] == [True] * 5, results
    kept = [k for _, k, _ in results]
    assert kept[0] > 0.5 * results[0][2] and kept[1] > 0.5 * results[1][2], results   # a write keeps most nodes
    page.close()
    w.close()


def test_the_front_end_applies_each_update_to_the_snapshot_python_holds(context, tmp_path, updates):
    """applyDelta in Chromium, fed the traits as the comm sends them, gives w.snapshot exactly."""
    base, objs = many(40)
    w = Inspector(*objs, names=[f"v{k}" for k in range(40)])
    page = context.new_page()
    page.goto(live_page(w, tmp_path / "apply.html").as_uri())
    page.wait_for_selector("svg.pti-svg")
    traits = {"base": w.base, "checkpoint": w.checkpoint, "delta": w.delta}
    arr = np.asarray(base)
    extra = []
    edits = [lambda: base.__setitem__(3, -3), lambda: arr.__setitem__(5, -5), lambda: extra.append(base[7:99:3]),
             lambda: base.__setitem__(slice(0, 50), 1), lambda: extra.clear(), lambda: arr.__setitem__(1, 9)]
    kinds = set()
    for k, edit in enumerate(edits):
        edit()
        if k == 2:
            w.add(extra[0], names=["late"])
        assert w.check() or k == 2
        for msg, _ in updates:
            traits.update({t: sent_trait(t, v) for t, v in msg["state"].items() if t in traits})
            kinds.update(t for t in msg["state"] if t in traits)
        updates.clear()
        got = page.evaluate("([b, c, d]) => window.pti.applyDelta(window.pti.applyDelta(b, c), d)",
                            [traits["base"], traits["checkpoint"], traits["delta"]])
        assert got == json.loads(json.dumps(w.snapshot)), k
    assert kinds == {"base", "checkpoint", "delta"}, "the edits moved the base, the checkpoint and the delta"
    page.close()
    w.close()


def test_500_views_update_through_deltas_and_draw_a_bounded_picture(context, tmp_path, updates):
    base, objs = many(500)
    w = Inspector(*objs, names=[f"v{k}" for k in range(500)])
    page = new_page(context)
    page.goto(live_page(w, tmp_path / "live500.html").as_uri())
    svg = page.locator("svg.pti-svg")
    svg.wait_for()
    limits = page.evaluate("() => window.ptiLimits")
    assert svg.locator("g.pti-lane").count() == limits["lanes"] < 500
    assert "and 244 more views" in svg.locator(".pti-more").text_content()
    nodes = page.evaluate("() => document.querySelectorAll('svg.pti-svg *').length")
    assert nodes < 12 * limits["lanes"] + 4000, nodes          # a bounded number of nodes per lane
    readers_of_byte_0 = sum(1 for v in w.snapshot["views"][:limits["lanes"]] if v["footprint"][0] == 0)
    assert readers_of_byte_0 == 2                              # base and base[0:1200:1]
    for value, write in ((-7, lambda: base.__setitem__(0, -7)), (-8, lambda: np.asarray(base).__setitem__(0, -8))):
        updates.clear()
        write()
        assert w.check()
        (msg, buffers), = updates
        assert "base" not in msg["state"], "an update after a write is a delta"
        page.evaluate(MARK_LANES)
        page.evaluate("(j) => window.ptiSet(j)", state_json(msg, buffers))
        page.wait_for_function("(g) => document.querySelector('svg.pti-svg').dataset.generation === String(g)",
                               arg=w.snapshot["generation"])
        # only what changed is laid out again: the lanes that read byte 0 are new nodes (so they flash
        # again, however recently they flashed), the rest are kept
        kept = page.evaluate("() => [...document.querySelectorAll('g.pti-lane')].filter((l) => l.ptiMark).length")
        assert kept == limits["lanes"] - readers_of_byte_0, kept
        hover = page.evaluate("() => document.querySelector('.pti-byte[data-off=\"0\"]') !== null")
        assert not hover, "500 views of 256 KiB: the overview, no byte strip"
        page.locator("g.pti-lane[data-name='v0'] .pti-swatch").hover()
        assert page.locator(".pti-tip:visible").count() == 1
    page.locator(".pti-bucket").first.click()                 # zoom to bytes: values of v0 are the new ones
    page.wait_for_selector(".pti-region.pti-detail")
    assert page.locator(".pti-val[data-view='v0'][data-index='0']").text_content() == "-8"
    assert not page.errors, page.errors
    page.close()
    w.close()
