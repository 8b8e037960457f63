"""Which condition dtypes ``where`` reads, against torch: bool, and uint8
(deprecated, nonzero as true, one warning a process); every other dtype is
refused with RuntimeError."""
import subprocess
import sys
import tempfile
import warnings

import pytest

import pytensor
from support import require_module

torch = require_module("torch")

CONDITION_DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float32", "float64", "complex64"]
OPERANDS = [("1.", "0."), ("m.tensor([1, 2, 3])", "m.tensor(0.5)"), ("m.tensor([[1.], [2.]])", "-1")]


def _builtin_type(exc):
    return next(c for c in type(exc).__mro__ if c.__module__ == "builtins").__name__


def _outcome(lib, code):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")       # the uint8 deprecation, in both
            r = eval(code, {"m": lib})            # noqa: S307 - this file's own code
    except Exception as e:                        # noqa: BLE001 - the type is what is compared
        return ("raise", _builtin_type(e))
    return ("ok", r.tolist(), str(r.dtype).split(".")[-1], tuple(r.shape))


@pytest.mark.parametrize("a, b", OPERANDS)
@pytest.mark.parametrize("dtype", CONDITION_DTYPES)
def test_condition_dtypes_match_torch(dtype, a, b):
    codes = [f"m.where(m.tensor([1, 0, 3], dtype=m.{dtype}), {a}, {b})",
             f"m.tensor([5., 6., 7.]).where(m.tensor([0, 2, 0], dtype=m.{dtype}), {b})"]
    for code in codes:
        assert _outcome(pytensor, code) == _outcome(torch, code), code


def test_uint8_is_read_and_every_other_non_bool_refused():
    kinds = {d: _outcome(torch, f"m.where(m.tensor([1, 0], dtype=m.{d}), 1., 0.)")[0] for d in CONDITION_DTYPES}
    assert kinds == {d: "ok" if d in ("bool", "uint8") else "raise" for d in CONDITION_DTYPES}


def test_a_uint8_condition_warns_once_a_process():
    code = ("import warnings, pytensor\n"
            "warnings.simplefilter('always')\n"
            "c = pytensor.tensor([1, 0], dtype=pytensor.uint8)\n"
            "with warnings.catch_warnings(record=True) as w:\n"
            "    pytensor.where(c, 1., 0.); pytensor.where(c, 2., 0.)\n"
            "print(sum('uint8 condition' in str(x.message) for x in w))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         cwd=tempfile.gettempdir())
    assert out.returncode == 0 and out.stdout.strip() == "1", out.stderr
