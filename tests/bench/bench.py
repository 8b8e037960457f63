"""Side-by-side benchmark: pytensor, NumPy and torch in one process.

    python tests/bench/bench.py            # full sizes (about 3 minutes, ~3 GB peak)
    python tests/bench/bench.py --quick    # small sizes, fewer rounds (about 40 s)

Every case runs its pytensor, NumPy and torch statements in the same rounds,
rotating the order each round. A time is the median over rounds; a ratio is
the median of the per-round ratios (pytensor's time / the peer's), so both
sides were measured moments apart on this shared 2-core machine. Ratios < 1
mean pytensor is faster. Not part of the test suite (nothing here is asserted).
"""
from __future__ import annotations

import argparse
import platform
import statistics
import subprocess
import sys
import time
import timeit

import numpy as np

import pytensor

try:
    import torch
except ImportError:  # the table then has no torch column
    torch = None


def sized_loop(fn, budget_s, most=1 << 22):
    """``(n, seconds)``: the first timeit loop of ``n`` calls of ``fn`` that takes about ``budget_s``
    (or ``most`` calls), and what it took."""
    timer = timeit.Timer(fn)
    n = 1
    while True:
        t = timer.timeit(n)
        if t >= budget_s or n >= most:
            return n, t
        n *= 2 if t == 0 else max(2, int(budget_s / t * 1.2))


def per_call(fn, budget_s=0.01):
    """Seconds per call of ``fn``: a timeit loop sized to about ``budget_s``."""
    n, t = sized_loop(fn, budget_s)
    return t / n


def best_per_call(fn, n, repeat=5):
    """Seconds per call: the best of ``repeat`` loops of ``n`` calls (the least disturbed by the other
    jobs sharing the cores)."""
    return min(timeit.Timer(fn).repeat(repeat, n)) / n


def once(fn):
    """Seconds for one call (for big operations), result kept alive until the clock stops."""
    t0 = time.perf_counter()
    out = fn()
    t1 = time.perf_counter()
    del out
    return t1 - t0


class Case:
    def __init__(self, group, name, timer, pt, np_=None, th=None, target=""):
        self.group, self.name, self.timer, self.target = group, name, timer, target
        self.fns = {"pytensor": pt, "numpy": np_, "torch": th if torch is not None else None}


def cases(quick):
    big = 1 << (22 if quick else 26)  # bytes for copies and casts: 4 MiB or 64 MiB
    n = big // 4
    side = 2048 if quick else 8192
    a32 = np.random.default_rng(0).random(n, dtype=np.float32)
    b32 = np.random.default_rng(1).random(n, dtype=np.float32)
    small = np.arange(16, dtype=np.float32)
    buf = bytearray(big)
    p_small = pytensor.from_numpy(small)
    t_small = torch.from_numpy(small.copy()) if torch else None
    pa, pb = pytensor.from_numpy(a32), pytensor.from_numpy(b32)
    ta, tb = (torch.from_numpy(a32), torch.from_numpy(b32)) if torch else (None, None)
    pa_dst, ta_dst, na_dst = pytensor.empty(n), (torch.empty(n) if torch else None), np.empty_like(a32)
    sq = np.random.default_rng(2).random((side, side), dtype=np.float32)
    psq, tsq = pytensor.from_numpy(sq), (torch.from_numpy(sq) if torch else None)
    i32 = np.arange(n, dtype=np.int32)
    pi32, ti32 = pytensor.from_numpy(i32), (torch.from_numpy(i32) if torch else None)
    n_list = 100_000 if quick else 1_000_000
    floats = [float(i) * 0.5 for i in range(n_list)]
    rep = np.arange(1000, dtype=np.float32) / 7
    prep, trep = pytensor.from_numpy(rep), (torch.from_numpy(rep) if torch else None)
    p2d, t2d = p_small.view(4, 4), (t_small.view(4, 4) if torch else None)

    call, big_op = per_call, once
    yield Case("zero-copy", "frombuffer(bytearray)", call, lambda: pytensor.frombuffer(buf, dtype=pytensor.uint8),
               lambda: np.frombuffer(buf, dtype=np.uint8),
               lambda: torch.frombuffer(buf, dtype=torch.uint8), "pt/torch ≤ 1.0")
    yield Case("zero-copy", "asarray(ndarray)", call, lambda: pytensor.asarray(a32), lambda: np.asarray(a32),
               lambda: torch.asarray(a32), "pt/torch ≤ 1.0")
    yield Case("zero-copy", "as_tensor(ndarray)", call, lambda: pytensor.as_tensor(a32), lambda: np.asarray(a32),
               lambda: torch.as_tensor(a32), "pt/torch ≤ 1.0")
    yield Case("zero-copy", "from_numpy", call, lambda: pytensor.from_numpy(a32), None,
               lambda: torch.from_numpy(a32), "pt/torch ≤ 1.0")
    yield Case("zero-copy", "from_dlpack(ndarray)", call, lambda: pytensor.from_dlpack(a32),
               lambda: np.from_dlpack(a32), lambda: torch.from_dlpack(a32), "pt/torch ≤ 1.0")
    if torch:
        yield Case("dlpack", "from_dlpack(torch tensor)", call, lambda: pytensor.from_dlpack(ta), None,
                   lambda: torch.from_dlpack(ta), "pt/torch ≤ 0.6")
    yield Case("dlpack", "__dlpack__()", call, lambda: pa.__dlpack__(), lambda: a32.__dlpack__(),
               lambda: ta.__dlpack__(), "pt/torch ≤ 0.5")
    yield Case("views", "x[1:]", call, lambda: p_small[1:], lambda: small[1:], lambda: t_small[1:], "pt/torch ≤ 1.0")
    yield Case("views", "x[::2]", call, lambda: p_small[::2], lambda: small[::2], lambda: t_small[::2],
               "pt/torch ≤ 1.0")
    yield Case("views", "x.T", call, lambda: p2d.T, lambda: small.reshape(4, 4).T, lambda: t2d.T, "pt/torch ≤ 1.0")
    yield Case("views", "reshape", call, lambda: p_small.reshape(4, 4), lambda: small.reshape(4, 4),
               lambda: t_small.reshape(4, 4), "pt/torch ≤ 1.0")
    yield Case("views", "x[3]", call, lambda: p_small[3], lambda: small[3], lambda: t_small[3], "pt/torch ≤ 1.0")
    yield Case("copies", f"tensor(ndarray) {big >> 20} MiB", big_op, lambda: pytensor.tensor(a32),
               lambda: np.array(a32), lambda: torch.tensor(a32), "pt/numpy ≤ 1.11")
    yield Case("copies", f"asarray(copy=True) {big >> 20} MiB", big_op, lambda: pytensor.asarray(a32, copy=True),
               lambda: np.array(a32, copy=True), lambda: torch.asarray(a32, copy=True), "pt/numpy ≤ 1.11")
    yield Case("copies", f"clone {big >> 20} MiB", big_op, lambda: pa.clone(), lambda: a32.copy(),
               lambda: ta.clone(), "pt/numpy ≤ 1.11")
    yield Case("copies", f"copy_ {big >> 20} MiB", big_op, lambda: pa_dst.copy_(pa),
               lambda: np.copyto(na_dst, a32), lambda: ta_dst.copy_(ta), "pt/numpy ≤ 1.11")
    yield Case("casts", "float32 -> float64", big_op, lambda: pa.double(), lambda: a32.astype(np.float64),
               lambda: ta.double(), "pt/numpy ≤ 1.0")
    yield Case("casts", "int32 -> float32", big_op, lambda: pi32.float(), lambda: i32.astype(np.float32),
               lambda: ti32.float(), "pt/numpy ≤ 1.0")
    yield Case("casts", "float32 -> float16", big_op, lambda: pa.half(), lambda: a32.astype(np.float16),
               lambda: ta.half(), "pt/numpy ≤ 1.0")
    yield Case("layout", f"x.T.contiguous() {side}x{side}", big_op, lambda: psq.T.contiguous(),
               lambda: np.ascontiguousarray(sq.T), lambda: tsq.T.contiguous(), "pt/torch ≤ 1.0, pt/numpy ≤ 0.4")
    yield Case("layout", f"x[::2].contiguous() {big >> 20} MiB", big_op, lambda: pa[::2].contiguous(),
               lambda: np.ascontiguousarray(a32[::2]), lambda: ta[::2].contiguous(), "pt/numpy ≤ 1.11")
    yield Case("python", f"tensor(list of {n_list} floats)", big_op, lambda: pytensor.tensor(floats),
               lambda: np.array(floats), lambda: torch.tensor(floats), "pt/numpy ≤ 1.5")
    yield Case("python", "repr of 1000 elements", big_op, lambda: repr(prep), lambda: repr(rep),
               lambda: repr(trep), "pt/torch ≤ 1.0")
    yield Case("elementwise", f"a + b, {n} float32", big_op, lambda: pa + pb, lambda: a32 + b32,
               lambda: ta + tb, "pt/numpy ≤ 1.2")


def import_times(rounds):
    """Median wall time of ``python -c 'import X'`` in fresh interpreters."""
    out = {}
    for name, mod in (("pytensor", "pytensor"), ("numpy", "numpy"), ("torch", "torch")):
        if name == "torch" and torch is None:
            continue
        times = []
        for _ in range(rounds):
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-c", f"import {mod}"], check=True)
            times.append(time.perf_counter() - t0)
        out[name] = statistics.median(times)
    return out


def run(quick):
    rounds = 5 if quick else 9
    rows = []
    libs = ["pytensor", "numpy", "torch"]
    for case in cases(quick):
        times = {lib: [] for lib in libs}
        for r in range(rounds):
            order = libs[r % 3:] + libs[:r % 3]
            for lib in order:
                fn = case.fns[lib]
                if fn is not None:
                    times[lib].append(case.timer(fn))
        med = {lib: statistics.median(v) if v else None for lib, v in times.items()}
        ratio = {}
        for peer in ("numpy", "torch"):
            if times[peer]:
                ratio[peer] = statistics.median(p / q for p, q in zip(times["pytensor"], times[peer]))
        rows.append((case, med, ratio))
        print(f"  measured {case.name}", file=sys.stderr)
    return rows


def median_ms(fn, rounds, clock=time.perf_counter):
    """Median milliseconds of ``rounds`` calls of ``fn``, by ``clock``."""
    out = []
    for _ in range(rounds):
        t0 = clock()
        fn()
        out.append((clock() - t0) * 1e3)
    return statistics.median(out)


def median_cpu_ms(fn, rounds):
    """``median_ms`` in CPU time of this process: on a shared machine, what other processes do shows
    less in it than in wall time (for work that is pure Python, one thread)."""
    return median_ms(fn, rounds, time.process_time)


def cpu_model():
    """The CPU's model name as /proc/cpuinfo gives it (or platform's guess)."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def run_line(quick):
    """The first line of a side-by-side table: when, where, and every library's version."""
    return (f"Run: {time.strftime('%Y-%m-%d %H:%M')} · {platform.machine()} · Python {platform.python_version()} · "
            f"numpy {np.__version__} · torch {torch.__version__ if torch else 'absent'} · "
            f"pytensor {pytensor.__version__} ({pytensor.get_num_threads()} threads)"
            f"{' · --quick' if quick else ''}\n")


def fmt_time(s):
    if s is None:
        return "–"
    for unit, scale in (("s", 1), ("ms", 1e3), ("µs", 1e6), ("ns", 1e9)):
        if s * scale >= 1:
            return f"{s * scale:.3g} {unit}"
    return f"{s * 1e9:.3g} ns"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small sizes and 5 rounds")
    args = ap.parse_args(argv)
    print(run_line(args.quick))
    rows = run(args.quick)
    print("| group | case | pytensor | numpy | torch | pt/numpy | pt/torch | target |")
    print("|---|---|---:|---:|---:|---:|---:|---|")
    for case, med, ratio in rows:
        r_np = f"{ratio['numpy']:.2f}" if "numpy" in ratio else "–"
        r_t = f"{ratio['torch']:.2f}" if "torch" in ratio else "–"
        print(f"| {case.group} | {case.name} | {fmt_time(med['pytensor'])} | {fmt_time(med['numpy'])} | "
              f"{fmt_time(med['torch'])} | {r_np} | {r_t} | {case.target} |")
    imp = import_times(3 if args.quick else 7)
    r_t = f"{imp['pytensor'] / imp['torch']:.2f}" if "torch" in imp else "–"
    print(f"| import | `python -c 'import X'` | {fmt_time(imp['pytensor'])} | {fmt_time(imp['numpy'])} | "
          f"{fmt_time(imp.get('torch'))} | {imp['pytensor'] / imp['numpy']:.2f} | {r_t} | pt/numpy ≤ 1.0 |")
    print("\nRatios are pytensor's time over the peer's (median of per-round ratios): below 1 is faster.")

if __name__ == "__main__":
    main()
