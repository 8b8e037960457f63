"""The snapshot's dicts have exactly the keys _snapshot.py documents, and the renderer reads no other.

A renamed key fails silently in the front end (JavaScript reads ``undefined``), so the names are
pinned on both sides: the model's dicts against ``VIEW_KEYS``/``SOURCE_KEYS``/``REGION_KEYS``/
``OVERLAP_KEYS``, and every key inspector.js reads while drawing and hovering a real snapshot
(recorded by tests/js/read_keys.mjs) against what the model writes.
"""
import base64
import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

from support import require_module, require_program, teaching_cases

import pytensor
from pytensor.widgets import _snapshot as S
from pytensor.widgets import snapshot

HERE = Path(__file__).resolve().parents[1]
PROBE = HERE / "js" / "read_keys.mjs"
RENDERER = HERE.parent / "widgets" / "inspector.js"
# What the renderer adds to the model's dicts (attachPreviews) or the widget adds to the snapshot.
RENDERER_VIEW_KEYS = {"color"}
RENDERER_REGION_KEYS = {"bytes"}
EXTRA_TOP_KEYS = {"viewById", "generation"}     # generation: the Inspector numbers each picture


def teaching_objects(tmp_path):
    """The teaching layouts (support.teaching_cases) and a few more, so that every kind of view dict, source and
    region the model makes appears: a column view, a Python-list copy and NumPy's overlapping windows."""
    objs = {}
    for _title, case_objs, case_names in teaching_cases(tmp_path):
        for name, obj in zip(case_names, case_objs):
            objs.setdefault(name, obj)
    t, a = objs["t"], objs["a"]
    objs.update({"col": t.view(3, 4)[:, 2], "copy": pytensor.tensor([1.5, 2.5]),
                 "windows": np.lib.stride_tricks.as_strided(a, (4, 3), (4, 4))})
    return list(objs.values()), list(objs)


def check_keys(snap):
    """Every dict of ``snap`` has exactly its documented keys; returns how many dicts were checked."""
    n = 0
    for v in snap["views"]:
        assert set(v) == set(S.VIEW_KEYS), (v["name"], set(v) ^ set(S.VIEW_KEYS))
        n += 1
    for r in snap["regions"]:
        assert set(r) == set(S.REGION_KEYS), (r["id"], set(r) ^ set(S.REGION_KEYS))
        for s in r["sources"]:
            assert set(s) == set(S.SOURCE_KEYS), (r["id"], set(s) ^ set(S.SOURCE_KEYS))
            n += 1
    for o in snap["overlaps"]:
        assert set(o) == set(S.OVERLAP_KEYS), set(o) ^ set(S.OVERLAP_KEYS)
        n += 1
    return n


def test_snapshot_dicts_have_exactly_the_documented_keys(tmp_path):
    objs, names = teaching_objects(tmp_path)
    snap, _ = snapshot(*objs, names=names)
    assert check_keys(snap) > len(objs)
    # the generator made what this test claims to cover
    assert {v["kind"] for v in snap["views"]} == {"tensor", "ndarray", "buffer"}
    assert {s["kind"] for r in snap["regions"] for s in r["sources"]} == {"storage", "owner"}
    assert any(r["file"] for r in snap["regions"]) and snap["overlaps"]
    assert any(v["max_hits"] > 1 for v in snap["views"]) and any(v["lineage"] for v in snap["views"])
    # units are in the names: a byte offset and an element offset of the same view agree
    for v in snap["views"]:
        assert "offset" not in v
    hi = next(v for v in snap["views"] if v["name"] == "hi")
    assert (hi["byte_offset"], hi["storage_offset"]) == (8, 0)      # its storage starts at buf's byte 8
    col = next(v for v in snap["views"] if v["name"] == "col")
    assert (col["byte_offset"], col["storage_offset"]) == (8, 2)


def test_the_live_widget_and_its_history_keep_the_documented_keys(tmp_path):
    require_module("anywidget")
    from pytensor.widgets import Inspector
    from pytensor.widgets import inspector as inspector_mod
    objs, names = teaching_objects(tmp_path)
    w = Inspector(*objs, names=names)
    try:
        first = w.snapshot
        check_keys(first)
        w.add(objs[0][::2], names=["t[::2]"])        # a temporary: drawn from its layout record
        objs[0][0] = 7
        w.refresh()
        check_keys(w.snapshot)
        assert any(v["status"] == "temporary" for v in w.snapshot["views"])
        # a delta applied to its base gives back the same dicts, keys and all
        delta, _ = inspector_mod._delta(first, w.snapshot)
        assert check_keys(inspector_mod._apply(first, delta)) == check_keys(w.snapshot)
    finally:
        w.close()


def read_by_renderer(tmp_path, snap, blob, renderer=None):
    node = require_program("node")
    data = tmp_path / "snapshot.json"
    data.write_text(json.dumps({"snapshot": snap, "previews": base64.b64encode(blob).decode("ascii")}))
    args = [node, str(PROBE), str(data)] + ([str(renderer)] if renderer else [])
    proc = subprocess.run(args, capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    return json.loads(proc.stdout)


def unknown_reads(read, snap):
    return {
        "view": set(read["view"]) - set(S.VIEW_KEYS) - RENDERER_VIEW_KEYS,
        "region": set(read["region"]) - set(S.REGION_KEYS) - RENDERER_REGION_KEYS,
        "overlap": set(read["overlap"]) - set(S.OVERLAP_KEYS),
        "top": set(read["top"]) - set(snap) - EXTRA_TOP_KEYS,
    }


@pytest.fixture
def teaching_snapshot(tmp_path):
    objs, names = teaching_objects(tmp_path)
    return snapshot(*objs, names=names)


def test_renderer_reads_only_keys_the_snapshot_writes(tmp_path, teaching_snapshot):
    snap, blob = teaching_snapshot
    read = read_by_renderer(tmp_path, snap, blob)
    assert unknown_reads(read, snap) == {"view": set(), "region": set(), "overlap": set(), "top": set()}
    # the probe drove the paths that read layouts, hovers and ownership, not just the frame
    assert {"byte_offset", "storage_offset", "bstrides", "footprint", "exclusive_bytes", "lineage"} <= set(read["view"])
    assert {"preview", "file", "union_bytes"} <= set(read["region"]) and "shared_bytes" in read["overlap"]
    assert read["elements"] > 20 and read["drawn"] > 10000


def test_a_stale_key_in_the_renderer_is_caught(tmp_path, teaching_snapshot):
    """The check above can fail: a renderer still reading the old name is reported."""
    snap, blob = teaching_snapshot
    src = RENDERER.read_text(encoding="utf-8")
    stale = "(v) => String(v.byte_offset)"
    assert src.count(stale) == 1
    perturbed = tmp_path / "stale_inspector.js"
    perturbed.write_text(src.replace(stale, "(v) => String(v.offset)"), encoding="utf-8")
    assert unknown_reads(read_by_renderer(tmp_path, snap, blob, perturbed), snap)["view"] == {"offset"}
