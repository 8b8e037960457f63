"""Regression tests for the findings of an outside attack campaign, one
section per finding (numbered as the campaign numbered them).

Each section has tests that failed before its fix; the others pin behaviour
that was already right next to it (the memmove answer of a basic-slice copy,
sharing by a well-behaved subclass). An attack that crashed the interpreter
runs in a fresh subprocess, which must exit cleanly and print what it was
told to.
"""
import os
import subprocess
import sys
import tempfile
import textwrap
import warnings
from pathlib import Path

import pytest

import pytensor

TESTS = str(Path(__file__).resolve().parents[1])
# AddressSanitizer reserves terabytes of address space for its shadow memory,
# so a test that limits the address space (RLIMIT_AS) cannot run under it.
needs_no_sanitizer = pytest.mark.skipif(bool(os.environ.get("PYTENSOR_UNDER_SANITIZER")),
                                        reason="RLIMIT_AS cannot be applied under AddressSanitizer")


def run_child(code):
    """Runs ``code`` in a fresh interpreter, from outside the repository root
    (where ``python -c`` would import the uncompiled source folder)."""
    script = f"import sys; sys.path.insert(0, {TESTS!r})\n" + textwrap.dedent(code)
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                          cwd=tempfile.gettempdir())


def assert_clean(res, expected_stdout):
    assert res.returncode == 0, f"child died with {res.returncode}: {res.stderr[-2000:]}"
    assert res.stdout.split() == expected_stdout.split(), res.stdout + res.stderr


# ================================================================== 1. ndarray subclasses that lie about their memory

_LYING_SUBCLASS = """
    import gc
    import numpy as np
    import pytensor

    class Lying(np.ndarray):
        # Both interfaces describe a temporary array that dies on return.
        @property
        def __array_struct__(self):
            return np.arange(1 << 20, dtype=np.int64).__array_struct__

        @property
        def __array_interface__(self):
            return np.arange(1 << 20, dtype=np.int64).__array_interface__

        @property
        def strides(self):
            return (8 << 20,)

    def attack(make):
        a = np.zeros(3, dtype=np.int64).view(Lying)
        t = make(a)
        gc.collect()
        junk = [np.full(1 << 20, 7.0) for _ in range(4)]  # reuse the freed block
        t[0] = 5
        print(tuple(t.shape), np.ndarray.view(a, np.ndarray).tolist(), t.tolist())
"""


@pytest.mark.parametrize("make", [
    "pytensor.from_numpy",
    "pytensor.asarray",
    "pytensor.as_tensor",
    # Skip the C fast path: an explicit dtype goes down the Python path.
    "lambda a: pytensor.asarray(a, dtype=pytensor.int64)",
    "lambda a: pytensor.as_tensor(a, dtype=pytensor.int64)",
])
def test_ndarray_subclass_interfaces_cannot_point_at_freed_memory(np, make):
    res = run_child(textwrap.dedent(_LYING_SUBCLASS) + f"attack({make})\n")
    assert_clean(res, "(3,) [5, 0, 0] [5, 0, 0]")


def test_ndarray_subclass_keeps_sharing_its_own_memory(np):
    class Tagged(np.ndarray):
        pass

    a = np.arange(4, dtype=np.float32).view(Tagged)
    for t in (pytensor.from_numpy(a), pytensor.asarray(a), pytensor.asarray(a, dtype=pytensor.float32),
              pytensor.as_tensor(a)):
        assert t.data_ptr() == a.ctypes.data
    a0 = np.array(3.0).view(Tagged)
    assert pytensor.asarray(a0).data_ptr() != a0.ctypes.data  # 0-d arrays are copied, as torch does
    assert pytensor.as_tensor(a0).data_ptr() == a0.ctypes.data


# ================================================================== 3. writes whose source aliases the destination

def _mask(n, start):
    return [i >= start for i in range(n)]


_ALIASING_WRITES = [
    ("a[[1, 2, 3]] = a[0:3]", lambda a: a.__setitem__([1, 2, 3], a[0:3])),
    ("a[mask] = a[:5]", lambda a: a.__setitem__(_mask(6, 1), a[:5])),
    ("a[[5, 4, 3, 2, 1, 0]] = a", lambda a: a.__setitem__([5, 4, 3, 2, 1, 0], a)),
    ("a[[0, 2, 4]] = a[1::2]", lambda a: a.__setitem__([0, 2, 4], a[1::2])),
    ("a[1:] = a[:-1]", lambda a: a.__setitem__(slice(1, None), a[:-1])),
    ("a[:-1] = a[1:]", lambda a: a.__setitem__(slice(None, -1), a[1:])),
    ("a[1:].copy_(a[:-1])", lambda a: a[1:].copy_(a[:-1]) if hasattr(a, "copy_") else
        a.__setitem__(slice(1, None), a[:-1])),
    ("a[:-1].copy_(a[1:])", lambda a: a[:-1].copy_(a[1:]) if hasattr(a, "copy_") else
        a.__setitem__(slice(None, -1), a[1:])),
]


@pytest.mark.parametrize("name,write", _ALIASING_WRITES, ids=[n for n, _ in _ALIASING_WRITES])
def test_aliasing_writes_give_numpys_answer(np, name, write):
    expected = np.arange(6)
    write(expected)
    a = pytensor.arange(6)
    if "mask" in name:  # a bool tensor index, not a list of Python bools
        a[pytensor.tensor(_mask(6, 1))] = a[:5]
    else:
        write(a)
    assert a.tolist() == expected.tolist()


def test_aliasing_row_writes_give_numpys_answer(np):
    expected = np.arange(12).reshape(3, 4)
    expected[[1, 2, 0]] = expected
    expected[:, [3, 2, 1, 0]] = expected[1]
    a = pytensor.arange(12).reshape(3, 4)
    a[[1, 2, 0]] = a
    a[:, [3, 2, 1, 0]] = a[1]
    assert a.tolist() == expected.tolist()


def test_aliasing_through_a_second_storage_over_the_same_memory(np):
    arr = np.arange(6)
    a, b = pytensor.from_numpy(arr), pytensor.from_numpy(arr)  # two storages, one block of memory
    assert a.untyped_storage() is not b.untyped_storage()
    a[[1, 2, 3]] = b[0:3]
    assert arr.tolist() == [0, 0, 1, 2, 4, 5]


def test_non_aliasing_advanced_write_reads_its_source_in_place():
    a, b = pytensor.arange(6), pytensor.arange(10, 13)
    a[[1, 2, 3]] = b
    assert a.tolist() == [0, 10, 11, 12, 4, 5]


# ================================================================== 6. object arrays behind a byte-format buffer

def _object_memory_sources(np):
    """Buffers over an object array's PyObject pointers whose own format is not 'O'."""
    import pickle
    objs = np.array([object(), object(), object()])
    return objs, {
        "cast B": memoryview(objs).cast("B"),
        "cast B then q": memoryview(objs).cast("B").cast("q"),
        "memoryview of a cast": memoryview(memoryview(objs).cast("B")),
        "cast of a PickleBuffer": memoryview(pickle.PickleBuffer(objs)).cast("B"),
        "ndarray over a cast": np.frombuffer(memoryview(objs).cast("B"), dtype=np.uint8),
    }


@pytest.mark.parametrize("kind", ["cast B", "cast B then q", "memoryview of a cast", "cast of a PickleBuffer",
                                  "ndarray over a cast"])
def test_frombuffer_over_object_pointers_is_read_only(np, kind):
    objs, sources = _object_memory_sources(np)
    t = pytensor.frombuffer(sources[kind], dtype=pytensor.uint8)
    # A count that is not exactly an int skips the C fast path: the Python path.
    slow = pytensor.frombuffer(sources[kind], dtype=pytensor.uint8, count=np.int64(-1))
    for x in (t, slow):
        assert x.is_readonly()
        with pytest.raises(pytensor.ReadOnlyError):
            x[0] = 1
    if isinstance(sources[kind], memoryview):  # asarray shares buffers through frombuffer (ndarrays: from_numpy)
        assert pytensor.asarray(sources[kind], dtype=pytensor.uint8).is_readonly()
    assert [type(o) for o in objs] == [object] * 3


def test_frombuffer_write_over_object_pointers_cannot_crash(np):
    res = run_child("""
        import numpy as np, pytensor
        objs = np.array([object(), object()])
        t = pytensor.frombuffer(memoryview(objs).cast("B"), dtype=pytensor.int64)
        try:
            t[0] = 12345
        except pytensor.ReadOnlyError:
            print("refused")
        print(type(objs[0]).__name__)
    """)
    assert_clean(res, "refused object")


def test_frombuffer_over_plain_bytes_behind_a_memoryview_stays_writable(np):
    import pickle
    for src in (memoryview(bytearray(8)), memoryview(np.zeros(2)).cast("B"), np.zeros(8, np.uint8),
                memoryview(pickle.PickleBuffer(bytearray(8))).cast("B")):
        assert not pytensor.frombuffer(src, dtype=pytensor.uint8).is_readonly()


# ================================================================== 5. DLPack C exchange tables that change

_EXCHANGE_TABLE = """
    import ctypes, gc
    import numpy as np
    import pytensor

    class Version(ctypes.Structure):
        _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]

    EXPORT = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)

    class Table(ctypes.Structure):  # DLPack 1.3's DLPackExchangeAPI: 56 bytes, the export at offset 24
        _fields_ = [("version", Version), ("prev_api", ctypes.c_void_p), ("allocator", ctypes.c_void_p),
                    ("from_py_object", EXPORT), ("to_py_object", ctypes.c_void_p),
                    ("dltensor_from_py_object", ctypes.c_void_p), ("current_work_stream", ctypes.c_void_p)]

    capsule_new = ctypes.pythonapi.PyCapsule_New
    capsule_new.restype = ctypes.py_object
    capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    calls = []

    def table(tag):
        # The export declines (-1), so from_dlpack goes on to __dlpack__; the
        # table lives only as long as the returned capsule's holders keep `parts`.
        export = EXPORT(lambda obj, out: calls.append(tag) or -1)
        t = Table(Version(1, 3), None, None, export, None, None, None)
        return capsule_new(ctypes.addressof(t), b"dlpack_exchange_api", None), (t, export)

    class Producer:
        def __init__(self):
            self.arr = np.arange(3.0)

        def __dlpack__(self, **kw):
            return self.arr.__dlpack__(**kw)

        def __dlpack_device__(self):
            return self.arr.__dlpack_device__()
"""


def test_exchange_table_is_reread_when_replaced_deleted_or_freed(np):
    res = run_child(textwrap.dedent(_EXCHANGE_TABLE) + textwrap.dedent("""
        cap, parts = table("A")
        Producer.__dlpack_c_exchange_api__ = cap
        assert pytensor.from_dlpack(Producer()).tolist() == [0.0, 1.0, 2.0]
        print(calls)

        # Replaced: the new table is used, and the old one is freed.
        cap_b, parts_b = table("B")
        Producer.__dlpack_c_exchange_api__ = cap_b
        del cap, parts
        gc.collect()
        junk = [ctypes.create_string_buffer(56) for _ in range(1000)]  # reuse the freed table
        for t in junk:
            ctypes.memset(t, 0xFF, 56)
        assert pytensor.from_dlpack(Producer()).tolist() == [0.0, 1.0, 2.0]
        print(calls)

        # Deleted: no table at all.
        del Producer.__dlpack_c_exchange_api__
        gc.collect()
        assert pytensor.from_dlpack(Producer()).tolist() == [0.0, 1.0, 2.0]
        print(calls)
    """))
    assert_clean(res, "['A'] ['A', 'B'] ['A', 'B']")


def test_exchange_table_capsule_is_held_while_cached(np):
    res = run_child(textwrap.dedent(_EXCHANGE_TABLE) + textwrap.dedent("""
        import sys
        cap, parts = table("A")
        Producer.__dlpack_c_exchange_api__ = cap
        base = sys.getrefcount(cap)
        pytensor.from_dlpack(Producer())
        print(sys.getrefcount(cap) - base)  # the cache's reference

        class Other(Producer):
            pass
        Other.__dlpack_c_exchange_api__, parts_c = table("C")
        pytensor.from_dlpack(Other())  # another type's table takes the cache's place
        print(sys.getrefcount(cap) - base, calls)
    """))
    assert_clean(res, "1 0 ['A', 'C']")


# ================================================================== 7. shapes and argument checks, as torch

def test_unfold_refuses_a_negative_size():
    a = pytensor.arange(10, dtype=pytensor.uint8)
    for size in (-1, -3):
        with pytest.raises(RuntimeError, match=f"size is {size} but must be >= 0"):
            a.unfold(0, size, 1)
    assert tuple(a.unfold(0, 0, 1).shape) == (11, 0)  # size 0 is allowed, as in torch


def test_unfold_refuses_a_window_stride_past_int64():
    a = pytensor.arange(10, dtype=pytensor.uint8)
    with pytest.raises(RuntimeError, match="does not fit in int64"):
        a[::2].unfold(0, 2, 2**62)  # stride 2 * step 2**62 = 2**63
    with pytest.raises(RuntimeError, match="does not fit in int64"):
        a.unfold(0, 1, 2**63 - 1).unfold(0, 1, 2)
    with pytest.raises(ValueError, match="Overflow"):
        a.unfold(0, 2, 2**63)
    w = a.unfold(0, 2, 2**62)  # fits: one window
    assert tuple(w.shape) == (1, 2) and w.tolist() == [[0, 1]]


@pytest.mark.parametrize("index", [
    (True, True), (True, False), (False, False), (True, None, True), (True, 0), (0, True, True),
    (Ellipsis, True, True), (True, Ellipsis, True), (slice(None), True, slice(None), True),
    (slice(None), True, 0, True), (True, [0, 1]), ([1, 0], slice(None), True), (True, True, [1, 0]),
], ids=repr)
def test_several_bools_in_one_index_broadcast_into_one_dimension(torch, index):
    want = torch.arange(24).reshape(2, 3, 4)[index]
    got = pytensor.arange(24).reshape(2, 3, 4)[index]
    assert tuple(got.shape) == tuple(want.shape)
    assert got.tolist() == want.tolist()


@pytest.mark.parametrize("index", [(True,), (False,), (True, False), (slice(None), True)], ids=repr)
def test_zero_dim_bool_tensor_indices_count_like_python_bools(torch, index):
    wrap = lambda lib: tuple(lib.tensor(i) if isinstance(i, bool) else i for i in index)  # noqa: E731
    want = torch.arange(6).reshape(2, 3)[wrap(torch)]
    got = pytensor.arange(6).reshape(2, 3)[wrap(pytensor)]
    assert tuple(got.shape) == tuple(want.shape)


def test_bool_index_writes():
    b = pytensor.arange(3)
    b[True, True] = 5
    b[False] = 7
    b[True, 0] = 1
    assert b.tolist() == [1, 5, 5]


@pytest.mark.parametrize("call,exc", [
    (lambda t: t.chunk(0), RuntimeError),
    (lambda t: t.chunk(-1), RuntimeError),
    (lambda t: t.chunk(True), TypeError),
    (lambda t: t.chunk(1.0), TypeError),
    (lambda t: t.chunk(2**63), ValueError),
    (lambda t: t.split(0), RuntimeError),
    (lambda t: t.split(-1), RuntimeError),
    (lambda t: t.split([1, -1, 3]), RuntimeError),
    (lambda t: t.split([1, 1]), RuntimeError),
    (lambda t: t.split(1.0), TypeError),
    (lambda t: t.split(True), TypeError),
    (lambda t: t[0].split(1), RuntimeError),  # 0-d
    (lambda t: t[0].chunk(1), RuntimeError),
])
def test_chunk_and_split_refuse_as_torch(torch, call, exc):
    with pytest.raises(exc):
        call(torch.arange(3))
    with pytest.raises(exc):
        call(pytensor.arange(3))


@pytest.mark.parametrize("shape,call", [
    ((0,), lambda t: t.split(0)), ((0,), lambda t: t.chunk(3)), ((0,), lambda t: t.split(2)),
    ((5,), lambda t: t.chunk(2)), ((5,), lambda t: t.chunk(7)), ((6,), lambda t: t.chunk(4)),
    ((5,), lambda t: t.split([2, True, 2])), ((5,), lambda t: t.split((5,))), ((2, 0), lambda t: t.chunk(3, 1)),
])
def test_chunk_and_split_shapes_match_torch(torch, shape, call):
    want = [tuple(x.shape) for x in call(torch.zeros(shape))]
    got = [tuple(x.shape) for x in call(pytensor.zeros(shape))]
    assert got == want


def test_dlpack_is_called_once_when_it_returns_no_capsule(np):
    class Producer:
        calls = 0

        def __dlpack__(self, **kw):
            Producer.calls += 1
            return 5

        def __dlpack_device__(self):
            return (1, 0)

    with pytest.raises(RuntimeError, match="invalid capsule"):
        pytensor.from_dlpack(Producer())
    assert Producer.calls == 1

    class Consumed(Producer):
        def __dlpack__(self, **kw):
            Producer.calls += 1
            cap = np.arange(3.0).__dlpack__()
            pytensor.from_dlpack(cap)
            return cap

    Producer.calls = 0
    with pytest.raises(RuntimeError, match="invalid capsule"):
        pytensor.from_dlpack(Consumed())
    assert Producer.calls == 1


def test_empty_view_past_its_storage_end_exports_through_dlpack(np, torch):
    t = pytensor.zeros(5, 0)[5:]
    assert t.storage_offset() == 5 and t.untyped_storage().nbytes() == 0  # as torch
    for consumer in (torch.from_dlpack, np.from_dlpack, pytensor.from_dlpack):
        assert tuple(consumer(t).shape) == (0, 0)
    assert tuple(pytensor.from_dlpack(t.__dlpack__()).shape) == (0, 0)  # legacy capsule too


# ================================================================== 4. from_file(shared=True, size=N), growing files

# Stands in for another process that appends to the file at the worst moment:
# just before from_file's first call that sets the file's size. It wraps
# ftruncate and fallocate (libtensor calls libc's, so LD_PRELOAD reaches them)
# and, once, appends APPEND_BYTES bytes of 0x5A to a file whose path contains
# APPEND_MARKER, then lets the real call run.
_APPENDER_C = r"""
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void append_once(int fd)
{
    static int done;
    const char *marker = getenv("APPEND_MARKER"), *count = getenv("APPEND_BYTES");
    char link[64], path[4096];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, path, sizeof path - 1);
    if (done || !marker || !count || n <= 0)
        return;
    path[n] = 0;
    if (!strstr(path, marker))
        return;
    done = 1;
    struct stat st;
    size_t extra = (size_t)atol(count);
    char *bytes = malloc(extra);
    memset(bytes, 0x5A, extra);
    if (fstat(fd, &st) == 0 && pwrite(fd, bytes, extra, st.st_size) != (ssize_t)extra)
        abort();
    free(bytes);
}

/* Built with 64-bit file offsets, libtensor calls the ...64 names. */
#define WRAP_FTRUNCATE(name)                                                   \
    int name(int fd, off_t length)                                             \
    {                                                                          \
        append_once(fd);                                                       \
        return ((int (*)(int, off_t))dlsym(RTLD_NEXT, #name))(fd, length);     \
    }
#define WRAP_FALLOCATE(name)                                                                   \
    int name(int fd, int mode, off_t offset, off_t len)                                        \
    {                                                                                          \
        append_once(fd);                                                                       \
        return ((int (*)(int, int, off_t, off_t))dlsym(RTLD_NEXT, #name))(fd, mode, offset, len); \
    }
WRAP_FTRUNCATE(ftruncate)
WRAP_FTRUNCATE(ftruncate64)
WRAP_FALLOCATE(fallocate)
WRAP_FALLOCATE(fallocate64)
"""


def test_shared_from_file_never_shortens_a_file_appended_to_meanwhile(tmp_path):
    from support import require_program
    cc = require_program("cc")
    lib = tmp_path / "appender.so"
    src = tmp_path / "appender.c"
    src.write_text(_APPENDER_C)
    subprocess.run([cc, "-shared", "-fPIC", "-O1", "-o", str(lib), str(src), "-ldl"], check=True)
    path = tmp_path / "growing.bin"
    path.write_bytes(bytes(range(10)))
    env = dict(os.environ, APPEND_MARKER="growing.bin", APPEND_BYTES="5000")
    # After any preloaded sanitizer runtime, which must come first.
    env["LD_PRELOAD"] = " ".join(filter(None, [os.environ.get("LD_PRELOAD"), str(lib)]))
    code = f"""
import pytensor
t = pytensor.from_file({str(path)!r}, shared=True, size=100, dtype=pytensor.uint8)
print(t.numel(), t[:10].tolist() == list(range(10)))
"""
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env,
                         cwd=tempfile.gettempdir())
    assert_clean(res, "100 True")
    data = path.read_bytes()
    assert len(data) == 5010, "the appended bytes were cut off"
    assert data[:10] == bytes(range(10)) and data[10:] == b"\x5a" * 5000


@needs_no_sanitizer
def test_shared_from_file_that_fails_to_map_restores_the_file_size(tmp_path):
    path = tmp_path / "small.bin"
    path.write_bytes(b"0123456789")
    res = run_child(f"""
        import resource, pytensor
        # Room for the interpreter, none for an 8 GiB mapping (the file can
        # still grow: a hole takes no memory).
        resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
        try:
            pytensor.from_file({str(path)!r}, shared=True, size=8 << 30, dtype=pytensor.uint8)
        except RuntimeError as e:
            print("refused", "cannot map" in str(e))
    """)
    assert_clean(res, "refused True")
    assert path.stat().st_size == 10, "left extended"
    assert path.read_bytes() == b"0123456789"


# ================================================================== 8. factories' memory

@pytest.mark.parametrize("name,make", [
    ("arange", lambda: pytensor.arange(1 << 21)),
    ("arange float", lambda: pytensor.arange(0, 1 << 20, 0.5)),
    ("linspace", lambda: pytensor.linspace(0, 1, 1 << 21)),
    ("linspace int", lambda: pytensor.linspace(-5, 1 << 30, 1 << 21, dtype=pytensor.int64)),
    ("rand", lambda: pytensor.rand(1 << 19)),
    ("randn complex", lambda: pytensor.randn(1 << 18, dtype=pytensor.complex64)),
])
def test_factories_build_no_python_list_of_every_value(name, make):
    """tracemalloc sees Python allocations only (libtensor's storage is not
    traced): a list of 2**18 Python complex numbers alone is 10 MiB."""
    import tracemalloc
    tracemalloc.start()
    try:
        t = make()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert t.numel() >= 1 << 18
    assert peak < 6 << 20, f"{name} peaked at {peak} bytes of Python objects"


def test_factory_values_are_unchanged():
    assert pytensor.arange(5).tolist() == [0, 1, 2, 3, 4]
    assert pytensor.arange(10, 0, -3, dtype=pytensor.uint8).tolist() == [10, 7, 4, 1]
    assert pytensor.arange(-5, 5, 1.5, dtype=pytensor.uint8).tolist() == [251, 253, 254, 0, 1, 2, 4]
    assert pytensor.arange(2**63 - 2, 2**63 + 2, dtype=pytensor.uint64).tolist() == [2**63 - 2 + i for i in range(4)]
    with pytest.raises(ValueError, match="Overflow"):
        pytensor.arange(2**63 - 2, 2**63 + 2)
    assert pytensor.arange(0, 1, 0.25, dtype=pytensor.float64).tolist() == [0.0, 0.25, 0.5, 0.75]
    assert pytensor.linspace(0, 1, 5).tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert pytensor.linspace(-3, 7, 11, dtype=pytensor.int64).tolist() == list(range(-3, 8))
    assert pytensor.linspace(0, 300, 3, dtype=pytensor.int8).tolist() == [0, -106, 44]
    assert pytensor.linspace(1 + 1j, 5 - 2j, 3, dtype=pytensor.complex128).tolist() == [1 + 1j, 3 - 0.5j, 5 - 2j]
    assert pytensor.linspace(2, 9, 1).tolist() == [2.0] and pytensor.linspace(2, 9, 0).tolist() == []
    with pytest.raises(ValueError, match="Overflow"):
        pytensor.linspace(0, 2.0**70, 3, dtype=pytensor.int64)


@needs_no_sanitizer
def test_factory_out_of_memory_names_the_bytes():
    res = run_child("""
        import resource, pytensor
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
        for make in (lambda: pytensor.arange(2**28), lambda: pytensor.linspace(0, 1, 2**28, dtype=pytensor.float64),
                     lambda: pytensor.rand(2**28, dtype=pytensor.float64)):
            try:
                make()
            except MemoryError as e:
                print("2147483648 bytes" in str(e))
    """)
    assert_clean(res, "True True True")


# ================================================================== other index forms

def _index_tensor(lib, values, dtype):
    return lib.tensor(values, dtype=getattr(lib, dtype))


@pytest.mark.parametrize("values", [[1, 0, 1], [0, 0, 0], [2, 0, 255], 1, 0, 7], ids=repr)
def test_uint8_index_tensors_are_masks_as_in_torch(torch, values):
    """A uint8 index is a mask in torch (deprecated, with a warning), not a
    list of positions: t[tensor([1, 0, 1], uint8)] gave rows 1, 0, 1."""
    with warnings.catch_warnings():      # torch's own deprecation (not for 0-d), on the reference side
        warnings.filterwarnings("ignore", "indexing with dtype torch.uint8 is now deprecated", UserWarning)
        want = torch.arange(12).reshape(3, 4)[_index_tensor(torch, values, "uint8")]
    with pytest.warns(UserWarning, match="uint8"):
        got = pytensor.arange(12).reshape(3, 4)[_index_tensor(pytensor, values, "uint8")]
    assert tuple(got.shape) == tuple(want.shape) and got.tolist() == want.tolist()


def test_uint8_index_writes_and_ndarrays_are_masks_too(np, torch):
    a = pytensor.arange(6)
    with pytest.warns(UserWarning):
        a[pytensor.tensor([1, 0, 1, 0, 0, 1], dtype=pytensor.uint8)] = pytensor.tensor([7, 8, 9])
    assert a.tolist() == [7, 1, 8, 3, 4, 9]
    mask = np.array([0, 3, 1], dtype=np.uint8)
    with pytest.warns(UserWarning):
        assert pytensor.arange(3)[mask].tolist() == torch.arange(3)[mask].tolist() == [1, 2]
    with pytest.raises(IndexError, match="shape of the mask"), pytest.warns(UserWarning, match="uint8"):
        pytensor.arange(6)[pytensor.tensor([1, 0], dtype=pytensor.uint8)]


@pytest.mark.parametrize("dtype", ["int8", "int16", "uint16", "uint32", "uint64", "float32", "float64"])
def test_index_tensors_of_other_dtypes_are_refused_as_in_torch(torch, dtype):
    with pytest.raises(IndexError):
        torch.arange(6)[_index_tensor(torch, [1, 2], dtype)]
    with pytest.raises(IndexError, match=f"must be long, int, byte or bool tensors, not pytensor.{dtype}"):
        pytensor.arange(6)[_index_tensor(pytensor, [1, 2], dtype)]
    with pytest.raises(IndexError):
        pytensor.arange(6)[_index_tensor(pytensor, [1, 2], dtype)] = 0
    if dtype[0] in "iu":  # a 0-d integer tensor is a number, whatever its width
        assert pytensor.arange(6)[_index_tensor(pytensor, 2, dtype)].item() == 2


def test_integer_ndarrays_and_int32_tensors_stay_positions(np):
    for idx in (np.array([2, 0], dtype=np.int8), np.array([2, 0], dtype=np.uint16),
                pytensor.tensor([2, 0], dtype=pytensor.int32)):
        assert pytensor.arange(6)[idx].tolist() == [2, 0]


@pytest.mark.parametrize("index", [[], ([],), (0, []), (slice(None), []), ([], slice(None)), (Ellipsis, [])], ids=repr)
def test_an_empty_list_is_an_empty_index(np, torch, index):
    """[] infers float32, which no index may be: a[[]] was refused (torch and NumPy give no rows)."""
    want = torch.arange(24).reshape(2, 3, 4)[index]
    got = pytensor.arange(24).reshape(2, 3, 4)[index]
    assert tuple(got.shape) == tuple(want.shape) == np.arange(24).reshape(2, 3, 4)[index].shape
    a = pytensor.arange(24).reshape(2, 3, 4)
    a[index] = 99
    assert a.tolist() == pytensor.arange(24).reshape(2, 3, 4).tolist()


@pytest.mark.parametrize("step", [2**61, 2**62, 2**63, 2**100])
def test_a_huge_slice_step_leaves_a_usable_view(np, torch, step):
    """a[::2**62] kept stride 4 * 2**62 = 2**64: a view whose clone(), sum(),
    tensor() and DLPack export then failed with 'int too big to convert'."""
    a = pytensor.arange(12).reshape(3, 4)
    v = a[::step, 1::step]
    assert all(-2**63 <= s < 2**63 for s in v.stride())
    assert v.tolist() == [[1]] and v.clone().tolist() == [[1]] and v.sum().item() == 1
    with pytest.warns(UserWarning, match="clone"):
        assert pytensor.tensor(v).tolist() == [[1]]
    assert np.from_dlpack(v).tolist() == [[1]] and torch.from_dlpack(v).tolist() == [[1]]
    assert pytensor.from_dlpack(v.__dlpack__()).tolist() == [[1]]
    assert a[::3].stride() == torch.arange(12).reshape(3, 4)[::3].stride()  # small steps: torch's strides


@pytest.mark.parametrize("item", [1.0, {1: 2}, {0}, object(), (i for i in range(1)), "a"],
                         ids=lambda i: type(i).__name__)
def test_an_index_of_no_index_type_raises_index_error_as_torch(torch, item):
    """torch and NumPy raise IndexError (torch TypeError for a str); pytensor raised TypeError."""
    for get in (lambda t: t[item], lambda t: t[0, item], lambda t: t.__setitem__(item, 1)):
        with pytest.raises(IndexError, match=f"valid indices \\(got {type(item).__name__}\\)") as info:
            get(pytensor.zeros(3, 3))
        assert isinstance(info.value, TypeError)


def test_a_zero_dim_bool_ndarray_is_a_mask(np):
    a = pytensor.arange(6).reshape(2, 3)
    assert tuple(a[np.array(True)].shape) == np.arange(6).reshape(2, 3)[np.array(True)].shape == (1, 2, 3)
    assert tuple(a[np.array(False)].shape) == (0, 2, 3)
    assert a[np.array(1)].tolist() == [3, 4, 5]  # a 0-d integer array is a number


# ================================================================== second round: the inspector given hostile objects

def test_inspector_refuses_a_duck_typed_tensor_with_a_made_up_storage():
    """Anything with untyped_storage() and storage_offset() was read as a tensor:
    a storage claiming address 4096 made snapshot() read it (SIGSEGV)."""
    res = run_child("""
        import pytensor
        from pytensor.widgets import snapshot

        class FakeStorage:
            def data_ptr(self): return 4096
            def nbytes(self): return 1 << 20

        class Duck:
            __module__ = "pytensor.fake"
            dtype, shape = pytensor.int64, (4,)
            def untyped_storage(self): return FakeStorage()
            def storage_offset(self): return 0
            def stride(self): return (1,)
            def element_size(self): return 8
            def is_contiguous(self): return True

        try:
            snapshot(Duck())
        except TypeError as e:
            print("refused", "not Duck" in str(e))
    """)
    assert_clean(res, "refused True")


def test_inspector_reads_a_torch_subclass_through_torchs_own_methods(torch):
    """A torch.Tensor subclass may override untyped_storage, stride, storage_offset:
    the snapshot reads the real tensor's layout and bytes (this lied into address 4096)."""
    res = run_child("""
        import torch
        from pytensor.widgets import snapshot

        class FakeStorage:
            def data_ptr(self): return 4096
            def nbytes(self): return 1 << 20

        class Liar(torch.Tensor):
            def untyped_storage(self): return FakeStorage()
            def stride(self, dim=None): return (1 << 40,)
            def storage_offset(self): return 1 << 30

        x = torch.arange(4, dtype=torch.int32).as_subclass(Liar)
        snap, blob = snapshot(x)
        v = snap["views"][0]
        print(v["strides"], v["storage_offset"], blob[:16] == torch.arange(4, dtype=torch.int32).numpy().tobytes())
    """)
    assert_clean(res, "[1] 0 True")


# ================================================================== second round: written sources with extra leading 1s

@pytest.mark.parametrize("index,value", [
    (0, [[1, 2, 3]]), (0, [[[4]]]), ((0, 0), [[5]]), (slice(None), [[[1, 2, 3]]]), (Ellipsis, [[7]]),
    ([0, 1], [[[1, 2, 3]]]), ((0, [0, 2]), [[5, 6]]), ("mask", [[[8, 8, 8]]]),
], ids=repr)
def test_setitem_drops_the_sources_leading_ones_as_torch(np, torch, index, value):
    """a[0] = b with b of shape (1, 3) was refused ('must match the size'); torch and NumPy write the row."""
    results = []
    for lib in (torch, pytensor):
        a = lib.arange(6).reshape(2, 3)
        a[lib.tensor([True, False]) if index == "mask" else index] = lib.tensor(value)
        results.append(a.tolist())
    assert results[1] == results[0]
    if index != (0, 0):  # NumPy writes no array into a single element
        expected = np.arange(6).reshape(2, 3)
        expected[np.array([True, False]) if index == "mask" else index] = np.array(value)
        assert results[1] == expected.tolist()


def test_setitem_still_refuses_a_source_that_does_not_broadcast():
    a = pytensor.zeros(2, 3)
    with pytest.raises(RuntimeError, match="must match"):
        a[0] = pytensor.zeros(2, 1)
    with pytest.raises(RuntimeError):
        a[[0, 1]] = pytensor.zeros(2, 2, 3)
    b = pytensor.tensor(3)
    b[...] = pytensor.tensor([[9]])
    assert b.item() == 9
