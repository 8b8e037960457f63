"""t.tolist() in one C pass (the shim's tolist) for bool, the integer types, float32/float64 and
the complex types: it answers as the Python path (_convert_out.to_pylist) and as torch for every
layout; the 16- and 8-bit floats, conjugate and negative views and the float4 are declined to the
Python path, which is counted."""
import numpy as np
import pytest

import pytensor
from pytensor import _convert_out
from pytensor._ffi import shim
from support import require_module

TAKEN = ["bool", "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64", "float32", "float64",
         "complex64", "complex128"]
DECLINED = ["float16", "bfloat16", "float8_e4m3fn", "float8_e5m2", "float8_e8m0fnu"]


def _values(name, n):
    raw = np.random.default_rng(0).integers(0, 256, n * 16, dtype=np.uint8)  # every bit pattern of the bytes
    d = getattr(pytensor, name)
    return pytensor.frombuffer(bytearray(raw.tobytes()), dtype=pytensor.uint8)[:n * d.itemsize].view(d)


def _layouts(name):
    base = _values(name, 60)
    yield "0-d", base[7]
    yield "1-d", base[:24]
    yield "2-d", base[:24].view(4, 6)
    yield "transposed", base[:24].view(4, 6).T
    yield "strided with offset", base[3:27:2].view(3, 4)
    yield "expanded", base[:6].view(1, 6).expand(3, 6)
    yield "3-d permuted", base[:24].view(2, 3, 4).permute(2, 0, 1)
    yield "empty", base[:0].view(0, 5)
    yield "empty inner", base[:0].view(3, 0)


def _repr(x):
    return repr(x)  # NaN equals NaN, -0.0 differs from 0.0, bool from int


@pytest.mark.parametrize("name", TAKEN)
def test_c_pass_answers_as_the_python_path(name):
    cases = 0
    for layout, t in _layouts(name):
        fast = shim.tolist(t)
        assert fast is not None, layout
        assert _repr(fast) == _repr(_convert_out.to_pylist(t)) == _repr(t.tolist()), (name, layout)
        cases += 1
    assert cases == 9


@pytest.mark.parametrize("name", DECLINED + ["conj", "neg", "float4"])
def test_declined_cases_take_the_python_path(name, monkeypatch):
    if name == "conj":
        t = pytensor.tensor([[1 + 2j, 3 - 4j]]).conj()
    elif name == "neg":
        t = pytensor.tensor([[1 + 2j, 3 - 4j]]).conj().imag
    elif name == "float4":
        t = pytensor.frombuffer(bytearray(b"\x12\x34"), dtype=pytensor.float4_e2m1fn_x2)
    else:
        t = _values(name, 12).view(3, 4).T
    assert shim.tolist(t) is None
    calls = []
    original = _convert_out.to_pylist

    def counted(x):
        calls.append(x)
        return original(x)
    import pytensor._tensor_conversion as conversion
    monkeypatch.setattr(conversion, "to_pylist", counted)
    try:
        got = ("ok", _repr(t.tolist()))
    except Exception as e:  # noqa: BLE001  the float4's refusal is the answer
        got = ("raises", type(e).__name__)
    assert len(calls) == 1
    assert got == (("raises", "NotImplementedError") if name == "float4" else ("ok", _repr(original(t))))


def test_tolist_matches_torch():
    torch = require_module("torch")
    cases = 0
    for name in ["bool", "uint8", "int8", "int16", "int32", "int64", "float32", "float64", "complex64",
                 "complex128"]:
        for layout, t in _layouts(name):
            if name == "bool":  # bool bytes other than 0 and 1 are not torch's: compare canonical bools
                t = t.to(pytensor.uint8).ne(0)
            tt = torch.from_numpy(np.array(t.numpy()))  # numpy() of the view: its values, its layout copied
            assert _repr(t.tolist()) == _repr(tt.tolist()), (name, layout)
            cases += 1
    assert cases == 90


def test_a_dim_of_one_element_may_carry_any_stride():
    # unfold's window stride on a dim of extent 1 is step * stride: 2**62 here, which in bytes is past
    # int64; the C pass never steps along such a dim (the sanitized suite caught it multiplying anyway)
    t = pytensor.arange(4.0).unfold(0, 2, 2**62)
    assert t.stride() == (2**62, 1) and shim.tolist(t) == [[0.0, 1.0]] == _convert_out.to_pylist(t)
    e = pytensor.arange(3.0).as_strided((0, 2), (2**62, 1))
    assert shim.tolist(e) == [] == _convert_out.to_pylist(e)
