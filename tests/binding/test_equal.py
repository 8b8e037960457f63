"""pytensor.equal against torch.equal, and its early exit.

The early exit is observed without a clock: the first operand is a fresh
sparse file mapped as memory, whose pages stay out of RAM until read
(mincore, through UntypedStorage.resident_pages). A compare that stops at
the first difference leaves all but the first pages unread."""
import ctypes
import mmap
import os

import pytest

import pytensor
from support import require_module

MiB = 1 << 20
P = pytensor.UntypedStorage.page_nbytes


def _cases(torch):
    """(name, pytensor pair, torch pair) for each kind of pair equal() meets."""
    base = [float(i % 7) - 3.0 for i in range(60)]
    out = []

    def add(name, make):
        out.append((name, make(pytensor), make(torch)))

    add("same values", lambda m: (m.tensor(base).view(6, 10), m.tensor(base).view(6, 10)))
    add("last differs", lambda m: (m.tensor(base), m.tensor(base[:-1] + [99.0])))
    add("first differs", lambda m: (m.tensor(base), m.tensor([99.0] + base[1:])))
    add("shapes differ", lambda m: (m.tensor(base).view(6, 10), m.tensor(base).view(10, 6)))
    add("transposed vs copy", lambda m: (m.tensor(base).view(6, 10).T, m.tensor(base).view(6, 10).T.contiguous()))
    add("strided", lambda m: (m.tensor(base).view(6, 10)[::2, 1::3], m.tensor(base).view(6, 10)[::2, 1::3].clone()))
    add("expanded", lambda m: (m.tensor(base[:10]).expand(4, 10), m.tensor(base[:10] * 4).view(4, 10)))
    add("int vs float", lambda m: (m.tensor([1, 2, 3]), m.tensor([1.0, 2.0, 3.0])))
    add("nan", lambda m: (m.tensor([1.0, float("nan")]), m.tensor([1.0, float("nan")])))
    add("signed zero", lambda m: (m.tensor([0.0, 1.0]), m.tensor([-0.0, 1.0])))
    add("bool", lambda m: (m.tensor([True, False]), m.tensor([True, True])))
    add("complex", lambda m: (m.tensor([1 + 2j, 3j]), m.tensor([1 + 2j, 3j])))
    add("complex imag differs", lambda m: (m.tensor([1 + 2j, 3j]), m.tensor([1 + 2j, 4j])))
    add("half", lambda m: (m.tensor(base, dtype=m.float16), m.tensor(base, dtype=m.float16)))
    add("empty", lambda m: (m.zeros(0, 3), m.zeros(0, 3)))
    add("0-d", lambda m: (m.tensor(2.0), m.tensor(2.0)))
    return out


def test_equal_matches_torch():
    torch = require_module("torch")
    cases = _cases(torch)
    assert len(cases) >= 16
    answers = {}
    for name, (pa, pb), (ta, tb) in cases:
        answers[name] = torch.equal(ta, tb)
        assert pytensor.equal(pa, pb) == answers[name], name
    assert set(answers.values()) == {True, False}  # the cases cover both answers


def test_a_difference_anywhere_is_found():
    a = pytensor.zeros(3, 9000)
    for flat in (0, 4095, 4096, 8999, 9000, 26999):
        b = a.clone()
        b.view(-1)[flat] = 1.0
        assert not pytensor.equal(a, b), flat
        assert not pytensor.equal(a.T, b.T), flat
        assert not pytensor.equal(b, a), flat
    assert pytensor.equal(a, a.clone())


def test_equal_stops_at_the_first_difference(tmp_path):
    path = tmp_path / "sparse.bin"
    with open(path, "wb") as f:
        f.truncate(64 * MiB)
    a = pytensor.from_file(str(path), shared=False, dtype=pytensor.float32)
    st = a.untyped_storage()
    libc = ctypes.CDLL(None, use_errno=True)
    libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    assert libc.madvise(st.data_ptr(), st.nbytes(), mmap.MADV_RANDOM) == 0, os.strerror(ctypes.get_errno())
    assert sum(st.resident_pages()) == 0            # a hole no one has read is in no cache
    b = pytensor.ones(a.numel())                      # differs at element 0
    assert pytensor.equal(a, b) is False
    touched = [i for i, r in enumerate(st.resident_pages()) if r]
    # one chunk of 4096 float32s (16 KiB); a file system caching in 2 MiB folios may bring in that block
    assert touched and max(touched) < 2 * MiB // P, touched[-5:]


def test_equal_refuses_float4_as_torch_has_no_arithmetic_for_it():
    if not hasattr(pytensor, "float4_e2m1fn_x2"):
        pytest.fail("pytensor names float4_e2m1fn_x2")
    t = pytensor.zeros(2, dtype=pytensor.uint8).view(pytensor.float4_e2m1fn_x2)
    with pytest.raises(NotImplementedError):
        pytensor.equal(t, t)
