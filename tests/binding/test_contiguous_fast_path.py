"""contiguous() of a tensor that is not contiguous takes one more crossing
(the shim's contiguous_copy): where it answers, it answers as the Python path
and torch do (values, dtype, row-major strides, new memory, provenance);
where it declines (conjugate and negative bits, memory off the host), the
Python path answers. Both halves are generated and counted."""
import pytest

import pytensor
from pytensor import _tensor_copies
from pytensor._ffi import shim
from support import require_module

DTYPES = ["uint8", "int8", "int32", "int64", "float16", "bfloat16", "float32", "float64", "bool", "complex64",
          "complex128"]


def _slow(t):
    saved = _tensor_copies._contiguous_copy
    _tensor_copies._contiguous_copy = lambda t: None
    try:
        return t.contiguous()
    finally:
        _tensor_copies._contiguous_copy = saved


def _outcome(r):
    return (r.dtype, tuple(r.shape), r.stride(), repr(r.tolist()), r.is_conj(), r.is_neg(),
            [(s.op, s.text, s.shared) for s in pytensor.provenance(r)])


def _layouts(dt):
    base = pytensor.arange(24, dtype=pytensor.float64).view(2, 3, 4).to(getattr(pytensor, dt))
    return [base.permute(2, 0, 1), base[:, ::2], base.transpose(0, 2)[1:], base.transpose(1, 2),
            base[:, :1].expand(2, 5, 4), base.unfold(2, 2, 1), base[:, :, 0], base[..., 1:3]]


@pytest.mark.parametrize("dt", DTYPES)
def test_contiguous_copy_answers_as_the_python_path(dt):
    taken = declined = 0
    for t in _layouts(dt) + [t.conj() for t in _layouts(dt) if dt.startswith("complex")]:
        assert not t.is_contiguous()
        fast = shim.contiguous_copy(t)
        slow = _slow(t)
        assert _outcome(t.contiguous()) == _outcome(slow)
        assert slow.data_ptr() != t.data_ptr() or t.numel() == 0
        if fast is None:
            declined += 1
            assert t.is_conj()
            continue
        taken += 1
        assert _outcome(fast) == _outcome(slow)
    assert taken == 8 and declined == (8 if dt.startswith("complex") else 0), (taken, declined)


def test_contiguous_of_contiguous_is_self_and_grad_is_recorded():
    a = pytensor.ones(2, 3)
    assert a.contiguous() is a
    g = pytensor.ones(2, 3, requires_grad=True)
    c = g.T.contiguous()
    assert c.grad_fn is not None and c.stride() == (2, 1)
    c.sum().backward()
    assert g.grad.tolist() == [[1.0] * 3] * 2


def test_contiguous_matches_torch():
    torch = require_module("torch")
    for dt in ("float32", "int64", "bool", "complex64"):
        a = pytensor.arange(24).view(2, 3, 4).to(getattr(pytensor, dt))
        ta = torch.arange(24).view(2, 3, 4).to(getattr(torch, dt))
        for f in (lambda x: x.permute(2, 0, 1), lambda x: x[:, ::2], lambda x: x[:, :1].expand(2, 5, 4)):
            got, want = f(a).contiguous(), f(ta).contiguous()
            assert got.stride() == want.stride() and got.tolist() == want.tolist()
            assert str(got.dtype).split(".")[1] == str(want.dtype).split(".")[1]
