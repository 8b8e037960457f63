"""Words a student can parse: what the picture and the text export say about each lane is plain
English, never a library's internals (NumPy's ``DummyArray``, the ``PyCapsule`` a DLPack import
keeps, torch's ``aten::`` names), and what they say is true of the bytes ("not a view of x: its
own bytes" on a copy, never "shares PyCapsule's bytes"); errors teach what to do instead."""
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import pytensor
from support import require_module, teaching_cases
from pytensor.widgets import record, snapshot, to_html, to_text

torch = require_module("torch")

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "examples").is_dir())   # tests/ or tests/<folder>/
# What a learner should never have to read: Python type and module internals, ATen's names, reprs.
INTERNALS = re.compile(r"DummyArray|PyCapsule|_stride_tricks|TensorBase|torch\._C|aten::|<built-in|object at 0x|"
                       r"__array_interface__|lineage_src|\bNone\b")


def cases(tmp_path):
    """Pictures a class draws: the teaching layouts, NumPy's stride tricks, DLPack both ways, torch."""
    out = [(title, objs, names) for title, objs, names in teaching_cases(tmp_path)]
    a = np.arange(6, dtype=np.int64)
    out.append(("broadcast", [a, np.broadcast_to(a, (4, 6))], ["a", "b"]))
    out.append(("sliding window", [a, np.lib.stride_tricks.as_strided(a, (3, 2), (8, 8))], ["a", "win"]))
    out.append(("sliding_window_view", [a, np.lib.stride_tricks.sliding_window_view(a, 3)], ["a", "sw"]))
    x = pytensor.arange(4, dtype=pytensor.float32)
    out.append(("DLPack", [x, np.from_dlpack(x), np.from_dlpack(x, copy=True)], ["x", "a", "c"]))
    out.append(("advanced index", [a, a[[0, 2, 4]]], ["a", "picked"]))
    g = torch.tensor([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]])
    with record():
        flat, rows, dense = g.T.reshape(6), g.view(3, 2), g.T.contiguous()
        picked, wide, plus = g[[0, 1]], g.to(torch.float64), g + 1
    out.append(("torch, recorded", [g, g.T, rows, flat, dense, picked, wide, plus],
                ["g", "g.T", "rows", "flat", "dense", "picked", "wide", "plus"]))
    out.append(("torch, unrecorded", [g, g.T, g.T.reshape(6), g.numpy()], ["g", "g.T", "flat", "n"]))
    out.append(("one object, two names", [a, a], ["a", "b"]))
    return out


def said(snap):
    """Every sentence the picture shows about its lanes and buffers (tooltips and labels included)."""
    out = []
    for v in snap["views"]:
        out += [v.get("lineage_text") or "", (v.get("origin") or {}).get("text") or "", v.get("note") or ""]
        out += [s.get("expr") or "" for s in v.get("lineage") or []]
    for r in snap["regions"]:
        out += [b["text"] for b in r["badges"]] + [s["label"] for s in r["sources"]]
    return [s for s in out if s]


def test_the_picture_and_the_text_say_nothing_internal(tmp_path):
    texts = 0
    for title, objs, names in cases(tmp_path):
        snap, blob = snapshot(*objs, names=names)
        sentences = said(snap)
        bad = [s for s in sentences + [to_text(snap, blob)] if INTERNALS.search(s)]
        assert not bad, (title, bad)
        texts += len(sentences)
    assert texts > 40        # the scan read what it claims to


def test_the_scan_catches_an_internal_name():
    a = np.arange(3)
    snap, blob = snapshot(a, np.lib.stride_tricks.as_strided(a, (2, 2), (8, 8)), names=["a", "w"])
    snap["views"][1]["origin"]["text"] = "shares DummyArray's bytes"           # what it used to say
    assert any(INTERNALS.search(s) for s in said(snap))


def test_plain_sentences_for_what_used_to_leak(tmp_path):
    a = np.arange(6, dtype=np.int64)
    win = np.lib.stride_tricks.as_strided(a, (3, 2), (8, 8))
    v = {x["name"]: x for x in snapshot(a, win, names=["a", "win"])[0]["views"]}
    assert v["win"]["lineage_text"] == "win = view of a (6 → 3×2) ← a"
    assert v["win"]["origin"] == {"shared": True, "text": "shares a's bytes"}
    x = pytensor.arange(4, dtype=pytensor.float32)
    v = {x_["name"]: x_ for x_ in snapshot(x, np.from_dlpack(x), np.from_dlpack(x, copy=True),
                                           names=["x", "a", "c"])[0]["views"]}
    assert v["a"]["origin"]["text"] == "shares x's bytes (handed over through a DLPack capsule)"
    assert v["c"]["origin"]["text"] == "not a view of x or a: its own bytes (handed over through a DLPack capsule)"
    assert v["c"]["lineage_text"] == "c = imported through DLPack"
    b = np.arange(3)
    assert snapshot(b, b, names=["b", "same"])[0]["views"][1]["origin"]["text"] == "same object as b"


def test_a_source_no_lane_names_is_said_as_a_sentence_does_and_one_that_is_by_its_name():
    buf = bytearray(range(16))
    hi = pytensor.frombuffer(buf, dtype=pytensor.int32, offset=8)     # starts inside buf, not at its first byte
    frozen = pytensor.frombuffer(b"\x01\x02", dtype=pytensor.uint8)
    row = pytensor.tensor([1, 2])
    v = {x["name"]: x for x in snapshot(buf, hi, frozen, row, names=["buf", "hi", "frozen", "row"])[0]["views"]}
    assert v["hi"]["lineage_text"] == "hi = frombuffer(buf)" and v["hi"]["origin"]["text"] == "shares buf's bytes"
    assert v["frozen"]["origin"]["text"] == "shares a bytes object's bytes"
    assert v["row"]["origin"]["text"] == "copied from a list (tensor() always copies)"
    raw = bytearray(16)
    base = pytensor.frombuffer(raw, dtype=pytensor.int16)
    flipped = np.frombuffer(raw, dtype=np.int16)[::-1]                 # its span is raw's: it contains base
    v = {x["name"]: x for x in snapshot(flipped, base, names=["flipped", "base"])[0]["views"]}
    assert v["base"]["origin"]["text"] == "shares a bytearray's bytes"        # a view is nobody's buffer


def test_the_html_page_carries_the_same_words(tmp_path):
    g = torch.tensor([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]])
    with record():
        flat = g.T.reshape(6)
    page = to_html(*snapshot(g, flat, names=["g", "flat"]))
    data = json.loads(re.search(r"mountStatic\([^,]+, (\{.*?\}), \"", page, re.S).group(1))
    assert "copied from g.T, because reshape could not make a view" in json.dumps(data)
    assert not INTERNALS.search(" ".join(said(data)))


def test_the_tour_says_what_happens_in_order():
    run = subprocess.run([sys.executable, str(ROOT / "examples" / "memory_tour.py"), "--html", "/dev/null"],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    printed = " ".join(run.stdout.split())
    assert "After `del middle, arr`, the storage is freed" in printed
    assert "arr the storage" not in printed


@pytest.mark.parametrize("arr, dim, step", [(np.arange(4.0)[::-1], 0, -8),
                                            (np.arange(6, dtype=np.int32).reshape(2, 3)[:, ::-1], 1, -4)])
def test_from_numpy_of_a_negative_stride_says_what_takes_it(arr, dim, step):
    with pytest.raises(ValueError, match=rf"dimension {dim} steps {step} bytes.*pytensor\.from_dlpack\(array\)"):
        pytensor.from_numpy(arr)
    assert pytensor.from_dlpack(arr).tolist() == arr.tolist()
