"""Benchmark: pytensor.safetensors against the safetensors package and torch.load(mmap=True).

Not a test (pytest collects only test_*.py). Run it with the installed package, outside the tree:

    cd /tmp && python /path/to/tests/bench/bench_safetensors.py           # 1 GiB file
    cd /tmp && python /path/to/tests/bench/bench_safetensors.py --quick   # 128 MiB, fewer rounds

One set of tensors (64 float32 tensors of equal size, 1 GiB in all) is written twice: as a
safetensors file (by the package) and as a torch.save zip file, both read once first so the page
cache is warm. Cases, each timed from nothing open to the result:

- open + first access: open the file, take the tensor in the middle of the file, read its first
  element (``safetensors.safe_open(..., "pt").get_tensor``; ``torch.load(mmap=True)[name]``;
  ``pytensor.safetensors.safe_open(...).get_tensor``);
- full read: every tensor loaded and every byte read once: ``load_file`` of each library, then the
  same torch ``sum`` over each tensor (pytensor's reach torch through DLPack, without a copy), so only
  the loading differs.

Rounds interleave the three in a rotating order; each ratio is the median of per-round ratios.
"""
from __future__ import annotations

import argparse
import gc
import os
import platform
import statistics
import sys
import tempfile
import time


from bench import cpu_model  # this folder is the script's, so on sys.path

LIBS = ("pytensor", "safetensors", "torch.load")


def load_libs():
    import pytensor
    import safetensors.torch
    import torch
    if os.path.commonpath([os.path.abspath(pytensor.__file__), os.getcwd()]) == os.getcwd() and \
            os.path.isdir(os.path.join(os.getcwd(), "libtensor")):
        sys.exit("run from outside the source tree: the pytensor/ folder here shadows the installed package")
    return pytensor, safetensors.torch, torch


def warm(path):
    with open(path, "rb") as f:
        while f.read(64 << 20):
            pass


def make_files(torch, st_torch, folder, total_nbytes, count=64):
    n = total_nbytes // count // 4
    tensors = {f"layer{i:02d}": torch.arange(n, dtype=torch.float32) + i for i in range(count)}
    st_path, pt_path = os.path.join(folder, "w.safetensors"), os.path.join(folder, "w.pt")
    st_torch.save_file(tensors, st_path)
    torch.save(tensors, pt_path)
    warm(st_path), warm(pt_path)
    return st_path, pt_path, sorted(tensors)[count // 2]


def cases(pytensor, st_torch, torch, st_path, pt_path, name):
    from safetensors import safe_open

    def first_pytensor():
        with pytensor.safetensors.safe_open(st_path) as f:
            return f.get_tensor(name)[0].item()

    def first_safetensors():
        with safe_open(st_path, framework="pt") as f:
            return f.get_tensor(name)[0].item()

    def first_torch():
        return torch.load(pt_path, mmap=True, weights_only=True)[name][0].item()

    def full(tensors):
        return sum(float(torch.from_dlpack(t).sum()) if not isinstance(t, torch.Tensor) else float(t.sum())
                   for t in tensors.values())

    return {
        "open + first access": {"pytensor": first_pytensor, "safetensors": first_safetensors,
                                "torch.load": first_torch},
        "full read": {"pytensor": lambda: full(pytensor.safetensors.load_file(st_path)),
                      "safetensors": lambda: full(st_torch.load_file(st_path)),
                      "torch.load": lambda: full(torch.load(pt_path, mmap=True, weights_only=True))},
    }


def timed(fn):
    gc.collect()
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def fmt(s):
    return f"{s * 1e3:.3g} ms" if s >= 1e-3 else f"{s * 1e6:.3g} µs"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    pytensor, st_torch, torch = load_libs()
    total = (128 << 20) if args.quick else (1 << 30)
    rounds = 5 if args.quick else 9
    with tempfile.TemporaryDirectory() as folder:
        st_path, pt_path, name = make_files(torch, st_torch, folder, total)
        table = cases(pytensor, st_torch, torch, st_path, pt_path, name)
        print(f"Run: {time.strftime('%Y-%m-%d')} · {platform.machine()} · {cpu_model()} · "
              f"{platform.python_version()} · torch {torch.__version__} · "
              f"safetensors {__import__('safetensors').__version__} · file {total >> 20} MiB, 64 tensors")
        print("\n| case | pytensor | safetensors | torch.load(mmap=True) | pt/safetensors | pt/torch.load |")
        print("|---|---:|---:|---:|---:|---:|")
        for case, fns in table.items():
            times = {lib: [] for lib in LIBS}
            for r in range(rounds):
                order = LIBS[r % 3:] + LIBS[:r % 3]
                for lib in order:
                    times[lib].append(timed(fns[lib]))
            med = {lib: statistics.median(v) for lib, v in times.items()}
            ratio = {lib: statistics.median(p / o for p, o in zip(times["pytensor"], times[lib])) for lib in LIBS}
            print(f"| {case} | {fmt(med['pytensor'])} | {fmt(med['safetensors'])} | {fmt(med['torch.load'])} | "
                  f"{ratio['safetensors']:.2f} | {ratio['torch.load']:.2f} |")
    print("\nRatios are pytensor's time over the peer's (median of per-round ratios): below 1 is faster.")


if __name__ == "__main__":
    main()
