"""A foreign DLPack producer for tests: capsules built by libtensor's
``lt_dlpack_test_producer`` (C), whose deleter counts its calls.

The producer fills its buffer so that element slot k, counted from the
buffer's start, holds the value k; ``data`` points ``-lo`` bytes into it,
where ``lo`` is the lowest byte the strides reach below element 0. So for a
1-d float64 tensor with stride 1 and ``byte_offset=16``, the values are
``[2, 3, 4, ...]``, and with stride -1 they count down to 0.
"""
from pytensor._ffi import ffi, lib, shim

# Deleter counters are written by C, possibly after the test that made them
# has finished (a view may outlive it); keep them alive for the whole run.
_COUNTERS = []


class Producer:
    """Makes managed tensors and capsules; ``calls`` is how often their deleters ran."""

    def __init__(self):
        self._calls = ffi.new("int64_t *")
        _COUNTERS.append(self._calls)

    @property
    def calls(self):
        return int(self._calls[0])

    def managed(self, shape=(3,), strides=None, *, dtype=lib.LT_FLOAT64, byte_offset=0, flags=0, major=1,
                versioned=True):
        """A new ``DLManagedTensor[Versioned] *`` (a cffi pointer), owned by the caller.
        ``shape=None`` gives a NULL shape; ``strides=None`` gives NULL strides."""
        out = ffi.new("void **")
        ndim = len(shape) if shape is not None else 0
        shp = ffi.new("int64_t[]", list(shape)) if shape is not None and ndim else ffi.NULL
        std = ffi.new("int64_t[]", list(strides)) if strides is not None and ndim else ffi.NULL
        rc = lib.lt_dlpack_test_producer(out, int(versioned), dtype, ndim, shp, std, byte_offset, flags, major,
                                         self._calls)
        assert rc == 0, ffi.string(lib.lt_last_error()).decode()
        kind = "DLManagedTensorVersioned *" if versioned else "DLManagedTensor *"
        return ffi.cast(kind, out[0])

    def capsule(self, shape=(3,), strides=None, *, versioned=True, edit=None, **kwargs):
        """A capsule owning a new managed tensor; ``edit(managed)`` may change fields first."""
        m = self.managed(shape, strides, versioned=versioned, **kwargs)
        if edit is not None:
            edit(m)
        return wrap(m, versioned)


def wrap(managed, versioned):
    """A ``dltensor[_versioned]`` capsule taking ownership of ``managed``."""
    return shim.capsule_from_pointer(int(ffi.cast("uintptr_t", managed)), bool(versioned))


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
