"""pytensor.safetensors: one mapping for the whole file, interop with the safetensors package both
ways, and hostile files refused before anything is mapped."""
import json
import os
import struct

import numpy as np
import pytest
import safetensors.numpy as st_np
from hypothesis import HealthCheck, given, settings, strategies as st
from safetensors import safe_open as st_safe_open

import pytensor
from pytensor import safetensors as pst
from pytensor.safetensors import SafetensorError
from support import read_by_both, require_module

DTYPES = [pytensor.bool, pytensor.uint8, pytensor.int8, pytensor.int16, pytensor.uint16, pytensor.int32,
          pytensor.uint32, pytensor.int64, pytensor.uint64, pytensor.float16, pytensor.bfloat16,
          pytensor.float32, pytensor.float64, pytensor.complex64]


def _sample(dt, shape):
    return pytensor.tensor(np.arange(int(np.prod(shape))) % 7).to(dt).reshape(shape)


def _torch_modules():
    """torch and safetensors.torch, for the tests that compare with them (skip without torch; fail in CI)."""
    return require_module("torch"), require_module("safetensors.torch")


def test_round_trip_every_dtype_and_shape(tmp_path):
    tensors = {f"{dt.name}_{i}": _sample(dt, shape)
               for dt in DTYPES for i, shape in enumerate([(), (0,), (5,), (2, 3), (2, 0, 4)])}
    path = tmp_path / "all.safetensors"
    pst.save_file(tensors, path, metadata={"format": "pt", "note": "é"})
    back = pst.load_file(path)
    assert set(back) == set(tensors)
    for name, t in tensors.items():
        assert back[name].dtype == t.dtype and back[name].shape == t.shape
        assert back[name].tolist() == t.tolist(), name
    with pst.safe_open(path) as f:
        assert f.metadata() == {"format": "pt", "note": "é"}


def test_views_of_one_mapping_of_the_whole_file(tmp_path):
    path = tmp_path / "w.safetensors"
    pst.save_file({"a": pytensor.arange(10.0), "b": pytensor.ones(3, 4), "c": pytensor.arange(6, dtype=pytensor.int8)},
                  path)
    got = pst.load_file(path)
    storages = {t.untyped_storage().data_ptr() for t in got.values()}
    assert len(storages) == 1
    base = got["a"].untyped_storage()
    assert base.nbytes() == os.path.getsize(path)
    assert base.mapped_file[0] == str(path)
    for t in got.values():  # every tensor lies inside the file's data, past the header
        lo = t.data_ptr() - base.data_ptr()
        (n,) = struct.unpack("<Q", open(path, "rb").read(8))
        assert 8 + n <= lo and lo + t.numel() * t.element_size() <= base.nbytes()


def test_private_by_default_shared_on_request(tmp_path):
    path = tmp_path / "w.safetensors"
    pst.save_file({"a": pytensor.zeros(4)}, path)
    before = path.read_bytes()
    t = pst.load_file(path)["a"]
    t[1] = 5.0
    assert path.read_bytes() == before and t.tolist() == [0.0, 5.0, 0.0, 0.0]
    assert t.untyped_storage().mapped_file[1] == "private"
    s = pst.load_file(path, shared=True)["a"]
    s[2] = 7.0
    del s
    assert st_np.load_file(str(path))["a"].tolist() == [0.0, 0.0, 7.0, 0.0]


def test_non_contiguous_tensors_are_written_as_their_elements(tmp_path):
    x = pytensor.arange(12.0).view(3, 4)
    path = tmp_path / "t.safetensors"
    pst.save_file({"t": x.T, "s": x[:, ::2]}, path)
    back = st_np.load_file(str(path))
    np.testing.assert_array_equal(back["t"], x.numpy().T)
    np.testing.assert_array_equal(back["s"], x.numpy()[:, ::2])


def test_files_written_by_the_package_load_identically(tmp_path):
    path = tmp_path / "np.safetensors"
    arrays = {"x": np.arange(7, dtype=np.int8), "y": np.linspace(0, 1, 6).reshape(2, 3),
              "z": np.array([1 + 2j], np.complex64), "e": np.zeros((0, 2), np.float32), "s": np.array(3, np.uint16)}
    st_np.save_file(arrays, str(path), metadata={"m": "1"})
    got = pst.load_file(path)
    for k, a in arrays.items():
        assert got[k].shape == a.shape and got[k].numpy().dtype == a.dtype
        np.testing.assert_array_equal(got[k].numpy(), a)
    torch, st_torch = _torch_modules()
    tpath = tmp_path / "pt.safetensors"
    ts = {"h": torch.arange(5, dtype=torch.bfloat16) / 3, "f": torch.randn(3, 4), "b": torch.tensor([True, False])}
    st_torch.save_file(ts, str(tpath))
    for k, v in pst.load_file(tpath).items():
        assert torch.equal(torch.from_dlpack(v), ts[k]), k


def test_files_written_here_load_in_the_package(tmp_path):
    path = tmp_path / "here.safetensors"
    tensors = {"w": pytensor.arange(12.0).view(3, 4), "h": pytensor.arange(4, dtype=pytensor.bfloat16),
               "i": pytensor.arange(3, dtype=pytensor.uint8), "z": pytensor.tensor(2.5)}
    pst.save_file(tensors, path, metadata={"who": "pytensor"})
    torch, st_torch = _torch_modules()
    back = st_torch.load_file(str(path))
    for k, t in tensors.items():
        assert torch.equal(back[k], torch.from_dlpack(t)), k
    with st_safe_open(str(path), framework="numpy") as f:
        assert f.metadata() == {"who": "pytensor"}
        np.testing.assert_array_equal(f.get_tensor("w"), tensors["w"].numpy())
    assert pst.save(tensors, {"who": "pytensor"}) == path.read_bytes()


def test_float8_tensors_cross_both_ways(tmp_path):
    torch, st_torch = _torch_modules()
    ts = {name: torch.tensor([0.5, -3.0, 448.0, 1e-3]).to(getattr(torch, name))
          for name in ("float8_e4m3fn", "float8_e5m2", "float8_e8m0fnu", "float8_e4m3fnuz", "float8_e5m2fnuz")}
    path = tmp_path / "fp8.safetensors"
    st_torch.save_file(ts, str(path))
    got = pst.load_file(path)
    for k, v in ts.items():
        assert got[k].dtype is getattr(pytensor, k)
        assert torch.equal(torch.from_dlpack(got[k]).view(torch.uint8), v.view(torch.uint8)), k
    here = tmp_path / "here.safetensors"
    pst.save_file(got, here)
    back = st_torch.load_file(str(here))
    for k, v in ts.items():
        assert back[k].dtype == v.dtype and torch.equal(back[k].view(torch.uint8), v.view(torch.uint8)), k


def test_load_from_bytes_shares_them():
    data = bytearray(pst.save({"a": pytensor.arange(4, dtype=pytensor.int32)}))
    a = pst.load(data)["a"]
    a[0] = 9
    assert pst.load(bytes(data))["a"].tolist() == [9, 1, 2, 3]
    ro = pst.load(bytes(data))["a"]
    with pytest.raises(RuntimeError):
        ro[0] = 1


def test_safe_open_is_lazy_by_name(tmp_path):
    path = tmp_path / "w.safetensors"
    pst.save_file({"b": pytensor.ones(2), "a": pytensor.zeros(3, dtype=pytensor.int16)}, path)
    f = pst.safe_open(path)
    assert f.keys() == ["b", "a"]  # the order of their bytes: wider elements first
    assert f.metadata() is None
    with pytest.raises(SafetensorError, match="no tensor named 'c'"):
        f.get_tensor("c")
    a = f.get_tensor("a")
    f.close()
    assert a.tolist() == [0, 0, 0]  # a taken tensor keeps the mapping alive
    with pytest.raises(SafetensorError, match="closed"):
        f.get_tensor("a")
    with pytest.raises(SafetensorError, match="framework"):
        pst.safe_open(path, framework="flax")


def test_misaligned_tensor_is_copied_not_viewed(tmp_path):
    # The format allows it, NumPy and torch writers never produce it: 3 bytes, then a float32 at 3.
    header = {"a": {"dtype": "U8", "shape": [3], "data_offsets": [0, 3]},
              "b": {"dtype": "F32", "shape": [2], "data_offsets": [3, 11]}}
    raw = json.dumps(header).encode()
    raw += b" " * (-(8 + len(raw)) % 8)
    path = tmp_path / "odd.safetensors"
    path.write_bytes(struct.pack("<Q", len(raw)) + raw + bytes([1, 2, 3]) + np.array([1.5, -2], "<f4").tobytes())
    got = pst.load_file(path)
    assert got["a"].tolist() == [1, 2, 3] and got["b"].tolist() == [1.5, -2.0]
    assert got["a"].untyped_storage().data_ptr() != got["b"].untyped_storage().data_ptr()
    assert st_np.load_file(str(path))["b"].tolist() == [1.5, -2.0]


def test_unknown_entry_keys_are_ignored_as_the_package_does(tmp_path):
    path = tmp_path / "x.safetensors"
    path.write_bytes(_file({"a": {**GOOD["a"], "note": 1}}, np.array([1, 2], "<f4").tobytes()))
    assert pst.load_file(path)["a"].tolist() == st_np.load_file(str(path))["a"].tolist() == [1.0, 2.0]


def test_save_refuses_bad_arguments(tmp_path):
    p = tmp_path / "x"
    with pytest.raises(TypeError, match="dict"):
        pst.save_file([pytensor.ones(1)], p)
    with pytest.raises(TypeError, match="ndarray"):
        pst.save_file({"a": np.ones(1)}, p)
    with pytest.raises(SafetensorError, match="reserved"):
        pst.save_file({"__metadata__": pytensor.ones(1)}, p)
    with pytest.raises(SafetensorError, match="complex128"):
        pst.save_file({"a": pytensor.ones(1, dtype=pytensor.complex128)}, p)
    with pytest.raises(TypeError, match="metadata"):
        pst.save_file({"a": pytensor.ones(1)}, p, metadata={"a": 1})


# ---------------------------------------------------------------- hostile files

def _file(header, data=b"", length=None, pad=True):
    raw = header if isinstance(header, bytes) else json.dumps(header).encode()
    if pad:
        raw += b" " * (-(8 + len(raw)) % 8)
    return struct.pack("<Q", len(raw) if length is None else length) + raw + data


GOOD = {"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}
HOSTILE = {
    "too short": (b"\x01\x00", "too short"),
    "length past the end": (_file(GOOD, bytes(8), length=1 << 40), r"header length is 1099511627776 bytes"),
    "length over the cap": (struct.pack("<Q", 200_000_000) + bytes(200), r"header length is 200000000"),
    "not json": (_file(b"{not json", bytes(8)), "not JSON"),
    "not utf8": (_file(b'{"\xff": 1}'), "not UTF-8"),
    "not an object": (_file([1, 2]), "JSON list, not an object"),
    "entry not an object": (_file({"a": 3}), "needs dtype, shape and data_offsets; it has int"),
    "dtype not a string": (_file({"a": {"dtype": ["F32"], "shape": [], "data_offsets": [0, 4]}}, bytes(4)),
                           "unknown dtype \\[.F32.\\]"),
    "missing key": (_file({"a": {"dtype": "F32", "shape": [2]}}, bytes(8)), "needs dtype, shape and data_offsets"),
    "past the end": (_file({"a": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}}, bytes(8)),
                     "cover 16 bytes of data but the file holds 8"),
    "reversed": (_file({"a": {"dtype": "U8", "shape": [0], "data_offsets": [8, 0]}}, bytes(8)), r"\[8, 0\]"),
    "negative": (_file({"a": {"dtype": "U8", "shape": [2], "data_offsets": [-2, 0]}}, bytes(8)), "negative"),
    "overlapping": (_file({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
                           "b": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}}, bytes(12)),
                    "starts at data byte 4, but the previous tensor ends at 8"),
    "hole": (_file({"a": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}}, bytes(8)),
             "starts at data byte 4, but the previous tensor ends at 0"),
    "size mismatch": (_file({"a": {"dtype": "F32", "shape": [3], "data_offsets": [0, 8]}}, bytes(8)),
                      "needs 12 bytes but data_offsets \\[0, 8\\] hold 8"),
    "unknown dtype": (_file({"a": {"dtype": "F12", "shape": [2], "data_offsets": [0, 8]}}, bytes(8)),
                      "unknown dtype 'F12'"),
    "float6": (_file({"a": {"dtype": "F6_E2M3", "shape": [8], "data_offsets": [0, 6]}}, bytes(6)),
               "F6_E2M3, which pytensor does not store"),
    "duplicate": (_file(b'{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},'
                        b'"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}', bytes(1)), "names 'a' twice"),
    "bad shape": (_file({"a": {"dtype": "U8", "shape": [-1], "data_offsets": [0, 0]}}), "non-negative"),
    "float shape": (_file({"a": {"dtype": "U8", "shape": [1.0], "data_offsets": [0, 1]}}, bytes(1)),
                    "non-negative integers"),
    "bad metadata": (_file({"__metadata__": {"k": 1}}), "strings to strings"),
    "trailing data": (_file(GOOD, bytes(12)), "cover 8 bytes of data but the file holds 12"),
}


STRICTER = {"duplicate"}  # refused here, read by the package


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_file_is_refused_with_its_numbers(tmp_path, case):
    data, message = HOSTILE[case]
    path = tmp_path / "bad.safetensors"
    path.write_bytes(data)
    with pytest.raises(SafetensorError, match=message):
        pst.load_file(path)
    with pytest.raises(SafetensorError, match=message):
        pst.load(data)
    if case in STRICTER:
        st_np.load_file(str(path))  # the package reads it (the last duplicate wins): we refuse on purpose
    else:
        with pytest.raises(Exception):  # the package refuses it too: these are not our inventions
            st_np.load_file(str(path))


def _valid_file(draw):
    names = draw(st.lists(st.text("abcxyz", min_size=1, max_size=3), min_size=1, max_size=4, unique=True))
    codes = ["U8", "I16", "F32", "F64", "BOOL", "I64"]
    tensors = {}
    for name in names:
        code = draw(st.sampled_from(codes))
        shape = draw(st.lists(st.integers(0, 3), max_size=3))
        tensors[name] = np.zeros(shape, dtype={"U8": np.uint8, "I16": np.int16, "F32": np.float32,
                                               "F64": np.float64, "BOOL": np.bool_, "I64": np.int64}[code])
    return st_np.save(tensors)


MUTATIONS = ("flip byte", "truncate", "append", "length field")


@st.composite
def mutated_files(draw):
    data = bytearray(_valid_file(draw))
    kind = draw(st.sampled_from(MUTATIONS))
    if kind == "flip byte":
        at = draw(st.integers(0, len(data) - 1))
        data[at] = draw(st.integers(0, 255))
    elif kind == "truncate":
        del data[draw(st.integers(0, len(data) - 1)):]
    elif kind == "append":
        data += bytes(draw(st.integers(1, 16)))
    else:
        data[:8] = struct.pack("<Q", draw(st.one_of(st.integers(0, 64), st.integers(0, 2**64 - 1))))
    return kind, bytes(data)


def test_fuzzed_files_agree_with_the_package(tmp_path):
    """Every mutated file is either refused with SafetensorError or read in full, inside the file; and the
    safetensors package reads exactly the files we read, with the same values."""
    seen, outcomes = set(), set()
    path = tmp_path / "f.safetensors"

    @settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(case=mutated_files())
    def run(case):
        kind, data = case
        seen.add(kind)
        path.write_bytes(data)
        theirs, ours = read_by_both(lambda: st_np.load_file(str(path)), lambda: pst.load_file(path))
        outcomes.add(ours is not None)
        if ours is None:
            return
        # We accepted: each tensor lies inside the mapping, and the package agrees value for value.
        assert theirs is not None and set(ours) == set(theirs)
        for k, t in ours.items():
            base = t.untyped_storage()
            assert 0 <= t.data_ptr() - base.data_ptr() <= base.nbytes() - t.numel() * t.element_size()
            np.testing.assert_array_equal(t.numpy(), theirs[k])

    run()
    assert seen == set(MUTATIONS), seen          # the generator made every kind of mutation
    assert outcomes == {True, False}, outcomes   # and both accepted and refused files


def test_the_inspector_shows_the_file_as_one_buffer_with_each_tensor_labelled(tmp_path):
    """One buffer for the file, each named tensor's byte range on it, the file's
    path and mapping in the region, and a dict argument drawn as one lane per key."""
    from pytensor.widgets import snapshot, to_text
    from pytensor.widgets._names import expand_mappings
    path = tmp_path / "m.safetensors"
    pst.save_file({"w": pytensor.ones(4, 8), "b": pytensor.zeros(8), "step": pytensor.tensor(3)}, path)
    d = pst.load_file(path)
    objs, names = expand_mappings([d], ["d"])
    assert names == list(d) and all(o is d[k] for o, k in zip(objs, names))
    snap, blob = snapshot(*objs, names=names)
    assert len(snap["regions"]) == 1
    region = snap["regions"][0]
    assert region["nbytes"] == path.stat().st_size
    assert region["file"]["path"] == str(path) and region["file"]["mapping"] == "private"
    (n,) = struct.unpack("<Q", path.read_bytes()[:8])
    for v in snap["views"]:
        t = d[v["name"]]
        lo = t.data_ptr() - t.untyped_storage().data_ptr()
        assert v["footprint"] == [lo, lo + t.numel() * t.element_size()] and lo >= 8 + n
    text = to_text(snap, blob)
    assert str(path.name) in text and all(k in text for k in d)


# ---------------------------------------------------------------- the C fast path agrees with json
def _both_paths(raw):
    """(C result or None, json result or the SafetensorError) for one header."""
    from pytensor import _ffi
    fast = _ffi.shim.safetensors_header(raw, pst._ITEMSIZES)
    try:
        slow = pst._parse_json(raw)
    except SafetensorError as e:
        slow = e
    return fast, slow


@st.composite
def headers(draw):
    """A header as bytes: names (plain, unicode, or needing escapes), dtypes (known and not), shapes,
    keys in any order, optional metadata and whitespace; sometimes one byte mutated."""
    names = draw(st.lists(st.sampled_from(["a", "w.0", "é", "x\"y", "tab\t", "layer_1", "__metadata__x"]),
                          min_size=0, max_size=4, unique=True))
    at, parts = 0, []
    for name in names:
        code = draw(st.sampled_from(["F32", "U8", "BF16", "F8_E4M3", "I64", "F12"]))
        shape = draw(st.lists(st.integers(0, 4), max_size=3))
        size = pst._ITEMSIZES.get(code, 1) * int(np.prod(shape)) if shape else pst._ITEMSIZES.get(code, 1)
        fields = [("dtype", json.dumps(code)), ("shape", json.dumps(shape)),
                  ("data_offsets", json.dumps([at, at + size]))]
        at += size
        fields = draw(st.permutations(fields))
        sep = draw(st.sampled_from([",", ", ", " ,\n"]))
        parts.append(f"{json.dumps(name)}:{{" + sep.join(f'"{k}":{v}' for k, v in fields) + "}")
    if draw(st.booleans()):
        parts.insert(0, '"__metadata__":' + json.dumps(draw(st.dictionaries(st.sampled_from(["k", "é", "q\\"]),
                                                                             st.sampled_from(["v", "1", "\n"])))))
    raw = ("{" + ",".join(parts) + "}" + " " * draw(st.integers(0, 3))).encode()
    if draw(st.booleans()) and raw:
        i = draw(st.integers(0, len(raw) - 1))
        raw = raw[:i] + bytes([draw(st.sampled_from(list(b'{}[],:" 0129aeE.-\\')))]) + raw[i + 1:]
    return raw


def test_the_c_header_parser_agrees_with_json():
    seen = set()

    @settings(max_examples=600, deadline=None)
    @given(raw=headers())
    def run(raw):
        fast, slow = _both_paths(raw)
        seen.add("fast" if fast is not None else "json")
        if fast is None:
            return
        # C accepted: json must accept too, with the same entries and metadata
        assert not isinstance(slow, Exception), (raw, slow)
        rows, meta = fast
        assert [(n, pst._DTYPES[c], s, b, e) for n, c, s, b, e in rows] == slow[0]
        assert meta == slow[1]

    run()
    assert seen == {"fast", "json"}   # the generator reached both paths


def test_the_c_header_parser_declines_rather_than_judges():
    for raw in [b'{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"a":{"dtype":"F32","shape":[1],'
                b'"data_offsets":[4,8]}}',                          # duplicate: json names it
                b'{"a":{"dtype":"F32","shape":[1.0],"data_offsets":[0,4]}}',
                b'{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"x":1}}',   # an unknown key
                b'{"a\\u00e9":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}',  # an escape
                b'{"a":{"dtype":"F32","shape":[01],"data_offsets":[0,4]}}',
                b'{"a":{"dtype":"F32","shape":[99999999999999999999],"data_offsets":[0,4]}}',
                b'{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}}',         # size mismatch
                b'{} x', b'{', b'', b'\xff']:
        fast, _ = _both_paths(raw)
        assert fast is None, raw
    assert _both_paths(b' {"a":{"shape":[2],"data_offsets":[0,8],"dtype":"F32"}} ')[0] == \
        ([("a", "F32", (2,), 0, 8)], None)
