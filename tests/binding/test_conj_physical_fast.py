"""conj_physical's C fast path (the shim's conj_physical, issue 27): a dense complex tensor with no bits
goes through one C call; it must agree with the Python path of pytensor/_conj.py (materialise of an alias
with the conjugate bit flipped), and decline (None) everything else, which conjugate_copy then handles."""
import pytest

import pytensor
from pytensor import _conj
from pytensor._ffi import shim


def _python_path(t):
    alias = _conj.raw(t)
    alias._bits = t._bits ^ _conj.CONJ
    return _conj.materialise(alias, alias._bits)


def _same(a, b):
    assert a.dtype == b.dtype and tuple(a.shape) == tuple(b.shape) and a.stride() == b.stride()
    assert a.storage_offset() == b.storage_offset() == 0 and not a.is_conj() and not a.is_neg()
    # bytes, not values: -0.0 in the imaginary parts (conjugating 0j) must match too
    assert _signed(a.real) == _signed(b.real) and _signed(a.imag) == _signed(b.imag)


def _signed(part):
    return [repr(x) for x in part.reshape(-1).tolist()]  # repr tells -0.0 from 0.0


TAKEN = {  # name: make() -> a tensor the fast path takes
    "1-d c64": lambda: pytensor.tensor([1 + 2j, 3 - 4j, -5 + 0.5j, 0j, -0j]),
    "2-d c128": lambda: pytensor.tensor([[1 + 2j, 3 - 4j, 5j], [7, -1j, 2 + 2j]], dtype=pytensor.complex128),
    "transposed (dense, permuted)": lambda: pytensor.tensor([[1 + 2j, 3 - 4j, 5j], [7, -1j, 2 + 2j]]).t(),
    "0-d": lambda: pytensor.tensor(2 - 3j),
    "offset view": lambda: pytensor.tensor([9j, 1 + 2j, 3 - 4j])[1:],
    "odd stride on a size-1 dim": lambda: pytensor.tensor([1 + 2j, 3 - 4j]).as_strided((2, 1), (1, 7)),
    "large c128": lambda: pytensor.arange(3000, dtype=pytensor.float64).reshape(1000, 3).to(pytensor.complex128)
    * (1 - 2j),
}


@pytest.mark.parametrize("name", TAKEN)
def test_fast_path_agrees_with_the_python_path(name):
    t = TAKEN[name]()
    fast = shim.conj_physical(t)
    assert fast is not None, "the fast path declined a dense complex tensor"
    _same(fast, _python_path(t))
    _same(t.conj_physical(), fast)
    assert fast.data_ptr() != t.data_ptr()


DECLINED = {  # name: make() -> a tensor the fast path declines
    "real dtype": lambda: pytensor.tensor([1.0, -2.0]),
    "conjugate bit": lambda: pytensor.tensor([1 + 2j, 3 - 4j]).conj(),
    "not dense (a step)": lambda: pytensor.tensor([1 + 2j, 3 - 4j, 5j, 6 + 1j])[::2],
    "overlapping (expanded)": lambda: pytensor.tensor([1 + 1j]).expand(3),
    "empty": lambda: pytensor.zeros(0, 2, dtype=pytensor.complex64),
}


@pytest.mark.parametrize("name", DECLINED)
def test_fast_path_declines_and_the_python_path_answers(name):
    t = DECLINED[name]()
    assert shim.conj_physical(t) is None
    out = t.conj_physical()
    if not t.dtype.is_complex:
        assert out is t                                  # torch: a real tensor's conj_physical is itself
        return
    want = [complex(z).conjugate() for z in t.reshape(-1).tolist()]
    assert out.reshape(-1).tolist() == want and not out.is_conj()


def test_fast_path_refuses_a_non_tensor():
    with pytest.raises(TypeError):
        shim.conj_physical([1j])


def test_grad_goes_through_autograd_not_around_it():
    z = pytensor.tensor([1 + 2j, 3 - 4j], requires_grad=True)
    c = z.conj_physical()
    assert c.grad_fn is not None and c.tolist() == [1 - 2j, 3 + 4j]


RESOLVED = {  # name: make() -> a tensor with the conjugate bit; resolve_conj takes the fast path for the dense ones
    "dense": lambda: pytensor.tensor([[1 + 2j, -0j], [3 - 4j, 5j]]).conj(),
    "transposed": lambda: pytensor.tensor([[1 + 2j, -0j], [3 - 4j, 5j]], dtype=pytensor.complex128).t().conj(),
    "stepped (declined)": lambda: pytensor.tensor([1 + 2j, 0j, 3 - 4j, 5j])[::2].conj(),
    "expanded (declined)": lambda: pytensor.tensor([1 + 2j]).expand(3).conj(),
}


@pytest.mark.parametrize("name", RESOLVED)
def test_resolve_conj_agrees_with_its_values(name):
    t = RESOLVED[name]()
    out = t.resolve_conj()
    assert not out.is_conj() and not out.is_neg() and out.data_ptr() != t.data_ptr()
    plain = _conj.raw(t)  # the stored bytes as values
    want = [complex(z).conjugate() for z in plain.reshape(-1).tolist()]
    assert out.reshape(-1).tolist() == want
    assert _signed(out.imag) == [repr(-x) for x in plain.imag.reshape(-1).tolist()]  # -0.0 and 0.0 swap
    assert tuple(out.shape) == tuple(t.shape)
    if "declined" not in name:
        assert out.stride() == t.stride()


def test_resolve_conj_keeps_a_negative_bit_on_the_python_path():
    z = pytensor.tensor([1 + 2j, 3 - 4j]).conj()
    n = _conj.raw(z)
    n._bits = _conj.CONJ | _conj.NEG  # conj and neg together: resolve_conj resolves only the conjugate bit
    out = n.resolve_conj()
    assert out.is_neg() and not out.is_conj() and _conj.raw(out).tolist() == [1 - 2j, 3 + 4j]
