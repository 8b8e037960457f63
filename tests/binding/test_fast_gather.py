"""The one-crossing paths of the gather family (pytensor/_shim_index.c: cat,
stack, where, flip, roll, index_select, take, gather, nonzero, t[idx],
masked_select, t[mask], t[idx] = v, index_put_, t[mask] = x): where the shim answers, it answers as
the Python path does (values, dtype, shape, strides, provenance, the write);
where it declines (grad, conjugate bits, promotion, read-only memory, aliasing,
every refusal), the Python path answers and nothing was written. The cases
are generated and both halves counted."""
import itertools

import pytest

import pytensor
from pytensor import _gather_ops as g
from pytensor import _indexing
from pytensor._ffi import shim
from support import declining, outcome as _outcome, require_module  # _outcome: the name this file's tests use

FAST = ("_fast_join", "_fast_where", "_fast_flip", "_fast_roll", "_fast_take", "_fast_nonzero", "_fast_put_index",
        "_fast_take_mask")


def _python_path():
    """Within the block every fast path of _gather_ops declines, so its functions run their Python rules."""
    return declining(g, *FAST)


def _compare(fast_call, public_call):
    """The shim's answer (None: declined) against the Python path's, and the public call against it too.
    Returns 1 when the shim answered, 0 when it declined."""
    fast = fast_call()
    with _python_path():
        slow = _outcome(public_call)
    assert _outcome(public_call) == slow
    if fast is None:
        return 0
    assert _outcome(lambda: fast) == slow
    return 1


def _layouts(base):
    """base (2-D or more) as it is, transposed, sliced with a step, and with a size-1 dim unsqueezed."""
    return [base, base.transpose(0, 1), base[:, ::2], base.unsqueeze(1)]


def _base(dt, shape=(4, 6)):
    n = 1
    for s in shape:
        n *= s
    t = pytensor.tensor([i * 7 % 5 - 2 for i in range(n)], dtype=pytensor.float64).view(shape)
    return t.to(getattr(pytensor, dt))


def _wider(dt):
    """A dtype t of dtype dt promotes to (a second dtype in the list: the Python path's promotion)."""
    return pytensor.complex128 if dt == "complex64" else pytensor.float64


DTYPES = ["float32", "float64", "int64", "int8", "uint8", "bool", "float16", "complex64"]


@pytest.mark.parametrize("dt", DTYPES)
def test_cat_and_stack_answer_as_the_python_path(dt):
    taken = declined = 0
    for t in _layouts(_base(dt)):
        other = t.flip([0]).clone()
        for parts in ([t, other], (t, t, other), [t], [t, other.to(_wider(dt))], [t, other[:1]],
                      [t, pytensor.zeros(0, dtype=t.dtype)], [t] * 65):
            for dim in range(-t.dim() - 1, t.dim() + 2):
                for stack in (False, True):
                    fn = g.stack if stack else g.cat
                    n = _compare(lambda: shim.join(parts, dim, stack), lambda: fn(parts, dim))
                    taken += n
                    declined += 1 - n
    assert taken > 100 and declined > 100, (taken, declined)


def test_cat_declines_grad_conjugates_and_non_lists():
    a = pytensor.ones(2, 3, requires_grad=True)
    assert shim.join([a, a], 0, False) is None
    out = pytensor.cat([a, a])
    assert out.requires_grad and out.grad_fn is not None
    c = pytensor.ones(2, dtype=pytensor.complex64) * (1 + 2j)
    assert shim.join([c.conj(), c], 0, False) is None
    assert pytensor.cat([c.conj(), c]).tolist() == [1 - 2j] * 2 + [1 + 2j] * 2
    assert shim.join(iter([c]), 0, False) is None
    assert shim.join([c, 1], 0, False) is None
    assert shim.join([], 0, False) is None
    with pytest.raises(ValueError):
        pytensor.cat([])
    with pytest.raises(IndexError):
        pytensor.cat([c, c], 1)


@pytest.mark.parametrize("dt", ["float32", "int64", "bool", "complex64", "float16"])
def test_where_answers_as_the_python_path(dt):
    taken = declined = 0
    scalars = [0.5, 2, -3, 300, 2**60, True, 1j, 1e40, 3.4028235e38, float("inf"), float("nan")]
    for t in _layouts(_base(dt)):
        cond = (_base("float32", (4, 6)) > 0)
        conds = [c for c in _layouts(cond) if c.shape == t.shape] + [cond[:1, :1], cond[0]]
        other = t.flip([0]).clone()
        for c in conds:
            for a, b in [(t, other), (other, t), (t, t[:1]), (t, other.to(_wider(dt)))] + \
                        [(t, s) for s in scalars] + [(s, t) for s in scalars] + [(1.0, 2.0), (t, None)]:
                n = _compare(lambda: shim.where(c, a, b), lambda: g.where(c, a, b))
                taken += n
                declined += 1 - n
    assert taken > 20 and declined > 20, (taken, declined)
    assert shim.where(_base("float32") > 0, _base("float32"), 1.0) is not None
    assert shim.where(_base("float32"), _base("float32"), 1.0) is None  # a non-bool condition: Python's message


@pytest.mark.parametrize("dt", ["float32", "int64", "bool", "complex64"])
def test_flip_and_roll_answer_as_the_python_path(dt):
    taken = declined = 0
    for t in _layouts(_base(dt)) + [_base(dt, (0, 3)), _base(dt, ()), _base(dt, (5,))]:
        for dims in [(0,), [1], (0, 1), (-1,), (), (0, 0), (7,), (0, -1), 0, "x"]:
            n = _compare(lambda: shim.flip(t, dims), lambda: g.flip(t, dims))
            taken += n
            declined += 1 - n
        for shift, dim in itertools.product([0, 1, -1, 5, -13, 2**70, True, 2.0], [None, 0, 1, -1, 3, (0,)]):
            n = _compare(lambda: shim.roll(t, shift, dim), lambda: g.roll(t, shift, dim))
            taken += n
            declined += 1 - n
    assert taken > 60 and declined > 60, (taken, declined)


@pytest.mark.parametrize("dt", ["float32", "int64", "bool", "complex64", "float16"])
def test_index_select_take_gather_answer_as_the_python_path(dt):
    taken = declined = 0
    index_sets = [pytensor.tensor([2, 0, 1, 0]), pytensor.tensor([[1, 0], [2, 3]]), pytensor.tensor(1),
                  pytensor.tensor([-1, 0]), pytensor.tensor([0, 6]), pytensor.tensor([1, 0], dtype=pytensor.int32),
                  pytensor.tensor([3, 2, 1, 0, 1, 2])[::2], pytensor.zeros(0, dtype=pytensor.int64)]
    for t in _layouts(_base(dt)) + [_base(dt, ()), _base(dt, (6,))]:
        for idx in index_sets:
            for dim in (0, 1, -1, 2):
                n = _compare(lambda: shim.take_index(0, t, dim, idx), lambda: g.index_select(t, dim, idx))
                n += _compare(lambda: shim.take_index(1, t, 0, idx), lambda: g.take(t, idx))
                gidx = (idx.view(-1, 1).expand(-1, 2) if idx.dim() == 1 else idx) if t.dim() == 2 else idx
                n += _compare(lambda: shim.take_index(2, t, dim, gidx), lambda: g.gather(t, dim, gidx))
                taken += n
                declined += 3 - n
    assert taken > 100 and declined > 100, (taken, declined)


@pytest.mark.parametrize("dt", ["float32", "int64", "bool", "complex64"])
def test_getitem_of_an_index_tensor_answers_as_the_python_path(dt):
    taken = 0
    for t in _layouts(_base(dt)) + [_base(dt, (6,)), _base(dt, (1, 4)).transpose(0, 1), _base(dt, (3, 1, 2))]:
        for idx in [pytensor.tensor([2, 0, 1, 0]), pytensor.tensor([[1, 0], [-1, 0]]), pytensor.tensor([0, 9]),
                    pytensor.tensor([[0], [1]]).transpose(0, 1), pytensor.zeros(0, dtype=pytensor.int64)]:
            fast = shim.take_index(3, t, 0, idx)
            slow = _outcome(lambda: _indexing.getitem(t, idx))
            assert _outcome(lambda: t[idx]) == slow
            if fast is not None:
                taken += 1
                assert _outcome(lambda: fast) == slow
                want = [(s.op, s.text) for s in pytensor.provenance(_indexing.getitem(t, idx))]
                assert [(s.op, s.text) for s in pytensor.provenance(fast)] == want
    assert taken > 15, taken
    g_ = pytensor.ones(3, requires_grad=True)
    assert shim.take_index(3, g_, 0, pytensor.tensor([0])) is None
    assert g_[pytensor.tensor([0, 0])].grad_fn is not None
    c = pytensor.ones(3, dtype=pytensor.complex64) * 1j
    assert shim.take_index(3, c.conj(), 0, pytensor.tensor([0])) is None
    assert c.conj()[pytensor.tensor([0])].tolist() == [-1j]


def test_nonzero_answers_as_the_python_path():
    taken = 0
    for m in _layouts(_base("float32") > 0) + [pytensor.zeros(3, 4, dtype=pytensor.bool), pytensor.ones(5) > 0,
                                             pytensor.zeros(0, 2) > 0, pytensor.tensor(True), _base("int64")]:
        fast = shim.nonzero(m)
        for as_tuple in (False, True):
            with _python_path():
                slow = _outcome(lambda: g.nonzero(m, as_tuple=as_tuple))
            assert _outcome(lambda: g.nonzero(m, as_tuple=as_tuple)) == slow
        if fast is not None:
            taken += 1
            with _python_path():
                assert _outcome(lambda: fast) == _outcome(lambda: g.nonzero(m))
    assert taken == 7, taken


@pytest.mark.filterwarnings("ignore:indexing with dtype uint8")
@pytest.mark.parametrize("dt", DTYPES)
def test_mask_reads_answer_as_the_python_path(dt):
    """masked_select(t, m) and t[m] (shim.take_mask kinds 0 and 1) for masks of t's shape in every layout;
    broadcast masks, masks over the leading dims only, 0-d tensors and non-bool masks decline."""
    taken = declined = 0
    for t in _layouts(_base(dt)) + [_base(dt, (6,)), _base(dt, (0, 3)), _base(dt, (3, 1, 2)), _base(dt, ())]:
        b = _base("float32", tuple(t.shape)) if t.dim() else pytensor.tensor(1.0)
        masks = [b > 0, (b > 0).contiguous(), b > 9, b == b, _base("int64", tuple(t.shape)).to(pytensor.uint8)]
        if t.dim() == 2 and t.shape[0]:
            masks += [(b.T.contiguous() > 0).T, (b[:, :1] > 0), (b[:, 0] > 0)]  # transposed; broadcast; leading
        for m in masks:
            for kind, public in ((0, lambda: pytensor.masked_select(t, m)), (1, lambda: t[m])):
                fast = shim.take_mask(kind, t, m)
                with _python_path():
                    slow = _outcome(lambda: g.masked_select(t, m) if kind == 0 else _indexing.getitem(t, m))
                assert _outcome(public) == slow
                if fast is None:
                    declined += 1
                    continue
                taken += 1
                assert tuple(m.shape) == tuple(t.shape) and m.dtype == pytensor.bool and t.dim()
                assert _outcome(lambda: fast) == slow
                if kind == 1:
                    want = [(s.op, s.text) for s in pytensor.provenance(_indexing.getitem(t, m))]
                    assert [(s.op, s.text) for s in pytensor.provenance(fast)] == want
    assert taken >= 60 and declined >= 20, (taken, declined)


def test_mask_reads_decline_grad_conjugates_and_bad_kinds():
    g_ = pytensor.ones(3, requires_grad=True)
    m = pytensor.tensor([True, False, True])
    assert shim.take_mask(1, g_, m) is None and shim.take_mask(0, g_, m) is None
    assert g_[m].grad_fn is not None and pytensor.masked_select(g_, m).grad_fn is not None
    c = pytensor.ones(3, dtype=pytensor.complex64) * 1j
    assert shim.take_mask(1, c.conj(), m) is None
    assert c.conj()[m].tolist() == [-1j, -1j]
    assert shim.take_mask(0, [1.0, 2.0, 3.0], m) is None
    with pytest.raises(TypeError):
        shim.take_mask(2, c, m)
    with pytest.raises(TypeError):
        shim.take_mask(0, c)


def _write_outcome(fn, target):
    """What a write leaves: the exception type or None, and the target's values, layout and version."""
    before = target._version
    try:
        fn()
        err = None
    except Exception as e:  # noqa: BLE001
        err = type(e).__name__
    return err, repr(target.tolist()), target.stride(), target._version > before


@pytest.mark.parametrize("dt", ["float32", "float64", "int32", "bool", "complex64"])
def test_writes_through_an_index_tensor_answer_as_the_python_path(dt):
    taken = declined = 0
    idxs = [pytensor.tensor([2, 0]), pytensor.tensor([1, 1, 3]), pytensor.tensor([-1]), pytensor.tensor([[0], [2]]),
            pytensor.tensor([0, 4]), pytensor.zeros(0, dtype=pytensor.int64)]
    for make in (lambda: _base(dt), lambda: _base(dt).transpose(0, 1).clone().transpose(0, 1),
                 lambda: _base(dt, (4, 1)).expand(4, 3), lambda: _base(dt, (4,))):
        for idx in idxs:
            probe = make()
            shape = (*idx.shape, *probe.shape[1:])
            values = [_base(dt, shape) if 0 not in shape else pytensor.zeros(shape, dtype=probe.dtype),
                      _base(dt, (1, *probe.shape[1:])), _base(dt, (1, 1, *probe.shape[1:])), 1.5, 2, 300, True, 1e40,
                      _base("float64", shape) if 0 not in shape else 1.0, "alias"]
            for value, accumulate in itertools.product(values, (False, True)):
                fast_t, slow_t = make(), make()
                v_fast = fast_t[1:2].clone() if isinstance(value, str) else value
                v_slow = slow_t[1:2].clone() if isinstance(value, str) else value
                if isinstance(value, str):  # a value in the target's own memory
                    v_fast, v_slow = fast_t[:1], slow_t[:1]
                r = shim.put_index(fast_t, idx, v_fast, accumulate)
                with _python_path():
                    if accumulate:
                        slow = _write_outcome(lambda: g.index_put_(slow_t, (idx,), v_slow, True), slow_t)
                    else:
                        slow = _write_outcome(lambda: _indexing.setitem(slow_t, idx, v_slow), slow_t)
                if r is None:
                    declined += 1
                    fast_t = make()
                    v_fast = fast_t[:1] if isinstance(value, str) else value
                    public = (lambda: fast_t.index_put_((idx,), v_fast, accumulate=True)) if accumulate else \
                        (lambda: fast_t.__setitem__(idx, v_fast))
                    assert _write_outcome(public, fast_t) == slow, (idx, value, accumulate)
                else:
                    taken += 1
                    assert r is fast_t
                    assert (None, repr(fast_t.tolist()), fast_t.stride()) == slow[:3], (idx, value, accumulate)
    assert taken > 40 and declined > 40, (taken, declined)


def test_index_writes_record_the_write_and_decline_what_python_refuses():
    t = pytensor.zeros(4, 3)
    before = t._version
    t[pytensor.tensor([1, 2])] = pytensor.ones(3)
    assert t._version > before and t.tolist()[1] == [1.0] * 3
    before = t._version
    t.index_put_((pytensor.tensor([0, 0]),), pytensor.ones(2, 3), accumulate=True)
    assert t._version > before and t.tolist()[0] == [2.0] * 3
    # an index out of range: refused before any write, by the Python path (IndexError)
    assert shim.put_index(t, pytensor.tensor([0, 9]), pytensor.full((2, 3), 7.0), False) is None
    assert t.tolist()[0] == [2.0] * 3
    with pytest.raises(IndexError, match="out of bounds"):
        t[pytensor.tensor([0, 9])] = pytensor.full((2, 3), 7.0)
    assert t.tolist()[0] == [2.0] * 3
    # read-only memory, an expanded target, grad, a scalar for index_put_: Python's refusals
    ro = pytensor.frombuffer(bytes(24), dtype=pytensor.float32).view(2, 3)
    assert shim.put_index(ro, pytensor.tensor([0]), pytensor.ones(3), False) is None
    with pytest.raises(Exception, match="read-only|not writable|readonly"):
        ro[pytensor.tensor([0])] = pytensor.ones(3)
    e = pytensor.zeros(1, 3).expand(4, 3)
    assert shim.put_index(e, pytensor.tensor([0]), pytensor.ones(3), False) is None
    with pytest.raises(RuntimeError, match="single memory location"):
        e[pytensor.tensor([0])] = pytensor.ones(3)
    leaf = pytensor.zeros(2, 3, requires_grad=True)
    assert shim.put_index(leaf, pytensor.tensor([0]), pytensor.ones(3), False) is None
    with pytest.raises(TypeError):
        t.index_put_((pytensor.tensor([0]),), 1.0)
    with pytest.raises(RuntimeError, match="dtypes match"):
        t.index_put_((pytensor.tensor([0]),), pytensor.ones(3, dtype=pytensor.float64))
    # a truthy non-bool accumulate takes the Python path with torch's meaning
    u = pytensor.zeros(3)
    u.index_put_((pytensor.tensor([1, 1]),), pytensor.ones(2), accumulate=1)
    assert u.tolist() == [0.0, 2.0, 0.0]


@pytest.mark.parametrize("dt", ["float32", "float64", "int64", "uint8", "bool", "float16"])
def test_mask_writes_answer_as_the_python_path(dt):
    taken = declined = 0
    for make in (lambda: _base(dt), lambda: _base(dt).transpose(0, 1), lambda: _base(dt)[:, ::2],
                 lambda: _base(dt, (5,))):
        probe = make()
        masks = [_base("float32", probe.shape) > 0, (_base("float32", probe.shape) > 0).transpose(0, -1).clone()
                 .transpose(0, -1), pytensor.zeros(probe.shape, dtype=pytensor.bool), "own"]
        for mask, value in itertools.product(masks, [0.0, 0, -1, 200, 2.5, True, 1e40, pytensor.tensor(3.0)]):
            fast_t, slow_t = make(), make()
            m_fast = (fast_t != 0) if isinstance(mask, str) else mask
            m_slow = (slow_t != 0) if isinstance(mask, str) else mask
            if isinstance(mask, str) and dt == "bool":
                m_fast, m_slow = fast_t, slow_t  # the mask is the target itself
            r = shim.put_mask(fast_t, m_fast, value)
            slow = _write_outcome(lambda: _indexing.setitem(slow_t, m_slow, value), slow_t)
            if r is None:
                declined += 1
                fast_t = make()
                m_fast = fast_t if isinstance(mask, str) and dt == "bool" else \
                    (fast_t != 0) if isinstance(mask, str) else mask
                assert _write_outcome(lambda: fast_t.__setitem__(m_fast, value), fast_t) == slow
            else:
                taken += 1
                assert (None, repr(fast_t.tolist()), fast_t.stride()) == slow[:3]
    if dt in ("bool", "float16"):  # a number into them: the Python path's conversion rules
        assert taken == 0 and declined > 0
    else:
        assert taken > 10 and declined > 10, (taken, declined)


def test_mask_write_declines_read_only_memory_and_a_mask_in_the_target():
    ro = pytensor.frombuffer(bytes(24), dtype=pytensor.float32).view(2, 3)
    assert shim.put_mask(ro, ro == 0, 1.0) is None
    with pytest.raises(Exception, match="read-only|not writable|readonly"):
        ro[ro == 0] = 1.0
    b = pytensor.tensor([True, False, True, False])
    assert shim.put_mask(b, b.roll(1), False) is None  # the mask's bytes are the target's: Python copies it first
    b[b.roll(1)] = False
    assert b.tolist() == [True, False, True, False]
    t = pytensor.zeros(3)
    before = t._version
    t[t == 0] = 2.0
    assert t.tolist() == [2.0] * 3 and t._version > before


def test_fast_paths_match_torch():
    torch = require_module("torch")
    a = pytensor.arange(24.0).view(4, 6)
    ta = torch.arange(24.0).view(4, 6)
    idx, tidx = pytensor.tensor([3, 0, 3]), torch.tensor([3, 0, 3])
    pairs = [
        (pytensor.cat([a, a.T.contiguous().T], 1), torch.cat([ta, ta.T.contiguous().T], 1)),
        (pytensor.stack([a.T, a.T], 1), torch.stack([ta.T, ta.T], 1)),
        (pytensor.where(a > 5, a.T.T, 0.5), torch.where(ta > 5, ta.T.T, 0.5)),
        (pytensor.where(a.T > 5, a.T, a.T * 2), torch.where(ta.T > 5, ta.T, ta.T * 2)),
        (pytensor.flip(a.T, (0,)), torch.flip(ta.T, (0,))),
        (pytensor.roll(a, -7), torch.roll(ta, -7)),
        (pytensor.roll(a.T, 2, 1), torch.roll(ta.T, 2, 1)),
        (a.index_select(1, idx), ta.index_select(1, tidx)),
        (a.take(idx), ta.take(tidx)),
        (a.gather(0, idx.view(3, 1).expand(3, 6)), ta.gather(0, tidx.view(3, 1).expand(3, 6))),
        (a.T[idx], ta.T[tidx]),
        (a.unsqueeze(1)[idx], ta.unsqueeze(1)[tidx]),
        ((a > 5).T.nonzero(), (ta > 5).T.nonzero()),
        (a.T[a.T > 5], ta.T[ta.T > 5]),
        (pytensor.masked_select(a.T, a.T > 5), torch.masked_select(ta.T, ta.T > 5)),
        (a[a > 99], ta[ta > 99]),
    ]
    for got, want in pairs:
        assert got.shape == want.shape and got.stride() == want.stride(), (got.stride(), want.stride())
        assert got.tolist() == want.tolist()
    w, tw = a.clone(), ta.clone()
    w[idx] = pytensor.ones(6)
    tw[tidx] = torch.ones(6)
    w.index_put_((idx,), pytensor.ones(3, 6), accumulate=True)
    tw.index_put_((tidx,), torch.ones(3, 6), accumulate=True)
    w[w > 20] = 0.0
    tw[tw > 20] = 0.0
    assert w.tolist() == tw.tolist()
