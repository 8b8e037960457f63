"""The Python paths behind pytensor's C fast paths, timed against torch.

    python tests/bench/bench_fallbacks.py            # 9 rounds
    python tests/bench/bench_fallbacks.py --quick    # 5 rounds

The shim (pytensor/_shim_*.h) answers the common case of a constructor, a
view or an index in C and declines the rest to the complete Python path.
bench.py times the common cases; this file times inputs that the C side
declines (or never sees), so that a slow path cannot hide behind a fast one.
Each row names the fast path it falls back from. Every round runs both
libraries back to back in a rotating order; a time is the median over
rounds, a ratio the median of per-round ratios (pytensor / torch; below 1 is
faster). Not part of the test suite: nothing here is asserted.
"""
from __future__ import annotations

import argparse
import statistics
import sys

import numpy as np

import pytensor

try:
    import torch
except ImportError:
    torch = None

from bench import fmt_time, per_call, run_line  # the same timer and header as the side-by-side harness


class Case:
    def __init__(self, behind, name, pt, th):
        self.behind, self.name, self.fns = behind, name, {"pytensor": pt, "torch": th}


def cases():
    a = np.arange(4096, dtype=np.float32).reshape(64, 64)
    p, t = pytensor.from_numpy(a), (torch.from_numpy(a) if torch else None)
    pg = pytensor.ones(64, 64, requires_grad=True)
    tg = torch.ones(64, 64, requires_grad=True) if torch else None
    nested = [[[[float(i + j + k + m) for m in range(4)] for k in range(4)] for j in range(4)] for i in range(4)]
    ints = list(range(1000))
    sliced = a[::2, ::3]
    idx_p = pytensor.tensor([0, 5, 9, 63])
    idx_t = torch.tensor([0, 5, 9, 63]) if torch else None
    mask_p, mask_t = p > 2000, (t > 2000 if torch else None)
    src16 = np.arange(4096, dtype=np.float32).reshape(64, 64)
    p16, t16 = pytensor.from_numpy(src16), (torch.from_numpy(src16) if torch else None)
    pd64 = pytensor.empty(64, 64, dtype=pytensor.float64)
    td64 = torch.empty(64, 64, dtype=torch.float64) if torch else None

    yield Case("reshape/view (C: no copy needed)", "x.T.reshape(-1) (needs a copy)",
               lambda: p.T.reshape(-1), lambda: t.T.reshape(-1))
    yield Case("reshape/view", "x.view(-1) on a requires_grad tensor", lambda: pg.view(-1), lambda: tg.view(-1))
    yield Case("x[i], x[a:b:c] on dim 0", "x[:, 3]", lambda: p[:, 3], lambda: t[:, 3])
    yield Case("x[i], x[a:b:c] on dim 0", "x[..., ::2]", lambda: p[..., ::2], lambda: t[..., ::2])
    yield Case("x[i], x[a:b:c] on dim 0", "x[None]", lambda: p[None], lambda: t[None])
    yield Case("x[i], x[a:b:c] on dim 0", "x[3] on a requires_grad tensor", lambda: pg[3], lambda: tg[3])
    yield Case("x[i], x[a:b:c] on dim 0", "x[index tensor] (gather)", lambda: p[idx_p], lambda: t[idx_t])
    yield Case("x[i], x[a:b:c] on dim 0", "x[bool mask]", lambda: p[mask_p], lambda: t[mask_t])
    yield Case("none (control: taken in C)", "tensor(4-deep nest of 256 floats)", lambda: pytensor.tensor(nested),
               lambda: torch.tensor(nested))
    yield Case("tensor(list) in C", "tensor([[]]) (empty dims)", lambda: pytensor.tensor([[]]),
               lambda: torch.tensor([[]]))
    yield Case("none (control: taken in C)", "tensor(1000 ints)", lambda: pytensor.tensor(ints),
               lambda: torch.tensor(ints))
    yield Case("from_numpy (shared)", "tensor(ndarray[::2, ::3]) (strided copy)", lambda: pytensor.tensor(sliced),
               lambda: torch.tensor(sliced))
    yield Case("copy_ same dtype", "copy_(x.T) float32 -> float64, 64x64", lambda: pd64.copy_(p16.T),
               lambda: td64.copy_(t16.T))
    yield Case("contiguous() in C", "x.T.to(float64) (layout kept, Python)", lambda: p16.T.to(pytensor.float64),
               lambda: t16.T.to(torch.float64))


def run(rounds):
    rows = []
    for case in cases():
        times = {lib: [] for lib in case.fns}
        for r in range(rounds):
            for lib in (("pytensor", "torch") if r % 2 == 0 else ("torch", "pytensor")):
                if lib == "torch" and torch is None:
                    continue
                times[lib].append(per_call(case.fns[lib]))
        med = {lib: statistics.median(v) if v else None for lib, v in times.items()}
        ratio = statistics.median(p / q for p, q in zip(times["pytensor"], times["torch"])) if times["torch"] else None
        rows.append((case, med, ratio))
        print(f"  measured {case.name}", file=sys.stderr)
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="5 rounds instead of 9")
    args = ap.parse_args(argv)
    print(run_line(args.quick))
    rows = run(5 if args.quick else 9)
    print("| fast path it falls back from | case | pytensor | torch | pt/torch |")
    print("|---|---|---:|---:|---:|")
    for case, med, ratio in rows:
        print(f"| {case.behind} | {case.name} | {fmt_time(med['pytensor'])} | {fmt_time(med['torch'])} | "
              f"{f'{ratio:.2f}' if ratio is not None else '–'} |")
    print("\nRatios are pytensor's time over torch's (median of per-round ratios): below 1 is faster.")


if __name__ == "__main__":
    main()
