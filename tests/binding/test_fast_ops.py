"""The one-crossing path of elementwise ops (the shim's ``binary``, called
first by ``_ops.binary``): where it answers, it answers as the full Python
path and as torch do (values, dtype, layout); where it declines, the Python
path answers. Both halves are generated and counted."""
import itertools

import pytest

import pytensor
from pytensor import _ops
from pytensor._ffi import shim
from support import require_module

DTYPES = ["uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64", "bool",
          "complex64"]
SCALARS = [2, -3, 0, 127, 128, -128, -129, 2**53, 2**53 + 1, 2.5, -0.0, float("inf"), True]
OPS = ["add", "sub", "mul", "div", "eq", "lt", "ge"]


def _slow(a, b, name):
    """The Python path: the same operation with the fast path out of the way."""
    saved = _ops._fast_binary
    _ops._fast_binary = lambda *args: None
    try:
        return _ops.binary(a, b, name)
    finally:
        _ops._fast_binary = saved


def _outcome(fn):
    try:
        r = fn()
    except Exception as e:  # noqa: BLE001  the exception type is part of the answer
        return type(e).__name__
    return (r.dtype, r.shape, r.stride(), repr(r.tolist()))  # repr: NaN equals NaN


def _tensor(dt):
    base = pytensor.tensor([[1, 5, 0], [7, 2, 3]], dtype=getattr(pytensor, dt))
    return base.T  # a transposed operand exercises the layout rule too


@pytest.mark.parametrize("dt", DTYPES)
def test_fast_path_answers_as_the_python_path(dt):
    taken = declined = 0
    for name, x in itertools.product(OPS, SCALARS):
        t = _tensor(dt)
        for a, b in ((t, x), (x, t), (t, t), (t, t[:1])):
            fast = shim.binary(a, b, _ops._OP_CODES[name])
            if fast is None:
                declined += 1
            else:
                taken += 1
                assert _outcome(lambda: fast) == _outcome(lambda: _slow(a, b, name)), (name, a, b)
            assert _outcome(lambda: _ops.binary(a, b, name)) == _outcome(lambda: _slow(a, b, name)), (name, a, b)
    if dt in ("bool", "complex64"):
        assert taken == 0 and declined > 0
    else:
        assert taken > 50 and declined > 0, (taken, declined)


@pytest.mark.parametrize("dt", ["int8", "uint8", "int32", "float16", "float32", "float64"])
def test_fast_path_matches_torch(dt):
    torch = require_module("torch")
    for name, x in itertools.product(["add", "sub", "mul", "div", "lt"], [2, -3, 0, 100, 2.5]):
        p = _tensor(dt)
        t = torch.tensor([[1, 5, 0], [7, 2, 3]], dtype=getattr(torch, dt)).T
        op = {"add": "__add__", "sub": "__sub__", "mul": "__mul__", "div": "__truediv__", "lt": "__lt__"}[name]
        for args_p, args_t in (((p, x), (t, x)), ((p, p), (t, t))):
            want = getattr(args_t[0], op)(args_t[1])
            got = getattr(args_p[0], op)(args_p[1])
            assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1], (name, x)
            assert got.stride() == want.stride() and repr(got.tolist()) == repr(want.tolist()), (name, x, dt)


def test_fast_path_refusals_are_torchs():
    a, b = pytensor.zeros(3), pytensor.zeros(4)
    with pytest.raises(RuntimeError, match="must match"):
        a + b
    with pytest.raises(TypeError):
        shim.binary(a, b, 99)
    x = pytensor.randn(5, 4)
    assert (-x.T).stride() == (1, 4)
