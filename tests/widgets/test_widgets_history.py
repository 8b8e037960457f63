"""The live widget's updates and history: what travels is a delta from a base snapshot; an update
after a write re-reads bytes and counters instead of rebuilding the model; the last pictures are
kept, bounded, each with the bytes its step changed and who wrote them. Messages from the front end
are delivered by calling the handler as ipywidgets would; the slider's test runs the live view in
Chromium over a stand-in model (browser_support.live_page) and carries messages both ways."""
import json

import numpy as np
import pytest

from browser_support import b64, chromium_context, live_page, new_page, run_all_cells, state_json

import pytensor
from pytensor.widgets import Inspector
from pytensor.widgets import _sync as sync_mod
from pytensor.widgets import inspector as inspector_mod
from pytensor.widgets.inspector import _apply, _delta

pytestmark = pytest.mark.usefixtures("widget_packages")


def without_generation(snap):
    return {k: v for k, v in snap.items() if k != "generation"}


def test_base_plus_delta_is_the_current_snapshot_through_writes_adds_and_deaths():
    base = pytensor.arange(24, dtype=pytensor.int32)
    objs = [base, base[::2], base[3:9]]
    w = Inspector(*objs, names=["base", "evens", "mid"])
    arr = np.asarray(base)
    steps = 0
    for k in range(6):
        if k % 2:
            arr[k] = 100 + k
        else:
            base[k] = -k
        assert w.check() is True
        assert _apply(w.base, w.checkpoint, w.delta) == w.snapshot
        steps += 1
    tmp = base[1::5]
    w.add(tmp, names=["tmp"])
    assert _apply(w.base, w.checkpoint, w.delta) == w.snapshot and "tmp" in [v["name"] for v in w.snapshot["views"]]
    del tmp, objs
    w.check()
    assert _apply(w.base, w.checkpoint, w.delta) == w.snapshot
    assert steps == 6
    w.close()


def test_delta_round_trips_on_hand_made_changes():
    a = {"id": "v0", "name": "a", "version": 1, "shape": [4]}
    b = {"id": "v1", "name": "b", "version": 1, "shape": [2]}
    r = {"id": "r1", "views": ["v0", "v1"], "version": 2}
    base = {"generation": 1, "views": [a, b], "regions": [r], "overlaps": [], "gone": []}
    cases = [
        dict(base, generation=2, views=[a, dict(b, version=3)]),                      # one field
        dict(base, generation=3, views=[b, a]),                                        # reordered
        dict(base, generation=4, views=[a], regions=[dict(r, views=["v0"])], gone=[{"name": "b", "note": "x"}]),
        dict(base, generation=5, views=[a, b, {"id": "v2", "name": "c", "version": 1, "shape": []}],
             overlaps=[{"a": "v0", "b": "v2", "lo": 0, "hi": 4, "shared_bytes": 4}]),
    ]
    for snap in cases:
        delta, size = _delta(base, snap)
        assert _apply(base, delta) == snap
        assert size > 0
    delta, _ = _delta(base, cases[0])
    assert delta["views"] == {"v1": {"version": 3}}, "only the changed field travels"
    assert "regions" not in delta and "overlaps" not in delta


def test_random_edits_round_trip_through_a_delta():
    import copy
    import random
    rng = random.Random(19)
    made = {"field": 0, "add": 0, "remove": 0, "reorder": 0, "overlaps": 0, "top": 0, "new_field": 0}
    for _ in range(300):
        views = [{"id": f"v{k}", "name": f"n{k}", "version": rng.randrange(3), "shape": [rng.randrange(4)]}
                 for k in range(rng.randrange(1, 8))]
        base = {"generation": 1, "views": views, "regions": [{"id": "r1", "views": [v["id"] for v in views]}],
                "overlaps": [{"a": "v0", "b": "v0", "lo": 0, "hi": 4}], "gone": []}
        snap = copy.deepcopy(base)
        for _ in range(rng.randrange(1, 4)):
            edit = rng.choice(sorted(made))
            made[edit] += 1
            vs = snap["views"]
            if edit == "field" and vs:
                rng.choice(vs)["version"] += 1
            elif edit == "new_field" and vs:
                rng.choice(vs)["lineage"] = [{"name": None, "expr": "x[1:]"}]
            elif edit == "add":
                vs.insert(rng.randrange(len(vs) + 1), {"id": f"v{100 + made['add']}", "name": "new", "version": 0,
                                                       "shape": []})
            elif edit == "remove" and vs:
                vs.pop(rng.randrange(len(vs)))
            elif edit == "reorder":
                rng.shuffle(vs)
            elif edit == "overlaps":
                snap["overlaps"] = snap["overlaps"] + [{"a": "v0", "b": "v1", "lo": 0, "hi": rng.randrange(9)}]
            else:
                snap["gone"] = snap["gone"] + [{"name": "x", "note": "freed"}]
                snap["generation"] += 1
            snap["regions"][0]["views"] = [v["id"] for v in vs]
        delta, _ = _delta(base, snap)
        assert _apply(base, delta) == snap, (base, snap, delta)
        assert _apply(base, {}) == base
    assert all(n > 50 for n in made.values()), made     # every kind of edit was made, many times


def test_an_update_after_a_write_sends_a_delta_not_the_snapshot(updates):
    base = pytensor.arange(1 << 12, dtype=pytensor.int32)
    objs = [base] + [base[k * 30:k * 30 + 300:(k % 3) + 1] for k in range(120)]
    w = Inspector(*objs, names=[f"v{k}" for k in range(len(objs))])
    whole = len(json.dumps(w.snapshot))
    updates.clear()
    base[5] = 77
    assert w.check() is True
    (msg, buffers), = updates
    assert msg["buffer_paths"] == [["previews"]]            # the previews travel as bytes
    assert {"changes", "steps"} <= set(msg["state"]) <= {"checkpoint", "delta", "changes", "steps"}, \
        sorted(msg["state"])
    np.asarray(base)[6] = 78                                   # a NumPy write: no field changes at all
    updates.clear()
    assert w.check() is True
    (msg, buffers), = updates
    assert set(msg["state"]) == {"delta", "changes", "steps"} and set(json.loads(msg["state"]["delta"])) == {"top"}
    size = len(json.dumps(msg["state"], default=lambda b: "")) + sum(len(b) for b in buffers)
    assert size < whole / 10, (size, whole)
    assert np.frombuffer(w.previews, dtype=np.int32)[5] == 77
    w.close()


def test_a_write_re_reads_bytes_and_counters_without_rebuilding(monkeypatch):
    base = pytensor.arange(64, dtype=pytensor.int32)
    grid = base.view(8, 8)
    col, row = grid[:, 3], grid[2]
    w = Inspector(base, col, row, names=["base", "col", "row"])
    builds = []
    real = inspector_mod.build
    monkeypatch.setattr(inspector_mod, "build", lambda *a, **k: builds.append(1) or real(*a, **k))
    arr = np.asarray(base)
    for k, write in enumerate([lambda: base.__setitem__(19, -1), lambda: arr.__setitem__(3, -2),
                               lambda: col.__setitem__(0, -3)]):
        write()
        assert w.check() is True
        fast = w.snapshot
        assert builds == [], "a write changes no layout: no rebuild"
        w.refresh()                      # the slow path, for comparison
        assert without_generation(w.snapshot) == without_generation(fast), k
        builds.clear()
    # a new layout does rebuild
    w.add(grid[1:3, ::2], names=["block"])
    assert builds
    w.close()


def test_history_keeps_each_change_with_its_bytes_and_writer(sent):
    base = pytensor.arange(16, dtype=pytensor.int32)
    evens = base[::2]
    w = Inspector(base, evens, names=["base", "evens"])
    first = w.steps[-1]["generation"]
    base[2] = -5                                           # through pytensor
    assert w.check()
    np.asarray(base)[3] = 99                               # through NumPy: only the poll sees it
    w._on_custom_msg(w, {"op": "poll"}, [])
    steps = [s["generation"] for s in w.steps]
    assert len(steps) == 3 and steps[0] == first
    sent.clear()
    w._on_custom_msg(w, {"op": "step", "generation": steps[1]}, [])
    (msg, buffers), = sent
    assert msg["op"] == "step" and msg["generation"] == steps[1]
    rid = w.snapshot["regions"][0]["id"]
    assert msg["changes"]["regions"] == {rid: [[8, 12]]}
    writer = msg["changes"]["writers"][rid]
    assert writer.startswith("pytensor wrote here") and writer.endswith("(write counter 1 \u2192 2)"), writer
    if inspector_mod._provenance() is not None:    # pytensor records its writes: the view written through is named
        assert writer.startswith("pytensor wrote here, through a view made by base[2] "), writer
    assert set(msg["changes"]["views"]) == {w.snapshot["views"][0]["id"], w.snapshot["views"][1]["id"]}
    past = np.frombuffer(bytes(buffers[0]), dtype=np.int32)
    assert past[2] == -5 and past[3] == 3, "the step's own bytes, not today's"
    assert _apply(w.base, msg["delta"])["generation"] == steps[1]
    assert "pytensor wrote here" in msg["info"]["what"] and msg["info"]["views"] == ["base", "evens"]
    sent.clear()
    w._on_custom_msg(w, {"op": "step", "generation": steps[2]}, [])
    (msg, buffers), = sent
    assert msg["changes"]["regions"] == {rid: [[12, 13]]}
    assert msg["changes"]["writers"][rid].startswith("written outside pytensor")
    assert msg["info"]["views"] == ["base"]                # byte 12 is base[3]; evens skips it
    assert np.frombuffer(bytes(buffers[0]), dtype=np.int32)[3] == 99
    sent.clear()
    w._on_custom_msg(w, {"op": "step", "generation": 10_000}, [])
    assert sent[0][0] == {"op": "step", "generation": 10_000, "missing": True}
    w.close()


def test_writer_text_claims_no_more_than_the_counters_and_the_write_record_know():
    w = inspector_mod._writer
    assert w(1, 2, True) == "pytensor wrote here (write counter 1 \u2192 2)"
    assert w(1, 2, True, "col") == "pytensor wrote here, through col (write counter 1 \u2192 2)"
    assert w(1, 4, True, "col") == "pytensor wrote here, last through col (write counter 1 \u2192 4)"
    assert w(1, 2, False).endswith(", outside the preview or with equal values")
    for old, new in ((3, 3), (None, None), (None, 2)):
        assert w(old, new, True).startswith("written outside pytensor")


def test_a_write_through_an_inspected_tensor_names_it(sent):
    if inspector_mod._provenance() is None:
        pytest.skip("this pytensor keeps no write record")
    base = pytensor.arange(16, dtype=pytensor.int32)
    evens = base[::2]
    w = Inspector(base, evens, names=["base", "evens"])
    evens.fill_(3)                                  # a write through the inspected tensor itself
    assert w.check()
    rid = w.snapshot["regions"][0]["id"]
    assert w.changes["writers"][rid] == "pytensor wrote here, through evens (write counter 1 \u2192 2)"
    evens[1:] = 4                                   # through a temporary made from it
    assert w.check()
    assert w.changes["writers"][rid] == \
        "pytensor wrote here, through a view made by evens[1:] (write counter 2 \u2192 3)"
    w.close()


def test_history_is_bounded_by_steps_and_by_bytes(monkeypatch):
    base = pytensor.arange(256, dtype=pytensor.int32)            # 1 KiB of previews per step
    w = Inspector(base, names=["base"])
    for k in range(inspector_mod.HISTORY_STEPS + 10):
        base[k] = -k
        assert w.check()
    assert len(w.steps) == inspector_mod.HISTORY_STEPS
    assert w.steps[-1]["generation"] == w.snapshot["generation"]
    monkeypatch.setattr(sync_mod, "HISTORY_BYTES", 5 * 1024)        # where the history's limits live
    base[0] = 1
    w.check()
    assert len(w.steps) == 5 and sum(len(h["previews"]) for h in w._history) <= 5 * 1024
    w.close()


def test_moving_the_preview_window_is_not_a_history_step():
    big = pytensor.arange(40_000, dtype=pytensor.int32)
    w = Inspector(big, names=["big"])
    before = list(w.steps)
    rid = w.snapshot["regions"][0]["id"]
    w._on_custom_msg(w, {"op": "window", "region": rid, "start": 4096}, [])
    assert w.snapshot["regions"][0]["preview"]["start"] == 4096
    assert w.steps == before
    w.close()


# ---------------------------------------------------------------------- the slider, in Chromium
@pytest.fixture(scope="module")
def context():
    yield from chromium_context("pti-history-chromium-")


def test_the_slider_steps_back_marks_what_changed_and_returns_to_live(context, tmp_path, updates, sent):
    from playwright.sync_api import expect
    base = pytensor.arange(16, dtype=pytensor.int32)
    evens = base[::2]
    w = Inspector(base, evens, names=["base", "evens"])
    page = new_page(context)
    page.goto(live_page(w, tmp_path / "history.html").as_uri())
    page.wait_for_selector("svg.pti-svg")
    assert page.locator(".pti-history").is_hidden(), "one picture: nothing to step through"

    def deliver():
        for msg, buffers in updates:
            page.evaluate("(j) => window.ptiSet(j)", state_json(msg, buffers))
        updates.clear()
        page.wait_for_function("(g) => document.querySelector('svg.pti-svg').dataset.generation === String(g)",
                               arg=w.snapshot["generation"])

    base[2] = -5                          # step 2: through pytensor, bytes [8, 12)
    w.check()
    deliver()
    np.asarray(base)[6] = 60              # step 3: through NumPy, bytes [24, 25)
    w.check()
    deliver()
    hist = page.locator(".pti-history")
    expect(hist).to_be_visible()
    expect(hist.locator(".pti-history-what")).to_have_text("step 3 of 3 (live)")
    assert page.locator(".pti-val[data-view='v0'][data-index='6']").text_content() == "60"

    # step back to step 2: the view asks Python for it, and draws the answer
    page.evaluate("() => { window.ptiSent.length = 0; }")
    slider = hist.locator("input.pti-history-range")
    slider.evaluate("(r) => { r.value = '1'; r.dispatchEvent(new Event('input')); }")
    request = page.evaluate("() => window.ptiSent.filter((m) => m.op === 'step')")
    assert request == [{"op": "step", "generation": w.steps[1]["generation"]}]
    sent.clear()
    w._on_custom_msg(w, request[0], [])
    (msg, buffers), = sent
    page.evaluate("([j, bs]) => window.ptiMsg(j, bs)", [json.dumps(msg), [b64(b) for b in buffers]])
    svg = page.locator("svg.pti-svg")
    expect(svg).to_have_attribute("data-past", "true")
    assert page.locator(".pti-val[data-view='v0'][data-index='6']").text_content() == "6", "the past bytes"
    marked = svg.locator(".pti-byte.pti-flash").evaluate_all("(ns) => ns.map((n) => +n.dataset.off)")
    assert marked == [8, 9, 10, 11]
    cells = svg.locator(".pti-el.pti-flash").evaluate_all(
        "(ns) => ns.map((n) => n.dataset.view + ':' + n.dataset.index)")
    assert cells == ["v0:2", "v1:1"]
    expect(svg.locator(".pti-writer")).to_contain_text("this step: pytensor wrote here")
    expect(hist.locator(".pti-history-what")).to_contain_text("step 2 of 3: buffer 1: pytensor wrote here")
    # a live update meanwhile does not pull the picture away from the past
    base[0] = 1
    w.check()
    for m, bufs in updates:
        page.evaluate("(j) => window.ptiSet(j)", state_json(m, bufs))
    updates.clear()
    expect(svg).to_have_attribute("data-past", "true")
    # back to live
    hist.locator(".pti-history-live").click()
    expect(page.locator("svg.pti-svg")).not_to_have_attribute("data-past", "true")
    assert page.locator(".pti-val[data-view='v0'][data-index='0']").text_content() == "1"
    expect(hist.locator(".pti-history-what")).to_have_text("step 4 of 4 (live)")
    assert not page.errors, page.errors
    page.close()
    w.close()


# ---------------------------------------------------------------------- the slider, in JupyterLab and Notebook 7
from test_widgets_fallback import saved_notebook_url  # noqa: E402,F401  (a fixture: the server and the notebook)


def test_the_slider_steps_back_through_a_real_kernel(context, saved_notebook_url):
    """Run the saved notebook (inspect, then a cell that writes base[9] = 99) and step back to before the write."""
    from playwright.sync_api import expect
    page = new_page(context)
    page.goto(saved_notebook_url)
    run_all_cells(page)
    live = page.locator(".pti-live")
    svg = live.locator("svg.pti-svg")
    col2 = svg.locator(".pti-val[data-view='v1'][data-index='2']")
    expect(col2).to_have_text("99", timeout=90_000)               # the second cell's write, drawn live
    hist = live.locator(".pti-history")
    expect(hist.locator(".pti-history-what")).to_have_text("step 2 of 2 (live)")
    hist.locator("input.pti-history-range").evaluate("(r) => { r.value = '0'; r.dispatchEvent(new Event('input')); }")
    expect(svg).to_have_attribute("data-past", "true", timeout=30_000)
    expect(col2).to_have_text("9")                                # before the write
    expect(hist.locator(".pti-history-what")).to_contain_text("step 1 of 2: the first picture")
    hist.locator("input.pti-history-range").evaluate("(r) => { r.value = '1'; r.dispatchEvent(new Event('input')); }")
    expect(svg).not_to_have_attribute("data-past", "true")
    expect(col2).to_have_text("99")
    assert not [e for e in page.errors if "pti" in e], page.errors
    page.close()
