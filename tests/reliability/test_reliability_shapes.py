"""Shapes and strides at the edges, against torch.

Item 5: ``empty``/``zeros(2**62, 2**62, 0)`` were accepted (the size was
multiplied in Python, where a 0 hides any overflow before it) while ``ones``,
torch and NumPy refused them, and ``tolist()`` of the result then grew
without end. Every constructor now sizes new memory by libtensor's one rule
(``lt_layout_numel``/``lt_layout_nbytes``, torch's ``safe_compute_numel``):
the running product of the sizes must stay within uint64 and end within
int64, a 0 excusing nothing. Each factory is compared with torch over the
same shapes: refused by both (as ``RuntimeError``) or accepted by both with
the same shape and strides.

Item 15: a write into a tensor with no elements whose strides are 0 (NumPy's
``np.empty((0, 3))`` seen with strides (0, 0), or broadcast strides) was
refused as self-overlapping; torch does it, as a no-op. The overlap rule
(``lt_layout_has_internal_overlap``) now says a view with no elements never
overlaps itself.
"""
import numpy as np
import pytest

import pytensor

# Shapes that hold no elements or cannot be sized, so nothing here allocates.
EDGE_SHAPES = [
    (2**62, 2**62, 0),          # the report: 2**124 elements before the 0
    (2**32, 2**32, 0),          # 2**64: past uint64
    (2**31, 2**31, 4, 0),
    (4, 2**62, 0),              # 2**64 again, with the 0 last
    (3, 2**62, 0),              # 3 * 2**62 fits uint64 (not int64): torch holds 0 elements
    (2**63 - 1, 2, 0),          # 2**64 - 2 fits uint64: 0 elements
    (2**62, 0, 2**62),          # the 0 comes first: nothing overflows
    (0, 2**62, 2**62),          # no element, but the row-major stride of dimension 0 leaves int64
    (0, 2**32, 2**31),          # the same at 2**63
    (0, 2**32, 2**31 - 1),      # one below: fine
    (2**40, 2**40),             # plainly too many elements
    (0,), (2, 0, 3), (),
]

FACTORIES = {
    "empty": lambda m, s: m.empty(*s) if s else m.empty(s),
    "empty(dtype=complex128)": lambda m, s: m.empty(s, dtype=m.complex128),
    "zeros": lambda m, s: m.zeros(s),
    "zeros(dtype=int8)": lambda m, s: m.zeros(s, dtype=m.int8),
    "ones": lambda m, s: m.ones(s),
    "full": lambda m, s: m.full(s, 2.0),
    "rand": lambda m, s: m.rand(s),
    "randn": lambda m, s: m.randn(s),
    "resize_": lambda m, s: m.zeros(2).resize_(s),
    "expand": lambda m, s: m.zeros((1,) * len(s)).expand(s),
}


def outcome(make, module, shape):
    """("ok", shape, strides) or ("refused", exception type); never reads the elements."""
    try:
        t = make(module, shape)
    except Exception as e:  # noqa: BLE001 - the type is what is compared
        return ("refused", type(e))
    return ("ok", tuple(t.shape), tuple(t.stride()))


@pytest.mark.parametrize("factory", sorted(FACTORIES))
def test_every_factory_accepts_and_refuses_the_shapes_torch_does(factory, torch):
    make = FACTORIES[factory]
    seen = set()
    for shape in EDGE_SHAPES:
        want = outcome(make, torch, shape)
        got = outcome(make, pytensor, shape)
        seen.add(want[0])
        if want[0] == "refused":
            assert got[0] == "refused", f"{factory}{shape}: torch refuses it, pytensor made {got}"
            assert issubclass(got[1], RuntimeError), f"{factory}{shape}: {got[1]} is not torch's RuntimeError"
        else:
            assert got == want, f"{factory}{shape}: torch gives {want}, pytensor {got}"
    assert seen == {"ok", "refused"}, f"{factory}: the shapes must cover both answers, saw {seen}"


def test_the_reported_shape_is_refused_with_the_sizes_in_the_message():
    for make in (pytensor.empty, pytensor.zeros):
        with pytest.raises(RuntimeError, match=r"overflowed with sizes=\[4611686018427387904, "
                                               r"4611686018427387904, 0\]"):
            make(2**62, 2**62, 0)


def test_a_shape_one_constructor_accepts_every_other_accepts_and_uses(torch):
    # (3, 2**62, 0) holds 0 elements by torch's rule: empty made it while ones and reshape refused it.
    for t in (pytensor.empty(3, 2**62, 0), pytensor.ones(3, 2**62, 0), pytensor.zeros(1, 1, 1).expand(3, 2**62, 0),
              pytensor.empty(0).reshape(3, 2**62, 0), pytensor.empty(0).view(3, 2**62, 0)):
        assert t.numel() == 0 and t.shape == (3, 2**62, 0)
        t.add_(1)                                       # no element: nothing to do, nothing to refuse
        assert t.sum(dim=1).shape == (3, 0)
        for m, u in ((torch, torch.empty(3, 2**62, 0)), (pytensor, t)):
            with pytest.raises(RuntimeError, match="overflowed"):
                u.sum(dim=2)                            # 3 * 2**62 elements: no result can hold them
    for m in (torch, pytensor):
        with pytest.raises(RuntimeError):
            m.empty(0).reshape(2**62, 2**62, 0)


# ---------------------------------------------------------------- item 15


def _numpy_zero_strides(shape, strides):
    """A writable NumPy array of ``shape`` with no elements and the given byte strides."""
    return np.lib.stride_tricks.as_strided(np.empty((0,) + shape[1:]), shape, strides)


EMPTY_ALIASED = {
    "np.empty((0, 3)) with strides (0, 0)": lambda m: m.from_numpy(_numpy_zero_strides((0, 3), (0, 0))),
    "np (0, 1) broadcast to (0, 3)": lambda m: m.from_numpy(_numpy_zero_strides((0, 3), (8, 0))),
    "np (3, 0) with strides (0, 0)": lambda m: m.from_numpy(np.lib.stride_tricks.as_strided(
        np.empty((3, 0)), (3, 0), (0, 0))),
    "expand (0, 1) -> (0, 3)": lambda m: m.zeros(0, 1, dtype=m.float64).expand(0, 3),
    "as_strided (3, 0), (0, 0)": lambda m: m.zeros(0, dtype=m.float64).as_strided((3, 0), (0, 0)),
}

WRITES = {
    "t[:] = tensor": lambda m, t: t.__setitem__(slice(None), m.zeros(t.shape, dtype=t.dtype)),
    "t[:] = scalar": lambda m, t: t.__setitem__(slice(None), 1.0),
    "t[...] = tensor": lambda m, t: t.__setitem__(Ellipsis, m.ones(t.shape, dtype=t.dtype)),
    "copy_": lambda m, t: t.copy_(m.zeros(t.shape, dtype=t.dtype)),
    "add_(1)": lambda m, t: t.add_(1),
    "mul_(2)": lambda m, t: t.mul_(2),
    "sub_(tensor)": lambda m, t: t.sub_(m.ones(t.shape, dtype=t.dtype)),
    "fill_": lambda m, t: t.fill_(1),
    "zero_": lambda m, t: t.zero_(),
}


@pytest.mark.parametrize("source", sorted(EMPTY_ALIASED))
@pytest.mark.parametrize("write", sorted(WRITES))
def test_writes_into_an_empty_tensor_with_zero_strides_are_no_ops_as_in_torch(source, write, torch):
    want_t = EMPTY_ALIASED[source](torch)
    got_t = EMPTY_ALIASED[source](pytensor)
    assert got_t.stride() == want_t.stride() and got_t.shape == tuple(want_t.shape)
    assert 0 in got_t.stride()                          # the case the report is about
    WRITES[write](torch, want_t)                        # torch: a no-op
    WRITES[write](pytensor, got_t)                      # refused as self-overlapping before the fix
    assert got_t.numel() == 0 and got_t.shape == tuple(want_t.shape)


@pytest.mark.parametrize("write", sorted(set(WRITES) - {"fill_", "zero_"}))
def test_a_write_through_aliased_elements_is_still_refused_as_torch_refuses_it(write, torch):
    for m in (torch, pytensor):
        t = m.zeros(4, dtype=m.float64).as_strided((3, 2), (0, 1))   # three rows, one location each
        with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
            WRITES[write](m, t)
