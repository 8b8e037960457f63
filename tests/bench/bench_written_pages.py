"""What saying "pages written since the last picture" costs a picture of shared memory (issue 30, item 4).

The processes strip compares a per-page digest of a shared mapping's bytes with the last picture's
(widgets/_written.py): one pass over the pages this process maps, bounded by ``DIGEST_BYTES`` a
picture, and by ``POLL_BYTES`` a live widget's poll. This prints a Markdown table: snapshot() of one
shared-memory tensor of each size with the pass (as shipped) and without it (``DIGEST_BYTES`` = 0,
so every size is past the bound: the same picture, said not checked), in the same process, and the
live widget's poll (``_processes.moved``) with nothing written. CPU time of this process, median of
``ROUNDS``; measurements to compare across changes, not limits (no test asserts them).

    cd /tmp && python /work/main/tests/bench/bench_written_pages.py
"""
import sys

import numpy as np

import pytensor
from pytensor.widgets import _processes, _written, snapshot
from bench import median_cpu_ms  # this folder is the script's, so on sys.path

ROUNDS = 7
SIZES_MIB = (4, 16, 64, 128, 256)


def main():
    shipped = _written.DIGEST_BYTES
    print(f"Python {sys.version.split()[0]} · numpy {np.__version__} · DIGEST_BYTES {shipped >> 20} MiB · "
          f"POLL_BYTES {_written.POLL_BYTES >> 20} MiB · CPU ms, median of {ROUNDS}\n")
    print("| shared tensor | snapshot() with the pass | without it | the pass | written_since | poll (moved) |")
    print("|---|---:|---:|---:|---:|---:|")
    for mib in SIZES_MIB:
        t = pytensor.ones(mib << 18, dtype=pytensor.float32).share_memory_()
        snap, _ = snapshot(t, names=["t"])
        _written.DIGEST_BYTES = 0
        off = median_cpu_ms(lambda: snapshot(t, names=["t"]), ROUNDS)
        _written.DIGEST_BYTES = shipped
        snapshot(t, names=["t"])
        on = median_cpu_ms(lambda: snapshot(t, names=["t"]), ROUNDS)
        snap, _ = snapshot(t, names=["t"])
        said = snap["regions"][0]["processes"]["written_since"]
        poll = median_cpu_ms(lambda: _processes.moved(snap), ROUNDS)
        print(f"| {mib} MiB | {on:.1f} | {off:.1f} | {on - off:.1f} | "
              f"{'not checked' if said is None else said} | {poll:.1f} |")
        del t, snap


if __name__ == "__main__":
    main()
