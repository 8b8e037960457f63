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
    with pytest.raises(BufferError, match="conjugate bit"):
        z.conj().__dlpack__(copy=True)                                       # torch refuses a copy too
    assert pytensor.from_dlpack(ours.conj().__dlpack__(copy=True)).tolist() == [1 - 2j, 3 + 4j]  # a copy: values
    assert np.from_dlpack(ours.conj().imag, copy=True).tolist() == [-2.0, 4.0]
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


# ============================================================================ bit-carrying views through every op
# Each case runs the same recipe on torch and on pytensor, on a complex base ``z`` seen through views that carry
# the bits: ``v.c`` (conj), ``v.ct`` (a transposed conj), ``v.n`` (conj().imag: the negative bit), next to plain
# operands. A reading case compares the result (values, dtype, shape, and its own bits) and checks the base is
# unchanged; a writing case (name ending "!") compares the base after the write. Either side raising must be
# matched by the other raising the same exception type. Each case names the public paths of
# tests/bench/bench_paths.py it covers; test_bit_cases_cover_every_value_reading_path holds them to the list.

def _views(M):
    z = M.tensor([[1 + 2j, -3 + 0.5j, 0j], [4 - 1j, complex(-0.0, -2.0), 2.5 + 3j]])
    return z, type("V", (), dict(
        z=z, c=z.conj(), ct=z.t().conj(), n=z.conj().imag, r=M.tensor([[1.0, -2.0, 0.5], [3.0, 0.25, -1.0]]),
        m=M.tensor([[True, False, True], [False, True, True]]), i=M.tensor([1, 0]), row=M.tensor([9j, 8, 7 - 1j]),
        M=M))


R = {}  # name -> (bench paths covered, recipe(M, v))


def case(name, *paths):
    def deco(fn):
        R[name] = (paths, fn)
        return fn
    return deco


# ---- elementwise arithmetic and comparisons (the C fast path declines a bit, Python resolves it)
case("c + z", "Tensor.__add__", "add", "Tensor.add")(lambda M, v: (v.c + v.z, M.add(v.c, v.n), v.c.add(1j)))
case("ct + ct", "Tensor.__add__ (a.T + b.T)")(lambda M, v: v.ct + v.ct)
case("1 + c", "Tensor.__radd__")(lambda M, v: (1 + v.c, 2.5 + v.n))
case("c - n", "Tensor.__sub__", "sub", "Tensor.sub")(lambda M, v: (v.c - v.n, M.sub(v.c, v.z), v.n.sub(v.r)))
case("2 - c", "Tensor.__rsub__")(lambda M, v: (2 - v.c, 1 - v.n))
case("c * n", "Tensor.__mul__", "mul", "Tensor.mul", "Tensor.multiply")(
    lambda M, v: (v.c * v.n, M.mul(v.c, v.c), v.n.mul(v.n), v.c.multiply(2)))
case("3 * c", "Tensor.__rmul__")(lambda M, v: (3 * v.c, 2 * v.n))
case("c / 2", "Tensor.__truediv__", "div", "Tensor.div", "Tensor.divide", "Tensor.true_divide")(
    lambda M, v: (v.c / 2, M.div(v.n, 4), v.c.div(2), v.n.divide(v.r), v.n.true_divide(2)))
case("1 / n", "Tensor.__rtruediv__")(lambda M, v: (1 / v.n, 1 / v.c.imag[0, 2]))  # the sign of the zero: inf's
case("-c", "Tensor.__neg__", "Tensor.neg")(lambda M, v: (-v.c, -v.n, v.ct.neg(), v.n.neg()))
case("+c", "Tensor.__pos__")(lambda M, v: (+v.n,))
case("comparisons", "eq", "Tensor.eq", "Tensor.ne", "Tensor.lt", "Tensor.le", "Tensor.gt", "Tensor.ge")(
    lambda M, v: (v.c == v.z.conj_physical(), M.eq(v.c, v.z), v.c.eq(v.c), v.c.ne(v.z), v.n.lt(0), v.n.le(v.r),
                  v.n.gt(-1), v.n.ge(v.n), v.n == v.z.imag))
# ---- reductions
case("sums", "sum", "Tensor.sum", "Tensor.sum(0)", "Tensor.sum(1)", "mean", "Tensor.mean")(
    lambda M, v: (M.sum(v.c), v.c.sum(0), v.ct.sum(1), v.n.sum(), v.n.sum(0), M.mean(v.c), v.n.mean(1)))
case("all/any", "all", "any", "Tensor.all", "Tensor.any")(
    lambda M, v: (M.all(v.n), M.any(v.c), v.n.all(1), v.n.any(0), (v.n + 2).all()))
case("equal", "equal", "equal (first element differs)", "Tensor.equal")(
    lambda M, v: (M.equal(v.c, v.z.conj_physical()), M.equal(v.c, v.z), v.n.equal(-v.z.imag), v.c.equal(v.c)))
# ---- conversions to Python
case("tolist/item", "Tensor.tolist", "Tensor.item")(lambda M, v: (v.c.tolist(), v.n.tolist(), v.c[1, 1].item(),
                                                                  v.n[0, 0].item(), v.ct.tolist()))
case("scalars", "Tensor.__complex__", "Tensor.__float__", "Tensor.__int__", "Tensor.__bool__")(
    lambda M, v: (complex(v.c[0, 0]), float(v.n[0, 1]), int(v.n[1, 2]), bool(v.n[0, 0]), bool(v.c[0, 2])))
case("iter", "Tensor.__iter__", "Tensor.unbind")(lambda M, v: (list(v.c), list(v.n), v.c.unbind(1)))
case("repr", "Tensor.__repr__")(lambda M, v: (repr(v.c).replace("torch.", "").replace("pytensor.", ""),
                                              repr(v.n)))
# ---- copies and casts
case("copies", "Tensor.clone", "Tensor.clone of a.T", "Tensor.contiguous", "Tensor.contiguous of a.T", "Tensor.cpu",
     "Tensor.detach")(lambda M, v: (v.c.clone(), v.ct.clone(), v.c.contiguous(), v.ct.contiguous(), v.c.cpu(),
                                    v.c.detach(), v.n.clone(), v.n.contiguous(), v.n.detach()))
case("casts", "Tensor.to", "Tensor.cdouble", "Tensor.cfloat", "Tensor.double", "Tensor.float", "Tensor.half",
     "Tensor.bfloat16", "Tensor.int", "Tensor.long", "Tensor.short", "Tensor.char", "Tensor.byte", "Tensor.bool",
     "Tensor.type")(
    lambda M, v: (v.c.to(M.complex128), v.c.to(M.complex64), v.c.cdouble(), v.c.cfloat(), v.n.double(), v.n.float(),
                  v.n.half(), v.n.bfloat16().float(), v.n.int(), v.n.long(), v.n.short(), v.n.char(),
                  (v.n + 5).byte(), v.n.bool(), v.c.real.to(M.float64), v.n.type(M.float64)))
case("complex to real", "Tensor.to (complex to real)")(lambda M, v: v.c.to(M.float64))
case("constructors", "tensor", "as_tensor", "asarray", "Tensor.new_tensor")(
    lambda M, v: (M.tensor(v.c), M.as_tensor(v.c), M.asarray(v.c), M.asarray(v.n), v.r.new_tensor(v.c),
                  M.as_tensor(v.c, dtype=M.complex128), M.tensor(v.n)))
case("likes", "zeros_like", "ones_like", "full_like", "empty_like", "rand_like", "randn_like")(
    lambda M, v: (M.zeros_like(v.c), M.ones_like(v.n), M.full_like(v.c, 2j), M.empty_like(v.c).is_conj(),
                  M.rand_like(v.c).is_conj(), M.randn_like(v.n).is_neg()))
# ---- views keep the bit (and their values)
case("views", "Tensor.view", "Tensor.view_as", "Tensor.reshape", "Tensor.reshape_as", "Tensor.t", "Tensor.transpose",
     "Tensor.swapaxes", "Tensor.swapdims", "Tensor.permute", "Tensor.movedim", "Tensor.expand", "Tensor.expand_as",
     "Tensor.flatten", "Tensor.flatten of a.T", "Tensor.unflatten", "Tensor.squeeze", "Tensor.unsqueeze",
     "Tensor.narrow", "Tensor.select", "Tensor.diagonal", "Tensor.as_strided", "Tensor.unfold", "Tensor.split",
     "Tensor.chunk", "Tensor.__getitem__ [i]", "Tensor.__getitem__ [:, a:b]")(
    lambda M, v: (v.c.view(3, 2), v.c.view_as(v.ct), v.c.reshape(6), v.ct.reshape(6), v.n.reshape_as(v.ct),
                  v.c.t(), v.c.transpose(0, 1), v.n.swapaxes(0, 1), v.c.swapdims(1, 0), v.c.permute(1, 0),
                  v.c.movedim(0, 1), v.c[:1].expand(3, 3), v.n[:, :1].expand_as(v.n), v.c.flatten(),
                  v.ct.flatten(), v.c.flatten().unflatten(0, (3, 2)), v.c.unsqueeze(1).squeeze(), v.n.unsqueeze(0),
                  v.c.narrow(1, 1, 2), v.c.select(1, 2), v.c.diagonal(), v.c.as_strided((2, 2), (1, 2), 1),
                  v.n.unfold(1, 2, 1), v.c.split(1, 1), v.n.chunk(2, 1), v.c[1], v.n[1], v.c[:, 1:3], v.ct[1:]))
case("parts of parts", "Tensor.real", "Tensor.imag")(
    lambda M, v: (v.c.real, v.c.imag, v.ct.imag, v.c.conj().imag, v.n.conj(), v.c.mT,
                  v.z.mH, v.z.H, v.z.adjoint(), v.c.mH, v.c.H.imag))
case("resolve", "Tensor.resolve_conj", "Tensor.resolve_neg", "Tensor.conj_physical")(
    lambda M, v: (v.c.resolve_conj(), v.n.resolve_neg(), v.ct.resolve_conj(), v.c.conj_physical(),
                  v.n.resolve_conj(), v.c.resolve_neg()))
# ---- indexing and gathering read the values
case("gathers", "Tensor.__getitem__ [idx]", "Tensor.__getitem__ [mask]", "index_select", "take", "gather",
     "masked_select", "where", "cat", "stack", "flip", "roll")(
    lambda M, v: (v.c[v.i], v.n[v.m], v.c[v.i, 1:], v.c[:, v.i], M.index_select(v.c, 1, v.i), M.take(v.n, v.i),
                  M.gather(v.c, 1, M.tensor([[2], [0]])), M.masked_select(v.c, v.m), M.where(v.m, v.c, v.n),
                  M.where(v.m, 0j, v.c), M.cat([v.c, v.z]), M.stack([v.n, v.r]), M.flip(v.c, (0,)), v.ct.flip(1),
                  M.roll(v.n, 1, 1)))
case("gathers, as methods", "Tensor.index_select", "Tensor.take", "Tensor.gather", "Tensor.masked_select",
     "Tensor.where", "Tensor.flip", "Tensor.roll")(
    lambda M, v: (v.c.index_select(1, v.i), v.n.take(v.i), v.ct.gather(0, M.tensor([[1, 0]])), v.c.masked_select(v.m),
                  v.c.where(v.m, v.n), v.n.flip(0), v.ct.roll(1, 0)))
case("nonzero", "nonzero", "Tensor.nonzero")(lambda M, v: (M.nonzero(v.n), v.c.nonzero(), M.nonzero(v.n + 2)))
case("concat", "concat", "concatenate")(lambda M, v: (M.concat([v.n, v.r], 1), M.concatenate([v.ct, v.ct])))
case("share_memory_", "Tensor.share_memory_", "Tensor.is_shared")(
    lambda M, v: (v.c.share_memory_(), v.c.is_shared(), v.n.share_memory_(), v.z))
# ---- writes through a view store the conjugated / negated value in the base
case("index_put_!", "Tensor.index_put_", "Tensor.index_put")(
    lambda M, v: (v.c.index_put((v.i,), v.row), v.c.index_put_((v.i,), v.row), v.n.index_put_((v.m,), M.tensor(1.5))))
case("index_put_ accumulate!", "Tensor.index_put_")(
    lambda M, v: v.c.index_put_((v.i, M.tensor([2, 2])), M.tensor([1j, 1 + 1j]), accumulate=True))
case("setitem [i]!", "Tensor.__setitem__ [i] = v")(lambda M, v: v.c.__setitem__(0, 1j))
case("setitem [i] part!", "Tensor.__setitem__ [i] = v")(lambda M, v: v.n.__setitem__((1, 1), 5.0))
case("setitem [idx]!", "Tensor.__setitem__ [idx] = row")(lambda M, v: v.c.__setitem__(v.i, v.row))
case("setitem [mask]!", "Tensor.__setitem__ [mask] = 0")(lambda M, v: v.c.__setitem__(v.m, 3 + 4j))
case("setitem [mask] part!", "Tensor.__setitem__ [mask] = 0")(lambda M, v: v.n.__setitem__(v.m, v.r[v.m]))
case("setitem slice from conj!", "Tensor.__setitem__ [i] = v")(lambda M, v: v.z.__setitem__(1, v.c[0]))
case("copy_!", "Tensor.copy_")(lambda M, v: v.c.copy_(v.z * 2))
case("copy_ row!", "Tensor.copy_ (broadcast row)")(lambda M, v: v.c.copy_(v.row))
case("copy_ part!", "Tensor.copy_")(lambda M, v: v.n.copy_(v.r))
case("copy_ overlap!", "Tensor.copy_")(lambda M, v: v.c.copy_(v.z))  # the source is the view's own bytes
case("copy_ into plain!", "Tensor.copy_")(lambda M, v: v.z.copy_(v.ct.t()))
case("fill_!", "Tensor.fill_")(lambda M, v: v.c.fill_(1 + 2j))
case("fill_ part!", "Tensor.fill_")(lambda M, v: v.n[0].fill_(7.0))
case("zero_!", "Tensor.zero_")(lambda M, v: v.n.zero_())
case("in-place ops!", "Tensor.add_", "Tensor.sub_", "Tensor.mul_", "Tensor.div_", "Tensor.__iadd__",
     "Tensor.__isub__", "Tensor.__imul__", "Tensor.__itruediv__")(
    lambda M, v: (v.c.add_(1j), v.c.sub_(v.r), v.ct.mul_(2), v.c.div_(2), v.c.__iadd__(v.z), v.n.__isub__(1),
                  v.n.__imul__(3), v.n.__itruediv__(2)))
case("real/imag setters!", "Tensor.real", "Tensor.imag")(
    lambda M, v: (setattr(v.c, "imag", v.r), setattr(v.ct, "real", 5.0)))
case("random!", "Tensor.uniform_", "Tensor.normal_")(
    lambda M, v: (M.manual_seed(0) and None, v.n.uniform_(2, 3), v.c.real.normal_(), v.ct.imag[0].normal_(5, 1)))
# ---- refusals, as torch's
case("numpy", "Tensor.numpy", "Tensor.__array__")(lambda M, v: v.c.numpy())
case("numpy part", "Tensor.numpy", "Tensor.__array__")(lambda M, v: v.n.numpy())
case("__array__", "Tensor.__array__")(lambda M, v: np.asarray(v.c))
case("dlpack", "Tensor.__dlpack__", "from_dlpack")(lambda M, v: v.c.__dlpack__())
case("from_dlpack", "from_dlpack")(lambda M, v: M.from_dlpack(v.c))
case("view(dtype)", "Tensor.view (dtype)")(lambda M, v: v.c.view(M.float32))
case("view(dtype) part", "Tensor.view (dtype)")(lambda M, v: v.n.view(M.int32))


def _plain(x, M):
    """A result as comparable plain data: a tensor's values, dtype, shape and bits; numbers and containers."""
    if isinstance(x, M.Tensor):
        return ("tensor", str(x.dtype).rpartition(".")[2], tuple(x.shape), x.is_conj(), x.is_neg(),
                _values(x.tolist()))
    if isinstance(x, (tuple, list)):
        return tuple(_plain(y, M) for y in x)
    return _values(x)


def _values(x):
    if isinstance(x, list):
        return tuple(_values(y) for y in x)
    if isinstance(x, complex):
        return (_values(x.real), _values(x.imag))
    if isinstance(x, float):  # a zero's sign is not compared: torch's conjugate fallback varies it by op
        return round(x, 5) + 0.0
    return x


def _run(M, fn):
    z, v = _views(M)
    before = z.tolist()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = _plain(fn(M, v), M)
    except Exception as e:  # noqa: BLE001  (the exception type is the comparison)
        out = ("raises", type(e).__name__)
    return out, _values(z.tolist()), before


@pytest.mark.parametrize("name", R)
def test_bit_carrying_views_through_public_ops_as_torch(torch, name):
    paths, fn = R[name]
    (ours, base, before), (theirs, tbase, _) = _run(pytensor, fn), _run(torch, fn)
    assert ours == theirs
    assert base == tbase
    if not name.endswith("!") and ours[0] != "raises":
        assert base == _values(before)                                       # reading never writes


def test_bit_cases_cover_every_value_reading_path():
    """The checklist: every public path tests/bench/bench_paths.py times is either exercised above with a
    bit-carrying view, or listed here as one that reads no element value of a tensor argument."""
    import os
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), os.pardir, "bench"))
    import bench_paths
    covered = {p for paths, _ in R.values() for p in paths}
    no_values = {  # metadata, factories without a tensor argument, process settings, raw storage access
        "arange", "empty", "zeros", "ones", "full", "eye", "linspace", "rand", "randn", "manual_seed",
        "broadcast_shapes", "promote_types", "get_default_device", "get_default_dtype", "set_default_dtype",
        "get_num_threads", "set_num_threads", "get_printoptions", "is_grad_enabled", "is_tensor", "numel",
        "live_storages", "provenance", "from_file", "from_numpy", "frombuffer", "load",
        "Tensor.__len__", "Tensor.__dlpack_device__", "Tensor.data_ptr", "Tensor.dim", "Tensor.element_size",
        "Tensor.is_complex", "Tensor.is_contiguous", "Tensor.is_floating_point", "Tensor.is_readonly",
        "Tensor.ndimension", "Tensor.nelement", "Tensor.numel", "Tensor.size", "Tensor.stride",
        "Tensor.storage_offset", "Tensor.storage", "Tensor.untyped_storage", "Tensor.requires_grad_",
        "Tensor.detach_", "Tensor.resize_", "Tensor.resize_as_", "Tensor.__index__",  # __index__: integers only
        "Tensor.backward",  # test_gradients_through_bit_carrying_views
        "Tensor.describe",  # the layout and storage, no element values
        "Tensor.is_conj", "Tensor.is_neg",  # the bits themselves: test_conj_is_a_view_with_the_conjugate_bit_as_torch
        "Tensor.conj", "Tensor.adjoint",  # views that set the bit: ::test_conjugate_transposes_as_torch
        "Tensor.__copy__", "Tensor.__deepcopy__",  # ::test_bit_carrying_views_pickle_copy_and_save_their_values
        "randint", "randint_like", "randperm", "seed", "initial_seed", "get_rng_state", "set_rng_state",
    }
    missing = set(bench_paths.RECIPES) - covered - no_values
    assert not missing, sorted(missing)
    assert covered - set(bench_paths.RECIPES) <= {
        "Tensor.real", "Tensor.imag", "Tensor.resolve_conj", "Tensor.resolve_neg", "Tensor.conj_physical",
        "index_select", "take", "gather", "masked_select", "where", "cat", "stack", "flip", "roll",
        "Tensor.uniform_", "Tensor.normal_", "Tensor.to (complex to real)", "Tensor.view (dtype)", "Tensor.__repr__",
        "nonzero", "Tensor.nonzero", "concat", "concatenate", "Tensor.share_memory_", "Tensor.is_shared",
        "Tensor.index_put_", "Tensor.index_put"}


def test_gradients_through_bit_carrying_views_as_torch(torch):
    """Autograd through conj() views, their parts (the negative bit) and ops that read them: torch's
    gradients and node names."""
    grads, names = {}, {}
    for M in (torch, pytensor):
        x = M.tensor([[1 + 2j, 3 - 1j], [0.5j, -2 + 0j]], requires_grad=True)
        c = x.conj()
        y = (c * M.tensor([[1j, 2.0], [3.0, -1j]])).real.sum() + (c.imag * M.tensor([2.0, -3.0])).sum() \
            + c.mH.imag.sum() + (c[0] * c[:, 1]).real.sum()
        y.backward()
        grads[M] = x.grad.tolist()
        names[M] = [c.grad_fn.name(), c.imag.grad_fn.name(), x.mH.grad_fn.name(), c.is_conj(), c.imag.is_neg()]
    assert grads[torch] == grads[pytensor] and names[torch] == names[pytensor]


def test_backward_with_a_bit_carrying_gradient_as_torch(torch):
    """A conjugate (or negative) view given as the gradient is read for its values, complex and real inputs."""
    grads = {}
    for M in (torch, pytensor):
        x = M.tensor([1 + 2j, 3 - 1j], requires_grad=True)
        w = M.tensor([0.5, -2.0], requires_grad=True)
        g = M.tensor([2 - 1j, 1j])
        (x * 2).backward(g.conj())
        (w * 3).backward(g.conj().imag)
        (x * w).backward(g.conj())
        w.to(M.complex64).backward(g.conj())                                 # the cast back takes the real parts
        x.conj().backward(g.conj())
        grads[M] = (x.grad.tolist(), w.grad.tolist())
    assert grads[pytensor] == grads[torch]


def test_a_bit_carrying_view_keeps_its_storage_alive():
    """conj() and conj().imag are views: they hold the base's storage, which outlives the base."""
    import gc
    import weakref
    z = pytensor.tensor([1 + 2j, 3 - 4j])
    c, n = z.conj(), z.conj().imag
    storage = weakref.ref(z.untyped_storage())
    del z
    gc.collect()
    assert storage() is not None and c.untyped_storage() is storage() is n.untyped_storage()
    assert c.tolist() == [1 - 2j, 3 + 4j] and n.tolist() == [-2.0, 4.0]
    del c, n
    gc.collect()
    assert storage() is None


def test_bit_carrying_views_pickle_copy_and_save_their_values(torch, tmp_path):
    """pickle and copy.copy/deepcopy keep the view and its bits (torch's pickles keep them too); safetensors
    stores the values (torch's safetensors has no bits; the file holds the values)."""
    import copy
    import pickle
    from pytensor import safetensors
    z = pytensor.tensor([1 + 2j, 3 - 4j])
    tz = torch.tensor([1 + 2j, 3 - 4j])
    for ours, theirs in ((z.conj(), tz.conj()), (z.conj().imag, tz.conj().imag), (z.t().conj()[1:], tz.conj()[1:])):
        back, tback = pickle.loads(pickle.dumps(ours)), pickle.loads(pickle.dumps(theirs))
        assert (back.tolist(), back.is_conj(), back.is_neg()) == (tback.tolist(), tback.is_conj(), tback.is_neg())
        for dup in (copy.copy(ours), copy.deepcopy(ours)):
            assert (dup.tolist(), dup.is_conj(), dup.is_neg()) == (ours.tolist(), ours.is_conj(), ours.is_neg())
        path = tmp_path / "t.safetensors"
        safetensors.save_file({"t": ours}, path)
        loaded = safetensors.load_file(path)["t"]
        assert loaded.tolist() == ours.tolist() and not loaded.is_conj() and not loaded.is_neg()
    with pytest.raises(TypeError, match="bits must be 0 to 3"):  # a pickle is data: a conjugate bit on floats
        pytensor._tensor_pickle._rebuild_tensor(z.untyped_storage(), "float32", (2,), (1,), 0, False, 1)


def test_bit_carrying_views_cross_processes_with_their_bits():
    """pytensor.multiprocessing's reducer sends a view's bits with its layout: what a receiver rebuilds (here
    through ForkingPickler, the pickler every Queue and Pool uses) reads the values."""
    import pickle
    from multiprocessing.reduction import ForkingPickler
    import pytensor.multiprocessing  # noqa: F401  (registers the reducers)
    z = pytensor.tensor([1 + 2j, 3 - 4j])
    got = [pickle.loads(ForkingPickler.dumps(t)) for t in (z.conj(), z.conj().imag, z)]
    assert [(t.tolist(), t.is_conj(), t.is_neg()) for t in got] == [
        ([1 - 2j, 3 + 4j], True, False), ([-2.0, 4.0], False, True), ([1 + 2j, 3 - 4j], False, False)]


def test_a_forgotten_resolve_fails_loudly_not_silently():
    """The safety net: a kernel handed a bit-carrying tensor through _ptr() raises instead of reading its bytes
    as values (every public path resolves first; this calls the internal directly)."""
    c = pytensor.tensor([1 + 2j]).conj()
    with pytest.raises(RuntimeError, match="conjugate bit reached a kernel unresolved"):
        c._ptr()
    with pytest.raises(RuntimeError, match="negative bit reached a kernel unresolved"):
        c.imag._ptr()
    c.resolve_conj()._ptr()


def test_signed_zeros_of_conjugate_sums_differ_from_torch(torch):
    """README difference: the values of a conjugate view are resolved before the kernel, so c + c of -0.0
    imaginary parts is -0.0 (IEEE); torch's conjugate fallback gives +0.0. A sum() starts from +0.0 in
    both (lt_sum stores sums plus +0.0), so there they agree."""
    import math
    for M in (torch, pytensor):
        c = M.tensor([0j]).conj()
        signs = [math.copysign(1.0, complex(x).imag) for x in ((c + c)[0], c.sum())]
        assert signs == ([1.0, 1.0] if M is torch else [-1.0, 1.0])
        assert math.copysign(1.0, complex(c[0]).imag) == -1.0                 # the value itself: -0.0 in both
