"""eye's one-call diagonal fill and linspace's split generator (sequence.c):
eye answers as zeros + diagonal().fill_(1) does (values, strides, version,
provenance) and as torch does; linspace gives, value for value, the rule
lt_fill_linspace states (start + i * step below n/2, end - (n-1-i) * step
from there), across the generator's chunk boundaries, for real and
integer dtypes."""
import warnings

import numpy as np
import pytest

import pytensor
from support import require_module

SHAPES = [(3,), (3, 5), (5, 3), (0,), (0, 3), (3, 0), (1,), (1, 7)]
DTYPES = [None, "bool", "int8", "int64", "float16", "bfloat16", "complex64", "float8_e4m3fn"]


def _python_eye(*shape, dtype=None):
    t = pytensor.zeros(shape[0], shape[-1], dtype=dtype)
    t.diagonal().fill_(1)
    return t


@pytest.mark.parametrize("dt", DTYPES)
def test_eye_answers_as_the_diagonal_fill_and_torch(dt):
    torch = require_module("torch")
    warnings.simplefilter("ignore", UserWarning)  # comparing complex64 through float32 drops the 0 imaginary parts
    for shape in SHAPES:
        dtype = getattr(pytensor, dt) if dt else None
        got, want = pytensor.eye(*shape, dtype=dtype), _python_eye(*shape, dtype=dtype)
        assert got.dtype == want.dtype and got.shape == want.shape and got.stride() == want.stride()
        assert got.to(pytensor.float32).tolist() == want.to(pytensor.float32).tolist()
        assert got._version == want._version
        assert [s.text for s in pytensor.provenance(got)] == [f"eye({', '.join(map(str, shape))})"]
        te = torch.eye(*shape, dtype=getattr(torch, dt) if dt else None)
        assert got.stride() == te.stride()
        assert got.to(pytensor.float32).tolist() == te.to(torch.float32).tolist()
    assert pytensor.eye(2, requires_grad=True).requires_grad


def _rule(start, end, n):
    if n == 1:
        return np.array([float(start)])
    step = (end - start) / (n - 1)
    i = np.arange(n)
    return np.where(i < n // 2, start + i.astype(np.float64) * step, end - (n - 1 - i).astype(np.float64) * step)


@pytest.mark.parametrize("ends", [(0, 1), (-3.5, 7.25), (1e10, -1e-3), (0.1, 0.7), (5, 5), (-1e300, 1e300)])
def test_linspace_values_follow_the_stated_rule(ends):
    start, end = ends
    for n in (1, 2, 3, 1023, 1024, 1025, 2047, 2049, 100_001):
        want = _rule(start, end, n)
        assert np.array_equal(pytensor.linspace(start, end, n, dtype=pytensor.float64).numpy(), want), n
        with np.errstate(over="ignore"):  # +-1e300 become +-inf in float32, as lt_copy converts them
            want32 = want.astype(np.float32)
        assert np.array_equal(pytensor.linspace(start, end, n).numpy(), want32), n
        if abs(start) < 2**62 and abs(end) < 2**62:
            got = pytensor.linspace(start, end, n, dtype=pytensor.int32).numpy()
            assert np.array_equal(got, want.astype(np.int64).astype(np.int32)), n  # through int64, as stated


def test_linspace_records_its_arguments_and_refuses_as_before():
    assert [s.text for s in pytensor.provenance(pytensor.linspace(0, 1j, 3, dtype=pytensor.complex64))] == \
        ["linspace(0, 1j, 3)"]
    assert pytensor.linspace(0, 2j, 3, dtype=pytensor.complex64).tolist() == [0j, 1j, 2j]
    with pytest.raises(ValueError, match="Overflow"):
        pytensor.linspace(0, 2**70, 3, dtype=pytensor.int64)
    with pytest.raises(RuntimeError, match="non-negative"):
        pytensor.linspace(0, 1, -1)
