"""What recording provenance costs: the view and constructor cases of bench.py
with recording on and off, in one process.

    python tests/bench/bench_provenance.py            # 21 rounds (about 1 minute)
    python tests/bench/bench_provenance.py --rounds 7
    python tests/bench/bench_provenance.py --baseline DIR   # also against another build

``--baseline DIR`` names a folder holding an importable ``pytensor`` package
built from another commit (say, the one before provenance existed): the
cases then also run, recording on, in fresh processes that alternate between
that build and this one, and the table gains their ratio, which includes
what turning recording off leaves in place. Build both the same way (and
name this one's folder with ``--current DIR``): an editable install against
a plain build differs by more than what is measured here.

Each round times every case twice (the best of 5 short loops), once with
recording on and once off, in an order that alternates between rounds; a case's ratio is the median of its
per-round ratios (on / off), so both sides were measured moments apart on
this shared machine. The target is ≤ 1.05. Turning recording off skips all
of it (one predictable branch per site); what stays is the cost of passing
the step's code to the C constructor, paid in both columns. Not part of the
test suite (nothing here is asserted).
"""
from __future__ import annotations

import argparse
import json
import platform
import statistics
import subprocess
import sys

if "--import-from" in sys.argv:  # a baseline process: import pytensor from the given folder only
    sys.meta_path = [f for f in sys.meta_path if "editable_loader" not in type(f).__module__]
    sys.path.insert(0, sys.argv[sys.argv.index("--import-from") + 1])

import numpy as np

import pytensor
from bench import best_per_call, sized_loop  # this folder is the script's, so on sys.path
_provenance = getattr(pytensor, "_provenance", None)  # absent in a build from before provenance


def loops_for(fn, budget_s=0.002):
    """How many calls of ``fn`` take about ``budget_s``."""
    return sized_loop(fn, budget_s)[0]


def cases():
    small = np.arange(16, dtype=np.float32)
    a32 = np.random.default_rng(0).random(1 << 20, dtype=np.float32)
    buf = bytearray(1 << 20)
    x = pytensor.from_numpy(small)
    x2d = x.view(4, 4)
    row = [1.0, 2.0, 3.0, 4.0]
    return [
        ("views", "x[1:]", lambda: x[1:]),
        ("views", "x[::2]", lambda: x[::2]),
        ("views", "x.T", lambda: x2d.T),
        ("views", "reshape", lambda: x.reshape(4, 4)),
        ("views", "x[3]", lambda: x[3]),
        ("constructors", "from_numpy", lambda: pytensor.from_numpy(a32)),
        ("constructors", "asarray(ndarray)", lambda: pytensor.asarray(a32)),
        ("constructors", "frombuffer(bytearray)", lambda: pytensor.frombuffer(buf, dtype=pytensor.uint8)),
        ("constructors", "from_dlpack(ndarray)", lambda: pytensor.from_dlpack(a32)),
        ("constructors", "tensor(list of 4 floats)", lambda: pytensor.tensor(row)),
    ]


def run(rounds):
    rows = []
    was = _provenance.is_enabled()
    try:
        for group, name, fn in cases():
            on, off = [], []
            n = loops_for(fn)
            for r in range(rounds):
                for flag in ((True, False) if r % 2 == 0 else (False, True)):
                    _provenance.set_enabled(flag)
                    (on if flag else off).append(best_per_call(fn, n))
            ratio = statistics.median(a / b for a, b in zip(on, off))
            rows.append((group, name, statistics.median(on), statistics.median(off), ratio))
            print(f"  measured {name}", file=sys.stderr)
    finally:
        _provenance.set_enabled(was)
    return rows


def emit():
    """One round of every case, as JSON on stdout: the baseline comparison's child process."""
    print(json.dumps({name: best_per_call(fn, loops_for(fn)) for _, name, fn in cases()}))


def against(baseline, current, rounds):
    """{case: (median baseline time, median time now, median of per-round ratios now / baseline)}."""
    emit_cmd = [sys.executable, __file__, "--emit"]
    here = emit_cmd + (["--import-from", current] if current else [])
    there = emit_cmd + ["--import-from", baseline]
    now, base = [], []
    for r in range(rounds):
        for cmd in ((here, there) if r % 2 == 0 else (there, here)):
            out = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
            (now if cmd is here else base).append(out)
        print(f"  baseline round {r + 1}", file=sys.stderr)
    return {k: (statistics.median(b[k] for b in base), statistics.median(n[k] for n in now),
                statistics.median(n[k] / b[k] for n, b in zip(now, base))) for k in now[0]}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=21)
    ap.add_argument("--baseline", metavar="DIR", help="a folder holding another build's pytensor package")
    ap.add_argument("--current", metavar="DIR", help="with --baseline: this commit built the same way, in DIR "
                    "(default: the installed pytensor)")
    ap.add_argument("--emit", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--import-from", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.emit:
        return emit()
    print(f"Run: {platform.machine()} · {platform.python_version()} · numpy {np.__version__} · "
          f"pytensor {pytensor.__version__} · {args.rounds} rounds\n")
    rows = run(args.rounds)
    vs = against(args.baseline, args.current, max(3, args.rounds // 2)) if args.baseline else {}
    extra = " | baseline | now/baseline" if vs else ""
    print(f"| group | case | recording on | recording off | on/off{extra} | target |")
    print("|---|---|---:|---:|---:|" + ("---:|---:|" if vs else "") + "---|")
    for group, name, t_on, t_off, ratio in rows:
        cols = f" | {vs[name][0] * 1e9:.0f} ns | {vs[name][2]:.3f}" if vs else ""
        print(f"| {group} | {name} | {t_on * 1e9:.0f} ns | {t_off * 1e9:.0f} ns | {ratio:.3f}{cols} | ≤ 1.05 |")
    print("\non/off is the median of per-round ratios: 1.00 means recording costs nothing measurable."
          + ("\nnow/baseline: recording on, fresh processes alternating between the two builds." if vs else ""))


if __name__ == "__main__":
    main()
