"""torch's lazy conjugate and negative bits: what a tensor that carries them means, and resolving it.

``x.conj()`` of a complex tensor is a view of x's bytes with the conjugate bit
set, and ``x.conj().imag`` a float view with the negative bit: the values are
the stored bytes conjugated (imaginary parts negated) or negated. The bits live
in the C base (``Tensor._bits``, a field beside the layout) and a view
inherits them from its parent (the shim's ``make_tensor`` and its C views).

The kernels know nothing of the bits, so there are three rules, each with one
home:

- reading: an operation hands a kernel ``resolved(t)`` (new memory holding the
  values) instead of t; the operand entries call it (``_ops._operand``,
  ``_convert`` and the gather and indexing entries) and ``Tensor._ptr()``, the
  one way Python reaches a tensor's bytes for a kernel, refuses a tensor with
  bits, so a path that forgot to resolve fails loudly instead of reading
  unconjugated bytes;
- writing: ``_core.copy_into``, the one conversion between tensors, writes
  through a view with bits by applying the same bits to the values first
  (conjugation and negation are their own inverses), see ``for_write``;
- the C fast paths (the shim's binary, buffer export, DLPack) decline or
  refuse a tensor with bits.
"""
from __future__ import annotations

from ._ffi import ffi, lib, shim
from ._layout import contiguous_strides, is_non_overlapping_and_dense, numel, preserve_strides
from .errors import check

__all__ = ["CONJ", "NEG", "raw", "materialise", "conjugate_copy", "resolved", "for_write", "apply_bits_"]

CONJ = 1  # the values are the stored bytes conjugated (complex dtypes only)
NEG = 2   # the values are the stored bytes negated

_make = shim.make_tensor
_conj_physical = shim.conj_physical


def raw(t):
    """An alias of t's bytes with no bits: the stored bytes as values, for a kernel that writes or reads them
    knowing what the bits mean. Never returned to users."""
    return _make(t._storage, t._dtype, t._shape, t._strides, t._offset)


def _negate(addr, dtype, shape, strides):
    """Negate in place the elements of a real ``dtype`` at ``addr`` (strides in elements of ``dtype``): times -1,
    so that 0 becomes -0 as torch's negation makes it."""
    minus_one = ffi.new("char[16]")
    one = ffi.new("double *", -1.0)
    check(lib.lt_copy(minus_one, ffi.NULL, dtype.code, one, ffi.NULL, lib.LT_FLOAT64, 0, ffi.NULL))
    p = ffi.cast("char *", addr)
    check(lib.lt_binary(lib.LT_OP_MUL, dtype.code, len(shape), shape, p, strides, p, strides, minus_one,
                        [0] * len(shape)))


def apply_bits_(t, bits):
    """Turn the stored values of ``t`` (no bits of its own, writable, no internal overlap) into their conjugate
    (``CONJ``) and/or negation (``NEG``), in place."""
    if not bits or not numel(t._shape):
        return t
    dt = t._dtype
    base = t._storage._addr + t._offset * dt.itemsize
    if dt.is_complex and is_non_overlapping_and_dense(t._shape, t._strides) and min(t._strides, default=0) >= 0:
        # dense with no negative stride (every caller's new memory): the elements are the block of numel
        # elements from element 0, so one pass flips their sign bits
        p = ffi.cast("char *", base)
        check(lib.lt_complex_negate_parts(p, p, numel(t._shape), dt.code, 1 if bits & NEG else 0,
                                          0 if bits == CONJ | NEG else 1))
    elif dt.is_complex:
        part = dt.to_real()
        strides = [2 * s for s in t._strides]  # in parts: two per complex element
        if bits & NEG:
            _negate(base, part, t._shape, strides)
        if bits != CONJ | NEG:  # conj then neg leaves the imaginary parts as they were
            _negate(base + part.itemsize, part, t._shape, strides)
    elif bits & NEG:  # a conjugate bit on a real dtype means nothing (torch's conj() of one is itself)
        _negate(base, dt, t._shape, t._strides)
    return t


def materialise(t, bits):
    """New memory holding t's values with ``bits`` (of t's own) applied to the bytes, laid out as torch's
    ``preserve_format`` lays out a copy; the result keeps t's other bits (``resolve_conj`` keeps a negative bit)."""
    if t._bits == CONJ and bits & CONJ:  # resolve_conj's common case: the shim's one pass over the bytes, or None
        out = _conj_physical(raw(t))
        if out is not None:
            return out
    strides = preserve_strides(t._shape, t._strides)
    out = _make(shim.storage_new(numel(t._shape) * t._dtype.itemsize, False), t._dtype, t._shape, strides, 0)
    src = raw(t)
    n, apply = numel(t._shape), bits & t._bits
    if n and apply and t._dtype.is_complex and strides == tuple(t._strides) and min(strides, default=0) >= 0 and \
            is_non_overlapping_and_dense(t._shape, t._strides):
        # a dense input keeps its strides: both are the block of n elements from element 0, one pass
        check(lib.lt_complex_negate_parts(ffi.cast("char *", out._storage._addr),
                                          ffi.cast("char *", src._storage._addr + src._offset * src._dtype.itemsize),
                                          n, t._dtype.code, 1 if apply & NEG else 0, 0 if apply == CONJ | NEG else 1))
        out._bits = t._bits & ~bits
        return out
    if n:
        check(lib.lt_copy(ffi.cast("char *", out._storage._addr), out._strides, out._dtype.code,
                          ffi.cast("char *", src._storage._addr + src._offset * src._dtype.itemsize), src._strides,
                          src._dtype.code, len(t._shape), t._shape))
    apply_bits_(out, bits & t._bits)
    out._bits = t._bits & ~bits
    return out


def conjugate_copy(t):
    """New memory holding the conjugates of t's values (complex t), no bit: ``conj_physical``, in one pass
    for a dense t (materialise of an alias whose conjugate bit is flipped). A dense complex t with no bits
    takes one C call (the shim's conj_physical), which declines (None) the rest to the path below."""
    out = _conj_physical(t)
    if out is not None:
        return out
    alias = raw(t)
    alias._bits = t._bits ^ CONJ
    return materialise(alias, alias._bits)


def resolved(t):
    """t when it carries no bit, else its values in new memory (no bits): what a kernel may read."""
    return materialise(t, t._bits) if t._bits else t


def for_write(dst, src):
    """``(dst', src')`` such that copying the bytes of src' into dst' stores src's values in dst, whatever
    bits either carries: src' is src resolved, and for a dst with bits, converted to dst's dtype and given
    dst's bits (writing v through a conjugate view stores conj(v)); dst' is dst's bytes."""
    src = resolved(src)
    if not dst._bits:
        return dst, src
    tmp = _make(shim.storage_new(numel(dst._shape) * dst._dtype.itemsize, False), dst._dtype, dst._shape,
                contiguous_strides(dst._shape), 0)
    if numel(dst._shape):  # src has dst's shape (copy_into's contract), perhaps with zero strides
        check(lib.lt_copy(ffi.cast("char *", tmp._storage._addr), tmp._strides, tmp._dtype.code,
                          ffi.cast("char *", src._storage._addr + src._offset * src._dtype.itemsize), src._strides,
                          src._dtype.code, len(dst._shape), dst._shape))
    return raw(dst), apply_bits_(tmp, dst._bits)


def for_scatter(dst, src):
    """``(dst', src')`` for a kernel that stores elements of src (of dst's dtype) into dst (an indexed write):
    dst's bytes, and src's values with dst's bits applied, in new memory when they had to change."""
    src = resolved(src)
    if not dst._bits:
        return dst, src
    return raw(dst), apply_bits_(materialise(src, 0), dst._bits)


def fill_bytes(dst, code, buf):
    """``(dst', code', buf', keep)`` for ``lt_fill(dst, value=buf of dtype code)``: for a dst with bits, its bytes
    and the value in dst's dtype with dst's bits applied (``keep`` holds that value's memory alive)."""
    if not dst._bits:
        return dst, code, buf, None
    one = _make(shim.storage_new(dst._dtype.itemsize, False), dst._dtype, (), (), 0)
    p = ffi.cast("char *", one._storage._addr)
    check(lib.lt_fill(p, ffi.NULL, dst._dtype.code, buf, code, 0, ffi.NULL))
    apply_bits_(one, dst._bits)
    return raw(dst), dst._dtype.code, p, one
