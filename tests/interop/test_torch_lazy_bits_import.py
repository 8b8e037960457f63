"""torch tensors with the lazy negative or conjugate bit, imported by every
constructor that reads a torch tensor. torch's exports (``__dlpack__`` and its
C exchange table) hand over the stored bytes without the negative bit, and
refuse the conjugate one. Sharing imports keep the bits (the values read, and
writes go through, as torch's own ``asarray`` does); ``tensor`` copies the
values. ``from_dlpack`` of a conjugate view gives torch's BufferError; of a
negative view it keeps the bit where torch's own ``from_dlpack`` drops it (and
reads the signs flipped): a deliberate difference, see the README."""
import pytest

import pytensor
from support import require_module

torch = require_module("torch")

SHARING = ["as_tensor", "asarray", "from_dlpack", "utils.dlpack.from_dlpack"]


def _ctor(name):
    fn = pytensor
    for part in name.split("."):
        fn = getattr(fn, part)
    return fn


class Sub(torch.Tensor):
    """A torch subclass: its type has no exchange table of its own, so it takes the __dlpack__ path."""


def _cases():
    """(title, torch tensor with bits); exact torch tensors take the C exchange path, subclasses __dlpack__."""
    z = torch.tensor([1 + 2j, 3 - 1j, -0.5 + 0.25j, 4 + 0j])
    zz = torch.arange(12, dtype=torch.float64).reshape(3, 4) * (1 - 2j)
    out = [
        ("neg: conj().imag", z.conj().imag),
        ("neg: strided 2-D", zz.conj().imag[:, ::2]),
        ("neg: transposed", zz.conj().imag.T),
        ("neg complex", torch._neg_view(z)),
        ("conj", z.conj()),
        ("conj: strided 2-D", zz.conj()[::2, 1:]),
        ("conj and neg", torch._neg_view(z.conj())),
    ]
    out += [(title + " (subclass)", t.as_subclass(Sub)) for title, t in out[:1] + out[4:5]]
    for title, t in out:
        assert t.is_neg() or t.is_conj(), title
    return out


TITLES = [title for title, _ in _cases()]
NEG_ONLY = [title for title, t in _cases() if not t.is_conj()]


def _case(title):
    """A fresh tensor for the case (the tests write into them)."""
    return dict(_cases())[title]


def _check_values(got, expected, title):
    assert tuple(got.shape) == tuple(expected.shape), title
    assert got.dtype.name == str(expected.dtype).removeprefix("torch."), title
    assert got.tolist() == expected.tolist(), title


@pytest.mark.parametrize("title", TITLES)
def test_tensor_copies_the_values_as_torch_tensor_does(title):
    src = _case(title)
    with pytest.warns(UserWarning, match="clone"):     # torch's advice to copy a tensor with clone()
        expected = torch.tensor(src)
    got = pytensor.tensor(src)
    _check_values(got, expected, title)
    assert not got.is_neg() and not got.is_conj() and got.data_ptr() != src.data_ptr()


@pytest.mark.parametrize("ctor", SHARING)
@pytest.mark.parametrize("title", TITLES)
def test_sharing_imports_keep_the_bits_as_torch_asarray_does(ctor, title):
    src = _case(title)
    expected = torch.asarray(src)                      # shares, and keeps the bits
    if ctor.endswith("from_dlpack") and src.is_conj():
        with pytest.raises(BufferError) as theirs:
            torch.from_dlpack(src)
        with pytest.raises(BufferError, match="conjugate bit") as ours:
            _ctor(ctor)(src)
        assert type(theirs.value) is BufferError and isinstance(ours.value, BufferError)
        return
    got = _ctor(ctor)(src)
    _check_values(got, expected, title)
    assert got.is_neg() == expected.is_neg() and got.is_conj() == expected.is_conj(), title
    assert got.data_ptr() == src.data_ptr() and got.stride() == src.stride(), title
    # a write through the import lands in torch's memory as a write through torch's own view would
    value = 7 - 3j if got.dtype.is_complex else 7.0
    index = (0,) * got.dim()
    got[index] = value
    assert src[index].item() == value, title
    src[index] = 2 * value                             # and the other way
    assert got[index].item() == 2 * value, title


@pytest.mark.parametrize("title", NEG_ONLY)
def test_from_dlpack_of_a_neg_view_reads_the_values_torch_reads(title):
    """torch.from_dlpack drops the bit (its values come out negated); pytensor's keeps it."""
    src = _case(title)
    assert pytensor.from_dlpack(src).tolist() == src.tolist()
    assert torch.from_dlpack(src).tolist() != src.tolist()   # the torch behaviour this departs from
    copied = pytensor.from_dlpack(src, copy=True)            # torch's copy resolves the bit: no bit to keep
    assert copied.tolist() == src.tolist() and not copied.is_neg() and copied.data_ptr() != src.data_ptr()
    shared = pytensor.from_dlpack(src, copy=False)
    assert shared.tolist() == src.tolist() and shared.is_neg() and shared.data_ptr() == src.data_ptr()


@pytest.mark.parametrize("title", TITLES)
def test_converting_constructors_give_the_values(title):
    """asarray/as_tensor with another dtype, and asarray(copy=True), copy: the values, no bits, as torch."""
    src = _case(title)
    other = torch.complex128 if src.dtype is torch.complex64 else torch.complex64 if src.dtype.is_complex \
        else torch.float16
    for fn in ("as_tensor", "asarray"):
        expected = getattr(torch, fn)(src, dtype=other)
        got = getattr(pytensor, fn)(src, dtype=getattr(pytensor, str(other).removeprefix("torch.")))
        _check_values(got, expected, (fn, title))
        assert not got.is_neg() and not got.is_conj() and not expected.is_neg() and not expected.is_conj()
    expected = torch.asarray(src, copy=True)
    got = pytensor.asarray(src, copy=True)
    _check_values(got, expected, title)
    assert got.data_ptr() != src.data_ptr()
    assert got.is_neg() == expected.is_neg() and got.is_conj() == expected.is_conj(), title
