"""item(), float(t), int(t), bool(t), operator.index(t) and complex(t) on the C
base (pytensor/_shim_types.c reads element 0 in one call): where the C path
answers, it answers as the Python path (Conversion._item, _float, ...) and as
torch; where it declines (not one element, a lazy conjugate or negative bit,
the float4, a complex value int()/float() would truncate, a non-integer
index, float() of a tensor that requires grad), the Python path is the one
that answers. Every case is generated from byte patterns and counted."""
import math
import operator
import struct
import warnings

import pytest

import pytensor
from support import require_module

# the C entry point and the Python method it falls back to, per conversion
CONVERSIONS = {
    "item": (lambda t: t.item(), "_item"),
    "float": (float, "_float"),
    "int": (int, "_int"),
    "bool": (bool, "_bool"),
    "index": (operator.index, "_index"),
    "complex": (complex, "_complex"),
}
ONE_BYTE = ["bool", "uint8", "int8", "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz",
            "float8_e8m0fnu"]
WIDE = {
    "uint16": "H", "uint32": "I", "uint64": "Q", "int16": "h", "int32": "i", "int64": "q", "float16": "e",
    "float32": "f", "float64": "d",
}
WIDE_VALUES = [0, 1, 7, 100, 255, 65504, 2**31 - 1, 2**53 + 1, 2**63 - 1, -1, -2**31, -2**63, 2**64 - 1, 0.5, -2.75,
               1e-8, float("inf"), float("-inf"), float("nan"), -0.0]


def _raw_values(name):
    """Every byte pattern of a one-byte dtype; for the wider ones every listed value the dtype can hold."""
    if name in ONE_BYTE:
        return [bytes([b]) for b in range(256)] if name != "bool" else [b"\x00", b"\x01"]
    out = []
    for v in WIDE_VALUES:
        try:
            out.append(struct.pack(WIDE[name], v))
        except (struct.error, OverflowError):
            pass
    return out


def _element(raw, name, layout):
    d = getattr(pytensor, name)
    if layout == "offset":  # element 1 of a two-element storage
        base = pytensor.frombuffer(bytearray(bytes(len(raw)) + raw), dtype=d)
        return base[1:].reshape(())
    t = pytensor.frombuffer(bytearray(raw), dtype=d)
    return {"0d": t.reshape(()), "1": t, "1x1": t.reshape(1, 1), "readonly": pytensor.frombuffer(raw, dtype=d)}[layout]


def _complex_elements():
    for re_, im in [(1.5, 0.0), (0.0, 0.0), (-2.0, 3.0), (0.0, -0.0), (float("nan"), 0.0), (0.0, 1.0)]:
        for name in ("complex64", "complex128"):
            yield name, pytensor.tensor(complex(re_, im), dtype=getattr(pytensor, name))


def _outcome(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            r = fn()
        except Exception as e:  # noqa: BLE001  the exception, its type and message, is the answer
            return ("raises", type(e).__name__, str(e), [str(w.message) for w in caught])
    return (type(r).__name__, repr(r), [str(w.message) for w in caught])  # repr: NaN equals NaN, -0.0 differs


class _Counter:
    """Counts the calls the C path makes into the Python path of a conversion (wrapping, not replacing it)."""

    def __init__(self, monkeypatch):
        self.calls = 0
        self.depth = 0  # inside a Python path: its own inner calls are not the C path's
        for _, slow in CONVERSIONS.values():
            original = getattr(pytensor.Tensor, slow)

            def counted(t, _original=original):
                self.calls += self.depth == 0
                self.depth += 1
                try:
                    return _original(t)
                finally:
                    self.depth -= 1
            monkeypatch.setattr(pytensor.Tensor, slow, counted)

    def reference(self, t, conv):
        """The Python path's answer, not counted."""
        self.depth += 1
        try:
            return _outcome(lambda: getattr(pytensor.Tensor, CONVERSIONS[conv][1])(t))
        finally:
            self.depth -= 1


def _both(counter, t, conv):
    return _outcome(lambda: CONVERSIONS[conv][0](t)), counter.reference(t, conv)


@pytest.mark.parametrize("name", ONE_BYTE + list(WIDE))
@pytest.mark.parametrize("layout", ["0d", "1", "1x1", "offset", "readonly"])
def test_c_path_answers_as_the_python_path_without_calling_it(name, layout, monkeypatch):
    counter = _Counter(monkeypatch)
    taken = 0
    for raw in _raw_values(name):
        t = _element(raw, name, layout)
        for conv in CONVERSIONS:
            if conv == "index" and getattr(pytensor, name).kind not in ("bool", "uint", "int"):
                continue  # the refusal: declined, tested below
            before = counter.calls
            fast, slow = _both(counter, t, conv)
            assert fast == slow, (name, raw, conv)
            assert counter.calls == before, (name, raw, conv)  # the C path answered alone
            taken += 1
    per_value = 6 if getattr(pytensor, name).kind in ("bool", "uint", "int") else 5
    assert taken == len(_raw_values(name)) * per_value and len(_raw_values(name)) >= 2, taken


def test_complex_elements_answer_as_the_python_path(monkeypatch):
    counter = _Counter(monkeypatch)
    taken = declined = 0
    for name, t in _complex_elements():
        for conv in CONVERSIONS:
            before = counter.calls
            fast, slow = _both(counter, t, conv)
            assert fast == slow, (name, t, conv)
            if counter.calls == before:
                taken += 1
            else:  # int()/float() of a non-zero imaginary part and index(): the Python path raised
                declined += 1
                assert fast[0] == "raises", (name, t, conv)
    # 12 tensors x 6 conversions; declined: index() of each, int() and float() of the 4 with an imaginary part
    assert (taken, declined) == (72 - 20, 12 + 8), (taken, declined)


DECLINED = {
    "two elements": lambda: pytensor.tensor([1.0, 2.0]),
    "no element": lambda: pytensor.zeros(0),
    "no element 2-d": lambda: pytensor.zeros(1, 0),
    "conjugate bit": lambda: pytensor.tensor(1 + 2j).conj(),
    "negative bit": lambda: pytensor.tensor(1 + 2j).conj().imag,
    "float4": lambda: pytensor.frombuffer(bytearray(b"\x35"), dtype=pytensor.float4_e2m1fn_x2),
    "float index": lambda: pytensor.tensor(2.0),
    "requires grad": lambda: pytensor.tensor(2.0, requires_grad=True),
}


@pytest.mark.parametrize("case", list(DECLINED))
def test_declined_cases_reach_the_python_path(case, monkeypatch):
    t = DECLINED[case]()
    counter = _Counter(monkeypatch)
    for conv, (fast, slow) in CONVERSIONS.items():
        before = counter.calls
        got, want = _both(counter, t, conv)
        assert got == want, (case, conv)
        if case == "float index" and conv != "index" or case == "requires grad" and conv != "float":
            continue  # the C path answers these conversions of this tensor
        assert counter.calls == before + 1, (case, conv)  # the C path called the Python one


def test_declined_refusals_are_torchs_types():
    for fn, exc in [(lambda: pytensor.tensor([1.0, 2.0]).item(), RuntimeError),
                    (lambda: float(pytensor.zeros(2)), ValueError), (lambda: int(pytensor.zeros(0)), ValueError),
                    (lambda: bool(pytensor.zeros(2)), RuntimeError),
                    (lambda: operator.index(pytensor.tensor(2.0)), TypeError),
                    (lambda: int(pytensor.tensor(1 + 2j)), RuntimeError),
                    (lambda: int(pytensor.tensor(float("nan"))), ValueError),
                    (lambda: int(pytensor.tensor(float("inf"))), OverflowError)]:
        with pytest.raises(exc):
            fn()
    with pytest.warns(UserWarning, match="requires_grad"):
        assert float(pytensor.tensor(2.0, requires_grad=True)) == 2.0


def test_conversions_match_torch():
    torch = require_module("torch")
    cases = 0
    for name in ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
                 "complex64", "complex128"]:
        for v in [0, 1, 3, -2.5, 1e30, float("nan"), 1 + 0j, 2 - 1j]:
            p = pytensor.tensor(v if name.startswith("complex") else v.real if isinstance(v, complex) else v)
            p = p.to(getattr(pytensor, name)) if not name.startswith("complex") else \
                pytensor.tensor(complex(v), dtype=getattr(pytensor, name))
            t = torch.from_numpy(p.numpy().copy()) if name != "bfloat16" else \
                torch.tensor(p.float().item(), dtype=torch.bfloat16)
            for conv in ("item", "float", "bool", "complex") + (("int", "index") if p.dtype.kind != "complex" else ()):
                fast = CONVERSIONS[conv][0]
                if conv == "index" and p.dtype.kind not in ("bool", "uint", "int"):
                    continue
                if conv == "int" and p.dtype.is_floating_point and not math.isfinite(p.item()):
                    continue  # torch's int() of NaN is platform-defined; ours raises as Python's int() does
                got, want = _outcome(lambda: fast(p)), _outcome(lambda: fast(t))
                assert got[:2] == want[:2], (name, v, conv, got, want)
                cases += 1
    assert cases > 300, cases
