"""Exceptions and the one translator from libtensor status codes to them.

Every status-returning C call goes through :func:`check`, so a status maps to
the same exception everywhere. Each exception derives from both
:class:`PytensorError` and the builtin type torch raises in that situation,
so ``except RuntimeError`` works as it would with torch.

>>> import pytensor
>>> t = pytensor.frombuffer(b"\\x01\\x02", dtype=pytensor.uint8)  # bytes are read-only
>>> try:
...     t[0] = 5
... except RuntimeError as e:
...     type(e).__name__, isinstance(e, pytensor.PytensorError)
('ReadOnlyError', True)
"""
from ._ffi import ffi, lib


class PytensorError(Exception):
    """Base class of every error raised by pytensor."""


class ReadOnlyError(PytensorError, RuntimeError):
    """A write was attempted through memory that is read-only."""


class DeviceError(PytensorError, RuntimeError):
    """Host access to memory that lives on another device."""


class LibtensorError(PytensorError, RuntimeError):
    """libtensor refused an operation; ``status`` holds the C status name."""

    def __init__(self, message, status="LT_UNKNOWN"):
        super().__init__(message)
        self.status = status


class OutOfMemoryError(PytensorError, MemoryError):
    """libtensor could not allocate memory."""


class DLPackError(PytensorError, BufferError):
    """A DLPack exchange was refused."""


class LayoutError(PytensorError, RuntimeError):
    """A view's shape, strides or offset do not fit its storage."""


_TABLE = {
    lib.LT_ENOMEM: OutOfMemoryError,
    lib.LT_EINVAL: LibtensorError,
    lib.LT_ERANGE: LayoutError,
    lib.LT_EOVERFLOW: LayoutError,
    lib.LT_EREADONLY: ReadOnlyError,
    lib.LT_EDEVICE: DeviceError,
    lib.LT_EDTYPE: LibtensorError,
    lib.LT_EIO: LibtensorError,
    lib.LT_EDLPACK: DLPackError,
}


def error_for(rc, message=None):
    """The exception for status ``rc``; ``message`` defaults to lt_last_error()."""
    if message is None:
        message = ffi.string(lib.lt_last_error()).decode("utf-8", "replace")
    name = ffi.string(lib.lt_status_name(rc)).decode()
    if not message:
        message = ffi.string(lib.lt_strerror(rc)).decode()
    cls = _TABLE.get(rc, LibtensorError)
    if cls is LibtensorError:
        return cls(message, name)
    return cls(message)


def check(rc):
    """Raise the exception for a failing libtensor status; return None on LT_OK."""
    if rc != 0:
        raise error_for(rc)
