"""The single import point for the compiled binding: ``ffi``, ``lib`` and
the CPython shim functions (``shim``)."""
import atexit

from ._libtensor import ffi, lib

if lib.pyt_shim_init() != 0:  # registers the shim's functions in pytensor._shim
    raise ImportError("pytensor: could not register the CPython shim functions")

from . import _shim as shim  # noqa: E402  (exists only after pyt_shim_init)

# After interpreter shutdown starts, storage deleters must not touch Python
# objects; they leak their keep-alive reference instead (the process is ending).
atexit.register(lib.pyt_set_finalizing)

__all__ = ["ffi", "lib", "shim"]
