"""Files under attack: saving over a file that is mapped, headers
no reader accepts, FIFOs and other special files, json that the format refuses, and hostile headers.

Each test failed before its fix. What crashed (SIGBUS) or hung (a FIFO) runs in a fresh subprocess
with a timeout, so a regression fails the test instead of killing or stalling the suite.
"""
import json
import os
import stat
import struct
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import support

st_pkg = support.require_module("safetensors")
st_torch = support.require_module("safetensors.torch")
torch = support.require_module("torch")

import pytensor
from pytensor import safetensors as pst
from pytensor._ffi import shim
from pytensor._npy import NpyFormatError
from pytensor.safetensors import SafetensorError

TESTS = str(Path(__file__).resolve().parents[1])


def run_child(code, timeout=60):
    """``code`` in a fresh interpreter (outside the repository root, where ``python -c`` would import
    the uncompiled source folder); a hang past ``timeout`` seconds fails the calling test."""
    script = f"import sys; sys.path.insert(0, {TESTS!r})\n" + textwrap.dedent(code)
    try:
        return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=timeout,
                              cwd=tempfile.gettempdir())
    except subprocess.TimeoutExpired:
        pytest.fail(f"the child hung for {timeout} s:\n{code}")


def assert_clean(res, expected):
    assert res.returncode == 0, f"child died with {res.returncode}: {res.stderr[-3000:]}"
    assert res.stdout.split() == expected.split(), res.stdout + res.stderr


def _leftovers(directory, keep):
    return sorted(p.name for p in Path(directory).iterdir() if p.name not in keep)


# ---------------------------------------------------------------- 1. saving over a mapped file

def test_saving_over_the_loaded_checkpoint_keeps_the_old_views_and_writes_the_new_file():
    """Before: save_file opened the path "wb", truncating the file under the mapping it read from:
    SIGBUS, or (the header growing by one tensor) every old element garbage. Run in a child: SIGBUS."""
    res = run_child("""
        import os, tempfile, pytensor
        from pytensor import safetensors as pst
        d = tempfile.mkdtemp()
        p = os.path.join(d, "ckpt.safetensors")
        w = pytensor.arange(4096.0).reshape(64, 64)
        b = pytensor.arange(64, dtype=pytensor.int32)
        pst.save_file({"w": w, "b": b}, p, metadata={"step": "1"})
        loaded = pst.load_file(p)
        assert loaded["w"].untyped_storage().mapped_file[0] == p
        # save the loaded views back, with a tensor added (the header grows, every offset moves)
        pst.save_file({**loaded, "extra_tensor_with_a_long_name": pytensor.ones(3, 5)}, p, metadata={"step": "2"})
        print(loaded["w"].tolist() == w.tolist(), loaded["b"].tolist() == b.tolist())   # the old views
        again = pst.load_file(p)
        print(sorted(again), again["w"].tolist() == w.tolist(), again["b"].tolist() == b.tolist(),
              again["extra_tensor_with_a_long_name"].tolist() == [[1.0] * 5] * 3)
        with pst.safe_open(p) as f:
            print(f.metadata())
        # and saving the same views over their own file once more, unchanged
        pst.save_file(again, p)
        print(pst.load_file(p)["w"].tolist() == w.tolist(), again["b"].tolist() == b.tolist())
        print(sorted(os.listdir(d)))
    """)
    assert_clean(res, "True True ['b', 'extra_tensor_with_a_long_name', 'w'] True True True {'step': '2'} "
                      "True True ['ckpt.safetensors']")


def test_shared_mapping_keeps_writing_to_the_old_file_after_a_save():
    """A shared mapping is of the old inode: writes through it after the save do not reach the new file
    (before: the file was truncated under it, and the write raised SIGBUS)."""
    res = run_child("""
        import os, tempfile, pytensor
        from pytensor import safetensors as pst
        p = os.path.join(tempfile.mkdtemp(), "s.safetensors")
        pst.save_file({"a": pytensor.zeros(4)}, p)
        a = pst.load_file(p, shared=True)["a"]
        pst.save_file({"a": a + 1}, p)
        a[0] = 9.0
        print(a.tolist(), pst.load_file(p)["a"].tolist())
    """)
    assert_clean(res, "[9.0, 0.0, 0.0, 0.0] [1.0, 1.0, 1.0, 1.0]")


def test_a_failure_midway_leaves_the_old_file_whole_and_no_temporary_file():
    """A real tensor whose bytes cannot be produced: an expanded view of 2**62 bytes, which the writer
    makes contiguous (the allocation fails). It sorts after two tensors already written. (In a child:
    before the fix, the truncated file under the loaded views raised SIGBUS.)"""
    res = run_child("""
        import os, tempfile, pytensor
        from pytensor import safetensors as pst
        d = tempfile.mkdtemp()
        p = os.path.join(d, "ckpt.safetensors")
        pst.save_file({"a": pytensor.arange(100.0, dtype=pytensor.float64), "b": pytensor.ones(10)}, p)
        before = open(p, "rb").read()
        loaded = pst.load_file(p)
        huge = pytensor.ones(1).expand(2**60)
        try:
            pst.save_file({**loaded, "z": huge}, p)
        except MemoryError as e:
            print("refused", "4611686018427387904 bytes" in str(e))
        print(open(p, "rb").read() == before, loaded["a"].tolist() == list(range(100)),
              loaded["b"].tolist() == [1.0] * 10, os.listdir(d))
    """)
    assert_clean(res, "refused True True True True ['ckpt.safetensors']")


# A child's start: a checkpoint saved, and loaded (mapped) from the path it is about to be saved over.
CHECKPOINT_LOADED = textwrap.dedent("""
    import os, resource, signal, tempfile, pytensor
    from pytensor import safetensors as pst
    d = tempfile.mkdtemp()
    p = os.path.join(d, "ckpt.safetensors")
    pst.save_file({"w": pytensor.arange(512.0)}, p)
    before = open(p, "rb").read()
    loaded = pst.load_file(p)
""")


def test_a_full_disk_midway_leaves_the_old_file_whole_and_no_temporary_file():
    """A real write error: the file-size limit (RLIMIT_FSIZE, SIGXFSZ ignored) makes write() fail with
    EFBIG partway through the data, as a full disk fails it with ENOSPC."""
    res = run_child(CHECKPOINT_LOADED + textwrap.dedent("""
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (16384, resource.RLIM_INFINITY))
        try:
            pst.save_file({**loaded, "big": pytensor.ones(65536)}, p)
        except OSError as e:
            print("refused", e.errno == __import__("errno").EFBIG)
        print(open(p, "rb").read() == before, loaded["w"].tolist() == list(range(512)), os.listdir(d))
    """))
    assert_clean(res, "refused True True True ['ckpt.safetensors']")


def test_ctrl_c_midway_leaves_the_old_file_whole_and_no_temporary_file():
    """A KeyboardInterrupt from a real signal's handler: the file-size limit sends SIGXFSZ as the write
    fails, and its handler raises KeyboardInterrupt, as Ctrl-C's does. Python runs the handler at the
    writer's next call, inside its cleanup, which must still remove the temporary file."""
    res = run_child(CHECKPOINT_LOADED + textwrap.dedent("""
        def interrupt(*_):
            raise KeyboardInterrupt
        signal.signal(signal.SIGXFSZ, interrupt)
        resource.setrlimit(resource.RLIMIT_FSIZE, (16384, resource.RLIM_INFINITY))
        try:
            pst.save_file({**loaded, "big": pytensor.ones(65536)}, p)
        except KeyboardInterrupt:
            print("interrupted")
        print(open(p, "rb").read() == before, loaded["w"].tolist() == list(range(512)), os.listdir(d))
    """))
    assert_clean(res, "interrupted True True ['ckpt.safetensors']")


def test_the_new_file_keeps_the_old_permission_bits_and_a_new_one_follows_the_umask(tmp_path):
    p = tmp_path / "m.safetensors"
    pst.save_file({"a": pytensor.ones(2)}, p)
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(p.stat().st_mode) == 0o666 & ~umask   # as open(path, "wb") creates it
    p.chmod(0o640)
    pst.save_file({"a": pytensor.zeros(2)}, p)
    assert stat.S_IMODE(p.stat().st_mode) == 0o640
    assert pst.load_file(p)["a"].tolist() == [0.0, 0.0]


def test_saving_through_a_symbolic_link_replaces_its_target_and_keeps_the_link(tmp_path):
    target = tmp_path / "real.safetensors"
    link = tmp_path / "link.safetensors"
    pst.save_file({"a": pytensor.ones(2)}, target)
    link.symlink_to(target.name)
    pst.save_file({"a": pytensor.ones(2), "b": pytensor.zeros(3)}, link)
    assert link.is_symlink() and sorted(pst.load_file(target)) == ["a", "b"]
    assert _leftovers(tmp_path, {"real.safetensors", "link.safetensors"}) == []


def _save_into_a_locked_directory(path):
    before = Path(path).read_bytes()
    try:
        pst.save_file({"a": pytensor.zeros(2)}, path)
        return "written"
    except PermissionError as e:
        return [path in str(e), "needs a new file beside it" in str(e), Path(path).read_bytes() == before,
                os.listdir(os.path.dirname(path))]


def test_a_directory_that_refuses_new_files_refuses_the_save_and_keeps_the_file():
    """Writing never falls back to writing in place: a writable file in a directory that refuses new
    files is refused with the reason (PermissionError), not overwritten."""
    d = tempfile.mkdtemp(prefix="pytensor_files_")
    path = os.path.join(d, "w.safetensors")
    try:
        pst.save_file({"a": pytensor.ones(2)}, path)
        os.chmod(path, 0o666)
        if os.geteuid() == 0:   # root may create files anywhere: the case runs as nobody
            os.chmod(d, 0o755)
            got = support.run_unprivileged(_save_into_a_locked_directory, path)
        else:
            os.chmod(d, 0o555)
            got = _save_into_a_locked_directory(path)
    finally:
        os.chmod(d, 0o755)
        for name in os.listdir(d):
            os.unlink(os.path.join(d, name))
        os.rmdir(d)
    assert got == [True, True, True, ["w.safetensors"]]


def test_saving_onto_a_special_file_is_refused_without_blocking(tmp_path):
    """Before: open(fifo, "wb") waited forever for a reader."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    res = run_child(f"""
        import pytensor
        from pytensor import safetensors as pst
        for p in [{str(fifo)!r}, "/dev/null", {str(tmp_path)!r}]:
            try:
                pst.save_file({{"a": pytensor.ones(2)}}, p)
            except pst.SafetensorError as e:
                print(p in str(e), "not a regular file" in str(e))
    """, timeout=30)
    assert_clean(res, "True True " * 3)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode) and stat.S_ISCHR(os.stat("/dev/null").st_mode)


# ---------------------------------------------------------------- 2. headers no reader accepts

def test_a_header_over_the_format_limit_is_refused_before_anything_is_written(tmp_path):
    """Before: 100 MB of metadata was written, then refused by pytensor and the package alike."""
    p = tmp_path / "big.safetensors"
    metadata = {"notes": "x" * pst.MAX_HEADER_BYTES}
    with pytest.raises(SafetensorError, match="over the format's limit of 100000000"):
        pst.save_file({"a": pytensor.ones(2)}, p, metadata=metadata)
    assert _leftovers(tmp_path, set()) == []                      # nothing created, not even a temporary
    pst.save_file({"a": pytensor.ones(2)}, p)
    before = p.read_bytes()
    with pytest.raises(SafetensorError, match="over the format's limit"):
        pst.save_file({"a": pytensor.zeros(2)}, p, metadata=metadata)
    assert p.read_bytes() == before and _leftovers(tmp_path, {"big.safetensors"}) == []
    with pytest.raises(SafetensorError, match="over the format's limit"):
        pst.save({"a": pytensor.ones(2)}, metadata=metadata)
    # 17 million characters, each written as a 6-byte escape: over the limit only once encoded
    escaped = {"notes": "\x01" * 17_000_000}
    with pytest.raises(SafetensorError, match="header would be 1020000.. bytes, over the format's limit"):
        pst.save_file({"a": pytensor.ones(2)}, p, metadata=escaped)
    assert p.read_bytes() == before and _leftovers(tmp_path, {"big.safetensors"}) == []


def test_names_that_are_not_unicode_are_refused_before_anything_is_written(tmp_path):
    """json.dumps would write a lone surrogate as the escape "\\ud800", which no reader accepts."""
    p = tmp_path / "s.safetensors"
    for tensors, metadata in [({"a\ud800": pytensor.ones(1)}, None), ({"a": pytensor.ones(1)}, {"\udc00": "v"}),
                              ({"a": pytensor.ones(1)}, {"k": "v\ud83d"})]:
        with pytest.raises(SafetensorError, match="lone surrogate"):
            pst.save_file(tensors, p, metadata=metadata)
    assert not p.exists()
    pst.save_file({"\U0001f600": pytensor.ones(1)}, p)   # a character outside the BMP is fine
    assert list(st_torch.load_file(str(p))) == ["\U0001f600"]


# ---------------------------------------------------------------- 4. FIFOs and other special files

def test_every_reader_refuses_a_fifo_without_blocking(tmp_path):
    """Before: safe_open, load_file and pytensor.load waited forever in open() for a writer."""
    fifo = tmp_path / "pipe.safetensors"
    os.mkfifo(fifo)
    res = run_child(f"""
        import pytensor
        from pytensor import safetensors as pst
        from pytensor._npy import NpyFormatError
        p = {str(fifo)!r}
        calls = [("safe_open", lambda: pst.safe_open(p), pst.SafetensorError),
                 ("load_file", lambda: pst.load_file(p), pst.SafetensorError),
                 ("load", lambda: pytensor.load(p), NpyFormatError),
                 ("load_mmap", lambda: pytensor.load(p, mmap=True), NpyFormatError),
                 ("from_file", lambda: pytensor.from_file(p, dtype=pytensor.uint8), RuntimeError)]
        for name, call, error in calls:
            try:
                call()
                print(name, "accepted")
            except error as e:
                print(name, p in str(e), "not a regular file" in str(e))
    """, timeout=30)
    assert_clean(res, " ".join(f"{n} True True" for n in ["safe_open", "load_file", "load", "load_mmap",
                                                          "from_file"]))


@pytest.mark.parametrize("special", ["/dev/null", "/dev/zero", "directory"])
def test_every_reader_refuses_devices_and_directories_with_the_path(tmp_path, special):
    path = str(tmp_path) if special == "directory" else special
    kind = "a directory" if special == "directory" else "a character device"
    for call, error in [(lambda: pst.safe_open(path), SafetensorError), (lambda: pst.load_file(path), SafetensorError),
                        (lambda: pytensor.load(path), NpyFormatError),
                        (lambda: pytensor.load(path, mmap=True), NpyFormatError)]:
        with pytest.raises(error, match=f"'{path}' is {kind}, not a regular file"):
            call()


# ---------------------------------------------------------------- 11. the json path as strict as the format

def _file(header_text, data=b""):
    raw = header_text.encode("utf-8", "surrogatepass")
    return struct.pack("<Q", len(raw)) + raw + data


_ENTRY = '{"dtype":"F32","shape":[1],"data_offsets":[0,4]}'
STRICT = {   # each accepted by json.loads before, and by pytensor's json fallback; refused by the package
    "field twice": '{"a":{"dtype":"F32","dtype":"F32","shape":[1],"data_offsets":[0,4]}}',
    "__metadata__ twice": '{"__metadata__":{},"__metadata__":{},"a":' + _ENTRY + '}',
    "NaN": '{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"x":NaN}}',
    "Infinity": '{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"x":[-Infinity]}}',
    "-0 as a dimension": '{"a":{"dtype":"F32","shape":[1,-0],"data_offsets":[0,0]},"b":' + _ENTRY + '}',
    "-0 as an offset": '{"a":{"dtype":"F32","shape":[1],"data_offsets":[-0,4]}}',
    "lone surrogate in a name": '{"\\ud800":' + _ENTRY + '}',
    "lone surrogate in metadata": '{"__metadata__":{"k":"\\udfff"},"a":' + _ENTRY + '}',
    "lone surrogate in an unknown key": '{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"\\udbff":1}}',
    "number out of range": '{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"x":1e999}}',
    "nested 128 deep": '{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"x":' + "[" * 126 + "]" * 126 + '}}',
}


@pytest.mark.parametrize("case", sorted(STRICT))
def test_the_json_path_refuses_what_the_package_refuses(tmp_path, case):
    data = _file(STRICT[case], bytes(4))
    with pytest.raises(Exception):       # the package's parser (serde_json) refuses it
        st_torch.load(data)
    with pytest.raises(SafetensorError):
        pst.load(data)
    p = tmp_path / "x.safetensors"
    p.write_bytes(data)
    with pytest.raises(SafetensorError):
        pst.load_file(p)


def test_a_name_repeated_through_an_escape_is_a_duplicate():
    """Before: the duplicate check counted '"data_offsets"' substrings, which an escape hides."""
    data = _file('{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},'
                 '"\\u0061":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}', bytes(4))
    with pytest.raises(SafetensorError, match="names 'a' twice"):
        pst.load(data)
    # the count it used: one '"data_offsets"' for one key left after json collapsed the two names
    hidden = _file('{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},'
                   '"a":{"dtype":"F32","shape":[1],"d\\u0061ta_offsets":[0,4]}}', bytes(4))
    with pytest.raises(SafetensorError, match="names 'a' twice"):
        pst.load(hidden)


def test_what_is_valid_json_the_format_takes_is_still_read():
    cases = {'{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"x":' + "[" * 125 + "]" * 125 + '}}': "a",
             '{"\\ud83d\\ude00":' + _ENTRY + '}': "\U0001f600",             # a surrogate pair is one character
             '{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"x":' + "9" * 300 + '}}': "a",
             '{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"x":-0}}': "a",   # -0 where no size is read
             '{"__metadata__":null,"a":' + _ENTRY + '}': "a"}
    for header, name in cases.items():
        data = _file(header, np.array([2.5], "<f4").tobytes())
        assert list(st_torch.load(data)) == [name]
        assert {k: v.tolist() for k, v in pst.load(data).items()} == {name: [2.5]}


# The oracle fuzz: valid files, then one hostile mutation of the header's JSON text.
HOSTILE = ("duplicate name", "duplicate name by escape", "duplicate field", "duplicate __metadata__",
           "duplicate metadata key", "non-finite constant", "-0", "lone surrogate", "surrogate pair",
           "deep nesting", "long number", "float size", "empty shape overflow", "unknown key", "escaped name",
           "too many dimensions")
# The package's dtypes for which its torch frontend has a torch dtype (F8_E8M0 has none, so the frontend
# raises KeyError for a header the format and pytensor accept).
CODES = {"U8": 1, "I16": 2, "F32": 4, "F64": 8, "BOOL": 1, "I64": 8, "BF16": 2, "F8_E4M3": 1, "C64": 8}


def _escape(text):
    return "".join(f"\\u{ord(c):04x}" for c in text)


@st.composite
def hostile_files(draw):
    """``(category, bytes)``: a valid file's header rebuilt as JSON text with one hostile change."""
    names = draw(st.lists(st.text("abz", min_size=1, max_size=2), min_size=1, max_size=3, unique=True))
    entries, at = [], 0
    for name in names:
        code = draw(st.sampled_from(sorted(CODES)))
        shape = draw(st.lists(st.integers(0, 3), max_size=3))
        nbytes = int(np.prod(shape)) * CODES[code]
        entries.append([name, [["dtype", json.dumps(code)], ["shape", json.dumps(shape)],
                               ["data_offsets", json.dumps([at, at + nbytes])]]])
        at += nbytes
    metadata = [["k", '"v"']] if draw(st.booleans()) else None
    kind = draw(st.sampled_from(HOSTILE))
    i = draw(st.integers(0, len(entries) - 1))
    fields = entries[i][1]
    if kind == "duplicate name":
        entries.append(list(draw(st.sampled_from(entries))))
    elif kind == "duplicate name by escape":
        other = draw(st.sampled_from(entries))
        entries.append(["\0" + _escape(other[0]), other[1]])          # "\0": the name is already spelled
    elif kind == "duplicate field":
        fields.insert(draw(st.integers(0, 3)), list(draw(st.sampled_from(fields))))
    elif kind == "duplicate __metadata__":
        metadata = metadata or [["k", '"v"']]
    elif kind == "duplicate metadata key":
        metadata = [["k", '"v"'], ["k", draw(st.sampled_from(['"v"', '"w"']))]]
    elif kind == "non-finite constant":
        fields.append(["x", draw(st.sampled_from(["NaN", "Infinity", "-Infinity", "[NaN]"]))])
    elif kind == "-0":
        k = draw(st.sampled_from([1, 2, None]))              # in the shape, the offsets, or an unknown key
        if k is not None and fields[k][1].startswith("[0"):
            fields[k][1] = "[-0" + fields[k][1][2:]
        else:
            fields.append(["x", "-0"])
    elif kind == "lone surrogate":
        lone = draw(st.sampled_from(["\\ud800", "\\udbff", "\\udc00", "\\udfff", "\\ud83d\\u0041"]))
        where = draw(st.sampled_from(["name", "metadata", "x"]))
        if where == "name":
            entries[i][0] = "\0" + _escape(entries[i][0]) + lone
        elif where == "metadata":
            metadata = [["k", '"' + lone + '"']]
        else:
            fields.append(["x", '"' + lone + '"'])
    elif kind == "surrogate pair":
        entries[i][0] = "\0" + _escape(entries[i][0]) + "\\ud83d\\ude00"
    elif kind == "deep nesting":
        depth = draw(st.integers(120, 135))
        fields.append(["x", "[" * depth + "]" * depth])
    elif kind == "long number":
        digits = draw(st.sampled_from([20, 300, 308, 309, 310, 400, 5000]))
        fields.append(["x", draw(st.sampled_from(["", "-"])) + "9" * digits])
    elif kind == "float size":
        k = draw(st.sampled_from([1, 2]))                    # the shape or the offsets: 3 -> 3.0
        fields[k][1] = fields[k][1].replace("]", ".0]", 1) if fields[k][1] != "[]" else "[1e0]"
    elif kind == "empty shape overflow":
        big = draw(st.sampled_from([2**31, 2**61, 2**62, 2**63 - 1, 2**63, 2**64 - 1]))
        shape = draw(st.permutations([0, big, big]))
        fields[1][1] = json.dumps(shape)
        fields[2][1] = json.dumps([0, 0])
        entries[:] = [entries[i]]
        fields = entries[0][1]
        at = 0
    elif kind == "unknown key":
        fields.append([draw(st.sampled_from(["x", "note", "__metadata__"])),
                       draw(st.sampled_from(['1', '"s"', '{"a":[1,2]}', 'null', '1.5e300']))])
    elif kind == "escaped name":
        entries[i][0] = "\0" + _escape(entries[i][0])
    elif kind == "too many dimensions":
        fields[1][1] = json.dumps([1] * draw(st.sampled_from([63, 64, 65, 70])))
        fields[2][1] = json.dumps([0, CODES[json.loads(fields[0][1])]])
        entries[:] = [entries[i]]
        at = CODES[json.loads(fields[0][1])]
    parts = []
    if metadata is not None:
        meta = '"__metadata__":{' + ",".join(f'"{k}":{v}' for k, v in metadata) + "}"
        parts.append(meta)
        if kind == "duplicate __metadata__":
            parts.append(meta)
    for name, fs in entries:
        key = name[1:] if name.startswith("\0") else json.dumps(name)[1:-1]
        parts.append(f'"{key}":{{' + ",".join(f'"{k}":{v}' for k, v in fs) + "}")
    draw(st.randoms()).shuffle(parts)
    text = "{" + ",".join(parts) + "}"
    data = bytes(range(256)) * (at // 256 + 1)
    return kind, _file(text, data[:at])


def test_every_file_pytensor_reads_the_package_reads_the_same():
    """The ``safetensors`` package is the oracle: whenever pytensor accepts a file, the package accepts it
    too, with the same names, dtypes, shapes, bytes and metadata; pytensor refuses only with
    SafetensorError. The generator must have made each hostile category."""
    seen, outcomes = set(), set()

    @settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(case=hostile_files())
    def run(case):
        kind, data = case
        seen.add(kind)
        theirs, ours = support.read_by_both(lambda: st_torch.load(data), lambda: pst.load(data))
        outcomes.add((kind, ours is not None))
        if ours is None:
            return
        assert theirs is not None, (kind, data[:400])
        assert set(ours) == set(theirs), (kind, data[:400])
        for name, t in ours.items():
            ref = theirs[name]
            assert tuple(t.shape) == tuple(ref.shape) and t.element_size() == ref.element_size(), (kind, name)
            assert bytes(t.contiguous().reshape(-1).view(pytensor.uint8).numpy()) == \
                ref.contiguous().reshape(-1).view(torch.uint8).numpy().tobytes(), (kind, name)
        with tempfile.TemporaryDirectory() as d:   # the metadata, through both readers' files
            p = os.path.join(d, "f.safetensors")
            Path(p).write_bytes(data)
            with st_pkg.safe_open(p, "pt") as f, pst.safe_open(p) as g:
                assert f.metadata() == g.metadata(), kind
            assert set(pst.load_file(p)) == set(ours)

    run()
    assert seen == set(HOSTILE), set(HOSTILE) - seen
    accepted = {k for k, ok in outcomes if ok}
    refused = {k for k, ok in outcomes if not ok}
    # the categories the format refuses were refused, and the valid ones read
    assert {"duplicate field", "duplicate __metadata__", "non-finite constant", "lone surrogate",
            "deep nesting", "long number", "float size", "empty shape overflow"} <= refused
    assert {"surrogate pair", "unknown key", "escaped name", "deep nesting", "long number"} <= accepted


# ---------------------------------------------------------------- 14. hostile headers: the format's error

def _headers_over(sizes_field):
    return _file('{"a":{"dtype":"F32","shape":' + sizes_field + ',"data_offsets":[0,0]},"b":' + _ENTRY + '}',
                 bytes(4))


WRONG_ERRORS = {   # before: what each raised instead of SafetensorError
    "100,000-deep arrays (RecursionError)": _file('{"a":' + "[" * 100_000 + "]" * 100_000 + "}"),
    "100,000-deep in an entry (RecursionError)": _file('{"a":{"x":' + "[" * 100_000 + "]" * 100_000 + "}}"),
    "a 5,000-digit dimension (ValueError)": _file('{"a":{"dtype":"F32","shape":[' + "9" * 5000 +
                                                  '],"data_offsets":[0,4]}}', bytes(4)),
    "a 5,000-digit key value (ValueError)": _file('{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"x":' +
                                                  "1" * 5000 + "}}", bytes(4)),
    "0-byte shape, strides overflow (RuntimeError)": _headers_over("[0,4611686018427387904,4611686018427387904]"),
    "0-byte shape, numel overflows (RuntimeError)": _headers_over("[4611686018427387904,4611686018427387904,0]"),
    "0-byte shape, extent past int64": _headers_over("[0,9223372036854775808]"),
    "0-byte shape, 2**63-1 bytes of F32": _headers_over("[0,9223372036854775807]"),
    "65 dimensions (RuntimeError)": _file('{"a":{"dtype":"F32","shape":[' + ",".join(["1"] * 65) +
                                          '],"data_offsets":[0,4]}}', bytes(4)),
}


@pytest.mark.parametrize("case", sorted(WRONG_ERRORS))
def test_hostile_headers_raise_the_formats_error_before_mapping(tmp_path, case):
    data = WRONG_ERRORS[case]
    with pytest.raises(SafetensorError):
        pst.load(data)
    p = tmp_path / "h.safetensors"
    p.write_bytes(data)
    fd = os.open(p, os.O_RDONLY)
    try:   # the header reader alone (nothing mapped yet) is what refuses it
        with pytest.raises(SafetensorError):
            pst._read_header(fd, len(data), str(p))
    finally:
        os.close(fd)
    with pytest.raises(SafetensorError):
        pst.load_file(p)


def test_an_empty_shape_whose_strides_fit_is_still_read():
    data = _headers_over("[0,1024,1024]")
    got = pst.load(data)
    assert tuple(got["a"].shape) == (0, 1024, 1024) and got["a"].stride() == (1024 * 1024, 1024, 1)
    assert tuple(st_torch.load(data)["a"].shape) == (0, 1024, 1024)


def test_the_c_header_parser_declines_an_empty_shape_whose_strides_overflow():
    raw = b'{"a":{"dtype":"F32","shape":[0,4611686018427387904,4611686018427387904],"data_offsets":[0,0]}}'
    assert shim.safetensors_header(raw, pst._ITEMSIZES) is None
    ok = b'{"a":{"dtype":"F32","shape":[0,1024,1024],"data_offsets":[0,0]}}'
    assert shim.safetensors_header(ok, pst._ITEMSIZES) == ([("a", "F32", (0, 1024, 1024), 0, 0)], None)


def test_nesting_depth_is_counted_outside_strings_only():
    assert shim.safetensors_depth(b'{"a":[[1]],"b":"[[[[\\"[["}') == 3
    assert shim.safetensors_depth(b"[" * 100_000) == 100_000


def test_npy_empty_shapes_whose_strides_overflow_are_refused_before_mapping(tmp_path):
    p = tmp_path / "e.npy"
    for shape in ["(0, 4611686018427387904, 4611686018427387904)", "(4611686018427387904, 4611686018427387904, 0)",
                  "(0, 9223372036854775808)", "(" + "1, " * 65 + ")"]:
        header = f"{{'descr': '<f4', 'fortran_order': False, 'shape': {shape}, }}".encode()
        header += b" " * (-(10 + len(header) + 1) % 64) + b"\n"
        p.write_bytes(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header)
        for mmap in (False, True):
            with pytest.raises(NpyFormatError, match="int64|64 dimensions"):
                pytensor.load(p, mmap=mmap)
