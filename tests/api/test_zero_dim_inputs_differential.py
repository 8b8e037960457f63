"""0-d inputs and 0-d indices of the gather family and of movedim, against
torch: torch reads a 0-d input as one element along its one valid dim (0 or
-1). index_select then takes exactly one index, 0, and gives a 0-d result;
gather takes positions in [0, 1) without wrapping; flip and movedim return it.
Same values, shapes and dtypes, or the same exception type."""
import itertools

import pytest

import pytensor
from support import require_module

torch = require_module("torch")


def _builtin_type(exc):
    return next(c for c in type(exc).__mro__ if c.__module__ == "builtins").__name__


def _outcome(lib, code):
    """(\"ok\", values, shape, dtype name) or (\"raise\", builtin exception type name, message)."""
    try:
        r = eval(code, {"m": lib})                 # noqa: S307 - the codes are this file's own
    except Exception as e:                        # noqa: BLE001 - the type is what is compared
        return ("raise", _builtin_type(e), str(e))
    return ("ok", r.tolist(), tuple(r.shape), str(r.dtype).split(".")[-1])


INDICES = ["m.tensor(0)", "m.tensor(-1)", "m.tensor(1)", "m.tensor([0])", "m.tensor([-1])", "m.tensor([1])",
           "m.tensor([0, 0, 0])", "m.tensor([], dtype=m.int64)", "m.tensor([[0]])",
           "m.tensor([0], dtype=m.int32)", "m.tensor(0, dtype=m.int32)", "m.tensor([-1], dtype=m.int32)",
           "m.tensor([0], dtype=m.int16)"]


def _codes():
    codes = []
    for idx, dim in itertools.product(INDICES, (0, -1, 1, -2)):
        codes += [f"m.index_select(m.tensor(5), {dim}, {idx})", f"m.gather(m.tensor(5), {dim}, {idx})",
                  f"m.tensor(2.5).index_select({dim}, {idx})", f"m.tensor(7).gather({dim}, {idx})"]
    for idx in INDICES:
        codes += [f"m.take(m.tensor(5), {idx})", f"m.index_select(m.tensor([5]), 0, {idx})",
                  f"m.gather(m.tensor([5]), 0, {idx})", f"m.gather(m.tensor([5, 6]), 0, {idx})"]
    for dims in ["0", "(0,)", "(-1,)", "[0]", "(1,)", "(-2,)", "()", "(0, 0)", "[0, -1]", "(0, 1)"]:
        codes += [f"m.tensor(5).flip({dims})", f"m.flip(m.tensor(1.5), {dims})",
                  f"m.tensor(True).flip({dims})"]
    for a, b in [(0, 0), (0, -1), (-1, 0), (-1, -1), (0, 1), (1, 0), (-2, 0), ((0,), (0,)), ((), ()),
                 ([0], [-1]), ((0, 0), (0, 0)), ((0,), ()), (0, (0,))]:
        codes += [f"m.tensor(1.).movedim({a!r}, {b!r})", f"m.tensor(3).movedim({a!r}, {b!r})"]
    return codes


CODES = _codes()


@pytest.mark.parametrize("code", CODES)
def test_zero_dim_inputs_match_torch(code):
    theirs, ours = _outcome(torch, code), _outcome(pytensor, code)
    if theirs[0] == "ok":
        assert ours == theirs, code
    else:
        assert ours[:2] == theirs[:2], (code, theirs, ours)   # the exception type; messages are ours


def test_the_cases_cover_results_and_each_refusal():
    """The grid holds results and each exception type torch gives here (so a case cannot pass by
    both sides refusing everything the same way)."""
    kinds = {_outcome(torch, c)[:2] if _outcome(torch, c)[0] == "raise" else ("ok",) for c in CODES}
    assert kinds >= {("ok",), ("raise", "IndexError"), ("raise", "RuntimeError"), ("raise", "TypeError")}, kinds


def test_the_messages_name_the_numbers():
    with pytest.raises(RuntimeError, match=r"only 1 value, got 3 value\(s\)"):
        pytensor.index_select(pytensor.tensor(5), 0, pytensor.tensor([0, 0, 0]))
    with pytest.raises(IndexError, match="index -1 is out of range for a 0-d input"):
        pytensor.index_select(pytensor.tensor(5), 0, pytensor.tensor([-1]))
    with pytest.raises(RuntimeError, match="index -1 is out of bounds for dimension 0 with size 1"):
        pytensor.gather(pytensor.tensor(5), 0, pytensor.tensor(-1))


def test_zero_dim_results_are_new_memory_or_views_as_in_torch():
    t = pytensor.tensor(5)
    for out in (t.flip(0), pytensor.index_select(t, 0, pytensor.tensor([0])), pytensor.gather(t, 0, pytensor.tensor(0))):
        assert out.shape == () and out.item() == 5 and out.data_ptr() != t.data_ptr()
    moved = t.movedim(0, -1)
    assert moved.shape == () and moved.data_ptr() == t.data_ptr()   # a view, as torch's


@pytest.mark.parametrize("leaf, code", [("3.", "m.gather(a, 0, m.tensor([0, 0]))"),
                                        ("3.", "m.index_select(a, 0, m.tensor([0]))"),
                                        ("3.", "a.flip(0)"), ("3.", "a.movedim(0, 0)"),
                                        ("[3.]", "m.gather(a, 0, m.tensor(0))")])
def test_zero_dim_gradients_match_torch(leaf, code):
    grads = []
    for lib in (torch, pytensor):
        a = lib.tensor(eval(leaf), requires_grad=True)  # noqa: S307
        out = eval(code, {"m": lib, "a": a})            # noqa: S307
        (out * 2).sum().backward()
        grads.append((tuple(out.shape), out.tolist(), a.grad.tolist()))
    assert grads[0] == grads[1], (code, grads)


def test_movedim_with_sequences_matches_torch_on_every_placement():
    t, p = torch.zeros(2, 3, 4, 5), pytensor.zeros(2, 3, 4, 5)
    n = 0
    for k in range(5):
        for src in itertools.permutations(range(-4, 4), k):
            if len({d % 4 for d in src}) < k:
                continue
            for dst in itertools.permutations(range(-4, 4), k):
                if len({d % 4 for d in dst}) < k:
                    continue
                assert tuple(p.movedim(src, dst).stride()) == tuple(t.movedim(src, dst).stride()), (src, dst)
                n += 1
    assert n > 10_000
