"""Benchmark: pytensor.from_file against torch.from_file and numpy.memmap.

Not a test (pytest collects only test_*.py). Run it with the installed
package, from outside the source tree so the tree does not shadow it:

    cd /tmp && python /path/to/tests/bench/bench_from_file.py           # 1 GiB file
    cd /tmp && python /path/to/tests/bench/bench_from_file.py --quick   # 64 MiB, fewer rounds

What it measures, for each library, on one file whose page cache is warm:
- creation: one mapping made and dropped, per call (median of timed loops);
  the same over a 4 KiB file gives the large/small O(1) check;
- first-pass read bandwidth: a fresh mapping, then one full pass. The pass is
  the same numpy float32 sum over every library's memory (via ``.numpy()``),
  so only the mapping differs; a second pass over the same mapping shows what
  the first pass paid in page faults; a row with each library's own sum
  (pytensor.sum, torch.sum, ndarray.sum) follows.
Rounds interleave the libraries in a rotating order; figures are medians over
rounds, and each ratio is the median of per-round ratios, so both sides of a
ratio were measured moments apart (see reference/perf_anchors.md on noise).
GB/s means 1e9 bytes of file per second.
"""
from __future__ import annotations

import argparse
import gc
import os
import platform
import statistics
import sys
import tempfile
import time
import timeit

import numpy as np

LIBS = ("pytensor", "torch", "numpy")


def load_libs():
    import pytensor
    import torch
    if os.path.commonpath([os.path.abspath(pytensor.__file__), os.getcwd()]) == os.getcwd() and \
            os.path.isdir(os.path.join(os.getcwd(), "libtensor")):
        sys.exit("run from outside the source tree: the pytensor/ folder here shadows the installed package")
    return pytensor, torch


def make_file(path, nbytes):
    """Writes nbytes of float32 values in 64 MiB chunks, then reads it once (warm cache)."""
    chunk = np.arange((64 << 20) // 4, dtype=np.float32)
    with open(path, "wb") as f:
        left = nbytes
        while left:
            part = chunk[:min(left, chunk.nbytes) // 4]
            f.write(part.tobytes())
            left -= part.nbytes
    with open(path, "rb") as f:
        while f.read(64 << 20):
            pass


def creators(pytensor, torch, path, n, shared):
    """lib -> zero-argument function that maps path (n float32 elements) and returns the object."""
    spath = str(path)
    return {
        "pytensor": lambda: pytensor.from_file(spath, shared, n, dtype=pytensor.float32),
        "torch": lambda: torch.from_file(spath, shared, n, dtype=torch.float32),
        "numpy": lambda: np.memmap(spath, dtype=np.float32, mode="r+" if shared else "c", shape=(n,)),
    }


def as_ndarray(lib, obj):
    return obj if lib == "numpy" else obj.numpy()


def own_sum(lib, obj):
    if lib == "pytensor":
        import pytensor
        return float(pytensor.sum(obj).item())
    return float(obj.sum())


def per_call_us(fn, target_s):
    """Median-free single sample: microseconds per call over a loop of about target_s."""
    timer = timeit.Timer(fn)
    number, _ = timer.autorange()                     # >= 0.2 s worth of calls
    number = max(1, int(number * target_s / 0.2))
    return timer.timeit(number) / number * 1e6


def timed_pass(fn):
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def run(args):
    pytensor, torch = load_libs()
    big_bytes = (64 << 20) if args.quick else (1 << 30)
    rounds = args.rounds or (3 if args.quick else 7)
    loop_s = 0.02 if args.quick else 0.05
    folder = tempfile.mkdtemp(prefix="bench_from_file_", dir=args.dir)
    big, small = os.path.join(folder, "big.bin"), os.path.join(folder, "small.bin")
    make_file(big, big_bytes)
    make_file(small, 4096)
    n_big, n_small = big_bytes // 4, 1024
    expect = float(np.fromfile(big, dtype=np.float32).sum(dtype=np.float64))
    rows = {}                                          # case -> lib -> [per-round figure]

    def record(case, lib, value):
        rows.setdefault(case, {}).setdefault(lib, []).append(value)

    try:
        for r in range(rounds):
            order = LIBS[r % 3:] + LIBS[:r % 3]
            for shared in (False, True):
                make_big = creators(pytensor, torch, big, n_big, shared)
                make_small = creators(pytensor, torch, small, n_small, shared)
                tag = "shared=True / memmap r+" if shared else "shared=False / memmap c"
                for lib in order:
                    record(f"create 1 GiB-class file, {tag} [µs]", lib, per_call_us(make_big[lib], loop_s))
                    record(f"create 4 KiB file, {tag} [µs]", lib, per_call_us(make_small[lib], loop_s))
            make_big = creators(pytensor, torch, big, n_big, False)
            for lib in order:
                obj = make_big[lib]()
                a = as_ndarray(lib, obj)
                first = timed_pass(lambda: a.sum(dtype=np.float32))
                second = timed_pass(lambda: a.sum(dtype=np.float32))
                record("fresh mapping, FIRST pass, numpy sum [GB/s]", lib, big_bytes / first / 1e9)
                record("same mapping, SECOND pass, numpy sum [GB/s]", lib, big_bytes / second / 1e9)
                del a, obj
                gc.collect()
                obj = make_big[lib]()
                holder = {}
                first = timed_pass(lambda: holder.setdefault("s", own_sum(lib, obj)))
                record("fresh mapping, FIRST pass, library's own sum [GB/s]", lib, big_bytes / first / 1e9)
                if abs(holder["s"] - expect) > 1e-3 * abs(expect):
                    sys.exit(f"{lib}: sum {holder['s']} differs from {expect}: the mapping read wrong bytes")
                del obj
                gc.collect()
    finally:
        for p in (big, small):
            os.unlink(p)
        os.rmdir(folder)
    return rows, big_bytes, rounds


def ratio(a, b):
    return statistics.median(x / y for x, y in zip(a, b))


def table(rows, big_bytes):
    size = f"{big_bytes >> 20} MiB" if big_bytes < (1 << 30) else f"{big_bytes >> 30} GiB"
    out = ["| case | pytensor | torch | numpy | pytensor/torch | pytensor/numpy |",
           "|---|---|---|---|---|---|"]
    for case, by_lib in rows.items():
        med = {lib: statistics.median(v) for lib, v in by_lib.items()}
        name = case.replace("1 GiB-class", size)
        fmt = "{:.1f}" if "µs" in case else "{:.2f}"
        out.append(f"| {name} | " + " | ".join(fmt.format(med[lib]) for lib in LIBS) +
                   f" | {ratio(by_lib['pytensor'], by_lib['torch']):.2f}"
                   f" | {ratio(by_lib['pytensor'], by_lib['numpy']):.2f} |")
    # O(1): large/small creation per library, from the same rounds
    for tag in ("shared=False / memmap c", "shared=True / memmap r+"):
        big_case, small_case = f"create 1 GiB-class file, {tag} [µs]", f"create 4 KiB file, {tag} [µs]"
        cells = [f"{ratio(rows[big_case][lib], rows[small_case][lib]):.2f}" for lib in LIBS]
        out.append(f"| O(1) check: create {size} / create 4 KiB, {tag} | " + " | ".join(cells) + " | | |")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="64 MiB file, 3 rounds, shorter timing loops")
    ap.add_argument("--rounds", type=int, default=0, help="rounds (default 7, or 3 with --quick)")
    ap.add_argument("--dir", default=None, help="folder for the test file (default: the temp folder)")
    args = ap.parse_args()
    import pytensor
    import torch
    rows, big_bytes, rounds = run(args)
    print(f"# from_file benchmark: {rounds} rounds, file {big_bytes} bytes, page cache warm")
    print(f"# python {platform.python_version()}, numpy {np.__version__}, torch {torch.__version__} "
          f"({torch.get_num_threads()} threads), pytensor {getattr(pytensor, '__version__', '?')} "
          f"({pytensor.get_num_threads()} threads)")
    print(table(rows, big_bytes))


if __name__ == "__main__":
    main()
