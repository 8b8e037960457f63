"""Sums over one dimension of 10^5-element float32 tensors of several shapes,
side by side with torch in one process, one thread each (issue 27, the
outer-dim sum). Timing is bench_paths' (a batch of about 3 ms, 5 rounds with
the libraries' order rotating, the minimum per call).

    cd /tmp && python tests/bench/bench_sum_dims.py [--repeat 3] [--only 'sum\\(0\\)']

Each run prints one Markdown table; --repeat prints the ratio column of
every repeat, to show what is noise. Nothing is asserted: it reports.
"""
from __future__ import annotations

import argparse
import re

import numpy as np
import torch

import pytensor
from bench_paths import cpu_model, time_path  # this folder is the script's, so on sys.path

SHAPES = [(100, 1000), (1000, 100), (10, 10000), (100000, 1), (1, 100000), (1000, 1000), (1000, 10000)]
CALLS = {"sum(0)": lambda x: x.sum(0), "sum(1)": lambda x: x.sum(1), "sum(-1)": lambda x: x.sum(-1),
         "mean(0)": lambda x: x.mean(0)}


def measure(only):
    rows = []
    rng = np.random.default_rng(0)
    for shape in SHAPES:
        a = rng.standard_normal(shape).astype(np.float32)
        pt, th = pytensor.from_numpy(a.copy()), torch.from_numpy(a.copy())
        for name, call in CALLS.items():
            label = f"{shape[0]}x{shape[1]} {name}"
            if only and not re.search(only, label):
                continue
            t = time_path({"pytensor": lambda c=call: c(pt), "torch": lambda c=call: c(th)})
            rows.append((label, t["pytensor"], t["torch"]))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    torch.set_num_threads(1)
    pytensor.set_num_threads(1)
    runs = [measure(args.only) for _ in range(args.repeat)]
    print(f"CPU: {cpu_model()}; torch {torch.__version__}; 1 thread each")
    print("| shape, call | pytensor | torch | pt/torch" + " | rerun" * (len(runs) - 1) + " |")
    print("|---|---:|---:|---:" + "|---:" * (len(runs) - 1) + "|")
    for i, (label, p, t) in enumerate(runs[0]):
        again = "".join(f" | {r[i][1] / r[i][2]:.2f}" for r in runs[1:])
        print(f"| {label} | {p * 1e6:.2f} µs | {t * 1e6:.2f} µs | {p / t:.2f}{again} |")


if __name__ == "__main__":
    main()
