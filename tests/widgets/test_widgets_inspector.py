"""The live widget's Python side: synced state, redraw on writes through any
alias (pytensor's counter, foreign NumPy writes found by the poll), weak
references only. No browser: messages from the front end are delivered by
calling the handler the way ipywidgets would."""
import gc
import sys
import weakref

import numpy as np
import pytest

from support import require_module
from tour_expectations import QUESTIONS, TOUR_NOTEBOOK, check_lanes

import pytensor
from pytensor.widgets import Inspector, inspect
from pytensor.widgets import inspector as inspector_mod

pytestmark = pytest.mark.usefixtures("widget_packages")


def poll(w):
    w._on_custom_msg(w, {"op": "poll"}, [])


def view_id(w, name):
    return next(v["id"] for v in w.snapshot["views"] if v["name"] == name)


def test_state_is_synced_and_previews_travel_as_bytes():
    base = pytensor.arange(12, dtype=pytensor.int32)
    grid = base.view(3, 4)
    w = inspect(base, grid[:, 1])
    assert [v["name"] for v in w.snapshot["views"]] == ["base", "grid[:, 1]"]   # names as typed at the call
    state = w.get_state()
    # the widget's code only finds the loader, stored in the one model every inspector names
    assert "_esm" in state and "ptiLoader" in w._esm and len(w._esm) < 1500
    assert state["_renderer"] == f"IPY_MODEL_{w._renderer.model_id}" and "ptiLiveRenderer" in w._renderer.loader
    assert isinstance(w.previews, bytes) and w.previews[:8] == b"\x00\x00\x00\x00\x01\x00\x00\x00"
    assert isinstance(state["previews"], (bytes, memoryview))
    assert w.poll_ms == 300 and w.snapshot["generation"] == 1
    w.close()


def test_write_through_an_alias_redraws_and_flashes_the_aliases_that_saw_it():
    base = pytensor.arange(12, dtype=pytensor.int32)
    grid = base.view(3, 4)
    col, row = grid[:, 2], grid[0]
    w = Inspector(base, col, row, names=["base", "col", "row"])
    assert w.check() is False
    gen = w.snapshot["generation"]
    col[1] = -1                                   # byte 24..28: base and col read it, row does not
    assert w.check() is True
    assert w.snapshot["generation"] == gen + 1
    rid = w.snapshot["regions"][0]["id"]
    assert w.changes["regions"] == {rid: [[24, 28]]}
    assert w.changes["views"] == [view_id(w, "base"), view_id(w, "col")]
    assert w.previews[24:28] == (-1).to_bytes(4, "little", signed=True)
    w.close()


def test_same_value_write_still_flashes_through_the_version_counter():
    t = pytensor.zeros(4, dtype=pytensor.float32)
    w = Inspector(t, names=["t"])
    tick = w.changes.get("tick", 0)
    t[0] = 0.0                                    # no byte changes, but pytensor counted a write
    assert w.check() is True
    assert w.changes["tick"] == tick + 1 and w.changes["views"] == [view_id(w, "t")]
    w.close()


def test_foreign_numpy_write_is_found_by_the_poll(sent):
    a = np.arange(6, dtype=np.float64)
    t = pytensor.asarray(a)
    w = Inspector(a, t, names=["a", "t"])
    poll(w)
    assert sent[-1][0] == {"op": "pong", "changed": False}
    gen = w.snapshot["generation"]
    a[2] = 99.0                                   # numpy does not bump pytensor's counter
    poll(w)
    assert w.snapshot["generation"] == gen + 1 and sent[-1][0] == {"op": "pong", "changed": True}
    assert set(w.changes["views"]) == {view_id(w, "a"), view_id(w, "t")}
    assert np.frombuffer(w.previews, dtype=np.float64)[2] == 99.0
    w.close()


def test_post_run_cell_hook_checks_every_live_inspector():
    t = pytensor.zeros(3, dtype=pytensor.int16)
    w = Inspector(t, names=["t"])
    gen = w.snapshot["generation"]
    t[1] = 5
    inspector_mod._after_cell(None)               # what IPython calls after each cell
    assert w.snapshot["generation"] == gen + 1
    w.close()
    t[1] = 6
    inspector_mod._after_cell(None)               # closed inspectors are no longer checked
    assert w.snapshot["generation"] == gen + 1


def test_window_message_moves_the_preview(sent):
    big = pytensor.zeros(1 << 16, dtype=pytensor.uint8)
    big[40_000] = 7
    w = Inspector(big, names=["big"])
    rid = w.snapshot["regions"][0]["id"]
    assert w.snapshot["regions"][0]["preview"]["start"] == 0
    w._on_custom_msg(w, {"op": "window", "region": rid, "start": 39_990}, [])
    p = w.snapshot["regions"][0]["preview"]
    assert p["start"] == 39_990 and w.previews[10] == 7
    w.close()


# ---------------------------------------------------------------- weak references only
def test_inspecting_changes_no_refcount_and_the_tensor_can_die():
    t = pytensor.arange(8, dtype=pytensor.float32)
    st = t.untyped_storage()
    gc.collect()
    before = (sys.getrefcount(t), sys.getrefcount(st), st.refcount)
    live = pytensor.live_storages()
    w = Inspector(t, t[::2], names=["t", "evens"])
    w.check()
    gc.collect()
    assert (sys.getrefcount(t), sys.getrefcount(st), st.refcount) == before
    ref, sref = weakref.ref(t), weakref.ref(st)
    del t, st
    gc.collect()
    assert ref() is None and sref() is None        # the inspector did not keep them alive
    # the count is process-wide: a storage an earlier test sent to another process may be released by
    # pytensor.multiprocessing's server thread meanwhile, so it falls by at least this one, never less
    assert pytensor.live_storages() <= live - 1
    assert w.check() is True
    assert [v["status"] for v in w.snapshot["views"]] == ["freed", "freed"]          # drawn as they were
    assert [g["name"] for g in w.snapshot["gone"]] == ["t", "evens"]
    assert "freed: t" in w.to_text()
    w.close()


def test_numpy_array_can_die_too():
    a = np.arange(4.0)
    w = Inspector(a, names=["a"])
    ref = weakref.ref(a)
    del a
    gc.collect()
    assert ref() is None and w.check() is True and [v["status"] for v in w.snapshot["views"]] == ["freed"]
    w.close()


def test_bytearray_in_a_function_scope_is_drawn_while_an_alias_borrows_it():
    buf = bytearray(range(8))
    t = pytensor.frombuffer(buf, dtype=pytensor.uint8)
    w = Inspector(buf, t, names=["buf", "t"])    # a local bytearray: no weak reference, no module namespace
    assert [v["name"] for v in w.snapshot["views"]] == ["buf", "t"]
    assert "borrows its memory" in w.snapshot["views"][0]["note"]
    del t
    gc.collect()
    w.check()
    assert [v["status"] for v in w.snapshot["views"]] == ["freed", "freed"] and w.snapshot["gone"][0]["name"] == "buf"
    buf.extend(b"ok")                              # the export was released: resizing works again
    w.close()


def test_empty_inspector_and_add_later():
    w = Inspector()
    assert w.snapshot["regions"] == [] and "0 views" in w.to_text()
    t = pytensor.arange(4)
    w.add(t, names=["t"])
    assert [v["name"] for v in w.snapshot["views"]] == ["t"]
    w.close()


def test_close_detaches_finalizers():
    t = pytensor.arange(3)
    w = Inspector(t, names=["t"])
    fin = w._entries[0].finalizer
    assert fin.alive
    w.close()
    assert not fin.alive


# ---------------------------------------------------------------- outputs
def test_text_repr_and_static_html(tmp_path):
    base = pytensor.arange(6, dtype=pytensor.int32)
    mid = base[1:4]
    w = Inspector(base, mid, names=["base", "mid"])
    assert repr(w).startswith("pytensor memory inspector: 2 views of 1 buffer")
    bundle = w._repr_mimebundle_()
    bundle = bundle[0] if isinstance(bundle, tuple) else bundle
    assert bundle["text/plain"].startswith("pytensor memory inspector")
    path = w.save_html(tmp_path / "inspector.html")
    html = path.read_text()
    assert "mountStatic(" in html and "https://" not in html
    w.close()


def test_bad_input_is_refused_before_anything_is_tracked():
    with pytest.raises(TypeError, match="NumPy arrays"):
        Inspector(pytensor.arange(2), 3.5, names=["t", "x"])
    with pytest.raises(ValueError, match="2 objects but 1 names"):
        Inspector(pytensor.arange(2), pytensor.arange(3), names=["t"])


def test_tour_notebook_runs_headless(tmp_path):
    """Every cell of examples/memory_tour.ipynb runs in a real kernel (no browser)."""
    nbformat = require_module("nbformat")
    nbclient = require_module("nbclient")
    require_module("ipykernel")
    from pathlib import Path
    tour = Path(__file__).resolve().parents[2] / "examples" / "memory_tour.ipynb"
    nb = nbformat.read(tour, as_version=4)
    nbclient.NotebookClient(nb, kernel_name="python3", timeout=120,
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    widgets = [o for o in outputs if "application/vnd.jupyter.widget-view+json" in o.get("data", {})]
    assert len(widgets) == len(TOUR_NOTEBOOK)
    assert all(o["data"]["text/plain"] == "" for o in widgets)   # nothing printed above a picture
    # each live view is followed by its static copy, for when the notebook is read without a kernel;
    # its text is the summary, kept up to date after every cell
    after = [outputs[outputs.index(o) + 1] for o in widgets]
    assert all('ptiDraw("' in o.get("data", {}).get("text/html", "") for o in after)
    # every lane a section's text names is drawn, temporaries included; none is called freed while its
    # bytes are alive, and those a later cell frees are drawn as they were, said to be freed
    for o, (heading, expected), q in zip(after, TOUR_NOTEBOOK, QUESTIONS):
        text = o["data"]["text/plain"]
        drawn, buffer = [], None
        for line in text.splitlines():
            if line.startswith("buffer "):
                buffer = line.split(":")[0]
            elif line.endswith("|"):
                drawn.append((line.split(" |")[0].strip(), buffer))
        check_lanes(heading, expected, drawn)
        assert ("freed:" in text) == bool(q.get("freed_later")), text


def test_text_summary_names_lineage_origin_and_the_mapped_file_within_100_columns():
    from pytensor.widgets import snapshot, to_text
    a = np.arange(12, dtype=np.int32)
    snap, blob = snapshot(a, a[2::4], names=["base", "col"])

    def older(snap):
        """``snap`` as a model without lineage and files made it."""
        for v in snap["views"]:
            for k in ("lineage", "lineage_text", "origin"):
                v.pop(k, None)
        for r in snap["regions"]:
            r.pop("file", None)
        return snap
    before = to_text(older(snap), blob)
    chain = "col = grid[:, 2] \u2190 grid = base.view(3, 4) \u2190 base = arange(12)"
    snap["views"][1].update(lineage=[{"name": "col", "expr": "grid[:, 2]"}], lineage_text=chain,
                            origin={"shared": False, "text": "copied from ndarray (dtype float64 -> float32)"})
    snap["regions"][0]["file"] = {"path": "/data/" + "very-long-directory-name/" * 4 + "weights.bin",
                                  "mapping": "private", "file_offset": 4096, "nbytes": 48, "page_size": 4096,
                                  "resident": [[0, 48]], "resident_note": "", "cow": None,
                                  "cow_note": "copy-on-write pages unknown: pagemap needs privileges"}
    text = to_text(snap, blob)
    assert max(map(len, text.splitlines())) <= 100, text
    flat = " ".join(line.strip() for line in text.splitlines())
    assert "made by " + chain in flat
    assert "copied from ndarray (dtype float64 -> float32)" in flat
    assert "file /data/" in flat and "private mapping, file bytes [4096, 4144)" in flat
    assert "resident in RAM: 48 B" in flat and "copy-on-write pages unknown: pagemap needs privileges" in flat
    # lanes are still the lines that end with their bar, and an older snapshot reads as before
    assert [ln.split(" |")[0].strip() for ln in text.splitlines() if ln.endswith("|")] == ["base", "col"]
    assert to_text(older(snap), blob) == before
    assert "made by" not in before and "file " not in before


def test_each_object_is_resolved_once_per_picture(monkeypatch):
    """Building a live Inspector describes each object once (it used to three times), and so does a check()."""
    from pytensor.widgets import _objects
    calls = []
    real = _objects._resolve_tensor
    monkeypatch.setattr(_objects, "_resolve_tensor", lambda t, work: calls.append(1) or real(t, work))
    t = pytensor.arange(12, dtype=pytensor.int32)
    grid = t.view(3, 4)
    w = Inspector(t, grid, names=["t", "grid"])
    assert len(calls) == 2
    calls.clear()
    w.add(grid.T, names=["gridT"])                 # the new object once, the two others once for the new picture
    assert len(calls) == 3
    calls.clear()
    t[0] = 5
    assert w.check()
    assert len(calls) == 2                         # t and grid; grid.T died after add() and is drawn from its storage
    w.close()
