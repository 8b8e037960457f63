"""rand and randn against torch and NumPy at 10^2, 10^5 and 10^7 elements.

    python tests/bench/bench_random.py              # 7 rounds
    python tests/bench/bench_random.py --rounds 3
    python tests/bench/bench_random.py --threads 1  # every library on one thread

Each round times every case once per library (the best of 5 short loops) in
an order that rotates between rounds; a cell is the median over rounds of
that best, so all three libraries were measured moments apart on this shared
machine. pytensor and torch draw from the same algorithm (torch's CPU
generator, same numbers for the same seed); NumPy's ``default_rng`` (PCG64,
ziggurat normals) is the fastest common alternative, not the same numbers.
Not part of the test suite (nothing here is asserted).
"""
from __future__ import annotations

import argparse
import platform
import statistics
import timeit

import numpy as np
import torch

import pytensor

SIZES = (10**2, 10**5, 10**7)


def loops_for(fn, budget_s=0.02):
    """How many calls of ``fn`` take about ``budget_s``."""
    timer = timeit.Timer(fn)
    n = 1
    while True:
        t = timer.timeit(n)
        if t >= budget_s or n >= 1 << 20:
            return n
        n *= 2 if t == 0 else max(2, int(budget_s / t * 1.2))


def per_call(fn, n, repeat=5):
    return min(timeit.Timer(fn).repeat(repeat, n)) / n


def cases():
    rng = np.random.default_rng(0)
    out = []
    for n in SIZES:
        for dtype in ("float32", "float64"):
            pd, td, nd = getattr(pytensor, dtype), getattr(torch, dtype), np.dtype(dtype)
            out.append((f"rand({n:.0e})", dtype, {
                "pytensor": lambda n=n, d=pd: pytensor.rand(n, dtype=d),
                "torch": lambda n=n, d=td: torch.rand(n, dtype=d),
                "numpy": lambda n=n, d=nd: rng.random(n, dtype=d),
            }))
            out.append((f"randn({n:.0e})", dtype, {
                "pytensor": lambda n=n, d=pd: pytensor.randn(n, dtype=d),
                "torch": lambda n=n, d=td: torch.randn(n, dtype=d),
                "numpy": lambda n=n, d=nd: rng.standard_normal(n, dtype=d),
            }))
    return out


def fmt(seconds):
    return f"{seconds * 1e6:.3g} µs" if seconds < 1e-3 else f"{seconds * 1e3:.3g} ms"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--threads", type=int, default=None, help="threads for all three libraries")
    args = ap.parse_args()
    if args.threads:
        pytensor.set_num_threads(args.threads)
        torch.set_num_threads(args.threads)
    pytensor.manual_seed(0)
    torch.manual_seed(0)
    table = cases()
    libs = ("pytensor", "torch", "numpy")
    loops = {(name, dt, lib): loops_for(fns[lib]) for name, dt, fns in table for lib in libs}
    times = {k: [] for k in loops}
    for r in range(args.rounds):
        order = libs[r % 3:] + libs[:r % 3]
        for name, dt, fns in table:
            for lib in order:
                times[(name, dt, lib)].append(per_call(fns[lib], loops[(name, dt, lib)]))
    print(f"CPU: {platform.processor() or platform.machine()}; threads: pytensor {pytensor.get_num_threads()}, "
          f"torch {torch.get_num_threads()}; torch {torch.__version__}, NumPy {np.__version__}; {args.rounds} rounds")
    print("| case | dtype | pytensor | torch | NumPy | pt/torch | pt/NumPy |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for name, dt, _ in table:
        med = {lib: statistics.median(times[(name, dt, lib)]) for lib in libs}
        print(f"| {name} | {dt} | {fmt(med['pytensor'])} | {fmt(med['torch'])} | {fmt(med['numpy'])} | "
              f"{med['pytensor'] / med['torch']:.2f} | {med['pytensor'] / med['numpy']:.2f} |")


if __name__ == "__main__":
    main()
