"""Strided copies, swept: pytensor against torch and NumPy, in one process.

    python tests/bench/bench_copy_sweep.py --quick   # 256^2..2048^2, 5 rounds (about 15 s)
    python tests/bench/bench_copy_sweep.py           # 256^2..8192^2, 7 rounds (about 10 minutes, ~3 GB peak)

Cases: ``x.T.contiguous()`` of square matrices, a 3-D ``permute(2, 0, 1)``
and a transposing cast (``dst.copy_(x.T)``, float32 into float64), for
elements of 1, 2, 4 and 8 bytes; the source lives in NumPy's memory (4 KiB
pages, from ``np.random``) or in pytensor's own (its allocator maps big
blocks on 2 MiB boundaries, where the kernel may back them with huge pages),
and every library reads the very same bytes (``from_numpy`` /
``from_dlpack``); each case runs with 1 and with 2 threads
(``pytensor.set_num_threads``, ``torch.set_num_threads``; NumPy is
single-threaded).

Each round runs the three libraries back to back in a rotating order. A time
is the minimum over rounds, a ratio the median of per-round ratios (pytensor's
time over the peer's; below 1 is faster), as in bench.py: on a shared machine
both sides of a ratio were measured moments apart. Not part of the test suite.
"""
from __future__ import annotations

import argparse
import platform
import re
import statistics
import subprocess
import sys
import time

import numpy as np

import pytensor
from bench import cpu_model, once  # this folder is the script's, so on sys.path

try:
    import torch
except ImportError:  # the table then has no torch column
    torch = None

DTYPES = ("uint8", "int16", "float32", "float64")  # 1, 2, 4 and 8 bytes


def cache_sizes():
    """L1d and L2 in bytes as the C library reports them (what copy.c sizes its tiles from)."""
    out = []
    for name in ("LEVEL1_DCACHE_SIZE", "LEVEL2_CACHE_SIZE"):
        try:
            value = subprocess.run(["getconf", name], capture_output=True, text=True, check=True).stdout.strip()
            out.append(int(value) if value else None)
        except (OSError, ValueError, subprocess.CalledProcessError):
            out.append(None)
    return out


def source(shape, dtype, where):
    """A C-contiguous array of random values and the three libraries' views of it."""
    rng = np.random.default_rng(0)
    a = (rng.random(shape) * 100).astype(dtype)
    if where == "pytensor":
        p = pytensor.from_numpy(a).clone()  # pytensor-allocated bytes
        a = p.numpy()
        t = torch.from_dlpack(p) if torch else None
    else:
        p = pytensor.from_numpy(a)
        t = torch.from_numpy(a) if torch else None
    return a, p, t


def cases(quick):
    """(name, dtype, source, {lib: fn}) for every case of the sweep."""
    sides = (256, 1024, 2048) if quick else (256, 512, 1024, 2048, 4096, 8192)
    cube = 64 if quick else 256
    for where in ("numpy", "pytensor"):
        for n in sides:
            for dt in DTYPES:
                a, p, t = source((n, n), dt, where)
                yield (f"{n}x{n} x.T.contiguous()", dt, where,
                       {"pytensor": lambda p=p: p.T.contiguous(), "numpy": lambda a=a: np.ascontiguousarray(a.T),
                        "torch": (lambda t=t: t.T.contiguous()) if torch else None})
            a, p, t = source((n, n), "float32", where)
            pd, nd = pytensor.empty(n, n, dtype=pytensor.float64), np.empty((n, n), np.float64)
            td = torch.empty(n, n, dtype=torch.float64) if torch else None
            yield (f"{n}x{n} copy_(x.T) float32->float64", "float32", where,
                   {"pytensor": lambda p=p, pd=pd: pd.copy_(p.T), "numpy": lambda a=a, nd=nd: np.copyto(nd, a.T),
                    "torch": (lambda t=t, td=td: td.copy_(t.T)) if torch else None})
        for dt in DTYPES:
            a, p, t = source((cube, cube, cube), dt, where)
            yield (f"{cube}^3 permute(2,0,1).contiguous()", dt, where,
                   {"pytensor": lambda p=p: p.permute(2, 0, 1).contiguous(),
                    "numpy": lambda a=a: np.ascontiguousarray(a.transpose(2, 0, 1)),
                    "torch": (lambda t=t: t.permute(2, 0, 1).contiguous()) if torch else None})


def measure(fns, rounds):
    """Per-library lists of times, interleaved round by round in rotating order."""
    libs = [lib for lib, fn in fns.items() if fn is not None]
    for fn in fns.values():  # warm: first touches, allocator caches, ifunc resolution
        if fn is not None:
            once(fn)
    times = {lib: [] for lib in libs}
    for r in range(rounds):
        for lib in libs[r % len(libs):] + libs[:r % len(libs)]:
            times[lib].append(once(fns[lib]))
    return times


def fmt_ms(s):
    return f"{s * 1e3:.3f}" if s is not None else "–"


def run(quick, threads, rounds, match=None):
    rows = []
    for nt in threads:
        pytensor.set_num_threads(nt)
        if torch:
            torch.set_num_threads(nt)
        for name, dt, where, fns in cases(quick):
            if match and not re.search(match, f"{name} {dt} src={where}"):
                continue
            big = "8192" in name or "256^3" in name
            times = measure(fns, max(3, rounds - 2) if big else rounds)
            ratio = {peer: statistics.median(p / q for p, q in zip(times["pytensor"], times[peer]))
                     for peer in ("torch", "numpy") if peer in times}
            rows.append((nt, name, dt, where, {lib: min(v) for lib, v in times.items()}, ratio))
            r_t = f"{ratio['torch']:.2f}" if "torch" in ratio else "–"
            print(f"  {nt} thr {name} {dt} src={where}: pt/torch {r_t}", file=sys.stderr, flush=True)
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="sides up to 2048, a 64^3 permute, 5 rounds")
    ap.add_argument("--threads", default="1,2", help="comma-separated thread counts (default 1,2)")
    ap.add_argument("--rounds", type=int, default=None, help="rounds per case (default 5 quick, 7 full)")
    ap.add_argument("--match", default=None,
                    help="only cases whose 'name dtype src=memory' matches this regular expression")
    args = ap.parse_args(argv)
    threads = [int(x) for x in args.threads.split(",")]
    rounds = args.rounds or (5 if args.quick else 7)
    l1, l2 = cache_sizes()
    only = f" · --match {args.match!r}" if args.match else ""
    print(f"Run: {time.strftime('%Y-%m-%d %H:%M')} · CPU: {cpu_model()} · {platform.machine()} · "
          f"L1d {l1} B, L2 {l2} B (sysconf) · Python {platform.python_version()} · numpy {np.__version__} · "
          f"torch {torch.__version__ if torch else 'absent'} · pytensor {pytensor.__version__}"
          f"{' · --quick' if args.quick else ''} · {rounds} rounds{only}\n")
    rows = run(args.quick, threads, rounds, args.match)
    print("| threads | case | dtype | source memory | pytensor ms | torch ms | numpy ms | pt/torch | pt/numpy |")
    print("|---:|---|---|---|---:|---:|---:|---:|---:|")
    worst = None
    for nt, name, dt, where, best, ratio in rows:
        r_t = ratio.get("torch")
        if r_t is not None and (worst is None or r_t > worst[0]):
            worst = (r_t, nt, name, dt, where)
        print(f"| {nt} | {name} | {dt} | {where} | {fmt_ms(best.get('pytensor'))} | {fmt_ms(best.get('torch'))} | "
              f"{fmt_ms(best.get('numpy'))} | {f'{r_t:.2f}' if r_t is not None else '–'} | "
              f"{ratio['numpy']:.2f} |")
    over = [r for r in rows if r[5].get("torch", 0) > 1.0]
    print(f"\nTimes are minimums over rounds; ratios are medians of per-round ratios (below 1: pytensor faster). "
          f"{len(over)} of {len(rows)} cases above 1.0x torch.")
    if worst:
        print(f"Worst pt/torch: {worst[0]:.2f} ({worst[1]} threads, {worst[2]}, {worst[3]}, {worst[4]} memory).")


if __name__ == "__main__":
    main()
