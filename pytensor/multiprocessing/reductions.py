"""How tensors and storages cross a multiprocessing pipe: as the same physical pages, never as bytes.

Registered on ``multiprocessing.reduction.ForkingPickler`` (what Queue, Pipe,
Pool and spawn/forkserver's Process arguments pickle with), so plain
``pickle`` is unaffected. A storage travels once per message whatever the
number of views in it (pickle's memo), and a receiver keeps one
``UntypedStorage`` per region span (a cache by identity), so views sent in
separate messages still arrive as views of one storage.

A storage travels as:

* shared memory: (server address, device, inode, byte offset, nbytes); a
  storage not yet shared is moved there first (``share_memory_()``, as
  torch does), and one whose bytes belong to someone else (NumPy, a buffer,
  DLPack) travels as a shared copy;
* a file mapped shared or read-only: (path, mode, nbytes, identity); the
  receiver maps the same file and checks it is the same one;
* a file mapped privately with no page written yet: the same, mapped
  privately (copy-on-write) again on arrival; once a page is written the
  mapping holds bytes no file has, and it travels as a shared copy.

>>> import pickle, pytensor
>>> from multiprocessing.reduction import ForkingPickler
>>> t = pytensor.arange(4.0)
>>> data = ForkingPickler.dumps([t, t[1:]])  # moves t's storage to shared memory; sends it once, no bytes
>>> a, b = pickle.loads(data)  # received in this same process: the same storage object comes back
>>> a.untyped_storage() is b.untyped_storage() is t.untyped_storage(), t.is_shared(), len(data) < 1024
(True, True, True)
"""
from __future__ import annotations

import collections
import operator
import os
import threading
import weakref
from multiprocessing.reduction import ForkingPickler

from .. import dtypes as _dt
from .._ffi import ffi, lib, shim
from .._core import check_int64
from .._shm import StorageIdentity
from ..errors import DeviceError, check
from .. import Tensor, UntypedStorage
from ._fd_server import fetch, server

# (kind, device, inode, byte_offset, nbytes, readonly) -> the storage object this process has for it.
_storages: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
_storages_lock = threading.Lock()
# One received span of each of the last few arenas, kept so that their mappings stay: the next tensor
# from the same arena then needs no descriptor from its sender. Bounded: at most this many arenas of
# LT_SHM_ARENA_NBYTES (16 MiB) each stay mapped because of it; large storages are never kept.
_RECENT_ARENAS = 4
_recent_arenas: collections.OrderedDict = collections.OrderedDict()


def _remember(key, storage):
    with _storages_lock:
        kept = _storages.get(key)
        if kept is not None:
            return kept
        _storages[key] = storage
        return storage


def _cached(key):
    with _storages_lock:
        return _storages.get(key)


# ---------------------------------------------------------------- storages
def _shared_copy(storage):
    copy = shim.shm_new(storage.nbytes())
    if storage.nbytes():
        ffi.memmove(ffi.cast("void *", copy.data_ptr()), ffi.cast("void *", storage.data_ptr()), storage.nbytes())
    return copy


def _unwritten_private_file(storage):
    if storage._file is None or storage._file[1] != "private":
        return False
    try:
        return not any(storage.copied_pages())
    except RuntimeError:  # pagemap unreadable: assume written
        return False


def reduce_storage(storage):
    """ForkingPickler's reducer for UntypedStorage."""
    if not storage._host:
        raise DeviceError(f"cannot send a storage on {storage.device} to another process: pytensor shares host "
                          "memory only")
    nbytes, readonly = storage.nbytes(), storage.is_readonly()
    if storage._file is not None and (storage._file[1] != "private" or _unwritten_private_file(storage)):
        ident = storage.identity()
        if ident is not None:
            path, mode = storage._file
            _remember(("file", ident.device, ident.inode, ident.byte_offset, nbytes, mode), storage)
            return (_rebuild_file, (path, mode, nbytes, tuple(ident)))
    if not storage.is_shared():
        try:
            storage.share_memory_()
        except RuntimeError:  # the bytes are someone else's: send a copy
            storage = _shared_copy(storage)
    fd, region_nbytes, byte_offset = ffi.new("int *"), ffi.new("size_t *"), ffi.new("int64_t *")
    check(lib.lt_storage_shared_fd(fd, region_nbytes, byte_offset, storage._ptr))
    ident = storage.identity()
    srv = server()
    srv.export(storage, ident.device, ident.inode)
    region_offset = int(byte_offset[0])
    _remember(("shm", ident.device, ident.inode, region_offset, nbytes, readonly), storage)
    return (_rebuild_shared, (srv.address, ident.device, ident.inode, region_offset, nbytes, readonly))


def _rebuild_shared(address, device, inode, byte_offset, nbytes, readonly):
    storage = _receive_shared(address, device, inode, byte_offset, nbytes, readonly)
    count = ffi.new("int64_t *")
    check(lib.lt_storage_shared_in_flight_add(count, storage._ptr, -1))  # this message is received
    return storage


def _receive_shared(address, device, inode, byte_offset, nbytes, readonly):
    key = ("shm", device, inode, byte_offset, nbytes, readonly)
    storage = _cached(key)
    if storage is not None:
        return storage
    storage = shim.shm_receive(-1, device, inode, byte_offset, nbytes, readonly)
    if storage is None:
        fd = fetch(address, device, inode)
        try:
            storage = shim.shm_receive(fd, device, inode, byte_offset, nbytes, readonly)
        finally:
            os.close(fd)
    if nbytes <= lib.LT_SHM_SMALL_NBYTES:
        with _storages_lock:
            _recent_arenas[(device, inode)] = storage
            _recent_arenas.move_to_end((device, inode))
            while len(_recent_arenas) > _RECENT_ARENAS:
                _recent_arenas.popitem(last=False)
    return _remember(key, storage)


def _rebuild_file(path, mode, nbytes, ident):
    key = ("file", *ident, nbytes, mode)
    storage = _cached(key)
    if storage is not None:
        return storage
    lt_mode = {"shared": lib.LT_MAP_SHARED, "private": lib.LT_MAP_PRIVATE, "read-only": lib.LT_MAP_READONLY}.get(mode)
    if lt_mode is None or not isinstance(nbytes, int) or nbytes < 0:
        raise ValueError(f"a file storage message has mode {mode!r} and size {nbytes!r}")
    result = shim.map_file(os.fsencode(path), lt_mode, nbytes)
    if isinstance(result, int):
        check(result)
    result._file = (path, mode)
    got = result.identity()
    if got != StorageIdentity(*ident):
        raise RuntimeError(f"{path!r} is no longer the file the sender mapped (identity {tuple(ident)}, now "
                           f"{tuple(got) if got else None}): it was replaced or moved")
    return _remember(key, result)


# ---------------------------------------------------------------- tensors
def reduce_tensor(tensor):
    """ForkingPickler's reducer for Tensor: its storage (shared, once per message) and its layout."""
    if tensor.requires_grad and not tensor.is_leaf:
        raise RuntimeError("Cowardly refusing to serialize non-leaf tensor which requires_grad, since autograd "
                           "does not support crossing process boundaries. Send tensor.detach() instead")
    bits = (tensor._bits,) if tensor._bits else ()  # conjugate/negative bits: only when set
    return (_rebuild_tensor, (tensor.untyped_storage(), tensor.dtype.code, tuple(tensor.shape), tensor.stride(),
                              tensor.storage_offset(), tensor.requires_grad) + bits)


def _rebuild_tensor(storage, dtype_code, shape, strides, storage_offset, requires_grad, bits=0):
    # A message is data: its layout is checked against the storage before any byte is read through it.
    dtype = _dt.by_code.get(dtype_code) if isinstance(dtype_code, int) else None
    if not isinstance(storage, UntypedStorage) or dtype is None:
        raise ValueError(f"a tensor message needs an UntypedStorage and a dtype code in [0, {len(_dt.by_code)}), "
                         f"not {type(storage).__name__} and {dtype_code!r}")
    shape = check_int64("size", tuple(map(operator.index, shape)))
    strides = check_int64("stride", tuple(map(operator.index, strides)))
    storage_offset = operator.index(storage_offset)
    if len(shape) != len(strides) or len(shape) > lib.LT_MAX_NDIM or not 0 <= storage_offset < 2**63 or \
            any(s < 0 for s in strides):
        raise ValueError(f"a tensor message has an invalid layout: size {list(shape)}, stride {list(strides)}, "
                         f"storage offset {storage_offset}")
    check(lib.lt_layout_check(len(shape), shape, strides, storage_offset, dtype.itemsize, storage.nbytes()))
    t = Tensor._make(storage, dtype, shape, strides, storage_offset)
    # the lazy conjugate (1) / negative (2) bits travel with the view, as in a pickle (pytensor/_conj.py)
    if type(bits) is not int or bits not in (0, 1, 2, 3) or (bits & 1 and not dtype.is_complex):
        raise ValueError(f"a tensor message has invalid conjugate/negative bits {bits!r} for {dtype.name}")
    t._bits = bits
    if requires_grad:
        t.requires_grad_(True)
    return t


def init_reductions():
    """Registers the reducers on ForkingPickler (idempotent); importing pytensor.multiprocessing does it."""
    ForkingPickler.register(Tensor, reduce_tensor)
    ForkingPickler.register(UntypedStorage, reduce_storage)
