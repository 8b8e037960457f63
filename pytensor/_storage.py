"""UntypedStorage: one owned reference to a libtensor storage.

A wrapper owns exactly one C reference, dropped by its C base (the shim's
StorageBase) when the wrapper dies. Memory borrowed from Python objects is kept alive by the C
storage itself (its deleter drops the Python reference), not by a Python
attribute, so a DLPack consumer that outlives every wrapper stays valid.
"""
from __future__ import annotations

import mmap
import operator
import os
import pickle

from . import _shm
from . import dtypes as _dt
from ._core import make
from ._device import HOST_DEVICE_TYPES, device, dlpack_device_name
from ._ffi import ffi, lib, shim
from ._file import map_storage
from .errors import ReadOnlyError, DeviceError, check

_PROVENANCE = {
    lib.LT_PROV_OWNED: "owned", lib.LT_PROV_BUFFER: "buffer", lib.LT_PROV_NUMPY: "numpy",
    lib.LT_PROV_FILE: "file", lib.LT_PROV_DLPACK: "dlpack", lib.LT_PROV_FOREIGN: "foreign",
    lib.LT_PROV_SHARED: "shared",
}
_PROVENANCE_CODE = {v: k for k, v in _PROVENANCE.items()}


class UntypedStorage(shim.StorageBase):
    """Bytes shared by every view of them. ``data_ptr()`` is the address of byte 0."""

    # The fields (_addr, _nbytes, _readonly, _host, _file and the libtensor
    # reference itself) live in the C base, which releases the reference when
    # the wrapper dies: a constructor makes this object in one C call.
    __slots__ = ()

    @staticmethod
    def _new(nbytes, zero=False):
        return shim.storage_new(nbytes, zero)

    @staticmethod
    def _wrap_object(keep, addr, nbytes, readonly, provenance, label=""):
        """Storage over ``nbytes`` at ``addr``, keeping ``keep`` alive until the C storage dies."""
        return shim.wrap_object(keep, addr, nbytes, lib.LT_STORAGE_READONLY if readonly else 0,
                                _PROVENANCE_CODE[provenance], label)

    def __new__(cls, size=0):
        # torch.UntypedStorage(n): n bytes we own (zeroed here).
        return shim.storage_new(int(size), True)

    @property
    def _ptr(self):
        """The cffi ``lt_storage *`` for libtensor calls (made once, borrowed from this wrapper)."""
        p = self._cptr
        if p is None:
            p = self._cptr = ffi.cast("lt_storage *", self._saddr)
        return p

    # -- introspection (torch names) --------------------------------------
    def data_ptr(self):
        """Address of the storage's first byte."""
        return self._addr

    def nbytes(self):
        """Size in bytes."""
        return self._nbytes

    def size(self):
        return self._nbytes

    def __len__(self):
        return self._nbytes

    @property
    def device(self):
        t = lib.lt_storage_device_type(self._ptr)
        return device._of(dlpack_device_name(t), None if t in HOST_DEVICE_TYPES else
                          int(lib.lt_storage_device_id(self._ptr)))

    def is_readonly(self):
        """True when writes through any view are refused."""
        return self._readonly

    def resizable(self):
        """True when ``Tensor.resize_`` may grow this storage: pytensor owns the bytes and
        their address was never handed to NumPy. Growth also needs the resized tensor to
        be the storage's only user at that moment (see ``Tensor.resize_``)."""
        return lib.lt_storage_provenance(self._ptr) == lib.LT_PROV_OWNED and \
            not lib.lt_storage_flags(self._ptr) & lib.LT_STORAGE_PINNED

    @classmethod
    def from_file(cls, filename: str | bytes | os.PathLike, shared: bool | None = False,
                  nbytes: int | None = None) -> UntypedStorage:
        """Shares a memory-mapped file's bytes (never copies), as torch.UntypedStorage.from_file.

        ``shared=True`` maps it MAP_SHARED (writes reach the file; a missing
        file is created with mode 0600, a short one extended), else privately
        (copy-on-write; the file must hold ``nbytes``). ``nbytes=None`` maps the
        whole file (pytensor's default, as in ``from_file``); ``nbytes=0`` gives
        an empty storage and touches no file, as torch's default does.

        >>> import os, tempfile, pytensor
        >>> path = os.path.join(tempfile.mkdtemp(), "s.bin")
        >>> s = pytensor.UntypedStorage.from_file(path, shared=True, nbytes=8)
        >>> s.nbytes(), s.filename == path, os.path.getsize(path)
        (8, True, 8)
        """
        return map_storage("from_file", filename, shared, nbytes, "nbytes")[0]

    @property
    def provenance(self):
        """Where the bytes came from: "owned", "buffer", "numpy", "file", "dlpack", "foreign" or "shared"."""
        return _PROVENANCE[lib.lt_storage_provenance(self._ptr)]

    @property
    def label(self):
        """A note on the provenance, e.g. the mapped file's path and mode."""
        return ffi.string(lib.lt_storage_label(self._ptr)).decode("utf-8", "replace")

    @property
    def mapped_file(self):
        """``(path, mode)`` of a memory-mapped file, mode "shared", "private" or "read-only"; else None."""
        return self._file

    @property
    def filename(self):
        """The mapped file's path for ``from_file(shared=True)`` (also when opened read-only), else None, as torch."""
        return self._file[0] if self._file and self._file[1] != "private" else None

    @property
    def file_range(self):
        """``(byte_offset, nbytes)``: the bytes of the mapped file this storage holds, else None.
        from_file maps a file from its first byte, so byte_offset is 0."""
        return (0, self._nbytes) if self._file else None

    # -- shared memory (pytensor/_shm.py) -----------------------------------
    def share_memory_(self):
        """Moves the bytes into anonymous shared memory under this same object (views follow; their
        ``data_ptr()`` changes, as torch's); a no-op when already shared. Returns self.

        >>> import pytensor
        >>> s = pytensor.tensor([1, 2]).untyped_storage()
        >>> s.share_memory_() is s, s.is_shared(), s.provenance
        (True, True, 'shared')
        """
        return _shm.share(self)

    def is_shared(self):
        """True when other processes can map these bytes: shared memory, or a file mapped shared."""
        return _shm.is_shared(self)

    def identity(self):
        """``StorageIdentity(device, inode, byte_offset)``: the name of byte 0 that every process
        mapping these pages agrees on (the file under them and the offset in it); None for heap
        memory, which no other process can map.

        >>> import pytensor
        >>> s = pytensor.zeros(4).untyped_storage()
        >>> s.identity() is None, s.share_memory_().identity().inode > 0
        (True, True)
        """
        return _shm.identity(self)

    # -- pages of a mapped file -------------------------------------------
    #: Bytes per page in ``resident_pages()`` and ``copied_pages()`` (the system's, sysconf).
    page_nbytes = mmap.PAGESIZE

    def resident_pages(self, byte_offset=0, nbytes=None):
        """Which pages of a mapped file are in RAM now (mincore): one byte per page, 1 or 0.

        Page ``i`` holds the storage's bytes ``[i*P - h, (i+1)*P - h)``, with
        ``P = page_nbytes`` and ``h = data_ptr() % P`` (0 for from_file). Given
        ``byte_offset`` and ``nbytes``, only the pages those bytes lie on are
        asked about (page 0 then holds byte ``byte_offset``): what a picture of
        part of a large mapping needs. In RAM
        means mapped by this process or in the page cache, where a first read
        costs no disk. Asking reads no byte, so it pulls no page in.
        Raises LibtensorError (LT_EINVAL) for a storage that is not a file
        mapping, and (LT_EIO) when the kernel will not say: for a file this
        process neither owns nor may write, Linux reports every page resident.

        >>> import os, tempfile, pytensor
        >>> P, path = pytensor.UntypedStorage.page_nbytes, os.path.join(tempfile.mkdtemp(), "r.bin")
        >>> t = pytensor.from_file(path, shared=True, size=3 * P, dtype=pytensor.uint8)
        >>> t[P + 5] = 1  # a write into page 1 brings that page into RAM
        >>> pages = t.untyped_storage().resident_pages(); len(pages), pages[1]
        (3, 1)
        >>> t.untyped_storage().resident_pages(P + 5, 1)   # only the page byte P + 5 lies on
        b'\\x01'
        """
        return self._pages(lib.lt_storage_resident_page_range, byte_offset, nbytes)

    def copied_pages(self, byte_offset=0, nbytes=None):
        """Which pages of a private file mapping were written, and so copied on write (one byte per
        page, 1 or 0, numbered as in ``resident_pages``): this process's own copies, which no longer
        match the file. Read from /proc/self/pagemap without reading a byte.
        Raises LibtensorError: LT_EINVAL for a shared or read-only mapping (writes reach the file,
        or are refused: nothing is copied) or a storage that is not a file mapping; LT_EIO when
        /proc/self/pagemap cannot be read (the message says why). ``byte_offset`` and ``nbytes`` ask
        about part of the storage, as in ``resident_pages``."""
        return self._pages(lib.lt_storage_copied_page_range, byte_offset, nbytes)

    def _pages(self, query, byte_offset, nbytes):
        byte_offset = operator.index(byte_offset)
        nbytes = self._nbytes - byte_offset if nbytes is None else operator.index(nbytes)
        if byte_offset < 0 or nbytes < 0 or byte_offset + nbytes > self._nbytes:
            raise IndexError(f"bytes [{byte_offset}, {byte_offset + nbytes}) are not inside this storage's "
                             f"{self._nbytes} bytes")
        size = self.page_nbytes
        npages = ((self._addr + byte_offset) % size + nbytes + size - 1) // size if nbytes else 0
        out = ffi.new("uint8_t[]", max(npages, 1))
        check(query(out, npages, self._ptr, byte_offset, nbytes))
        return ffi.buffer(out, npages)[:]

    @property
    def refcount(self):
        """libtensor's reference count of this storage (wrappers, exports, C users)."""
        return int(lib.lt_storage_refcount(self._ptr))

    @property
    def version(self):
        """Write counter, bumped by every write made through pytensor."""
        return int(lib.lt_storage_version(self._ptr))

    def __repr__(self):
        ro = ", read-only" if self._readonly else ""
        return (f"<pytensor.UntypedStorage {self._nbytes} bytes at 0x{self._addr:x}, "
                f"{self.provenance}{ro}>")

    # -- pickle and copy (README, "Between processes") --------------------
    def __reduce_ex__(self, protocol):
        """Protocol 5: one ``PickleBuffer`` over the bytes, which a ``buffer_callback`` takes out of band without
        a copy (else pickle writes it in-band). Below 5: the bytes in-band, and whether to rebuild them writable.
        Either way the rebuilt storage is read-only exactly when this one is, or the buffer it arrives in is."""
        self._check_host()
        if protocol >= 5:
            return _rebuild_storage, (pickle.PickleBuffer(self),)
        return _rebuild_storage, (bytes(self), not self._readonly)

    def __copy__(self):
        """New, writable bytes with the same content (as torch's copy.copy of a storage), in memory that one
        copy fills at once, so without huge pages (libtensor.h: lt_storage_new_copy)."""
        self._check_host()
        return shim.storage_copy(self)

    def __deepcopy__(self, memo):
        return self.__copy__()  # copy.deepcopy's memo makes it once per storage

    # -- guards used before any access ------------------------------------
    def _check_host(self):
        if not self._host:
            raise DeviceError(f"this storage lives on {self.device}; pytensor can only touch host memory. "
                              "Export it with DLPack to a library for that device.")

    def _check_writable(self):
        if self._readonly:
            raise ReadOnlyError("the tensor's storage is read-only (it wraps read-only memory such as bytes, "
                                "a read-only NumPy array or a read-only file); copy it with .clone() to write")
        if not self._host:
            self._check_host()


def _rebuild_storage(buffer, writable_copy=False):
    """The storage a pickle carries: sharing ``buffer``'s bytes (frombuffer's rule: read-only exactly when the
    buffer is), or, for ``writable_copy`` (the immutable in-band bytes of protocols 0-4 from a writable
    storage), new memory of pytensor's own holding one copy of them. That memory is filled whole at once, so it
    is populated in small pages rather than advised to use huge ones (libtensor.h, lt_storage_new_copy): at
    1 GiB the advice made this load 1.86x torch's on a machine whose free memory was fragmented."""
    if writable_copy is False:
        try:
            return shim.share_buffer(buffer, _dt.uint8, -1, 0, False)._storage  # the common case
        except ValueError:
            pass  # an empty buffer (frombuffer refuses those, as torch) or no buffer at all: sorted out below
    elif writable_copy is not True:
        raise TypeError(f"pickled storage: writable_copy must be a bool, got {writable_copy!r}")
    try:
        view = memoryview(buffer)
    except TypeError:
        raise TypeError(f"pickled storage: expected a buffer, got {type(buffer).__name__}") from None
    with view:
        if writable_copy:
            if not view.c_contiguous:
                raise TypeError(f"pickled storage: a {type(buffer).__name__} whose bytes are not contiguous "
                                f"(strides {view.strides}) is not a storage's bytes")
            return shim.storage_copy(view)
        if view.nbytes == 0:  # an empty storage holds no address
            flags = lib.LT_STORAGE_READONLY if view.readonly else 0
            return shim.wrap_object(buffer, 0, 0, flags, lib.LT_PROV_BUFFER, type(buffer).__name__)
    raise TypeError(f"pickled storage: a {type(buffer).__name__} is not a buffer a storage can share")


class TypedStorage:
    """An :class:`UntypedStorage` read as elements of one dtype (what ``Tensor.storage()`` returns).

    pytensor's part of torch's (deprecated) TypedStorage: the storage's bytes
    from byte 0, ``nbytes() // element_size()`` elements, read and written in
    place through ``[i]``, ``tolist()`` and ``untyped()``. It copies nothing,
    and has none of torch's conversions (``.float()``, ``.cuda()``,
    ``pickle``): take a tensor for those.
    """

    __slots__ = ("_untyped", "dtype")

    def __init__(self, untyped, dtype):
        self._untyped, self.dtype = untyped, dtype

    def _elements(self):
        return make(self._untyped, self.dtype, (len(self),), (1,), 0)

    def untyped(self):
        """The UntypedStorage holding the bytes (the same object every view shares)."""
        return self._untyped

    def size(self):
        return self._untyped._nbytes // self.dtype.itemsize

    __len__ = size

    def nbytes(self):
        return self._untyped._nbytes

    def element_size(self):
        return self.dtype.itemsize

    def data_ptr(self):
        return self._untyped._addr

    @property
    def device(self):
        return self._untyped.device

    @property
    def filename(self):
        return self._untyped.filename

    def is_readonly(self):
        return self._untyped._readonly

    def tolist(self):
        return self._elements().tolist()

    def __getitem__(self, index):
        if not isinstance(index, int):
            raise TypeError(f"TypedStorage indices must be integers, not {type(index).__name__}; "
                            "slice a tensor instead")
        return self._elements()[index].item()

    def __setitem__(self, index, value):
        if not isinstance(index, int):
            raise TypeError(f"TypedStorage indices must be integers, not {type(index).__name__}")
        self._elements()[index] = value

    def __iter__(self):
        return iter(self.tolist())

    def __repr__(self):
        return (f"<pytensor.TypedStorage dtype={self.dtype} of {len(self)} elements over "
                f"{self._untyped!r}>")
