"""Pages of a shared mapping written since this process's last picture of them (``_processes.py`` draws them).

In a shared mapping a write by another process copies nothing: the page is
the same page in every process, so pagemap's "exclusive" bit, which says
what a private mapping copied, says nothing here. What still says it is the
bytes themselves. Each picture keeps one 64-bit digest per page of the
bytes, and the next picture of the same bytes compares: a page whose digest
differs was written, by whichever process, this one included, even one that
has exited since. A write that leaves a page's bytes as they were changes
nothing a picture could show, and is not counted.

Why not the soft-dirty bit (pagemap bit 55, cleared by writing 4 to
/proc/PID/clear_refs): it lives in each process's page tables, so a write
by another process sets it only in that process's, and clearing it there
write-protects every page of that process, a cost on its later writes and a
change to a process the inspector only looks at. On this project's machines
it also stays 0 after writes (a kernel without CONFIG_MEM_SOFT_DIRTY).

Observing must not change what is observed: only the pages that this
process's page tables map now (pagemap's present bit, already read for the
strip) are read, so a digest never faults a page in, from disk or at all,
and never adds to the PSS the strip shows. A page not mapped here at either
picture is not compared. The pass over the bytes is NumPy, a
multiply-add of each page's 512 words by fixed odd weights (about 7 GB/s
measured here), so one changed word always changes the digest; it is bounded
by ``DIGEST_BYTES`` a picture, past which the bytes are said not checked.
"""
from __future__ import annotations

import collections
import ctypes
import mmap

import numpy as np

__all__ = ["written_since", "differs", "DIGEST_BYTES", "POLL_BYTES", "KEPT", "KEPT_PAGES"]

DIGEST_BYTES = 128 << 20   # bytes one picture reads to compare (32 ms measured here); past it: not checked
PAGE = mmap.PAGESIZE       # as _procfs.PAGE: the pages of the pagemap entries passed in
POLL_BYTES = 16 << 20     # bytes one poll of a live widget reads to ask whether to redraw (about 2 ms here)
KEPT = 64                  # byte ranges whose digests are kept (the least recently pictured go first) ...
KEPT_PAGES = 1 << 20       # ... and at most this many page digests among them (9 MiB with their masks)
_CHUNK = 256               # whole pages digested per NumPy call (1 MiB: the product stays in cache)
_WORDS = PAGE // 8
_WEIGHTS = np.random.default_rng(0x9E3779B97F4A7C15).integers(0, 1 << 63, _WORDS, dtype=np.uint64) * 2 + 1

_last = collections.OrderedDict()   # key -> (digests, mapped-here mask) of the last picture of those bytes


def written_since(scan, key, lo, hi, flags):
    """``(bits, count)``: one byte a page of ``[lo, hi)``, 1 where the page's bytes differ from this
    process's last picture of the bytes named ``key``, and how many; ``(None, None)`` when the bytes
    are past the picture's ``DIGEST_BYTES`` (the scan's note says so). ``flags`` are the top bytes of this
    process's pagemap entries over the pages (``Scan.flags``). At the first picture no page is written."""
    present = np.frombuffer(flags, np.uint8) & 0x80 != 0
    cost = int(present.sum()) * PAGE
    if scan.bytes_digested + cost > DIGEST_BYTES:
        _last.pop(key, None)       # the next picture that compares starts afresh
        scan.left_out.add(f"pages written since the last picture not checked: past the {DIGEST_BYTES / 2**20:g} MiB "
                          "of shared memory a picture compares")
        return None, None
    scan.bytes_digested += cost
    now = _digests(lo, hi, present)
    before = _last.pop(key, None)
    _last[key] = (now, present)
    while len(_last) > KEPT or (len(_last) > 1 and sum(len(d) for d, _ in _last.values()) > KEPT_PAGES):
        _last.popitem(last=False)
    if before is None or len(before[0]) != len(now):
        return bytes(len(now)), 0
    written = before[1] & present & (before[0] != now)
    return written.astype(np.uint8).tobytes(), int(written.sum())


def differs(scan, key, lo, hi, flags):
    """Whether a page of ``[lo, hi)`` mapped here now and at the last picture of ``key`` has other bytes
    now: a live widget's poll asks, to redraw when another process wrote. It keeps nothing (the picture
    it leads to compares and keeps) and reads at most ``POLL_BYTES`` a poll (past them it answers False)."""
    before = _last.get(key)
    present = np.frombuffer(flags, np.uint8) & 0x80 != 0
    if before is None or len(before[0]) != len(present):
        return False
    both = before[1] & present
    cost = int(both.sum()) * PAGE
    if scan.bytes_digested + cost > POLL_BYTES:
        return False
    scan.bytes_digested += cost
    return bool((before[0] != _digests(lo, hi, both))[both].any())


def _digests(lo, hi, present):
    """One uint64 a page of ``[lo, hi)``: the page's bytes inside ``[lo, hi)`` as words, each times its
    weight, summed modulo 2**64; 0 where ``present`` is False (such a page is not read)."""
    page0 = lo - lo % PAGE
    out = np.zeros(len(present), np.uint64)
    whole0 = 0 if lo == page0 else 1                           # pages [whole0, whole1) lie inside [lo, hi)
    whole1 = max(whole0, (hi - page0) // PAGE)
    product = np.empty((_CHUNK, _WORDS), np.uint64)
    edges = np.flatnonzero(np.diff(np.concatenate(([0], present[whole0:whole1].view(np.int8), [0]))))
    for a, b in zip(edges[::2] + whole0, edges[1::2] + whole0):    # runs of mapped whole pages
        for i in range(a, b, _CHUNK):
            n = min(_CHUNK, b - i)
            words = np.frombuffer((ctypes.c_uint64 * (n * _WORDS)).from_address(page0 + i * PAGE), np.uint64)
            np.multiply(words.reshape(n, _WORDS), _WEIGHTS, out=product[:n])
            product[:n].sum(axis=1, out=out[i:i + n])
    for i in {0, len(present) - 1} - set(range(whole0, whole1)):   # the partial pages at either end
        if 0 <= i < len(present) and present[i]:
            a, b = max(lo, page0 + i * PAGE), min(hi, page0 + (i + 1) * PAGE)
            raw = ctypes.string_at(a, b - a)
            words = np.frombuffer(raw + bytes(-len(raw) % 8), np.uint64)
            out[i] = (words * _WEIGHTS[:len(words)]).sum(dtype=np.uint64)
    return out
