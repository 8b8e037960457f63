"""One file, one identity: bytes a file or shared memory holds, named as every mapping of them agrees.

Addresses differ between mappings and between processes; the file under the bytes does not. So
the inspector names such bytes by (device, inode, byte offset in the file), which is what
``UntypedStorage.identity()`` returns, and groups them by that name rather than by address: two
mappings of one file range are one region of the file, each lane at its file byte offset, and a
write through one is seen in the other. Memory no NumPy or pytensor storage describes (a NumPy
memmap, a Python mmap) is found by its address in /proc/self/maps, asked of libtensor. Memory
nothing else can map (heap memory) keeps its address as its name, and so does a private mapping
some of whose pages were copied on write: those bytes are this process's own, no longer the file's.

>>> import os, tempfile, pytensor
>>> from pytensor.widgets import snapshot
>>> path = os.path.join(tempfile.mkdtemp(), "f.bin")
>>> a = pytensor.from_file(path, shared=True, size=64, dtype=pytensor.uint8)
>>> b = pytensor.from_file(path, shared=True, size=64, dtype=pytensor.uint8)
>>> snap, _ = snapshot(a, b[16:], names=["a", "b"])
>>> len(snap["regions"]), [v["byte_offset"] for v in snap["views"]]
(1, [0, 16])
"""
from __future__ import annotations

import array
import sys

from pytensor import _inspect_api

__all__ = ["identity_of", "tensor_identity", "owner_identity", "space", "region_id", "region_identity",
           "source_identity", "mappings", "read_mapped"]


def identity_of(storage, lo, hi, work=None, cow=None, cow_of=None):
    """What names the bytes ``[lo, hi)`` (absolute addresses) across mappings and processes, or None
    for memory no file or shared memory holds (heap memory, which no other mapping can show).

    ``storage``: the pytensor ``UntypedStorage`` holding them (its ``identity()`` is asked), or None
    for memory no storage describes (found by its address in /proc/self/maps, through libtensor).
    Returns ``{"device", "inode", "shift", "joins"}``: ``shift`` turns an address of
    these bytes into its byte offset in the file (``file offset = address + shift``); ``joins``
    says whether the bytes are the file's, so that every mapping of them may be drawn as one: a
    shared or read-only mapping, or a private one none of whose pages was copied on write (``cow``,
    from ``_files.file_info``, is ``[]``; for memory no storage maps, ``cow_of(lo, hi, work)`` is asked, e.g.
    ``_files.copied_runs``). ``work`` keeps the answer for the rest of the picture.
    """
    if hi <= lo:
        return None
    key = ("identity", lo, hi, id(storage))
    if work is not None and key in work.pages_cache:
        return work.pages_cache[key]
    pt = sys.modules["pytensor"]
    private, ident, base = None, None, lo
    cls = pt.UntypedStorage                  # through the class: a subclass could describe another file
    mapped = cls.mapped_file.__get__(storage) if storage is not None else None
    if storage is not None and (mapped or cls.is_shared(storage)):      # pytensor mapped it: ask its identity()
        try:
            ident = cls.identity(storage)
        except pt.PytensorError:
            ident = None
        private = bool(mapped) and mapped[1] == "private"
        base = int(cls.data_ptr(storage))
    if ident is None:                        # memory pytensor wraps but did not map: ask the mapping itself
        try:
            m = _inspect_api.address_identity(lo, hi - lo)
        except pt.PytensorError:
            m = None
        ident, base, private = (None, lo, None) if m is None else (m.identity, lo, m.private and m.writable)
        if private and cow_of is not None:
            cow = cow_of(lo, hi, work)
    out = None
    if ident is not None:
        # a private mapping's copied pages are this process's own: then it is drawn apart from the file
        out = {"device": ident.device, "inode": ident.inode, "shift": ident.byte_offset - base,
               "joins": not private or cow == []}
    if work is not None:
        work.pages_cache[key] = out
    return out


def tensor_identity(storage, is_pytensor, on_host, s_addr, nbytes, src, work, cow_of=None):
    """``identity_of`` a tensor's storage: pytensor's asks its ``identity()``; torch's is found by
    address (shared memory, ``from_file``); heap memory pytensor owns is not asked at all."""
    if not on_host or nbytes <= 0:
        return None
    if not is_pytensor:
        return identity_of(None, s_addr, s_addr + nbytes, work, cow_of=cow_of)
    if src["provenance"] == "owned":        # malloc'd by libtensor: no file, no other mapping
        return None
    f = src["file"]
    return identity_of(storage, s_addr, s_addr + nbytes, work, cow=f["cow"] if f else None, cow_of=cow_of)


def owner_identity(owner, lo, hi, work, cow_of=None):
    """``identity_of`` the bytes ``[lo, hi)`` an ndarray's or buffer's owner exports (a memmap's mmap,
    another library's mapping), found by address; exporters of heap bytes are not asked."""
    if isinstance(owner, (bytes, bytearray, array.array)):
        return None
    return identity_of(None, lo, hi, work, cow_of=cow_of)


# ---------------------------------------------------------------- grouping, in build()
def space(it):
    """``(space, shift)``: the coordinates a resolved item is grouped in, and what turns its addresses
    into them. A file's bytes (``identity["joins"]``) are placed by their byte offset in the file."""
    ident = it.get("identity")
    if ident is not None and ident["joins"]:
        return f"file:{ident['device']:x}:{ident['inode']:x}", ident["shift"]
    return it["device"], 0


def region_id(space_name, dev, r_lo, host):
    """``f<device>-<inode>-<file offset>`` for a file (the same in every process that maps it), else
    ``r<address>`` (``r<device>-<address>`` off the host)."""
    if space_name.startswith("file:"):
        _, device, inode = space_name.split(":")
        return f"f{device}-{inode}-{r_lo:x}"
    return f"r{r_lo:x}" if dev == host else f"r{dev.replace(':', '')}-{r_lo:x}"


def region_identity(space_name, r_lo):
    """A region's ``identity``: the file and where its byte 0 lies in it, or None (named by address)."""
    if not space_name.startswith("file:"):
        return None
    _, device, inode = space_name.split(":")
    return {"device": int(device, 16), "inode": int(inode, 16), "byte_offset": r_lo}


def source_identity(it):
    """A source's ``identity``: ``[device, inode, byte offset of its first byte]``, or None (heap memory)."""
    ident = it.get("identity")
    if ident is None:
        return None
    return [ident["device"], ident["inode"], it["span_lo"] + ident["shift"]]


def mappings(live):
    """``[lo, hi, address]`` pieces covering the live members' bytes ``(lo, hi, base)`` (region positions,
    and the address of region byte 0 in that member's mapping), each byte once: where mappings overlap,
    the first one's. Pieces whose addresses continue each other are joined.

    >>> mappings([(0, 8, 100), (4, 12, 900), (12, 16, 100)])
    [[0, 8, 100], [8, 12, 908], [12, 16, 112]]
    """
    out = []
    for a, b, base in sorted(live):
        if out and a < out[-1][1]:
            if b <= out[-1][1]:
                continue
            a = out[-1][1]
        if out and a == out[-1][1] and base + a == out[-1][2] + (out[-1][1] - out[-1][0]):
            out[-1][1] = b
        else:
            out.append([a, b, base + a])
    return out


def read_mapped(pieces, lo, hi, read):
    """Region bytes ``[lo, hi)`` through ``pieces`` (a region's ``mappings``, which must cover them),
    each read by ``read(address, n)``: one file seen through several mappings reads each byte once."""
    out = bytearray()
    for a, b, addr in pieces:
        a2, b2 = max(a, lo), min(b, hi)
        if a2 < b2:
            out += read(addr + a2 - a, b2 - a2)
    if len(out) != hi - lo:
        raise ValueError(f"bytes [{lo}, {hi}) of the region are not all inside its live mappings")
    return bytes(out)
