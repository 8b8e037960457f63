"""A memory tour: which pytensor operations share bytes and which copy.

Run:  python examples/memory_tour.py [--html PATH]
Every line prints real addresses, so you can check each claim yourself. The
last section draws the aliasing with the memory inspector and writes it as a
self-contained HTML page (default: memory_tour.html in the current folder;
open it in any browser, no kernel or network needed).
"""
import argparse
import array
import os
import tempfile

import numpy as np

import pytensor


def shares(a, b):
    """True when two objects' bytes overlap (tensors, arrays or buffers)."""
    def span(x):
        if isinstance(x, pytensor.Tensor):
            s = x.untyped_storage()
            return s.data_ptr(), s.data_ptr() + s.nbytes()
        if isinstance(x, np.ndarray):
            lo = x.__array_interface__["data"][0]
            return lo, lo + x.nbytes
        raise TypeError(type(x))
    (a0, a1), (b0, b1) = span(a), span(b)
    return a0 < b1 and b0 < a1


def show(title, verdict, t):
    print(f"  {title:<46} {verdict:<7} {t.describe()}")


def section(name):
    print(f"\n== {name}")


parser = argparse.ArgumentParser(description="Which pytensor operations share bytes and which copy.")
parser.add_argument("--html", default="memory_tour.html", help="where to write the inspector's picture")
args = parser.parse_args()


section("views: one storage, many shapes")
base = pytensor.arange(12, dtype=pytensor.int32)
print(f"  base = {base}")
grid = base.view(3, 4)
for title, v in [("base.view(3, 4)", grid), ("grid[1]", grid[1]), ("grid[:, 2]", grid[:, 2]),
                 ("grid[::2, 1::2]", grid[::2, 1::2]), ("grid.T", grid.T), ("grid[1:].unsqueeze(0)", grid[1:].unsqueeze(0)),
                 ("grid[0:1].expand(3, 4)  (stride 0)", grid[0:1].expand(3, 4)),
                 ("base.unfold(0, 4, 2)  (sliding window)", base.unfold(0, 4, 2))]:
    show(title, "SHARES" if v.untyped_storage() is base.untyped_storage() else "copies", v)
grid[:, 2] = -1
print(f"  after grid[:, 2] = -1, base = {base}")
for title, c in [("grid.T.contiguous()", grid.T.contiguous()), ("grid.clone()", grid.clone()),
                 ("grid.float()", grid.float()), ("grid[[0, 2]]  (advanced index)", grid[[0, 2]])]:
    show(title, "SHARES" if c.untyped_storage() is base.untyped_storage() else "copies", c)

section("NumPy: from_numpy / as_tensor / asarray share, tensor copies")
a = np.arange(6, dtype=np.float64).reshape(2, 3)
for title, fn in [("from_numpy(a)", lambda: pytensor.from_numpy(a)),
                  ("as_tensor(a)", lambda: pytensor.as_tensor(a)),
                  ("asarray(a)", lambda: pytensor.asarray(a)),
                  ("asarray(a, dtype=float32)", lambda: pytensor.asarray(a, dtype=pytensor.float32)),
                  ("asarray(a, copy=True)", lambda: pytensor.asarray(a, copy=True)),
                  ("tensor(a)", lambda: pytensor.tensor(a))]:
    t = fn()
    show(title, "SHARES" if shares(t, a) else "copies", t)
z = np.array(2.5)
for title, fn in [("as_tensor(0-d array)", pytensor.as_tensor),
                  ("asarray(0-d array)  (0-d is always copied)", pytensor.asarray)]:
    t = fn(z)
    show(title, "SHARES" if shares(t, z) else "copies", t)
src_t = pytensor.zeros(3)
print(f"  a tensor comes back as itself: asarray(t) is t: {pytensor.asarray(src_t) is src_t}, "
      f"as_tensor(t) is t: {pytensor.as_tensor(src_t) is src_t}")
t = pytensor.from_numpy(a)
t[0, 0] = 100.0
print(f"  after t[0, 0] = 100 through from_numpy: a[0, 0] = {a[0, 0]}")
back = t.numpy()
print(f"  t.numpy() shares: {np.shares_memory(back, a)}; writeable: {back.flags.writeable}")
ro = np.arange(3.0)
ro.flags.writeable = False
t_ro = pytensor.from_numpy(ro)
try:
    t_ro[0] = 1.0
except RuntimeError as e:
    print(f"  a read-only array gives a read-only tensor: {type(e).__name__}: {str(e)[:60]}...")

section("buffers: frombuffer and asarray read raw bytes in place")
buf = bytearray(8)
t = pytensor.frombuffer(buf, dtype=pytensor.int16)
t[1] = 0x0102
show("frombuffer(bytearray(8), dtype=int16)", "SHARES" if shares(t, np.frombuffer(buf, np.uint8)) else "copies", t)
print(f"  after t[1] = 0x0102: buf = {bytes(buf)!r}")
try:
    buf.extend(b"!")
except BufferError:
    print("  buf.extend() is refused while a tensor uses it (torch allows it and leaves the tensor dangling)")
arr = array.array("f", [1.5, 2.5])
t = pytensor.asarray(arr, dtype=pytensor.float32)
t[0] = -1
print(f"  asarray(array.array('f', ...)) shares: array is now {arr.tolist()}")
for title, fn in [("as_tensor(bytearray)  (read as values)", pytensor.as_tensor),
                  ("tensor(bytearray)", pytensor.tensor)]:
    src_b = bytearray(b"\x01\x02")
    t = fn(src_b)
    show(title, "SHARES" if shares(t, np.frombuffer(src_b, np.uint8)) else "copies", t)
frozen = pytensor.frombuffer(b"\x01\x02\x03\x04", dtype=pytensor.uint8)
print(f"  frombuffer(bytes) is read-only: {frozen.is_readonly()} (torch warns and lets you write)")

section("Python data is always copied")
src = [[1, 2], [3, 4]]
t = pytensor.tensor(src)
print(f"  tensor({src}) -> {t!r}, dtype inferred {t.dtype}")
print(f"  tensor([1, 2.5]).dtype = {pytensor.tensor([1, 2.5]).dtype}; tensor([True, 1]).dtype = "
      f"{pytensor.tensor([True, 1]).dtype}")

section("files: from_file maps a file's bytes, it does not read them")
with tempfile.TemporaryDirectory() as folder:
    path = os.path.join(folder, "weights.bin")
    np.arange(6, dtype=np.float32).tofile(path)
    m = pytensor.from_file(path, shared=True, dtype=pytensor.float32)    # size=None: the whole file
    show("from_file(path, shared=True)", "SHARES", m)
    m[1:3] = -1
    print(f"  after m[1:3] = -1 the file holds {np.fromfile(path, dtype=np.float32).tolist()}")
    print(f"  storage: {m.untyped_storage().provenance}, mapped_file = {m.untyped_storage().mapped_file}")
    p = pytensor.from_file(path, shared=False, dtype=pytensor.float32)    # private: copy-on-write
    p[0] = 100
    print(f"  a private map's write stays in memory: p[0] = {p[0].item()}, "
          f"file[0] = {np.fromfile(path, dtype=np.float32)[0]}")
    grown = pytensor.from_file(path, shared=True, size=8, dtype=pytensor.float32)
    print(f"  shared with size=8 extends the file to {os.path.getsize(path)} bytes, old bytes kept: "
          f"{grown.tolist()}")
    del m, p, grown  # unmapped here; a view or a DLPack export would keep the mapping alive


section("DLPack: zero-copy exchange with numpy and torch")
t = pytensor.arange(4.0)
a = np.from_dlpack(t)
a[0] = 42.0
print(f"  np.from_dlpack(t) shares: {shares(t, a)}; after a[0] = 42, t = {t}")
rev = pytensor.from_dlpack(a[::-1])
print(f"  from_dlpack(a[::-1]) shares: {shares(rev, a)}; stride {rev.stride()}, values {rev.tolist()}")
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
    print(f"  torch.from_dlpack(t) same address: {tt.data_ptr() == t.data_ptr()}; after tt[1] = -1, t = {t}")

section("the inspector: one picture of who shares which bytes")
from pytensor.widgets import snapshot, to_text, write_html  # noqa: E402  (needs no widget libraries)

buf = bytearray(range(16))
base = pytensor.frombuffer(buf, dtype=pytensor.int16)       # 8 elements over the bytearray
grid = base.view(2, 4)
col = grid[:, 1]                                            # a strided view
window = base.unfold(0, 3, 2)                               # overlapping windows
flipped = np.from_dlpack(base)[::-1]                        # NumPy's reversed view of the same bytes
views = [base, grid, col, window, flipped]
names = ["base", "grid", "col", "window", "flipped"]
print("\n".join("  " + line for line in to_text(*snapshot(*views, names=names)).splitlines()))
page = write_html(args.html, *views, names=names, title="pytensor memory tour")
print(f"  wrote {page} ({page.stat().st_size} bytes): open it in a browser and hover a byte")

print("\nDone: every SHARES line above points into the same bytes as its source.")
