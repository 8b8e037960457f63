"""Advanced indexing against torch and NumPy, single-threaded, in one process.

    python tests/bench/bench_indexing.py            # 10^2, 10^5, 10^7 elements (about a minute)
    python tests/bench/bench_indexing.py --quick    # 10^2 and 10^5 only

Paths: ``x[mask]``, ``x[mask] = 0``, ``x[idx]``, ``x[:, idx]`` and
``x[idx] = row`` on float32 data of n elements (a matrix of n/100 x 100 for
the row and column paths, a vector for the mask paths). The mask is random
with half its elements true; ``idx`` picks n/10 entries (rows or columns)
at random. Every library reads the same values (each from its own copy, as a
user would hold them). pytensor and torch run with one thread
(``set_num_threads(1)``; NumPy's indexing is single-threaded anyway).

Each round times the three libraries back to back in a rotating order; a
call is repeated to fill about 5 ms (once for a slow one). A time is the
minimum over rounds, a ratio the median of the per-round ratios (pytensor's
time over the peer's: below 1 is faster). Not part of the test suite.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np

import pytensor

try:
    import torch
except ImportError:  # the table then has no torch column
    torch = None


def per_call(fn, budget=0.005):
    """Seconds per call of fn, repeating it to fill about ``budget`` seconds."""
    t0 = time.perf_counter()
    fn()
    once = time.perf_counter() - t0
    reps = max(1, min(10000, int(budget / max(once, 1e-9))))
    t0 = time.perf_counter()
    for _ in range(reps):
        fn()
    return (time.perf_counter() - t0) / reps


def paths(n):
    """(name, {library: callable}) for each path at n elements."""
    rng = np.random.default_rng(n)
    cols = 100 if n >= 100 else 10
    rows = n // cols
    vec = rng.random(n, dtype=np.float32)
    mat = vec.reshape(rows, cols)
    mask = rng.random(n) < 0.5
    ridx = rng.integers(0, rows, max(1, rows // 10))
    cidx = rng.integers(0, cols, max(1, cols // 10))
    row = rng.random(cols, dtype=np.float32)
    libs = {"numpy": (np, lambda a: a.copy())}
    libs["pytensor"] = (pytensor, pytensor.tensor)
    if torch is not None:
        libs["torch"] = (torch, lambda a: torch.tensor(a))
    made = {}
    for name, (_, conv) in libs.items():
        made[name] = dict(vec=conv(vec), mat=conv(mat), mask=conv(mask), ridx=conv(ridx), cidx=conv(cidx),
                          row=conv(row), vec_w=conv(vec), mat_w=conv(mat))
    out = []

    def add(label, make):
        out.append((label, {name: make(d) for name, d in made.items()}))

    add("x[mask]", lambda d: lambda: d["vec"][d["mask"]])
    add("x[mask] = 0", lambda d: lambda: d["vec_w"].__setitem__(d["mask"], 0))
    add("x[idx]", lambda d: lambda: d["mat"][d["ridx"]])
    add("x[:, idx]", lambda d: lambda: d["mat"][:, d["cidx"]])
    add("x[idx] = row", lambda d: lambda: d["mat_w"].__setitem__(d["ridx"], d["row"]))
    return out


def run(sizes, rounds):
    pytensor.set_num_threads(1)
    if torch is not None:
        torch.set_num_threads(1)
    rows = []
    for n in sizes:
        for label, fns in paths(n):
            names = list(fns)
            best = {k: float("inf") for k in names}
            ratios = {k: [] for k in names if k != "pytensor"}
            for r in range(rounds):
                order = names[r % len(names):] + names[:r % len(names)]
                got = {k: per_call(fns[k]) for k in order}
                for k, v in got.items():
                    best[k] = min(best[k], v)
                for k in ratios:
                    ratios[k].append(got["pytensor"] / got[k])
            rows.append((n, label, best, {k: statistics.median(v) for k, v in ratios.items()}))
            print(f"{n:>9} {label:14} " + " ".join(f"{k}={best[k] * 1e6:10.1f}us" for k in names) +
                  "  " + " ".join(f"pt/{k}={v:.2f}" for k, v in rows[-1][3].items()), file=sys.stderr)
    return rows


def fmt(seconds):
    us = seconds * 1e6
    return f"{us:.3g} µs" if us < 1000 else f"{us / 1000:.3g} ms"


def table(rows):
    head = "| n | path | pytensor | torch | NumPy | pt/torch | pt/NumPy |\n|---:|---|---:|---:|---:|---:|---:|"
    lines = [head]
    for n, label, best, ratio in rows:
        lines.append(f"| 10^{len(str(n)) - 1} | `{label}` | {fmt(best['pytensor'])} | "
                     f"{fmt(best['torch']) if 'torch' in best else '-'} | {fmt(best['numpy'])} | "
                     f"{ratio.get('torch', float('nan')):.2f} | {ratio['numpy']:.2f} |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    sizes = (10**2, 10**5) if args.quick else (10**2, 10**5, 10**7)
    print(table(run(sizes, args.rounds)))


if __name__ == "__main__":
    main()
