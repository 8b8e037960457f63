"""Benchmark: a Queue round trip of a tensor through a child process, pytensor.multiprocessing against torch.multiprocessing.

Not a test (pytest collects only test_*.py). Run it with the installed
package, from outside the source tree so the tree does not shadow it:

    cd /tmp && python /path/to/tests/bench/bench_multiprocessing.py
    cd /tmp && python /path/to/tests/bench/bench_multiprocessing.py --quick   # fewer rounds

What it measures, for each library, with 1 MiB and 256 MiB float32 tensors:
- round trip: the parent puts a tensor on one Queue, a child (started once,
  with the fork method) takes it and puts it back on another, the parent
  takes it: the time from put to get, median over rounds. The tensor is
  already in shared memory (both libraries move it there on its first
  put), so this is the cost of the path itself: the goal is O(1) in size,
  a 256 MiB tensor no slower than a 1 MiB one, within noise;
- first put: the same with a fresh tensor each round, which includes the
  one-off move of its bytes into shared memory (O(size) for both
  libraries: a copy).
Rounds interleave the two libraries; each ratio is the median of per-round
ratios, so both sides were measured moments apart.
"""
from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time

SIZES = {"1 MiB": 1 << 20, "256 MiB": 256 << 20}


def _echo(q_in, q_out):
    while (t := q_in.get()) is not None:
        q_out.put(t)
        del t


class Peer:
    """A child that sends back every tensor it gets, for one library."""

    def __init__(self, mp):
        ctx = mp.get_context("fork")
        self.q_in, self.q_out = ctx.Queue(), ctx.Queue()
        self.proc = ctx.Process(target=_echo, args=(self.q_in, self.q_out), daemon=True)
        self.proc.start()

    def round_trip(self, t):
        start = time.perf_counter()
        self.q_in.put(t)
        back = self.q_out.get(timeout=120)
        elapsed = time.perf_counter() - start
        del back
        return elapsed

    def close(self):
        self.q_in.put(None)
        self.proc.join(60)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    import pytensor
    import pytensor.multiprocessing as pmp
    import torch
    import torch.multiprocessing as tmp
    if os.path.commonpath([os.path.abspath(pytensor.__file__), os.getcwd()]) == os.getcwd() and \
            os.path.isdir(os.path.join(os.getcwd(), "libtensor")):
        sys.exit("run from outside the source tree: the pytensor/ folder here shadows the installed package")
    rounds = 20 if args.quick else 100
    fresh_rounds = 3 if args.quick else 9
    makers = {"pytensor": lambda n: pytensor.ones(n // 4), "torch": lambda n: torch.ones(n // 4)}
    peers = {"pytensor": Peer(pmp), "torch": Peer(tmp)}
    print(f"# {platform.machine()} {os.cpu_count()} CPUs, Python {platform.python_version()}, "
          f"torch {torch.__version__}, {time.strftime('%Y-%m-%d %H:%M')}")
    print("| case | size | pytensor | torch | pt/torch |")
    print("|---|---|---:|---:|---:|")
    try:
        for case, n_rounds, fresh in (("round trip, already shared", rounds, False),
                                      ("first put (moves the bytes)", fresh_rounds, True)):
            for label, nbytes in SIZES.items():
                kept = {lib: makers[lib](nbytes) for lib in peers}
                for lib in peers:  # warm up: the first put shares the tensor, starts the fd server
                    peers[lib].round_trip(kept[lib])
                times = {lib: [] for lib in peers}
                ratios = []
                for r in range(n_rounds):
                    order = list(peers) if r % 2 == 0 else list(reversed(peers))
                    got = {}
                    for lib in order:
                        t = makers[lib](nbytes) if fresh else kept[lib]
                        got[lib] = peers[lib].round_trip(t)
                        del t
                    for lib in peers:
                        times[lib].append(got[lib])
                    ratios.append(got["pytensor"] / got["torch"])
                med = {lib: statistics.median(v) for lib, v in times.items()}
                print(f"| {case} | {label} | {med['pytensor'] * 1e6:.0f} µs | {med['torch'] * 1e6:.0f} µs | "
                      f"{statistics.median(ratios):.2f} |", flush=True)
                del kept
    finally:
        for peer in peers.values():
            peer.close()


if __name__ == "__main__":
    main()
