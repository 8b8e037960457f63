"""Complex tensors' parts: ``real`` and ``imag`` are float views of the complex storage
(strides doubled, the imaginary parts one float further), ``conj()`` a conjugate,
checked against torch 2.13: values, layouts, sharing, gradients and DLPack export.
Where pytensor differs (no lazy conjugate bit: README, "Other differences from
torch"), the test says so and asserts pytensor's own behaviour."""
import warnings

import numpy as np
import pytest

import pytensor

LAYOUTS = {  # name: make(M) -> a complex tensor of some layout
    "1-d": lambda M: M.tensor([1 + 2j, 3 - 4j, -5 + 0.5j]),
    "2-d": lambda M: M.tensor([[1 + 2j, 3 - 4j, 5j], [7, -1j, 2 + 2j]], dtype=M.complex128),
    "transposed": lambda M: M.tensor([[1 + 2j, 3 - 4j, 5j], [7, -1j, 2 + 2j]]).t(),
    "sliced": lambda M: M.tensor([1 + 2j, 3 - 4j, -5 + 0.5j, 6 + 6j, 7 - 7j])[1::2],
    "0-d": lambda M: M.tensor(2 - 3j),
    "expanded": lambda M: M.tensor([1 + 1j]).expand(3),
    "empty": lambda M: M.zeros(0, 2, dtype=M.complex64),
}


def _layout(t):
    return tuple(t.shape), t.stride(), t.storage_offset(), str(t.dtype).rpartition(".")[2]


@pytest.mark.parametrize("part", ["real", "imag"])
@pytest.mark.parametrize("name", LAYOUTS)
def test_parts_are_strided_float_views_as_in_torch(torch, name, part):
    ours, theirs = LAYOUTS[name](pytensor), LAYOUTS[name](torch)
    p, q = getattr(ours, part), getattr(theirs, part)
    assert _layout(p) == _layout(q) and p.tolist() == q.tolist()
    byte = 0 if part == "real" else p.element_size()
    assert p.data_ptr() == ours.data_ptr() + byte                          # the same bytes
    assert p.untyped_storage().data_ptr() == ours.untyped_storage().data_ptr()


@pytest.mark.parametrize("part", ["real", "imag"])
def test_writes_through_a_part_reach_the_complex_tensor(torch, part):
    for M in (torch, pytensor):
        z = M.tensor([1 + 2j, 3 - 4j, 5 + 6j])
        getattr(z, part)[1] = 10.0
        setattr(z, part, getattr(z, part) * 2)                               # the setter copies in
        zz = z.view(3, 1).t()
        getattr(zz, part)[0, 0] = -1.0                                      # through a transposed view
        if M is torch:
            want = z.tolist()
        else:
            assert z.tolist() == want
    z = pytensor.tensor([1 + 2j, 3 - 4j])
    z.imag = 0
    assert z.tolist() == [1 + 0j, 3 + 0j]


def test_parts_of_real_tensors_as_torch(torch):
    for M in (torch, pytensor):
        x = M.tensor([1.0, 2.0])
        assert x.real is x and x.conj() is x and x.conj_physical() is x and x.resolve_conj() is x
        with pytest.raises(RuntimeError, match="imag is not implemented for tensors with non-complex dtypes"):
            x.imag


@pytest.mark.parametrize("name", LAYOUTS)
def test_conj_values_and_layout_as_torch(torch, name):
    ours, theirs = LAYOUTS[name](pytensor).conj(), LAYOUTS[name](torch).conj()
    assert ours.tolist() == theirs.tolist() and tuple(ours.shape) == tuple(theirs.shape)
    assert ours.conj_physical().tolist() == theirs.conj_physical().tolist()
    assert ours.resolve_conj().tolist() == theirs.resolve_conj().tolist()


def test_conj_is_new_memory_where_torch_has_a_conjugate_bit(torch):
    """Deliberate difference: torch's conj() is a lazy view (the same memory, is_conj()
    True, writes conjugated on the way); pytensor has no conjugate bit, so conj() is
    the conjugate in new memory and is_conj() is always False."""
    z = torch.tensor([1 + 2j])
    assert z.conj().is_conj() and z.conj().data_ptr() == z.data_ptr()
    ours = pytensor.tensor([1 + 2j])
    c = ours.conj()
    assert not c.is_conj() and not c.imag.is_neg() and c.data_ptr() != ours.data_ptr()
    assert c.resolve_conj() is c and c.resolve_neg() is c
    c[0] = 5j
    assert ours.tolist() == [1 + 2j]


def test_dlpack_export_of_parts_and_conjugates(torch):
    """torch refuses to export a conjugate-bit tensor (BufferError) and exports a
    negative-bit view (conj().imag) with the wrong sign; pytensor's conj() holds its
    values, so both export what they hold. The parts export as strided views."""
    z = torch.tensor([1 + 2j, 3 - 4j])
    with pytest.raises(BufferError, match="conjugate bit"):
        z.conj().__dlpack__()
    assert torch.from_dlpack(z.conj().imag).tolist() == [2.0, -4.0]          # torch: the sign is lost
    ours = pytensor.tensor([1 + 2j, 3 - 4j])
    assert torch.from_dlpack(ours.conj()).tolist() == [1 - 2j, 3 + 4j]
    assert torch.from_dlpack(ours.conj().imag).tolist() == [-2.0, 4.0]
    for part in ("real", "imag"):
        view = getattr(ours, part)
        back = torch.from_dlpack(view)
        assert back.stride() == (2,) and back.data_ptr() == view.data_ptr() and back.tolist() == view.tolist()
        arr = np.from_dlpack(view)
        assert arr.strides == (2 * view.element_size(),) and arr.tolist() == view.tolist()
    imported = pytensor.from_dlpack(z.imag)                                  # torch's part, imported
    assert imported.tolist() == [2.0, -4.0] and imported.stride() == (2,)


def test_gradients_through_parts_and_conj_as_torch(torch):
    grads, names = {}, {}
    for M in (torch, pytensor):
        x = M.tensor([1 + 2j, 3 - 1j], requires_grad=True)
        y = (x.real * M.tensor([2.0, 5.0])).sum() + (x.imag * M.tensor([-1.0, 3.0])).sum() \
            + (x.conj() * M.tensor([1j, 2.0])).real.sum() + (x.conj_physical() * 3).imag.sum()
        y.backward()
        grads[M] = x.grad.tolist()
        names[M] = [x.real.grad_fn.name(), x.imag.grad_fn.name(), x.conj().grad_fn.name(),
                    x.conj_physical().grad_fn.name()]
    assert grads[torch] == grads[pytensor] and names[torch] == names[pytensor]
    leaf = pytensor.tensor([1 + 2j], requires_grad=True)
    with pytest.raises(RuntimeError, match="in-place"):
        leaf.real = 1.0                                                       # a write into a graph's leaf


def test_no_warnings_from_parts():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        z = pytensor.tensor([1 + 2j])
        z.real, z.imag, z.conj(), z.resolve_conj()


TRANSPOSES = {
    "mT": lambda t: t.mT, "mH": lambda t: t.mH, "H": lambda t: t.H, "adjoint": lambda t: t.adjoint(),
}
SHAPED = {
    "0-d": lambda M: M.tensor(1 + 1j), "1-d": lambda M: M.tensor([1 + 2j, 3j]),
    "2-d": lambda M: M.tensor([[1 + 2j, 3j], [4, -1j]]), "3-d": lambda M: M.tensor([[[1 + 2j, 3j]], [[4, -1j]]]),
    "2-d real": lambda M: M.tensor([[1.0, 2.0, 3.0]]), "0-d real": lambda M: M.tensor(2.0),
}


@pytest.mark.parametrize("shaped", SHAPED)
@pytest.mark.parametrize("name", TRANSPOSES)
def test_conjugate_transposes_as_torch(torch, name, shaped):
    """mT, mH, H and adjoint(): values, shapes, strides, identity on 0-D real tensors,
    and torch's RuntimeError where the dimensions do not fit."""
    got = {}
    for M in (torch, pytensor):
        t = SHAPED[shaped](M)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                r = TRANSPOSES[name](t)
        except RuntimeError as e:
            got[M] = ("raises", str(e))
        else:
            got[M] = (r.tolist(), tuple(r.shape), r.stride(), r is t, r.data_ptr() == t.data_ptr())
    if "real" not in shaped and name != "mT" and got[torch][0] != "raises":
        got[torch] = got[torch][:3] + (False, False)  # torch's conjugate is a view (README: no conjugate bit)
    assert got[pytensor] == got[torch]


def test_conjugate_transpose_gradients_as_torch(torch):
    grads = {}
    for M in (torch, pytensor):
        x = M.tensor([[1 + 2j, 3j], [4, -1j]], requires_grad=True)
        (x.mH * M.tensor([[1.0, 2j], [3.0, 4.0]])).real.sum().backward()
        grads[M] = x.grad.tolist()
    assert grads[torch] == grads[pytensor]
