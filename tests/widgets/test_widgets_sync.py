"""Sync and lifetime tracking on their own, with no widget library: what changed, what is sent, what is kept.

The live ``Inspector`` only wires these to traitlets; here they are driven directly, so a model
change is caught without anywidget installed.
"""
import numpy as np

import pytensor
from pytensor.widgets import _deltas as D
from pytensor.widgets import _sync as Y
from pytensor.widgets import snapshot
from pytensor.widgets._lifetime import module_of
from pytensor.widgets._objects import resolve
from pytensor.widgets._pairs import Work
from pytensor.widgets._snapshot import build
from pytensor.widgets._tracker import Tracker


def numbered(snap, generation):
    snap["generation"] = generation
    return snap


def test_a_write_changes_bytes_the_views_that_read_them_and_names_the_writer():
    base = pytensor.arange(16, dtype=pytensor.int32)
    evens, odds = base[::2], base[1::2]
    old, old_blob = snapshot(base, evens, odds, names=["base", "evens", "odds"])
    base[3] = -1                                     # an odd element, through pytensor
    new, blob = snapshot(base, evens, odds, names=["base", "evens", "odds"])
    ch = Y.changes(numbered(old, 1), old_blob, numbered(new, 2), blob, 7, lambda r, since: "odds")
    rid = new["regions"][0]["id"]
    assert ch["tick"] == 7 and ch["generation"] == 2
    assert ch["regions"] == {rid: [[12, 16]]}                       # element 3, 3 -> -1: all four bytes
    assert ch["views"] == ["v0", "v2"]                               # base and odds read them; evens does not
    before, after = old["regions"][0]["version"], new["regions"][0]["version"]
    assert after == before + 1
    assert ch["writers"][rid] == f"pytensor wrote here, through odds (write counter {before} \u2192 {after})"
    assert Y.changes(new, blob, new, blob, 8, lambda r, s: None) is None


def test_a_foreign_write_is_attributed_to_the_poll():
    arr = np.arange(8, dtype=np.int16)
    old, old_blob = snapshot(arr, names=["arr"])
    arr[0] = 99
    new, blob = snapshot(arr, names=["arr"])
    ch = Y.changes(numbered(old, 1), old_blob, numbered(new, 2), blob, 1, lambda r, s: None)
    assert list(ch["writers"].values()) == [Y.writer(None, None, True)]
    assert "foreign writer" in Y.writer(None, None, True)


def test_the_channel_sends_a_delta_then_a_checkpoint_then_a_new_base():
    t = pytensor.zeros(64)
    ch = D.Channel()
    first, _ = snapshot(t, names=["t"])
    assert set(ch.update(first)) == {"base", "checkpoint", "delta"} and ch.base is first
    t[0] = 1.0
    small, _ = snapshot(t, names=["t"])
    sent = ch.update(small)
    assert set(sent) == {"delta"} and D.apply(first, sent["delta"]) == small
    views = [t[k:k + 8] for k in range(40)]                          # many new lanes: the delta outgrows the base
    big, _ = snapshot(t, *views, names=["t"] + [f"w{k}" for k in range(40)])
    assert set(ch.update(big)) == {"base", "checkpoint", "delta"} and ch.base is big


def test_reread_and_recount_bring_a_picture_up_to_date_without_rebuilding():
    t = pytensor.arange(8, dtype=pytensor.int32)
    work, holds = Work(), []
    items = [("v0", "t", resolve(t, holds, work))]
    snap, blob = build(items, work=work)
    t[1] = 42
    items = [("v0", "t", resolve(t, holds, Work()))]
    fresh, fresh_blob = build(items)
    assert Y.reread(snap, blob) == fresh_blob
    assert Y.recount(snap, items) == fresh
    assert Y.signature(items)[0] == Y.signature([("v0", "t", resolve(t, holds, Work()))])[0]


def test_history_keeps_the_newest_steps_within_its_budgets(monkeypatch):
    h = Y.History()
    monkeypatch.setattr(Y, "HISTORY_BYTES", 3000)
    for g in range(1, 10):
        snap = {"generation": g, "views": [{"id": "v0", "g": g}]}
        assert h.wants(snap, None)                                    # its views differ from the last step's
        h.remember(snap, bytes(1000), None)
    assert [s["generation"] for s in h.steps()] == [7, 8, 9] and h.find(8)["generation"] == 8
    assert h.find(1) is None and not h.wants({"views": [{"id": "v0", "g": 9}]}, None)


def test_the_tracker_says_live_temporary_and_gone_without_a_widget():
    tracker = Tracker()
    t = pytensor.arange(12, dtype=pytensor.float32)
    tail = t[6:]
    work, holds = Work(), []
    descs = [resolve(o, holds, work) for o in (t, tail)]
    tracker.add([t, tail], ["t", "tail"], descs, module_of(globals()))
    del holds
    items = tracker.live_items([], Work())
    assert [(vid, d["status"]) for vid, _, d in items] == [("v0", "live"), ("v1", "live")]
    del tail
    items = tracker.live_items([], Work())
    assert [(vid, d["status"]) for vid, _, d in items] == [("v0", "live"), ("v1", "temporary")]
    assert tracker.dirty
    del t, items
    assert tracker.live_items([], Work()) == []
    assert [g["name"] for g in tracker.gone()] == ["t", "tail"]
