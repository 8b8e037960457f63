"""Shared memory for storages: ``share_memory_()``, ``is_shared()`` and ``identity()``.

A shared storage's bytes live in anonymous shared memory (libtensor's
storage_shm.c: a memfd, never a name in /dev/shm), so another process that
receives its descriptor maps the same physical pages. Small storages are
spans of a few arena files, so descriptors stay few.

``share_memory_()`` moves a storage's bytes there under the same
``UntypedStorage`` object, so every view follows: the bytes are copied once
and ``data_ptr()`` of the storage and of its views changes, as with torch.
Only bytes pytensor owns move. Bytes that belong to someone else (a NumPy
array, a bytearray, a DLPack producer, a private file mapping) would leave
their owner behind, so they are refused with a RuntimeError: share a copy
(``t.clone().share_memory_()``). A file mapped shared is shared already.
"""
from __future__ import annotations

import mmap
from typing import NamedTuple

from ._ffi import ffi, lib, shim
from .errors import DeviceError, check


class StorageIdentity(NamedTuple):
    """The name of a storage's first byte that every process mapping it agrees on.

    ``device`` and ``inode`` identify the file under the bytes (the kernel's
    numbering, as /proc/PID/maps lists it), ``byte_offset`` where the storage
    starts in that file. Addresses differ between processes; this does not.
    """

    device: int
    inode: int
    byte_offset: int


def is_shared(storage) -> bool:
    """True when another process can map these bytes: shared memory, or a file mapped shared."""
    if lib.lt_storage_is_shared(storage._ptr):
        return True
    return storage._file is not None and storage._file[1] != "private"


def share(storage):
    """Moves ``storage``'s bytes into shared memory (see the module's docstring); returns it."""
    if is_shared(storage):
        return storage
    if not storage._host:
        raise DeviceError(f"share_memory_(): this storage lives on {storage.device}; only host memory can be "
                          "shared between processes")
    provenance = storage.provenance
    if provenance != "owned":
        raise RuntimeError(f"share_memory_(): this storage's {storage.nbytes()} bytes belong to the {provenance} "
                           f"it wraps ({storage.label or 'no label'}); moving them would leave that owner on the "
                           "old bytes. Share a copy instead: t.clone().share_memory_()")
    shim.move_to_shared(storage)
    return storage


def identity(storage) -> StorageIdentity | None:
    """``StorageIdentity`` of a storage in shared memory or a mapped file, else None (heap memory)."""
    out = ffi.new("lt_storage_identity *")
    rc = lib.lt_storage_identity_of(out, storage._ptr)
    if rc == lib.LT_EINVAL:  # heap memory: no name another process shares
        return None
    check(rc)
    return StorageIdentity(int(out.device), int(out.inode), int(out.byte_offset))


class MappingIdentity(NamedTuple):
    """What names memory no storage describes (a NumPy memmap, a Python mmap): ``identity`` of
    its first byte, whether the mapping may be written, and whether it is private (its written
    pages are this process's copies, seen by no other mapping of the file)."""

    identity: StorageIdentity
    writable: bool
    private: bool


def address_identity(addr: int, nbytes: int) -> MappingIdentity | None:
    """``MappingIdentity`` of the bytes ``[addr, addr + nbytes)`` from the file mapping holding them
    (/proc/self/maps, read by libtensor; no byte at ``addr`` is read), or None when they lie in no file
    mapping (heap memory, an anonymous block)."""
    if addr <= 0 or nbytes < 0:
        return None
    out = ffi.new("lt_storage_identity *")
    flags = ffi.new("unsigned *")
    rc = lib.lt_address_identity(out, flags, ffi.cast("void *", addr), nbytes)
    if rc == lib.LT_EINVAL:
        return None
    check(rc)
    return MappingIdentity(StorageIdentity(int(out.device), int(out.inode), int(out.byte_offset)),
                           bool(flags[0] & lib.LT_MAPPING_WRITABLE), bool(flags[0] & lib.LT_MAPPING_PRIVATE))


def address_copied_pages(addr: int, nbytes: int) -> bytes:
    """For a private, writable file mapping no storage describes: one byte per page of
    ``[addr, addr + nbytes)`` (from the page holding ``addr``), 1 where the page was copied on write
    (/proc/self/pagemap; no byte is read). Raises LibtensorError (LT_EINVAL) for other memory."""
    size = mmap.PAGESIZE
    npages = (addr % size + nbytes + size - 1) // size if nbytes > 0 else 0
    out = ffi.new("uint8_t[]", max(npages, 1))
    check(lib.lt_address_copied_pages(out, npages, ffi.cast("void *", addr), max(nbytes, 0)))
    return ffi.buffer(out, npages)[:]
