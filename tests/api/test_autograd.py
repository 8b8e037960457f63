"""Autograd against torch: the same expressions give the same values, node names and gradients."""
import gc
import threading
import weakref

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import pytensor
from support import require_module


def both(torch, values, dtype="float64", requires_grad=True):
    t = torch.tensor(values, dtype=getattr(torch, dtype), requires_grad=requires_grad)
    p = pytensor.tensor(values, dtype=getattr(pytensor, dtype), requires_grad=requires_grad)
    return t, p


def close(a, b, tol=1e-9):
    a, b = a.tolist(), b.tolist()
    if not isinstance(a, list):
        a, b = [a], [b]
    flat_a, flat_b = _flatten(a), _flatten(b)
    return len(flat_a) == len(flat_b) and all(abs(x - y) <= tol * (1 + abs(x)) for x, y in zip(flat_a, flat_b))


def _flatten(v):
    return [y for x in v for y in _flatten(x)] if isinstance(v, list) else [v]


# Expressions over x (2x3) and y (3,), written once and run on both libraries.
EXPRESSIONS = {
    "x+y": lambda m, x, y: x + y, "x+2": lambda m, x, y: x + 2, "2+x": lambda m, x, y: 2 + x,
    "add alpha": lambda m, x, y: x.add(y, alpha=2), "x-y": lambda m, x, y: x - y,
    "x-2": lambda m, x, y: x - 2, "2-x": lambda m, x, y: 2 - x, "sub alpha": lambda m, x, y: x.sub(y, alpha=3),
    "x*y": lambda m, x, y: x * y, "2*x": lambda m, x, y: 2 * x, "x/y": lambda m, x, y: x / y,
    "x/2": lambda m, x, y: x / 2, "2/x": lambda m, x, y: 2 / x, "-x": lambda m, x, y: -x,
    "sum": lambda m, x, y: x.sum(), "sum0": lambda m, x, y: x.sum(0), "sum keepdim": lambda m, x, y: x.sum(1, True),
    "sum dims": lambda m, x, y: x.sum((0, 1)), "mean": lambda m, x, y: x.mean(), "mean1": lambda m, x, y: x.mean(1),
    "view": lambda m, x, y: x.view(6), "reshape": lambda m, x, y: x.reshape(6),
    "reshape copy": lambda m, x, y: x.t().reshape(6), "transpose": lambda m, x, y: x.transpose(0, 1),
    "t": lambda m, x, y: x.t(), "T": lambda m, x, y: x.T, "mT": lambda m, x, y: x.mT,
    "permute": lambda m, x, y: x.permute(1, 0), "movedim": lambda m, x, y: x.movedim(0, 1),
    "squeeze": lambda m, x, y: x[None].squeeze(), "squeeze0": lambda m, x, y: x[None].squeeze(0),
    "unsqueeze": lambda m, x, y: x.unsqueeze(1), "expand": lambda m, x, y: y.expand(4, 3),
    "expand_as": lambda m, x, y: y.expand_as(x), "flatten": lambda m, x, y: x.flatten(),
    "flatten copy": lambda m, x, y: x.t().flatten(), "unflatten": lambda m, x, y: x.unflatten(1, (3, 1)),
    "narrow": lambda m, x, y: x.narrow(1, 1, 2), "select": lambda m, x, y: x.select(0, 1),
    "unfold": lambda m, x, y: y.unfold(0, 2, 1), "as_strided": lambda m, x, y: x.as_strided((2, 2), (1, 1)),
    "diagonal": lambda m, x, y: x.diagonal(), "split": lambda m, x, y: x.split(2, 1)[1],
    "chunk": lambda m, x, y: x.chunk(2)[1], "unbind": lambda m, x, y: x.unbind(1)[2],
    "x[0]": lambda m, x, y: x[0], "x[:, 1:]": lambda m, x, y: x[:, 1:], "x[0, 1:]": lambda m, x, y: x[0, 1:],
    "x[1:, 0]": lambda m, x, y: x[1:, 0], "x[None]": lambda m, x, y: x[None], "x[...]": lambda m, x, y: x[...],
    "x[::2]": lambda m, x, y: x[:, ::2], "x[[0, 1, 1]]": lambda m, x, y: x[[0, 1, 1]],
    "x[mask]": lambda m, x, y: x[x > 2], "clone": lambda m, x, y: x.clone(),
    "contiguous": lambda m, x, y: x.t().contiguous(), "float": lambda m, x, y: x.float(),
    "to half": lambda m, x, y: x.to(m.float16), "view_as": lambda m, x, y: x.view_as(x),
    "chain": lambda m, x, y: ((x * y - y / (x + 3)) * x.T.T).mean(0) * 2,
    "shared input": lambda m, x, y: x * x + x,
}


@pytest.mark.parametrize("name", list(EXPRESSIONS))
def test_node_names_values_and_gradients_match_torch(name):
    torch = require_module("torch")
    expr = EXPRESSIONS[name]
    tx, px = both(torch, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    ty, py = both(torch, [0.5, -1.5, 2.5])
    want, got = expr(torch, tx, ty), expr(pytensor, px, py)
    assert got.grad_fn.name() == want.grad_fn.name()
    assert got.requires_grad and not got.is_leaf
    assert tuple(got.shape) == tuple(want.shape)
    assert close(want.detach(), got.detach(), 1e-3 if want.dtype == torch.float16 else 1e-9)
    seed = [float(i % 5) - 1.5 for i in range(want.numel())]
    tg = torch.tensor(seed, dtype=want.dtype).reshape(want.shape)
    pg = pytensor.tensor(seed, dtype=got.dtype).reshape(got.shape)
    want.backward(tg)
    got.backward(pg)
    for t, p in ((tx, px), (ty, py)):
        if t.grad is None:
            assert p.grad is None
        else:
            assert p.grad is not None and p.grad.dtype is pytensor.float64
            assert close(t.grad, p.grad), (t.grad, p.grad)


def test_repr_shows_grad_fn_and_requires_grad():
    x = pytensor.tensor([1.0, 2.0], requires_grad=True)
    assert repr(x) == "tensor([1., 2.], requires_grad=True)"
    assert repr(x + 1) == "tensor([2., 3.], grad_fn=<AddBackward0>)"
    assert repr(x.detach()) == "tensor([1., 2.])"


def test_next_functions_lead_to_the_leaves():
    x = pytensor.tensor([1.0], requires_grad=True)
    y = (x * 2).sum()
    (mul, _), = y.grad_fn.next_functions
    assert mul.name() == "MulBackward0"
    acc, none = mul.next_functions
    assert acc[0].variable is x and none[0] is None


def test_gradients_accumulate_into_the_same_grad_tensor():
    x = pytensor.tensor([1.0, 2.0], requires_grad=True)
    (x * 3).sum().backward()
    first = x.grad
    (x * x).sum().backward()
    assert x.grad is first
    assert x.grad.tolist() == [5.0, 7.0]
    x.grad = None
    x.sum().backward()
    assert x.grad.tolist() == [1.0, 1.0]


def test_non_scalar_backward_needs_gradient_and_shapes_must_match(torch):
    for m in (torch, pytensor):
        x = m.ones(3, requires_grad=True)
        with pytest.raises(RuntimeError, match="implicitly created only for scalar"):
            (x * 2).backward()
        with pytest.raises(RuntimeError, match="Mismatch in shape"):
            (x * 2).backward(m.ones(2))
        with pytest.raises(RuntimeError, match="does not require grad"):
            m.ones(1).backward()


def test_second_backward_through_freed_saved_tensors_raises_as_torch(torch):
    for m in (torch, pytensor):
        x = m.ones(2, requires_grad=True)
        y = (x * x).sum()
        y.backward(retain_graph=True)
        y.backward()
        assert x.grad.tolist() == [4.0, 4.0]
        with pytest.raises(RuntimeError, match="backward through the graph a second time"):
            y.backward()
        z = (x + 1).sum()  # nothing saved: a second pass is allowed in torch too
        z.backward()
        z.backward()


def test_in_place_on_a_leaf_that_requires_grad_raises(torch):
    for m in (torch, pytensor):
        x = m.ones(2, requires_grad=True)
        for write in (lambda: x.add_(1), lambda: x.__setitem__(0, 5.0), lambda: x.fill_(0), lambda: x.zero_(),
                      lambda: x.copy_(m.zeros(2)), lambda: x.mul_(2)):
            with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
                write()
        with m.no_grad():
            x.add_(1)  # optimiser-style updates are allowed without recording
        assert x.tolist() == [2.0, 2.0]


def test_writing_a_saved_tensor_makes_backward_refuse(torch):
    for m in (torch, pytensor):
        x = m.ones(2, requires_grad=True)
        w = m.tensor([2.0, 3.0])
        y = (x * w).sum()
        w[0] = 7.0
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.backward()
        x2 = m.ones(2, requires_grad=True)
        y2 = (x2 * x2).sum()
        with m.no_grad():
            x2.mul_(2)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y2.backward()


def test_no_grad_enable_grad_set_grad_enabled():
    x = pytensor.ones(2, requires_grad=True)
    with pytensor.no_grad():
        assert not (x * 2).requires_grad
        assert not pytensor.is_grad_enabled()
        with pytensor.enable_grad():
            assert (x * 2).requires_grad
    assert pytensor.is_grad_enabled()

    @pytensor.no_grad()
    def f():
        return x * 2
    assert not f().requires_grad
    pytensor.set_grad_enabled(False)
    try:
        assert not (x + 1).requires_grad
    finally:
        pytensor.set_grad_enabled(True)
    with pytensor.set_grad_enabled(False):
        assert not (x + 1).requires_grad
    assert (x + 1).requires_grad


def test_grad_mode_is_per_thread():
    seen = []
    with pytensor.no_grad():
        t = threading.Thread(target=lambda: seen.append(pytensor.is_grad_enabled()))
        t.start()
        t.join()
    assert seen == [True]


def test_requires_grad_flags_as_torch(torch):
    for m in (torch, pytensor):
        with pytest.raises(RuntimeError, match="floating point .*can require gradients"):
            m.ones(2, dtype=m.int64).requires_grad_()
        x = m.ones(2, requires_grad=True)
        y = x * 2
        with pytest.raises(RuntimeError, match="only change requires_grad flags of leaf"):
            y.requires_grad = False
        assert not (x > 0).requires_grad
        assert not x.long().requires_grad
        d = y.detach()
        assert not d.requires_grad and d.is_leaf and d.data_ptr() == y.data_ptr()
        y.detach_()
        assert y.is_leaf and not y.requires_grad and y.grad_fn is None


def test_complex_gradients_match_torch():
    torch = require_module("torch")
    vals = [1 + 2j, -0.5 + 1j, 3 - 1j]
    tz, pz = both(torch, vals, "complex128")
    tw, pw = both(torch, [0.5 - 1j, 2 + 0.5j, -1 + 1j], "complex128")
    tr, pr = both(torch, [1.0, 2.0, -3.0])
    for m, z, w, r in ((torch, tz, tw, tr), (pytensor, pz, pw, pr)):
        out = (z * w + z / w - r * z).sum()
        out.backward(m.tensor(1 + 0j, dtype=m.complex128))
    assert close(tz.grad, pz.grad) and close(tw.grad, pw.grad) and close(tr.grad, pr.grad)


def test_graph_keeps_inputs_only_as_needed():
    x = pytensor.ones(1000, requires_grad=True)
    big = pytensor.ones(1000)
    r = weakref.ref(big)
    y = x + big  # AddBackward saves nothing: big may die
    del big
    gc.collect()
    assert r() is None
    y.sum().backward()
    assert x.grad.tolist() == [1.0] * 1000


@st.composite
def programs(draw):
    """A random broadcasting program over two leaves: shapes, ops and a reduction."""
    nd = draw(st.integers(1, 3))
    shape = [draw(st.integers(1, 3)) for _ in range(nd)]
    other = [s if draw(st.booleans()) else 1 for s in shape][draw(st.integers(0, nd - 1)):]
    ops = draw(st.lists(st.sampled_from(["add", "sub", "mul", "div", "neg", "T", "scalar_mul", "rsub",
                                         "slice", "expand_sum"]), min_size=1, max_size=6))
    return shape, other, ops


def _run(m, x, y, ops):
    out = x
    for op in ops:
        if op == "add":
            out = out + y
        elif op == "sub":
            out = out - y
        elif op == "mul":
            out = out * y
        elif op == "div":
            out = out / (y * y + 1)
        elif op == "neg":
            out = -out
        elif op == "T":
            out = out.T.contiguous().T
        elif op == "scalar_mul":
            out = 1.5 * out
        elif op == "rsub":
            out = 2 - out
        elif op == "slice":
            out = out[..., ::1]
        elif op == "expand_sum":
            out = out.expand(2, *out.shape).sum(0)
    return out.mean()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_random_programs_match_torch(program):
    torch = require_module("torch")
    shape, other, ops = program
    n, k = 1, 1
    for s in shape:
        n *= s
    for s in other:
        k *= s
    xs = [((i * 7) % 11) / 4 - 1 for i in range(n)]
    ys = [((i * 5) % 7) / 3 - 1 for i in range(k)]
    tx = torch.tensor(xs, dtype=torch.float64).reshape(shape).requires_grad_()
    ty = torch.tensor(ys, dtype=torch.float64).reshape(other).requires_grad_()
    px = pytensor.tensor(xs, dtype=pytensor.float64).reshape(shape).requires_grad_()
    py = pytensor.tensor(ys, dtype=pytensor.float64).reshape(other).requires_grad_()
    want, got = _run(torch, tx, ty, ops), _run(pytensor, px, py, ops)
    assert close(want.detach(), got.detach())
    want.backward()
    got.backward()
    assert close(tx.grad, px.grad)
    assert (ty.grad is None) == (py.grad is None)
    if ty.grad is not None:
        assert close(ty.grad, py.grad)


def test_float32_and_float16_gradients_keep_the_leaf_dtype():
    for dt in (pytensor.float32, pytensor.float16, pytensor.bfloat16):
        x = pytensor.ones(3, dtype=dt, requires_grad=True)
        (x.double() * 2).sum().backward()
        assert x.grad.dtype is dt and x.grad.tolist() == [2.0, 2.0, 2.0]
        x.grad = None
        x[None].expand(2, 3).sum().backward()
        assert x.grad.dtype is dt and x.grad.tolist() == [2.0, 2.0, 2.0]


def test_constructors_keep_or_cut_history_as_torch(torch):
    """The constructor docs' autograd promises, checked on both libraries."""
    import warnings
    out = {}
    for m in (torch, pytensor):
        a = m.tensor([1.0, 2.0, 3.0], requires_grad=True)
        b = a + 2
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            # requires_grad is given wherever asarray's default matters: torch 2.13 changed it
            # (README: "Other differences from torch"; tests/api/test_torch_parity.py records it)
            rows = [m.asarray(b, requires_grad=True), m.asarray(b, requires_grad=False),
                    m.asarray(a, requires_grad=True), m.asarray(a, dtype=m.float64, requires_grad=True),
                    m.as_tensor(a, dtype=m.float64), m.tensor(b),
                    m.frombuffer(bytearray(8), dtype=m.float32, requires_grad=True), a.detach().clone()]
        out[m] = [repr(r).replace("torch.", "pytensor.") for r in rows]
        assert rows[0] is b and rows[1].data_ptr() == b.data_ptr()
        assert rows[6].is_leaf and rows[6].requires_grad
        assert a.requires_grad  # never flipped on the caller's tensor
        rows[3].sum().backward()
        assert a.grad.tolist() == [1.0, 1.0, 1.0]
    assert out[torch] == out[pytensor]


def test_backward_inputs_limits_accumulation_as_torch(torch):
    seen = {}
    for m in (torch, pytensor):
        x = m.ones(2, requires_grad=True)
        y = m.ones(2, requires_grad=True)
        z = x * y * 2
        w = z.sum()
        w.backward(inputs=[x, z], retain_graph=True)
        assert y.grad is None
        first = (x.grad.tolist(), z.grad.tolist())
        w.backward(inputs=x, retain_graph=True)  # a single tensor; accumulates again
        for bad, match in (([], "cannot be empty"), ([m.ones(2)], "requires_grad=False")):
            with pytest.raises(RuntimeError, match=match):
                w.backward(inputs=bad, retain_graph=True)
        leaf = m.ones(3, requires_grad=True)
        other = m.ones(3, requires_grad=True)
        (leaf * other).sum().backward(inputs=[leaf])
        assert other.grad is None
        seen[m] = (first, x.grad.tolist(), leaf.grad.tolist())
    assert seen[torch] == seen[pytensor]


def test_saved_tensors_live_until_backward_frees_them():
    """A node keeps what it saved (mul saves its other operand) exactly until backward() releases it."""
    x = pytensor.ones(3, requires_grad=True)
    w = pytensor.tensor([1.0, 2.0, 3.0])
    r = weakref.ref(w)
    y = (x * w).sum()
    del w
    gc.collect()
    assert r() is not None  # saved for backward
    y.backward()
    gc.collect()
    assert r() is None  # freed with the graph's saved values
    assert x.grad.tolist() == [1.0, 2.0, 3.0]
