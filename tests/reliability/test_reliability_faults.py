"""Fault handling, with the documented behaviour of each fault:

* Interpreter shutdown with live exports (numpy views, torch tensors, DLPack
  capsules, borrowed buffers, file mappings held in globals and cycles): the
  process exits 0 and prints nothing on stderr.
* A file deleted right after mapping: the mapping keeps the inode; reads and
  writes keep working and the storage is freed normally.
* A file shrunk (os.truncate) under a live mapping: bytes still inside the file
  read normally; touching a page past the new end raises SIGBUS, as for any
  mmap user (numpy.memmap, torch.from_file). It cannot be turned into an
  exception, so it is tested only in a subprocess.
* A full disk when extending a file: from_file(shared=True) extends with
  ftruncate, which makes a sparse file and succeeds even on a full file system;
  the space is taken when a page is first written, and a write that finds no
  space raises SIGBUS. A file-size limit (RLIMIT_FSIZE, EFBIG) is refused up
  front with an exception that names the sizes.
"""
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest

import pytensor
from support import IN_CI, require_module

TESTS = str(Path(__file__).resolve().parents[1])


def run_child(code, **kw):
    """Runs code in a fresh interpreter; ASan (in the sanitized pass) must leave SIGBUS to the kernel."""
    env = dict(os.environ)
    env["ASAN_OPTIONS"] = (env.get("ASAN_OPTIONS", "") + ":handle_sigbus=0").lstrip(":")
    script = f"import sys; sys.path.insert(0, {TESTS!r})\n" + textwrap.dedent(code)
    # Not from the repository root, where `python -c` would import the source
    # folder (which has no compiled extension) instead of the installed package.
    kw.setdefault("cwd", tempfile.gettempdir())
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, env=env, **kw)


def test_shutdown_with_live_exports_exits_cleanly(tmp_path):
    has_torch = True
    try:
        import torch  # noqa: F401
    except ImportError:
        has_torch = False
        if IN_CI:
            require_module("torch")
    res = run_child(f"""
        import threading, numpy as np, pytensor
        from dlpack_producer import Producer
        HAS_TORCH = {has_torch}
        p = Producer()
        t = pytensor.arange(1000.)
        KEEP = [t.numpy(), np.from_dlpack(t[1:]), t.__dlpack__(), t.__dlpack__(max_version=(1, 0)),
                pytensor.from_dlpack(np.arange(10.)), pytensor.frombuffer(bytearray(64), dtype=pytensor.int32),
                pytensor.from_file({str(tmp_path / "f.bin")!r}, shared=True, size=100),
                pytensor.from_dlpack(p.capsule((5,), (1,))), p.capsule()]
        if HAS_TORCH:
            import torch
            KEEP += [torch.from_dlpack(t), pytensor.from_dlpack(torch.arange(5.)),
                     torch.from_dlpack(pytensor.frombuffer(bytearray(16), dtype=pytensor.uint8))]
        cycle = [t[2:], KEEP]
        cycle.append(cycle)
        def churn():                      # a thread still exporting and dropping while the interpreter exits
            while True:
                u = pytensor.from_dlpack(t.__dlpack__(max_version=(1, 0)))
                del u
        threading.Thread(target=churn, daemon=True).start()
        print("ok", flush=True)
    """, cwd=tmp_path)
    assert res.returncode == 0, res.stderr[-3000:]
    assert res.stdout.strip() == "ok"
    assert "Error" not in res.stderr and "Fatal" not in res.stderr, res.stderr[-3000:]


def test_file_deleted_right_after_mapping_stays_usable(tmp_path, live_baseline):
    path = tmp_path / "gone.bin"
    path.write_bytes(bytes(range(64)))
    t = pytensor.from_file(str(path), shared=True, dtype=pytensor.uint8)
    os.unlink(path)
    assert t[:4].tolist() == [0, 1, 2, 3]
    t[0] = 99
    assert t[0].item() == 99 and t.untyped_storage().mapped_file[0] == str(path)
    with pytest.raises(RuntimeError, match="gone.bin"):
        pytensor.from_file(str(path), shared=False)          # the name is gone, the mapping is not
    del t


def test_file_shrunk_under_a_mapping_raises_sigbus_past_the_new_end(tmp_path):
    path = tmp_path / "shrink.bin"
    path.write_bytes(bytes(range(256)) * 64)                 # 16 KiB: four pages
    res = run_child(f"""
        import os, pytensor
        t = pytensor.from_file({str(path)!r}, shared=False, dtype=pytensor.uint8)
        os.truncate({str(path)!r}, 4096)                     # one page left
        print(t[:4096].sum().item(), flush=True)             # inside the file: fine
        print("reading past the end", flush=True)
        t[8192].item()                                       # past the end: SIGBUS
        print("unreachable", flush=True)
    """)
    assert res.stdout.split("\n")[:2] == [str(sum(range(256)) * 16), "reading past the end"], res.stderr[-2000:]
    assert res.returncode == -signal.SIGBUS, (res.returncode, res.stderr[-2000:])


def test_file_size_limit_is_refused_with_both_sizes(tmp_path):
    path = tmp_path / "limited.bin"
    res = run_child(f"""
        import resource, pytensor
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
        try:
            pytensor.from_file({str(path)!r}, shared=True, size=1 << 20, dtype=pytensor.uint8)
        except RuntimeError as e:
            print("refused:", e)
    """)
    assert res.returncode == 0, res.stderr[-2000:]
    assert "refused:" in res.stdout and "0 to 1048576 bytes" in res.stdout, res.stdout
    assert path.stat().st_size == 0


@pytest.fixture
def tiny_tmpfs(tmp_path):
    """A 64 KiB tmpfs mounted for this test (needs root, as CI has)."""
    where = tmp_path / "tiny"
    where.mkdir()
    res = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(where)],
                         capture_output=True, text=True)
    if res.returncode != 0:
        reason = f"cannot mount a small tmpfs here ({res.stderr.strip() or res.returncode})"
        if IN_CI:
            pytest.fail(f"CI runs as root and must be able to mount one: {reason}")
        pytest.skip(reason)
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def test_full_disk_extension_succeeds_and_the_first_write_without_space_raises_sigbus(tiny_tmpfs):
    path = tiny_tmpfs / "big.bin"
    res = run_child(f"""
        import pytensor
        t = pytensor.from_file({str(path)!r}, shared=True, size=1 << 20, dtype=pytensor.uint8)
        print("extended", flush=True)                        # a sparse file: no space taken yet
        print(t[(1 << 20) - 4096:].sum().item(), flush=True)  # holes read as zeros
        t[:4096] = 7                                         # one page fits
        print("one page written", flush=True)
        t.fill_(1)                                           # 1 MiB does not fit in 64 KiB
        print("unreachable", flush=True)
    """)
    assert res.stdout.split("\n")[:3] == ["extended", "0", "one page written"], (res.stdout, res.stderr[-2000:])
    assert res.returncode == -signal.SIGBUS, (res.returncode, res.stderr[-2000:])
    assert path.stat().st_size == 1 << 20
    with open(path, "rb") as f:
        assert f.read(4096) == b"\x01" * 4096                # pages the fill reached before the fault are kept


def test_full_disk_private_and_read_only_maps_still_work(tiny_tmpfs, live_baseline):
    full = tiny_tmpfs / "fill.bin"
    fd = os.open(full, os.O_WRONLY | os.O_CREAT)
    with pytest.raises(OSError, match="No space"):
        while True:
            os.write(fd, bytes(4096))                        # fill the file system
    os.close(fd)
    t = pytensor.from_file(str(full), shared=False, dtype=pytensor.uint8)
    assert t.numel() == full.stat().st_size > 0
    t[:10] = 1                                               # copy-on-write pages come from memory, not disk
    assert t[:10].tolist() == [1] * 10 and full.read_bytes()[:10] == bytes(10)
    del t
