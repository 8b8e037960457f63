"""pytensor.load of .npy files: equal to np.load(mmap_mode=...) in values, strides and sharing."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import pytensor
from pytensor._npy import NpyFormatError

NP_DTYPES = [np.bool_, np.uint8, np.int8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64,
             np.float16, np.float32, np.float64, np.complex64, np.complex128]


def _byte_strides(t):
    return tuple(s * t.element_size() for s in t.stride())


def _same(t, ref):
    assert t.shape == ref.shape
    assert t.numpy().dtype == ref.dtype
    if ref.size:  # an empty array's strides are arbitrary (NumPy's own loaders disagree on them)
        assert _byte_strides(t) == ref.strides
    np.testing.assert_array_equal(t.numpy(), ref)


@st.composite
def arrays(draw):
    dt = draw(st.sampled_from(NP_DTYPES))
    shape = tuple(draw(st.lists(st.integers(0, 5), max_size=4)))
    a = (np.arange(int(np.prod(shape))) % 11).astype(dt).reshape(shape)
    return np.asfortranarray(a) if draw(st.booleans()) else a


def test_any_array_matches_numpy(tmp_path):
    seen = set()
    path = tmp_path / "a.npy"

    @settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(a=arrays(), mode=st.sampled_from([None, "c", "r+"]))
    def run(a, mode):
        np.save(path, a)
        fortran = a.flags.f_contiguous and not a.flags.c_contiguous
        seen.add(("fortran" if fortran else "C", a.ndim == 0, a.size == 0, mode))
        ref = np.load(path, mmap_mode=mode)
        t = pytensor.load(path, mmap=mode is not None, shared=mode == "r+")
        _same(t, ref)

    run()
    kinds = {k for k in seen}
    assert any(k[0] == "fortran" for k in kinds), "made a Fortran-ordered array"
    assert any(k[1] for k in kinds) and any(k[2] for k in kinds), "made 0-d and empty arrays"
    assert {k[3] for k in kinds} == {None, "c", "r+"}


@pytest.mark.parametrize("version", [(1, 0), (2, 0), (3, 0)])
def test_every_format_version(tmp_path, version):
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    path = tmp_path / "v.npy"
    with open(path, "wb") as f:
        np.lib.format.write_array(f, a, version=version)
    _same(pytensor.load(path, mmap=True), np.load(path, mmap_mode="c"))
    _same(pytensor.load(path), np.load(path))


def test_mapping_shares_the_file_and_fortran_is_strides(tmp_path):
    a = np.asfortranarray(np.arange(6, dtype=np.int32).reshape(2, 3))
    path = tmp_path / "f.npy"
    np.save(path, a)
    before = path.read_bytes()
    t = pytensor.load(path, mmap=True)
    assert t.stride() == (1, 2) and not t.is_contiguous()
    assert t.untyped_storage().mapped_file == (str(path), "private")
    t[0, 1] = 100                   # private: this process only
    assert path.read_bytes() == before and t[0, 1].item() == 100
    s = pytensor.load(path, mmap=True, shared=True)
    s[1, 2] = -5                    # shared: reaches the file, as np.load(mmap_mode="r+")
    del s
    assert np.load(path)[1, 2] == -5
    c = pytensor.load(path)         # a copy in new memory, no mapping
    assert c.untyped_storage().mapped_file is None and c.stride() == (1, 2)


def test_data_starts_aligned_so_the_view_needs_no_copy(tmp_path):
    path = tmp_path / "a.npy"
    np.save(path, np.arange(5, dtype=np.float64))
    t = pytensor.load(path, mmap=True)
    base = t.untyped_storage()
    assert t.data_ptr() - base.data_ptr() == t.storage_offset() * 8 > 0


def _header_file(path, header, data=b"", version=1):
    raw = header.encode("latin-1")
    length = len(raw).to_bytes(2 if version == 1 else 4, "little")
    path.write_bytes(b"\x93NUMPY" + bytes([version, 0]) + length + raw + data)


BAD = {
    "magic": (b"NOTNUMPY", "not an .npy file"),
    "version": ("v", "version 9.0"),
    "literal": ("{'descr': foo()}", "not a Python literal"),
    "keys": ("{'descr': '<f4', 'shape': (1,)}", "dict of descr, fortran_order and shape"),
    "object": ("{'descr': '|O', 'fortran_order': False, 'shape': (1,)}", "pickles"),
    "structured": ("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,)}", "structured"),
    "big-endian": ("{'descr': '>f4', 'fortran_order': False, 'shape': (1,)}", "big-endian"),
    "unknown": ("{'descr': '<m8', 'fortran_order': False, 'shape': (1,)}", "no pytensor equivalent"),
    "shape": ("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,)}", "non-negative"),
    "order": ("{'descr': '<f4', 'fortran_order': 1, 'shape': (1,)}", "True or False"),
    "truncated": ("{'descr': '<f4', 'fortran_order': False, 'shape': (4,)}", "needs 16 bytes but the file holds 4"),
}


@pytest.mark.parametrize("case", sorted(BAD))
@pytest.mark.parametrize("mmap", [False, True])
def test_bad_files_are_refused_clearly(tmp_path, case, mmap):
    path = tmp_path / "bad.npy"
    spec, message = BAD[case]
    if isinstance(spec, bytes):
        path.write_bytes(spec + bytes(16))
    elif case == "version":
        path.write_bytes(b"\x93NUMPY\x09\x00" + bytes(16))
    else:
        _header_file(path, spec, bytes(4))
    with pytest.raises(NpyFormatError, match=message):
        pytensor.load(path, mmap=mmap)


def test_argument_errors(tmp_path):
    with pytest.raises(TypeError, match="path"):
        pytensor.load(3)
    with pytest.raises(ValueError, match="mmap=True"):
        pytensor.load(tmp_path / "x.npy", shared=True)
    with pytest.raises(FileNotFoundError):
        pytensor.load(tmp_path / "missing.npy", mmap=True)
