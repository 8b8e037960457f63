"""The path inventory: every public callable on ``pytensor`` and ``Tensor``,
timed against torch (and NumPy where it has the operation) at 10^2, 10^5 and
10^7 elements, single-threaded; and peak RSS of the allocating paths at 10^7.

    python tests/bench/bench_paths.py --check          # the inventory only: fails on an unlisted callable
    python tests/bench/bench_paths.py                  # all paths, 3 sizes (several minutes), a Markdown table
    python tests/bench/bench_paths.py --sizes 100 --only 'add|sum'
    python tests/bench/bench_paths.py --memory         # peak RSS at 10^7, a fresh process per path and library

The list of public callables is found by introspection (``dir(pytensor)``,
``dir(Tensor)``, the operator dunders included). Each must have a recipe
below or an entry in EXCLUDED saying why it is not timed; anything else is
an error, so a new public function fails this script until it is timed.

Method: inputs are float32 (a 2-D ``R x C`` tensor of n elements: 10x10,
100x1000, 1000x10000) in each library's own memory. Per path and size, each
library's call is warmed up once, timed once to size a batch of about 3 ms,
then the libraries are timed in turn for 5 rounds with the order rotating
(1 round when a call takes over a second);
the figure is each library's minimum per-call time. ``torch.set_num_threads(1)``
and ``pytensor.set_num_threads(1)`` hold throughout. With several sizes, a
last list names the paths whose cost grows faster than torch's between two
sizes. Nothing here is asserted about speed: it reports.
"""
from __future__ import annotations

import argparse
import gc
import inspect
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np

import pytensor
from bench import cpu_model  # this folder is the script's, so on sys.path

try:
    import torch
except ImportError:  # the table then has no torch column
    torch = None

SIZES = {100: (10, 10), 10**5: (100, 1000), 10**7: (1000, 10000)}
ROUNDS = 5

# ------------------------------------------------------------------ the inventory
# name -> (recipe for pytensor and torch, recipe for NumPy or None). A recipe is
# f(L, x) with L the library module and x its inputs (see Inputs); one lambda
# serves pytensor and torch because the names are torch's.
NOT_IN_TORCH = object()  # what a recipe returns for torch where torch has no such call


def _np_getattr(name):
    return lambda np_, x: getattr(np_, name)(x.a, x.b)


RECIPES = {
    # ---- pytensor functions
    "add": (lambda L, x: L.add(x.a, x.b), _np_getattr("add")),
    "sub": (lambda L, x: L.sub(x.a, x.b), _np_getattr("subtract")),
    "mul": (lambda L, x: L.mul(x.a, x.b), _np_getattr("multiply")),
    "div": (lambda L, x: L.div(x.a, x.b), _np_getattr("divide")),
    "eq": (lambda L, x: L.eq(x.a, x.b), _np_getattr("equal")),
    "all": (lambda L, x: L.all(x.m), lambda np_, x: np_.all(x.m)),
    "any": (lambda L, x: L.any(x.m), lambda np_, x: np_.any(x.m)),
    "sum": (lambda L, x: L.sum(x.a), lambda np_, x: np_.sum(x.a)),
    "mean": (lambda L, x: L.mean(x.a), lambda np_, x: np_.mean(x.a)),
    "equal": (lambda L, x: L.equal(x.a, x.c), lambda np_, x: np_.array_equal(x.a, x.c)),
    "equal (first element differs)": (lambda L, x: L.equal(x.a, x.d), lambda np_, x: np_.array_equal(x.a, x.d)),
    "numel": (lambda L, x: L.numel(x.a), None),
    "is_tensor": (lambda L, x: L.is_tensor(x.a), None),
    "arange": (lambda L, x: L.arange(x.n), lambda np_, x: np_.arange(x.n)),
    "empty": (lambda L, x: L.empty(x.n), lambda np_, x: np_.empty(x.n, np_.float32)),
    "zeros": (lambda L, x: L.zeros(x.n), lambda np_, x: np_.zeros(x.n, np_.float32)),
    "ones": (lambda L, x: L.ones(x.n), lambda np_, x: np_.ones(x.n, np_.float32)),
    "full": (lambda L, x: L.full((x.n,), 2.0), lambda np_, x: np_.full(x.n, 2.0, np_.float32)),
    "linspace": (lambda L, x: L.linspace(0, 1, x.n), lambda np_, x: np_.linspace(0, 1, x.n, dtype=np_.float32)),
    "eye": (lambda L, x: L.eye(x.k), lambda np_, x: np_.eye(x.k, dtype=np_.float32)),
    "rand": (lambda L, x: L.rand(x.n), lambda np_, x: x.rng.random(x.n, np_.float32)),
    "randn": (lambda L, x: L.randn(x.n), lambda np_, x: x.rng.standard_normal(x.n, np_.float32)),
    "manual_seed": (lambda L, x: L.manual_seed(0), None),
    "tensor": (lambda L, x: L.tensor(x.lst), lambda np_, x: np_.array(x.lst, np_.float32)),
    "as_tensor": (lambda L, x: L.as_tensor(x.np_a), lambda np_, x: np_.asarray(x.np_a)),
    "asarray": (lambda L, x: L.asarray(x.np_a), lambda np_, x: np_.asarray(x.np_a)),
    "from_numpy": (lambda L, x: L.from_numpy(x.np_a), None),
    "frombuffer": (lambda L, x: L.frombuffer(x.buf, dtype=L.float32), lambda np_, x: np_.frombuffer(x.buf, np_.float32)),
    "from_dlpack": (lambda L, x: L.from_dlpack(x.np_a), lambda np_, x: np_.from_dlpack(x.np_a)),
    "from_file": (lambda L, x: L.from_file(x.path, shared=False, size=x.n, dtype=L.float32),
                  lambda np_, x: np_.fromfile(x.path, np_.float32)),
    "empty_like": (lambda L, x: L.empty_like(x.a), lambda np_, x: np_.empty_like(x.a)),
    "zeros_like": (lambda L, x: L.zeros_like(x.a), lambda np_, x: np_.zeros_like(x.a)),
    "ones_like": (lambda L, x: L.ones_like(x.a), lambda np_, x: np_.ones_like(x.a)),
    "full_like": (lambda L, x: L.full_like(x.a, 2.0), lambda np_, x: np_.full_like(x.a, 2.0)),
    "rand_like": (lambda L, x: L.rand_like(x.a), None),
    "randn_like": (lambda L, x: L.randn_like(x.a), None),
    "broadcast_shapes": (lambda L, x: L.broadcast_shapes((x.R, 1), (1, x.C)), None),
    "promote_types": (lambda L, x: L.promote_types(L.float32, L.int64), None),
    "get_default_device": (lambda L, x: L.get_default_device(), None),
    "get_default_dtype": (lambda L, x: L.get_default_dtype(), None),
    "set_default_dtype": (lambda L, x: L.set_default_dtype(L.float32), None),
    "get_num_threads": (lambda L, x: L.get_num_threads(), None),
    "set_num_threads": (lambda L, x: L.set_num_threads(1), None),
    "is_grad_enabled": (lambda L, x: L.is_grad_enabled(), None),
    "load": (lambda L, x: L.load(x.npy) if L is pytensor else L.from_numpy(np.load(x.npy)),
             lambda np_, x: np_.load(x.npy)),
    "provenance": (lambda L, x: L.provenance(x.a.T) if L is pytensor else NOT_IN_TORCH, None),
    "live_storages": (lambda L, x: L.live_storages() if L is pytensor else NOT_IN_TORCH, None),
    "get_printoptions": (lambda L, x: L.get_printoptions() if L is pytensor else NOT_IN_TORCH, None),
    "cat": (lambda L, x: L.cat([x.a, x.b]), lambda np_, x: np_.concatenate([x.a, x.b])),
    "concat": (lambda L, x: L.concat([x.a, x.b]), None),
    "concatenate": (lambda L, x: L.concatenate([x.a, x.b]), None),
    "stack": (lambda L, x: L.stack([x.a, x.b]), lambda np_, x: np_.stack([x.a, x.b])),
    "flip": (lambda L, x: L.flip(x.a, (0,)), lambda np_, x: np_.flip(x.a, 0).copy()),
    "roll": (lambda L, x: L.roll(x.a, 1, 0), lambda np_, x: np_.roll(x.a, 1, 0)),
    "where": (lambda L, x: L.where(x.m, x.a, x.b), lambda np_, x: np_.where(x.m, x.a, x.b)),
    "gather": (lambda L, x: L.gather(x.a, 0, x.gidx), None),
    "index_select": (lambda L, x: L.index_select(x.a, 0, x.idx), lambda np_, x: np_.take(x.a, x.idx, 0)),
    "masked_select": (lambda L, x: L.masked_select(x.a, x.m), lambda np_, x: x.a[x.m]),
    "nonzero": (lambda L, x: L.nonzero(x.m), lambda np_, x: np_.argwhere(x.m)),
    "take": (lambda L, x: L.take(x.a, x.idx), lambda np_, x: np_.take(x.a, x.idx)),
    "randint": (lambda L, x: L.randint(0, 100, (x.n,)), lambda np_, x: x.rng.integers(0, 100, x.n)),
    "randint_like": (lambda L, x: L.randint_like(x.a, 100), None),
    "randperm": (lambda L, x: L.randperm(x.n), lambda np_, x: x.rng.permutation(x.n)),
    "seed": (lambda L, x: L.seed(), None),
    "initial_seed": (lambda L, x: L.initial_seed(), None),
    "get_rng_state": (lambda L, x: L.get_rng_state(), None),
    "set_rng_state": (lambda L, x: L.set_rng_state(x.rng_state), None),
    # ---- Tensor methods (Tensor.<name>)
    "Tensor.add": (lambda L, x: x.a.add(x.b), None),
    "Tensor.sub": (lambda L, x: x.a.sub(x.b), None),
    "Tensor.mul": (lambda L, x: x.a.mul(x.b), None),
    "Tensor.div": (lambda L, x: x.a.div(x.b), None),
    "Tensor.multiply": (lambda L, x: x.a.multiply(x.b), None),
    "Tensor.divide": (lambda L, x: x.a.divide(x.b), None),
    "Tensor.true_divide": (lambda L, x: x.a.true_divide(x.b), None),
    "Tensor.add_": (lambda L, x: x.w.add_(x.b), lambda np_, x: np_.add(x.w, x.b, out=x.w)),
    "Tensor.sub_": (lambda L, x: x.w.sub_(x.b), None),
    "Tensor.mul_": (lambda L, x: x.w.mul_(1.0), None),
    "Tensor.div_": (lambda L, x: x.w.div_(1.0), None),
    "Tensor.eq": (lambda L, x: x.a.eq(x.b), None),
    "Tensor.ne": (lambda L, x: x.a.ne(x.b), None),
    "Tensor.lt": (lambda L, x: x.a.lt(x.b), None),
    "Tensor.le": (lambda L, x: x.a.le(x.b), None),
    "Tensor.gt": (lambda L, x: x.a.gt(x.b), None),
    "Tensor.ge": (lambda L, x: x.a.ge(x.b), None),
    "Tensor.neg": (lambda L, x: x.a.neg(), lambda np_, x: np_.negative(x.a)),
    "Tensor.sum": (lambda L, x: x.a.sum(), None),
    "Tensor.sum(0)": (lambda L, x: x.a.sum(0), lambda np_, x: x.a.sum(0)),
    "Tensor.sum(1)": (lambda L, x: x.a.sum(1), lambda np_, x: x.a.sum(1)),
    "Tensor.mean": (lambda L, x: x.a.mean(), None),
    "Tensor.all": (lambda L, x: x.m.all(), None),
    "Tensor.any": (lambda L, x: x.m.any(), None),
    "Tensor.equal": (lambda L, x: x.a.equal(x.c), None),
    "Tensor.__copy__": (lambda L, x: x.a.__copy__() if L is pytensor else NOT_IN_TORCH, None),
    "Tensor.__deepcopy__": (lambda L, x: x.a.__deepcopy__({}), None),
    "Tensor.adjoint": (lambda L, x: x.cx.adjoint(), None),
    "Tensor.conj": (lambda L, x: x.cx.conj(), None),
    "Tensor.conj_physical": (lambda L, x: x.cx.conj_physical(), None),
    "Tensor.resolve_conj": (lambda L, x: x.cx.conj().resolve_conj(), None),
    "Tensor.resolve_neg": (lambda L, x: x.a.resolve_neg(), None),
    "Tensor.is_conj": (lambda L, x: x.cx.is_conj(), None),
    "Tensor.is_neg": (lambda L, x: x.a.is_neg(), None),
    "Tensor.is_shared": (lambda L, x: x.a.is_shared(), None),
    "Tensor.share_memory_": (lambda L, x: x.shm.share_memory_(), None),
    "Tensor.flip": (lambda L, x: x.a.flip(0), None),
    "Tensor.roll": (lambda L, x: x.a.roll(1, 0), None),
    "Tensor.gather": (lambda L, x: x.a.gather(0, x.gidx), None),
    "Tensor.index_select": (lambda L, x: x.a.index_select(0, x.idx), None),
    "Tensor.masked_select": (lambda L, x: x.a.masked_select(x.m), None),
    "Tensor.nonzero": (lambda L, x: x.m.nonzero(), None),
    "Tensor.take": (lambda L, x: x.a.take(x.idx), None),
    "Tensor.where": (lambda L, x: x.a.where(x.m, x.b), None),
    "Tensor.index_put": (lambda L, x: x.a.index_put((x.idx,), x.row), None),
    "Tensor.index_put_": (lambda L, x: x.w.index_put_((x.idx,), x.row), None),
    "Tensor.uniform_": (lambda L, x: x.w.uniform_(), None),
    "Tensor.normal_": (lambda L, x: x.w.normal_(), None),
    "Tensor.clone": (lambda L, x: x.a.clone(), lambda np_, x: x.a.copy()),
    "Tensor.clone of a.T": (lambda L, x: x.a.T.clone(), lambda np_, x: x.a.T.copy(order="K")),
    "Tensor.contiguous": (lambda L, x: x.a.contiguous(), lambda np_, x: np_.ascontiguousarray(x.a)),
    "Tensor.contiguous of a.T": (lambda L, x: x.a.T.contiguous(), lambda np_, x: np_.ascontiguousarray(x.a.T)),
    "Tensor.copy_": (lambda L, x: x.w.copy_(x.b), lambda np_, x: np_.copyto(x.w, x.b)),
    "Tensor.copy_ (broadcast row)": (lambda L, x: x.w.copy_(x.row), lambda np_, x: np_.copyto(x.w, x.row)),
    "Tensor.fill_": (lambda L, x: x.w.fill_(1.0), lambda np_, x: x.w.fill(1.0)),
    "Tensor.zero_": (lambda L, x: x.w.zero_(), None),
    "Tensor.to": (lambda L, x: x.a.to(L.float64), lambda np_, x: x.a.astype(np_.float64)),
    "Tensor.type": (lambda L, x: x.a.type(L.float64), None),
    "Tensor.float": (lambda L, x: x.i.float(), lambda np_, x: x.i.astype(np_.float32)),
    "Tensor.double": (lambda L, x: x.a.double(), None),
    "Tensor.half": (lambda L, x: x.a.half(), lambda np_, x: x.a.astype(np_.float16)),
    "Tensor.bfloat16": (lambda L, x: x.a.bfloat16(), None),
    "Tensor.int": (lambda L, x: x.a.int(), lambda np_, x: x.a.astype(np_.int32)),
    "Tensor.long": (lambda L, x: x.a.long(), None),
    "Tensor.short": (lambda L, x: x.a.short(), None),
    "Tensor.char": (lambda L, x: x.a.char(), None),
    "Tensor.byte": (lambda L, x: x.a.byte(), None),
    "Tensor.bool": (lambda L, x: x.a.bool(), None),
    "Tensor.cfloat": (lambda L, x: x.a.cfloat(), None),
    "Tensor.cdouble": (lambda L, x: x.a.cdouble(), None),
    "Tensor.cpu": (lambda L, x: x.a.cpu(), None),
    "Tensor.new_tensor": (lambda L, x: x.a.new_tensor(x.lst), None),
    "Tensor.numpy": (lambda L, x: x.a.numpy(), None),
    "Tensor.tolist": (lambda L, x: x.a.tolist(), lambda np_, x: x.a.tolist()),
    "Tensor.item": (lambda L, x: x.s.item(), lambda np_, x: x.s.item()),
    "Tensor.as_strided": (lambda L, x: x.a.as_strided((x.C, x.R), (1, x.C)), None),
    "Tensor.chunk": (lambda L, x: x.a.chunk(2), None),
    "Tensor.split": (lambda L, x: x.a.split(x.R // 2), None),
    "Tensor.unbind": (lambda L, x: x.a.unbind(0), None),
    "Tensor.diagonal": (lambda L, x: x.a.diagonal(), lambda np_, x: x.a.diagonal()),
    "Tensor.expand": (lambda L, x: x.row.expand(x.R, x.C), None),
    "Tensor.expand_as": (lambda L, x: x.row.expand_as(x.a), None),
    "Tensor.flatten": (lambda L, x: x.a.flatten(), None),
    "Tensor.flatten of a.T": (lambda L, x: x.a.T.flatten(), lambda np_, x: x.a.T.flatten()),
    "Tensor.movedim": (lambda L, x: x.a.movedim(0, 1), None),
    "Tensor.narrow": (lambda L, x: x.a.narrow(0, 0, x.R // 2), None),
    "Tensor.permute": (lambda L, x: x.a.permute(1, 0), lambda np_, x: x.a.transpose(1, 0)),
    "Tensor.reshape": (lambda L, x: x.a.reshape(-1), lambda np_, x: x.a.reshape(-1)),
    "Tensor.reshape_as": (lambda L, x: x.a.reshape_as(x.b), None),
    "Tensor.view": (lambda L, x: x.a.view(-1), None),
    "Tensor.view_as": (lambda L, x: x.a.view_as(x.b), None),
    "Tensor.select": (lambda L, x: x.a.select(0, 1), None),
    "Tensor.squeeze": (lambda L, x: x.row.squeeze(), None),
    "Tensor.unsqueeze": (lambda L, x: x.a.unsqueeze(0), None),
    "Tensor.swapaxes": (lambda L, x: x.a.swapaxes(0, 1), None),
    "Tensor.swapdims": (lambda L, x: x.a.swapdims(0, 1), None),
    "Tensor.transpose": (lambda L, x: x.a.transpose(0, 1), None),
    "Tensor.t": (lambda L, x: x.a.t(), None),
    "Tensor.unflatten": (lambda L, x: x.a.unflatten(1, (2, x.C // 2)), None),
    "Tensor.unfold": (lambda L, x: x.a.unfold(1, 2, 2), None),
    "Tensor.resize_": (lambda L, x: x.w.resize_(x.R, x.C), None),
    "Tensor.resize_as_": (lambda L, x: x.w.resize_as_(x.b), None),
    "Tensor.detach": (lambda L, x: x.a.detach(), None),
    "Tensor.detach_": (lambda L, x: x.w.detach_(), None),
    "Tensor.requires_grad_": (lambda L, x: x.w.requires_grad_(False), None),
    "Tensor.backward": (lambda L, x: (x.g * 2).sum().backward(), None),
    "Tensor.storage": (lambda L, x: x.a.storage(), None),
    "Tensor.untyped_storage": (lambda L, x: x.a.untyped_storage(), None),
    "Tensor.storage_offset": (lambda L, x: x.a.storage_offset(), None),
    "Tensor.stride": (lambda L, x: x.a.stride(), None),
    "Tensor.size": (lambda L, x: x.a.size(), None),
    "Tensor.dim": (lambda L, x: x.a.dim(), None),
    "Tensor.ndimension": (lambda L, x: x.a.ndimension(), None),
    "Tensor.numel": (lambda L, x: x.a.numel(), None),
    "Tensor.nelement": (lambda L, x: x.a.nelement(), None),
    "Tensor.element_size": (lambda L, x: x.a.element_size(), None),
    "Tensor.data_ptr": (lambda L, x: x.a.data_ptr(), None),
    "Tensor.is_contiguous": (lambda L, x: x.a.is_contiguous(), None),
    "Tensor.is_complex": (lambda L, x: x.a.is_complex(), None),
    "Tensor.is_floating_point": (lambda L, x: x.a.is_floating_point(), None),
    "Tensor.is_readonly": (lambda L, x: x.a.is_readonly() if L is pytensor else NOT_IN_TORCH, None),
    "Tensor.describe": (lambda L, x: x.a.describe() if L is pytensor else NOT_IN_TORCH, None),
    # ---- operators
    "Tensor.__add__": (lambda L, x: x.a + x.b, lambda np_, x: x.a + x.b),
    "Tensor.__add__ (a.T + b.T)": (lambda L, x: x.a.T + x.b.T, lambda np_, x: x.a.T + x.b.T),
    "Tensor.__sub__": (lambda L, x: x.a - x.b, None),
    "Tensor.__mul__": (lambda L, x: x.a * 2.0, lambda np_, x: x.a * np_.float32(2.0)),
    "Tensor.__truediv__": (lambda L, x: x.a / x.b, None),
    "Tensor.__radd__": (lambda L, x: 2.0 + x.a, None),
    "Tensor.__rsub__": (lambda L, x: 2.0 - x.a, None),
    "Tensor.__rmul__": (lambda L, x: 2.0 * x.a, None),
    "Tensor.__rtruediv__": (lambda L, x: 2.0 / x.b, None),
    "Tensor.__neg__": (lambda L, x: -x.a, lambda np_, x: -x.a),
    "Tensor.__pos__": (lambda L, x: +x.a, None),
    "Tensor.__iadd__": (lambda L, x: x.w.__iadd__(x.b), None),
    "Tensor.__isub__": (lambda L, x: x.w.__isub__(x.b), None),
    "Tensor.__imul__": (lambda L, x: x.w.__imul__(1.0), None),
    "Tensor.__itruediv__": (lambda L, x: x.w.__itruediv__(1.0), None),
    "Tensor.__getitem__ [i]": (lambda L, x: x.a[1], lambda np_, x: x.a[1]),
    "Tensor.__getitem__ [:, a:b]": (lambda L, x: x.a[:, 1:-1], lambda np_, x: x.a[:, 1:-1]),
    "Tensor.__getitem__ [mask]": (lambda L, x: x.a[x.m], lambda np_, x: x.a[x.m]),
    "Tensor.__getitem__ [idx]": (lambda L, x: x.a[x.idx], lambda np_, x: x.a[x.idx]),
    "Tensor.__setitem__ [i] = v": (lambda L, x: x.w.__setitem__(1, 0.0), None),
    "Tensor.__setitem__ [mask] = 0": (lambda L, x: x.w.__setitem__(x.m, 0.0), lambda np_, x: x.w.__setitem__(x.m, 0)),
    "Tensor.__setitem__ [idx] = row": (lambda L, x: x.w.__setitem__(x.idx, x.row), None),
    "Tensor.__bool__": (lambda L, x: bool(x.s), None),
    "Tensor.__float__": (lambda L, x: float(x.s), None),
    "Tensor.__int__": (lambda L, x: int(x.s), None),
    "Tensor.__complex__": (lambda L, x: complex(x.s), None),
    "Tensor.__index__": (lambda L, x: x.si.__index__(), None),
    "Tensor.__len__": (lambda L, x: len(x.a), None),
    "Tensor.__iter__": (lambda L, x: list(x.a), lambda np_, x: list(x.a)),
    "Tensor.__array__": (lambda L, x: np.asarray(x.a), None),
    "Tensor.__dlpack__": (lambda L, x: x.a.__dlpack__(), lambda np_, x: x.a.__dlpack__()),
    "Tensor.__dlpack_device__": (lambda L, x: x.a.__dlpack_device__(), None),
}

EXCLUDED = {
    "set_default_device": "sets process state; the timed paths run under the default (cpu)",
    "set_printoptions": "sets process state for printing; printing is not timed here",
    "set_provenance_enabled": "sets process state; timing with recording off would measure another product",
}


def public_callables():
    """Every public callable: pytensor's functions (not classes) and Tensor's
    methods and operator dunders, as inventory names."""
    names = set()
    for n in dir(pytensor):
        obj = getattr(pytensor, n)
        if n.startswith("_") or inspect.ismodule(obj) or isinstance(obj, type) or not callable(obj):
            continue
        names.add(n)
    base = set(dir(object))
    for n in dir(pytensor.Tensor):
        obj = getattr(pytensor.Tensor, n, None)
        if not callable(obj) or (n.startswith("_") and not (n.startswith("__") and n not in base)):
            continue
        if n in ("__module__", "__slots__", "__dlpack_c_exchange_api__", "__class_getitem__"):
            continue
        names.add(f"Tensor.{n}")
    return names


def unaccounted():
    """Public callables with neither a recipe (a recipe name may add ' (variant)'
    or ' [case]') nor an exclusion."""
    covered = {re.split(r" [(\[]", k)[0] for k in RECIPES} | set(EXCLUDED)
    return sorted(public_callables() - covered)


# ------------------------------------------------------------------ inputs
class Inputs:
    """One library's inputs at n elements: a, b, c (== a), d (a with its first
    element changed), w (a scratch to write into), row (1 x C), m (a > 0),
    idx (R/2 row indices), s (0-d float), si (0-d int64), i (int32 like a),
    g (requires grad), gidx (zeros like a, int64), cx (complex64 ones), shm (to share),
    rng_state, lst (n Python floats), np_a / buf / path / npy (shared
    sources for the constructors)."""

    def __init__(self, lib, n, shared):
        R, C = SIZES[n]
        self.n, self.R, self.C, self.k = n, R, C, int(round(n ** 0.5))
        self.lst, self.np_a, self.buf, self.path, self.npy = (shared[k] for k in ("lst", "np_a", "buf", "path", "npy"))
        self.rng = np.random.default_rng(0)
        src = shared["np_a"].reshape(R, C)
        own = {"a": src, "b": shared["np_b"].reshape(R, C)}
        if lib is np:
            conv = np.array
            self.a, self.b = conv(own["a"]), conv(own["b"])
        else:
            conv = lambda arr: lib.from_numpy(np.ascontiguousarray(arr)).clone()  # noqa: E731  own memory
            self.a, self.b = conv(own["a"]), conv(own["b"])
        self.c = self.a.copy() if lib is np else self.a.clone()
        self.d = self.a.copy() if lib is np else self.a.clone()
        self.d[0, 0] = 99.0
        self.w = self.a.copy() if lib is np else self.a.clone()
        self.row = self.a[:1].copy() if lib is np else self.a[:1].clone()
        self.m = self.a > 0
        idx = np.arange(0, R, 2, dtype=np.int64)
        self.idx = idx if lib is np else lib.from_numpy(idx).clone()
        self.s = np.float32(1.5) if lib is np else lib.tensor(1.5)
        self.si = None if lib is np else lib.tensor(3)
        self.i = self.a.astype(np.int32) if lib is np else self.a.int()
        self.g = None if lib is np else lib.ones(R, C, requires_grad=True)
        self.gidx = None if lib is np else lib.from_numpy(np.zeros((R, C), dtype=np.int64)).clone()
        self.cx = None if lib is np else lib.ones(R, C, dtype=lib.complex64)
        self.shm = None if lib is np else lib.zeros(2)
        self.rng_state = None if lib is np else lib.get_rng_state()


def shared_sources(n, tmp):
    rng = np.random.default_rng(1)
    np_a = rng.standard_normal(n, dtype=np.float32)
    np_b = (rng.random(n, dtype=np.float32) + 1.0)
    path = os.path.join(tmp, f"a{n}.bin")
    np_a.tofile(path)
    npy = os.path.join(tmp, f"a{n}.npy")
    np.save(npy, np_a)
    return {"np_a": np_a, "np_b": np_b, "lst": np_a.tolist(), "buf": bytearray(np_a.tobytes()), "path": path,
            "npy": npy}


# ------------------------------------------------------------------ timing
def _batch_time(fn, reps):
    t0 = time.perf_counter()
    for _ in range(reps):
        fn()
    return (time.perf_counter() - t0) / reps


def time_path(calls):
    """calls: {library name: zero-argument callable}. Returns {library: seconds per call} (minimum over rounds)."""
    reps = {}
    for lib, fn in calls.items():
        fn()                                        # warm-up
        one = _batch_time(fn, 1)
        reps[lib] = max(1, min(100000, int(0.003 / max(one, 1e-9))))
    best = {lib: float("inf") for lib in calls}
    order = list(calls)
    slowest = max(_batch_time(fn, 1) if reps[lib] == 1 else 0.0 for lib, fn in calls.items())
    for r in range(ROUNDS if slowest < 1.0 else 1):  # a call over a second is timed in one round
        for lib in order[r % len(order):] + order[:r % len(order)]:
            gc.disable()
            try:
                best[lib] = min(best[lib], _batch_time(calls[lib], reps[lib]))
            finally:
                gc.enable()
    return best


def run(sizes, only):
    libs = {"pytensor": pytensor, "torch": torch, "numpy": np}
    rows = []
    with tempfile.TemporaryDirectory() as tmp, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for n in sizes:
            shared = shared_sources(n, tmp)
            inputs = {name: Inputs(lib, n, shared) for name, lib in libs.items() if lib is not None}
            gc.freeze()
            for path, (recipe, np_recipe) in RECIPES.items():
                if only and not re.search(only, path):
                    continue
                calls = {"pytensor": (lambda r=recipe, x=inputs["pytensor"]: r(pytensor, x))}
                if torch is not None and recipe(torch, inputs["torch"]) is not NOT_IN_TORCH:
                    calls["torch"] = lambda r=recipe, x=inputs["torch"]: r(torch, x)
                if np_recipe is not None:
                    calls["numpy"] = lambda r=np_recipe, x=inputs["numpy"]: r(np, x)
                try:
                    rows.append((path, n, time_path(calls), None))
                except Exception as e:  # noqa: BLE001  a path that fails is reported, not hidden
                    rows.append((path, n, {}, f"{type(e).__name__}: {e}"[:120]))
                print(_line(rows[-1]), flush=True)
            gc.unfreeze()
    return rows


def _fmt(s):
    if s is None:
        return "-"
    for unit, scale in (("s", 1), ("ms", 1e-3), ("µs", 1e-6)):
        if s >= scale:
            return f"{s / scale:.3g} {unit}"
    return f"{s * 1e9:.3g} ns"


def _ratio(t, lib):
    return f"{t['pytensor'] / t[lib]:.2f}" if lib in t and "pytensor" in t and t[lib] > 0 else "-"


def _line(row):
    path, n, t, err = row
    if err:
        return f"| `{path}` | {n:.0e} | error: {err} | | | | |"
    return (f"| `{path}` | {n:.0e} | {_fmt(t.get('pytensor'))} | {_fmt(t.get('torch'))} | {_ratio(t, 'torch')} | "
            f"{_fmt(t.get('numpy'))} | {_ratio(t, 'numpy')} |")


# ------------------------------------------------------------------ memory (item 5)
MEMORY_PATHS = {
    "rand(10^7)": "L.rand(N)",
    "randn(10^7)": "L.randn(N)",
    "arange(10^7)": "L.arange(N)",
    "tensor(list of 10^7 floats)": "L.tensor(lst)",
    "x[x > 0] (10^7)": "x[x > 0]",
}
_MEMORY_CHILD = """
import sys
import numpy as np
lib = sys.argv[1]
import pytensor
L = pytensor if lib == "pytensor" else __import__(lib)
L.set_num_threads(1)
N = 10**7
lst = np.random.default_rng(0).standard_normal(N).tolist() if {need_list} else None
x = L.from_numpy(np.random.default_rng(0).standard_normal(N).astype(np.float32)).clone() if {need_x} else None

def status_kib(key):
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(key))

with open("/proc/self/clear_refs", "w") as f:
    f.write("5")  # resets the peak (VmHWM) to the current RSS: earlier transients do not count
base = status_kib("VmRSS:")
out = {expr}
peak = status_kib("VmHWM:")
print(base, peak, out.numel() * out.element_size())
"""


def memory():
    rows = []
    for name, expr in MEMORY_PATHS.items():
        code = _MEMORY_CHILD.format(expr=expr, need_list="lst" in expr, need_x="x[" in expr)
        res = {}
        for lib in ("pytensor", "torch"):
            p = subprocess.run([sys.executable, "-c", code, lib], capture_output=True, text=True, timeout=600)
            if p.returncode != 0:
                res[lib] = None
                print(f"{name} {lib}: failed: {p.stderr.strip()[-200:]}", file=sys.stderr)
                continue
            base, peak, result_nbytes = map(int, p.stdout.split())
            res[lib] = ((peak - base) * 1024, result_nbytes)
        rows.append((name, res))
    print("| path (10^7) | pytensor peak RSS growth | torch peak RSS growth | result bytes | pt - torch |")
    print("|---|---:|---:|---:|---:|")
    for name, res in rows:
        pt, th = res.get("pytensor"), res.get("torch")
        mib = lambda b: f"{b / 2**20:.1f} MiB"  # noqa: E731
        diff = mib(pt[0] - th[0]) if pt and th else "-"
        print(f"| `{name}` | {mib(pt[0]) if pt else 'failed'} | {mib(th[0]) if th else 'failed'} | "
              f"{mib(pt[1]) if pt else '-'} | {diff} |")
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="check the inventory only")
    ap.add_argument("--memory", action="store_true", help="peak RSS at 10^7 (fresh processes)")
    ap.add_argument("--sizes", type=int, nargs="*", default=list(SIZES))
    ap.add_argument("--only", default=None, help="a regular expression over path names")
    args = ap.parse_args()
    missing = unaccounted()
    if missing:
        sys.exit("public callables neither timed nor excluded (add a recipe or an EXCLUDED reason): "
                 + ", ".join(missing))
    stale = sorted(k for k in EXCLUDED if k not in public_callables())
    if stale:
        sys.exit(f"EXCLUDED names no public callable: {', '.join(stale)}")
    print(f"{len(public_callables())} public callables; {len(RECIPES)} timed paths; {len(EXCLUDED)} excluded")
    if args.check:
        return
    if args.memory:
        memory()
        return
    pytensor.set_num_threads(1)
    if torch is not None:
        torch.set_num_threads(1)
    print(f"CPU: {cpu_model()}; Python {platform.python_version()}; numpy {np.__version__}; "
          f"torch {torch.__version__ if torch else '-'}; 1 thread each")
    print("| path | n | pytensor | torch | pt/torch | numpy | pt/numpy |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    rows = run(args.sizes, args.only)
    if len(args.sizes) > 1:
        growth(rows)


def growth(rows, factor=1.5):
    """Prints the paths whose cost grows faster than it should between two
    sizes (issue 27 item 4: "nothing whose cost grows faster than its output"):
    pytensor's time grows more than ``factor`` times torch's growth, or more
    than ``factor`` times the element count's when torch has no such path,
    and pytensor is not ahead of torch at the larger size (a path with less
    fixed cost per call grows more in ratio and is not what this looks for).
    A kernel falling out of cache grows faster than n in both libraries; that
    is why torch's growth is the yardstick where there is one."""
    times = {}
    for path, n, t, err in rows:
        if not err and "pytensor" in t:
            times.setdefault(path, {})[n] = t
    flagged = []
    for path, by_n in times.items():
        ns = sorted(by_n)
        for small, big in zip(ns, ns[1:]):
            pt = by_n[big]["pytensor"] / by_n[small]["pytensor"]
            has_torch = "torch" in by_n[big] and "torch" in by_n[small]
            bound = by_n[big]["torch"] / by_n[small]["torch"] if has_torch else big / small
            ahead = by_n[big]["pytensor"] <= by_n[big].get("torch", float("inf"))
            if pt > factor * bound and not ahead:
                flagged.append((path, small, big, pt, bound, "torch" if has_torch else "n"))
    print(f"\nPaths behind torch whose cost grows over {factor}x faster than torch's (or than n where torch has none): "
          f"{len(flagged)}")
    for path, small, big, pt, bound, against in flagged:
        print(f"- `{path}` {small:.0e} -> {big:.0e}: pytensor x{pt:.3g}, {against} x{bound:.3g}")


if __name__ == "__main__":
    main()
