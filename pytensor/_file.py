"""from_file: tensors over memory-mapped files (libtensor's lt_storage_map_file)."""
from __future__ import annotations

import os

from . import dtypes as _dt
from ._ffi import ffi, lib
from ._storage import UntypedStorage
from .errors import check
from .tensor import Tensor, device as _device

__all__ = ["from_file"]


def from_file(filename, shared=None, size=None, *, dtype=None, layout=None, device=None, pin_memory=False,
              requires_grad=False):
    """Shares a memory-mapped file's bytes (never copies); creating the tensor reads nothing.

    ``shared=True`` maps the file MAP_SHARED: writes through any view reach the
    file, a missing file is created and a short one extended (existing bytes are
    never changed). ``shared=False``/``None`` maps it privately (copy-on-write):
    the file never changes, and it must already hold ``size`` elements.
    ``size=None`` maps the whole file. A file you may not write opens read-only,
    giving a read-only tensor.

    >>> import os, tempfile, pytensor
    >>> path = os.path.join(tempfile.mkdtemp(), "t.bin")
    >>> t = pytensor.from_file(path, shared=True, size=4, dtype=pytensor.int32)
    >>> t[:] = 7; os.path.getsize(path), open(path, "rb").read(4)
    (16, b'\\x07\\x00\\x00\\x00')
    """
    if not isinstance(filename, (str, bytes, os.PathLike)):
        raise TypeError(f"from_file(): argument 'filename' must be str, bytes or os.PathLike, not "
                        f"{type(filename).__name__}")
    if pin_memory:
        raise RuntimeError("from_file(): pin_memory=True needs an accelerator; pytensor maps files on the CPU only")
    if device is not None and _device(device).type != "cpu":
        raise RuntimeError(f"from_file(): pytensor maps files on the CPU only, not on {device}")
    if layout is not None and str(layout).rsplit(".", 1)[-1] != "strided":
        raise RuntimeError(f"from_file(): only the strided layout is supported, not {layout}")
    dt = _dt.as_dtype(dtype) if dtype is not None else _dt.get_default_dtype()
    if requires_grad and not (dt.is_floating_point or dt.is_complex):
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
    path = os.fsdecode(filename)
    isz = dt.itemsize
    if size is not None:
        size = int(size)
        if size < 0:
            raise RuntimeError(f"from_file(): size must be >= 0, got {size}")
        nbytes = size * isz
    else:
        nbytes = -1
    if shared:
        mode = lib.LT_MAP_SHARED
        if os.path.isfile(path) and not os.access(path, os.W_OK):
            mode = lib.LT_MAP_READONLY  # a file we may only read gives a read-only tensor
    else:
        mode = lib.LT_MAP_PRIVATE
    out = ffi.new("lt_storage **")
    check(lib.lt_storage_map_file(out, os.fsencode(path), mode, nbytes))
    storage = UntypedStorage._adopt(out[0])
    total = storage.nbytes()
    if size is None:
        if total % isz:
            raise RuntimeError(f"from_file(): {path!r} holds {total} bytes, which is not a multiple of the "
                               f"{dt.name} element size ({isz} bytes); pass size= to map a prefix")
        size = total // isz
    t = Tensor._make(storage, dt, (size,), (1,), 0)
    if requires_grad:
        t.requires_grad_(True)
    return t
