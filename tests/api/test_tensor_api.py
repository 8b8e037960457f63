"""Tensor metadata, conversions to Python and NumPy, writes, factories."""
import gc
import math
import sys
import warnings

import pytest

import pytensor
from support import require_module


def test_metadata():
    t = pytensor.zeros(2, 3, dtype=pytensor.float64)
    assert t.shape == (2, 3) and t.size() == (2, 3) and t.size(1) == 3 and t.size(-1) == 3
    assert repr(t.shape) == "pytensor.Size([2, 3])"
    assert t.stride() == (3, 1) and t.stride(0) == 3
    assert t.storage_offset() == 0 and t.dim() == t.ndim == 2 and t.numel() == 6
    assert t.element_size() == 8 and t.nbytes == 48 and t.itemsize == 8
    assert t.untyped_storage().nbytes() == 48
    assert t.data_ptr() == t.untyped_storage().data_ptr()
    assert t.data_ptr() % 64 == 0
    assert t.is_contiguous() and not t.T.is_contiguous()
    assert str(t.device) == "cpu" and repr(t.device) == "device(type='cpu')"
    assert t.requires_grad is False and t.is_leaf
    assert len(t) == 2
    with pytest.raises(TypeError):
        len(pytensor.tensor(1.0))


def test_tolist_item_and_python_scalars():
    assert pytensor.tensor([[1, 2], [3, 4]]).tolist() == [[1, 2], [3, 4]]
    assert pytensor.tensor(2.5).item() == 2.5 and isinstance(pytensor.tensor(3).item(), int)
    assert pytensor.tensor([True]).item() is True
    assert pytensor.tensor([1 + 2j]).tolist() == [1 + 2j]
    assert pytensor.zeros(2, 0, 3).tolist() == [[], []]
    assert pytensor.zeros(0).tolist() == []
    assert pytensor.tensor([0.5], dtype=pytensor.bfloat16).tolist() == [0.5]
    assert pytensor.tensor([0.5], dtype=pytensor.float16).tolist() == [0.5]
    t = pytensor.arange(6).view(2, 3).T
    assert t.tolist() == [[0, 3], [1, 4], [2, 5]]
    assert int(pytensor.tensor(7)) == 7 and float(pytensor.tensor(1.5)) == 1.5
    assert [x.item() for x in pytensor.arange(3)] == [0, 1, 2]
    with pytest.raises(RuntimeError, match="ambiguous"):
        bool(pytensor.zeros(2))


def test_setitem_scalars_tensors_and_broadcast():
    t = pytensor.zeros(3, 4, dtype=pytensor.int32)
    t[0] = 1
    t[1, 1:3] = pytensor.tensor([7, 8])
    t[2] = pytensor.tensor([[5]]).view(1)
    t[:, 3] = -1
    assert t.tolist() == [[1, 1, 1, -1], [0, 7, 8, -1], [5, 5, 5, -1]]
    t[[0, 2], 0] = 9
    assert t[:, 0].tolist() == [9, 0, 9]
    t[t < 0] = 4
    assert t[:, 3].tolist() == [4, 4, 4]
    with pytest.raises(RuntimeError, match="overflow"):
        t[0, 0] = 2 ** 40


def test_advanced_indexing_matches_numpy():
    np = require_module("numpy")
    a = np.arange(60).reshape(3, 4, 5)
    t = pytensor.arange(60).view(3, 4, 5)
    for idx in ([0, 2], (slice(None), [1, 3]), ([0, 1], [2, 3]), (slice(None), [0, 2], [1, 4]),
                ([[0], [2]], slice(1, 3), [1, 2]), (a[:, :, 0] > 20,), (1, [0, 0, 3]), (Ellipsis, [4, 0])):
        np_idx = tuple(np.asarray(i) if isinstance(i, list) else i for i in (idx if isinstance(idx, tuple) else (idx,)))
        pt_idx = tuple(pytensor.from_numpy(i) if isinstance(i, np.ndarray) else i
                       for i in (idx if isinstance(idx, tuple) else (idx,)))
        assert t[pt_idx].tolist() == a[np_idx].tolist(), idx
    with pytest.raises(IndexError, match="out of bounds"):
        t[[5]]


def test_fill_zero_copy_and_version_counter():
    t = pytensor.empty(4)
    v0 = t._version
    t.fill_(2.5)
    assert t.tolist() == [2.5] * 4 and t._version > v0
    t.zero_()
    assert t.tolist() == [0.0] * 4
    t.copy_(pytensor.tensor([1, 2, 3, 4]))
    assert t.tolist() == [1.0, 2.0, 3.0, 4.0]
    t.copy_(pytensor.tensor(9))
    assert t.tolist() == [9.0] * 4
    with pytest.raises(RuntimeError, match="overflow"):
        pytensor.zeros(2, dtype=pytensor.int32).fill_(1e10)


def test_overlapping_self_copy_is_as_if_through_a_temporary():
    t = pytensor.arange(8)
    t[2:6] = t[0:4]
    assert t.tolist() == [0, 1, 0, 1, 2, 3, 6, 7]
    u = pytensor.arange(8)
    u[0:4] = u[2:6]
    assert u.tolist() == [2, 3, 4, 5, 4, 5, 6, 7]


def test_numpy_zero_copy_and_lifetime():
    np = require_module("numpy")
    t = pytensor.arange(6, dtype=pytensor.float32).view(2, 3)
    a = t.numpy()
    assert a.ctypes.data == t.data_ptr() and a.flags.writeable
    a[0, 0] = 42
    assert t[0, 0].item() == 42
    b = t.T.numpy()
    assert b.strides == (4, 12)
    del t
    gc.collect()
    assert a[0, 0] == 42  # the array keeps the storage alive
    assert np.asarray(pytensor.arange(3)).tolist() == [0, 1, 2]
    with pytest.raises(TypeError, match="BFloat16"):
        pytensor.zeros(2, dtype=pytensor.bfloat16).numpy()
    with pytest.raises(RuntimeError, match="requires grad"):
        pytensor.zeros(2, requires_grad=True).numpy()


def test_numpy_of_readonly_storage_is_readonly():
    t = pytensor.frombuffer(b"\x00" * 8, dtype=pytensor.float32)
    assert not t.numpy().flags.writeable


def test_requires_grad_only_for_float_and_complex():
    assert pytensor.zeros(2, requires_grad=True).requires_grad
    with pytest.raises(RuntimeError, match="floating point and complex"):
        pytensor.zeros(2, dtype=pytensor.int64).requires_grad_()
    assert "requires_grad=True" in repr(pytensor.ones(2, requires_grad=True))


def test_factories():
    assert pytensor.zeros(2, 3).tolist() == [[0.0] * 3] * 2
    assert pytensor.ones((2,), dtype=pytensor.int8).tolist() == [1, 1]
    assert pytensor.full((2, 2), 7).dtype is pytensor.int64
    assert pytensor.full((2,), 1.5).dtype is pytensor.float32
    assert pytensor.full((2,), True).dtype is pytensor.bool
    assert pytensor.arange(5).tolist() == [0, 1, 2, 3, 4]
    assert pytensor.arange(1, 2, 0.25).tolist() == [1.0, 1.25, 1.5, 1.75]
    assert pytensor.arange(5, 0, -2).tolist() == [5, 3, 1]
    assert pytensor.linspace(0, 1, 5).tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert pytensor.eye(2).tolist() == [[1.0, 0.0], [0.0, 1.0]]
    x = pytensor.tensor([[1, 2]], dtype=pytensor.int16)
    for f in (pytensor.zeros_like, pytensor.ones_like, pytensor.empty_like):
        y = f(x)
        assert y.shape == x.shape and y.dtype is x.dtype and y.untyped_storage() is not x.untyped_storage()
    assert pytensor.full_like(x, 3).tolist() == [[3, 3]]
    pytensor.manual_seed(1)
    a = pytensor.rand(1000).tolist()
    pytensor.manual_seed(1)
    assert pytensor.rand(1000).tolist() == a
    assert all(0 <= v < 1 for v in a)
    r = pytensor.randn(10000)
    assert abs(r.mean().item()) < 0.05
    with pytest.raises(RuntimeError, match="negative dimension"):
        pytensor.zeros(-1)
    with pytest.raises(RuntimeError):
        pytensor.arange(0, 5, 0)


def test_factories_match_torch():
    torch = require_module("torch")
    for args in [(10,), (2, 9, 3), (0.5, 3.0, 0.7), (-3, 3)]:
        assert pytensor.arange(*args).tolist() == pytest.approx(torch.arange(*args).tolist())
        assert pytensor.arange(*args).dtype.name == str(torch.arange(*args).dtype)[6:]
    for args in [(0, 1, 7), (-2.5, 10, 11), (3, 3, 1), (0, 1, 0)]:
        assert pytensor.linspace(*args).tolist() == pytest.approx(torch.linspace(*args).tolist(), rel=1e-6)


LINSPACE_COMPLEX = [((0, 1j, 3), {}), ((1j, 2, 3), {}), ((0, 1 + 0j, 5), {}), ((-1 - 2j, 3.5 + 1j, 4), {}),
                    ((0, 1j, 1), {}), ((0, 1j, 0), {}), ((0, 1j, 3), {"dtype": "complex128"}),
                    ((0, 1j, 3), {"dtype": "complex64"}), ((0.5, 2.5, 3), {"dtype": "complex64"}),
                    ((0, 1j, 3), {"dtype": "float32"}), ((0, 1j, 3), {"dtype": "float64"}),
                    ((0, 1j, 3), {"dtype": "int64"}), ((0, 1j, 3), {"dtype": "float16"}),
                    ((0, 1j, 3), {"dtype": "bool"}), (("np", 1j, 2, 3), {}), (("np64", 1j, 2, 3), {}),
                    (("tensor", 1j, 2, 3), {}), (("tensor", 1.0, 2, 3), {})]


@pytest.mark.parametrize("default", ["float32", "float64"])
@pytest.mark.parametrize("args, kwargs", LINSPACE_COMPLEX)
def test_linspace_with_complex_ends_infers_the_default_complex_dtype_as_torch(args, kwargs, default):
    """A complex start or end (Python's, NumPy's, a 0-d tensor's) makes
    linspace complex: the default complex dtype (complex128 under a float64
    default), as torch 2.13 infers it; a real dtype passed for complex ends
    is refused with torch's exception type."""
    torch = require_module("torch")
    np = require_module("numpy")

    def ends(lib):
        if args[0] == "np":
            return (np.complex64(args[1]),) + args[2:]
        if args[0] == "np64":
            return (np.complex128(args[1]),) + args[2:]
        if args[0] == "tensor":
            return (lib.tensor(args[1]),) + args[2:]
        return args

    def answer(lib):
        kw = {k: getattr(lib, v) for k, v in kwargs.items()}
        with warnings.catch_warnings(record=True) as warned:  # NumPy's ComplexWarning, for complex64 read as a float
            warnings.simplefilter("always")
            try:
                t = lib.linspace(*ends(lib), **kw)
            except Exception as e:  # noqa: BLE001  the exception type is part of the answer
                return type(e).__name__
        return str(t.dtype).split(".")[-1], [complex(x) for x in t.tolist()], {w.category for w in warned}

    saved = (torch.get_default_dtype(), pytensor.get_default_dtype())
    torch.set_default_dtype(getattr(torch, default))
    pytensor.set_default_dtype(getattr(pytensor, default))
    try:
        ours, theirs = answer(pytensor), answer(torch)
    finally:
        torch.set_default_dtype(saved[0])
        pytensor.set_default_dtype(saved[1])
    assert ours == theirs


def test_live_storage_count_returns_to_baseline(live_baseline):
    for _ in range(100):
        t = pytensor.zeros(10)
        v = t[2:5].T
        c = v.clone()
        del t, v, c


@pytest.mark.parametrize("make", [
    lambda: pytensor.zeros(2**40, 2**40),
    lambda: pytensor.empty(2**62, 4),
    lambda: pytensor.ones(2**31, 2**31, 2**2, dtype=pytensor.complex128),
])
def test_size_overflow_raises_runtime_error_as_torch(make, torch):
    with pytest.raises(RuntimeError, match="overflowed"):
        make()
    with pytest.raises(RuntimeError, match="overflowed"):
        torch.zeros(2**40, 2**40)


def test_bad_input_raises_torch_exception_types(torch):
    cases = [
        lambda m: m.arange(12).view(3, 4)[5],
        lambda m: m.arange(12).view(5),
        lambda m: m.zeros(-1),
        lambda m: m.arange(12).view(3, 4)[0, 0, 0],
        lambda m: m.arange(12).view(3, 4).permute(0, 0),
        lambda m: m.arange(12).view(3, 4).transpose(0, 3),
        lambda m: m.arange(12).view(3, 4).expand(2, 4),
        lambda m: m.arange(12).narrow(0, 10, 5),
        lambda m: m.arange(12).view(3, 4).squeeze(2),
    ]
    for case in cases:
        with pytest.raises(Exception) as want:
            case(torch)
        with pytest.raises(type(want.value)):
            case(pytensor)


def test_writes_into_expanded_views_are_refused_as_torch(torch):
    for m in (torch, pytensor):
        base = m.arange(4.0)
        wide = base.expand(2, 4)
        for write in (lambda: wide.__setitem__(slice(None), 1.0), lambda: wide.copy_(m.zeros(2, 4)),
                      lambda: wide.add_(1)):
            with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
                write()
        assert base.tolist() == [0.0, 1.0, 2.0, 3.0]
        wide.fill_(2.0)  # one value through every alias: torch allows it
        assert base.tolist() == [2.0, 2.0, 2.0, 2.0]
        one = base[:1].expand(1, 1)  # stride 0 over a single element is a plain write
        one.fill_(5.0)
        assert base[0].item() == 5.0
