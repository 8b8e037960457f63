"""Complex tensors' parts: ``real`` and ``imag`` are float views of the complex storage
(strides doubled, the imaginary parts one float further), ``conj()`` a conjugate,
checked against torch 2.13: values, layouts, sharing, gradients and DLPack export.
``conj()`` is torch's lazy conjugate: a view with the conjugate bit, and ``conj().imag``
a view with the negative bit (pytensor/_conj.py); the differential tests below feed such
views to the public ops, as inputs and as outputs. Where pytensor differs (README,
"Other differences from torch"), the test says so and asserts pytensor's own behaviour."""
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


def test_conj_is_a_view_with_the_conjugate_bit_as_torch(torch):
    """torch's conj() is a lazy view: the same memory, strides and offset, is_conj() True, conj() again drops
    the bit, resolve_conj() materialises (new memory, bit off) and returns self when the bit is off,
    conj_physical() always copies, and conj() of a tensor that is not complex is the tensor itself."""
    for name in ("1-d", "transposed", "sliced", "0-d", "expanded"):
        got = {}
        for M in (torch, pytensor):
            z = LAYOUTS[name](M)
            c = z.conj()
            r = c.resolve_conj()
            p = c.conj_physical()
            got[M] = (c.is_conj(), c.data_ptr() == z.data_ptr(), _layout(c) == _layout(z), c.tolist(),
                      c.conj().is_conj(), c.conj().data_ptr() == z.data_ptr(), c.conj().tolist() == z.tolist(),
                      r.is_conj(), r.data_ptr() != z.data_ptr(), r.tolist(), r.stride(), z.resolve_conj() is z,
                      p.is_conj(), p.data_ptr() != z.data_ptr(), p.tolist(), z.conj_physical().tolist(),
                      c.resolve_neg() is c, c.is_neg(), c.imag.is_neg(), c.real.is_neg(), c.imag.is_conj())
        assert got[pytensor] == got[torch], name
    for M in (torch, pytensor):
        real = M.tensor([1.0, -2.0])
        assert real.conj() is real and real.resolve_conj() is real and real.conj_physical() is real


def test_dlpack_numpy_and_buffer_export_of_bit_carrying_views(torch):
    """torch refuses to export a tensor with the conjugate bit (BufferError) and to call numpy() on one
    (RuntimeError, __array__ too); pytensor matches. torch exports a negative-bit view (conj().imag) through
    DLPack with the sign lost; pytensor refuses that too (README, differences). pytensor's buffer protocol
    (torch has none) refuses both bits. The resolved tensors export their values; the parts export as
    strided views."""
    z = torch.tensor([1 + 2j, 3 - 4j])
    ours = pytensor.tensor([1 + 2j, 3 - 4j])
    for M, t in ((torch, z), (pytensor, ours)):
        with pytest.raises(BufferError, match="Can't export tensors with the conjugate bit set"):
            t.conj().__dlpack__()
        with pytest.raises(RuntimeError, match="Can't call numpy\\(\\) on Tensor that has conjugate bit set"):
            t.conj().numpy()
        with pytest.raises(RuntimeError, match="Can't call numpy\\(\\) on Tensor that has conjugate bit set"):
            np.asarray(t.conj())
        with pytest.raises(RuntimeError, match="Can't call numpy\\(\\) on Tensor that has negative bit set"):
            t.conj().imag.numpy()
    assert torch.from_dlpack(z.conj().imag).tolist() == [2.0, -4.0]          # torch: the sign is lost
    with pytest.raises(BufferError, match="Can't export tensors with the negative bit set"):
        ours.conj().imag.__dlpack__()
    with pytest.raises(BufferError, match="negative bit"):
        torch.from_dlpack(ours.conj().imag)
    with pytest.raises(BufferError, match="conjugate bit"):
        np.from_dlpack(ours.conj())
    for view in (ours.conj(), ours.conj().imag, ours.conj()[1:]):
        with pytest.raises(BufferError, match="bit set through the buffer protocol"):
            memoryview(view)
        with pytest.raises(RuntimeError, match="bit set"):
            view.__array_interface__
    assert torch.from_dlpack(ours.conj().resolve_conj()).tolist() == [1 - 2j, 3 + 4j]
    assert torch.from_dlpack(ours.conj().imag.resolve_neg()).tolist() == [-2.0, 4.0]
    assert ours.conj().resolve_conj().numpy().tolist() == [1 - 2j, 3 + 4j]
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
            got[M] = (r.tolist(), tuple(r.shape), r.stride(), r is t, r.data_ptr() == t.data_ptr(), r.is_conj())
    assert got[pytensor] == got[torch]


def test_conjugate_transpose_gradients_as_torch(torch):
    grads = {}
    for M in (torch, pytensor):
        x = M.tensor([[1 + 2j, 3j], [4, -1j]], requires_grad=True)
        (x.mH * M.tensor([[1.0, 2j], [3.0, 4.0]])).real.sum().backward()
        grads[M] = x.grad.tolist()
    assert grads[torch] == grads[pytensor]
