"""The live inspector draws a view for as long as its bytes exist, and never longer.

A view object that dies while its memory lives (``inspect(t, t[::2])``) keeps
its lane, marked temporary; memory that is freed, resized or closed ends the
lane, and nothing is read from it afterwards. Observing extends no lifetime:
refcounts, C refcounts and live-storage counts are the same with and without
an inspector. Crashes are run in a subprocess.
"""
import gc
import linecache
import mmap
import subprocess
import sys
import textwrap
import types

import numpy as np
import pytest

import pytensor

pytestmark = pytest.mark.usefixtures("widget_packages")


def lanes(w):
    return [(v["name"], v["status"]) for v in w.snapshot["views"]]


def gone(w):
    return [g["name"] for g in w.snapshot["gone"]]


def from_memory(w):
    """The lanes drawn from memory now (a freed object's lane is a photo of how it was last drawn)."""
    return [v["name"] for v in w.snapshot["views"] if v["status"] != "freed"]


def test_temporary_views_of_a_tensor_stay_drawn_until_the_storage_is_freed(live_baseline):
    from pytensor.widgets import inspect
    o = pytensor.arange(6, dtype=pytensor.int32)
    w = inspect(o, o[::2], o[1:3])
    gc.collect()
    w.check()
    assert lanes(w) == [("o", "live"), ("o[::2]", "temporary"), ("o[1:3]", "temporary")]
    assert len(w.snapshot["regions"]) == 1 and w.snapshot["gone"] == []
    v = {x["name"]: x for x in w.snapshot["views"]}
    assert v["o[::2]"]["footprint"] == [0, 20] and v["o[1:3]"]["footprint"] == [4, 12]
    o[2] = -5                                   # a write is still seen through the temporary's lane
    assert w.check() is True
    assert set(w.changes["views"]) == {v["o"]["id"], v["o[::2]"]["id"], v["o[1:3]"]["id"]}
    del o
    gc.collect()
    w.check()
    assert from_memory(w) == [] and gone(w) == ["o", "o[::2]", "o[1:3]"]
    assert "freed: o[::2]" in w.to_text()
    w.close()


def test_temporary_numpy_view_is_drawn_while_its_base_lives():
    from pytensor.widgets import inspect
    a = np.arange(6, dtype=np.int32)
    w = inspect(a, a[::-1])
    gc.collect()
    w.check()
    assert lanes(w) == [("a", "live"), ("a[::-1]", "temporary")]
    flipped = w.snapshot["views"][1]
    assert flipped["bstrides"] == [-4] and flipped["tags"] == ["flipped"]
    assert flipped["footprint"] == [0, 24] and flipped["byte_offset"] == 20
    del a
    gc.collect()
    w.check()
    assert from_memory(w) == [] and gone(w) == ["a", "a[::-1]"]
    w.close()


def test_a_view_of_a_bytearray_that_moved_is_dropped_not_read():
    mod = _module("pti_fake_notebook_moved", """
        import numpy as np
        from pytensor.widgets import inspect
        buf = bytearray(range(64))
        w = inspect(buf, np.frombuffer(buf)[::2])
    """)
    try:
        gc.collect()
        mod.w.check()
        assert lanes(mod.w) == [("buf", "live"), ("np.frombuffer(buf)[::2]", "temporary")]
        old = mod.w.snapshot["regions"][0]["addr"]
        mod.buf.extend(bytes(1 << 24))            # no export is held: the bytes move to a new block
        mod.w.check()
        assert mod.w.snapshot["regions"][0]["addr"] != old
        assert lanes(mod.w) == [("buf", "live"), ("np.frombuffer(buf)[::2]", "freed")]
        assert gone(mod.w) == ["np.frombuffer(buf)[::2]"]
        # the photo of the old bytes is a strip of its own, never the moved buffer's
        live, photo = mod.w.snapshot["views"]
        assert photo["region"] != live["region"] and photo["region"].startswith(f"r{old[2:]}-g")
    finally:
        mod.w.close()
        del sys.modules[mod.__name__]


def test_dlpack_import_that_died_is_drawn_while_its_producer_holds_the_bytes():
    from pytensor.widgets import inspect
    src = np.linspace(0, 1, 8, dtype=np.float32)
    w = inspect(src, pytensor.from_dlpack(src[::-1]))
    gc.collect()
    w.check()
    assert lanes(w) == [("src", "live"), ("pytensor.from_dlpack(src[::-1])", "temporary")]
    assert "alive in src" in w.snapshot["views"][1]["note"]
    del src
    gc.collect()
    w.check()
    assert from_memory(w) == []
    w.close()


def _module(name, source):
    """Run ``source`` as a module's top level, as a notebook cell runs in ``__main__``."""
    mod = types.ModuleType(name)
    sys.modules[name] = mod
    source = textwrap.dedent(source)
    filename = f"<cell {name}>"              # IPython registers each cell's source the same way
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    exec(compile(source, filename, "exec"), mod.__dict__)
    return mod


@pytest.mark.parametrize("make", ["bytearray(range(16))", "b'0123456789abcdef'"])
def test_bytes_and_bytearray_bound_in_a_namespace_stay_live_without_a_reference(make):
    mod = _module(f"pti_fake_notebook_{len(make)}", f"""
        from pytensor.widgets import inspect
        buf = {make}
        w = inspect(buf)
    """)
    try:
        before = sys.getrefcount(mod.buf)
        for _ in range(3):
            mod.w.check()
        after = sys.getrefcount(mod.buf)
        assert after == before                   # found again by identity, never held
        assert lanes(mod.w) == [("buf", "live")] and mod.w.snapshot["regions"][0]["nbytes"] == 16
        assert bytes(mod.w.previews[:4]) == bytes(mod.buf[:4])
        if isinstance(mod.buf, bytearray):
            mod.buf.extend(b"!")                  # no export is left behind: resizing works
            mod.w.check()
            assert mod.w.snapshot["regions"][0]["nbytes"] == 17
        mod.other = mod.buf                        # a rename keeps it
        del mod.buf
        mod.w.check()
        assert lanes(mod.w) == [("buf", "live")]
        del mod.other
        gc.collect()
        mod.w.check()
        assert from_memory(mod.w) == [] and gone(mod.w) == ["buf"]
    finally:
        mod.w.close()
        del sys.modules[mod.__name__]


def test_the_tour_bytearray_section_is_one_live_buffer():
    mod = _module("pti_fake_notebook_tour", """
        import pytensor
        from pytensor.widgets import inspect
        buf = bytearray(range(16))
        lo = pytensor.frombuffer(buf, dtype=pytensor.int16, count=4)
        hi = pytensor.frombuffer(buf, dtype=pytensor.int32, offset=8)
        w = inspect(buf, lo, hi)
    """)
    try:
        mod.w.check()
        assert lanes(mod.w) == [("buf", "live"), ("lo", "live"), ("hi", "live")]
        assert len(mod.w.snapshot["regions"]) == 1 and mod.w.snapshot["gone"] == []
    finally:
        mod.w.close()
        del sys.modules[mod.__name__]


def test_closed_mmap_ends_its_lanes_and_is_never_read():
    from pytensor.widgets import inspect
    mm = mmap.mmap(-1, 4096)
    mm[:4] = b"\x01\x02\x03\x04"
    w = inspect(mm, np.frombuffer(mm, dtype=np.uint8)[::2])
    gc.collect()
    w.check()
    assert lanes(w) == [("mm", "live"), ("np.frombuffer(mm, dtype=np.uint\u2026", "temporary")]
    mm.close()                                   # allowed: the inspector holds no export between checks
    w.check()
    assert from_memory(w) == [] and len(gone(w)) == 2
    w.close()


def test_observing_changes_no_refcount_of_any_kind():
    from pytensor.widgets import inspect
    t = pytensor.arange(8, dtype=pytensor.float32)
    st = t.untyped_storage()
    a = np.arange(4.0)
    arr_view = a[1:]
    mm = mmap.mmap(-1, 64)
    gc.collect()
    objs = (t, st, a, arr_view, mm)
    before = [sys.getrefcount(x) for x in objs] + [st.refcount, pytensor.live_storages()]
    w = inspect(t, t[::2], a, arr_view, mm)
    for _ in range(2):
        w.check()
    gc.collect()
    after = [sys.getrefcount(x) for x in objs] + [st.refcount, pytensor.live_storages()]
    assert after == before
    w.close()


CLOSE_DURING_SNAPSHOT = """
import mmap, sys
import numpy as np
from pytensor.widgets import snapshot

mm = mmap.mmap(-1, 1 << 20)
buf = bytearray(1 << 20)

class Sneaky:
    # resolving this argument closes the mmap and resizes the bytearray given
    # before it (isinstance, asking whether it is a tensor, reads __class__)
    @property
    def __class__(self):
        for what, act in (("close", mm.close), ("resize", lambda: buf.extend(b"x" * (1 << 22)))):
            try:
                act()
            except BufferError:
                print("refused:", what)
        raise AttributeError("__class__")

try:
    snapshot(mm, buf, Sneaky())
except TypeError as e:
    print("TypeError:", e)
print("survived")
"""


def test_snapshot_holds_the_exports_until_the_bytes_are_read(tmp_path):
    """A buffer closed or resized while a later argument is resolved must not be read after free."""
    run = subprocess.run([sys.executable, "-c", CLOSE_DURING_SNAPSHOT], capture_output=True, text=True,
                         timeout=120, cwd=tmp_path)      # not the repo root, whose source folder shadows the install
    assert run.returncode == 0, run.stderr[-3000:]
    assert "refused: close" in run.stdout and "refused: resize" in run.stdout and "survived" in run.stdout


LYING_SUBCLASS = """
import gc
import numpy as np
from pytensor.widgets import snapshot, to_text

class Liar(np.ndarray):
    # describes a temporary array's memory instead of its own
    @property
    def __array_interface__(self):
        return np.arange(1 << 16, dtype=np.int64).__array_interface__

a = np.arange(8, dtype=np.int64).view(Liar)
snap, blob = snapshot(a, names=["a"])
gc.collect()
assert snap["views"][0]["shape"] == [8], snap["views"][0]
assert blob[:16] == np.arange(2, dtype=np.int64).tobytes(), blob[:16]
print("ok")
"""


def test_an_ndarray_subclass_cannot_point_the_inspector_at_memory_it_does_not_hold(tmp_path):
    """A subclass that lies about its layout, against the inspector: layout comes from NumPy's getters."""
    run = subprocess.run([sys.executable, "-c", LYING_SUBCLASS], capture_output=True, text=True, timeout=120,
                         cwd=tmp_path)
    assert run.returncode == 0 and "ok" in run.stdout, run.stderr[-3000:]


# ---------------------------------------------------------------------- what you asked to see, you see
def _watched(refs, obj):
    """``obj``, with a weak reference to it kept in ``refs`` (to prove nobody keeps it alive)."""
    import weakref
    refs.append(weakref.ref(obj))
    return obj


def _values(w, view):
    """The values a picture shows for a 1-byte-aligned int64 lane: decoded from its region's preview bytes."""
    region = next(r for r in w.snapshot["regions"] if r["id"] == view["region"])
    p = region["preview"]
    raw = w.previews[p["pos"]:p["pos"] + p["length"]]
    return np.frombuffer(raw, dtype=np.int64).tolist()


def test_an_inline_temporary_is_drawn_as_it_was_at_the_call_and_kept_alive_by_nobody():
    from pytensor.widgets import inspect
    refs = []
    w = inspect(_watched(refs, np.broadcast_to(_watched(refs, np.arange(3, dtype=np.int64)), (4, 3))))
    gc.collect()
    assert [r() for r in refs] == [None, None], "the inspector kept what it shows alive"
    first = next(iter(w._history))["snap"]           # the call's picture: drawn from memory
    assert [(v["status"], v["shape"]) for v in first["views"]] == [("live", [4, 3])]
    w.check()
    (v,) = w.snapshot["views"]                       # later pictures: the same lane, marked, not nothing
    assert v["status"] == "freed" and "since the call" in v["note"] and v["shape"] == [4, 3]
    assert v["bstrides"] == [0, 8] and _values(w, v) == [0, 1, 2]
    assert [g["name"] for g in w.snapshot["gone"]] == [v["name"]] and "freed since the call" in w.to_text()
    assert w.check() is False, "a photo never changes: nothing is read from the freed memory"
    w.close()


def test_a_lane_freed_by_a_later_cell_stays_drawn_on_its_own_strip_as_last_seen():
    from pytensor.widgets import inspect
    owner = pytensor.arange(6, dtype=pytensor.int64)
    middle, arr = owner[2:5], np.from_dlpack(owner)
    del owner
    w = inspect(middle, arr)
    arr[3] = 33                                      # a write seen live, then the memory goes
    w.check()
    drawn = {v["name"]: v for v in w.snapshot["views"]}
    assert len(w.snapshot["regions"]) == 1
    del middle, arr, drawn
    gc.collect()
    w.check()
    views = w.snapshot["views"]
    assert [(v["name"], v["status"]) for v in views] == [("middle", "freed"), ("arr", "freed")]
    assert "since it was last drawn" in views[0]["note"]          # after the write's picture, not the call's
    (r,) = w.snapshot["regions"]                     # still one strip: they shared it when last drawn
    assert r["views"] == ["v0", "v1"] and "-g" in r["id"] and r["badges"][0]["text"] == "freed since it was last drawn"
    assert _values(w, views[1]) == [0, 1, 2, 33, 4, 5]
    assert [(o["a"], o["b"], o["region"]) for o in w.snapshot["overlaps"]] == [("v0", "v1", r["id"])]
    # a new object at the same address is a new strip: the photo's id is its own
    again = pytensor.arange(6, dtype=pytensor.int64)
    w.add(again, names=["again"])
    assert [v["name"] for v in w.snapshot["views"]] == ["middle", "arr", "again"]
    assert len({v["region"] for v in w.snapshot["views"]}) == 2
    w.close()


def test_a_figure_keeps_an_inline_temporary_as_it_was():
    from pytensor.widgets import figure, to_text
    refs = []
    fig = figure("q", _watched(refs, np.broadcast_to(np.arange(3, dtype=np.int64), (4, 3))))
    gc.collect()
    assert refs[0]() is None
    assert [v["shape"] for v in fig["snapshot"]["views"]] == [[4, 3]] and "[0,2]=2" in to_text(fig["snapshot"],
                                                                                               fig["previews"])
