"""unbind(), split(), chunk() and iteration make all their views in one C call (the shim's
select_views and narrow_views). Each view is the one select()/narrow() makes (shape, strides,
offset, storage, conjugate bits, provenance step) and torch's; the refusals stay the Python
path's; a tensor that requires grad is iterated through select(), recorded as before."""
import itertools

import numpy as np
import pytest

import pytensor
from pytensor import _provenance
from support import require_module

SHAPES = [(5,), (4, 3), (3, 0), (0, 2), (2, 3, 4), (1, 1)]


def _layouts(shape):
    n = int(np.prod(shape))
    base = pytensor.arange(n + 2, dtype=pytensor.float32)[2:].view(shape)  # an offset
    yield base
    if len(shape) > 1:
        yield base.transpose(0, -1)
    yield pytensor.from_numpy((np.arange(n).reshape(shape) * (1 + 1j)).astype(np.complex64)).conj()


def _facts(v):
    return (tuple(v.shape), v.stride(), v.storage_offset(), v.dtype, v._bits, v.tolist(),
            _provenance.provenance(v)[0])


def _torch_like(torch, t):
    flat = torch.arange(t.untyped_storage().nbytes() // t.element_size(), dtype=torch.float32)
    return torch.as_strided(flat, tuple(t.shape), t.stride(), t.storage_offset())


def _same_layouts(torch, got, t, want_fn):
    want = want_fn(_torch_like(torch, t))
    assert [(tuple(g.shape), g.stride(), g.storage_offset()) for g in got] == \
        [(tuple(w.shape), w.stride(), w.storage_offset()) for w in want]


def test_unbind_and_iteration_are_the_selects_and_torchs():
    torch = require_module("torch")
    cases = 0
    for shape in SHAPES:
        for t in _layouts(shape):
            for dim in range(-len(shape), len(shape)):
                got = t.unbind(dim)
                assert [_facts(v) for v in got] == [_facts(t.select(dim, i)) for i in range(t.shape[dim])]
                assert all(v.untyped_storage() is t.untyped_storage() for v in got)
                if not t.dtype.is_complex:
                    _same_layouts(torch, got, t, lambda tt: tt.unbind(dim))
                cases += 1
            assert [_facts(v) for v in t] == [_facts(t.select(0, i)) for i in range(t.shape[0])]
    assert cases > 30, cases


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_split_and_chunk_are_the_narrows_and_torchs(shape):
    torch = require_module("torch")
    cases = 0
    for t in _layouts(shape):
        for dim in range(-len(shape), len(shape)):
            d = dim % len(shape)
            size = t.shape[d]
            sizes_lists = [list(c) for r in range(1, 4) for c in itertools.product(range(size + 1), repeat=r)
                           if sum(c) == size][:12]
            for arg in [1, 2, 3, 7] + ([0] if size == 0 else []) + sizes_lists:
                got = t.split(arg, dim)
                lengths = arg if isinstance(arg, list) else \
                    [min(arg, size - b) for b in range(0, size, arg)] if arg and size else [0]
                starts = itertools.accumulate([0] + lengths[:-1])
                assert [_facts(v) for v in got] == [_facts(t.narrow(d, b, n)) for b, n in zip(starts, lengths)]
                if not t.dtype.is_complex:
                    _same_layouts(torch, got, t, lambda tt: tt.split(arg, dim))
                cases += 1
            for chunks in (1, 2, 3, 5):
                got = t.chunk(chunks, dim)
                want = t.split(-(-size // chunks), dim) if size else t.split([0] * chunks, dim)
                assert [_facts(v) for v in got] == [_facts(v) for v in want]
                if not t.dtype.is_complex:
                    _same_layouts(torch, got, t, lambda tt: tt.chunk(chunks, dim))
                cases += 1
    assert cases >= 8 * len(shape), cases


def test_refusals_are_torchs():
    torch = require_module("torch")
    for m in (pytensor, torch):
        t = m.zeros(4, 3)
        for fn, exc in [(lambda: t.split(0), RuntimeError), (lambda: t.split(-1), RuntimeError),
                        (lambda: t.split([1, 2]), RuntimeError), (lambda: t.split([5, -1]), RuntimeError),
                        (lambda: t.chunk(0), RuntimeError), (lambda: t.unbind(2), IndexError),
                        (lambda: t.split(2, 2), IndexError), (lambda: m.tensor(1.0).unbind(), IndexError),
                        (lambda: m.tensor(1.0).split(1), RuntimeError), (lambda: iter(m.tensor(1.0)), TypeError)]:
            with pytest.raises(exc):
                fn()


def test_views_of_a_graph_are_recorded():
    x = pytensor.arange(6.0).view(2, 3).requires_grad_()
    assert [v.grad_fn.name() for v in x.unbind(1)] == ["UnbindBackward0"] * 3
    assert [v.grad_fn.name() for v in x.chunk(2, 1)] == ["SplitBackward0"] * 2
    assert [v.grad_fn.name() for v in x] == ["SelectBackward0"] * 2  # iteration selects row by row
    (x.unbind(1)[2].sum() + x.chunk(2, 1)[0].sum()).backward()
    assert x.grad.tolist() == [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]
