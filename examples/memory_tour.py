"""A memory tour in questions a class asks: does this share my bytes, or copy them?

Run:  python examples/memory_tour.py [--html PATH]

Each question is answered in a few sentences computed from the objects
themselves (addresses, strides, refcounts, the file on disk), never typed in,
and by one picture from the memory inspector. The answers print here; the
pictures go to one self-contained page (default: memory_tour.html in the
current folder; open it in any browser, no kernel or network needed, and hover
a byte to see who reads it).

The same file is the notebook's source: examples/tour_notebook.py turns its
``# %%`` cells into memory_tour.ipynb (each ``ask(...)`` line becomes the
cell's heading; ``# %% [script]`` cells stay out of the notebook), where every
picture is a live widget instead.
"""

# %% [markdown]
# # A memory tour: does it share, or copy?
#
# Every pytensor tensor is a *view*: a storage (bytes) plus dtype, shape, strides and an offset.
# Each question below is answered twice: in words computed from the objects (addresses, strides,
# refcounts, the file on disk) and by one picture. The picture draws each buffer **once** as a strip
# of bytes and, under it, one lane per tensor, array or buffer: the elements it reads, with their
# values. Lanes on one strip share memory; a copy gets a strip of its own. Hover a byte to see every
# `(view, index)` that reads it.
#
# The pictures are **live**: write through any alias in a later cell and they redraw. A lane lives as
# long as its bytes do, and the inspector keeps nothing alive itself.
#
# The first code cell holds the tour's few helpers: `shares(x, y)` compares the byte ranges two
# objects read (from their addresses and strides), `answer(...)` prints a paragraph of the answer,
# and `picture(...)` draws the question's picture.

# %%
import os
import re
import sys
import tempfile
import textwrap
import weakref

import numpy as np

import pytensor
from pytensor.widgets import figure, inspect, snapshot, to_text

WIDTH = 100                               # columns of every printed line
IN_NOTEBOOK = "ipykernel" in sys.modules  # live widgets there, a static page from the script
questions = []                            # one dict per question: heading, answer paragraphs, figure


def ask(question):
    """Start a question: later answers and the picture belong to it."""
    questions.append({"heading": question, "answer": [], "figure": None})
    if not IN_NOTEBOOK:                   # in the notebook the question is the cell's heading
        print(f"\n== {question}")


def answer(text):
    """Print one paragraph of the answer, wrapped to WIDTH (never cut), and keep it for the page."""
    questions[-1]["answer"].append(text)
    # a `name[0, 1]` in backticks is one word: wrapping may not split it (textwrap never breaks at \xa0)
    glued = re.sub(r"`[^`]*`", lambda m: m.group(0).replace(" ", "\xa0"), text)
    print(textwrap.fill(glued, width=WIDTH, initial_indent="  ", subsequent_indent="  ",
                        break_long_words=False, break_on_hyphens=False).replace("\xa0", " "))


def picture(*objs, names):
    """The question's one picture: a live inspector in a notebook, a figure of the page otherwise."""
    if IN_NOTEBOOK:
        shown = inspect(*objs, names=names)
        drawn = shown.snapshot
    else:               # the terminal's picture is the inspector's text summary of the page's figure
        shown = questions[-1]["figure"] = figure(questions[-1]["heading"], *objs, names=names)
        drawn = shown["snapshot"]
        print(textwrap.indent(to_text(drawn, shown["previews"], width=WIDTH - 2), "  "))
    made = [said for said in map(recorded, drawn["views"], [names] * len(names)) if said]
    if made:
        answer("The inspector's record of how each was made: " + "; ".join(made) + ".")
    return shown if IN_NOTEBOOK else None


def recorded(view, names):
    """Where the inspector says a view's bytes came from (its lineage record, where pytensor kept one),
    with the picture's lane names in backticks; None unless it was a copy or it names another lane."""
    text = (view.get("origin") or {}).get("text", "")
    for n in sorted(names, key=len, reverse=True):
        text = re.sub(rf"(?<=^copied from ){re.escape(n)}(?= \(|,|$)", f"`{n}`", text)
        text = re.sub(rf"(?<=^shares ){re.escape(n)}(?='s bytes)", f"`{n}`", text)
    if not text.startswith("copied") and "`" not in text:
        return None
    return f"`{view['name']}` " + ("was " if text.startswith("copied") else "") + text


def span(x):
    """The absolute byte range ``[lo, hi)`` an object reads: from the lowest to the highest byte its
    strides reach (a tensor, a NumPy array, or any buffer such as a bytearray)."""
    if isinstance(x, pytensor.Tensor):
        size = x.element_size()
        at, shape, byte_strides = x.data_ptr(), x.shape, [s * size for s in x.stride()]
    else:
        x = x if isinstance(x, np.ndarray) else np.frombuffer(x, np.uint8)
        size, at, shape, byte_strides = x.itemsize, x.ctypes.data, x.shape, x.strides
    reach = [(n - 1) * s for n, s in zip(shape, byte_strides)]      # negative for a flipped dimension
    return at + sum(min(0, r) for r in reach), at + sum(max(0, r) for r in reach) + size


def shares(x, y):
    """True when the bytes two objects read overlap (tensors, arrays or buffers), from their addresses."""
    (x0, x1), (y0, y1) = span(x), span(y)
    return x0 < y1 and y0 < x1


def relation(x, xname, y, yname):
    """'`x` shares `y`'s bytes' or '`x` has its own bytes', decided by the addresses."""
    return f"`{xname}` shares `{yname}`'s bytes" if shares(x, y) else f"`{xname}` has its own bytes"


# %% [script]
import argparse  # noqa: E402  (the script's options; the notebook has none)

parser = argparse.ArgumentParser(description="Which pytensor operations share bytes and which copy.")
parser.add_argument("--html", default="memory_tour.html", help="where to write the pictures")
args = parser.parse_args()

# %%
ask("1. Does slicing copy?")
t = pytensor.arange(8, dtype=pytensor.int32)
evens = t[::2]
picked = t[[0, 2, 4]]                     # indexing with a list, not a slice
evens[1] = -1
same_storage = evens.untyped_storage().data_ptr() == t.untyped_storage().data_ptr()
answer(f"{'No' if shares(evens, t) else 'Yes'}: {relation(evens, 't[::2]', t, 't')}. "
       f"t[::2].data_ptr() - t.data_ptr() == {evens.data_ptr() - t.data_ptr()}, the storage is the same "
       f"({same_storage}), and only the stride changed: {evens.stride()} instead of {t.stride()}. "
       f"After t[::2][1] = -1, t = {t.tolist()}.")
answer(f"{relation(t[4:], 't[4:]', t, 't')} too, from byte {t[4:].data_ptr() - t.data_ptr()} "
       f"(storage_offset {t[4:].storage_offset()} x {t.element_size()} B). Indexing with a list is not "
       f"slicing: {relation(picked, 'picked', t, 't')} (picked = t[[0, 2, 4]] = {picked.tolist()}).")
picture(t, t[::2], t[4:], picked, names=["t", "t[::2]", "t[4:]", "picked"])

# %%
ask("2. Why is `grid.T` not contiguous?")
grid = pytensor.arange(12, dtype=pytensor.int32).view(3, 4)
packed = pytensor.empty(grid.T.shape, dtype=grid.dtype).stride()    # what contiguous would be
flat = grid.T.reshape(12)
try:
    grid.T.view(12)
    refusal = "none, it made a view"
except RuntimeError as e:
    refusal = f"{type(e).__name__}: {e}"
answer(f"Because its strides are {grid.T.stride()}, and a contiguous {tuple(grid.T.shape)} tensor has "
       f"strides {packed}. {relation(grid.T, 'grid.T', grid, 'grid')} and reads them column by column: "
       f"the next index along a row is {grid.T.stride()[-1]} elements further on, so walking it in index "
       f"order jumps back in memory at every new row. grid.T.is_contiguous() is {grid.T.is_contiguous()}.")
answer(f"So flattening it cannot be a view. grid.T.view(12) refuses: {refusal}")
answer(f"grid.T.reshape(12) copies when it must: {relation(flat, 'flat', grid, 'grid')} "
       f"(flat = grid.T.reshape(12)). When the order allows a view it makes one: grid.reshape(4, 3) has "
       f"the same data_ptr as grid: {grid.reshape(4, 3).data_ptr() == grid.data_ptr()}.")
picture(grid, grid.T, flat, names=["grid", "grid.T", "flat"])

# %%
ask("3. What does `expand` really allocate?")
row = pytensor.tensor([1.5, 2.5, 3.5, 4.5])
storages_before = pytensor.live_storages()
wide = row.expand(3, 4)
new_storages = pytensor.live_storages() - storages_before
dense = wide.contiguous()
answer(f"{'Nothing' if new_storages == 0 and shares(wide, row) else 'New memory'}: wide = row.expand(3, 4) "
       f"made {new_storages} new storages, and {relation(wide, 'wide', row, 'row')}. Its strides are "
       f"{wide.stride()}: the stride 0 reads the same {row.numel()} elements for each of the "
       f"{wide.shape[0]} rows, {wide.numel()} elements from a {wide.untyped_storage().nbytes()} B storage "
       f"(row.expand(1000, 4) would still read {row.expand(1000, 4).untyped_storage().nbytes()} B).")
answer(f"Writing the rows out is what allocates: {relation(dense, 'dense', row, 'row')} "
       f"(dense = wide.contiguous(), a {dense.untyped_storage().nbytes()} B storage).")
picture(row, wide, dense, names=["row", "wide", "dense"])

# %%
ask("4. What does `frombuffer` share with my `bytearray`?")
buf = bytearray(range(16))
lo = pytensor.frombuffer(buf, dtype=pytensor.int16, count=4)
hi = pytensor.frombuffer(buf, dtype=pytensor.int32, offset=8)
lo[0] = -1
at = span(buf)[0]
answer(f"Exactly the bytes you asked for, in place: {relation(lo, 'lo', buf, 'buf')} "
       f"[{lo.data_ptr() - at}, {lo.data_ptr() - at + lo.nbytes}) and {relation(hi, 'hi', buf, 'buf')} "
       f"[{hi.data_ptr() - at}, {hi.data_ptr() - at + hi.nbytes}). After lo[0] = -1, buf begins "
       f"{bytes(buf[:4]).hex(' ')}: two bytes of buf changed, nothing was copied.")
try:
    buf.extend(b"!")
except BufferError as e:
    answer(f"While a tensor uses it, buf cannot be resized (that would move its bytes under the tensor; "
           f"torch allows it and leaves the tensor dangling): buf.extend(b'!') raises BufferError: {e}.")
frozen = pytensor.frombuffer(b"\x01\x02\x03\x04", dtype=pytensor.uint8)
try:
    frozen[0] = 9
except pytensor.ReadOnlyError as e:
    answer(f"bytes are immutable, so {relation(frozen, 'frozen', buf, 'buf')} (the bytes object's) and "
           f"`frozen` is {'read-only' if frozen.is_readonly() else 'writable'}: frozen[0] = 9 raises "
           f"ReadOnlyError: {e}")
picture(buf, lo, hi, frozen, names=["buf", "lo", "hi", "frozen"])

# %%
ask("5. What happens to my file when I write to a `from_file` tensor?")
path = os.path.join(tempfile.mkdtemp(), "weights.bin")
np.arange(6, dtype=np.float32).tofile(path)
m = pytensor.from_file(path, shared=True, dtype=pytensor.float32)     # size=None: the whole file
m[0] = -1
on_disk = np.fromfile(path, dtype=np.float32)
answer(f"With shared=True it {'changes' if on_disk[0] == m[0].item() else 'does not change'}: after "
       f"m[0] = -1 the file on disk holds {on_disk.tolist()}. {relation(m[4:], 'm[4:]', m, 'm')}: the "
       f"file's bytes {m[4:].data_ptr() - m.data_ptr()} to {m.nbytes}, mapped, not read into memory.")
p = pytensor.from_file(path, shared=False, dtype=pytensor.float32)    # a private map
p[1] = 100
on_disk = np.fromfile(path, dtype=np.float32)
answer(f"With shared=False it {'does not change' if on_disk[1] != p[1].item() else 'changes'}: after "
       f"p[1] = 100, p = {p.tolist()} but the file still holds {on_disk[1]} at [1]. "
       f"{relation(p, 'p', m, 'm')}: a private map of the same file, where the page you write becomes "
       "your own copy (copy-on-write) and the pages you only read are still the file's.")
file_facts = snapshot(p, names=["p"])[0]["regions"][0].get("file")  # the inspector's, where it has them
if file_facts and file_facts.get("cow"):
    answer(f"The kernel agrees: `p` has copied-on-write bytes "
           f"{', '.join(f'[{lo}, {hi})' for lo, hi in file_facts['cow'])} (the pages written since it was "
           "mapped), and the picture's file strip marks them.")
picture(m, m[4:], p, names=["m", "m[4:]", "p"])

# %%
ask("6. What crossed the DLPack boundary?")
x = pytensor.arange(4, dtype=pytensor.float32)
refs_before = x.untyped_storage().refcount
a = np.from_dlpack(x)
refs_after = x.untyped_storage().refcount
c = np.from_dlpack(x, copy=True)
a[0] = 42.0
answer(f"A pointer, the shape {a.shape}, the strides and the flags, not the bytes: "
       f"{relation(a, 'a', x, 'x')} (a.ctypes.data == x.data_ptr(): {a.ctypes.data == x.data_ptr()}), so "
       f"after a[0] = 42, x = {x.tolist()}. The DLPack capsule that came with it holds x's storage: its "
       f"refcount went from {refs_before} to {refs_after} (the 'DLPack capsule' badge).")
answer(f"Ask for a copy and the bytes cross instead: {relation(c, 'c', x, 'x')} "
       "(c = np.from_dlpack(x, copy=True)).")
ro = np.arange(3.0)
ro.flags.writeable = False
answer(f"Flags cross too: a read-only array imports read-only (pytensor.from_dlpack(ro).is_readonly() "
       f"is {pytensor.from_dlpack(ro).is_readonly()}), and a negative stride crosses as it is: "
       f"pytensor.from_dlpack(np.arange(4.0)[::-1]).stride() is "
       f"{pytensor.from_dlpack(np.arange(4.0)[::-1]).stride()} "
       "(torch refuses it).")
picture(x, a, c, names=["x", "a", "c"])

# %%
ask("7. Who keeps my memory alive?")
owner = pytensor.arange(6, dtype=pytensor.int64)
middle = owner[2:5]
arr = np.from_dlpack(owner)
storage = weakref.ref(owner.untyped_storage())
del owner
answer(f"Whoever still holds it, not the name you made it with: after del owner the storage is "
       f"{'alive' if storage() is not None else 'freed'}. {relation(middle, 'middle', arr, 'arr')}: middle "
       f"holds pytensor's storage object and arr holds a DLPack capsule, so the storage's refcount is "
       f"{middle.untyped_storage().refcount} (the 'refs' badge).")
picture(middle, arr, names=["middle", "arr"])

# %%
storages_before = pytensor.live_storages()
del middle, arr
answer(f"After `del middle, arr`, the storage is {'freed' if storage() is None else 'alive'}: "
       f"pytensor.live_storages() went from {storages_before} to {pytensor.live_storages()}. The "
       "inspector holds only weak references, so it never kept the bytes alive: in the notebook the "
       "live picture now says the memory was freed (a static page keeps the moment before the del).")

# %%
ask("8. Who reads byte 2 of this `bytearray`?")
raw = bytearray(range(16))
base = pytensor.frombuffer(raw, dtype=pytensor.int16)       # 8 elements over the bytearray
rows = base.view(2, 4)
col = rows[:, 1]                                            # a strided view
window = base.unfold(0, 3, 2)                               # overlapping windows
flipped = np.from_dlpack(base)[::-1]                        # NumPy's reversed view of the same bytes
views = {"base": base, "rows": rows, "col": col, "window": window, "flipped": flipped}


def readers(byte, views, origin):
    """Every ``name[index]`` whose element covers ``origin + byte``, from each object's own strides."""
    out = []
    for name, v in views.items():
        arr_v = v if isinstance(v, np.ndarray) else v.numpy()
        for idx in np.ndindex(arr_v.shape):
            start = arr_v.ctypes.data + sum(i * s for i, s in zip(idx, arr_v.strides)) - origin
            if start <= byte < start + arr_v.itemsize:
                out.append(f"`{name}[{', '.join(map(str, idx))}]`")
    return out


who = readers(2, views, span(raw)[0])
answer(f"Five views of one bytearray, and byte 2 is read by {', '.join(who[:-1])} and {who[-1]}: "
       "the same two bytes are base's element 1, a row and a column entry of rows, an element of the "
       "first window, and, counting backwards, flipped's element 6. Hover byte 2 in the picture.")
picture(*views.values(), names=list(views))

# %%
ask("9. Two mappings of one file: are they one buffer?")
twice = os.path.join(tempfile.mkdtemp(), "twice.bin")
np.arange(8, dtype=np.int32).tofile(twice)
first = pytensor.from_file(twice, shared=True, dtype=pytensor.int32)
second = pytensor.from_file(twice, shared=True, dtype=pytensor.int32)      # the same file, mapped again
mm = np.memmap(twice, dtype=np.int32, mode="r", offset=16)                 # NumPy maps its last 16 bytes
first[5] = -5
same = first.untyped_storage().identity()
again, mm_at = second.untyped_storage().identity(), pytensor.from_numpy(mm).untyped_storage().identity()


def named(x, xname, ident, yname):
    """'`x` shares `y`'s bytes' when the file under them is y's: (device, inode) of their identity()."""
    one_file = ident is not None and same is not None and ident[:2] == same[:2]
    return f"`{xname}` shares `{yname}`'s bytes" if one_file else f"`{xname}` has its own bytes"


answer(f"Two addresses, {first.data_ptr():#x} and {second.data_ptr():#x}, and one file: each storage's "
       f"identity() names its bytes by (device, inode, byte offset), ({same.device}, {same.inode}, "
       f"{same.byte_offset}) for both, so {named(second, 'second', again, 'first')} and the picture draws one "
       f"buffer of the file with a lane each. After first[5] = -5, second[5] is {second[5].item()} and mm[1] is "
       f"{int(mm[1])}. {named(mm, 'mm', mm_at, 'first')} too: NumPy's memmap starts at file byte offset "
       f"{mm_at.byte_offset}, and its lane starts there, on the file's axis.")
picture(first, second, mm, names=["first", "second", "mm"])

# %%
ask("10. When does torch copy: `g.T.reshape(6)`, `g.T.contiguous()`, `g.view(3, 2)`?")
from pytensor.widgets import record, why  # noqa: E402

try:
    import torch
except ImportError:     # the tour runs without torch: this question then only says what it needs
    torch = None
    answer("This question needs torch (pip install torch).")
if torch is not None:
    g = torch.tensor([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]])
    with record():      # torch's own hooks say which operation made each result, view or copy, and why
        g_flat = g.T.reshape(6)
        g_dense = g.T.contiguous()
        g_rows = g.view(3, 2)
    gT = g.T.numpy()    # NumPy's view of the same bytes, for shares()
    answer(f"Only when the strides cannot say it. g.T has strides {g.T.stride()}: read in index order it "
           f"jumps back and forth in g's bytes, and no stride walks those 6 values as one row. So "
           f"{relation(g_flat.numpy(), 'g_flat', gT, 'g.T')} (g_flat = g.T.reshape(6), which torch allows "
           f"where view refuses), and {relation(g_dense.numpy(), 'g_dense', gT, 'g.T')} (g_dense = "
           f"g.T.contiguous()). But {relation(g_rows.numpy(), 'g_rows', g.numpy(), 'g')}: g.view(3, 2) "
           f"reads g's bytes in their own order, with strides {g_rows.stride()}.")
    answer("Outside pytensor the inspector does not see an operation happen, so the cell ran inside "
           "`with record():`, which asks torch's own hooks (a TorchFunctionMode sees each call as written, a "
           "TorchDispatchMode the operators it ran) and reads view or copy from each operator's schema: "
           f"{why(g_flat, {id(g): 'g'})}.")
picture(g, g.T, g_rows, g_flat, g_dense, names=["g", "g.T", "g_rows", "g_flat", "g_dense"]) if torch else None

# %%
ask("11. What does a forked worker copy: my list, or my tensor?")
import warnings  # noqa: E402  (only this question needs it)

numbers = [float(i) for i in range(1 << 18)]                 # 262,144 Python float objects
weights = pytensor.arange(1 << 18, dtype=pytensor.float64)   # the same values in one 2 MiB buffer, whole pages
PAGE = os.sysconf("SC_PAGE_SIZE")
float_size = sys.getsizeof(numbers[0])
# the pages the floats lie on, listed before the fork (iterating the list later would write refcounts here)
float_pages = sorted({p for x in numbers for p in range(id(x) // PAGE, (id(x) + float_size - 1) // PAGE + 1)})
tensor_pages = range(weights.data_ptr() // PAGE, (weights.data_ptr() + weights.nbytes - 1) // PAGE + 1)


def shared_with_another(pages):
    """How many of these pages (numbered address // PAGE) another process maps too. /proc/self/pagemap has
    an 8-byte entry a page: bit 63 says the page is in RAM, bit 56 that only this process maps it
    ("exclusively mapped"). No privileges needed."""
    shared = 0
    with open("/proc/self/pagemap", "rb") as f:
        for page in pages:
            f.seek(page * 8)
            flags = f.read(8)[7]                                       # the entry's top byte
            shared += bool(flags & 0x80 and not flags & 0x01)
    return shared


done_r, done_w = os.pipe()
release_r, release_w = os.pipe()
with warnings.catch_warnings():   # Python 3.12+ warns that a threaded process forks; the worker only reads
    warnings.simplefilter("ignore", DeprecationWarning)
    worker = os.fork()    # the worker is a copy of this process: same addresses, same pages, shared
if worker == 0:           # in the worker: add both up (reading only), say so, then wait to be released
    total = sum(numbers) == weights.sum().item()
    os.write(done_w, b"same" if total else b"different")
    os.read(release_r, 1)
    os._exit(0)
total = os.read(done_r, 16).decode()
list_shared, tensor_shared = shared_with_another(float_pages), shared_with_another(tensor_pages)
answer(f"The worker (pid {worker}, made by os.fork) summed both and got the {total} total; it only "
       f"read them. Your list {'was copied' if list_shared < len(float_pages) / 2 else 'was not copied'}: "
       f"its {len(numbers):,} floats lie on {len(float_pages)} pages, and {list_shared} of them are "
       "still shared with the worker. Reading a Python object writes its reference count, so the "
       "worker's sum wrote to every page of floats, and the kernel gave it a copy of each page it wrote "
       "(copy-on-write): the list's memory is now there twice.")
facts = snapshot(weights, names=["weights"])[0]["regions"][0]["processes"]
others = len(facts["pids"]) - 1 if facts else 0
mine = facts["pids"][0] if facts else {}
answer(f"Your tensor {'was not copied' if tensor_shared == len(tensor_pages) else 'was copied'}: "
       f"{tensor_shared} of its {len(tensor_pages)} pages are still shared, because reading its values "
       f"writes nothing to them. The inspector agrees: `weights` is shared with {others} other process "
       f"(the worker) and has {mine.get('copied_pages')} pages copied by this process; the strip under "
       "its buffer marks the shared pages and lists each process with its PSS (proportional set "
       "size: a page two processes map counts half to each).")
picture(weights, names=["weights"])

# %%
ask("Cheat sheet: which constructors share, which copy?")


def show(title, source, t):
    """One row: the call, SHARES or copies (from the addresses), and the layout it made."""
    line = (f"  {title:<42} {'SHARES' if shares(t, source) else 'copies':<7} {t.dtype.name}{list(t.shape)}"
            f" strides {t.stride()} offset {t.storage_offset()}")
    assert len(line) <= WIDTH, line
    print(line)


na = np.arange(6, dtype=np.float64).reshape(2, 3)
for title, make in [("from_numpy(a)", lambda: pytensor.from_numpy(na)),
                    ("as_tensor(a)", lambda: pytensor.as_tensor(na)),
                    ("asarray(a)", lambda: pytensor.asarray(na)),
                    ("asarray(a, dtype=float32)", lambda: pytensor.asarray(na, dtype=pytensor.float32)),
                    ("asarray(a, copy=True)", lambda: pytensor.asarray(na, copy=True)),
                    ("tensor(a)", lambda: pytensor.tensor(na))]:
    show(title, na, make())
zero_d = np.array(2.5)
show("as_tensor(0-d array)", zero_d, pytensor.as_tensor(zero_d))
show("asarray(0-d array)  (0-d is always copied)", zero_d, pytensor.asarray(zero_d))
show("frombuffer(buf, dtype=int16, count=4)", buf, lo)
show("frombuffer(buf, dtype=int32, offset=8)", buf, hi)
for title, make in [("as_tensor(bytearray)  (read as values)", pytensor.as_tensor),
                    ("tensor(bytearray)", pytensor.tensor)]:
    small = bytearray(b"\x01\x02")
    show(title, small, make(small))
print(f"  a tensor comes back as itself: asarray(t) is t: {pytensor.asarray(t) is t}, "
      f"as_tensor(t) is t: {pytensor.as_tensor(t) is t}")

# %% [script]
from pytensor.widgets import write_page  # noqa: E402

figures = []
for q in questions:
    if q["figure"] is not None:
        q["figure"]["text"] = "\n\n".join(q["answer"])
        figures.append(q["figure"])
page = write_page(args.html, figures, title="pytensor memory tour: does it share, or copy?")
os.write(release_w, b"x")     # question 11's worker may exit now
os.waitpid(worker, 0)
print(f"\n  wrote {page} ({page.stat().st_size} bytes): open it in a browser and hover a byte")
