"""Benchmark: pickle and Ray for pytensor tensors, side by side with torch and NumPy in one process.

Not a test (pytest collects only test_*.py). Run it with the installed package, outside the tree:

    cd /tmp && python /path/to/tests/bench/bench_pickle.py            # 1 MiB and 1 GiB
    cd /tmp && python /path/to/tests/bench/bench_pickle.py --quick    # 1 MiB and 256 MiB, fewer rounds
    cd /tmp && python /path/to/tests/bench/bench_pickle.py --no-ray   # pickle only
    cd /tmp && python /path/to/tests/bench/bench_pickle.py --no-ray --protocols 2,3,4 --factories 0

Cases (each a float32 vector of the size named, the same values in the three libraries):

- ``dumps 4`` / ``loads 4``: ``pickle.dumps(x, protocol=4)``, ``pickle.loads`` of it: the bytes in-band
  (``--protocols`` times other in-band protocols too, 0 to 4);
- ``dumps 5+cb`` / ``loads 5+cb``: ``pickle.dumps(x, protocol=5, buffer_callback=bufs.append)`` and
  ``pickle.loads(data, buffers=bufs)``: what Ray, Dask and multiprocessing's pickle-5 users do. pytensor
  and NumPy hand the bytes out of band (no copy; these take microseconds, so each round times the mean of
  200 calls); torch never emits a PickleBuffer, so its bytes stay in-band;
- ``ray.put`` / ``ray.get``: a local Ray (``ray.init(num_cpus=1)``); put copies into the object store
  once; get of pytensor and NumPy maps the store's memory read-only.

- ``ones``, ``zeros``, ``empty+fill``: the factories at ``--factories`` float32 elements (2**27 unless 0),
  timed in the large size's rounds: the huge-page advice that in-band loads skip (libtensor.h,
  ``lt_storage_new_copy``) is what makes these fast, so they are measured beside the loads.

Rounds rotate the libraries' order; each time is the median of its rounds.
"""
from __future__ import annotations

import argparse
import gc
import os
import pickle
import platform
import statistics
import sys
import time
import timeit

from bench import cpu_model  # this folder is the script's, so on sys.path

LIBS = ("pytensor", "torch", "numpy")
MiB = 1 << 20
REPEAT = 200  # calls averaged for a case that takes microseconds


def load_libs():
    import numpy as np
    import pytensor
    import torch
    if os.path.commonpath([os.path.abspath(pytensor.__file__), os.getcwd()]) == os.getcwd() and \
            os.path.isdir(os.path.join(os.getcwd(), "libtensor")):
        sys.exit("run from outside the source tree: the pytensor/ folder here shadows the installed package")
    return pytensor, torch, np


def make(libs, nbytes):
    pytensor, torch, np = libs
    n = nbytes // 4
    a = np.arange(n, dtype=np.float32)
    return {"pytensor": pytensor.tensor(a), "torch": torch.from_numpy(a.copy()), "numpy": a}


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def pickle_round(x, protocols):
    """The pickle times of one object (seconds), checking each result has the right size."""
    nbytes = x.nbytes if not callable(x.nbytes) else x.nbytes()
    got = {}
    for protocol in protocols:
        got[f"dumps {protocol}"], d = timed(lambda: pickle.dumps(x, protocol=protocol))
        got[f"loads {protocol}"], y = timed(lambda: pickle.loads(d))
        assert (y.nbytes if not callable(y.nbytes) else y.nbytes()) == nbytes
        del d, y  # at 1 GiB, hold one result at a time
    bufs = []
    t_d5, d5 = timed(lambda: pickle.dumps(x, protocol=5, buffer_callback=bufs.append))
    t_l5, y = timed(lambda: pickle.loads(d5, buffers=bufs))
    assert (y.nbytes if not callable(y.nbytes) else y.nbytes()) == nbytes
    if len(d5) < 4096:  # out of band: microseconds, so time the mean of many calls (one call is all noise here)
        t_d5 = timeit.timeit(lambda: pickle.dumps(x, protocol=5, buffer_callback=[].append), number=REPEAT) / REPEAT
        t_l5 = timeit.timeit(lambda: pickle.loads(d5, buffers=bufs), number=REPEAT) / REPEAT
    return {**got, "dumps 5+cb": t_d5, "loads 5+cb": t_l5}, len(d5)


def factory_round(libs, lib, n, turn=0):
    """ones, zeros and empty+fill of n float32 elements in one library (seconds), each result freed before the
    next, starting with the turn-th (the first call after a large free can pay for the kernel's or the host's
    reclaiming, so the order rotates); zeros is only made (pytensor's and NumPy's are lazy mappings, torch's
    are written)."""
    pytensor, torch, np = libs
    if lib == "numpy":
        calls = {"ones": lambda: np.ones(n, np.float32), "zeros": lambda: np.zeros(n, np.float32),
                 "empty+fill": lambda: np.empty(n, np.float32).fill(1.0)}
    else:
        m = pytensor if lib == "pytensor" else torch
        calls = {"ones": lambda: m.ones(n), "zeros": lambda: m.zeros(n), "empty+fill": lambda: m.empty(n).fill_(1.0)}
    got, order = {}, list(calls)
    for case in order[turn % 3:] + order[:turn % 3]:
        got[f"{case} 2**{n.bit_length() - 1}"], y = timed(calls[case])
        del y
        gc.collect()
    return got


def ray_round(ray, x):
    t_put, ref = timed(lambda: ray.put(x))
    t_get, y = timed(lambda: ray.get(ref))
    del y, ref
    return {"ray.put": t_put, "ray.get": t_get}


def run(libs, sizes, rounds_for, ray, protocols=(4,), factories=0):
    rows, inband = [], {}
    for nbytes in sizes:
        objs = make(libs, nbytes)
        times = {lib: {} for lib in LIBS}
        rounds = rounds_for(nbytes)
        for r in range(rounds):
            order = LIBS[r % 3:] + LIBS[:r % 3]
            for lib in order:
                got, inband[(nbytes, lib)] = pickle_round(objs[lib], protocols)
                if ray is not None:
                    got.update(ray_round(ray, objs[lib]))
                if factories and nbytes == max(sizes):
                    got.update(factory_round(libs, lib, factories, r))
                for case, s in got.items():
                    times[lib].setdefault(case, []).append(s)
                gc.collect()
        for case in times["pytensor"]:
            med = {lib: statistics.median(times[lib][case]) for lib in LIBS}
            rows.append((nbytes, case, med, rounds))
        del objs
        gc.collect()
    return rows, inband


def run_factories(libs, n, rounds):
    """The factories alone: rounds rotating the libraries' order and the calls' order."""
    times = {lib: {} for lib in LIBS}
    for r in range(rounds):
        for lib in LIBS[r % 3:] + LIBS[:r % 3]:
            for case, s in factory_round(libs, lib, n, r).items():
                times[lib].setdefault(case, []).append(s)
    return [(n * 4, case, {lib: statistics.median(times[lib][case]) for lib in LIBS}, rounds)
            for case in times["pytensor"]]


def fmt_time(s):
    return f"{s * 1e3:.3f} ms" if s >= 1e-3 else f"{s * 1e6:.1f} µs"


def fmt_size(n):
    return f"{n // (1 << 30)} GiB" if n >= 1 << 30 else f"{n // MiB} MiB"


def report(rows, inband):
    print("| size | case | pytensor | torch | numpy | pt/torch | pt/numpy | rounds |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for nbytes, case, med, rounds in rows:
        print(f"| {fmt_size(nbytes)} | {case} | {fmt_time(med['pytensor'])} | {fmt_time(med['torch'])} | "
              f"{fmt_time(med['numpy'])} | {med['pytensor'] / med['torch']:.3f} | "
              f"{med['pytensor'] / med['numpy']:.2f} | {rounds} |")
    if inband:
        print()
        print("In-band bytes of `pickle.dumps(x, protocol=5, buffer_callback=...)`:",
              ", ".join(f"{fmt_size(n)} {lib} {size:,}" for (n, lib), size in sorted(inband.items())))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="1 MiB and 256 MiB, fewer rounds")
    p.add_argument("--no-ray", action="store_true", help="pickle only")
    p.add_argument("--protocols", default="4", help="in-band protocols to time, comma-separated (default 4)")
    p.add_argument("--factories", type=int, default=1 << 27,
                   help="elements of ones/zeros/empty+fill timed in the large size's rounds (0: none)")
    p.add_argument("--factories-only", type=int, metavar="ROUNDS", default=0,
                   help="time only the factories, in this many rounds")
    args = p.parse_args()
    protocols = tuple(int(v) for v in args.protocols.split(","))
    if not all(0 <= v <= 4 for v in protocols):
        p.error("--protocols: in-band protocols are 0 to 4 (5 is timed out of band)")
    libs = load_libs()
    big = 256 * MiB if args.quick else 1 << 30
    sizes = (MiB, big)

    def rounds_for(nbytes):
        return (15 if args.quick else 41) if nbytes <= MiB else (3 if args.quick else 5)

    ray = None
    if not args.no_ray:
        import ray
        options = dict(num_cpus=1, include_dashboard=False, log_to_driver=False, object_store_memory=4 * big)
        try:
            ray.init(**options)
        except Exception as e:  # noqa: BLE001  (Ray's raylet has a fixed 30 s to start; a loaded machine misses it)
            if "timed out during startup" not in str(e):
                raise
            ray.shutdown()
            ray.init(**options)
    print(f"# {cpu_model()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
          f"load {os.getloadavg()[0]:.1f}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    print(f"# torch {libs[1].__version__}, numpy {libs[2].__version__}"
          + ("" if ray is None else f", ray {ray.__version__}"))
    print(f"# pytensor from {os.path.dirname(libs[0].__file__)}")
    if args.factories_only:
        report(run_factories(libs, args.factories, args.factories_only), {})
        return
    rows, inband = run(libs, sizes, rounds_for, ray, protocols, args.factories)
    report(rows, inband)
    if ray is not None:
        ray.shutdown()


if __name__ == "__main__":
    main()
