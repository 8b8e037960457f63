"""The raw binding: lib calls, status names, storage refcounts from Python."""
import gc

import pytest

import pytensor
from pytensor._ffi import ffi, lib
from pytensor.errors import check, LayoutError, ReadOnlyError, OutOfMemoryError, LibtensorError, PytensorError


def test_status_names_and_messages():
    assert ffi.string(lib.lt_status_name(lib.LT_EINVAL)) == b"LT_EINVAL"
    assert ffi.string(lib.lt_strerror(lib.LT_EREADONLY)) == b"storage is read-only"


def test_storage_lifecycle_and_live_count():
    gc.collect()
    before = lib.lt_storage_live_count()
    out = ffi.new("lt_storage **")
    check(lib.lt_storage_new(out, 128, 1))
    s = out[0]
    assert lib.lt_storage_refcount(s) == 1
    assert lib.lt_storage_live_count() == before + 1
    lib.lt_storage_retain(s)
    assert lib.lt_storage_refcount(s) == 2
    lib.lt_storage_release(s)
    lib.lt_storage_release(s)
    assert lib.lt_storage_live_count() == before


def test_check_translates_status_to_exceptions():
    with pytest.raises(LayoutError, match=r"view needs bytes \[4, 28\) but the storage holds 24 bytes"):
        check(lib.lt_layout_check(2, [2, 3], [3, 1], 1, 4, 24))
    out = ffi.new("lt_storage **")
    with pytest.raises(OutOfMemoryError):
        check(lib.lt_storage_new(out, 1 << 62, 0))
    with pytest.raises(LibtensorError) as ei:
        check(lib.lt_layout_numel(ffi.new("int64_t *"), 70, [1] * 70))
    assert ei.value.status == "LT_EINVAL"
    assert isinstance(ei.value, RuntimeError) and isinstance(ei.value, PytensorError)


def test_readonly_error_is_runtime_error():
    t = pytensor.frombuffer(b"abcd", dtype=pytensor.uint8)
    with pytest.raises(ReadOnlyError):
        t[0] = 1
    with pytest.raises(RuntimeError):
        t.fill_(0)


def test_wrap_object_holds_and_releases_the_python_object():
    import sys
    buf = bytearray(16)
    base = sys.getrefcount(buf)
    t = pytensor.frombuffer(buf, dtype=pytensor.uint8)
    with pytest.raises(BufferError):
        buf.extend(b"x")  # exported while the tensor lives: cannot be resized
    del t
    gc.collect()
    buf.extend(b"x")
    assert sys.getrefcount(buf) == base
