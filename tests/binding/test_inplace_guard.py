"""The in-place guard every write method passes (_autograd_ops._inplace_guard): it reads the grad
mode and the flags first and calls nothing in the common case, so each of its three answers is pinned
here: a leaf that requires grad is refused, a write that touches a graph (through self or a tensor
argument) is refused, and everything inside no_grad(), or with no tensor requiring grad, writes."""
import threading

import pytest

import pytensor

LEAF = "leaf Variable that requires grad"
GRAPH = "does not record in-place operations"


def _writes():
    return {
        "add_": lambda t, a: t.add_(a), "copy_": lambda t, a: t.copy_(a), "fill_": lambda t, a: t.fill_(a[0]),
        "mul_": lambda t, a: t.mul_(a), "setitem": lambda t, a: t.__setitem__(0, a[0]),
    }


@pytest.mark.parametrize("write", list(_writes()))
def test_guard_answers(write):
    fn = _writes()[write]
    leaf = pytensor.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match=LEAF):
        fn(leaf, pytensor.zeros(2))
    with pytest.raises(RuntimeError, match=GRAPH):
        fn(leaf * 2, pytensor.zeros(2))  # a non-leaf in a graph
    if write not in ("fill_", "setitem"):  # these take the argument's value, not the tensor
        with pytest.raises(RuntimeError, match=GRAPH):
            fn(pytensor.zeros(2), leaf)  # a plain tensor written from a graph
    plain = pytensor.zeros(2)
    assert fn(plain, pytensor.ones(2)) is not None or write == "setitem"
    with pytensor.no_grad():
        fn(leaf, pytensor.zeros(2))
        fn(leaf * 2, pytensor.zeros(2))


def test_grad_mode_default_holds_in_every_thread_without_being_set():
    seen = []
    with pytensor.no_grad():
        t = threading.Thread(target=lambda: seen.append((pytensor.is_grad_enabled(), pytensor.ones(1).add_(1))))
        t.start()
        t.join()
        assert not pytensor.is_grad_enabled()
    assert seen[0][0] is True and seen[0][1].item() == 2.0
    assert pytensor.is_grad_enabled()
