"""A memory tour: which pytensor operations share bytes and which copy.

Run:  python examples/memory_tour.py
Every line prints real addresses, so you can check each claim yourself.
"""
import array

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
show("frombuffer(bytearray(8), dtype=int16)", "SHARES", t)
print(f"  after t[1] = 0x0102: buf = {bytes(buf)!r}")
try:
    buf.extend(b"!")
except BufferError:
    print("  buf.extend() is refused while a tensor uses it (torch allows it and leaves the tensor dangling)")
arr = array.array("f", [1.5, 2.5])
t = pytensor.asarray(arr, dtype=pytensor.float32)
t[0] = -1
print(f"  asarray(array.array('f', ...)) shares: array is now {arr.tolist()}")
frozen = pytensor.frombuffer(b"\x01\x02\x03\x04", dtype=pytensor.uint8)
print(f"  frombuffer(bytes) is read-only: {frozen.is_readonly()} (torch warns and lets you write)")

section("Python data is always copied")
src = [[1, 2], [3, 4]]
t = pytensor.tensor(src)
print(f"  tensor({src}) -> {t!r}, dtype inferred {t.dtype}")
print(f"  tensor([1, 2.5]).dtype = {pytensor.tensor([1, 2.5]).dtype}; tensor([True, 1]).dtype = "
      f"{pytensor.tensor([True, 1]).dtype}")

print("\nDone: every SHARES line above points into the same bytes as its source.")
