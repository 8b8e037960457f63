"""Benchmark: one DLPack export through the C exchange API against one through ``__dlpack__``.

Not a test. Run with the installed package, outside the tree (needs a C compiler):

    cd /tmp && python /path/to/tests/bench/bench_exchange_api.py

Each figure is the time of one owning export and its release: the C consumer of
tests/c/exchange_consumer.c calls ``managed_tensor_from_py_object_no_sync`` and the deleter in a C
loop; the Python side calls ``t.__dlpack__(max_version=(1, 3))`` and drops the capsule (whose
destructor calls the deleter). pytensor and torch 2.13 are measured side by side; medians of rounds.
"""
from __future__ import annotations

import os
import platform
import statistics
import sys
import tempfile
import timeit

N = 200_000
ROUNDS = 7


def main():
    import pytensor
    import torch
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    from exchange_consumer import build
    consumer = build(tempfile.mkdtemp())
    tensors = {"pytensor": pytensor.arange(12.0).view(3, 4), "torch": torch.arange(12.0).view(3, 4)}
    rows = {}
    for lib, t in tensors.items():
        c_api = [consumer.export_ns(t, N) for _ in range(ROUNDS)]
        py = [min(timeit.repeat(lambda: t.__dlpack__(max_version=(1, 3)), number=N // 10, repeat=1)) / (N // 10)
              * 1e9 for _ in range(ROUNDS)]
        rows[lib] = (statistics.median(c_api), statistics.median(py))
    print(f"{platform.machine()} · {platform.python_version()} · torch {torch.__version__}\n")
    print("| producer | C exchange API export | `__dlpack__(max_version=(1, 3))` |")
    print("|---|---:|---:|")
    for lib, (c, p) in rows.items():
        print(f"| {lib} | {c:.0f} ns | {p:.0f} ns |")


if __name__ == "__main__":
    main()
