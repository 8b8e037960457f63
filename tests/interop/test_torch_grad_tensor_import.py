"""tensor() of a torch tensor that requires grad copies its values, as
torch.tensor does (torch's __dlpack__ refuses such a tensor, so pytensor reads
it detached); the sharing constructors keep torch's DLPack refusal, since a
pytensor tensor cannot join torch's autograd graph."""
import warnings

import pytest

import pytensor
from support import require_module

torch = require_module("torch")


def _sources():
    leaf = torch.tensor([1.5, -2.0, 3.25], requires_grad=True)
    z = torch.tensor([1 + 2j, 3 - 1j], requires_grad=True)
    return [("leaf", leaf), ("non-leaf", leaf * 2), ("strided", (leaf * 2)[::2]),
            ("conj view", z.conj()), ("neg view", z.conj().imag)]


@pytest.mark.parametrize("title", [t for t, _ in _sources()])
def test_tensor_copies_a_torch_tensor_that_requires_grad(title):
    src = dict(_sources())[title]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")           # torch's advice to use clone().detach()
        expected = torch.tensor(src)
    got = pytensor.tensor(src)
    assert got.tolist() == expected.tolist() and got.dtype.name == str(expected.dtype).removeprefix("torch.")
    assert not got.requires_grad and not expected.requires_grad
    assert got.data_ptr() != src.data_ptr()
    got.add_(1) if not got.dtype.is_complex else got.mul_(2)
    assert src.tolist() == dict(_sources())[title].tolist()  # the source is untouched


def test_requires_grad_asked_of_the_copy_is_pytensors_own():
    src = torch.tensor([1.0, 2.0], requires_grad=True)
    got = pytensor.tensor(src, requires_grad=True)
    (got * 3).sum().backward()
    assert got.grad.tolist() == [3.0, 3.0] and src.grad is None


@pytest.mark.parametrize("ctor", ["as_tensor", "asarray", "from_dlpack"])
def test_sharing_constructors_keep_torchs_refusal(ctor):
    src = torch.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(BufferError, match="require gradient"):
        torch.from_dlpack(src)
    with pytest.raises(BufferError, match="require gradient"):
        getattr(pytensor, ctor)(src)
