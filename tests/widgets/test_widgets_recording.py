"""Recording why (widgets/_recording.py): torch's own hooks name each result by its call and input,
the operators' schemas say view or copy, and the layouts say why; NumPy and torch results made
outside a recording say what their bytes are. Records are weak. ``%%record`` runs in a real
IPython shell, and the tour's page shows the torch question's "copied, because" in Chromium."""
import gc
import subprocess
import sys
import tempfile
import textwrap
import weakref
from pathlib import Path

import numpy as np
import pytest

from support import require_module

torch = require_module("torch")

from pytensor.widgets import record, recorded, snapshot, to_text, track, why  # noqa: E402
from pytensor.widgets import _recording  # noqa: E402

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "examples").is_dir())   # tests/ or tests/<folder>/


def views(*objs, names):
    return {v["name"]: v for v in snapshot(*objs, names=names)[0]["views"]}


def grid():
    return torch.tensor([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]])


def test_views_and_copies_come_from_the_schemas_not_the_op_name():
    x = grid()
    with record():
        flat_of_t = x.T.reshape(6)        # reshape that must copy: aten::clone under it
        flat = x.reshape(6)               # the same call name, a view: aten::view under it
        t, col, v = x.T, x[:, 1], x.view(3, 2)
        dense = x.T.contiguous()
        picked = x[[0, 1]]
        wide = x.to(torch.float64)
        plus = x + 1
    assert recorded(flat_of_t).shared is False and recorded(flat_of_t).via == "clone"
    assert recorded(flat).shared is True and recorded(flat).op == recorded(flat_of_t).op == "reshape"
    assert [recorded(o).shared for o in (t, col, v)] == [True, True, True]
    assert recorded(dense).via == "clone" and recorded(picked).via == "index"
    assert recorded(wide).via == "_to_copy" and recorded(wide).shared is False
    assert recorded(plus).shared is None and recorded(plus).via == "add"      # new values, not a copy
    # the schema that decided says so: the copying operators' returns alias nothing
    for op in ("clone", "index.Tensor", "_to_copy"):
        name, _, overload = op.partition(".")
        assert getattr(getattr(torch.ops.aten, name), overload or "default")._schema.returns[0].alias_info is None
    assert torch.ops.aten.view.default._schema.returns[0].alias_info is not None


def test_each_result_is_named_by_its_call_and_input_with_the_reason():
    x = grid()
    with record():
        flat = x.T.reshape(6)
        dense = x.T.contiguous()
        picked = x[[0, 1]]
        wide = x.to(torch.float64)
        rows = x.view(3, 2)
        both = torch.cat([x, rows.view(2, 3)])
    names = {id(x): "x"}
    assert why(flat, names) == ("x.T.reshape(6): copied from x.T, because reshape could not make a view: "
                                "strides (1, 3) cannot express shape (6,)")
    assert why(dense, names) == ("x.T.contiguous(): copied from x.T, because it was not contiguous: strides "
                                 "(1, 3), where a contiguous (3, 2) tensor has strides (2, 1)")
    assert why(picked, names).startswith("x[[0, 1]]: copied from x, because indexing with a list")
    assert why(wide, names) == "x.to(torch.float64): copied from x, because it converts float32 to float64"
    assert why(rows, names) == "x.view(3, 2): shares x's bytes"
    assert why(both, {id(x): "x", id(rows): "rows"}).startswith("torch.cat([x, rows.view(2, 3)]): copied from x")
    # an input the recording never saw made is named as the caller's variable was (in a module, a
    # notebook cell: a function's locals are not read, as that would keep them alive)
    ns = {"torch": torch, "record": record}
    exec("x = torch.zeros(2, 3)\nwith record():\n    y = x.T.reshape(6)", ns)
    assert why(ns["y"]) == ("x.T.reshape(6): copied from x.T, because reshape could not make a view: strides (1, 3) "
                            "cannot express shape (6,)")
    assert why(flat) == ("(a tensor).T.reshape(6): copied from (a tensor).T, because reshape could not make a "
                         "view: strides (1, 3) cannot express shape (6,)")


def test_the_picture_and_text_say_view_copy_and_why():
    x = grid()
    with record():
        flat = x.T.reshape(6)
        rows = x.view(3, 2)
    v = views(x, rows, flat, names=["x", "rows", "flat"])
    assert v["rows"]["origin"] == {"shared": True, "text": "shares x's bytes"}
    assert v["rows"]["lineage_text"] == "rows = x.view(3, 2) ← x"
    assert v["flat"]["origin"]["shared"] is False
    assert v["flat"]["lineage_text"] == "flat = x.T.reshape(6)"
    text = " ".join(to_text(*snapshot(x, rows, flat, names=["x", "rows", "flat"])).split())
    assert "copied from x.T, because reshape could not make a view: strides (1, 3) cannot express shape (6,)" in text


def test_an_input_returned_keeps_its_own_record_and_is_the_same_object():
    x = grid()
    with record():
        rows = x.view(3, 2)
        same = rows.contiguous()          # already contiguous: torch returns rows itself
        back = rows.add_(1)               # in place: returns rows
    assert same is rows and back is rows and recorded(rows).op == "view"
    v = views(x, rows, same, names=["x", "rows", "same"])
    assert v["same"]["origin"] == {"shared": True, "text": "same object as rows"}


def test_torch_hands_numpy_arrays_over_and_the_recording_says_so():
    x = grid()
    with record():
        n = x.numpy()
        a = np.asarray(x)
    assert recorded(n).shared is True and recorded(a).shared is True
    v = views(x, n, a, names=["x", "n", "a"])
    assert v["n"]["origin"] == {"shared": True, "text": "shares x's bytes"}
    assert v["n"]["lineage_text"] == "n = x.numpy() ← x"
    assert v["a"]["lineage_text"] == "a = numpy.asarray(x) ← x"


def test_several_results_are_each_named():
    x = grid()
    with record():
        top, bottom = x.split(1)
        rows = x.unbind()
    assert why(bottom, {id(x): "x"}) == "x.split(1, dim=0)[1]: shares x's bytes"     # Tensor(a)[] in its schema
    assert why(rows[0], {id(x): "x"}) == "x.unbind()[0]: shares x's bytes"


def test_numpy_through_the_hooks_numpy_offers_a_tracked_array():
    with record():
        a = track(np.arange(6))
        g = a.reshape(2, 3)                      # a method of the subclass
        picked = a[[0, 2, 4]]                    # indexing
        flat = np.reshape(g.T, 6)                # __array_function__, and T
        col = g[:, 1]
        plus = np.add(a, 1)                      # __array_ufunc__
        wide = g.astype(np.float32)
    names = {id(a): "a", id(g): "g"}
    assert why(g, names) == "a.reshape(2, 3): shares a's bytes"
    assert why(picked, names).startswith("a[[0, 2, 4]]: copied from a, because indexing with a list or an array")
    assert why(flat, names) == ("numpy.reshape(g.T, 6): copied from g.T, because reshape could not make a view: "
                                "strides (1, 3) cannot express shape (6,)")
    assert why(col, names) == "g[:, 1]: shares g's bytes"
    assert recorded(plus).shared is None and why(plus, names).startswith("numpy.add(a, 1): new values")
    assert why(wide, names) == "g.astype(float32): copied from g, because it converts int64 to float32"
    v = views(a, g, picked, names=["a", "g", "picked"])
    assert v["a"]["origin"] is None and v["a"]["lineage"] == []      # track() adds no step of its own
    assert v["picked"]["lineage_text"] == "picked = a[[0, 2, 4]] ← a" and v["picked"]["origin"]["shared"] is False
    plain = np.arange(6)
    with record():
        untracked = plain[[0, 2, 4]]             # a plain array: NumPy offers no hook
        later = a[[1, 3]]
    assert recorded(untracked) is None and recorded(later) is not None
    outside = a[[1, 3]]
    assert recorded(outside) is None             # a tracked array records only inside a recording


def test_a_recording_of_numpy_needs_no_torch():
    code = ("import sys; sys.modules['torch'] = None\n"          # torch cannot be imported
            "import numpy as np\nfrom pytensor.widgets import record, track, why\n"
            "with record() as rec:\n    a = track(np.arange(6))\n    p = a[[0, 2]]\n"
            "print(why(p, {id(a): 'a'}).split(', because')[0], rec.count)\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         cwd=tempfile.gettempdir())  # not the source tree: it has no compiled module
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.stdout.strip() == "a[[0, 2]]: copied from a 0"


def test_nothing_is_recorded_outside_a_recording_and_inspecting_inside_records_nothing():
    x = grid()
    outside = x.T.reshape(6)
    assert recorded(outside) is None
    with record() as rec:
        inside = x.T
        before = rec.count
        snapshot(x, inside, names=["x", "inside"])
        assert rec.count == before == 1
    assert recorded(x) is None


def test_a_recording_never_breaks_the_program():
    sparse = torch.eye(3).to_sparse()          # no strides: a reason that reads them must not raise
    x = torch.arange(6.0).view(2, 3).requires_grad_()
    with record():
        t = sparse.t()
        loss = (x * 2).sum()
        loss.backward()
        rows = [row for row in x.detach()]
        relu = torch.nn.functional.relu(x.detach().T)
    assert t.to_dense().tolist() == torch.eye(3).tolist() and x.grad.tolist() == [[2.0] * 3] * 2
    assert len(rows) == 2 and recorded(relu).shared is None


def test_records_keep_nothing_alive():
    x = grid()
    with record():
        y = x.T.reshape(6)
        z = y.view(2, 3)
    refs = [weakref.ref(o) for o in (x, y, z)]
    keys = [id(o) for o in (x, y, z)]
    assert recorded(z) is not None
    del x, y, z
    gc.collect()
    assert [r() for r in refs] == [None, None, None]
    assert not any(k in _recording._RECORDS for k in keys)


def test_outside_a_recording_torch_and_numpy_results_say_what_their_bytes_are():
    x = grid()
    v = views(x, x.T, x.T.contiguous(), names=["x", "x.T", "c"])
    assert v["x.T"]["origin"] == {"shared": True, "text": "shares x's bytes"}      # torch's ._base
    assert v["x.T"]["lineage_text"] == "x.T = view of x (2×3 → 3×2) ← x"
    assert v["c"]["origin"] == {"shared": None, "text": "not a view of x or x.T: its own bytes"}
    a = np.arange(6)
    v = views(a, a[[0, 2, 4]], names=["a", "picked"])
    assert v["picked"]["origin"] == {"shared": None, "text": "not a view of a: its own bytes"}
    assert v["a"]["origin"] == {"shared": None, "text": "not a view of picked: its own bytes"}
    assert views(a, a[::2], names=["a", "evens"])["a"]["origin"] is None          # it shares: nothing to say


def test_the_record_magic_runs_in_a_real_ipython_shell():
    require_module("IPython")
    code = textwrap.dedent("""
        from IPython.core.interactiveshell import InteractiveShell
        shell = InteractiveShell.instance()
        shell.run_cell("import torch, pytensor.widgets as w")     # importing in IPython registers %%record
        assert "record" in shell.magics_manager.magics["cell"], "no %%record"
        res = shell.run_cell("%%record\\nx = torch.arange(6.0).view(2, 3)\\ny = x.T.reshape(6)\\nz = x.T")
        assert res.success, res.error_in_exec
        ns = shell.user_ns
        w = ns["w"]
        print(w.why(ns["y"], {id(ns["x"]): "x"}))
        print(w.why(ns["z"], {id(ns["x"]): "x"}))
        res = shell.run_cell("outside = x.T")
        print(w.why(ns["outside"]))
        shell.run_cell("%load_ext pytensor.widgets")
        print("record" in shell.magics_manager.magics["cell"])
    """)
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         cwd=tempfile.gettempdir())  # not the source tree: it has no compiled module
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.stdout.splitlines() == [
        "x.T.reshape(6): copied from x.T, because reshape could not make a view: strides (1, 3) cannot express "
        "shape (6,)", "x.T: shares x's bytes", "None", "True"]


def test_the_tour_page_shows_the_torch_question_copied_because(tmp_path):
    from browser_support import artifacts_dir, chromium_page, run_tour
    from tour_expectations import QUESTIONS
    path, _ = run_tour(tmp_path)
    k = next(i for i, q in enumerate(QUESTIONS) if "torch" in q["heading"])
    with chromium_page(path.as_uri()) as page:
        from playwright.sync_api import expect
        fig = page.locator("section.pti-figure").nth(k)
        expect(fig.locator("h3")).to_have_text(QUESTIONS[k]["heading"])
        expect(fig.locator("p code").first).to_be_visible()                  # `code` is set as code
        assert "`" not in "".join(fig.locator("p").all_inner_texts())
        expect(fig.locator("p").last).to_contain_text("g_flat was copied from g.T, because reshape could not make "
                                                      "a view: strides (1, 3) cannot express shape (6,)")
        lane = fig.locator("g.pti-lane[data-name='g_flat']")
        expect(lane).to_have_class(__import__("re").compile(r"\bpti-copied\b"))
        target = lane.locator(".pti-el, .pti-run").first
        target.scroll_into_view_if_needed()
        lane.locator("text").first.hover()
        tip = page.locator(".pti-tip:visible")
        expect(tip).to_contain_text("copied from g.T, because reshape could not make a view")
        fig.screenshot(path=str(artifacts_dir(tmp_path) / "tour_torch_question.png"))
        assert not page.errors, page.errors
