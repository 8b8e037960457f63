"""A list that stands in several places of a nest (``[[0] * n] * m``, the
common idiom) is data, not a cycle: tensor, as_tensor and asarray build it as
torch does, for every dtype. Only a list that contains itself on its own path
is refused, without hanging or crashing."""
import builtins
import json
import subprocess
import sys
import tempfile

import pytest

import pytensor
from ctor_support import ALL_DTYPES
from support import require_module

torch = require_module("torch")

CONSTRUCTORS = ["tensor", "as_tensor", "asarray"]


def _values(dtype_name):
    """Two distinct Python values a tensor of ``dtype_name`` holds exactly."""
    if dtype_name == "bool":
        return True, False
    if dtype_name.startswith("complex"):
        return 1 + 2j, -3.5j
    if dtype_name.startswith(("float", "bfloat")):
        return 1.5, -2.0
    return 1, 7


def _nests(a, b):
    """Nests with repeated inner lists at depths 1 to 4, each as (title, data)."""
    row = [a, b]
    other = [b, a]
    deep = [[[a] * 2] * 3] * 2
    return [
        ("row twice", [row] * 2),
        ("[[x] * 3] * 4", [[a] * 3] * 4),
        ("row, other, row", [row, other, row]),
        ("one row in every cell of depth 3", [[row, row], [row, row]]),
        ("depth 4", [deep, deep]),
        ("a tuple of one list twice", ([row, row], [other, row])),
        ("the outer list repeated too", [[[row] * 2] * 2] * 2),
    ]


def _torch_values(t):
    if t.dtype is torch.bfloat16:
        t = t.float()
    return t.tolist()


@pytest.mark.parametrize("dtype_name", [None] + ALL_DTYPES)
@pytest.mark.parametrize("ctor", CONSTRUCTORS)
def test_repeated_inner_lists_build_as_torch_builds_them(ctor, dtype_name):
    a, b = _values(dtype_name or "int64")
    compared = 0
    for title, data in _nests(a, b):
        pt_kw = {} if dtype_name is None else {"dtype": getattr(pytensor, dtype_name)}
        th_kw = {} if dtype_name is None else {"dtype": getattr(torch, dtype_name)}
        expected = getattr(torch, ctor)(data, **th_kw)
        got = getattr(pytensor, ctor)(data, **pt_kw)
        assert tuple(got.shape) == tuple(expected.shape), title
        assert got.dtype.name == str(expected.dtype).removeprefix("torch."), title
        values = (got.float() if got.dtype is pytensor.bfloat16 else got).tolist()
        assert values == _torch_values(expected), title
        compared += 1
    assert compared == len(_nests(a, b))


def test_inferred_dtypes_of_repeated_rows_match_torch():
    for row in ([True, False], [1, 2], [1.5, 2], [1j, 2]):
        assert pytensor.tensor([row] * 3).dtype.name == str(torch.tensor([row] * 3).dtype).removeprefix("torch.")


def test_a_list_repeated_at_two_depths_is_refused_as_torch_refuses_it():
    """[f, [f, f]]: f is a row at depth 1 and an element at depth 2; torch
    refuses the list where it wanted a number (TypeError), and so do we: it is
    no cycle."""
    f = [0, 0]
    with pytest.raises(TypeError, match="'list' object cannot be interpreted as an integer"):
        pytensor.tensor([f, [f, f]])
    with pytest.raises(TypeError):
        torch.tensor([f, [f, f]])


# Cycles, each built by the child process from this source: (name, code building `data`, exception
# torch raises or None where torch 2.13 crashes the interpreter on it (infinite recursion in its
# dtype inference), and the part of pytensor's message expected).
CYCLES = [
    ("holds itself after a number", "data = [1]; data.append(data)", "TypeError", "self-referential"),
    ("holds itself after a row", "data = [[1, 2]]; data.append(data)", "TypeError", "self-referential"),
    ("its own first element", "data = []; data.append(data)", "ValueError", "too many dimensions"),
    ("its own first two elements", "data = []; data += [data, data]", "ValueError", "too many dimensions"),
    ("first element of its first row", "data = [[1, 2], [3, 4]]; data[0][0] = data", "ValueError",
     "too many dimensions"),
    ("through an inner list", "data = [0]; data.append([data])", None, "self-referential"),
    ("through a tuple", "inner = []; inner.append((inner,)); data = [1, inner]", None, "self-referential"),
    ("deep in the second row", "data = [[1, 2], [3, 4]]; data[1][1] = [data, data]", None, "self-referential"),
]

_CHILD = """
import json, sys, pytensor
results = {}
for name, build in json.loads(sys.argv[1]):
    scope = {}
    exec(build, scope)
    for kw in ({}, {"dtype": pytensor.int32}, {"dtype": pytensor.bool}):
        try:
            pytensor.tensor(scope["data"], **kw)
            results.setdefault(name, []).append(["accepted", ""])
        except Exception as e:
            results.setdefault(name, []).append([type(e).__name__, str(e)])
print(json.dumps(results))
"""


def test_real_cycles_are_refused_without_hanging_or_crashing():
    out = subprocess.run([sys.executable, "-c", _CHILD, json.dumps([[n, b] for n, b, _, _ in CYCLES])],
                         capture_output=True, text=True, timeout=120, cwd=tempfile.gettempdir())
    assert out.returncode == 0, out.stderr
    results = json.loads(out.stdout)
    assert sorted(results) == sorted(name for name, _, _, _ in CYCLES)
    for name, build, torch_exc, message in CYCLES:
        for exc, text in results[name]:
            expected_exc = torch_exc or "TypeError"
            assert exc == expected_exc and message in text, (name, exc, text)
        if torch_exc is not None:   # the same exception type as torch, where torch answers at all
            scope = {}
            exec(build, scope)
            with pytest.raises(getattr(builtins, torch_exc)):
                torch.tensor(scope["data"])
