"""Peak memory of the allocating paths at 10^7 elements (issue 27 item 5):
``rand``, ``randn``, ``arange``, ``tensor(list)`` and ``x[mask]``, pytensor
against torch.

    python tests/bench/bench_memory.py            # a Markdown table
    python tests/bench/bench_memory.py --only rand

Method: each case runs in a fresh Python process per library, so nothing
one case allocated or cached counts in another. The child builds its inputs,
reads its resident set (VmRSS) and ``resource.getrusage(RUSAGE_SELF).ru_maxrss``,
runs the path once, and reads ``ru_maxrss`` again. The path's peak growth is
``maxrss_after - rss_before``. That figure is only the path's when the path
raised the process's peak (``maxrss_after > maxrss_before``); the inputs are
built so that their own peak is their final size, and a case whose peak was
masked by its setup says so instead of reporting a number. The goal: peak
growth no more than torch's (which already includes the result's bytes)
plus nothing but the result. Nothing is asserted: it reports.
"""
from __future__ import annotations

import argparse
import re
import subprocess
import sys

N = 10**7
CASES = {
    "rand(10^7)": ("", "L.rand(N)"),
    "randn(10^7)": ("", "L.randn(N)"),
    "arange(10^7)": ("", "L.arange(N)"),
    "tensor(list of 10^7 floats)": ("lst = [i * 1e-7 for i in range(N)]", "L.tensor(lst)"),
    "x[x > 0] (10^7 float32, half selected)": ("x = L.arange(N, dtype=L.float32) - N / 2", "x[x > 0]"),
}

_CHILD = """
import resource, sys
lib = sys.argv[1]
import pytensor, torch
L = pytensor if lib == "pytensor" else torch
L.set_num_threads(1)
N = {n}
{setup}

def rss_kib():
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))

rss_before = rss_kib()
max_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
out = {expr}
max_after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(rss_before, max_before, max_after, out.numel() * out.element_size())
"""


def measure(lib, setup, expr):
    """(peak growth in bytes or None when masked, result bytes) for one library, in a fresh process."""
    code = _CHILD.format(n=N, setup=setup, expr=expr)
    p = subprocess.run([sys.executable, "-c", code, lib], capture_output=True, text=True, timeout=900)
    if p.returncode != 0:
        raise RuntimeError(f"{lib}: {p.stderr.strip()[-300:]}")
    rss_before, max_before, max_after, result_bytes = map(int, p.stdout.split())
    growth = (max_after - rss_before) * 1024 if max_after > max_before else None
    return growth, result_bytes


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", default=None, help="a regular expression over case names")
    args = ap.parse_args()
    mib = lambda b: "masked" if b is None else f"{b / 2**20:.1f} MiB"  # noqa: E731
    print("| path | pytensor peak growth | torch peak growth | result | pytensor - torch |")
    print("|---|---:|---:|---:|---:|")
    for name, (setup, expr) in CASES.items():
        if args.only and not re.search(args.only, name):
            continue
        (pt, result), (th, _) = measure("pytensor", setup, expr), measure("torch", setup, expr)
        over = "-" if pt is None or th is None else mib(pt - th)
        print(f"| `{name}` | {mib(pt)} | {mib(th)} | {mib(result)} | {over} |", flush=True)


if __name__ == "__main__":
    main()
