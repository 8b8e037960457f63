"""The Tensor part that records autograd nodes: differentiable versions of the plain parts' methods.

Each differentiable method wraps the plain part's function (taken by direct
reference in the class body below, so a call costs one wrapper, not a lookup):
when recording is on and an input requires grad, the plain function runs
under ``no_grad`` (so its internal steps record nothing) and one node with
torch's name is attached to the result. Otherwise the plain function runs
untouched, so code without autograd pays one flag test per call. In-place
methods are guarded instead: they refuse to write into a graph.
The engine (nodes, backward) is pytensor/autograd.py.
"""
from __future__ import annotations

import functools

from . import _ops
from ._core import TensorBase
from ._ffi import shim
from ._layout import numel
from ._tensor_arithmetic import Arithmetic
from ._tensor_copies import Copies
from ._tensor_indexing import Indexing
from ._tensor_reductions import Reductions
from ._tensor_views import Views
from ._tensor_writes import Writes
from .autograd import (as_input_grad, backward, conj, is_grad_enabled, needs_graph, no_grad, record,
                       scatter_backward)
from .autograd import _mode as grad_mode  # .enabled: is_grad_enabled() without the call


class _Meta:
    """Shape and dtype of an input: what most backward functions need, without keeping its memory alive."""

    __slots__ = ("shape", "dtype")

    def __init__(self, t):
        self.shape, self.dtype = tuple(t.shape), t.dtype


# ============================================================================ arithmetic
def _conj(x):
    return conj(x) if isinstance(x, TensorBase) else x.conjugate() if isinstance(x, complex) else x


def _binary_backward(op, a, b, alpha):
    """Gradients of ``a op b`` (a or b may be a Python scalar) for each tensor input.

    Returns (backward, saved). Only mul and div keep operand values alive (as
    saved tensors, checked against later writes); add and sub keep shapes only.
    """
    ma = _Meta(a) if isinstance(a, TensorBase) and a._requires_grad else None
    mb = _Meta(b) if isinstance(b, TensorBase) and b._requires_grad else None

    def finish(ga, gb):
        return (as_input_grad(ga, ma) if ma else None, as_input_grad(gb, mb) if mb else None)

    if op == "add":
        return (lambda g: finish(g, g * alpha if alpha != 1 else g)), []
    if op == "sub":
        return (lambda g: finish(g, -(g * alpha) if alpha != 1 else -g)), []
    if op == "mul":
        keep_a, keep_b = (a if mb else None), (b if ma else None)

        def mul_backward(g):
            return finish(g * _conj(keep_b) if ma else None, g * _conj(keep_a) if mb else None)
        backward = mul_backward
    else:  # div: d(a/b)/da = 1/b, d(a/b)/db = -a/b^2
        keep_a, keep_b = (a if mb else None), b

        def div_backward(g):
            return finish(g / _conj(keep_b) if ma else None,
                          -g * _conj(keep_a) / _conj(keep_b * keep_b) if mb else None)
        backward = div_backward
    return backward, [t for t in (keep_a, keep_b) if isinstance(t, TensorBase)]


def _binary_method(orig, op, reflected, name):
    @functools.wraps(orig)
    def method(self, other, **kwargs):
        if not needs_graph(self, other):
            return orig(self, other, **kwargs)
        value = _ops.operand(other)
        if value is None:  # no operand: NotImplemented or TypeError, as without a graph
            return orig(self, other, **kwargs)
        with no_grad():
            out = orig(self, other, **kwargs)  # the operand as given: NumPy arrays promote as NumPy's
        if out is NotImplemented:
            return out
        if not isinstance(value, (TensorBase, bool, int, float, complex)):  # a NumPy array: a constant tensor
            value = _ops._operand(value, out.dtype)
        other = value
        a, b = (other, self) if reflected else (self, other)
        backward_fn, saved = _binary_backward(op, a, b, kwargs.get("alpha", 1))
        return record(out, name, (a, b), backward_fn, saved)
    return method


def _neg(orig):
    @functools.wraps(orig)
    def neg(self):
        if not needs_graph(self):
            return orig(self)
        with no_grad():
            out = orig(self)
        return record(out, "NegBackward0", (self,), lambda g: (-g,))
    return neg


# ============================================================================ reductions
def _reduction(orig, kind):
    @functools.wraps(orig)
    def reduce(self, dim=None, keepdim=False, dtype=None):
        if not needs_graph(self):
            return orig(self, dim, keepdim, dtype)
        with no_grad():
            out = orig(self, dim, keepdim, dtype)
        meta = _Meta(self)
        dims = _ops.reduced_dims(dim, self.dim())
        kept = tuple(1 if i in dims else s for i, s in enumerate(meta.shape))
        count = numel([meta.shape[i] for i in dims])

        def backward(g):
            g = g.reshape(kept).expand(meta.shape)
            if kind == "Mean":
                g = g / count
            return (as_input_grad(g, meta),)
        name = f"{kind}Backward{0 if dim is None else 1}"
        return record(out, name, (self,), backward)
    return reduce


# ============================================================================ views and indexing
def _getitem_name(index):
    """torch's node for ``t[index]``: the last step that indexing applies."""
    name = "AliasBackward0"
    for item in index if isinstance(index, tuple) else (index,):
        if item is None:
            name = "UnsqueezeBackward0"
        elif item is Ellipsis:
            continue
        elif isinstance(item, slice):
            if item != slice(None):
                name = "SliceBackward0"
        elif isinstance(item, (bool, TensorBase, list, tuple)) or not hasattr(item, "__index__"):
            return "IndexBackward0"  # advanced indexing: lists, tensors, masks
        else:
            name = "SelectBackward0"
    return name


def _view_method(orig, name):
    """Wrap a method whose result reads input elements (a view or a gather)."""
    @functools.wraps(orig)
    def method(self, *args, **kwargs):
        if not self._requires_grad or not is_grad_enabled():  # the common case: one flag test
            return orig(self, *args, **kwargs)
        with no_grad():
            out = orig(self, *args, **kwargs)
        if out is self:
            return out  # e.g. flatten() of a 1-d tensor: no new node, as torch
        node = name(self, out, args, kwargs) if callable(name) else name
        return _record_gather(out, node, self, lambda idx: orig(idx, *args, **kwargs))
    return method


def _record_gather(out, name, src, forward):
    """Attach a node whose backward scatter-adds into ``src`` where ``forward`` read it.

    The node keeps ``forward`` (and so any index tensors in its arguments), not ``src``.
    """
    meta = _Meta(src)
    scatter = scatter_backward(forward, meta.shape, meta.dtype)
    return record(out, name, (src,), lambda g: (as_input_grad(scatter(g)[0], meta),))


def _multi_view_method(orig, name):
    """Wrap a method returning a tuple of views (split, chunk, unbind)."""
    @functools.wraps(orig)
    def method(self, *args, **kwargs):
        if not needs_graph(self):
            return orig(self, *args, **kwargs)
        with no_grad():
            outs = orig(self, *args, **kwargs)
        for i, out in enumerate(outs):
            if out is not self:
                _record_gather(out, name, self, lambda idx, i=i: orig(idx, *args, **kwargs)[i])
        return outs
    return method


def _reshape_name(self, out, args, kwargs):
    return "ViewBackward0" if out.untyped_storage() is self.untyped_storage() else "UnsafeViewBackward0"


def _squeeze_name(self, out, args, kwargs):
    return "SqueezeBackward0" if not args and kwargs.get("dim") is None else "SqueezeBackward1"


def _complex_method(orig, name, backward):
    """Wrap real/imag/conj: torch's node ``name``, whose gradient ``backward(g)`` maps the
    result's gradient back to the complex input (real parts in, imaginary parts in, conjugated)."""
    @functools.wraps(orig)
    def method(self):
        if not self._requires_grad or not is_grad_enabled() or not self._dtype.is_complex:
            return orig(self)
        with no_grad():
            out = orig(self)
        meta = _Meta(self)
        return record(out, name, (self,), lambda g: (backward(g, meta),))
    return method


# ============================================================================ copies
def _copy_method(orig, name):
    @functools.wraps(orig)
    def method(self, *args, **kwargs):
        if not needs_graph(self):
            return orig(self, *args, **kwargs)
        with no_grad():
            out = orig(self, *args, **kwargs)
        if out is self:
            return out
        meta = _Meta(self)
        return record(out, name, (self,), lambda g: (as_input_grad(g, meta),))
    return method


def _contiguous_method(orig):
    copying = _copy_method(orig, "CloneBackward0")
    is_contiguous = shim.is_contiguous

    @functools.wraps(orig)
    def contiguous(self, memory_format=None):
        if is_contiguous(self):  # self, graph or not: one C test and no other work (torch's cost)
            return self
        return copying(self, memory_format)
    return contiguous


# ============================================================================ in-place guard
def _inplace_guard(orig):
    @functools.wraps(orig)
    def method(self, *args, **kwargs):
        # on every in-place call: the common case (no tensor requires grad) reads two flags and calls nothing
        if grad_mode.enabled and (self._requires_grad or args and needs_graph(*args)):
            if self._requires_grad and self._grad_fn is None:
                raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
            raise RuntimeError(
                "pytensor's autograd does not record in-place operations on tensors that are part of a "
                "graph; compute the result out of place, or write inside pytensor.no_grad() / into "
                "a detach()ed tensor")
        return orig(self, *args, **kwargs)
    return method


def _setitem_method(orig):
    """t[index] = value: a basic index with a number or a tensor is written in one C call
    (shim.setitem_basic), which declines whenever the guard could refuse (self or value requires
    grad) and whatever else the Python indexer decides; the rest goes to the guarded ``orig``."""
    guarded = _inplace_guard(orig)
    fast, note_write = shim.setitem_basic, shim.note_write

    @functools.wraps(orig)
    def __setitem__(self, index, value):
        view = fast(self, index, value)
        if view is None:
            guarded(self, index, value)
        else:
            note_write(view)  # the writer the storage records is t[index], as the Python path's
    return __setitem__


# ============================================================================ the part
def _tensor_backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulate the gradient of this tensor into every leaf's ``.grad``.

    ``gradient`` defaults to 1 for a one-element tensor. Without
    ``retain_graph=True`` the saved values are freed, and a second backward
    through a node that saved any raises, as in torch. ``inputs`` limits
    accumulation to the given tensors.
    """
    backward(self, gradient, retain_graph, create_graph, inputs)


def _getitem_node(self, out, args, kwargs):
    return _getitem_name(args[0])


class Differentiable:
    """The plain parts' differentiable methods: arithmetic, reductions, views, copies; guarded writes; backward."""

    __slots__ = ()

    # -------------------------------------------------------------- arithmetic (torch's node names)
    __add__ = _binary_method(Arithmetic.__add__, "add", False, "AddBackward0")
    __radd__ = _binary_method(Arithmetic.__radd__, "add", True, "AddBackward0")
    add = _binary_method(Arithmetic.add, "add", False, "AddBackward0")
    __sub__ = _binary_method(Arithmetic.__sub__, "sub", False, "SubBackward0")
    __rsub__ = _binary_method(Arithmetic.__rsub__, "sub", True, "RsubBackward1")
    sub = _binary_method(Arithmetic.sub, "sub", False, "SubBackward0")
    __mul__ = _binary_method(Arithmetic.__mul__, "mul", False, "MulBackward0")
    __rmul__ = _binary_method(Arithmetic.__rmul__, "mul", True, "MulBackward0")
    mul = _binary_method(Arithmetic.mul, "mul", False, "MulBackward0")
    multiply = _binary_method(Arithmetic.multiply, "mul", False, "MulBackward0")
    __truediv__ = _binary_method(Arithmetic.__truediv__, "div", False, "DivBackward0")
    __rtruediv__ = _binary_method(Arithmetic.__rtruediv__, "div", True, "MulBackward0")
    div = _binary_method(Arithmetic.div, "div", False, "DivBackward0")
    divide = _binary_method(Arithmetic.divide, "div", False, "DivBackward0")
    true_divide = _binary_method(Arithmetic.true_divide, "div", False, "DivBackward0")
    __neg__ = neg = _neg(Arithmetic.neg)

    # -------------------------------------------------------------- reductions
    sum = _reduction(Reductions.sum, "Sum")
    mean = _reduction(Reductions.mean, "Mean")

    # -------------------------------------------------------------- views and indexing (gathers)
    view = _view_method(Views.view, "ViewBackward0")
    view_as = _view_method(Views.view_as, "ViewBackward0")
    reshape = _view_method(Views.reshape, _reshape_name)
    reshape_as = _view_method(Views.reshape_as, _reshape_name)
    flatten = _view_method(Views.flatten, _reshape_name)
    unflatten = _view_method(Views.unflatten, "ViewBackward0")
    transpose = _view_method(Views.transpose, "TransposeBackward0")
    t = _view_method(Views.t, "TBackward0")
    permute = _view_method(Views.permute, "PermuteBackward0")
    movedim = _view_method(Views.movedim, "PermuteBackward0")
    squeeze = _view_method(Views.squeeze, _squeeze_name)
    unsqueeze = _view_method(Views.unsqueeze, "UnsqueezeBackward0")
    expand = _view_method(Views.expand, "ExpandBackward0")
    expand_as = _view_method(Views.expand_as, "ExpandBackward0")
    narrow = _view_method(Views.narrow, "SliceBackward0")
    select = _view_method(Views.select, "SelectBackward0")
    unfold = _view_method(Views.unfold, "UnfoldBackward0")
    as_strided = _view_method(Views.as_strided, "AsStridedBackward0")
    diagonal = _view_method(Views.diagonal, "DiagonalBackward0")
    _getitem = _view_method(Indexing._getitem, _getitem_node)  # behind t[index] (the shim calls it by name)
    T = property(_view_method(Views.T.fget, "PermuteBackward0"))
    mT = property(_view_method(Views.mT.fget, "TransposeBackward0"))
    # torch takes the parts as a select of view_as_real, hence SelectBackward0
    real = property(_complex_method(Views.real.fget, "SelectBackward0", lambda g, m: g.to(m.dtype)),
                    _inplace_guard(Views.real.fset))
    imag = property(_complex_method(Views.imag.fget, "SelectBackward0", lambda g, m: g.to(m.dtype) * 1j),
                    _inplace_guard(Views.imag.fset))
    conj = _complex_method(Views.conj, "ConjBackward0", lambda g, m: conj(g))
    conj_physical = _complex_method(Views.conj_physical, "ConjPhysicalBackward0", lambda g, m: conj(g))
    split = _multi_view_method(Views.split, "SplitBackward0")
    chunk = _multi_view_method(Views.chunk, "SplitBackward0")
    unbind = _multi_view_method(Views.unbind, "UnbindBackward0")

    # -------------------------------------------------------------- copies
    clone = _copy_method(Copies.clone, "CloneBackward0")
    contiguous = _contiguous_method(Copies.contiguous)
    to = _copy_method(Copies.to, "ToCopyBackward0")

    # -------------------------------------------------------------- in-place writes: refused inside a graph
    __iadd__, add_ = _inplace_guard(Arithmetic.__iadd__), _inplace_guard(Arithmetic.add_)
    __isub__, sub_ = _inplace_guard(Arithmetic.__isub__), _inplace_guard(Arithmetic.sub_)
    __imul__, mul_ = _inplace_guard(Arithmetic.__imul__), _inplace_guard(Arithmetic.mul_)
    __itruediv__, div_ = _inplace_guard(Arithmetic.__itruediv__), _inplace_guard(Arithmetic.div_)
    fill_, zero_, copy_ = _inplace_guard(Writes.fill_), _inplace_guard(Writes.zero_), _inplace_guard(Writes.copy_)
    __setitem__ = _setitem_method(Indexing.__setitem__)

    backward = _tensor_backward
