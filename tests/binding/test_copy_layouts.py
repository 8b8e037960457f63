"""lt_copy over many layouts, differentially against NumPy.

Transposes, permutes of 3-D and 4-D views, negative and zero strides, odd
offsets, and extents around the edges of the transposing copy's blocks
(1, 7, 63, 64, 65, 257, ...), for elements of 1, 2, 4, 8 and 16 bytes, same
dtype and converting. The copies go through the raw binding (``lib.lt_copy``
on NumPy buffers), because the Python API refuses negative strides as torch
does; every destination sits inside a guard band that must come back
untouched. The generator records what it produced, and the last test asserts
that it covered what this docstring claims.
"""
import itertools

import numpy as np
import pytest

import pytensor
from pytensor._ffi import ffi, lib
from pytensor.errors import check

# one dtype per element size, plus converting pairs (src, dst); values are
# small non-negative integers, exact in every one of these dtypes
SAME = ("uint8", "int16", "float16", "float32", "int32", "float64", "int64", "complex128")
CASTS = (("uint8", "float32"), ("float32", "float64"), ("int16", "float64"), ("float64", "float16"),
         ("float32", "uint8"), ("int64", "int32"))
EDGES = (1, 7, 15, 16, 17, 63, 64, 65, 127, 129, 257)
GUARD = 64  # bytes of sentinel on each side of a destination
SENTINEL = 0xA5

covered = set()


def code(name):
    return getattr(pytensor, name).code


def element_strides(a):
    assert all(s % a.itemsize == 0 for s in a.strides), a.strides
    return [s // a.itemsize for s in a.strides]


def values(shape, dtype, seed):
    return np.random.default_rng(seed).integers(0, 100, size=shape).astype(dtype)


def guarded_dst(shape, dtype, order):
    """A destination of ``shape`` (laid out C-order or transposed) inside a
    sentinel-filled byte buffer, and the buffer."""
    dtype = np.dtype(dtype)
    n = int(np.prod(shape)) * dtype.itemsize
    raw = np.full(n + 2 * GUARD, SENTINEL, np.uint8)
    body = raw[GUARD:GUARD + n].view(dtype)
    if order == "C":
        return body.reshape(shape), raw
    return body.reshape(shape[::-1]).T, raw  # every stride reversed: a transposed destination


def lt_copy(dst, src):
    """dst[...] = src through lt_copy on the arrays' own memory (any strides)."""
    assert dst.shape == src.shape
    ndim = src.ndim
    check(lib.lt_copy(ffi.cast("void *", dst.ctypes.data), element_strides(dst), code(dst.dtype.name),
                      ffi.cast("void *", src.ctypes.data), element_strides(src), code(src.dtype.name), ndim,
                      list(src.shape)))


def check_copy(src, dst_dtype, order="C", tag=()):
    dst, raw = guarded_dst(src.shape, dst_dtype, order)
    lt_copy(dst, src)
    np.testing.assert_array_equal(dst, src.astype(dst_dtype), err_msg=f"{tag} strides {src.strides}")
    assert (raw[:GUARD] == SENTINEL).all() and (raw[-GUARD:] == SENTINEL).all(), f"{tag}: guard bytes written"
    covered.add((np.dtype(src.dtype).itemsize, np.dtype(dst_dtype).itemsize) + tuple(tag))


def two_d_layouts(p, q, dtype, seed):
    """Views of shape (p, q) that read their rows across src's lines."""
    base = values((q, p), dtype, seed)
    yield "transpose", base.T
    yield "negative", base[::-1].T  # src read backwards along Q
    yield "negative", base[:, ::-1].T  # ... and along P
    wide = values((q, 2 * p + 1), dtype, seed + 1)
    yield "strided", wide[:, 1::2].T  # P stride 2, odd start (unaligned by one element)
    yield "broadcast", np.broadcast_to(values((1, p), dtype, seed).T, (p, q))  # zero stride along Q


# ------------------------------------------------------------ 2-D edges


@pytest.mark.parametrize("name", SAME)
def test_transposes_around_tile_edges(name):
    for i, (p, q) in enumerate(itertools.product(EDGES, EDGES)):
        if (p * q) % 3 and p not in (64, 65) and q not in (64, 65):  # a third of the grid, every edge kept
            continue
        for kind, src in two_d_layouts(p, q, name, i):
            check_copy(src, name, tag=(kind, "edge-p", p))
            covered.add(("edge-q", q))
    covered.add(("same", name))


@pytest.mark.parametrize("src_name,dst_name", CASTS)
def test_converting_transposes(src_name, dst_name):
    for i, (p, q) in enumerate(((1, 1), (7, 65), (64, 64), (65, 257), (257, 63), (300, 200), (129, 1000))):
        for kind, src in two_d_layouts(p, q, src_name, i):
            check_copy(src, dst_name, tag=(kind, "cast"))
    covered.add(("cast", src_name, dst_name))


@pytest.mark.parametrize("name", ("uint8", "float32", "float64"))
def test_transposed_destination(name):
    """dst laid out column-major: the copy is then dense on both sides or transposing the other way."""
    for p, q in ((17, 65), (64, 64), (257, 129)):
        src = values((p, q), name, p)
        check_copy(src, name, order="F", tag=("dst-transposed",))
        check_copy(src.T.copy().T, name, order="F", tag=("dst-transposed",))


# ------------------------------------------------------------ n-D permutes


PERMS_3D = list(itertools.permutations(range(3)))
PERMS_4D = [(0, 2, 3, 1), (3, 2, 1, 0), (1, 3, 0, 2), (0, 1, 3, 2), (2, 0, 1, 3)]


@pytest.mark.parametrize("name", ("uint8", "int16", "float32", "float64", "complex128"))
def test_permutes_3d_and_4d(name):
    for shape in ((17, 33, 65), (64, 16, 65), (3, 129, 20)):
        base = values(shape, name, sum(shape))
        for perm in PERMS_3D:
            check_copy(base.transpose(perm), name, tag=("permute3",))
            check_copy(base[:, ::-1, 1:].transpose(perm), name, tag=("permute3", "negative"))
    for shape in ((5, 17, 33, 16), (2, 64, 3, 65)):
        base = values(shape, name, sum(shape))
        for perm in PERMS_4D:
            check_copy(base.transpose(perm), name, tag=("permute4",))
            check_copy(base[::-1, :, ::2].transpose(perm), name, tag=("permute4", "negative"))


def test_zero_strides_in_a_permute():
    """A broadcast dimension between two transposed ones."""
    base = values((65, 1, 129), "float32", 3)
    src = np.broadcast_to(base, (65, 7, 129)).transpose(2, 1, 0)
    for dst_name in ("float32", "float64"):
        check_copy(src, dst_name, tag=("broadcast3",))


# ------------------------------------------------------------ threads


@pytest.mark.parametrize("threads", (1, 2))
def test_big_transposes_split_between_threads(threads):
    """Above 16 MiB moved the copy splits into slabs; ragged sizes put the
    slab and block edges mid-view."""
    old = pytensor.get_num_threads()
    pytensor.set_num_threads(threads)
    try:
        check_copy(values((2100, 4100), "uint8", 1).T, "uint8", tag=("threads", threads))
        check_copy(values((1030, 2049), "float32", 2).T, "float32", tag=("threads", threads))
        check_copy(values((3, 700, 1500), "int16", 3).transpose(0, 2, 1), "int16", tag=("threads", threads))
    finally:
        pytensor.set_num_threads(old)


def test_public_api_agrees():
    """contiguous() and permute() reach the same kernel from the Python API."""
    a = values((65, 129, 3), "float32", 9)
    t = pytensor.from_numpy(a)
    np.testing.assert_array_equal(t.permute(2, 0, 1).contiguous().numpy(), a.transpose(2, 0, 1))
    np.testing.assert_array_equal(t[:, :, 1].T.contiguous().numpy(), a[:, :, 1].T)
    covered.add(("public",))


# ------------------------------------------------------------ coverage


def test_generator_covered_what_it_claims():
    """Runs last (file order): every element size, edge, layout kind and
    path the docstring names was produced above."""
    if not any(("same", n) in covered for n in SAME):
        pytest.skip("run with the rest of the file")
    sizes = {c[0] for c in covered if isinstance(c[0], int)}
    assert {1, 2, 4, 8, 16} <= sizes
    assert {("same", n) for n in SAME} <= covered
    assert {("cast",) + pair for pair in CASTS} <= covered
    for e in EDGES:
        assert any(c[3:5] == ("edge-p", e) for c in covered), e
        assert ("edge-q", e) in covered, e
    kinds = {c[2] for c in covered if len(c) > 2 and isinstance(c[0], int)}
    assert {"transpose", "negative", "strided", "broadcast", "permute3", "permute4", "broadcast3",
            "dst-transposed", "threads"} <= kinds
    assert any(c[:4] == (1, 1, "threads", 2) for c in covered)
    assert ("public",) in covered
