"""Shape and stride rules, answered by libtensor's ``lt_layout_*`` functions.

Every rule about shapes, strides (in elements unless a name says bytes),
extents, contiguity and broadcasting lives once, in ``libtensor/src/layout.c``;
the Python layer and the inspector's model ask it through these wrappers
instead of keeping copies. Each takes plain sequences of ints and returns
plain ints and tuples. Refusals raise through the one translator
(:func:`pytensor.errors.check`): torch's messages, as ``RuntimeError``
subclasses (``LibtensorError``; ``LayoutError`` for int64 overflow).

Outputs land in small per-thread scratch arrays (allocating them with
``ffi.new`` on every call would cost more than the C work), read out before
the function returns, so the functions are safe to call from any thread.
"""
import functools
import threading

from ._ffi import ffi, lib
from .errors import check

__all__ = ["numel", "extent", "byte_extent", "is_contiguous", "contiguous_strides", "infer_shape",
           "view_strides", "broadcast_shapes", "nbytes", "has_internal_overlap", "is_non_overlapping_and_dense",
           "preserve_strides", "result_strides", "unsqueeze_strides", "infer_dense_strides",
           "broadcast_strides", "diagonal", "select", "narrow", "unfold"]


class _Scratch(threading.local):
    """This thread's output arrays: sizes or strides (lo and hi for extents), a flag, an ndim."""

    def __init__(self):
        self.out = ffi.new("int64_t[]", lib.LT_MAX_NDIM)
        self.hi = self.out + 1
        self.flag = ffi.new("int *")
        self.ndim = ffi.new("int32_t *")
        self.strides = ffi.new("int64_t[]", lib.LT_MAX_NDIM)  # the second array of the rules that give two
        self.offset = ffi.new("int64_t *")


_scratch = _Scratch()


def numel(shape):
    """The number of elements of ``shape`` (1 for ``()``).

    >>> numel((2, 3, 4))
    24
    """
    return _numel(tuple(shape))


# The one element count of the Python layer (Tensor.numel(), Size.numel(), the
# kernels' sizes): asked on every call of many ops, for a handful of shapes, so
# answers are remembered as the strides below are. Refusals raise and are not kept.
@functools.lru_cache(maxsize=1024)
def _numel(shape):
    out = _scratch.out
    check(lib.lt_layout_numel(out, len(shape), shape))
    return out[0]


def extent(shape, strides, offset, itemsize):
    """The half-open byte range ``(lo_byte, hi_byte)`` a view can touch, from
    its storage's start; ``strides`` and ``offset`` count elements. A view
    with no elements touches nothing: ``(offset * itemsize,) * 2``.

    >>> extent((3, 2), (2, -1), 1, 4)    # columns flipped, element 0 at byte 4
    (0, 24)
    """
    sc = _scratch
    lo_hi = sc.out
    check(lib.lt_layout_extent(lo_hi, sc.hi, len(shape), shape, strides, offset, itemsize))
    return lo_hi[0], lo_hi[1]


def byte_extent(shape, byte_strides, byte_offset, itemsize):
    """As :func:`extent`, for strides and offset counted in bytes (NumPy's
    unit, which need not be a multiple of ``itemsize``): from the lowest byte
    an element starts at to the highest element start plus ``itemsize``.

    >>> byte_extent((3, 2), (8, -4), 4, 4)
    (0, 24)
    """
    sc = _scratch
    lo_hi = sc.out
    check(lib.lt_layout_byte_extent(lo_hi, sc.hi, len(shape), shape, byte_strides, byte_offset, itemsize))
    return lo_hi[0], lo_hi[1]


def is_contiguous(shape, strides):
    """True when ``strides`` are the row-major strides of ``shape``, ignoring
    extent-1 dimensions; always True for a view with no elements.

    >>> is_contiguous((2, 3), (3, 1)), is_contiguous((2, 3), (1, 2))
    (True, False)
    """
    return bool(lib.lt_layout_is_contiguous(len(shape), shape, strides))


def contiguous_strides(shape):
    """Row-major strides, in elements, of ``shape``, as torch computes them
    (an extent-0 dimension counts as 1).

    >>> contiguous_strides((2, 0, 3))
    (3, 3, 1)
    """
    return _contiguous_strides(tuple(shape))


# Every new tensor asks for these (empty(), copies, results of arithmetic), for
# a handful of distinct shapes: answers are remembered, so the common case
# costs a dict lookup instead of a C call. Refusals raise and are not kept.
@functools.lru_cache(maxsize=1024)
def _contiguous_strides(shape):
    n = len(shape)
    out = _scratch.out
    check(lib.lt_layout_contiguous_strides(out, n, shape))
    return tuple(ffi.unpack(out, n))


def infer_shape(shape, numel):
    """The sizes of ``view(*shape)`` of ``numel`` elements, with one ``-1``
    resolved; raises torch's ``RuntimeError`` messages otherwise.

    >>> infer_shape((2, -1), 6)
    (2, 3)
    """
    n = len(shape)
    out = _scratch.out
    check(lib.lt_layout_infer_shape(out, n, shape, numel))
    return tuple(ffi.unpack(out, n))


def view_strides(old_shape, old_strides, new_shape):
    """Strides that show ``new_shape`` over the elements of ``(old_shape,
    old_strides)`` without a copy (torch's rule, so ``view`` succeeds exactly
    when torch's does), or None when the view would need a copy.

    >>> view_strides((2, 3), (3, 1), (3, 2)), view_strides((2, 3), (1, 2), (6,))
    ((2, 1), None)
    """
    n = len(new_shape)
    sc = _scratch
    out, viewable = sc.out, sc.flag
    check(lib.lt_layout_view_strides(out, viewable, len(old_shape), old_shape, old_strides, n, new_shape))
    return tuple(ffi.unpack(out, n)) if viewable[0] else None


def broadcast_shapes(*shapes):
    """The shape that ``shapes`` broadcast to, as ``torch.broadcast_shapes``.

    >>> broadcast_shapes((2, 1), (3,), ())
    (2, 3)
    """
    arrays = [ffi.new("int64_t[]", s) for s in shapes]  # each kept alive until the call returns
    sc = _scratch
    out, out_ndim = sc.out, sc.ndim
    check(lib.lt_layout_broadcast_shapes(out, out_ndim, len(shapes), [len(s) for s in shapes], arrays))
    return tuple(ffi.unpack(out, out_ndim[0]))


def nbytes(shape, itemsize):
    """The bytes of a dense tensor of ``shape``: ``numel * itemsize``, by
    torch's numel rule (an overflowing product of sizes is refused even when
    a size is 0), refused past int64 (``LayoutError``, a ``RuntimeError``).

    >>> nbytes((2, 3), 4), nbytes((3, 2**62, 0), 8)
    (24, 0)
    """
    return _nbytes(tuple(shape), itemsize)


# Asked by every new tensor, like the strides above.
@functools.lru_cache(maxsize=1024)
def _nbytes(shape, itemsize):
    out = _scratch.out
    check(lib.lt_layout_nbytes(out, len(shape), shape, itemsize))
    return out[0]


def has_internal_overlap(shape, strides):
    """True when a write through the view would store to one location twice
    (a stride 0 along a size above 1); False for a view with no elements.

    >>> has_internal_overlap((3, 2), (0, 1)), has_internal_overlap((0, 3), (0, 0))
    (True, False)
    """
    return bool(lib.lt_layout_has_internal_overlap(len(shape), shape, strides))


def is_non_overlapping_and_dense(shape, strides):
    """True when some order of the dims is row-major (extent-1 dims ignored;
    any empty tensor counts), as torch's ``is_non_overlapping_and_dense``.

    >>> is_non_overlapping_and_dense((3, 4), (1, 3)), is_non_overlapping_and_dense((3, 4), (2, 6))
    (True, False)
    """
    return bool(lib.lt_layout_is_non_overlapping_and_dense(len(shape), shape, strides))


def preserve_strides(shape, strides):
    """The strides torch's ``preserve_format`` gives a copy of ``(shape,
    strides)`` (``empty_like``, ``clone``, casts): a dense layout's own
    strides, otherwise row-major strides in the same dim order.

    >>> preserve_strides((3, 4), (1, 3)), preserve_strides((2, 3), (1, 4))
    ((1, 3), (1, 2))
    """
    n = len(shape)
    out = _scratch.out
    check(lib.lt_layout_preserve_strides(out, n, shape, strides))
    return tuple(ffi.unpack(out, n))


def result_strides(shape, operands):
    """The strides torch gives an elementwise result of ``shape`` computed
    from ``operands`` (``(shape, strides)`` pairs that broadcast to
    ``shape``; a Python scalar is ``((), ())``): row-major unless the
    inputs are laid out otherwise (libtensor's lt_layout_result_strides).

    >>> result_strides((3, 4), [((3, 4), (1, 3)), ((), ())])    # x.T * 2
    (1, 3)
    """
    n = len(shape)
    out = _scratch.out
    shapes = [ffi.new("int64_t[]", s) for s, _ in operands]  # each kept alive until the call returns
    strides = [ffi.new("int64_t[]", st) for _, st in operands]
    check(lib.lt_layout_result_strides(out, n, shape, len(operands), [len(s) for s, _ in operands], shapes,
                                       strides))
    return tuple(ffi.unpack(out, n))


def unsqueeze_strides(shape, strides, dim):
    """The strides of ``unsqueeze(dim)`` (``0 <= dim <= len(shape)``): the new
    extent-1 dimension steps over the whole dimension it is put before (1 at
    the end), torch's rule; a stride past int64 is refused (``LayoutError``).

    >>> unsqueeze_strides((2, 3), (3, 1), 1), unsqueeze_strides((2, 3), (1, 2), 2)
    ((3, 3, 1), (1, 2, 1))
    """
    return _unsqueeze_strides(tuple(shape), tuple(strides), dim)


# A view op users call in loops, for a handful of layouts: remembered, as the strides above.
@functools.lru_cache(maxsize=1024)
def _unsqueeze_strides(shape, strides, dim):
    n = len(shape)
    out = _scratch.out
    check(lib.lt_layout_unsqueeze_strides(out, n, shape, strides, dim))
    return tuple(ffi.unpack(out, n + 1))


def infer_dense_strides(shape, strides):
    """Row-major strides over the dims of ``shape`` ordered as ``strides``
    orders them, whatever the layout (torch's ``infer_dense_strides``: a zero
    stride keeps its row-major place, equal strides put the smaller extent
    inside, extents below 2 count as 1). :func:`preserve_strides` applies it
    to layouts that are not dense; an empty gather result takes it always.

    >>> infer_dense_strides((0, 3), (1, 0)), infer_dense_strides((2, 0, 3), (3, 9, 1))
    ((3, 1), (3, 6, 1))
    """
    n = len(shape)
    out = _scratch.out
    check(lib.lt_layout_infer_dense_strides(out, n, shape, strides))
    return tuple(ffi.unpack(out, n))


def broadcast_strides(shape, op_shape, op_strides):
    """The strides an operand ``(op_shape, op_strides)`` walks when broadcast
    to ``shape`` (torch's ``expand``): 0 for a missing dimension and for an
    extent 1 stretched to more, its own stride elsewhere.

    >>> broadcast_strides((2, 3), (3,), (1,)), broadcast_strides((2, 1), (1, 1), (5, 7))
    ((0, 1), (0, 7))
    """
    return _broadcast_strides(tuple(shape), tuple(op_shape), tuple(op_strides))


# Asked for every operand of the kernels' Python paths, for a handful of layouts: remembered, as above.
@functools.lru_cache(maxsize=1024)
def _broadcast_strides(shape, op_shape, op_strides):
    out = _scratch.out
    check(lib.lt_layout_broadcast_strides(out, len(shape), shape, len(op_shape), op_shape, op_strides))
    return tuple(ffi.unpack(out, len(shape)))


# The view rules of diagonal, select and narrow (libtensor's lt_layout_diagonal, _select, _narrow):
# the Python paths of those methods ask them after normalizing their arguments and raising torch's
# errors; the shim's fast paths ask the same functions. Dims are wrapped (0 <= dim < len(shape)).
def diagonal(shape, strides, offset, diag_offset, dim1, dim2):
    """The ``(shape, strides, offset)`` of ``diagonal(diag_offset, dim1, dim2)``
    of the view ``(shape, strides, offset)``: the two dims dropped, the diagonal
    last with the sum of their strides; element 0 moves only when the diagonal
    has elements. A stride or start past int64 is refused (``LayoutError``).

    >>> diagonal((3, 4), (4, 1), 0, 1, 0, 1), diagonal((3, 4), (4, 1), 2, 9, 0, 1)
    (((3,), (5,), 1), ((0,), (5,), 2))
    """
    n = len(shape)
    sc = _scratch
    out_shape, out_strides, out_offset = sc.out, sc.strides, sc.offset
    check(lib.lt_layout_diagonal(out_shape, out_strides, out_offset, n, shape, strides, offset, diag_offset, dim1,
                                 dim2))
    return tuple(ffi.unpack(out_shape, n - 1)), tuple(ffi.unpack(out_strides, n - 1)), out_offset[0]


def select(shape, strides, offset, dim, index):
    """The ``(shape, strides, offset)`` of ``select(dim, index)``, ``0 <= index < shape[dim]``.

    >>> select((3, 4), (4, 1), 2, 0, 1)
    ((4,), (1,), 6)
    """
    n = len(shape)
    sc = _scratch
    out_shape, out_strides, out_offset = sc.out, sc.strides, sc.offset
    check(lib.lt_layout_select(out_shape, out_strides, out_offset, n, shape, strides, offset, dim, index))
    return tuple(ffi.unpack(out_shape, n - 1)), tuple(ffi.unpack(out_strides, n - 1)), out_offset[0]


def narrow(shape, strides, offset, dim, start, length):
    """The ``(shape, offset)`` of ``narrow(dim, start, length)`` (the strides stay).

    >>> narrow((3, 4), (4, 1), 0, 1, 1, 2)
    ((3, 2), 1)
    """
    sc = _scratch
    out_shape, out_offset = sc.out, sc.offset
    check(lib.lt_layout_narrow(out_shape, out_offset, len(shape), shape, strides, offset, dim, start, length))
    return tuple(ffi.unpack(out_shape, len(shape))), out_offset[0]


def unfold(shape, strides, dim, size, step):
    """The ``(shape, strides)`` of ``unfold(dim, size, step)`` (the offset stays):
    dim holds the windows, a new last dim walks one; a 0-d view gives ``((size,), (1,))``.
    A windows' stride past int64 is refused (``LayoutError``).

    >>> unfold((7,), (2,), 0, 3, 2), unfold((), (), 0, 1, 5)
    (((3, 3), (4, 2)), ((1,), (1,)))
    """
    n = len(shape)
    sc = _scratch
    out_shape, out_strides = sc.out, sc.strides
    check(lib.lt_layout_unfold(out_shape, out_strides, n, shape, strides, dim, size, step))
    return tuple(ffi.unpack(out_shape, n + 1)), tuple(ffi.unpack(out_strides, n + 1))
