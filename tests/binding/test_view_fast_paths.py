"""as_strided(), diagonal(), select(), narrow(), unfold(), unflatten(), squeeze(), numel() and
resize_as_()'s common cases in one call: where the C path answers, it answers as the Python path
(the same method with the C path out of the way) and as torch; every case it declines gets the
Python path's answer or error. Both paths ask libtensor's view rules (lt_layout_diagonal, ...), so
a refusal of those rules (a stride past int64) is raised by either at the call."""
import itertools

import numpy as np
import pytest

import pytensor
from pytensor import _provenance, _tensor_views
from support import require_module


def _outcome(fn):
    try:
        v = fn()
    except Exception as e:  # noqa: BLE001  the refusal is the answer
        return ("raises", type(e).__name__, str(e))
    return (tuple(v.shape), v.stride(), v.storage_offset(), v._bits, v.tolist(), _provenance.provenance(v)[0])


def _python_path(monkeypatch, name, fn):
    with monkeypatch.context() as m:
        m.setattr(_tensor_views, name, lambda *args: None)
        return _outcome(fn)


def _sources():
    yield pytensor.arange(24.0).view(4, 6)
    yield pytensor.arange(30.0)[5:].view(5, 5).T
    yield pytensor.arange(24.0).view(2, 3, 4)
    yield pytensor.from_numpy(np.arange(12).reshape(3, 4) * (1 + 2j)).conj()


def _compare(monkeypatch, torch, t, c_name, method, args):
    """Where the C path (``_tensor_views.<c_name>``) answers ``t.<method>(*args)`` (a view, or a
    refusal of libtensor's rule), its answer is the Python path's and torch's layout; where it
    declines, the method gives the Python path's answer or error. Returns whether it answered."""
    call = lambda: getattr(t, method)(*args)  # noqa: E731
    try:
        c_view = getattr(_tensor_views, c_name)(t, *args)
    except Exception as e:  # noqa: BLE001  a refusal of libtensor's rule: raised as the Python path raises it
        c_view, c_answer = e, ("raises", type(e).__name__, str(e))
    want = _python_path(monkeypatch, c_name, call)
    assert _outcome(call) == want, (method, args)
    if c_view is None:
        return False  # declined
    if not isinstance(c_view, Exception):
        c_answer = _outcome(lambda: c_view)
    assert c_answer == want, (method, args)
    if not t.dtype.is_complex and want[0] != "raises":
        flat = torch.arange(t.untyped_storage().nbytes() // 4, dtype=torch.float32)
        tt = torch.as_strided(flat, tuple(t.shape), t.stride(), t.storage_offset())
        w = getattr(tt, method)(*args)
        assert (tuple(w.shape), w.stride(), w.storage_offset()) == want[:3], (method, args)
    return True


def _grid(*axes):
    return list(itertools.product(*axes))


_SMALL = [pytensor.arange(5.0), pytensor.tensor(1.0), pytensor.zeros(0, 3)]

# Each fast path: the C function, the tensors tried besides _sources(), the argument grid, and
# the least number of cases it must answer and decline, so that the grid covers both sides.
_FAST_PATHS = {
    "as_strided": ("as_strided_view", [], _grid(
        [(2, 3), [3, 2], (0, 5), (), (2, 2, 2), (4,)], [(1, 2), [3, 1], (0, 1), (), (1, 1, 1), (-1,), (5,)],
        [None, 0, 3, 50, -1, 2**70, np.int64(2)]), 100, 500),
    "diagonal": ("diagonal_view", _SMALL, _grid(
        [0, 1, -2, 7, -9, 2**50, -2**63, 2**63 - 1, 2**70, True, np.int64(1)], [0, 1, -1, 2, 3, True], [1, 0, -1, 2]),
        150, 1000),
    "select": ("select_view", _SMALL, _grid([0, 1, -1, 2, -4, 3, True, np.int64(1)],
                                            [0, 1, -1, 4, -6, 5, 2**63, np.int64(2)]), 50, 300),
    "narrow": ("narrow_view", _SMALL, _grid([0, -1, 2, 3, np.int64(1)], [0, 2, -2, 4, 6, -7, np.int64(1)],
                                            [0, 1, 2, 5, -1, 2**63]), 100, 1000),
    "unfold": ("unfold_view", [pytensor.arange(7.0), pytensor.tensor(1.0), pytensor.zeros(0, 4)],
               _grid([0, -1, 1, 5, True], [0, 2, 3, 9, -1], [1, 2, 0, 2**62]), 100, 400),
    "unflatten": ("unflatten_view", [pytensor.arange(7.0), pytensor.tensor(1.0), pytensor.zeros(0, 4)],
                  _grid([0, -1, 1, 4, np.int64(0)], [(2, -1), [1, -1, 1], (-1,), (2, 2), (0, -1), (-1, -1), (3.0,)]),
                  40, 150),
}


@pytest.mark.parametrize("method", sorted(_FAST_PATHS))
def test_fast_path_answers_as_the_python_path_and_torch(method, monkeypatch):
    torch = require_module("torch")
    c_name, extra, grid, least_taken, least_declined = _FAST_PATHS[method]
    taken = declined = 0
    for t in list(_sources()) + extra:
        for args in grid:
            if _compare(monkeypatch, torch, t, c_name, method, args):
                taken += 1
            else:
                declined += 1
    assert taken >= least_taken and declined >= least_declined, (taken, declined)


def test_diagonal_offset_is_parsed_as_torch_parses_an_int64():
    torch = require_module("torch")
    for offset, error in [(True, TypeError), (2**70, ValueError), (-2**64, ValueError), (1.0, TypeError)]:
        with pytest.raises(error):
            torch.zeros(3, 4).diagonal(offset)
        with pytest.raises(error):
            pytensor.zeros(3, 4).diagonal(offset)
    for offset in (2**63 - 1, -2**63, np.int64(1)):
        got, want = pytensor.zeros(3, 4).diagonal(offset), torch.zeros(3, 4).diagonal(int(offset))
        assert (tuple(got.shape), got.stride(), got.storage_offset()) == \
            (tuple(want.shape), want.stride(), want.storage_offset())


def test_diagonal_whose_stride_leaves_int64_is_refused_at_the_call(monkeypatch):
    # Two 2^62 strides sum past int64: torch 2.13 raises a RuntimeError at diagonal(); both paths
    # here raise libtensor's refusal there (before, the Python path made a view with stride 2^63).
    torch = require_module("torch")
    for shape in [(1, 1), (0, 0), (2, 0)]:
        t = pytensor.empty(1).as_strided(shape, (2**62, 2**62))
        with pytest.raises(RuntimeError, match="diagonal's stride, 4611686018427387904 \\+ 4611686018427387904"):
            t.diagonal()
        with pytest.raises(RuntimeError, match="overflows int64"):
            t.diagonal(0, np.int64(0), np.int64(1))  # the Python path
        assert _python_path(monkeypatch, "diagonal_view", lambda: t.diagonal(-1))[:2] == ("raises", "LayoutError")
        with pytest.raises(RuntimeError):
            torch.empty(1).as_strided(shape, (2**62, 2**62)).diagonal()


def test_numel_and_resize_as_():
    for shape in [(), (0,), (3, 0, 2), (2, 3, 4), (1,) * 10]:
        t = pytensor.zeros(shape)
        assert t.numel() == t.nelement() == int(np.prod(shape)) and type(t.numel()) is int
    t, other = pytensor.zeros(2, 3), pytensor.ones(2, 3)
    before = (t.shape, t.stride(), t.data_ptr())
    assert t.resize_as_(other) is t and (t.shape, t.stride(), t.data_ptr()) == before
    assert t.resize_as_(pytensor.zeros(3, 2)) is t and t.shape == (3, 2)
    with pytest.raises(RuntimeError, match="require grad"):
        pytensor.zeros(2, requires_grad=True).resize_as_(pytensor.zeros(2))  # refused even at the same shape
    with pytest.raises(NotImplementedError):
        t.resize_as_(t, memory_format="channels_last")


def _chain(v):
    return [(s.op, s.text, s.shared) for s in _provenance.provenance(v)]


@pytest.mark.parametrize("make", [lambda: pytensor.arange(24.0).view(4, 6).T,
                                  lambda: pytensor.arange(24, dtype=pytensor.int16).view(2, 3, 4).permute(2, 0, 1),
                                  lambda: pytensor.arange(48.0).view(6, 8)[:, :3],
                                  lambda: pytensor.from_numpy(np.arange(12).reshape(3, 4) * (1 + 2j)).T.conj()],
                         ids=["transposed", "permuted", "strided", "conjugate"])
def test_reshape_copy_in_c_matches_contiguous_then_view(make):
    t = make()
    for shape in [(-1,), (t.numel(),), (2, -1), (1, t.numel(), 1)]:
        got = t.reshape(shape)
        want = t.contiguous().view(tuple(got.shape))  # the public two steps the Python path takes (sizes inferred)
        assert (tuple(got.shape), got.stride(), got.storage_offset(), got._bits, got.tolist()) == \
            (tuple(want.shape), want.stride(), want.storage_offset(), want._bits, want.tolist())
        assert got.untyped_storage() is not t.untyped_storage()
        assert _chain(got) == _chain(want), shape


def test_reshape_copy_of_a_graph_is_recorded():
    x = pytensor.arange(6.0).view(2, 3).requires_grad_()
    y = x.T.reshape(6)
    assert y.grad_fn.name() == "UnsafeViewBackward0" or y.grad_fn.name() == "ViewBackward0"
    (y * pytensor.arange(6.0)).sum().backward()
    assert x.grad.tolist() == [[0.0, 2.0, 4.0], [1.0, 3.0, 5.0]]


def test_flatten_movedim_unflatten_record_what_their_public_steps_record():
    t = pytensor.arange(24.0).view(2, 3, 4)
    for v, w in [(t.flatten(), t.reshape((24,))), (t.flatten(1), t.reshape((2, 12))),
                 (t.flatten(-2, -1), t.reshape((2, 12))), (t.permute(2, 1, 0).flatten(), t.permute(2, 1, 0).reshape((24,))),
                 (t.movedim(2, 0), t.permute((2, 0, 1))), (t.movedim(-1, 1), t.permute((0, 2, 1))),
                 (t.unflatten(2, (2, -1)), t.view((2, 3, 2, 2)))]:
        assert (tuple(v.shape), v.stride(), v.tolist()) == (tuple(w.shape), w.stride(), w.tolist())
        assert _chain(v) == _chain(w)
    assert t.flatten(1, 1) is t and t.flatten(np.int64(0), np.int64(1)).shape == (6, 4)
    with pytest.raises(RuntimeError):
        t.flatten(2, 0)
    with pytest.raises(IndexError):
        t.flatten(0, 3)


def test_get_num_threads_reads_what_set_num_threads_set():
    old = pytensor.get_num_threads()
    try:
        for n in (1, 3, 2):
            pytensor.set_num_threads(n)
            assert pytensor.get_num_threads() == n and type(pytensor.get_num_threads()) is int
    finally:
        pytensor.set_num_threads(old)
    with pytest.raises(TypeError):
        pytensor.get_num_threads(1)


@pytest.mark.parametrize("sizes", [(2, 3), ((2, 3),), ([2, 3],), (3, 2), (2.0, 3), (True, 3), (np.int64(2), 3), (),
                                   (6,), ((2, 3, 1),)], ids=repr)
@pytest.mark.parametrize("grad", [False, True])
def test_resize_to_its_own_shape_answers_as_the_python_path(sizes, grad, monkeypatch):
    from pytensor import _tensor_writes

    def outcome(t):
        try:
            r = t.resize_(*sizes)
        except Exception as e:  # noqa: BLE001  the refusal is the answer
            return ("raises", type(e).__name__, str(e))
        return (r is t, tuple(t.shape), t.stride(), t.data_ptr() == ptr)

    make = (lambda: pytensor.arange(12.0)[:6].view(3, 2).T.requires_grad_(grad))  # shape (2, 3), not contiguous
    t = make()
    ptr = t.data_ptr()
    got = outcome(t)
    with monkeypatch.context() as m:
        m.setattr(_tensor_writes, "_has_shape", lambda *args: False)
        t = make()
        ptr = t.data_ptr()
        want = outcome(t)
    assert got == want


def test_squeeze_answers_as_the_python_path_and_torch(monkeypatch):
    torch = require_module("torch")
    taken = declined = 0
    for shape in [(), (1,), (3,), (1, 3, 1), (2, 1, 1, 4), (0, 1)]:
        n = int(np.prod(shape))
        bases = [pytensor.arange(n + 1, dtype=pytensor.float32)[1:].view(shape)]
        bases.append(pytensor.from_numpy(np.asarray(np.arange(n).reshape(shape) * (1 + 1j))).conj())
        for t in bases:
            for dim in [None, 0, 1, -1, 2, -4, 5, (0, 1), np.int64(0), True]:
                c_answer = _tensor_views.squeeze_view(t, dim)
                want = _python_path(monkeypatch, "squeeze_view", lambda: t.squeeze(dim))
                assert _outcome(lambda: t.squeeze(dim)) == want, (shape, dim)
                if c_answer is None:
                    declined += 1
                    continue
                taken += 1
                assert _outcome(lambda: c_answer) == want
                if not t.dtype.is_complex:
                    w = torch.zeros(shape).squeeze() if dim is None else torch.zeros(shape).squeeze(dim)
                    assert tuple(w.shape) == want[0], (shape, dim)
    assert taken > 40 and declined > 40, (taken, declined)


def test_set_num_threads_takes_and_refuses_what_the_cffi_call_did():
    from pytensor._ffi import lib

    def outcome(fn, v):
        try:
            fn(v)
        except Exception as e:  # noqa: BLE001  the refusal is the answer
            return ("raises", type(e).__name__, str(e))
        return ("ok", pytensor.get_num_threads())

    old = pytensor.get_num_threads()
    try:
        for v in [2, True, 2.0, 2**40, -2**40, np.int64(3), -1, 0, 100, "2", None]:
            assert outcome(pytensor.set_num_threads, v) == outcome(lib.lt_set_num_threads, v), v
    finally:
        pytensor.set_num_threads(old)


def test_diagonal_of_dims_with_huge_strides_and_no_elements(monkeypatch):
    t = pytensor.zeros(1, 1).as_strided((1, 1), (2**61, 2**61))  # offset * stride passes int64; the sum fits
    for offset in (5, -5, 2**40):
        want = _python_path(monkeypatch, "diagonal_view", lambda: t.diagonal(offset))
        assert _outcome(lambda: t.diagonal(offset)) == want and want[0] == (0,)
