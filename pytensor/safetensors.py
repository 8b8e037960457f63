"""safetensors files as views of one mapping: load_file, safe_open, save_file, load, save.

A safetensors file is an 8-byte little-endian header length ``N``, ``N``
bytes of JSON (``{name: {"dtype", "shape", "data_offsets": [begin, end]},
"__metadata__": {str: str}}``), then the data; ``data_offsets`` count bytes
from the end of the header. ``load_file`` maps the whole file once
(``from_file``) and returns every tensor as a view of that one storage, so
opening reads only the header and a tensor's pages are read when touched.

What is shared, what is copied, what is refused:

* ``load_file``/``safe_open(...).get_tensor`` share the mapping. With
  ``shared=False`` (the default) it is private: writes stay in this process
  and the file never changes. With ``shared=True`` writes reach the file.
* A tensor whose bytes are not aligned to its element size (the format does
  not require it; the writers sort tensors so it never happens) cannot be a
  view: it is copied into new memory.
* The header is checked before anything is mapped: its length against the
  file, JSON that is an object, dtypes, shapes, offsets that tile the data
  exactly (no holes, no overlap, nothing past the end) and duplicate names.
  Any failure raises :class:`SafetensorError` naming the numbers. The JSON is
  read as strictly as the ``safetensors`` package's parser (serde_json) reads
  it, so every file accepted here is read the same by the package: no key
  twice in one object, no NaN or Infinity, no lone surrogate escape, no
  number out of a double's range, no nesting past 127 levels; ``-0`` is a
  float, never a size. A shape whose extents (zeros counted as ones)
  multiply past int64 bytes is refused, so an empty tensor's strides fit.
* Only regular files are read (a FIFO would block the open forever), and
  ``save_file`` never writes into an existing file: it writes a new one
  beside it and renames it over the path, so saving over a file that is
  mapped (``save_file(load_file(p), p)``) leaves the old mapping intact.

>>> import os, tempfile, pytensor
>>> from pytensor import safetensors
>>> path = os.path.join(tempfile.mkdtemp(), "w.safetensors")
>>> safetensors.save_file({"w": pytensor.arange(6).view(2, 3)}, path)
>>> t = safetensors.load_file(path)["w"]; t.tolist(), t.untyped_storage().nbytes() == os.path.getsize(path)
([[0, 1, 2], [3, 4, 5]], True)
"""
from __future__ import annotations

import json
import math
import os
import re
import struct

from . import dtypes as _dt
from ._file import from_file, header_shape_fits, open_regular, write_replacing
from ._factories import empty
from ._ffi import lib, shim
from .creation import frombuffer
from ._layout import nbytes as _nbytes
from .errors import LayoutError, PytensorError
from ._core import Tensor, TensorBase

__all__ = ["SafetensorError", "load_file", "safe_open", "save_file", "load", "save"]

# The format's dtype names (safetensors' Dtype enum) for the dtypes pytensor stores.
_DTYPES = {
    "BOOL": _dt.bool, "U8": _dt.uint8, "I8": _dt.int8, "U16": _dt.uint16, "I16": _dt.int16,
    "U32": _dt.uint32, "I32": _dt.int32, "U64": _dt.uint64, "I64": _dt.int64,
    "F16": _dt.float16, "BF16": _dt.bfloat16, "F32": _dt.float32, "F64": _dt.float64,
    "C64": _dt.complex64,
    "F8_E4M3": _dt.float8_e4m3fn, "F8_E5M2": _dt.float8_e5m2, "F8_E8M0": _dt.float8_e8m0fnu,
    "F8_E4M3FNUZ": _dt.float8_e4m3fnuz, "F8_E5M2FNUZ": _dt.float8_e5m2fnuz,
}
_NAMES = {dt: name for name, dt in _DTYPES.items()}
_ITEMSIZES = {name: dt.itemsize for name, dt in _DTYPES.items()}
# Format dtypes pytensor cannot store: refused by name rather than as "unknown". F4 counts 4-bit
# elements in its shape, where pytensor's float4_e2m1fn_x2 (as torch's) holds two per element.
_KNOWN_UNSUPPORTED = {"F4", "F6_E2M3", "F6_E3M2", "C128"}
# safetensors' own cap on the header (100 MB): a larger claim is a corrupt or hostile file.
MAX_HEADER_BYTES = 100_000_000
# serde_json's recursion limit, which the package's parser keeps: a header nested 128 arrays or objects
# deep is refused there (and json would recurse into it), so it is refused here before json reads it.
_MAX_DEPTH = 127
# A double holds any integer of up to 308 digits; serde_json refuses a number past a double's range.
_MAX_DIGITS = 308
_INT64_MAX = 2**63 - 1
_MAX_NDIM = lib.LT_MAX_NDIM
_SURROGATE = re.compile("[\ud800-\udfff]")  # after json joined the valid pairs, any left is alone
_MAYBE_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")  # the only spelling that can produce one
_ALIGN = 8  # writers pad the header so the data starts 8-aligned


class SafetensorError(PytensorError, ValueError):
    """A safetensors header or argument is invalid; the message names the offending numbers."""


# ---------------------------------------------------------------- header parsing

def _no_duplicates(pairs):
    """An object's pairs as a dict, refusing a key given twice: a tensor name (the package keeps the
    last), a field of an entry or ``__metadata__`` (the package refuses both), or a metadata key."""
    out = dict(pairs)
    if len(out) != len(pairs):  # the rare case: find the key that came twice
        seen = set()
        for k, _ in pairs:
            if k in seen:
                raise SafetensorError(f"the header names {k!r} twice in one object")
            seen.add(k)
    return out


def _json_int(digits):
    if digits == "-0":
        return -0.0  # serde_json reads -0 as the float -0.0: never a size or an offset
    if len(digits) - (digits[0] == "-") > _MAX_DIGITS:
        raise SafetensorError(f"the header holds a number of {len(digits)} digits, out of a double's range")
    return int(digits)


def _json_float(digits):
    value = float(digits)
    if math.isinf(value):
        raise SafetensorError(f"the header holds the number {digits[:40]!r}, out of a double's range")
    return value


def _json_constant(word):
    raise SafetensorError(f"the header holds {word}, which is not JSON")


def _lone_surrogate(value):
    """The first string (a key or a value, at any depth) holding a lone surrogate, or None."""
    stack = [value]
    while stack:
        v = stack.pop()
        if type(v) is str:
            if _SURROGATE.search(v):
                return v
        elif type(v) is dict:
            stack.extend(v)
            stack.extend(v.values())
        elif type(v) is list:
            stack.extend(v)
    return None


def _parse_header(raw: bytes, data_nbytes: int):
    """``(entries, metadata)`` from the header bytes; entries are ``(name, dtype, shape, begin, end)``
    sorted by ``begin``, checked to tile ``data_nbytes`` bytes exactly."""
    fast = shim.safetensors_header(raw, _ITEMSIZES)  # the common case, checked in C; None: read it here
    if fast is not None:
        rows, metadata = fast
        entries = [(name, _DTYPES[code], shape, begin, end) for name, code, shape, begin, end in rows]
    else:
        entries, metadata = _parse_json(raw)
    entries.sort(key=lambda e: (e[3], e[4]))
    end = 0
    for name, _, _, begin, stop in entries:
        if begin != end:
            what = "overlaps the tensor before it" if begin < end else "leaves a hole after the tensor before it"
            raise SafetensorError(f"tensor {name!r} starts at data byte {begin}, but the previous tensor ends at "
                                  f"{end}: it {what}")
        end = stop
    if end != data_nbytes:
        raise SafetensorError(f"the tensors cover {end} bytes of data but the file holds {data_nbytes} bytes "
                              "after the header")
    return entries, metadata


def _parse_json(raw):
    """The header read by json, every entry checked: ``(unsorted entries, metadata)``, or the error.

    json alone accepts more than the format (a key twice, NaN, lone surrogates, any nesting, numbers
    of any length); the hooks and checks here refuse each, so a header read here reads the same in
    the ``safetensors`` package.
    """
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise SafetensorError(f"the header is not UTF-8 (byte {e.start} of {len(raw)})") from None
    depth = shim.safetensors_depth(raw)
    if depth > _MAX_DEPTH:
        raise SafetensorError(f"the header nests arrays and objects {depth} deep; the format's parser "
                              f"allows {_MAX_DEPTH}")
    try:
        header = json.loads(text, object_pairs_hook=_no_duplicates, parse_int=_json_int,
                            parse_float=_json_float, parse_constant=_json_constant)
    except json.JSONDecodeError as e:
        raise SafetensorError(f"the header is not JSON: {e.msg} at byte {e.pos} of {len(raw)}") from None
    except RecursionError:  # only below a recursion limit lowered under _MAX_DEPTH
        raise SafetensorError(f"the header nests {depth} deep, past this interpreter's recursion limit") from None
    if _MAYBE_SURROGATE.search(text):
        lone = _lone_surrogate(header)
        if lone is not None:
            raise SafetensorError(f"the header holds the string {lone!r} with a lone surrogate escape, "
                                  "which is not Unicode")
    if not isinstance(header, dict):
        raise SafetensorError(f"the header is a JSON {type(header).__name__}, not an object")
    metadata = header.pop("__metadata__", None)
    if metadata is not None and not (isinstance(metadata, dict)
                                     and all(isinstance(v, str) for v in metadata.values())):
        raise SafetensorError("__metadata__ must be an object of strings to strings")
    return [_fast_entry(name, info) or _entry(name, info) for name, info in header.items()], metadata


def _fast_entry(name, info, _int=int, _list=list, _dict=dict, _tuple=tuple):
    """The common, valid entry in a few hundred nanoseconds, or None: then _entry checks it and says why."""
    if type(info) is not _dict:
        return None
    shape, offsets, dt = info.get("shape"), info.get("data_offsets"), _DTYPES.get(info.get("dtype"), None) \
        if type(info.get("dtype")) is str else None
    if dt is None or type(shape) is not _list or type(offsets) is not _list or len(offsets) != 2:
        return None
    begin, end = offsets
    if type(begin) is not _int or type(end) is not _int or not 0 <= begin <= end or len(shape) > _MAX_NDIM:
        return None
    for n in shape:
        if type(n) is not _int or not 0 <= n <= _INT64_MAX:
            return None
    try:
        nbytes = _nbytes(_tuple(shape), dt.itemsize)
    except LayoutError:  # past int64 bytes: _entry says so
        return None
    if nbytes != end - begin or not nbytes:  # empty: _entry checks that its strides fit
        return None
    return name, dt, tuple(shape), begin, end


def _entry(name, info):
    if type(info) is not dict or not {"dtype", "shape", "data_offsets"} <= info.keys():
        # other keys are ignored, as the package does
        have = sorted(info) if type(info) is dict else type(info).__name__
        raise SafetensorError(f"tensor {name!r} needs dtype, shape and data_offsets; it has {have}")
    code, shape, offsets = info["dtype"], info["shape"], info["data_offsets"]
    dt = _DTYPES.get(code) if type(code) is str else None
    if dt is None:
        if type(code) is str and code in _KNOWN_UNSUPPORTED:
            raise SafetensorError(f"tensor {name!r} has dtype {code}, which pytensor does not store")
        raise SafetensorError(f"tensor {name!r} has unknown dtype {code!r}")
    if type(shape) is not list or not all(type(n) is int and n >= 0 for n in shape):
        raise SafetensorError(f"tensor {name!r}: shape must be a list of non-negative integers, got {shape!r}")
    if len(shape) > _MAX_NDIM:
        raise SafetensorError(f"tensor {name!r} has {len(shape)} dimensions; pytensor holds at most {_MAX_NDIM}")
    if any(n > _INT64_MAX for n in shape):
        raise SafetensorError(f"tensor {name!r}: shape {shape} has an extent past int64")
    if type(offsets) is not list or len(offsets) != 2 or type(offsets[0]) is not int or type(offsets[1]) is not int:
        raise SafetensorError(f"tensor {name!r}: data_offsets must be two integers, got {offsets!r}")
    begin, end = offsets
    if begin < 0 or end < begin:
        raise SafetensorError(f"tensor {name!r}: data_offsets [{begin}, {end}] are reversed or negative")
    try:
        nbytes = _nbytes(shape, dt.itemsize)  # libtensor's one rule (lt_layout_nbytes)
    except LayoutError:
        raise SafetensorError(f"tensor {name!r}: shape {shape} of {code} needs more than int64 bytes; data_offsets "
                              f"[{begin}, {end}] hold {end - begin}") from None
    if nbytes != end - begin:
        raise SafetensorError(f"tensor {name!r}: shape {shape} of {code} needs {nbytes} bytes but data_offsets "
                              f"[{begin}, {end}] hold {end - begin}")
    if not nbytes and not header_shape_fits(shape, dt.itemsize):
        raise SafetensorError(f"tensor {name!r}: shape {shape} has no elements, but its other extents multiply "
                              f"past int64 bytes of {code}, so its strides would overflow")
    return name, dt, tuple(shape), begin, end


def _read_header(fd, file_nbytes, path):
    """``(header_nbytes, entries, metadata)`` read with pread: nothing is mapped yet."""
    if file_nbytes < 8:
        raise SafetensorError(f"{path!r} holds {file_nbytes} bytes: too short for the 8-byte header length")
    (n,) = struct.unpack("<Q", os.pread(fd, 8, 0))
    if n > file_nbytes - 8:
        raise SafetensorError(f"the header length is {n} bytes but {path!r} holds only {file_nbytes - 8} bytes "
                              "after the length")
    if n > MAX_HEADER_BYTES:
        raise SafetensorError(f"the header length is {n} bytes, over the format's limit of {MAX_HEADER_BYTES}")
    raw = os.pread(fd, n, 8)
    if len(raw) != n:
        raise SafetensorError(f"{path!r} changed while its header was read ({len(raw)} of {n} bytes)")
    entries, metadata = _parse_header(raw, file_nbytes - 8 - n)
    return n, entries, metadata


# ---------------------------------------------------------------- views over the bytes

def _view(base: Tensor, data_start: int, dt, shape, begin, end) -> Tensor:
    """The tensor at bytes ``[data_start + begin, data_start + end)`` of the 1-D uint8 ``base``:
    a view when those bytes are aligned to the element size, else a copy."""
    lo = data_start + begin
    raw = base[lo:data_start + end]
    if (base.storage_offset() + lo) % dt.itemsize == 0:
        return raw.view(dt).reshape(shape)
    out = empty(shape, dtype=dt)
    out.reshape(-1).view(_dt.uint8)[:] = raw
    return out


class safe_open:  # noqa: N801  (the safetensors package's name)
    """Lazy access to a safetensors file by name: the header is read and checked, the file mapped
    (nothing of the data is read), and each ``get_tensor`` is a view of that one mapping.

    ``framework`` is accepted for the package's signature and must be ``None``, ``"pt"`` or
    ``"pytensor"``; ``device`` must be ``"cpu"``.
    """

    def __init__(self, filename, framework=None, device="cpu", *, shared=False):
        if framework not in (None, "pt", "pytensor"):
            raise SafetensorError(f"safe_open(): framework {framework!r} is not pytensor's")
        if str(device) != "cpu":
            raise SafetensorError(f"safe_open(): pytensor maps files into CPU memory only, not {device!r}")
        path = os.fsdecode(filename)
        fd, st = open_regular(path, SafetensorError)
        try:
            file_nbytes = st.st_size
            n, entries, self._metadata = _read_header(fd, file_nbytes, path)
        finally:
            os.close(fd)
        self._entries = {e[0]: e[1:] for e in entries}
        self._order = [e[0] for e in entries]
        self._data_start = 8 + n
        self.path = path
        self._base = from_file(path, shared=shared, dtype=_dt.uint8)
        if self._base.numel() != file_nbytes:
            nbytes = self._base.numel()
            self._base = None
            raise SafetensorError(f"{path!r} changed size while it was opened ({file_nbytes} -> {nbytes} bytes)")

    def keys(self):
        """The tensor names, in the order of their bytes in the file."""
        return list(self._order)

    def metadata(self):
        """The header's ``__metadata__`` dict of strings, or None."""
        return dict(self._metadata) if self._metadata is not None else None

    def get_tensor(self, name) -> Tensor:
        """The tensor ``name``: a view of the file's mapping (a copy only when misaligned)."""
        if self._base is None:
            raise SafetensorError("safe_open(): the file is closed")
        try:
            dt, shape, begin, end = self._entries[name]
        except KeyError:
            raise SafetensorError(f"no tensor named {name!r} in {self.path!r}") from None
        return _view(self._base, self._data_start, dt, shape, begin, end)

    def close(self):
        """Drops this object's reference to the mapping; tensors already taken keep it alive."""
        self._base = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def load_file(filename, device="cpu", *, shared=False) -> dict[str, Tensor]:
    """Every tensor of a safetensors file, as views of one ``from_file`` mapping of the whole file.

    Nothing after the header is read until a tensor is touched. ``shared=False`` maps privately
    (writes never reach the file); ``shared=True`` maps it shared (writes do).
    """
    with safe_open(filename, device=device, shared=shared) as f:
        return {name: f.get_tensor(name) for name in f.keys()}


def load(data: bytes) -> dict[str, Tensor]:
    """Every tensor of a safetensors file held in ``data`` (bytes-like), as views of its memory:
    read-only over ``bytes``, writable over a ``bytearray``."""
    mv = memoryview(data).cast("B")
    if mv.nbytes < 8:
        raise SafetensorError(f"the data holds {mv.nbytes} bytes: too short for the 8-byte header length")
    (n,) = struct.unpack("<Q", mv[:8])
    if n > mv.nbytes - 8:
        raise SafetensorError(f"the header length is {n} bytes but the data holds only {mv.nbytes - 8} bytes "
                              "after the length")
    if n > MAX_HEADER_BYTES:
        raise SafetensorError(f"the header length is {n} bytes, over the format's limit of {MAX_HEADER_BYTES}")
    entries, _ = _parse_header(bytes(mv[8:8 + n]), mv.nbytes - 8 - n)
    base = frombuffer(data, dtype=_dt.uint8) if mv.nbytes else None
    return {name: _view(base, 8 + n, dt, shape, b, e) for name, dt, shape, b, e in entries}


# ---------------------------------------------------------------- writing

def _plan(tensors, metadata):
    """``(header bytes, [(tensor, nbytes)])`` in the order the writers use: larger elements first,
    then by name, so every tensor's bytes are aligned to its element size."""
    if not isinstance(tensors, dict):
        raise TypeError(f"save_file(): tensors must be a dict of str to Tensor, not {type(tensors).__name__}")
    if metadata is not None and not (isinstance(metadata, dict)
                                     and all(isinstance(k, str) and isinstance(v, str) for k, v in metadata.items())):
        raise TypeError("save_file(): metadata must be a dict of str to str")
    for text in [*tensors, *(metadata or {}), *(metadata or {}).values()]:
        if isinstance(text, str) and _SURROGATE.search(text):  # json would write "\ud800", which no reader takes
            raise SafetensorError(f"save_file(): {text!r} holds a lone surrogate, which is not Unicode")
    for name, t in tensors.items():
        if not isinstance(name, str):
            raise TypeError(f"save_file(): tensor names must be str, got {type(name).__name__}")
        if name == "__metadata__":
            raise SafetensorError("save_file(): '__metadata__' is reserved by the format and cannot name a tensor")
        if not isinstance(t, TensorBase):
            raise TypeError(f"save_file(): {name!r} is a {type(t).__name__}, not a pytensor Tensor")
        if t.dtype not in _NAMES:
            raise SafetensorError(f"save_file(): {name!r} has dtype {t.dtype}, which the format has no name for")
    if _text_nbytes(metadata) + _text_nbytes(tensors) > MAX_HEADER_BYTES:
        _header_too_large("more than", tensors, metadata)  # JSON only adds to the text
    order = sorted(tensors, key=lambda k: (-tensors[k].dtype.itemsize, k))
    header, at, parts = {}, 0, []
    if metadata is not None:
        header["__metadata__"] = dict(metadata)
    for name in order:
        t = tensors[name]
        nbytes = t.numel() * t.dtype.itemsize
        header[name] = {"dtype": _NAMES[t.dtype], "shape": list(t.shape), "data_offsets": [at, at + nbytes]}
        parts.append((t, nbytes))
        at += nbytes
    raw = json.dumps(header, separators=(",", ":")).encode()
    raw += b" " * (-(8 + len(raw)) % _ALIGN)  # spaces are valid JSON padding; the data starts aligned
    if len(raw) > MAX_HEADER_BYTES:  # refused by every reader: refused here before a byte is written
        _header_too_large(len(raw), tensors, metadata)
    return raw, parts


def _text_nbytes(strings):
    """Characters in the keys (and str values) of a dict: a lower bound on their bytes in the header."""
    return sum(len(k) + len(v) if isinstance(v, str) else len(k) for k, v in (strings or {}).items())


def _header_too_large(nbytes, tensors, metadata):
    """Raises: ``nbytes`` is the encoded header's size, or "more than" when the text alone is over."""
    size = f"more than {MAX_HEADER_BYTES}" if nbytes == "more than" else nbytes
    raise SafetensorError(f"save_file(): the header would be {size} bytes, over the format's limit of "
                          f"{MAX_HEADER_BYTES} that every reader enforces (metadata: {_text_nbytes(metadata)} "
                          f"characters, tensor names: {_text_nbytes(tensors)})")


def _bytes_of(t: Tensor):
    """A uint8 NumPy view of ``t``'s elements in row-major order (a copy only if ``t`` is not contiguous)."""
    # a conjugate/negative view's values, not its bytes
    flat = t.detach().resolve_conj().resolve_neg().contiguous().reshape(-1) if t.numel() else None
    return flat.view(_dt.uint8).numpy() if flat is not None else b""


def save_file(tensors: dict[str, Tensor], filename, metadata: dict[str, str] | None = None) -> None:
    """Writes ``tensors`` in the safetensors format (each one's elements in row-major order; views are
    written as their elements, not their storage). ``metadata`` becomes ``__metadata__``.

    The file is written beside ``filename`` and renamed over it when complete, so the tensors may be
    views of the very file being replaced (a live mapping keeps the old file), and a failure midway
    leaves any old file whole. A header over the format's 100 MB limit is refused before anything
    is written.
    """
    raw, parts = _plan(tensors, metadata)

    def write(f):
        f.write(struct.pack("<Q", len(raw)))
        f.write(raw)
        for t, _ in parts:
            f.write(_bytes_of(t))

    write_replacing(filename, write, "save_file", SafetensorError)


def save(tensors: dict[str, Tensor], metadata: dict[str, str] | None = None) -> bytes:
    """The safetensors file of ``tensors`` as bytes (see :func:`save_file`)."""
    raw, parts = _plan(tensors, metadata)
    return b"".join([struct.pack("<Q", len(raw)), raw] + [bytes(_bytes_of(t)) for t, _ in parts])
