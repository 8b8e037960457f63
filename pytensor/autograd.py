"""Reverse-mode automatic differentiation, micrograd-sized, over pytensor's kernels.

A tensor that requires grad and was made by an operation carries a ``grad_fn``
node; each node knows its inputs' nodes (``next_functions``) and how to turn
the gradient of its output into gradients of its inputs. ``backward()`` walks
the graph once in reverse topological order and accumulates into the leaves'
``.grad``. Node names are torch's (``AddBackward0``, ``SumBackward1``, ...), so
reprs and ``grad_fn`` checks read the same as torch's.

Tensors saved for backward are checked against the storage write counter:
writing into one of them before ``backward()`` raises, as in torch.

>>> import pytensor
>>> x = pytensor.tensor([1., 2., 3.], requires_grad=True)
>>> y = (x * x).sum(); y
tensor(14., grad_fn=<SumBackward0>)
>>> y.backward(); x.grad
tensor([2., 4., 6.])
"""
from __future__ import annotations

import functools
import threading

from . import dtypes as _dt
from ._convert_out import scratch_ndarray
from ._core import TensorBase
from ._factories import arange, ones
from ._ffi import shim
from ._layout import numel

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled", "backward", "Node"]

class _Mode(threading.local):
    """Grad mode, per thread as in torch. The class attribute is every thread's default, so reading the
    mode never misses: a missing attribute on a threading.local costs an AttributeError (about 0.5 us),
    and every guarded op reads it."""

    enabled = True


_mode = _Mode()


def is_grad_enabled():
    """True unless inside ``no_grad()`` / ``set_grad_enabled(False)`` on this thread."""
    return _mode.enabled


class _GradMode:
    """Context manager and decorator that sets grad mode and restores it on exit."""

    def __init__(self, enabled):
        self._enabled = bool(enabled)
        self._prev = []

    def __enter__(self):
        self._prev.append(is_grad_enabled())
        _mode.enabled = self._enabled
        return None

    def __exit__(self, *exc):
        _mode.enabled = self._prev.pop()
        return False

    def __call__(self, fn):
        enabled = self._enabled

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with _GradMode(enabled):
                return fn(*args, **kwargs)
        return wrapper


class no_grad(_GradMode):
    """Operations inside record no graph (results do not require grad).

    >>> import pytensor
    >>> x = pytensor.ones(2, requires_grad=True)
    >>> with pytensor.no_grad():
    ...     (x * 2).requires_grad
    False
    """

    def __init__(self):
        super().__init__(False)


class enable_grad(_GradMode):
    """Turns recording back on inside a ``no_grad`` block."""

    def __init__(self):
        super().__init__(True)


class set_grad_enabled(_GradMode):
    """Sets grad mode now (as a call) or for a ``with`` block (restored on exit)."""

    def __init__(self, mode):
        super().__init__(mode)
        self._prev.append(is_grad_enabled())
        _mode.enabled = self._enabled

    def __enter__(self):
        return None  # the mode was set by the constructor; __exit__ restores it


# ============================================================================ graph nodes
class AccumulateGrad:
    """The node behind a leaf that requires grad: adds incoming gradients to ``.grad``."""

    __slots__ = ("variable",)

    def __init__(self, variable):
        self.variable = variable

    def name(self):
        return "torch::autograd::AccumulateGrad"

    next_functions = ()

    def __repr__(self):
        return f"<AccumulateGrad object at {id(self):#x}>"


class Node:
    """One recorded operation: ``backward_fn(grad_out) -> grads for each input``."""

    __slots__ = ("_name", "_backward_fn", "_saved", "_freed", "next_functions", "__weakref__")

    def __init__(self, name, inputs, backward_fn, saved=()):
        self._name = name
        self._backward_fn = backward_fn
        # (tensor, version when saved): a later write to the storage makes backward refuse.
        self._saved = tuple((t, t._version) for t in saved)
        self._freed = False
        self.next_functions = tuple((_edge(t), 0) for t in inputs)

    def name(self):
        return self._name

    def __repr__(self):
        return f"<{self._name} object at {id(self):#x}>"

    def _apply(self, grad):
        if self._freed:
            raise RuntimeError(
                "Trying to backward through the graph a second time (or directly access saved tensors after "
                "they have already been freed). Saved intermediate values of the graph are freed when you call "
                ".backward(). Specify retain_graph=True if you need to backward through the graph a second time.")
        for i, (t, version) in enumerate(self._saved):
            if t._version != version:
                raise RuntimeError(
                    "one of the variables needed for gradient computation has been modified by an inplace "
                    f"operation: [pytensor.{t.dtype.name} {list(t.shape)}], which is saved tensor {i} of "
                    f"{self._name}; is at version {t._version}; expected version {version} instead.")
        return self._backward_fn(grad)

    def _release(self):
        if self._saved:
            self._saved = ()
            self._freed = True
            self._backward_fn = None


def _edge(t):
    """The node a gradient for input ``t`` flows to (None: ``t`` needs none)."""
    if not isinstance(t, TensorBase) or not t._requires_grad:
        return None
    return t._grad_fn if t._grad_fn is not None else AccumulateGrad(t)


def needs_graph(*inputs):
    """True when recording is on and some tensor input requires grad (called on every operation: kept lean)."""
    if not _mode.enabled:
        return False
    for x in inputs:
        if isinstance(x, TensorBase) and x._requires_grad:
            return True
    return False


def record(out, name, inputs, backward_fn, saved=()):
    """Attach a node to ``out`` (a fresh result) when some input requires grad."""
    if not (out._dtype.is_floating_point or out._dtype.is_complex):
        return out  # integer and bool results never require grad
    out._requires_grad = True
    out._grad_fn = Node(name, inputs, backward_fn, saved)
    return out


# ============================================================================ the engine
def backward(tensor, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulate d(tensor)/d(leaf) into every leaf's ``.grad`` (see ``Tensor.backward``).

    ``inputs`` (a tensor or a sequence of them) limits accumulation to those
    tensors; a non-leaf among them receives the gradient of its own value.
    """
    targets = _targets(inputs)
    if create_graph:
        raise NotImplementedError("pytensor's autograd does not build graphs of gradients (create_graph=True)")
    if not tensor._requires_grad:
        raise RuntimeError("element 0 of tensors does not require grad and does not have a grad_fn")
    if gradient is None:
        if tensor.numel() != 1:
            raise RuntimeError("grad can be implicitly created only for scalar outputs")
        gradient = _ones(tensor)
    else:
        if not isinstance(gradient, TensorBase):
            raise TypeError(f"gradient must be a Tensor, not {type(gradient).__name__}")
        if tuple(gradient.shape) != tuple(tensor.shape):
            raise RuntimeError(f"Mismatch in shape: grad_output[0] has a shape of {gradient.shape} and "
                               f"output[0] has a shape of {tensor.shape}.")
    retain = bool(retain_graph)
    with no_grad():
        root = _edge(tensor)
        if isinstance(root, AccumulateGrad):
            if targets is None or id(root.variable) in targets[0]:
                _accumulate(root.variable, gradient)
            return
        pending = {root: gradient.to(tensor.dtype)}
        for node in _topological(root):
            grad = pending.pop(node, None)
            if grad is None:
                continue
            if targets is not None and node in targets[1]:
                _accumulate(targets[1][node], grad)  # a non-leaf input: the gradient of its value
            grads = node._apply(grad)
            if not retain:
                node._release()
            for (fn, _), g in zip(node.next_functions, grads):
                if fn is None or g is None:
                    continue
                if isinstance(fn, AccumulateGrad):
                    if targets is None or id(fn.variable) in targets[0]:
                        _accumulate(fn.variable, g)
                elif fn in pending:
                    pending[fn] = pending[fn] + g
                else:
                    pending[fn] = g


def _targets(inputs):
    """None (every leaf), or (ids of leaf inputs, {node: non-leaf input}) for ``backward(inputs=...)``."""
    if inputs is None:
        return None
    inputs = [inputs] if isinstance(inputs, TensorBase) else list(inputs)
    if not inputs:
        raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    for t in inputs:
        if not isinstance(t, TensorBase):
            raise TypeError(f"backward(): inputs must be tensors, not {type(t).__name__}")
        if not t._requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    leaves = {id(t) for t in inputs if t._grad_fn is None}
    return leaves, {t._grad_fn: t for t in inputs if t._grad_fn is not None}


def _topological(root):
    """Nodes reachable from ``root``, each after every node that feeds it a gradient."""
    order, seen = [], set()
    stack = [(root, False)]
    while stack:
        node, done = stack.pop()
        if done:
            order.append(node)
            continue
        if node in seen:
            continue
        seen.add(node)
        stack.append((node, True))
        for fn, _ in node.next_functions:
            if isinstance(fn, Node) and fn not in seen:
                stack.append((fn, False))
    order.reverse()
    return order


def _accumulate(leaf, grad):
    grad = grad.to(leaf.dtype)
    if tuple(grad.shape) != tuple(leaf.shape):
        grad = grad.expand(leaf.shape)
    if leaf._grad is None:
        leaf._grad = grad.clone()  # new memory: .grad never aliases a graph value
    else:
        leaf._grad.add_(grad)


def _ones(t):
    return ones(t.shape, dtype=t.dtype)


# ============================================================================ gradient helpers
def sum_to(grad, shape):
    """Sum ``grad`` over the dimensions that broadcasting added or stretched, back to ``shape``."""
    shape = tuple(shape)
    if tuple(grad.shape) == shape:
        return grad
    lead = grad.dim() - len(shape)
    dims = list(range(lead)) + [lead + i for i, n in enumerate(shape) if n == 1 and grad.shape[lead + i] != 1]
    out = grad.sum(dims, keepdim=True) if dims else grad
    return out.reshape(shape)


def conj(t):
    """Complex conjugate in new memory (the identity for real tensors); a gradient that is itself a
    conjugate or negative view is read for its values."""
    if not t.dtype.is_complex:
        return t
    return t.conj_physical()


def real_part(t):
    """The real part of a complex tensor in new memory (the identity for real tensors)."""
    if not t.dtype.is_complex:
        return t
    return t.real.clone()  # clone: new row-major memory holding the values (a negative bit resolved)


def as_input_grad(grad, like):
    """``grad`` in the dtype and shape of input ``like`` (torch casts gradients back, dropping imaginary parts)."""
    if not like.dtype.is_complex:
        grad = real_part(grad)
    return sum_to(grad.to(like.dtype), like.shape)


def scatter_backward(forward, in_shape, in_dtype):
    """Backward of any indexing or view function: where did each output element come from?

    ``forward`` is applied to a tensor of element numbers shaped like the input;
    its result says, per output element, which input element it read. The
    gradient is scatter-added there, so repeated reads (expand, overlapping
    windows, repeated indices) sum, as the chain rule asks.
    """
    def backward(grad):
        import numpy as np  # noqa: PLC0415  (only gathers' backward needs NumPy; `import pytensor` does not)
        n = numel(in_shape)
        index = forward(arange(n).view(in_shape) if in_shape else arange(n).view(()))
        work_dt = _dt.float32 if grad.dtype is _dt.bfloat16 else grad.dtype
        # scratch_ndarray: arrays used only in this call, so no storage is pinned
        g = np.ascontiguousarray(scratch_ndarray(grad.to(work_dt))).reshape(-1)
        acc = np.zeros(n, dtype=g.dtype)
        np.add.at(acc, scratch_ndarray(index.contiguous()).reshape(-1), g)
        shared = shim.share_numpy(acc, 0)  # a plain native array: the shim shares it, as from_numpy would
        return (shared.to(grad.dtype).view(in_shape),)
    return backward
