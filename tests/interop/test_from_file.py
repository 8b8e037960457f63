"""from_file: tensors over memory-mapped files.

What is checked, and how it is observed:
- shared writes reach the file: another process reads the file with read();
  another process's mapping sees ours and we see its writes;
- private writes never reach the file, which is read back after every write;
- growth keeps every existing byte (torch zeroes byte 0; we must not);
- creation is O(1): the mapping's resident set (/proc/self/smaps "Rss") is
  zero over a 4 GiB sparse file, and the file gains no blocks;
- the mapping's life: /proc/self/maps shows it while any view or DLPack
  export holds the storage, after the path, the file and the tensor are gone,
  and it disappears (with libtensor's live-storage count back to baseline)
  when the last holder goes;
- read-only files: a forked child that drops root (permission bits do not
  stop root) maps a 0444 file, so the read-only path runs for real.
Differential checks run against torch.from_file where torch behaves sanely.
"""
import gc
import os
import shutil
import stat
import subprocess
import sys
import tempfile

import pytest

import pytensor
from support import run_unprivileged

GiB = 1 << 30


# ---------------------------------------------------------------- helpers
def _file_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def _write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def _mappings_of(path):
    """The /proc/self/maps lines that map ``path`` (also once it is deleted)."""
    if not os.path.exists("/proc/self/maps"):
        pytest.skip("needs /proc/self/maps (Linux)")
    name = os.path.realpath(path)
    with open("/proc/self/maps") as f:
        return [ln for ln in f if ln.rstrip("\n").split(maxsplit=5)[5:] in ([name], [name + " (deleted)"])]


def _vma_kb(addr):
    """(Size, Rss) in kB of the mapping in /proc/self/smaps that holds ``addr``."""
    if not os.path.exists("/proc/self/smaps"):
        pytest.skip("needs /proc/self/smaps (Linux)")
    found, fields = False, {}
    with open("/proc/self/smaps") as f:
        for line in f:
            head = line.split(maxsplit=1)[0]
            if not head.endswith(":"):          # a mapping's header line: "lo-hi perms ..."
                if found:
                    break
                lo, hi = (int(x, 16) for x in head.split("-"))
                found = lo <= addr < hi
            elif found and line.split()[1].isdigit():      # "Rss:  12 kB"; skips "VmFlags: rd ..."
                fields[head[:-1]] = int(line.split()[1])
    assert found, f"no mapping holds 0x{addr:x}"
    return fields["Size"], fields["Rss"]


def _torch_dtype(torch, dt):
    return getattr(torch, dt.name)


# ---------------------------------------------------------------- shared=True
def test_shared_writes_reach_the_file_seen_by_another_process(tmp_path, np):
    path = tmp_path / "shared.bin"
    start = np.arange(12, dtype=np.int32) * 3 + 1
    start.tofile(path)
    t = pytensor.from_file(str(path), shared=True, dtype=pytensor.int32)
    grid = t.view(3, 4)
    grid[1, ::2] = -7                 # a strided write through a view
    t[11] = 2**31 - 1
    expect = start.copy()
    expect.reshape(3, 4)[1, ::2] = -7
    expect[11] = 2**31 - 1
    # A second process reads the file with read(): no mapping, no pytensor.
    code = "import sys; sys.stdout.write(open(sys.argv[1], 'rb').read().hex())"
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True,
                         check=True, cwd=tmp_path).stdout
    assert bytes.fromhex(out) == expect.tobytes()   # and every neighbouring byte is unchanged
    assert t.tolist() == expect.tolist()


def test_shared_mapping_in_another_process_sees_and_makes_writes(tmp_path, np):
    path = tmp_path / "pair.bin"
    np.zeros(4, dtype=np.int64).tofile(path)
    t = pytensor.from_file(str(path), shared=True, dtype=pytensor.int64)
    t[1] = 1234
    code = ("import sys, pytensor\n"
            "u = pytensor.from_file(sys.argv[1], shared=True, dtype=pytensor.int64)\n"
            "print(u.tolist()); u[3] = -99\n")
    # cwd=tmp_path: the child must import the installed package, not a source tree.
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True,
                         check=True, cwd=tmp_path).stdout
    assert out.strip() == "[0, 1234, 0, 0]"
    assert t.tolist() == [0, 1234, 0, -99]   # the child's write shows in our mapping


def test_two_shared_mappings_in_one_process_alias_the_file(tmp_path):
    path = str(tmp_path / "two.bin")
    a = pytensor.from_file(path, shared=True, size=100, dtype=pytensor.float64)
    b = pytensor.from_file(path, shared=True, size=100, dtype=pytensor.float64)
    assert a.data_ptr() != b.data_ptr()     # two mappings, one file
    a.fill_(2.5)
    b[7] = -1.0
    assert a[7].item() == -1.0 and b[0].item() == 2.5


def test_missing_file_is_created_zero_filled(tmp_path):
    path = tmp_path / "new.bin"
    t = pytensor.from_file(str(path), shared=True, size=5, dtype=pytensor.int16)
    assert path.is_file() and os.path.getsize(path) == 10
    assert _file_bytes(path) == bytes(10)
    assert t.tolist() == [0] * 5
    t[4] = 0x0102
    assert _file_bytes(path)[8:] == b"\x02\x01"


def test_missing_file_without_size_is_created_empty(tmp_path):
    path = tmp_path / "new_empty.bin"
    t = pytensor.from_file(str(path), shared=True, dtype=pytensor.float32)
    assert path.is_file() and os.path.getsize(path) == 0
    assert t.shape == (0,) and t.tolist() == []


def test_short_file_is_extended_without_changing_any_byte(tmp_path):
    path = tmp_path / "short.bin"
    old = bytes([0xAB, 1, 2, 3, 4, 5, 6])           # byte 0 non-zero: torch would zero it
    _write(path, old)
    t = pytensor.from_file(str(path), shared=True, size=4, dtype=pytensor.int32)
    data = _file_bytes(path)
    assert len(data) == 16
    assert data[:7] == old and data[7:] == bytes(9)
    assert t.tolist() == [int.from_bytes(data[i:i + 4], sys.byteorder, signed=True) for i in range(0, 16, 4)]


def test_shorter_size_maps_a_prefix_and_never_truncates(tmp_path):
    path = tmp_path / "long.bin"
    _write(path, bytes(range(32)))
    for shared in (True, False):
        t = pytensor.from_file(str(path), shared=shared, size=3, dtype=pytensor.uint8)
        assert t.tolist() == [0, 1, 2]
        assert t.untyped_storage().nbytes() == 3
        assert _file_bytes(path) == bytes(range(32))


def test_extension_matches_torch_except_for_torchs_byte_0(tmp_path, torch):
    ours, theirs = tmp_path / "ours.bin", tmp_path / "theirs.bin"
    old = bytes([7] * 8)
    _write(ours, old)
    _write(theirs, old)
    t = pytensor.from_file(str(ours), shared=True, size=4, dtype=pytensor.int32)
    u = torch.from_file(str(theirs), shared=True, size=4, dtype=torch.int32)
    a, b = _file_bytes(ours), _file_bytes(theirs)
    assert len(a) == len(b) == 16
    assert a[1:] == b[1:]            # same growth; torch writes a 0 over byte 0 (not checked: it may be fixed)
    assert a[0] == 7
    assert t.tolist()[1:] == u.tolist()[1:]


# ---------------------------------------------------------------- shared=False
@pytest.mark.parametrize("shared", [False, None])
def test_private_writes_never_reach_the_file(tmp_path, np, shared):
    path = tmp_path / "private.bin"
    start = np.linspace(-1, 1, 16)
    start.tofile(path)
    before = _file_bytes(path)
    t = pytensor.from_file(str(path), shared, dtype=pytensor.float64)
    assert t.tolist() == start.tolist()
    t.view(4, 4)[:, 1] = 9.5
    t[0] = -3.0
    assert t[0].item() == -3.0 and t[5].item() == 9.5
    assert _file_bytes(path) == before
    other = pytensor.from_file(str(path), shared=False, dtype=pytensor.float64)
    assert other.tolist() == start.tolist()          # writes stay in t's private copy
    del t, other
    gc.collect()
    assert _file_bytes(path) == before


def test_private_too_small_file_names_both_sizes(tmp_path):
    path = tmp_path / "small.bin"
    _write(path, bytes(10))
    with pytest.raises(RuntimeError) as e:
        pytensor.from_file(str(path), shared=False, size=3, dtype=pytensor.float32)
    msg = str(e.value)
    assert str(path) in msg and "10 bytes" in msg and "12 bytes" in msg
    assert _file_bytes(path) == bytes(10)            # not extended


def test_private_too_small_raises_like_torch(tmp_path, torch):
    path = tmp_path / "small.bin"
    _write(path, bytes(80))
    with pytest.raises(RuntimeError):
        torch.from_file(str(path), shared=False, size=11, dtype=torch.float64)
    with pytest.raises(RuntimeError, match="80 bytes.*88 bytes"):
        pytensor.from_file(str(path), shared=False, size=11, dtype=pytensor.float64)


# ---------------------------------------------------------------- size
@pytest.mark.parametrize("shared", [True, False])
def test_size_none_maps_the_whole_file(tmp_path, np, shared):
    path = tmp_path / "whole.bin"
    data = np.arange(-5, 7, dtype=np.int16)
    data.tofile(path)
    t = pytensor.from_file(str(path), shared=shared, dtype=pytensor.int16)
    assert t.shape == (12,) and t.stride() == (1,) and t.storage_offset() == 0
    assert t.untyped_storage().nbytes() == os.path.getsize(path) == 24
    assert t.tolist() == np.fromfile(path, dtype=np.int16).tolist()


def test_size_none_refuses_a_partial_element_only_when_it_matters(tmp_path):
    path = tmp_path / "ten.bin"
    _write(path, bytes(range(10)))
    assert pytensor.from_file(str(path), dtype=pytensor.uint8).shape == (10,)
    assert pytensor.from_file(str(path), dtype=pytensor.int16).shape == (5,)
    with pytest.raises(RuntimeError) as e:
        pytensor.from_file(str(path), dtype=pytensor.float32)
    msg = str(e.value)
    assert str(path) in msg and "10 bytes" in msg and "4 bytes" in msg
    assert _mappings_of(path) == []      # unmapped at once, though the traceback is still alive
    # an explicit size maps a prefix, so the leftover bytes do not matter
    assert pytensor.from_file(str(path), size=2, dtype=pytensor.float32).shape == (2,)
    assert os.path.getsize(path) == 10


@pytest.mark.parametrize("name", ["bool", "uint8", "int16", "uint32", "int64", "float16", "bfloat16", "float32",
                                  "float64", "complex64", "complex128"])
@pytest.mark.parametrize("shared", [True, False])
def test_explicit_size_matches_torch(tmp_path, torch, name, shared):
    dt = getattr(pytensor, name)
    count = 6
    raw = bytes([1, 0] * (count * dt.itemsize)) if name == "bool" else os.urandom(count * dt.itemsize + 5)
    ours, theirs = tmp_path / "ours.bin", tmp_path / "theirs.bin"
    _write(ours, raw)
    _write(theirs, raw)
    t = pytensor.from_file(str(ours), shared, size=count - 1, dtype=dt)
    u = torch.from_file(str(theirs), shared, size=count - 1, dtype=_torch_dtype(torch, dt))
    assert t.shape == tuple(u.shape) and t.stride() == u.stride() and t.dtype.name == name
    assert t.untyped_storage().nbytes() == u.untyped_storage().nbytes()
    assert (t.untyped_storage().filename == str(ours)) == (u.untyped_storage().filename == str(theirs)) == shared
    expect = u.view(torch.int16).tolist() if name == "bfloat16" else u.tolist()
    got = t.view(pytensor.int16).tolist() if name == "bfloat16" else t.tolist()
    assert str(got) == str(expect)         # str: NaN payloads compare equal as text
    assert _file_bytes(ours) == raw


def test_default_dtype_is_the_default_float(tmp_path):
    path = tmp_path / "d.bin"
    _write(path, bytes(16))
    assert pytensor.from_file(str(path)).dtype == pytensor.get_default_dtype()


def test_argument_types_as_torch(tmp_path, torch):
    path = str(tmp_path / "x.bin")
    _write(path, bytes(8))
    for kwargs in (dict(size=1.0), dict(size="2"), dict(shared=1)):
        with pytest.raises(TypeError):
            torch.from_file(path, **kwargs)
        with pytest.raises(TypeError):
            pytensor.from_file(path, **kwargs)
    with pytest.raises(TypeError):
        pytensor.from_file(3)
    with pytest.raises(RuntimeError, match="-2"):
        pytensor.from_file(path, True, -2)
    with pytest.raises(RuntimeError, match=str(2**62 * 8)):
        pytensor.from_file(path, True, 2**62, dtype=pytensor.float64)
    assert os.path.getsize(path) == 8


def test_path_types(tmp_path, np):
    path = tmp_path / "p.bin"
    np.arange(3, dtype=np.uint8).tofile(path)
    for name in (str(path), os.fsencode(path), path):
        assert pytensor.from_file(name, dtype=pytensor.uint8).tolist() == [0, 1, 2]


def test_requires_grad(tmp_path):
    path = str(tmp_path / "g.bin")
    _write(path, bytes(8))
    t = pytensor.from_file(path, size=2, dtype=pytensor.float32, requires_grad=True)
    assert t.requires_grad and t.is_leaf
    with pytest.raises(RuntimeError, match="floating point and complex"):
        pytensor.from_file(path, size=2, dtype=pytensor.int32, requires_grad=True)


# ---------------------------------------------------------------- O(1) creation
def _make_sparse(path, nbytes):
    with open(path, "wb") as f:
        f.truncate(nbytes)
    return os.stat(path).st_blocks


def test_mapping_a_huge_sparse_file_touches_no_pages(tmp_path):
    path = tmp_path / "huge.bin"
    blocks = _make_sparse(path, 4 * GiB)
    t = pytensor.from_file(str(path), shared=False, dtype=pytensor.uint8)
    assert t.shape == (4 * GiB,)
    size_kb, rss_kb = _vma_kb(t.data_ptr())
    assert size_kb == 4 * GiB // 1024
    assert rss_kb == 0                        # not one page of the mapping is in our page tables
    assert os.stat(path).st_blocks == blocks  # nothing was written into the hole
    # The probe can see a touch: reading the last element faults a few pages in.
    assert t[-1].item() == 0
    rss_after = _vma_kb(t.data_ptr())[1]
    assert 0 < rss_after < 64 * 1024


def test_creating_a_huge_shared_file_allocates_nothing(tmp_path):
    path = tmp_path / "huge_new.bin"
    t = pytensor.from_file(str(path), shared=True, size=GiB, dtype=pytensor.float32)   # 4 GiB
    assert os.path.getsize(path) == 4 * GiB
    assert os.stat(path).st_blocks * 512 < (1 << 20)       # a hole, not 4 GiB of zeros
    assert _vma_kb(t.data_ptr()) == (4 * GiB // 1024, 0)


# ---------------------------------------------------------------- lifetime
def test_mapping_outlives_path_file_and_tensor(tmp_path, np, live_baseline):
    path = tmp_path / "life.bin"
    np.arange(8, dtype=np.int32).tofile(path)
    with open(path, "rb") as f:                     # a file object, closed below
        t = pytensor.from_file(f.name, shared=True, dtype=pytensor.int32)
    view = t[2:6]
    exported = np.from_dlpack(t)                    # numpy now holds a DLPack reference
    assert exported.ctypes.data == t.data_ptr()
    os.unlink(path)
    del t
    gc.collect()
    assert len(_mappings_of(path)) == 1
    assert view.tolist() == [2, 3, 4, 5]
    view[0] = -2                                    # the mapping is still the same memory
    assert exported[2] == -2
    del view
    gc.collect()
    assert len(_mappings_of(path)) == 1             # the export alone keeps it mapped
    exported[7] = 70
    assert exported.tolist() == [0, 1, -2, 3, 4, 5, 6, 70]
    del exported
    gc.collect()
    assert _mappings_of(path) == []                 # unmapped when the last holder went


def test_each_mapping_is_unmapped_exactly_once(tmp_path, np, live_baseline):
    path = tmp_path / "once.bin"
    _write(path, bytes(64))
    a = pytensor.from_file(str(path), shared=True, dtype=pytensor.uint8)
    b = pytensor.from_file(str(path), shared=False, dtype=pytensor.uint8)
    assert pytensor.live_storages() == live_baseline + 2
    assert len(_mappings_of(path)) == 2
    storage = a.untyped_storage()
    held = storage.refcount
    capsule_user = np.from_dlpack(a[8:16])
    assert storage.refcount == held + 1
    views = [a[i:] for i in range(5)] + [a.view(8, 8).T]
    del a, views
    gc.collect()
    assert len(_mappings_of(path)) == 2
    del b
    gc.collect()
    assert len(_mappings_of(path)) == 1
    assert pytensor.live_storages() == live_baseline + 1
    del storage, capsule_user
    gc.collect()
    assert _mappings_of(path) == []


def test_shared_writes_bump_the_version(tmp_path):
    t = pytensor.from_file(str(tmp_path / "v.bin"), shared=True, size=4, dtype=pytensor.int32)
    v0 = t.untyped_storage().version
    t[1:3] = 5
    assert t.untyped_storage().version > v0


# ---------------------------------------------------------------- read-only files
def _read_only_scenario(path):
    """Maps a file the caller may not write, both ways; returns what it saw."""
    seen = {"can_write": os.access(path, os.W_OK)}
    t = pytensor.from_file(path, shared=True, dtype=pytensor.int32)
    seen["values"] = t.tolist()
    seen["readonly"] = t.untyped_storage().is_readonly()
    seen["mapped_file"] = list(t.untyped_storage().mapped_file)
    seen["filename"] = t.untyped_storage().filename
    seen["numpy_writeable"] = bool(t.numpy().flags.writeable)
    seen["write_errors"] = []
    for write in (lambda: t.__setitem__(0, 1), lambda: t[1:3].fill_(5), lambda: t.view(2, 2).T.__setitem__(0, 9)):
        try:
            write()
            seen["write_errors"].append(None)
        except Exception as e:        # noqa: BLE001 (the type is what is checked)
            seen["write_errors"].append(type(e).__name__)
    try:
        pytensor.from_file(path, shared=True, size=5, dtype=pytensor.int32)
        seen["grow_error"] = None
    except RuntimeError as e:
        seen["grow_error"] = str(e)
    p = pytensor.from_file(path, shared=False, dtype=pytensor.int32)   # private: a writable copy
    p[0] = 42
    seen["private"] = [p.untyped_storage().is_readonly(), p[0].item()]
    return seen


def test_read_only_file_gives_a_read_only_tensor(np):
    # Root ignores permission bits, so as root the scenario runs in a child
    # that has dropped to nobody; the file must then sit in a directory that
    # nobody may enter (tmp_path's parents are 0700).
    d = tempfile.mkdtemp(prefix="pytensor_ro_", dir="/tmp" if os.path.isdir("/tmp") else None)
    try:
        os.chmod(d, 0o755)
        path = os.path.join(d, "ro.bin")
        np.array([10, 20, 30, 40], dtype=np.int32).tofile(path)
        os.chmod(path, 0o444)
        before = _file_bytes(path)
        seen = run_unprivileged(_read_only_scenario, path) if os.geteuid() == 0 else _read_only_scenario(path)
        assert seen["can_write"] is False          # the scenario really ran without write permission
        assert seen["values"] == [10, 20, 30, 40]
        assert seen["readonly"] is True
        assert seen["mapped_file"] == [path, "read-only"]
        assert seen["filename"] == path
        assert seen["numpy_writeable"] is False
        assert seen["write_errors"] == ["ReadOnlyError"] * 3
        assert "16 bytes" in seen["grow_error"] and "20 bytes" in seen["grow_error"]
        assert seen["private"] == [False, 42]
        assert _file_bytes(path) == before
    finally:
        shutil.rmtree(d)


def test_read_only_error_is_a_pytensor_and_runtime_error():
    assert issubclass(pytensor.ReadOnlyError, RuntimeError)
    assert issubclass(pytensor.ReadOnlyError, pytensor.PytensorError)


# ---------------------------------------------------------------- refused options
def test_pin_memory_device_and_layout_are_refused_as_torch(tmp_path, torch):
    path = tmp_path / "opts.bin"
    _write(path, bytes(16))
    missing = tmp_path / "never.bin"
    cases = [(dict(pin_memory=True), RuntimeError, "pinned"),
             (dict(device="meta"), NotImplementedError, "meta"),
             (dict(device="cuda:0"), NotImplementedError, "cuda:0"),
             (dict(layout=torch.sparse_coo), NotImplementedError, "sparse_coo")]
    for kwargs, exc, word in cases:
        with pytest.raises(exc, match=word):
            pytensor.from_file(str(missing), True, 4, **kwargs)
        assert not missing.exists()            # refused before the file was touched
        if kwargs.get("device") != "cuda:0":   # a CPU-only torch fails that one with an AssertionError
            with pytest.raises(exc):
                torch.from_file(str(path), True, 4, **kwargs)
    for kwargs in (dict(device="cpu"), dict(device=pytensor.device("cpu")), dict(device=torch.device("cpu")),
                   dict(layout=torch.strided), dict(pin_memory=False)):
        assert pytensor.from_file(str(path), False, 4, **kwargs).shape == (4,)


# ---------------------------------------------------------------- 0-byte files
@pytest.mark.parametrize("shared", [True, False])
def test_empty_file(tmp_path, shared, live_baseline):
    path = tmp_path / "empty.bin"
    _write(path, b"")
    for size in (None, 0):
        t = pytensor.from_file(str(path), shared=shared, size=size, dtype=pytensor.float64)
        assert t.shape == (0,) and t.tolist() == []
        s = t.untyped_storage()
        assert s.nbytes() == 0 and s.provenance == "file"
        assert s.mapped_file == (str(path), "shared" if shared else "private")
    assert os.path.getsize(path) == 0
    if shared:
        t = pytensor.from_file(str(path), shared=True, size=2, dtype=pytensor.float64)
        assert os.path.getsize(path) == 16 and t.tolist() == [0.0, 0.0]
    else:
        with pytest.raises(RuntimeError, match="0 bytes.*8 bytes"):
            pytensor.from_file(str(path), shared=False, size=1, dtype=pytensor.float64)


# ---------------------------------------------------------------- bad paths
def _fd_count():
    return len(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else None


@pytest.mark.parametrize("shared", [True, False])
def test_bad_paths_name_the_path(tmp_path, shared, live_baseline):
    fds = _fd_count()
    bad = [(tmp_path / "no_such_dir" / "x.bin", "No such file or directory"),
           (tmp_path, "Is a directory")]
    if not shared:
        bad.append((tmp_path / "absent.bin", "No such file or directory"))
    for path, reason in bad:
        with pytest.raises((RuntimeError, OSError)) as e:
            pytensor.from_file(str(path), shared=shared, size=4, dtype=pytensor.uint8)
        assert str(path) in str(e.value) and reason in str(e.value)
    assert not (tmp_path / "absent.bin").exists()
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(RuntimeError, match="not a regular file"):
        pytensor.from_file(str(fifo), shared=shared, size=4, dtype=pytensor.uint8)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert _fd_count() == fds                 # no descriptor leaked on any failure


def test_bad_paths_raise_runtime_error_as_torch(tmp_path, torch):
    for path in (tmp_path / "no_such_dir" / "x.bin", tmp_path):
        for shared in (True, False):
            with pytest.raises(RuntimeError):
                torch.from_file(str(path), shared, 4)
            with pytest.raises(RuntimeError):
                pytensor.from_file(str(path), shared, 4)


def test_embedded_nul_is_refused_not_truncated(tmp_path):
    # torch passes the path to C as is, and maps "<dir>/a" here.
    with pytest.raises(ValueError, match="null byte"):
        pytensor.from_file(str(tmp_path / "a\0b.bin"), shared=True, size=4)
    assert os.listdir(tmp_path) == []


# ---------------------------------------------------------------- torch's docs example
def test_torch_docs_example_runs_and_prints_the_values(tmp_path, np):
    path = str(tmp_path / "storage.pt")
    t = pytensor.randn(2, 5, dtype=pytensor.float64)
    t.numpy().tofile(path)
    t_mapped = pytensor.from_file(path, shared=False, size=10, dtype=pytensor.float64)
    assert repr(t_mapped) == repr(t.flatten())
    assert t_mapped.tolist() == np.fromfile(path).tolist()


def test_torch_docs_example_prints_the_same_as_torch(tmp_path, torch):
    path = str(tmp_path / "storage.pt")
    torch.manual_seed(0)
    t = torch.randn(2, 5, dtype=torch.float64)
    t.numpy().tofile(path)
    expected = str(torch.from_file(path, shared=False, size=10, dtype=torch.float64))
    got = str(pytensor.from_file(path, shared=False, size=10, dtype=pytensor.float64))
    assert got == expected.replace("torch.", "pytensor.")


# ---------------------------------------------------------------- introspection
def test_storage_says_it_is_file_backed_with_path_and_mode(tmp_path):
    path = tmp_path / "intro.bin"
    _write(path, bytes(32))
    for shared, mode in ((True, "shared"), (False, "private")):
        t = pytensor.from_file(str(path), shared=shared, dtype=pytensor.int32)
        s = t.untyped_storage()
        assert s.provenance == "file"
        assert s.mapped_file == (str(path), mode)
        assert s.filename == (str(path) if shared else None)    # torch: shared mappings only
        assert s.label == f"{path} ({mode})"
        assert "file" in t.describe()
        assert t[2:].untyped_storage() is s
    assert pytensor.zeros(3).untyped_storage().mapped_file is None
    assert pytensor.zeros(3).untyped_storage().filename is None


def test_filename_matches_torch(tmp_path, torch):
    path = tmp_path / "fn.bin"
    _write(path, bytes(32))
    for shared in (True, False):
        u = torch.from_file(str(path), shared, 4, dtype=torch.float32)
        t = pytensor.from_file(str(path), shared, 4, dtype=pytensor.float32)
        assert t.untyped_storage().filename == u.untyped_storage().filename


def test_long_path_keeps_its_full_path_and_its_label_keeps_the_mode(tmp_path):
    deep = tmp_path / ("d" * 200) / ("e" * 200)
    deep.mkdir(parents=True)
    path = deep / "weights.bin"
    _write(path, bytes(8))
    s = pytensor.from_file(str(path), shared=True, dtype=pytensor.uint8).untyped_storage()
    assert s.mapped_file == (str(path), "shared")
    assert s.label.startswith("...") and s.label.endswith("weights.bin (shared)")


def test_inspector_snapshot_shows_the_file(tmp_path):
    from pytensor.widgets._snapshot import snapshot
    path = tmp_path / "snap.bin"
    _write(path, bytes(16))
    m = pytensor.from_file(str(path), shared=False, dtype=pytensor.uint8)
    snap, _ = snapshot(m, m[4:8], names=["m", "part"])
    (region,) = snap["regions"]
    texts = [b["text"] for b in region["badges"] if b["kind"] == "file"]
    assert texts and str(path) in texts[0] and "private" in texts[0]
