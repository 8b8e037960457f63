"""t[index] = value for a basic index and a number or a tensor is written in one C call (the shim's
setitem_basic, behind Tensor.__setitem__). Where it writes, the storage ends as the Python path
leaves it (Indexing.__setitem__ behind the in-place guard): the same bytes, one version bump, the
written view recorded as the last writer with the same provenance; every case it declines (graphs,
read-only storage, expanded targets, values it does not take, advanced indices) reaches the
guarded Python path, which is counted, with its answers and errors."""
import itertools
import warnings

import numpy as np
import pytest

import pytensor
from pytensor import _autograd_ops, _provenance
from pytensor._ffi import shim
from pytensor._tensor_indexing import Indexing

PYTHON_PATH = _autograd_ops._inplace_guard(Indexing.__setitem__)
INDICES = [1, -1, slice(1, 3), (1, 2), (slice(None), 2), (Ellipsis, 1), (None, 0), (1, slice(None, None, 2)),
           (slice(0, 0),), (slice(None), slice(1, -1))]
VALUES = [0.0, 7, True, -2.5, 3 + 0j]


def _targets():
    yield "row-major", lambda: pytensor.arange(12.0).view(3, 4)
    yield "transposed", lambda: pytensor.arange(12.0).view(4, 3).T
    yield "int32", lambda: pytensor.arange(12, dtype=pytensor.int32).view(3, 4)
    yield "complex", lambda: pytensor.arange(12, dtype=pytensor.complex64).view(3, 4)


def _run(setter, t, index, value):
    s = t.untyped_storage()
    v0 = s.version
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            setter(t, index, value)
            error = None
        except Exception as e:  # noqa: BLE001  the refusal is the answer
            error = (type(e).__name__, str(e))
    record = _provenance.last_writer(s)
    writer = None if record is None or record[0] == 0 else (record[0] - v0, _provenance.expr(record[2], "t"))
    return repr(t.tolist()), s.version - v0, writer, error, [str(w.message) for w in caught]


def _value_cases(t, index):
    yield from VALUES
    target_shape = t._getitem(index).shape if t._getitem(index) is not None else ()
    yield pytensor.ones(target_shape, dtype=t.dtype)  # a tensor of the target's shape
    if target_shape:
        yield pytensor.arange(target_shape[-1]).to(t.dtype)  # broadcast along the leading dims
        yield pytensor.ones((1,) + tuple(target_shape), dtype=t.dtype)  # a leading one: dropped (Python)
    yield pytensor.tensor(5.0)  # a 0-d tensor of another dtype: converted


def test_c_path_writes_as_the_python_path():
    taken = declined = 0
    for (layout, make), index in itertools.product(_targets(), INDICES):
        for value in _value_cases(make(), index):
            a, b = make(), make()
            view = shim.setitem_basic(a, index, value)
            if view is None:
                declined += 1
                continue
            taken += 1
            shim.note_write(view)
            got = _run(lambda t, i, v: None, a, index, value)  # a is written: read its state
            want = _run(PYTHON_PATH, b, index, value)
            assert got[0] == want[0], (layout, index, value)
            assert (a.untyped_storage().version, _provenance.provenance(view)[0].op) == \
                (b.untyped_storage().version, "index"), (layout, index, value)
            # through the public method, the whole record: bytes, one bump, the writer, no error
            c = make()
            assert _run(lambda t, i, v: t.__setitem__(i, v), c, index, value) == want, (layout, index, value)
    assert taken > 150 and declined > 5, (taken, declined)


class _Counter:
    """Counts the calls that reach the guarded Python path (the guard's wrapper, wrapped)."""

    def __init__(self, monkeypatch):
        self.calls = 0
        make_guard = _autograd_ops._inplace_guard

        def counting_guard(orig):
            guarded = make_guard(orig)

            def counted(*args):
                self.calls += 1
                return guarded(*args)
            return counted
        monkeypatch.setattr(_autograd_ops, "_inplace_guard", counting_guard)
        monkeypatch.setattr(pytensor.Tensor, "__setitem__", _autograd_ops._setitem_method(Indexing.__setitem__))


DECLINED = {
    "self requires grad": (lambda: pytensor.zeros(3, requires_grad=True), 1, 2.0),
    "graph value": (lambda: pytensor.zeros(3), 1, pytensor.tensor(2.0, requires_grad=True) * 2),
    "read-only": (lambda: pytensor.frombuffer(b"\0" * 12, dtype=pytensor.float32), 1, 2.0),
    "expanded target": (lambda: pytensor.zeros(1, 3).expand(2, 3), slice(None), 1.0),
    "expanded target, tensor": (lambda: pytensor.zeros(1, 3).expand(2, 3), slice(None), pytensor.ones(3)),
    "ellipsis": (lambda: pytensor.zeros(3), Ellipsis, 1.0),
    "empty tuple": (lambda: pytensor.zeros(()), (), 1.0),
    "two ellipses": (lambda: pytensor.zeros(3), (Ellipsis, Ellipsis), 1.0),
    "out of range": (lambda: pytensor.zeros(3), 3, 1.0),
    "advanced index": (lambda: pytensor.zeros(3), pytensor.tensor([0, 2]), 1.0),
    "mask": (lambda: pytensor.zeros(3), pytensor.tensor([True, False, True]), 1.0),
    "list value": (lambda: pytensor.zeros(2, 3), 0, [1.0, 2.0, 3.0]),
    "numpy value": (lambda: pytensor.zeros(2, 3), 0, np.float64(4.0)),
    "overflowing value": (lambda: pytensor.zeros(3, dtype=pytensor.uint8), 1, 300),
    "complex into real": (lambda: pytensor.zeros(3), 1, 1 + 2j),
    "leading ones": (lambda: pytensor.zeros(2, 3), 0, pytensor.ones(1, 3)),
    "bad broadcast": (lambda: pytensor.zeros(2, 3), 0, pytensor.ones(4)),
    "conjugate target": (lambda: pytensor.zeros(3, dtype=pytensor.complex64).conj(), 1, 1 + 1j),
    "string value": (lambda: pytensor.zeros(3), 1, "x"),
}


@pytest.mark.parametrize("case", list(DECLINED))
def test_declined_cases_reach_the_guarded_python_path(case, monkeypatch):
    make, index, value = DECLINED[case]
    want = _run(PYTHON_PATH, make(), index, value)
    counter = _Counter(monkeypatch)
    got = _run(lambda t, i, v: t.__setitem__(i, v), make(), index, value)
    assert got == want and counter.calls == 1, (got, want, counter.calls)


def test_common_writes_never_reach_python(monkeypatch):
    counter = _Counter(monkeypatch)
    t = pytensor.zeros(4, 5)
    t[1] = 2.0
    t[:, 2] = pytensor.ones(4)
    t[2, 3] = 7
    t[..., 0] = pytensor.arange(4.0)
    assert counter.calls == 0
    assert t.tolist()[2] == [2.0, 0.0, 1.0, 7.0, 0.0] and t[1].tolist() == [1.0, 2.0, 1.0, 2.0, 2.0]
