"""rand, randn, randint and randperm against torch and NumPy at 10^2, 10^5 and
10^7 elements, then the per-call cost of the generator's own calls.

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
import statistics

import numpy as np
import torch

import pytensor
from bench import best_per_call, cpu_model, sized_loop  # this folder is the script's, so on sys.path

SIZES = (10**2, 10**5, 10**7)


def loops_for(fn, budget_s=0.02):
    """How many calls of ``fn`` take about ``budget_s``."""
    return sized_loop(fn, budget_s, most=1 << 20)[0]


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
        for high in (100, 2**40):  # a 32-bit draw, a 64-bit one
            out.append((f"randint(0, {high}, ({n:.0e},))", "int64", {
                "pytensor": lambda n=n, h=high: pytensor.randint(0, h, (n,)),
                "torch": lambda n=n, h=high: torch.randint(0, h, (n,)),
                "numpy": lambda n=n, h=high: rng.integers(0, h, n),
            }))
        out.append((f"randperm({n:.0e})", "int64", {
            "pytensor": lambda n=n: pytensor.randperm(n),
            "torch": lambda n=n: torch.randperm(n),
            "numpy": lambda n=n: rng.permutation(n),
        }))
    # the per-call cost: the generator's own calls, and small fills through a Generator
    pg, tg = pytensor.Generator(), torch.Generator()
    ps, ts = pytensor.get_rng_state(), torch.get_rng_state()
    pw, tw = pytensor.empty(100), torch.empty(100)
    out += [
        ("Generator()", "-", {"pytensor": pytensor.Generator, "torch": torch.Generator,
                              "numpy": lambda: np.random.default_rng(0)}),
        ("Generator.manual_seed(1)", "-", {"pytensor": lambda: pg.manual_seed(1), "torch": lambda: tg.manual_seed(1)}),
        ("manual_seed(1)", "-", {"pytensor": lambda: pytensor.manual_seed(1), "torch": lambda: torch.manual_seed(1)}),
        ("initial_seed()", "-", {"pytensor": pytensor.initial_seed, "torch": torch.initial_seed}),
        ("get_rng_state()", "-", {"pytensor": pytensor.get_rng_state, "torch": torch.get_rng_state}),
        ("set_rng_state(s)", "-", {"pytensor": lambda: pytensor.set_rng_state(ps),
                                   "torch": lambda: torch.set_rng_state(ts)}),
        ("rand(100, generator=g)", "float32", {"pytensor": lambda: pytensor.rand(100, generator=pg),
                                               "torch": lambda: torch.rand(100, generator=tg)}),
        ("w.uniform_() of 100", "float32", {"pytensor": pw.uniform_, "torch": tw.uniform_}),
        ("w.normal_() of 100", "float32", {"pytensor": pw.normal_, "torch": tw.normal_}),
    ]
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
    loops = {(name, dt, lib): loops_for(fns[lib]) for name, dt, fns in table for lib in libs if lib in fns}
    times = {k: [] for k in loops}
    for r in range(args.rounds):
        order = libs[r % 3:] + libs[:r % 3]
        for name, dt, fns in table:
            for lib in order:
                if lib in fns:
                    times[(name, dt, lib)].append(best_per_call(fns[lib], loops[(name, dt, lib)]))
    print(f"CPU: {cpu_model()}; threads: pytensor {pytensor.get_num_threads()}, "
          f"torch {torch.get_num_threads()}; torch {torch.__version__}, NumPy {np.__version__}; {args.rounds} rounds")
    print("| case | dtype | pytensor | torch | NumPy | pt/torch | pt/NumPy |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for name, dt, fns in table:
        med = {lib: statistics.median(times[(name, dt, lib)]) for lib in libs if lib in fns}
        np_cells = (fmt(med["numpy"]), f"{med['pytensor'] / med['numpy']:.2f}") if "numpy" in med else ("-", "-")
        print(f"| {name} | {dt} | {fmt(med['pytensor'])} | {fmt(med['torch'])} | {np_cells[0]} | "
              f"{med['pytensor'] / med['torch']:.2f} | {np_cells[1]} |")


if __name__ == "__main__":
    main()
