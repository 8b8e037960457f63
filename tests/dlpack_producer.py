"""A foreign DLPack producer for tests: tests/c/dlpack_test_producer.c,
compiled at test time into a shared library and loaded with cffi's ABI mode
(it uses no libtensor symbol, so it is as foreign as any other producer),
whose deleter counts its calls; its capsules come from
tests/c/dlpack_test_capsule.c, a test-only extension module compiled beside it
(turning an integer into a capsule can crash the interpreter, so no shipped
module offers it). Needs a C compiler: skipped without one, a failure in CI
(support.require_program).

The producer's buffer is filled so that element slot k, counted from the
buffer's start, holds the value k; ``data`` points ``-lo`` bytes into it,
where ``lo`` is the lowest byte the strides reach below element 0. So for a
1-d float64 tensor with stride 1 and ``byte_offset=16``, the values are
``[2, 3, 4, ...]``, and with stride -1 they count down to 0.
"""
import atexit
import importlib.util
import pathlib
import shutil
import subprocess
import tempfile
import sysconfig
import threading

import cffi

from pytensor._ffi import ffi, lib
from support import require_program

HERE = pathlib.Path(__file__).resolve().parent
SOURCE = HERE / "c" / "dlpack_test_producer.c"
CAPSULE_SOURCE = HERE / "c" / "dlpack_test_capsule.c"
ABI_INCLUDE = HERE.parent / "libtensor" / "include"  # only libtensor/dlpack_abi.h: the spec's structs

_CDEF = """
typedef struct { uint8_t code; uint8_t bits; uint16_t lanes; } DLDataType;
int dlpack_test_producer(void **out, void **out_buffer, size_t *out_nbytes, int versioned, DLDataType dtype,
                         size_t itemsize, int32_t ndim, const int64_t *shape, const int64_t *strides,
                         uint64_t byte_offset, uint64_t flags, uint32_t major, int64_t *deleter_calls);
"""

# Deleter counters are written by C, possibly after the test that made them
# has finished (a view may outlive it); keep them alive for the whole run.
_COUNTERS = []

# (ffi, lib, capsule module) of the compiled producer, built once per process. The library
# stays loaded until the process ends: tensors that outlive a test, or the
# interpreter, still call their deleters in it.
_built = None
_build_lock = threading.Lock()


def _producer():
    global _built
    with _build_lock:
        if _built is None:
            cc = require_program("cc")
            folder = tempfile.mkdtemp(prefix="dlpack_producer_")
            atexit.register(shutil.rmtree, folder, True)
            out = pathlib.Path(folder) / "libdlpack_test_producer.so"
            r = subprocess.run([cc, "-shared", "-fPIC", "-O2", "-std=c11", "-Wall", "-Wextra", "-Werror",
                                f"-I{ABI_INCLUDE}", str(SOURCE), "-o", str(out)], capture_output=True, text=True)
            assert r.returncode == 0, f"compiling {SOURCE.name} failed:\n{r.stderr}"
            pffi = cffi.FFI()
            pffi.cdef(_CDEF)
            # RTLD_NODELETE: never unmapped, not even when cffi's lib object
            # is collected at shutdown while storages still hold its tensors
            _built = (pffi, pffi.dlopen(str(out), pffi.RTLD_NOW | pffi.RTLD_NODELETE), _capsule_module(cc, folder))
        return _built


def _capsule_module(cc, folder):
    """tests/c/dlpack_test_capsule.c, compiled in folder and imported."""
    out = pathlib.Path(folder) / ("dlpack_test_capsule" + sysconfig.get_config_var("EXT_SUFFIX"))
    r = subprocess.run([cc, "-shared", "-fPIC", "-O2", "-Wall", "-Wextra", "-Werror",
                        f"-I{sysconfig.get_paths()['include']}", f"-I{ABI_INCLUDE}", str(CAPSULE_SOURCE),
                        "-o", str(out)], capture_output=True, text=True)
    assert r.returncode == 0, f"compiling {CAPSULE_SOURCE.name} failed:\n{r.stderr}"
    spec = importlib.util.spec_from_file_location("dlpack_test_capsule", out)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _address(cdata, of_ffi=ffi):
    return int(of_ffi.cast("uintptr_t", cdata))


def _fill_arange(address, nbytes, dtype):
    """Element slot k of the nbytes at address = k, converted to dtype by
    libtensor (through a borrowed storage over the producer's buffer)."""
    s = ffi.new("lt_storage **")
    if lib.lt_storage_wrap(s, ffi.cast("void *", address), nbytes, 0, lib.LT_PROV_FOREIGN, ffi.NULL, ffi.NULL):
        return
    zero, one = ffi.new("int64_t *", 0), ffi.new("int64_t *", 1)
    lib.lt_fill_arange(s[0], dtype, nbytes // lib.lt_dtype_itemsize(dtype), zero, one, lib.LT_INT64)
    lib.lt_storage_release(s[0])  # the packed float4 dtype converts from nothing and stays zero


class Producer:
    """Makes managed tensors and capsules; ``calls`` is how often their deleters ran."""

    def __init__(self):
        self._pffi, self._plib, _ = _producer()
        self._calls = ffi.new("int64_t *")
        _COUNTERS.append(self._calls)

    @property
    def calls(self):
        return int(self._calls[0])

    def managed(self, shape=(3,), strides=None, *, dtype=lib.LT_FLOAT64, byte_offset=0, flags=0, major=1,
                versioned=True):
        """A new ``DLManagedTensor[Versioned] *`` (a cffi pointer), owned by the caller.
        ``shape=None`` gives a NULL shape; ``strides=None`` gives NULL strides."""
        pffi = self._pffi
        dl = ffi.new("DLDataType *")
        assert lib.lt_dtype_to_dlpack(dl, dtype) == 0, ffi.string(lib.lt_last_error()).decode()
        out, buffer, nbytes = pffi.new("void **"), pffi.new("void **"), pffi.new("size_t *")
        ndim = len(shape) if shape is not None else 0
        shp = pffi.new("int64_t[]", list(shape)) if shape is not None and ndim else pffi.NULL
        std = pffi.new("int64_t[]", list(strides)) if strides is not None and ndim else pffi.NULL
        calls = pffi.cast("int64_t *", _address(self._calls))
        rc = self._plib.dlpack_test_producer(out, buffer, nbytes, int(versioned),
                                             {"code": dl.code, "bits": dl.bits, "lanes": dl.lanes},
                                             lib.lt_dtype_itemsize(dtype), ndim, shp, std, byte_offset, flags,
                                             major, calls)
        assert rc == 0, "the test producer ran out of memory"
        _fill_arange(_address(buffer[0], pffi), nbytes[0], dtype)
        kind = "DLManagedTensorVersioned *" if versioned else "DLManagedTensor *"
        return ffi.cast(kind, _address(out[0], pffi))

    def capsule(self, shape=(3,), strides=None, *, versioned=True, edit=None, **kwargs):
        """A capsule owning a new managed tensor; ``edit(managed)`` may change fields first."""
        m = self.managed(shape, strides, versioned=versioned, **kwargs)
        if edit is not None:
            edit(m)
        return wrap(m, versioned)


def wrap(managed, versioned):
    """A ``dltensor[_versioned]`` capsule taking ownership of ``managed``."""
    return _producer()[2].wrap(int(ffi.cast("uintptr_t", managed)), bool(versioned))


def capsule_name(capsule):
    """The capsule's current name, read through ctypes (e.g. ``"used_dltensor"``)."""
    import ctypes
    get_name = ctypes.pythonapi.PyCapsule_GetName
    get_name.restype = ctypes.c_char_p
    get_name.argtypes = [ctypes.py_object]
    return get_name(capsule).decode()


def capsule_managed(capsule):
    """The managed tensor inside an unconsumed capsule, as a cffi pointer
    (borrowed: valid only while the capsule lives, so keep it in a variable)."""
    import ctypes
    name = capsule_name(capsule)
    get_ptr = ctypes.pythonapi.PyCapsule_GetPointer
    get_ptr.restype = ctypes.c_void_p
    get_ptr.argtypes = [ctypes.py_object, ctypes.c_char_p]
    addr = get_ptr(capsule, name.encode())
    kind = "DLManagedTensorVersioned *" if name == "dltensor_versioned" else "DLManagedTensor *"
    return ffi.cast(kind, addr)


class Holder:
    """An object with ``__dlpack__`` that hands out prepared capsules and
    records the keyword arguments it was called with."""

    def __init__(self, *capsules, device=(1, 0), legacy_only=False):
        self.capsules = list(capsules)
        self.device = device
        self.legacy_only = legacy_only
        self.calls = []

    def __dlpack__(self, **kwargs):
        self.calls.append(kwargs)
        if self.legacy_only and kwargs:
            raise TypeError(f"__dlpack__() got unexpected keyword arguments {sorted(kwargs)}")
        return self.capsules.pop(0) if len(self.capsules) > 1 else self.capsules[0]

    def __dlpack_device__(self):
        return self.device
