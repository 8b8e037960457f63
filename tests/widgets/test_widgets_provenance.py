"""The snapshot model's lineage and origin: how each inspected view was made,
with parents named by the inspected objects they are (pytensor nodes, NumPy
.base chains, the object a sharing constructor read)."""
import gc

import numpy as np
import pytest

import pytensor
from support import require_module
from pytensor import _provenance as prov
from pytensor.widgets._snapshot import LINEAGE_TEXT_MAX, lineage_text, snapshot


def views(*objs, names):
    snap, _ = snapshot(*objs, names=names)
    return {v["name"]: v for v in snap["views"]}


def test_a_column_of_a_reshaped_range_names_every_parent():
    base = pytensor.arange(12)
    grid = base.view(3, 4)
    col = grid[:, 2]
    v = views(col, grid, base, names=["col", "grid", "base"])
    assert v["col"]["lineage"] == [{"name": "col", "expr": "grid[:, 2]"},
                                   {"name": "grid", "expr": "base.view(3, 4)"},
                                   {"name": "base", "expr": "arange(12)"}]
    assert v["col"]["lineage_text"] == "col = grid[:, 2] ← grid = base.view(3, 4) ← base = arange(12)"
    assert v["col"]["origin"] == {"shared": True, "text": "shares grid's bytes"}
    assert v["base"]["lineage_text"] == "base = arange(12)" and v["base"]["origin"] is None
    # the owner badge is unchanged beside the new keys
    assert v["col"]["provenance"] == "owned by pytensor" and v["col"]["provenance_kind"] == "owned"


def test_unnamed_parents_are_written_inline_and_named_ones_by_name():
    base = pytensor.arange(12)
    col = base.view(3, 4)[:, 2]
    v = views(col, base, names=["col", "base"])
    assert v["col"]["lineage"] == [{"name": "col", "expr": "base.view(3, 4)[:, 2]"},
                                   {"name": None, "expr": "base.view(3, 4)"},
                                   {"name": "base", "expr": "arange(12)"}]
    assert v["col"]["origin"]["text"] == "shares base.view(3, 4)'s bytes"
    alone = views(col, names=["col"])["col"]
    assert alone["lineage"][0]["expr"] == "arange(12).view(3, 4)[:, 2]"


def test_a_chain_whose_parents_died_is_still_drawn():
    base = pytensor.arange(6)
    v = base.view(2, 3).T
    del base
    gc.collect()
    got = views(v, names=["v"])["v"]
    assert got["lineage_text"] == "v = arange(6).view(2, 3).T ← arange(6).view(2, 3) ← arange(6)"


def test_sharing_constructors_name_the_inspected_source_by_address():
    a = np.arange(8.0)
    buf = bytearray(16)
    t = pytensor.from_numpy(a)
    f = pytensor.frombuffer(buf, dtype=pytensor.int32)
    v = views(a, t, buf, f, t[2:], names=["a", "t", "buf", "f", "tail"])
    assert v["t"]["lineage"] == [{"name": "t", "expr": "from_numpy(a)"}]
    assert v["t"]["origin"] == {"shared": True, "text": "shares a's bytes"}
    assert v["f"]["origin"] == {"shared": True, "text": "shares buf's bytes"}
    assert v["tail"]["lineage_text"] == "tail = t[2:] ← t = from_numpy(a)"
    alone = views(pytensor.from_numpy(a), names=["t"])["t"]
    assert alone["origin"] == {"shared": True, "text": "shares an ndarray's bytes"}


def test_copies_name_the_inspected_source_they_copied():
    a = np.arange(4.0)
    v = views(a, pytensor.asarray(a, dtype=pytensor.float32), pytensor.tensor(a), names=["a", "c", "k"])
    assert v["c"]["lineage"] == [{"name": "c", "expr": "asarray(a, dtype=float32)"}]
    assert v["c"]["origin"] == {"shared": False, "text": "copied from a (dtype float64 -> float32)"}
    assert v["k"]["origin"] == {"shared": False, "text": "copied from a (tensor() always copies)"}


def test_copies_say_copied_from_what_and_why():
    a = np.arange(4.0)
    t = pytensor.arange(6.0).view(2, 3)
    v = views(pytensor.asarray(a, dtype=pytensor.float32), t, t.T.contiguous(), pytensor.tensor([1, 2]),
              names=["c", "t", "k", "n"])
    assert v["c"]["origin"] == {"shared": False, "text": "copied from an ndarray (dtype float64 -> float32)"}
    assert v["k"]["origin"] == {"shared": False, "text": "copied from t.T (not contiguous)"}
    assert v["k"]["lineage_text"].startswith("k = t.T.contiguous() ← t.T ← t = arange(6.0).view(2, 3)")
    assert v["n"]["origin"] == {"shared": False, "text": "copied from a list (tensor() always copies)"}


def test_from_file_says_which_file_and_mode(tmp_path):
    path = tmp_path / "w.bin"
    t = pytensor.from_file(str(path), shared=True, size=4, dtype=pytensor.int32)
    v = views(t, names=["w"])["w"]
    assert v["lineage"] == [{"name": "w", "expr": f"from_file({str(path)!r}, shared=True)"}]
    assert v["origin"] == {"shared": True, "text": f"shares the bytes of {path} (mapped shared)"}


def test_numpy_views_follow_the_base_chain_with_shapes():
    a = np.arange(8.0)
    v = a[::2][1:]                     # NumPy collapses the chain: v.base is a
    m = a.reshape(2, 4)
    got = views(a, v, m, names=["a", "v", "m"])
    assert got["v"]["lineage"] == [{"name": "v", "expr": "view of a (8 → 3)"}, {"name": "a", "expr": None}]
    assert got["v"]["lineage_text"] == "v = view of a (8 → 3) ← a"
    assert got["v"]["origin"] == {"shared": True, "text": "shares a's bytes"}
    assert got["m"]["lineage"][0]["expr"] == "view of a (8 → 2×4)"
    assert got["a"]["lineage"] == [] and got["a"]["origin"] is None
    unnamed = views(v, names=["v"])["v"]
    assert unnamed["lineage_text"] == "v = view of an ndarray (8 → 3)"   # an unnamed owner adds nothing


def test_a_numpy_array_over_a_foreign_buffer_names_the_exporter():
    buf = bytearray(8)
    arr = np.frombuffer(buf, dtype=np.uint8)
    got = views(arr, names=["arr"])["arr"]
    assert got["lineage"] == [{"name": "arr", "expr": "over a bytearray's bytes"}]   # through np's memoryview
    assert got["origin"] == {"shared": True, "text": "shares a bytearray's bytes"}


def test_numpy_of_a_tensor_names_the_tensor():
    t = pytensor.arange(4)
    n = t.numpy()
    got = views(t, n, names=["t", "n"])["n"]
    assert got["lineage"][0] == {"name": "n", "expr": "over t's bytes"}


def test_recording_off_gives_no_lineage_and_no_origin():
    was = prov.set_enabled(False)
    try:
        t = pytensor.arange(4)[1:]
    finally:
        prov.set_enabled(was)
    got = views(t, names=["t"])["t"]
    assert got["lineage"] == [] and got["lineage_text"] == "" and got["origin"] is None


def test_torch_tensors_have_no_lineage():
    torch = require_module("torch")
    got = views(torch.arange(4), names=["t"])["t"]
    assert got["lineage"] == [] and got["origin"] is None


def test_long_chains_elide_their_middle_within_the_bound():
    t = pytensor.arange(64)
    for _ in range(14):
        t = t.view(2, 32).view(64)
    got = views(t, names=["t"])["t"]
    assert len(got["lineage"]) == 16           # the chain is followed 16 steps
    text = got["lineage_text"]
    assert len(text) <= LINEAGE_TEXT_MAX and "…" in text
    assert text.startswith("t = ") and text.count(" ← ") >= 2


def test_lineage_text_keeps_short_chains_whole_and_cuts_long_parts():
    steps = [{"name": "v", "expr": "a[1:]"}, {"name": "a", "expr": None}]
    assert lineage_text(steps) == "v = a[1:] ← a"
    many = [{"name": f"n{i}", "expr": f"n{i + 1}.view({i}, -1)"} for i in range(30)]
    text = lineage_text(many)
    assert len(text) <= LINEAGE_TEXT_MAX
    assert text.startswith("n0 = n1.view(0, -1)") and text.endswith("n29 = n30.view(29, -1)")
    assert " ← … ← " in text
    mixed = [{"name": "v", "expr": "a"}, {"name": "w", "expr": "b" * 70}, {"name": "u", "expr": "c"},
             {"name": "r", "expr": "d" * 70}, {"name": "s", "expr": "e"}]
    text = lineage_text(mixed)                    # no step is skipped silently: what is left out is "…"
    assert len(text) <= LINEAGE_TEXT_MAX and text.count("…") == 1
    kept = text.split(" ← ")
    at = kept.index("…")
    full = [f"{s['name']} = {s['expr']}" for s in mixed]
    assert kept[:at] == full[:at] and kept[at + 1:] == full[len(full) - (len(kept) - at - 1):]
    huge = [{"name": "x", "expr": "y" * 500}]
    assert len(lineage_text(huge)) <= LINEAGE_TEXT_MAX


def test_a_view_of_an_unnamed_copy_says_where_its_bytes_were_copied_from():
    grid = pytensor.arange(12).view(3, 4)
    flat = grid.T.reshape(12)          # grid.T.contiguous().view(12): the bytes are the copy's
    same = grid.reshape(12)            # a view of grid itself
    v = views(flat, same, grid, names=["flat", "same", "grid"])
    assert v["flat"]["origin"] == {"shared": False, "text": "copied from grid.T (not contiguous)"}
    assert v["same"]["origin"] == {"shared": True, "text": "shares grid's bytes"}
    # a named copy in between is the source the view shares
    dense = grid.T.contiguous()
    w = views(dense.view(12), dense, names=["d12", "dense"])
    assert w["d12"]["origin"] == {"shared": True, "text": "shares dense's bytes"}


def test_a_step_whose_name_is_its_expression_is_written_once():
    t = pytensor.arange(8)
    v = views(t[::2], t, names=["t[::2]", "t"])
    assert v["t[::2]"]["lineage_text"] == "t[::2] ← t = arange(8)"
