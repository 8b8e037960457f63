"""Views against torch: the same chain of view operations applied to the
same data gives the same shape, strides, storage offset and values, shares
the storage, and a write through the view lands in the same base elements.
Shapes, dtypes and chains come from hypothesis."""
import pytest
from hypothesis import given, settings, strategies as st, HealthCheck

import pytensor
from support import require_module

DTYPES = ["float32", "float64", "int64", "int32", "int16", "uint8", "bool", "float16", "complex64", "bfloat16"]


@st.composite
def view_chains(draw):
    ndim = draw(st.integers(1, 4))
    shape = tuple(draw(st.integers(0, 4)) for _ in range(ndim))
    ops = []
    cur = list(shape)
    for _ in range(draw(st.integers(1, 5))):
        n = len(cur)
        choices = ["unsqueeze", "T"]
        if n:
            choices += ["slice", "transpose", "narrow", "flip_perm", "flatten"]
            if any(s > 0 for s in cur):
                choices.append("index")
            if 1 in cur:
                choices += ["squeeze", "expand"]
        kind = draw(st.sampled_from(choices))
        if kind == "slice":
            d = draw(st.integers(0, n - 1))
            start = draw(st.integers(-5, 5))
            stop = draw(st.one_of(st.none(), st.integers(-5, 5)))
            step = draw(st.integers(1, 3))
            ops.append(("slice", d, start, stop, step))
            cur[d] = len(range(*slice(start, stop, step).indices(cur[d])))
        elif kind == "index":
            d = draw(st.sampled_from([i for i in range(n) if cur[i] > 0]))
            i = draw(st.integers(-cur[d], cur[d] - 1))
            ops.append(("index", d, i))
            cur.pop(d)
        elif kind == "transpose":
            a, b = draw(st.integers(0, n - 1)), draw(st.integers(0, n - 1))
            ops.append(("transpose", a, b))
            cur[a], cur[b] = cur[b], cur[a]
        elif kind == "narrow":
            d = draw(st.integers(0, n - 1))
            start = draw(st.integers(0, cur[d]))
            length = draw(st.integers(0, cur[d] - start))
            ops.append(("narrow", d, start, length))
            cur[d] = length
        elif kind == "flip_perm":
            perm = draw(st.permutations(range(n)))
            ops.append(("permute", tuple(perm)))
            cur = [cur[p] for p in perm]
        elif kind == "flatten":
            ops.append(("flatten",))
            total = 1
            for s in cur:
                total *= s
            cur = [total]
        elif kind == "unsqueeze":
            d = draw(st.integers(0, n))
            ops.append(("unsqueeze", d))
            cur.insert(d, 1)
        elif kind == "squeeze":
            d = draw(st.sampled_from([i for i in range(n) if cur[i] == 1]))
            ops.append(("squeeze", d))
            cur.pop(d)
        elif kind == "expand":
            d = draw(st.sampled_from([i for i in range(n) if cur[i] == 1]))
            k = draw(st.integers(0, 3))
            sizes = list(cur)
            sizes[d] = k
            ops.append(("expand", tuple(sizes)))
            cur = sizes
        elif kind == "T":
            ops.append(("T",))
            cur = cur[::-1]
    return shape, ops, draw(st.sampled_from(DTYPES))


def apply(t, op):
    kind = op[0]
    if kind == "slice":
        _, d, start, stop, step = op
        return t[(slice(None),) * d + (slice(start, stop, step),)]
    if kind == "index":
        return t[(slice(None),) * op[1] + (op[2],)]
    if kind == "transpose":
        return t.transpose(op[1], op[2])
    if kind == "narrow":
        return t.narrow(op[1], op[2], op[3])
    if kind == "permute":
        return t.permute(*op[1])
    if kind == "flatten":
        return t.flatten()
    if kind == "unsqueeze":
        return t.unsqueeze(op[1])
    if kind == "squeeze":
        return t.squeeze(op[1])
    if kind == "expand":
        return t.expand(*op[1])
    if kind == "T":
        return t.T if t.dim() != 2 else t.t()
    raise AssertionError(kind)


def _base(lib, shape, dtype):
    n = 1
    for s in shape:
        n *= s
    t = lib.arange(n).to(getattr(lib, dtype))
    return t.reshape(shape)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(view_chains())
def test_view_chains_match_torch(chain):
    torch = require_module("torch")
    shape, ops, dtype = chain
    ref = _base(torch, shape, dtype)
    ours = _base(pytensor, shape, dtype)
    r, o = ref, ours
    for op in ops:
        r, o = apply(r, op), apply(o, op)
        assert tuple(o.shape) == tuple(r.shape), op
        if op[0] != "flatten":
            assert o.stride() == r.stride(), op
            assert o.storage_offset() == r.storage_offset(), op
        if r.untyped_storage().data_ptr() == ref.untyped_storage().data_ptr():
            assert o.untyped_storage() is ours.untyped_storage(), f"{op} should be a view"
        assert o.is_contiguous() == r.is_contiguous()
    got = o.tolist() if dtype != "bfloat16" else o.float().tolist()
    want = r.tolist() if dtype != "bfloat16" else r.float().tolist()
    assert got == want


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(view_chains())
def test_writes_through_views_land_in_the_base(chain):
    torch = require_module("torch")
    shape, ops, dtype = chain
    ops = [op for op in ops if op[0] != "expand"]  # torch refuses writes into overlapping expanded views
    ref = _base(torch, shape, dtype)
    ours = _base(pytensor, shape, dtype)
    r, o = ref, ours
    for op in ops:
        # Dropping the expands can leave later ops with arguments that no longer
        # fit; then both libraries must refuse alike.
        try:
            r = apply(r, op)
        except (IndexError, RuntimeError) as e:
            with pytest.raises(type(e)):
                apply(o, op)
            return
        o = apply(o, op)
    if o.numel() == 0:
        return
    r.fill_(1)
    o.fill_(1)
    want = ref.float().tolist() if dtype == "bfloat16" else ref.tolist()
    got = ours.float().tolist() if dtype == "bfloat16" else ours.tolist()
    assert got == want


def test_views_share_and_copies_do_not():
    t = pytensor.arange(12).view(3, 4)
    for v in (t[1], t[:, 1], t[::2, ::3], t.T, t.view(4, 3), t.reshape(2, 6), t.transpose(0, 1), t.permute(1, 0),
              t.unsqueeze(0), t[None, ..., None], t.squeeze(), t[0:1].expand(5, 4), t.flatten(), t.narrow(1, 1, 2),
              t.unfold(1, 2, 1), t.diagonal(), t.detach()):
        assert v.untyped_storage() is t.untyped_storage()
    for c in (t.clone(), t.T.contiguous(), t.to(pytensor.float32), t.float(), t.double(), t.int(), t.bool(),
              t.T.reshape(12), t[[0, 2]], t[t > 5]):
        assert c.untyped_storage() is not t.untyped_storage()
    assert t.contiguous() is t and t.long() is t


def test_data_ptr_is_storage_plus_offset():
    t = pytensor.zeros(4, 5, dtype=pytensor.float64)
    v = t[1:, 2:]
    assert v.data_ptr() == t.data_ptr() + (1 * 5 + 2) * 8
    assert v.storage_offset() == 7
    assert v.untyped_storage().data_ptr() == t.data_ptr()
    assert v.untyped_storage().nbytes() == 160


@pytest.mark.parametrize("bad, exc, msg", [
    (lambda t: t.view(4), RuntimeError, r"shape '\[4\]' is invalid for input of size 6"),
    (lambda t: t.T.view(6), RuntimeError, "view size is not compatible"),
    (lambda t: t[5], IndexError, "index 5 is out of bounds for dimension 0 with size 2"),
    (lambda t: t[0, 0, 0], IndexError, "too many indices for tensor of dimension 2"),
    (lambda t: t.transpose(0, 5), IndexError, r"Dimension out of range \(expected to be in range of \[-2, 1\]"),
    (lambda t: t.expand(3, 3), RuntimeError, "must match the existing size"),
    (lambda t: t[::-1], ValueError, "step must be greater than zero"),
    (lambda t: t.narrow(1, 2, 2), RuntimeError, r"start \(2\) \+ length \(2\) exceeds dimension size \(3\)"),
    (lambda t: t.squeeze(4), IndexError, "Dimension out of range"),
    (lambda t: t.reshape(-1, -1), RuntimeError, "only one dimension can be inferred"),
    (lambda t: t.permute(0, 0), RuntimeError, "duplicate dims"),
    (lambda t: t.item(), RuntimeError, "a Tensor with 6 elements cannot be converted to Scalar"),
    (lambda t: t["a"], TypeError, "only integers, slices"),
    (lambda t: t.as_strided((3, 3), (3, 1)), RuntimeError, r"view needs bytes \[0, 36\) but the storage holds 24"),
])
def test_bad_views_raise_torch_types(bad, exc, msg):
    t = pytensor.zeros(2, 3)
    with pytest.raises(exc, match=msg):
        bad(t)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.integers(0, 5), min_size=1, max_size=3), st.integers(-8, 8),
       st.one_of(st.none(), st.integers(-8, 8)), st.one_of(st.none(), st.integers(-8, 8)),
       st.one_of(st.none(), st.integers(1, 4)))
def test_fast_index_paths_agree_with_the_general_indexer(shape, i, start, stop, step):
    """t[int] and t[slice] take a shortcut in Tensor.__getitem__; it must equal the general path."""
    from pytensor._indexing import getitem
    n = 1
    for s in shape:
        n *= s
    t = pytensor.arange(n).view(shape)[:, None][:, 0] if len(shape) > 1 else pytensor.arange(n).view(shape)
    for index in (i, slice(start, stop, step)):
        try:
            want = getitem(t, index)
        except IndexError:
            with pytest.raises(IndexError):
                t[index]
            continue
        got = t[index]
        assert (got.shape, got.stride(), got.storage_offset()) == (want.shape, want.stride(), want.storage_offset())
        assert got.untyped_storage() is t.untyped_storage() and got.tolist() == want.tolist()
