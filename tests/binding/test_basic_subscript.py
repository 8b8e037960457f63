"""t[index] for a tuple of basic items (ints, slices, None, one Ellipsis) is a view the shim's
subscript slot builds in one call (_shim_view.c, basic_view). Where it answers, it answers as the
Python indexer (Tensor._getitem) and as torch: shape, strides, offset, storage, values, the
conjugate/negative bits and the provenance key; every other index (and every refusal) reaches
the Python indexer, which is counted."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import pytensor
from pytensor import _provenance
from support import require_module

ITEM = st.one_of(
    st.integers(-6, 6), st.none(), st.just(Ellipsis),
    st.builds(slice, st.none() | st.integers(-7, 7), st.none() | st.integers(-7, 7), st.none() | st.integers(1, 3)))


def _layouts(shape):
    n = int(np.prod(shape))
    base = pytensor.arange(n + 3, dtype=pytensor.int16)[3:].view(shape)  # a non-zero offset
    yield "row-major", base
    if len(shape) > 1:
        yield "transposed", base.transpose(0, -1)


class _Counter:
    def __init__(self, monkeypatch):
        self.calls = 0
        original = pytensor.Tensor._getitem

        def counted(t, index):
            self.calls += 1
            return original(t, index)
        monkeypatch.setattr(pytensor.Tensor, "_getitem", counted)


def _view_facts(v):
    return (tuple(v.shape), v.stride(), v.storage_offset(), v.dtype, v._bits, v.tolist())


seen = {"fast": 0, "python": 0}


@settings(max_examples=400, deadline=None)
@given(shape=st.lists(st.integers(0, 4), min_size=0, max_size=4), items=st.lists(ITEM, min_size=0, max_size=5).filter(lambda xs: sum(x is Ellipsis for x in xs) <= 1))
def test_tuple_index_answers_as_the_python_indexer_and_torch(shape, items):
    torch = require_module("torch")
    index = tuple(items)
    for _, t in _layouts(shape):
        tt = torch.as_strided(torch.arange(300, dtype=torch.int16), t.shape, t.stride(), t.storage_offset())
        try:
            want = tt[index]
        except (IndexError, ValueError, RuntimeError) as e:
            for fn in (lambda: t[index], lambda: t._getitem(index)):
                with pytest.raises(type(e)):
                    fn()
            seen["python"] += 1
            continue
        got, ref = t[index], t._getitem(index)
        assert _view_facts(got) == _view_facts(ref), index
        assert (tuple(got.shape), got.stride(), got.storage_offset()) == \
            (tuple(want.shape), want.stride(), want.storage_offset()), index
        assert got.untyped_storage() is t.untyped_storage() and got.tolist() == want.tolist()
        assert _provenance.provenance(got)[0] == _provenance.provenance(ref)[0], index  # op and text
        seen["fast"] += 1


def test_the_generated_cases_cover_both_outcomes():
    if seen["fast"] == 0:  # run alone: generate now
        test_tuple_index_answers_as_the_python_indexer_and_torch()
    assert seen["fast"] > 200 and seen["python"] > 20, seen


COMMON = [(1, 2), (slice(None), slice(1, -1)), (Ellipsis, 1), (None, 1), (1, None, slice(2, None)), (),
          (slice(None, None, 2), Ellipsis, None)]


@pytest.mark.parametrize("index", COMMON, ids=repr)
def test_common_indices_never_reach_python(index, monkeypatch):
    t = pytensor.arange(24.0).view(2, 3, 4)
    want = _view_facts(t._getitem(index))
    counter = _Counter(monkeypatch)
    assert _view_facts(t[index]) == want and counter.calls == 0
    c = pytensor.from_numpy(np.arange(24).reshape(2, 3, 4) * (1 - 2j)).conj()  # views carry the conjugate bit
    assert c._bits and c[index]._bits == c._bits and counter.calls == 0
    assert c[index].tolist() == c._getitem(index).tolist()


DECLINED = {
    "requires grad": (lambda: pytensor.arange(6.0).view(2, 3).requires_grad_(), (slice(None), 1)),
    "index out of range": (lambda: pytensor.zeros(2, 3), (0, 3)),
    "negative step": (lambda: pytensor.zeros(2, 3), (slice(None), slice(None, None, -1))),
    "zero step": (lambda: pytensor.zeros(2, 3), (slice(None, None, 0),)),
    "two ellipses": (lambda: pytensor.zeros(2, 3), (Ellipsis, Ellipsis)),
    "too many indices": (lambda: pytensor.zeros(2, 3), (0, 0, 0)),
    "bool item": (lambda: pytensor.zeros(2, 3), (True, 0)),
    "numpy int": (lambda: pytensor.zeros(2, 3), (np.int64(1), 0)),
    "numpy int in a slice": (lambda: pytensor.zeros(2, 3), (slice(np.int64(1), None), 0)),
    "index tensor": (lambda: pytensor.zeros(2, 3), (slice(None), pytensor.tensor([0, 2]))),
    "list": (lambda: pytensor.zeros(2, 3), ([0, 1], 0)),
    "beyond int64": (lambda: pytensor.zeros(2, 3), (2**70,)),
    "0-d tensor item": (lambda: pytensor.zeros(2, 3), (pytensor.tensor(1), 0)),
}


@pytest.mark.parametrize("case", list(DECLINED))
def test_declined_indices_reach_the_python_indexer(case, monkeypatch):
    make, index = DECLINED[case]
    t = make()
    try:
        want = ("ok", _view_facts(t._getitem(index)))
    except Exception as e:  # noqa: BLE001  the refusal is the answer
        want = ("raises", type(e).__name__, str(e))
    counter = _Counter(monkeypatch)
    try:
        got = ("ok", _view_facts(t[index]))
    except Exception as e:  # noqa: BLE001
        got = ("raises", type(e).__name__, str(e))
    assert got == want and counter.calls == 1, (got, want, counter.calls)
