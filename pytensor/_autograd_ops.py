"""Teaches Tensor's methods to record autograd nodes (see ``autograd.py``).

Each differentiable method is wrapped once, at import: when recording is on
and an input requires grad, the original method runs under ``no_grad`` (so its
internal steps record nothing) and one node with torch's name is attached to
the result. Otherwise the original runs untouched, so code without autograd
pays one flag test per call.
"""
from __future__ import annotations

import functools
import math

from . import _ops
from .autograd import (as_input_grad, backward, conj, is_grad_enabled, needs_graph, no_grad, record,
                       scatter_backward)
from .tensor import Tensor


class _Meta:
    """Shape and dtype of an input: what most backward functions need, without keeping its memory alive."""

    __slots__ = ("shape", "dtype")

    def __init__(self, t):
        self.shape, self.dtype = tuple(t.shape), t.dtype


# ============================================================================ arithmetic
def _conj(x):
    return conj(x) if isinstance(x, Tensor) else x.conjugate() if isinstance(x, complex) else x


def _binary_backward(op, a, b, alpha):
    """Gradients of ``a op b`` (a or b may be a Python scalar) for each tensor input.

    Returns (backward, saved). Only mul and div keep operand values alive (as
    saved tensors, checked against later writes); add and sub keep shapes only.
    """
    ma = _Meta(a) if isinstance(a, Tensor) and a._requires_grad else None
    mb = _Meta(b) if isinstance(b, Tensor) and b._requires_grad else None

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
    return backward, [t for t in (keep_a, keep_b) if isinstance(t, Tensor)]


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
        if not isinstance(value, (Tensor, bool, int, float, complex)):  # a NumPy array: a constant tensor
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
        count = math.prod(meta.shape[i] for i in dims)

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
        elif isinstance(item, (bool, Tensor, list, tuple)) or not hasattr(item, "__index__"):
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


# ============================================================================ in-place guard
def _inplace_guard(orig):
    @functools.wraps(orig)
    def method(self, *args, **kwargs):
        if is_grad_enabled():
            if self._requires_grad and self._grad_fn is None:
                raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
            if needs_graph(self, *args):
                raise RuntimeError(
                    "pytensor's autograd does not record in-place operations on tensors that are part of a "
                    "graph; compute the result out of place, or write inside pytensor.no_grad() / into "
                    "a detach()ed tensor")
        return orig(self, *args, **kwargs)
    return method


# ============================================================================ installation
_VIEWS = {
    "view": "ViewBackward0", "view_as": "ViewBackward0", "reshape": _reshape_name, "reshape_as": _reshape_name,
    "flatten": _reshape_name, "unflatten": "ViewBackward0", "transpose": "TransposeBackward0",
    "t": "TBackward0", "permute": "PermuteBackward0", "movedim": "PermuteBackward0", "squeeze": _squeeze_name,
    "unsqueeze": "UnsqueezeBackward0", "expand": "ExpandBackward0", "expand_as": "ExpandBackward0",
    "narrow": "SliceBackward0", "select": "SelectBackward0", "unfold": "UnfoldBackward0",
    "as_strided": "AsStridedBackward0", "diagonal": "DiagonalBackward0",
    "_getitem": lambda self, out, args, kwargs: _getitem_name(args[0]),  # behind t[index]
}
_VIEW_PROPERTIES = {"T": "PermuteBackward0", "mT": "TransposeBackward0"}
_MULTI = {"split": "SplitBackward0", "chunk": "SplitBackward0", "unbind": "UnbindBackward0"}
_BINARY = [  # (method, op, reflected, torch's node)
    ("__add__", "add", False, "AddBackward0"), ("__radd__", "add", True, "AddBackward0"),
    ("add", "add", False, "AddBackward0"),
    ("__sub__", "sub", False, "SubBackward0"), ("__rsub__", "sub", True, "RsubBackward1"),
    ("sub", "sub", False, "SubBackward0"),
    ("__mul__", "mul", False, "MulBackward0"), ("__rmul__", "mul", True, "MulBackward0"),
    ("mul", "mul", False, "MulBackward0"), ("multiply", "mul", False, "MulBackward0"),
    ("__truediv__", "div", False, "DivBackward0"), ("__rtruediv__", "div", True, "MulBackward0"),
    ("div", "div", False, "DivBackward0"), ("divide", "div", False, "DivBackward0"),
    ("true_divide", "div", False, "DivBackward0"),
]
_INPLACE = ["__iadd__", "add_", "__isub__", "sub_", "__imul__", "mul_", "__itruediv__", "div_",
            "fill_", "zero_", "copy_", "__setitem__"]


def _tensor_backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulate the gradient of this tensor into every leaf's ``.grad``.

    ``gradient`` defaults to 1 for a one-element tensor. Without
    ``retain_graph=True`` the saved values are freed, and a second backward
    through a node that saved any raises, as in torch. ``inputs`` limits
    accumulation to the given tensors.
    """
    backward(self, gradient, retain_graph, create_graph, inputs)


def install():
    from . import autograd
    autograd._Tensor = Tensor
    T = Tensor
    for attr, op, reflected, name in _BINARY:
        setattr(T, attr, _binary_method(getattr(T, attr), op, reflected, name))
    T.__neg__ = T.neg = _neg(T.neg)
    T.sum = _reduction(T.sum, "Sum")
    T.mean = _reduction(T.mean, "Mean")
    for attr, name in _VIEWS.items():
        setattr(T, attr, _view_method(getattr(T, attr), name))
    for attr, name in _VIEW_PROPERTIES.items():
        setattr(T, attr, property(_view_method(getattr(T, attr).fget, name)))
    for attr, name in _MULTI.items():
        setattr(T, attr, _multi_view_method(getattr(T, attr), name))
    T.clone = _copy_method(T.clone, "CloneBackward0")
    T.contiguous = _copy_method(T.contiguous, "CloneBackward0")
    T.to = _copy_method(T.to, "ToCopyBackward0")
    for attr in _INPLACE:
        setattr(T, attr, _inplace_guard(getattr(T, attr)))
    T.backward = _tensor_backward


install()
