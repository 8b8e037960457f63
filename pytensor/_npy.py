"""pytensor.load: NumPy ``.npy`` files, mapped (a view of the file) or read into new memory.

An ``.npy`` file is the magic ``\\x93NUMPY``, a version (1.0, 2.0 or 3.0), the
header's length (2 bytes for 1.0, 4 after), a Python dict literal with
``descr``, ``fortran_order`` and ``shape``, then the elements. NumPy pads the
header so the data starts aligned, which lets the data be a view of the
mapping; Fortran order is expressed by the strides (the reversed row-major
layout, permuted), never by a copy, as ``np.load(mmap_mode=...)`` does.
"""
from __future__ import annotations

import os
import struct

from . import dtypes as _dt
from ._factories import empty
from ._file import from_file, header_shape_fits, open_regular
from ._layout import numel
from .errors import PytensorError
from ._core import Tensor

__all__ = ["load", "NpyFormatError"]

_MAGIC = b"\x93NUMPY"
_LENGTH_FORMAT = {1: "<H", 2: "<I", 3: "<I"}
# descr (without its byte-order character) -> dtype; '|', '<' and '=' are this machine's order.
_DESCR = {
    "b1": _dt.bool, "u1": _dt.uint8, "i1": _dt.int8, "u2": _dt.uint16, "i2": _dt.int16,
    "u4": _dt.uint32, "i4": _dt.int32, "u8": _dt.uint64, "i8": _dt.int64,
    "f2": _dt.float16, "f4": _dt.float32, "f8": _dt.float64, "c8": _dt.complex64, "c16": _dt.complex128,
}
_MAX_HEADER_BYTES = 1 << 20  # NumPy refuses headers over 10 KB without allow; 1 MiB bounds a hostile claim


class NpyFormatError(PytensorError, ValueError):
    """An ``.npy`` header is invalid or describes data pytensor cannot hold; the message says which."""


def _read_header(fd, file_nbytes, path):
    """``(data_start, dtype, shape, fortran_order)`` read with pread: nothing is mapped yet."""
    head = os.pread(fd, 12, 0)
    if len(head) < 10 or not head.startswith(_MAGIC):
        raise NpyFormatError(f"{path!r} is not an .npy file (it does not start with b'\\x93NUMPY')")
    major = head[6]
    if major not in _LENGTH_FORMAT:
        raise NpyFormatError(f"{path!r} is .npy version {major}.{head[7]}; pytensor reads 1.0, 2.0 and 3.0")
    fmt = _LENGTH_FORMAT[major]
    at = 8 + struct.calcsize(fmt)
    if len(head) < at:
        raise NpyFormatError(f"{path!r} ends inside its header length")
    (n,) = struct.unpack(fmt, head[8:at])
    if n > _MAX_HEADER_BYTES or at + n > file_nbytes:
        raise NpyFormatError(f"{path!r}: the header claims {n} bytes but the file holds {file_nbytes - at} after "
                             "the length")
    raw = os.pread(fd, n, at)
    import ast  # noqa: PLC0415  (8 ms: only load() needs it, not `import pytensor`)
    try:
        header = ast.literal_eval(raw.decode("utf-8" if major == 3 else "latin-1"))
    except (ValueError, SyntaxError, MemoryError, RecursionError) as e:
        raise NpyFormatError(f"{path!r}: the header is not a Python literal ({type(e).__name__})") from None
    if not isinstance(header, dict) or set(header) != {"descr", "fortran_order", "shape"}:
        raise NpyFormatError(f"{path!r}: the header must be a dict of descr, fortran_order and shape")
    dt = _dtype(header["descr"], path)
    shape, fortran = header["shape"], header["fortran_order"]
    if not (isinstance(shape, tuple) and all(type(d) is int and d >= 0 for d in shape)):
        raise NpyFormatError(f"{path!r}: shape must be a tuple of non-negative ints, got {shape!r}")
    if not header_shape_fits(shape, dt.itemsize):
        raise NpyFormatError(f"{path!r}: shape {shape} of {dt.name} has more than 64 dimensions, or extents "
                             "(zeros counted as ones) that multiply past int64 bytes")
    if not isinstance(fortran, bool):
        raise NpyFormatError(f"{path!r}: fortran_order must be True or False, got {fortran!r}")
    data_start = at + n
    nbytes = numel(shape) * dt.itemsize
    if data_start + nbytes > file_nbytes:
        raise NpyFormatError(f"{path!r}: shape {shape} of {dt.name} needs {nbytes} bytes but the file holds "
                             f"{file_nbytes - data_start} after the header")
    return data_start, dt, shape, fortran


def _dtype(descr, path):
    if not isinstance(descr, str):
        raise NpyFormatError(f"{path!r}: structured dtype {descr!r}; pytensor holds one plain dtype per tensor")
    order, code = (descr[0], descr[1:]) if descr[:1] in "<>|=" and descr else ("|", descr)
    if code == "O":
        raise NpyFormatError(f"{path!r} holds Python objects (pickles); pytensor never unpickles")
    dt = _DESCR.get(code)
    if dt is None:
        raise NpyFormatError(f"{path!r}: dtype {descr!r} has no pytensor equivalent")
    if order == ">" and dt.itemsize > 1:
        raise NpyFormatError(f"{path!r}: dtype {descr!r} is big-endian; pytensor stores this machine's "
                             "little-endian order (convert with NumPy's astype('<...') first)")
    return dt


def _layout(flat: Tensor, shape, fortran) -> Tensor:
    """``flat`` (1-D, dtype set) as ``shape``; Fortran order is the reversed C layout, permuted."""
    if not fortran or len(shape) < 2:
        return flat.reshape(shape)
    nd = len(shape)
    return flat.reshape(shape[::-1]).permute(*range(nd - 1, -1, -1))


def load(f, *, mmap: bool = False, shared: bool = False) -> Tensor:
    """The array of an ``.npy`` file: a view of the mapped file with ``mmap=True`` (nothing is read
    until touched; as ``np.load(mmap_mode="c")``, or ``"r+"`` with ``shared=True``: writes reach the
    file), else a copy in new memory (as ``np.load``). Values, shape and strides equal NumPy's.

    ``f`` is a path to a regular file (a FIFO or a device is refused, never waited on). Structured,
    object (pickled) and big-endian arrays are refused.

    >>> import os, tempfile, numpy as np, pytensor
    >>> path = os.path.join(tempfile.mkdtemp(), "a.npy")
    >>> np.save(path, np.asfortranarray(np.ones((2, 3), np.float32)))
    >>> t = pytensor.load(path, mmap=True); t.stride(), t.untyped_storage().mapped_file[1]
    ((1, 2), 'private')
    """
    if not isinstance(f, (str, bytes, os.PathLike)):
        raise TypeError(f"load(): expected a path to an .npy file, not {type(f).__name__}")
    if not isinstance(mmap, bool) or not isinstance(shared, bool):
        raise TypeError("load(): mmap and shared must be bool")
    if shared and not mmap:
        raise ValueError("load(): shared=True only applies to a mapping (mmap=True)")
    path = os.fsdecode(f)
    fd, st = open_regular(path, NpyFormatError)
    try:
        file_nbytes = st.st_size
        start, dt, shape, fortran = _read_header(fd, file_nbytes, path)
        nbytes = numel(shape) * dt.itemsize
        if not mmap:
            out = empty(shape[::-1] if fortran else shape, dtype=dt)
            if nbytes:
                got = os.preadv(fd, [out.reshape(-1).view(_dt.uint8).numpy()], start)
                if got != nbytes:
                    raise NpyFormatError(f"{path!r} changed while it was read ({got} of {nbytes} bytes)")
            return _layout(out.reshape(-1), shape, fortran)
    finally:
        os.close(fd)
    base = from_file(path, shared=shared, dtype=_dt.uint8, size=start + nbytes)
    raw = base[start:start + nbytes]
    if start % dt.itemsize:  # a hand-made header NumPy would not write: the bytes cannot be a view
        flat = empty(numel(shape), dtype=dt)
        flat.view(_dt.uint8)[:] = raw
    else:
        flat = raw.view(dt)
    return _layout(flat, shape, fortran)
