"""from_file: tensors over memory-mapped files (libtensor's lt_storage_map_file)."""
from __future__ import annotations

import operator
import os

from . import dtypes as _dt
from ._core import Tensor, make
from ._device import device as _device
from ._ffi import lib, shim
from ._provenance import OP
from .errors import check

_P_FROM_FILE = OP["from_file"]

__all__ = ["from_file"]

_SHARED, _PRIVATE, _READONLY = lib.LT_MAP_SHARED, lib.LT_MAP_PRIVATE, lib.LT_MAP_READONLY
_MODE_NAMES = {_SHARED: "shared", _PRIVATE: "private", _READONLY: "read-only"}
_INT64_MAX = 2**63 - 1


def from_file(filename: str | bytes | os.PathLike, shared: bool | None = None, size: int | None = None, *,
              dtype: _dt.dtype | str | None = None, layout: object = None, device: str | _device | None = None,
              pin_memory: bool = False, requires_grad: bool = False) -> Tensor:
    """Shares a memory-mapped file's bytes (never copies); creating the tensor reads nothing.

    ``shared=True`` maps the file MAP_SHARED: writes through any view reach the
    file, a missing file is created (mode 0600, as torch) and a short one
    extended (existing bytes are never changed). ``shared=False``/``None`` maps
    it privately (copy-on-write): the file never changes, and it must already
    hold ``size`` elements. ``size=None`` maps the whole file; ``size=0`` gives
    an empty tensor and touches no file (as torch). With ``shared=True``, a file
    you may not write opens read-only and gives a read-only tensor.

    >>> import os, tempfile, pytensor
    >>> path = os.path.join(tempfile.mkdtemp(), "t.bin")
    >>> t = pytensor.from_file(path, shared=True, size=4, dtype=pytensor.int32)
    >>> t[:] = 7; os.path.getsize(path), open(path, "rb").read(4)
    (16, b'\\x07\\x00\\x00\\x00')
    """
    path = _check_path(filename)
    _check_shared(shared)
    if size is not None:
        try:
            size = operator.index(size)
        except TypeError:
            raise TypeError(f"from_file(): argument 'size' must be int or None, not {type(size).__name__}") from None
    # torch's exception types: RuntimeError for pinning, NotImplementedError
    # (a RuntimeError) for a backend or layout that has no from_file kernel.
    if pin_memory:
        raise RuntimeError("from_file(): tensors constructed from a file cannot be pinned (pin_memory=True); "
                           "pytensor maps files into CPU memory only")
    if device is not None and _device(device).type != "cpu":
        raise NotImplementedError(f"from_file(): pytensor maps files into CPU memory only, not onto device {device}")
    if layout is not None and str(layout).rsplit(".", 1)[-1] != "strided":
        raise NotImplementedError(f"from_file(): only the strided layout is supported, not {layout}")
    dt = _dt.dtype_arg("from_file", dtype)
    dt = dt if dt is not None else _dt.get_default_dtype()
    if requires_grad and not (dt.is_floating_point or dt.is_complex):
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
    storage = _map(path, shared, _mapping_nbytes(size, dt))
    if size is None:
        total = storage.nbytes()
        if total % dt.itemsize:
            storage = None  # unmap now, not when the traceback (which holds this frame) dies
            raise RuntimeError(f"from_file(): {path!r} holds {total} bytes, which is not a multiple of the "
                               f"{dt.name} element size ({dt.itemsize} bytes); pass size= to map a prefix")
        size = total // dt.itemsize
    t = make(storage, dt, (size,), (1,), 0, _P_FROM_FILE, (path, bool(shared)), None)
    if requires_grad:
        t.requires_grad_(True)
    return t


def map_storage(fn, filename, shared, nbytes, name="nbytes"):
    """``(storage, path)``: ``nbytes`` of ``filename`` mapped as from_file maps them
    (None: the whole file); UntypedStorage.from_file's body."""
    path = _check_path(filename, fn)
    _check_shared(shared, fn)
    if nbytes is not None:
        if isinstance(nbytes, bool) or not isinstance(nbytes, int):
            raise TypeError(f"{fn}(): argument '{name}' must be int or None, not {type(nbytes).__name__}")
        if nbytes < 0:
            raise RuntimeError(f"{fn}(): {name} must be >= 0, got {nbytes}")
    return _map(path, shared, -1 if nbytes is None else nbytes), path


def _check_shared(shared, fn="from_file"):
    if shared is not None and not isinstance(shared, bool):
        raise TypeError(f"{fn}(): argument 'shared' must be bool or None, not {type(shared).__name__}")


def _map(path, shared, nbytes):
    """A storage over ``nbytes`` (-1: all) of the file; 0 bytes maps nothing and
    opens no file, as torch (a missing file is then neither an error nor created)."""
    mode = _SHARED if shared else _PRIVATE
    if nbytes == 0:
        storage = shim.wrap_object(None, 0, 0, 0, lib.LT_PROV_FILE, f"{path} ({_MODE_NAMES[mode]}, empty)")
        storage._file = (path, _MODE_NAMES[mode])
        return storage
    cpath = os.fsencode(path)
    storage = shim.map_file(cpath, mode, nbytes)  # a storage, or the failing status
    if storage.__class__ is int and mode == _SHARED and _may_only_read(path):
        mode = _READONLY  # a file we may only read gives a read-only tensor
        storage = shim.map_file(cpath, mode, nbytes)
    if storage.__class__ is int:
        check(storage)
    storage._file = (path, _MODE_NAMES[mode])
    return storage


def _check_path(filename, fn="from_file"):
    """The path as str; refuses what the OS would silently misread."""
    if not isinstance(filename, (str, bytes, os.PathLike)):
        raise TypeError(f"{fn}(): argument 'filename' must be str, bytes or os.PathLike, not "
                        f"{type(filename).__name__}")
    path = os.fsdecode(filename)
    # C would stop reading at the first NUL and map a different file (torch does).
    if "\0" in path:
        raise ValueError(f"{fn}(): embedded null byte in the path {path!r}")
    return path


def _mapping_nbytes(size, dt):
    """Bytes to map: size * itemsize, or -1 for the whole file."""
    if size is None:
        return -1
    if size < 0:
        raise RuntimeError(f"from_file(): size must be >= 0, got {size}")
    nbytes = size * dt.itemsize
    if nbytes > _INT64_MAX:
        raise RuntimeError(f"from_file(): size {size} of {dt.name} is {nbytes} bytes, more than a file "
                           f"can hold ({_INT64_MAX} bytes)")
    return nbytes


def _may_only_read(path):
    """True for an existing file that this process may read but not write.

    Asked only after a shared map failed, so the common case costs no extra
    system call. ``os.access`` with effective ids puts the question open(O_RDWR)
    does, so a read-only file or file system counts and, as for open(), the
    permission bits do not stop root.
    """
    effective = os.access in os.supports_effective_ids
    return os.path.isfile(path) and not os.access(path, os.W_OK, effective_ids=effective) and \
        os.access(path, os.R_OK, effective_ids=effective)
