"""A memory tour: which pytensor operations share bytes and which copy.

Run:  python examples/memory_tour.py [--html PATH]

Every verdict below (SHARES or copies) is computed from the objects' own
addresses, so you can check each claim yourself. Each section also draws its
objects with the memory inspector; the pictures go to one self-contained page
(default: memory_tour.html in the current folder; open it in any browser, no
kernel or network needed, and hover a byte to see who reads it).
"""
import argparse
import array
import os
import tempfile

import numpy as np

import pytensor
from pytensor.widgets import figure, write_page

WIDTH = 100
figures = []


def span(x):
    """The absolute byte range ``[lo, hi)`` of the memory an object reads (a tensor: its storage)."""
    if isinstance(x, pytensor.Tensor):
        s = x.untyped_storage()
        return s.data_ptr(), s.data_ptr() + s.nbytes()
    if isinstance(x, np.ndarray):
        bounds = np.lib.array_utils.byte_bounds if hasattr(np.lib, "array_utils") else np.byte_bounds
        return bounds(x)
    lo = np.frombuffer(x, np.uint8).__array_interface__["data"][0]
    return lo, lo + len(memoryview(x).cast("B"))


def shares(a, b):
    """True when two objects' bytes overlap (tensors, arrays or buffers)."""
    (a0, a1), (b0, b1) = span(a), span(b)
    return a0 < b1 and b0 < a1


def layout(t):
    """dtype, shape, strides (in elements) and storage offset, in one short phrase."""
    if isinstance(t, np.ndarray):
        strides = tuple(s // t.itemsize for s in t.strides)
        return f"{t.dtype}{list(t.shape)} strides {strides}"
    return f"{t.dtype.name}{list(t.shape)} strides {t.stride()} offset {t.storage_offset()}"


def show(title, verdict, t):
    line = f"  {title:<42} {verdict:<7} {layout(t)}"
    assert len(line) <= WIDTH, line
    print(line)


def say(text):
    """Print prose wrapped to the tour's width."""
    import textwrap
    print(textwrap.fill(text, width=WIDTH, initial_indent="  ", subsequent_indent="  "))


def verdict(a, b):
    return "SHARES" if shares(a, b) else "copies"


def section(name):
    print(f"\n== {name}")


parser = argparse.ArgumentParser(description="Which pytensor operations share bytes and which copy.")
parser.add_argument("--html", default="memory_tour.html", help="where to write the inspector's pictures")
args = parser.parse_args()


section("1. views: one storage, many shapes")
base = pytensor.arange(12, dtype=pytensor.int32)
print(f"  base = {base.tolist()}")
grid = base.view(3, 4)
for title, v in [("base.view(3, 4)", grid), ("grid[1]", grid[1]), ("grid[:, 2]", grid[:, 2]),
                 ("grid[::2, 1::2]", grid[::2, 1::2]), ("grid.T", grid.T),
                 ("grid[1:].unsqueeze(0)", grid[1:].unsqueeze(0))]:
    show(title, verdict(v, base), v)
col = grid[:, 2]
col[:] = -1
print(f"  after col[:] = -1 (col = grid[:, 2]), base = {base.tolist()}")
for title, c in [("grid.T.contiguous()", grid.T.contiguous()), ("grid.clone()", grid.clone()),
                 ("grid.float()", grid.float()), ("grid[[0, 2]]  (advanced index)", grid[[0, 2]])]:
    show(title, verdict(c, base), c)
figures.append(figure(
    "1. Views: one storage, many shapes", base, grid, col, grid.T, grid[1],
    text="view, slicing and .T never copy: each lane is the same 48 bytes read with other strides and "
         "another offset. grid.T walks the buffer column by column (strides (1, 4)); col = grid[:, 2] "
         "touches every fourth element and skips the rest of its footprint."))

section("2. stride tricks: broadcast and sliding windows")
row = grid[0:1].expand(3, 4)
win = base.unfold(0, 4, 2)
for title, v in [("grid[0:1].expand(3, 4)  (stride 0)", row), ("base[:1].expand(6)  (stride 0)", base[:1].expand(6)),
                 ("base.unfold(0, 4, 2)  (windows)", win)]:
    show(title, verdict(v, base), v)
say("A stride of 0 reads the same element again for every index; unfold's windows overlap. Both read "
    "some bytes more than once, which the inspector marks with a red outline and a count.")
figures.append(figure(
    "2. Stride tricks: broadcast and sliding windows", base, row, base[:1].expand(6), win,
    text="expand repeats memory with stride 0 and unfold makes overlapping windows: these lanes read "
         "some bytes several times, and no byte of them is a copy."))

section("3. NumPy: from_numpy, as_tensor and asarray share; tensor copies")
a = np.arange(6, dtype=np.float64).reshape(2, 3)
made = {}
for title, fn in [("from_numpy(a)", lambda: pytensor.from_numpy(a)),
                  ("as_tensor(a)", lambda: pytensor.as_tensor(a)),
                  ("asarray(a)", lambda: pytensor.asarray(a)),
                  ("asarray(a, dtype=float32)", lambda: pytensor.asarray(a, dtype=pytensor.float32)),
                  ("asarray(a, copy=True)", lambda: pytensor.asarray(a, copy=True)),
                  ("tensor(a)", lambda: pytensor.tensor(a))]:
    made[title] = t = fn()
    show(title, verdict(t, a), t)
z = np.array(2.5)
for title, fn in [("as_tensor(0-d array)", pytensor.as_tensor),
                  ("asarray(0-d array)  (0-d is always copied)", pytensor.asarray)]:
    t = fn(z)
    show(title, verdict(t, z), t)
src_t = pytensor.zeros(3)
print(f"  a tensor comes back as itself: asarray(t) is t: {pytensor.asarray(src_t) is src_t}, "
      f"as_tensor(t) is t: {pytensor.as_tensor(src_t) is src_t}")
t = pytensor.from_numpy(a)
t[0, 0] = 100.0
print(f"  after t[0, 0] = 100 through from_numpy(a): a[0, 0] = {a[0, 0]}")
back = t.numpy()
print(f"  t.numpy() shares with a: {np.shares_memory(back, a)}; writeable: {back.flags.writeable}")
ro = np.arange(3.0)
ro.flags.writeable = False
t_ro = pytensor.from_numpy(ro)
try:
    t_ro[0] = 1.0
except RuntimeError as e:
    print(f"  a read-only array gives a read-only tensor; writing raises {type(e).__name__}:")
    say(str(e))
shared_t, copied_t = made["asarray(a)"], made["asarray(a, copy=True)"]
figures.append(figure(
    "3. NumPy: asarray shares, copy=True does not", a, shared_t, copied_t,
    names=["a", "asarray(a)", "asarray(a, copy=True)"],
    text="The tensor from asarray(a) reads NumPy's bytes in place, so a and it are one buffer with "
         "two lanes. The copy is a buffer of its own."))

section("4. buffers: frombuffer and asarray read raw bytes in place")
buf = bytearray(range(16))
lo = pytensor.frombuffer(buf, dtype=pytensor.int16, count=4)
hi = pytensor.frombuffer(buf, dtype=pytensor.int32, offset=8)
show("frombuffer(buf, dtype=int16, count=4)", verdict(lo, buf), lo)
show("frombuffer(buf, dtype=int32, offset=8)", verdict(hi, buf), hi)
print(f"  lo = {lo.tolist()}: the bytes 00 01 read as a little-endian int16 are 0x0100 = 256,")
print("  so an int16 view of bytes 0, 1, 2, 3, ... shows 256, 770, 1284, ...")
try:
    buf.extend(b"!")
except BufferError:
    say("buf.extend() is refused while a tensor uses buf: resizing would move its bytes under the "
        "tensor (torch allows it and leaves the tensor dangling).")
arr = array.array("f", [1.5, 2.5])
t = pytensor.asarray(arr, dtype=pytensor.float32)
t[0] = -1
print(f"  asarray(array.array('f', ...)) {verdict(t, arr)}: after t[0] = -1 the array is {arr.tolist()}")
for title, fn in [("as_tensor(bytearray)  (read as values)", pytensor.as_tensor),
                  ("tensor(bytearray)", pytensor.tensor)]:
    src_b = bytearray(b"\x01\x02")
    t = fn(src_b)
    show(title, verdict(t, src_b), t)
frozen = pytensor.frombuffer(b"\x01\x02\x03\x04", dtype=pytensor.uint8)
print(f"  frombuffer(bytes) is read-only: {frozen.is_readonly()} (torch warns and lets you write)")
figures.append(figure(
    "4. frombuffer: tensors over Python buffers", buf, lo, hi, frozen,
    text="Two tensors at different offsets of one bytearray are two storages over the same memory: "
         "the inspector groups them by address, not by Python identity, so buf, lo and hi are one "
         "buffer. bytes are immutable, so the tensor over them is read-only (the lock)."))

section("5. Python data is always copied")
src = [[1, 2], [3, 4]]
t = pytensor.tensor(src)
print(f"  tensor({src}) -> {t.tolist()}, dtype inferred {t.dtype}")
print(f"  tensor([1, 2.5]).dtype = {pytensor.tensor([1, 2.5]).dtype}; tensor([True, 1]).dtype = "
      f"{pytensor.tensor([True, 1]).dtype}")

section("6. files: from_file maps a file's bytes, it does not read them")
folder = tempfile.mkdtemp()
path = os.path.join(folder, "weights.bin")
np.arange(6, dtype=np.float32).tofile(path)
m = pytensor.from_file(path, shared=True, dtype=pytensor.float32)    # size=None: the whole file
m[1:3] = -1
on_disk = np.fromfile(path, dtype=np.float32)
show("from_file(path, shared=True)", "SHARES" if on_disk[1] == -1 else "copies", m)
print(f"  after m[1:3] = -1 the file holds {on_disk.tolist()}")
print(f"  storage: {m.untyped_storage().provenance}, mapped_file = "
      f"({os.path.basename(m.untyped_storage().mapped_file[0])!r}, {m.untyped_storage().mapped_file[1]!r})")
p = pytensor.from_file(path, shared=False, dtype=pytensor.float32)    # private: copy-on-write
p[0] = 100
private_kept = np.fromfile(path, dtype=np.float32)[0] != 100
print(f"  shared=False is a private map: p[0] = {p[0].item()} in memory, file[0] = "
      f"{np.fromfile(path, dtype=np.float32)[0]} ({'not written' if private_kept else 'WRITTEN'})")
tail = m[4:]
show("m[4:]  (from byte 16 of the file)", verdict(tail, m), tail)
figures.append(figure(
    "5. from_file: a memory-mapped file", m, tail, p,
    text="from_file(shared=True) maps the file: m and m[4:] read the file's own bytes (the badge "
         "names the file and the mode). The private map p is a second mapping of the same file, "
         "copy-on-write, so it is a buffer of its own."))
grown = pytensor.from_file(path, shared=True, size=8, dtype=pytensor.float32)
print(f"  shared with size=8 extends the file to {os.path.getsize(path)} bytes, old bytes kept:")
print(f"  {grown.tolist()}")
del m, p, tail, grown  # unmapped here; a view or a DLPack export would keep the mapping alive

section("7. DLPack: zero-copy exchange with NumPy and torch")
t = pytensor.arange(4.0)
a = np.from_dlpack(t)
a[0] = 42.0
print(f"  np.from_dlpack(t) {verdict(a, t)}: after a[0] = 42, t = {t.tolist()}")
src = np.arange(4.0)
rev = pytensor.from_dlpack(src[::-1])
print(f"  from_dlpack(src[::-1]) {verdict(rev, src)}: stride {rev.stride()}, values {rev.tolist()}")
print("  (a negative stride: element [0] is the last one in memory, and the view walks backwards)")
ro = np.arange(3.0)
ro.flags.writeable = False
print(f"  from_dlpack(read-only array).is_readonly() = {pytensor.from_dlpack(ro).is_readonly()}")
try:
    import torch
except ImportError:
    print("  (torch is not installed: skipping the torch exchange)")
else:
    tt = torch.from_dlpack(t)
    tt[1] = -1.0
    print(f"  torch.from_dlpack(t) same address: {tt.data_ptr() == t.data_ptr()}; "
          f"after tt[1] = -1, t = {t.tolist()}")
say("np.from_dlpack keeps the DLPack capsule alive as the array's base; the inspector shows it as "
    "the 'DLPack capsule' badge: the producer's memory, held for as long as the array lives.")
figures.append(figure(
    "6. DLPack: zero-copy exchange", t, a, src, src[::-1], rev,
    text="np.from_dlpack(t) and t are one buffer. from_dlpack(src[::-1]) imports NumPy's reversed "
         "view with a negative stride: its element [0] is the last element in memory."))

section("8. the inspector: one picture of who shares which bytes")
from pytensor.widgets import snapshot, to_text  # noqa: E402  (needs no widget libraries)

buf = bytearray(range(16))
base = pytensor.frombuffer(buf, dtype=pytensor.int16)       # 8 elements over the bytearray
grid = base.view(2, 4)
col = grid[:, 1]                                            # a strided view
window = base.unfold(0, 3, 2)                               # overlapping windows
flipped = np.from_dlpack(base)[::-1]                        # NumPy's reversed view of the same bytes
views = [base, grid, col, window, flipped]
names = ["base", "grid", "col", "window", "flipped"]
print("\n".join("  " + line for line in to_text(*snapshot(*views, names=names), width=WIDTH - 2).splitlines()))
figures.append(figure(
    "7. All together: five views of one bytearray", *views, names=names,
    text="Hover a byte to see every element that reads it, in every lane; hover an element to see "
         "the bytes it is made of. flipped is NumPy's reversed view of the same bytes."))
page = write_page(args.html, figures, title="pytensor memory tour")
print(f"  wrote {page} ({page.stat().st_size} bytes): open it in a browser and hover a byte")

print("\nDone: every SHARES line above points into the same bytes as its source.")
