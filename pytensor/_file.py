"""from_file: tensors over memory-mapped files (libtensor's lt_storage_map_file), and the two rules
every reader and writer of pytensor's files follows: read only regular files (open_regular), and
never write into a file in place (write_replacing)."""
from __future__ import annotations

import operator
import os
import secrets
import stat

from . import dtypes as _dt
from ._core import Tensor, make
from ._device import device as _device
from ._ffi import lib, shim
from ._layout import numel as _numel
from ._provenance import OP
from .errors import LayoutError, check

_P_FROM_FILE = OP["from_file"]

__all__ = ["from_file", "open_regular", "write_replacing", "header_shape_fits"]

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


# ---------------------------------------------------------------- reading and writing whole files

def header_shape_fits(shape, itemsize):
    """True when a shape read from a file header (a list of ints >= 0) can be a tensor: at most
    LT_MAX_NDIM dimensions whose extents, zeros counted as ones, multiply to at most int64 bytes
    (NumPy's rule). Asked before a file is mapped, so that an empty tensor whose strides would
    overflow is refused as a bad header rather than failing once the file is mapped."""
    if len(shape) > lib.LT_MAX_NDIM or any(n > _INT64_MAX for n in shape):
        return False
    try:
        return _numel(tuple(max(n, 1) for n in shape)) <= _INT64_MAX // itemsize
    except LayoutError:  # libtensor's refusal of a product past int64
        return False


_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def _kind(mode):
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def open_regular(path, error):
    """``(fd, stat)`` of the regular file ``path``, opened read-only; the caller closes ``fd``.

    O_NONBLOCK keeps open() from waiting forever for a FIFO's writer (for a
    regular file it changes nothing), and the type is asked of the open
    descriptor, so what is checked is what is read. Anything but a regular
    file (a FIFO, a device, a directory) raises ``error`` naming the path, as
    from_file refuses it in libtensor.
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise error(f"{path!r} is {_kind(st.st_mode)}, not a regular file; only regular files are read")
    except BaseException:
        os.close(fd)
        raise
    return fd, st


def write_replacing(filename, write, fn, error):
    """Writes a new file at ``filename``: ``write(f)`` fills a temporary file (a
    binary file object) in the same directory, which is flushed to disk and
    renamed over the path.

    Never writing into the old file in place is what makes saving over a file
    that is mapped safe (``save_file(load_file(p), p)``): the live mappings
    keep the old inode, unchanged, and read from it while the new one is
    written. A failure midway (an exception from ``write``, a full disk,
    Ctrl-C) removes the temporary file and leaves the old file whole. The
    new file keeps an existing file's permission bits (and owner, where
    allowed); a symbolic link stays a link and its target is replaced (a
    hard link to the old file keeps the old contents, as after any rename). An
    existing path that is not a regular file raises ``error``: a FIFO or a
    device cannot be replaced by renaming, and writing into one can block.
    """
    given = os.fsdecode(filename)
    path = os.path.realpath(given)
    try:
        old = os.stat(path)
    except FileNotFoundError:
        old = None
    if old is not None and not stat.S_ISREG(old.st_mode):
        raise error(f"{fn}(): {given!r} is {_kind(old.st_mode)}, not a regular file; pytensor writes a new "
                    "file and renames it over the path, which only a regular file can take")
    directory, base = os.path.split(path)
    fd, tmp = _create_beside(directory, base, given)
    try:
        if old is not None:
            _keep_owner_and_mode(fd, old)
        with open(fd, "wb", closefd=False) as f:
            write(f)
        os.fsync(fd)  # the data is on disk before the name points at it
        closing, fd = fd, -1  # never closed twice, even if Ctrl-C lands between these lines
        os.close(closing)
        os.replace(tmp, path)
    except BaseException:
        # A Ctrl-C raised while this runs (Python runs a signal's handler at its next call) must
        # not skip the unlink: it sits in a finally of its own.
        try:
            if fd >= 0:
                os.close(fd)
        finally:
            _unlink_if_there(tmp)
        raise
    _sync_directory(directory)


def _unlink_if_there(path):
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def _create_beside(directory, base, given):
    """``(fd, path)`` of a new, empty file in ``directory``, named after ``base``.

    Mode 0666 before the umask, as open(path, "wb") would create the file.
    """
    for _ in range(64):
        tmp = os.path.join(directory, f".{base[:200]}.{secrets.token_hex(6)}.tmp")
        try:
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666), tmp
        except FileExistsError:
            continue
        except OSError as e:
            raise OSError(e.errno, f"{e.strerror}: writing {given!r} needs a new file beside it "
                          "(renamed over it when complete)", tmp) from None
    raise FileExistsError(f"could not find a free temporary name beside {given!r}")


def _keep_owner_and_mode(fd, old):
    try:
        if (old.st_uid, old.st_gid) != (os.geteuid(), os.getegid()):
            os.fchown(fd, old.st_uid, old.st_gid)
    except OSError:
        pass  # only root may give a file away: the new file is then the writer's, as after any editor's save
    os.fchmod(fd, stat.S_IMODE(old.st_mode) & 0o777)


def _sync_directory(directory):
    """Makes the rename itself durable; a file system that cannot sync a directory needs no more."""
    try:
        dfd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return
    try:
        os.fsync(dfd)
    except OSError:
        pass
    finally:
        os.close(dfd)
