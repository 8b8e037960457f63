"""pytensor agrees with torch where users hit it.

Each behaviour runs once with torch and once with pytensor and must agree:
the same result dtype and values, or an exception of torch's type (pytensor's
exceptions derive from the builtin torch raises). Where pytensor differs on
purpose (README: "Where pytensor is deliberately safer than torch" and "Other
differences from torch"), the test asserts pytensor's own behaviour instead.
"""
import math
import operator
import os
import pathlib
import stat
import subprocess
import sys
import warnings

import numpy as np
import pytest

import pytensor
from support import require_module

# ============================================================================ the comparison


def outcome(M, fn):
    """What ``fn(M)`` gives: ("tensor", dtype name, shape, values), ("value", type, value)
    or ("raises", exception class)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = fn(M)
    except Exception as e:  # noqa: BLE001 - the exception is the result being compared
        return ("raises", type(e))
    if isinstance(r, (M.Tensor,)):
        return ("tensor", str(r.dtype).rpartition(".")[2], tuple(r.shape), r.tolist())
    return ("value", type(r), r)


def _same_number(a, b, rel):
    if isinstance(a, complex) or isinstance(b, complex):
        return _same_number(complex(a).real, complex(b).real, rel) and _same_number(complex(a).imag,
                                                                                    complex(b).imag, rel)
    if isinstance(a, float) and math.isnan(a):
        return isinstance(b, float) and math.isnan(b)
    if isinstance(a, float) or isinstance(b, float):
        return a == b or math.isclose(a, b, rel_tol=rel)
    return a == b and type(a) is type(b)


def _same_values(a, b, rel):
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(_same_values(x, y, rel) for x, y in zip(a, b))
    return _same_number(a, b, rel)


def assert_same(torch, fn, what=""):
    """``fn`` run with torch and with pytensor agrees (see the module docstring)."""
    want, got = outcome(torch, fn), outcome(pytensor, fn)
    if want[0] == "raises":
        assert got[0] == "raises" and issubclass(got[1], want[1]), (what, want, got)
        return got[1]
    assert got[0] == want[0], (what, want, got)
    if want[0] == "tensor" and want[1] == "complex32":  # README: pytensor has no complex32; complex64 instead
        want = (want[0], "complex64") + want[2:]
    if want[0] == "tensor":
        rel = 1e-3 if want[1] in ("float16", "bfloat16") else 1e-6
        assert got[1:3] == want[1:3] and _same_values(want[3], got[3], rel), (what, want, got)
    else:
        assert got[1] is want[1] and _same_values(want[2], got[2], 1e-6), (what, want, got)
    return got


# ============================================================================ NumPy scalars and arrays as operands

OPERATORS = [operator.add, operator.sub, operator.mul, operator.truediv,
             operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge]
BASES = {  # name: (values, dtype): tensors of several categories, 1-d and 0-d
    "int32": ([1, 2, 3], "int32"), "int8": ([1, -2, 3], "int8"), "uint8": ([1, 2, 3], "uint8"),
    "int64": ([4, 5, -6], "int64"), "float32": ([1.5, -2.0, 3.0], "float32"),
    "float16": ([1.5, 2.0, -3.0], "float16"), "float64-0d": (2.5, "float64"), "int16-0d": (3, "int16"),
    "bool": ([True, False, True], "bool"), "complex64": ([1 + 1j, 2, -1j], "complex64"),
}
SCALARS = {  # NumPy scalars whose values every base dtype holds
    "float64": np.float64(2.5), "float32": np.float32(-1.5), "float16": np.float16(0.5),
    "int64": np.int64(3), "int8": np.int8(-2), "uint8": np.uint8(7), "int32": np.int32(2),
    "uint64": np.uint64(5), "bool-true": np.bool_(True), "bool-false": np.bool_(False),
    "complex128": np.complex128(1 - 2j), "longdouble": np.longdouble(0.25),
}


def _base(M, name):
    values, dtype = BASES[name]
    return M.tensor(values, dtype=getattr(M, dtype))


@pytest.mark.parametrize("scalar", SCALARS)
@pytest.mark.parametrize("base", BASES)
def test_numpy_scalar_operands_match_torch(torch, base, scalar):
    """Every binary operator and its reflected form: torch reads NumPy scalars as
    Python numbers of their kind (np.bool_ as a float), and so does pytensor."""
    s = SCALARS[scalar]
    for op in OPERATORS:
        if base == "float16" and scalar == "complex128" and op is operator.truediv:
            continue  # README: no complex32, so pytensor divides in complex64 where torch has no kernel
        assert_same(torch, lambda M: op(_base(M, base), s), f"{base} {op.__name__} {scalar}")
        assert_same(torch, lambda M: op(s, _base(M, base)), f"{scalar} {op.__name__} {base}")


@pytest.mark.parametrize("scalar", ["float64", "int64", "bool-true", "complex128"])
def test_numpy_scalar_methods_and_inplace_match_torch(torch, scalar):
    s = SCALARS[scalar]
    for method in ("add", "sub", "mul", "div", "eq", "ne", "lt", "ge"):
        assert_same(torch, lambda M: getattr(_base(M, "float32"), method)(s), f"float32.{method}({scalar})")
    for op in (operator.iadd, operator.isub, operator.imul, operator.itruediv):
        for base in ("float32", "int32", "complex64"):
            assert_same(torch, lambda M: op(_base(M, base), s), f"{base} {op.__name__} {scalar}")


def test_numpy_float_and_complex_subclasses_no_longer_crash():
    """np.float64 and np.complex128 subclass Python's float and complex; they
    used to reach the promotion code as tensors and fail on ``.dim()``."""
    t = pytensor.tensor([1.0, 2.0])
    assert (t + np.float64(2)).tolist() == [3.0, 4.0]
    assert (t == np.float64(1)).tolist() == [True, False]
    assert (t * np.complex128(1j)).tolist() == [1j, 2j]
    assert (np.complex128(1j) == t).tolist() == [False, False]


CMP_DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64", "complex64",
              "complex128"]


@pytest.mark.parametrize("dtype", CMP_DTYPES)
def test_numpy_scalar_cmp_as_torch(torch, dtype):
    """torch's test_numpy_scalar_cmp: a tensor's element compared with the same element
    read back through NumPy, as a NumPy scalar and as a Python number. torch reads
    np.complex64 through __float__ (dropping the imaginary part), so a complex64
    tensor element differs from its own NumPy scalar there; so it does here."""
    values = ([complex(1, 3), 0, 2j], [[complex(3, 1), 0], [-1j, 5]]) if "complex" in dtype else \
        ([1, 0, -3], [[3, 0, -1], [3, 5, 4]])
    compared = 0
    for M in (torch, pytensor):
        dt = getattr(M, dtype)
        for tensor in [M.tensor(values[0][0], dtype=dt)] + [M.tensor(v, dtype=dt) for v in values]:
            arr = tensor.numpy()
            for t in (tensor.flatten()[0], tensor.flatten()[0].item()):
                for a in (arr.flatten()[0], arr.flatten()[0].item()):
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        r = t == a
                    expect = not (dtype == "complex64" and isinstance(t, M.Tensor) and type(a) is np.complex64)
                    assert bool(r) is expect, (M.__name__, dtype, t, a)
                    compared += 1
    assert compared == 2 * 3 * 4


def test_numpy_complex64_scalars_read_as_torch_reads_them(torch):
    """np.complex64 (not a Python complex) reads as its real part, with NumPy's
    ComplexWarning, in arithmetic and comparisons alike; np.complex128 stays complex."""
    for s in (np.complex64(1 + 3j), np.clongdouble(2 - 1j), np.complex128(1 + 3j)):
        for case in (lambda M: M.tensor([1.0, 2.0]) + s, lambda M: s * M.tensor([1.0, 2.0]),
                     lambda M: M.tensor(1 + 3j) == s, lambda M: M.tensor([1 + 3j, 1]).ne(s),
                     lambda M: M.tensor([1 + 3j], dtype=M.complex128) - s):
            assert_same(torch, case, repr(s))
    t = pytensor.tensor([1.0, 2.0])
    with pytest.warns(np.exceptions.ComplexWarning, match="discards the imaginary part") as seen:
        r = t + np.complex64(1j)
    assert seen[0].filename == __file__                     # names the user's line, not pytensor's
    assert r.dtype is pytensor.float32 and r.tolist() == [1.0, 2.0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert (t * np.complex128(1j)).tolist() == [1j, 2j]  # a Python complex: no warning


ARRAYS = {
    "0d-float64": np.array(2.0), "0d-int64": np.array(2), "0d-float32": np.array(0.5, np.float32),
    "1d-float64": np.array([1.0, 2.0, 4.0]), "1d-int16": np.array([1, 2, 3], np.int16),
    "1d-bool": np.array([True, False, True]),
}
TORCH_ARRAY_OPERATORS = [operator.add, operator.sub, operator.mul, operator.truediv, operator.eq]


@pytest.mark.parametrize("array", ARRAYS)
@pytest.mark.parametrize("base", ["int32", "float32", "int64", "uint8", "float16", "bool"])
def test_numpy_array_operands_match_torch(torch, base, array):
    """``t <op> array``: torch hands these to NumPy and wraps the result, so the
    dtype is NumPy's promotion of the two arrays (a 0-d array is no weak scalar)."""
    a = ARRAYS[array]
    for op in TORCH_ARRAY_OPERATORS:
        if base == "bool" and array == "1d-bool" and op in (operator.add, operator.mul):
            continue  # torch turns NumPy's bool result into uint8 (a legacy __array_wrap__ rule); pytensor keeps bool
        got = assert_same(torch, lambda M: op(_base(M, base), a), f"{base} {op.__name__} {array}")
        if isinstance(got, tuple) and got[0] == "tensor" and op is not operator.eq:
            # NumPy itself agrees on the dtype (torch's result comes from NumPy)
            with np.errstate(all="ignore"):
                assert np.dtype(got[1]) == op(np.asarray(_base(pytensor, base).tolist(),
                                                         dtype=BASES[base][1]), a).dtype
    # torch's reflected division works (NumPy computes it); pytensor agrees
    assert_same(torch, lambda M: a / _base(M, base).to(M.float32), f"{array} / {base}")


def test_numpy_array_operands_where_torch_fails():
    """Deliberate difference: torch raises TypeError for ``array + t``, ``array - t``,
    ``array * t`` and for ``t < array``, and gives plain True for ``t != array``
    (NumPy's and torch's operator protocols miss each other). pytensor computes
    all of them element-wise, with the dtype of ``t + array``."""
    t = pytensor.tensor([1, 2, 3], dtype=pytensor.int32)
    a = np.array([3.0, 2.0, 1.0])
    assert (a + t).tolist() == [4.0, 4.0, 4.0] and (a + t).dtype is pytensor.float64
    assert (a - t).tolist() == [2.0, 0.0, -2.0]
    assert (a * t).tolist() == [3.0, 4.0, 3.0]
    assert (t != a).tolist() == [True, False, True]
    assert (t < a).tolist() == [True, False, False] and (a <= t).tolist() == [False, True, True]
    t += np.array(2)  # in place: into t's own memory and dtype (torch rebinds t to a new int64 tensor)
    assert t.tolist() == [3, 4, 5] and t.dtype is pytensor.int32
    with pytest.raises(RuntimeError, match="can't be cast"):
        t += np.array(0.5)


def test_scalars_the_dtype_cannot_hold_wrap_as_torchs(torch):
    """A Python (or NumPy) number meeting a tensor is converted to the tensor's dtype
    without an overflow check, as torch's wrapped numbers are: int8 + 1000 adds -24."""
    for other in (1000, np.int64(1000), np.uint8(200)):
        p, t = pytensor.tensor([1, 2], dtype=pytensor.int8), torch.tensor([1, 2], dtype=torch.int8)
        assert (p + other).tolist() == (t + other).tolist(), other
        assert (p < other).tolist() == (t < other).tolist(), other


# ============================================================================ comparisons with Python sequences

SEQUENCES = {"list": [1, 2, 3], "tuple": (1, 2, 3), "one": [1], "nested": [[1, 2, 3]], "empty": [],
             "range": range(3), "str": "abc", "none": None, "object": object()}


@pytest.mark.parametrize("seq", SEQUENCES)
def test_operators_with_sequences_match_torch(torch, seq):
    """torch's operators return NotImplemented for anything but tensors and numbers:
    == is then plain False, != plain True, the rest raise TypeError."""
    other = SEQUENCES[seq]
    for op in OPERATORS:
        got = assert_same(torch, lambda M: op(M.tensor([1, 2, 3]), other), f"t {op.__name__} {seq}")
        assert_same(torch, lambda M: op(other, M.tensor([1, 2, 3])), f"{seq} {op.__name__} t")
        if op is operator.eq:
            assert got == ("value", bool, False)
    for method in ("eq", "ne", "lt", "add", "mul"):
        assert_same(torch, lambda M: getattr(M.tensor([1, 2, 3]), method)(other), f"t.{method}({seq})")


def test_sequence_times_integer_tensor_repeats_the_sequence_as_in_python(torch):
    # Python's own rule once the tensor declines: a one-element integer tensor is an index
    assert_same(torch, lambda M: [1, 2] * M.tensor(2), "list * tensor(2)")
    assert [1, 2] * pytensor.tensor(2) == [1, 2, 1, 2]


def test_tensor_in_a_list_and_hashing():
    t = pytensor.tensor([1, 2])
    assert t in [t]                           # identity first, as for any object
    assert (t == [1, 2]) is False and {t: 1}[t] == 1


# ============================================================================ int(), float(), complex(), bool()

SCALAR_TENSORS = {
    "complex-imag": (1.5j, "complex64"), "complex-real": (1 + 0j, "complex64"), "float": (2.7, "float32"),
    "negative": (-2.7, "float32"), "nan": (math.nan, "float32"), "inf": (math.inf, "float64"),
    "empty": ([], "float32"), "two": ([1, 2], "int64"), "nested-one": ([[3]], "int64"),
    "bool": (True, "bool"), "uint8": (3, "uint8"), "big": (2**62, "int64"), "one-complex": ([1.5j], "complex64"),
    "complex128": (2 - 3j, "complex128"),
}


@pytest.mark.parametrize("case", SCALAR_TENSORS)
@pytest.mark.parametrize("convert", [int, float, complex, bool, operator.index, lambda t: t.item()],
                         ids=["int", "float", "complex", "bool", "index", "item"])
def test_python_number_conversions_match_torch(torch, case, convert):
    values, dtype = SCALAR_TENSORS[case]
    assert_same(torch, lambda M: convert(M.tensor(values, dtype=getattr(M, dtype))), f"{convert}({case})")


def test_int_of_a_complex_tensor_never_drops_the_imaginary_part():
    with pytest.raises(RuntimeError, match="imaginary"):
        int(pytensor.tensor(1.5j))
    with pytest.raises(RuntimeError, match="imaginary"):
        float(pytensor.tensor(1.5j))
    assert int(pytensor.tensor(2 + 0j)) == 2


def test_float_of_a_tensor_that_requires_grad_warns_as_torch(torch):
    for M in (torch, pytensor):
        t = M.tensor(1.5, requires_grad=True)
        with pytest.warns(UserWarning, match="requires_grad=True to a scalar"):
            assert float(t) == 1.5
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert int(t) == 1 and t.item() == 1.5


# ================================================================== tensor() of sequences and DLPack producers

class Seq:
    """A sequence that is neither a list nor a tuple: __len__ and __getitem__ only."""

    def __init__(self, items):
        self.items = list(items)

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


class OnlyDLPack:
    """An object whose only array protocol is DLPack (over a NumPy array)."""

    def __init__(self, array):
        self.array = array

    def __dlpack__(self, **kwargs):
        return self.array.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()


GENERIC = {
    "seq": lambda: Seq([1, 2, 3]), "seq-floats": lambda: Seq([1.5, 2]), "seq-nested": lambda: Seq([Seq([1, 2]),
                                                                                                 Seq([3, 4])]),
    "list-of-seq": lambda: [Seq([1, 2]), Seq([3, 4])], "seq-empty": lambda: Seq([]),
    "seq-ragged": lambda: Seq([Seq([1, 2]), Seq([3])]), "seq-of-str": lambda: Seq(["a"]),
    "seq-bools": lambda: Seq([True, False]), "seq-mixed": lambda: Seq([1, 2.5, 1j]),
}


@pytest.mark.parametrize("make", GENERIC)
@pytest.mark.parametrize("ctor", ["tensor", "as_tensor", "asarray", "tensor-f64"])
def test_generic_sequences_match_torch(torch, make, ctor):
    def call(M):
        if ctor == "tensor-f64":
            return M.tensor(GENERIC[make](), dtype=M.float64)
        return getattr(M, ctor)(GENERIC[make]())
    assert_same(torch, call, f"{ctor}({make})")


class NoItems(Seq):
    def __getitem__(self, i):
        raise TypeError("no items")


class FailsAtOne(Seq):
    def __getitem__(self, i):
        if i == 1:
            raise KeyError(i)
        return self.items[i]


class OnlyGetitem:
    def __getitem__(self, i):
        return 1.0


ODD_SEQUENCES = {  # torch's test_tensor_from_sequence and its neighbours
    "no-items": lambda: NoItems([1.0, 2.0]), "no-items-nested": lambda: [NoItems([1.0])],
    "no-items-empty": lambda: NoItems([]), "fails-at-one": lambda: FailsAtOne([1, 2]),
    "only-getitem": lambda: OnlyGetitem(), "userlist": lambda: __import__("collections").UserList([1, 2.5]),
    "userstring": lambda: __import__("collections").UserString("ab"),
}


@pytest.mark.parametrize("make", ODD_SEQUENCES)
@pytest.mark.parametrize("ctor", ["tensor", "as_tensor", "asarray"])
def test_odd_sequences_match_torch(torch, make, ctor):
    """The same result, or an exception of torch's type (ValueError when the first item
    cannot be read, the item's own error after it, TypeError without a length)."""
    assert_same(torch, lambda M: getattr(M, ctor)(ODD_SEQUENCES[make]()), f"{ctor}({make})")


class OnlyArrayInterface:
    def __init__(self, array):
        self.array, self.__array_interface__ = array, array.__array_interface__


class OnlyArrayStruct:
    def __init__(self, array):
        self.array, self.__array_struct__ = array, array.__array_struct__


@pytest.mark.parametrize("kind", [OnlyArrayInterface, OnlyArrayStruct])
def test_array_interface_objects_read_as_numpy_reads_them(torch, kind):
    """Deliberate difference (README): torch 2.13 refuses an object that exposes its
    memory only through NumPy's array interface ("Could not infer dtype"); pytensor
    reads it as NumPy does, as the array it describes (shared by asarray and
    as_tensor, copied by tensor), so the values are the array's."""
    a = np.arange(6, dtype=np.int32).reshape(2, 3)
    for ctor in ("tensor", "as_tensor", "asarray"):
        with pytest.raises(RuntimeError, match="Could not infer dtype"):
            getattr(torch, ctor)(kind(a))
        t = getattr(pytensor, ctor)(kind(a))
        assert t.dtype is pytensor.int32 and t.tolist() == a.tolist()
        assert (t.data_ptr() == a.ctypes.data) == (ctor != "tensor")
        assert getattr(torch, ctor)(np.asarray(kind(a))).tolist() == t.tolist()  # torch, given NumPy's array


class IterDisagrees(Seq):
    def __iter__(self):
        return iter([5.0, 6.0])


def test_sequence_items_are_read_by_index_not_by_iteration(torch):
    """Deliberate difference (README): pytensor reads x[0] .. x[len(x)-1]; torch sizes
    by index and fills by iteration, so an __iter__ that disagrees with __getitem__
    gives other values there, and an object whose __getitem__ never raises
    IndexError hangs torch (not run here) while pytensor reads len(x) items."""
    assert torch.tensor(IterDisagrees([1.0, 2.0])).tolist() == [5.0, 6.0]
    assert pytensor.tensor(IterDisagrees([1.0, 2.0])).tolist() == [1.0, 2.0]

    class Endless:
        def __len__(self):
            return 2

        def __getitem__(self, i):
            return 7.0
    assert pytensor.tensor(Endless()).tolist() == [7.0, 7.0]


def test_mappings_are_not_sequences(torch):
    """Deliberate difference (README): torch reads a Mapping that is not a dict
    (UserDict) as a sequence of its keys; pytensor refuses every Mapping."""
    ud = __import__("collections").UserDict({0: 5, 1: 6})
    assert torch.tensor(ud).tolist() == [0, 1]
    with pytest.raises(RuntimeError, match="Could not infer dtype of UserDict"):
        pytensor.tensor(ud)


@pytest.mark.parametrize("dtype", [None, "int32", "float64"])
def test_tensor_copies_a_dlpack_producer(torch, dtype):
    src = np.arange(3, dtype=np.float32)
    assert_same(torch, lambda M: M.tensor(OnlyDLPack(src), dtype=dtype and getattr(M, dtype)), "tensor(dlpack)")
    t = pytensor.tensor(OnlyDLPack(src), requires_grad=True)
    assert t.data_ptr() != src.ctypes.data and t.requires_grad and t.is_leaf
    src[0] = 9
    assert t.tolist()[0] == 0.0                              # a copy
    for ctor in ("as_tensor", "asarray"):                    # these share it
        assert getattr(pytensor, ctor)(OnlyDLPack(src)).data_ptr() == src.ctypes.data
    assert_same(torch, lambda M: M.tensor([OnlyDLPack(src)]), "a producer inside a list is no sequence")


NDARRAY_LISTS = {
    "two-1d": lambda: [np.array([0]), np.array([1])], "tuple-f64": lambda: (np.array([0.]), np.array([1.])),
    "nested": lambda: [[np.array([0])], [np.array([1])]], "mixed-list": lambda: [np.array([0]), [1]],
    "int32-and-f64": lambda: [np.array([0], np.int32), np.array([1.5])],
    "uint8-and-ints": lambda: [np.array([1, 2], np.uint8), [3, 4]],
    "uint8-and-floats": lambda: [np.array([1, 2], np.uint8), [3., 4]],
    "empty-int32": lambda: [np.array([], np.int32)], "f32": lambda: [np.array([1.5], np.float32)],
    "0d-leaves": lambda: ((7, np.array(5)), (np.array(9), 5.)),
}


@pytest.mark.parametrize("make", NDARRAY_LISTS)
@pytest.mark.parametrize("dtype", [None, "int32", "bool", "float32"])
def test_lists_of_ndarrays_match_torch(torch, make, dtype):
    """Arrays inside sequences keep their dtype in the inference, and convert
    element by element (a float32 array into int32 is refused, as in torch)."""
    assert_same(torch, lambda M: M.tensor(NDARRAY_LISTS[make](), dtype=dtype and getattr(M, dtype)), make)


def test_list_of_ndarrays_warns_once_per_process(tmp_path):
    """torch warns the first time a sequence holds an ndarray, and never again
    in that process; checked in fresh interpreters."""
    code = ("import warnings, numpy as np, pytensor\n"
            "warnings.simplefilter('always')\n"
            "with warnings.catch_warnings(record=True) as w:\n"
            "    warnings.simplefilter('always')\n"
            "    {calls}\n"
            "print([str(x.message)[:40] for x in w], [x.filename == '<string>' for x in w])\n")
    cases = {
        "pytensor.tensor([np.array([0]), np.array([1])]); pytensor.tensor([np.array([0])])":
            "['Creating a tensor from a list of numpy.n'] [True]",
        "pytensor.as_tensor([[1], np.array([1])])": "['Creating a tensor from a list of numpy.n'] [True]",
        "pytensor.tensor([np.array([], np.int32)]); pytensor.tensor([1, 2])": "[] []",
        "pytensor.tensor(np.zeros(3)); pytensor.tensor([np.float64(1)])": "[] []",
    }
    for calls, want in cases.items():
        out = subprocess.run([sys.executable, "-c", code.format(calls=calls)], capture_output=True, text=True,
                             check=True, cwd=tmp_path).stdout.strip()   # not the repo root: its source folder would shadow the install
        assert out == want, calls


# ============================================================================ Tensor.all() / any()

ALL_ANY_DTYPES = ["uint8", "int32", "float32", "bool", "complex64", "float64"]


@pytest.mark.parametrize("dtype", ALL_ANY_DTYPES)
@pytest.mark.parametrize("method", ["all", "any"])
def test_all_any_match_torch(torch, dtype, method):
    base = [[1, 0, 2], [3, 4, 5]]
    calls = [((), {}), ((0,), {}), ((1,), {"keepdim": True}), ((), {"dim": (0, 1)}), ((), {"dim": ()}),
             ((-1,), {}), ((), {"dim": [0]}), ((0, True), {}), ((), {"keepdim": True}), ((2,), {}),
             ((), {"dim": (0, 0)}), ((), {"dim": None})]
    for args, kwargs in calls:
        assert_same(torch, lambda M: getattr(M.tensor(base, dtype=getattr(M, dtype)), method)(*args, **kwargs),
                    f"{method}{args}{kwargs}")
        assert_same(torch, lambda M: getattr(M, method)(M.tensor(base, dtype=getattr(M, dtype)), *args, **kwargs),
                    f"torch.{method}{args}{kwargs}")
    for values in ([], [[]], 0.0, [math.nan], [0.0, -0.0], [[0, 0], [0, 1]]):
        for args in ((), (0,), (-1,), (1,)):
            assert_same(torch, lambda M: getattr(M.tensor(values, dtype=getattr(M, dtype)), method)(*args),
                        f"{method}({values}){args}")


def test_all_any_of_empty_and_nan():
    assert pytensor.zeros(0).all().item() is True and pytensor.zeros(0).any().item() is False
    assert pytensor.tensor([math.nan]).all().item() is True      # NaN is nonzero


# ============================================================================ devices

@pytest.mark.parametrize("spec", [("cpu",), ("cuda",), ("cuda:1",), ("meta",), ("cpu:0",), ("cpu", 0), ("gpu",),
                                  ("cpu:x",), ("",), ("CPU",), ("cpu:-1",), ("cpu", -1), ("foo:0",), ("mps",),
                                  (" cuda:1",), ("cuda:01",), ("cuda:1", 2), ("cuda", 1.0), ("cuda", True),
                                  (b"cpu",), (None,), ("privateuseone",), (0,)])
def test_device_names_match_torch(torch, spec):
    want, got = outcome(torch, lambda M: M.device(*spec)), outcome(pytensor, lambda M: M.device(*spec))
    if want[0] == "raises":
        assert got[0] == "raises" and issubclass(got[1], want[1]), (spec, want, got)
    else:
        assert (got[2].type, got[2].index) == (want[2].type, want[2].index), spec
        assert (str(got[2]), repr(got[2])) == (str(want[2]), repr(want[2]))


def test_device_from_a_torch_device(torch):
    assert pytensor.device(torch.device("cuda", 1)) == pytensor.device("cuda:1")
    assert pytensor.zeros(1, device=torch.device("cpu")).device.type == "cpu"


def test_with_device_sets_the_default_device_of_factories(torch):
    with torch.device("cpu"), pytensor.device("cpu") as d:
        assert isinstance(d, pytensor.device) and pytensor.get_default_device() == d
        for fn in (lambda M: M.zeros(2), lambda M: M.tensor([1]), lambda M: M.arange(3), lambda M: M.asarray([1])):
            assert fn(pytensor).device.type == fn(torch).device.type == "cpu"
    assert pytensor.get_default_device() == pytensor.device("cpu")


def test_with_a_device_pytensor_cannot_create_on_fails_at_the_with():
    """pytensor creates tensors on the CPU only, so a block whose factories would
    all fail is refused at its start (torch enters, then fails at each factory)."""
    for name in ("cuda", "meta", "cuda:1"):
        with pytest.raises(RuntimeError, match="CPU only"):
            with pytensor.device(name):
                pass  # pragma: no cover - never entered
        assert pytensor.get_default_device().type == "cpu"
    with pytest.raises(RuntimeError, match="CPU only"):
        pytensor.set_default_device("cuda")
    pytensor.set_default_device("cpu")
    pytensor.set_default_device(None)


def test_nested_with_device_blocks():
    outer = pytensor.device("cpu")
    with outer:
        with pytensor.device("cpu", 0):
            assert pytensor.get_default_device() == pytensor.device("cpu:0")
        assert pytensor.get_default_device() is outer


# ================================================================== new_tensor, storage(), UntypedStorage.from_file

NEW_TENSOR = {
    "floats-into-int": lambda M: M.tensor([1, 2, 3]).new_tensor([1.5, 2]),
    "dtype": lambda M: M.tensor([1, 2, 3]).new_tensor([1.5], dtype=M.float32),
    "ints-into-float": lambda M: M.tensor([1.5]).new_tensor([1, 2]),
    "scalar": lambda M: M.tensor([1], dtype=M.int8).new_tensor(3),
    "ndarray": lambda M: M.tensor([1, 2]).new_tensor(np.arange(3.0)),
    "tensor": lambda M: M.tensor([1, 2]).new_tensor(M.tensor([1.5, 2.5])),
    "keyword": lambda M: M.tensor([1]).new_tensor(data=[2]),
    "positional-dtype": lambda M: M.tensor([1]).new_tensor([1], M.float64),
    "requires-grad": lambda M: M.tensor([1.]).new_tensor([2.], requires_grad=True).requires_grad,
    "int-requires-grad": lambda M: M.tensor([1]).new_tensor([2], requires_grad=True),
    "leaf": lambda M: M.tensor([1.], requires_grad=True).new_tensor([2.]).requires_grad,
}


@pytest.mark.parametrize("case", NEW_TENSOR)
def test_new_tensor_matches_torch(torch, case):
    assert_same(torch, NEW_TENSOR[case], case)


def test_new_tensor_copies():
    a = np.arange(3.0)
    t = pytensor.tensor([1.0]).new_tensor(a)
    assert t.data_ptr() != a.ctypes.data and t.dtype is pytensor.float32


def test_storage_is_the_typed_view_of_the_untyped_storage(torch):
    for M in (torch, pytensor):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # torch's TypedStorage is deprecated
            t = M.arange(6, dtype=M.int32)[2:4]
            s = t.storage()
            assert (len(s), s.size(), s.element_size(), s.nbytes()) == (6, 6, 4, 24)
            assert s.data_ptr() == t.untyped_storage().data_ptr() and s.dtype == t.dtype
            assert s[3] == 3 and s.tolist() == list(range(6)) and list(s) == list(range(6))
            s[0] = 10
            assert t.untyped_storage().data_ptr() == s.untyped().data_ptr()
            assert M.arange(1).storage().device.type == "cpu"
    t = pytensor.arange(4)
    t.storage()[1] = 7
    assert t.tolist() == [0, 7, 2, 3]
    ro = pytensor.frombuffer(b"\x01\x02", dtype=pytensor.uint8)
    assert ro.storage().is_readonly() and ro.storage()[1] == 2
    with pytest.raises(pytensor.ReadOnlyError):
        ro.storage()[0] = 5


def test_untyped_storage_from_file(torch, tmp_path):
    path = str(tmp_path / "s.bin")
    for M in (torch, pytensor):
        if os.path.exists(path):
            os.remove(path)
        s = M.UntypedStorage.from_file(path, shared=True, nbytes=10)
        assert s.nbytes() == 10 and s.filename == path and os.path.getsize(path) == 10
        assert stat.S_IMODE(os.stat(path).st_mode) & 0o077 == 0          # 0600 less the umask
        assert M.UntypedStorage.from_file(path, False, 4).filename is None
        assert M.UntypedStorage.from_file(path, True, 4).nbytes() == 4
        missing = str(tmp_path / "missing")
        assert M.UntypedStorage.from_file(missing, shared=True, nbytes=0).nbytes() == 0
        assert not os.path.exists(missing)
        with pytest.raises(RuntimeError):
            M.UntypedStorage.from_file(missing, shared=False, nbytes=4)
        with pytest.raises(RuntimeError):
            M.UntypedStorage.from_file(path, shared=True, nbytes=-1)
        del s
    # pytensor's default maps the whole file, as its from_file does (torch's default is 0 bytes)
    assert pytensor.UntypedStorage.from_file(path).nbytes() == 10
    shared = pytensor.UntypedStorage.from_file(path, True, 10)
    assert shared.mapped_file == (path, "shared") and not shared.resizable()


# ============================================================================ resize_

def test_resize_matches_torch(torch):
    cases = {
        "shrink": lambda M: M.arange(6.).resize_(2),
        "grow": lambda M: M.arange(6.).resize_(10)[:6],
        "same-shape-keeps-strides": lambda M: M.arange(6.).view(2, 3).T.resize_(3, 2).stride(),
        "new-shape-is-contiguous": lambda M: M.arange(6.).view(2, 3).T.resize_(2, 3).stride(),
        "tuple": lambda M: M.arange(6.).resize_((2, 3)),
        "list": lambda M: M.arange(6.).resize_([3, 2]),
        "float": lambda M: M.arange(6.).resize_(2.0),
        "nothing": lambda M: M.arange(6.).resize_(),
        "negative": lambda M: M.arange(6.).resize_(-1),
        "zero": lambda M: M.arange(6.).resize_(0),
        "overflow": lambda M: M.zeros(1).resize_(2**62),
        "requires-grad": lambda M: M.zeros(3, requires_grad=True).resize_(2),
        "non-leaf": lambda M: (M.zeros(3, requires_grad=True) * 2).resize_(2),
        "numpy-shrink": lambda M: M.from_numpy(np.zeros(4)).resize_(2),
        "numpy-same": lambda M: M.from_numpy(np.zeros(4)).resize_(4),
        "numpy-grow": lambda M: M.from_numpy(np.zeros(4)).resize_(5),
        "buffer-grow": lambda M: M.frombuffer(bytearray(16), dtype=M.int32).resize_(5),
        "expand": lambda M: M.zeros(1).expand(3).resize_(2).stride(),
        "view-grows-from-its-offset": lambda M: M.arange(6.)[2:4].resize_(5).untyped_storage().nbytes(),
        "resize_as_": lambda M: M.zeros(4).resize_as_(M.zeros(2, 2)),
    }
    for name, fn in cases.items():
        assert_same(torch, fn, name)
    for M in (torch, pytensor):
        t = M.arange(4.)
        assert t.resize_(3) is t
        t.resize_(8)
        assert t[:4].tolist() == [0., 1., 2., 3.]   # kept bytes survive the move


def test_resize_after_numpy_is_refused_as_torch(torch):
    """``numpy()`` hands the address to NumPy: both libraries pin the storage."""
    for M in (torch, pytensor):
        z = M.zeros(3)
        arr = z.numpy()
        with pytest.raises(RuntimeError):
            z.resize_(10)
        assert z.resize_(2).shape == (2,)             # no growth: allowed
        arr[0] = 1
        assert z.tolist() == [1.0, 0.0]
        assert not z.untyped_storage().resizable()
    assert pytensor.zeros(3).untyped_storage().resizable()


def test_resize_never_moves_bytes_under_a_live_view_or_export():
    """Deliberate difference: torch grows a storage that other views or a DLPack
    export still read (they follow it, or dangle); pytensor refuses while
    anything else uses the address, and allows it once they are gone."""
    t = pytensor.arange(4.0)
    view = t[1:]
    with pytest.raises(RuntimeError, match="other objects"):
        t.resize_(100)
    del view
    handle = t.untyped_storage()
    with pytest.raises(RuntimeError, match="other objects"):
        t.resize_(100)
    del handle
    cap = t.__dlpack__()
    with pytest.raises(RuntimeError, match="references"):
        t.resize_(100)
    del cap
    before = t.data_ptr()
    t.resize_(100_000)
    assert t.data_ptr() != before and t.shape == (100_000,) and t[:4].tolist() == [0., 1., 2., 3.]
    assert t.untyped_storage().nbytes() == 400_000
    for ro in (pytensor.from_file(os.devnull, size=0), pytensor.frombuffer(bytearray(8), dtype=pytensor.uint8)):
        assert not ro.untyped_storage().resizable()
        with pytest.raises(RuntimeError, match="not resizable"):
            ro.resize_(100)


# ============================================================================ DLPack

def test_dl_device_type_is_exported(torch):
    from pytensor.utils.dlpack import DLDeviceType
    for member in torch.utils.dlpack.DLDeviceType:
        assert DLDeviceType[member.name] == member.value
    assert pytensor.arange(2).__dlpack_device__() == (DLDeviceType.kDLCPU, 0)


def test_to_dlpack_exports_a_tensor_that_requires_grad(torch):
    def export_and_import(M):
        from_dlpack = M.utils.dlpack.from_dlpack
        return from_dlpack(M.utils.dlpack.to_dlpack(M.arange(3., requires_grad=True)))
    assert_same(torch, export_and_import, "to_dlpack(requires_grad)")
    assert not export_and_import(pytensor).requires_grad
    assert_same(torch, lambda M: M.arange(3., requires_grad=True).__dlpack__(), "__dlpack__ refuses")


@pytest.mark.parametrize("device", [0, 1.5, ("cpu", 0), "cuda", "gpu", "cpu", "cpu:0", "cpu:1"])
def test_from_dlpack_device_argument_matches_torch(torch, device):
    want = outcome(torch, lambda M: M.from_dlpack(np.arange(3.0), device=device))
    got = outcome(pytensor, lambda M: M.from_dlpack(np.arange(3.0), device=device))
    if want[0] == "raises":
        assert got[0] == "raises" and issubclass(got[1], want[1]), (device, want, got)
    else:
        assert got[1:] == want[1:], device


# ============================================================================ from_file

def test_from_file_size_zero_touches_no_file(torch, tmp_path):
    for shared in (True, False, None):
        path = str(tmp_path / f"missing-{shared}")
        assert_same(torch, lambda M: M.from_file(path, shared, 0), f"shared={shared}")
        assert not os.path.exists(path)
    assert_same(torch, lambda M: M.from_file(str(tmp_path), True, 0), "a directory")
    t = pytensor.from_file(str(tmp_path / "none"), True, 0)
    assert t.untyped_storage().filename == str(tmp_path / "none")
    assert pytensor.from_file(str(tmp_path / "none"), False, 0).untyped_storage().filename is None


def test_from_file_creates_files_with_mode_0600(torch, tmp_path):
    old = os.umask(0o022)
    try:
        for M in (torch, pytensor):
            path = str(tmp_path / f"{M.__name__}.bin")
            M.from_file(path, shared=True, size=4)
            assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    finally:
        os.umask(old)


# ============================================================================ asarray and requires_grad

def test_asarray_grad_follows_the_documentation_not_213(torch):
    """The asarray page this project implements says the result does not require
    grad by default; torch 2.13 changed the default to the source's setting (with a
    warning, once a process). Explicit settings agree; the default is recorded as
    the difference it is (README: "Other differences from torch")."""
    assert "unspecified requires_grad" not in (pytensor.asarray.__doc__ or "")
    for M in (torch, pytensor):
        a = M.tensor([1., 2., 3.], requires_grad=True)
        b = a + 2
        c, d = M.asarray(b, requires_grad=False), M.asarray(b, requires_grad=True)
        assert c.data_ptr() == b.data_ptr() and not c.requires_grad and c.grad_fn is None
        assert d is b and d.grad_fn.name() == "AddBackward0"
        plain = M.ones(2)
        assert M.asarray(plain) is plain
    a = torch.tensor([1., 2., 3.], requires_grad=True)
    b = a + 2
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        theirs = torch.asarray(b)
    assert theirs is b and theirs.grad_fn.name() == "AddBackward0"       # torch 2.13: inherits
    a = pytensor.tensor([1., 2., 3.], requires_grad=True)
    b = a + 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")                                  # and pytensor does not warn
        ours = pytensor.asarray(b)
        leaf_alias = pytensor.asarray(a)
    assert ours is not b and ours.grad_fn is None and not ours.requires_grad and ours.data_ptr() == b.data_ptr()
    assert a.requires_grad and not leaf_alias.requires_grad and leaf_alias.data_ptr() == a.data_ptr()
    # pytensor never changes the caller's tensor (torch's asarray(leaf, requires_grad=False) does)
    leaf = pytensor.tensor([1.0], requires_grad=True)
    alias = pytensor.asarray(leaf, requires_grad=False)
    assert leaf.requires_grad and not alias.requires_grad and alias.data_ptr() == leaf.data_ptr()
    torch_leaf = torch.tensor([1.0], requires_grad=True)
    assert torch.asarray(torch_leaf, requires_grad=False) is torch_leaf and not torch_leaf.requires_grad


# ============================================================================ dtype names

DTYPE_FUNCTIONS = {
    "tensor": lambda d: pytensor.tensor([1, 2], dtype=d),
    "as_tensor": lambda d: pytensor.as_tensor([1, 2], dtype=d),
    "asarray": lambda d: pytensor.asarray([1, 2], dtype=d),
    "frombuffer": lambda d: pytensor.frombuffer(bytearray(8), dtype=d),
    "zeros": lambda d: pytensor.zeros(2, dtype=d), "ones": lambda d: pytensor.ones(2, dtype=d),
    "empty": lambda d: pytensor.empty(2, dtype=d), "full": lambda d: pytensor.full((2,), 1, dtype=d),
    "arange": lambda d: pytensor.arange(2, dtype=d), "linspace": lambda d: pytensor.linspace(0, 1, 2, dtype=d),
    "eye": lambda d: pytensor.eye(2, dtype=d), "zeros_like": lambda d: pytensor.zeros_like(pytensor.ones(2), dtype=d),
    "rand": lambda d: pytensor.rand(2, dtype=d if d not in ("int32", "long") else "float32"),
    "to": lambda d: pytensor.ones(2).to(dtype=d), "to-positional": lambda d: pytensor.ones(2).to(d),
    "type": lambda d: pytensor.ones(2).type(d), "sum": lambda d: pytensor.ones(2).sum(dtype=d),
    "view": lambda d: pytensor.zeros(2, dtype="int32").view(d),
    "new_tensor": lambda d: pytensor.ones(2).new_tensor([1], dtype=d),
    "from_file": lambda d: pytensor.from_file(os.devnull, size=0, dtype=d),
}


@pytest.mark.parametrize("fn", DTYPE_FUNCTIONS)
def test_every_dtype_argument_takes_names_and_nothing_else(fn):
    """One rule for every function (dtypes.dtype_arg): a pytensor dtype or its name,
    torch's aliases included; NumPy and torch dtype objects are refused."""
    make = DTYPE_FUNCTIONS[fn]
    name = "float32" if fn in ("rand", "linspace") else "int32"
    assert make(name).dtype is make(getattr(pytensor, name)).dtype is getattr(pytensor, name)
    if fn not in ("rand", "linspace"):
        assert make("long").dtype is pytensor.int64 or fn == "view"
    with pytest.raises(TypeError, match="dtype"):
        make(np.float32)
    if fn != "to-positional":  # there a string that names no dtype is a device
        with pytest.raises(TypeError, match="not a dtype name"):
            make("float128")


def test_dtype_names_elsewhere(torch):
    assert pytensor.promote_types("uint8", "int8") is pytensor.int16
    pytensor.set_default_dtype("float64")
    try:
        assert pytensor.tensor([1.5]).dtype is pytensor.float64
    finally:
        pytensor.set_default_dtype(pytensor.float32)
    with pytest.raises(TypeError):
        pytensor.zeros(2, dtype=torch.float32)
    assert pytensor.ones(1).type("pytensor.DoubleTensor").dtype is pytensor.float64


# ============================================================================ deliberate differences

def test_read_only_memory_stays_read_only(torch):
    """torch warns and lets writes into read-only memory through; pytensor refuses them."""
    ro = np.arange(3.0)
    ro.flags.writeable = False
    for t in (pytensor.frombuffer(b"abcd", dtype=pytensor.uint8), pytensor.from_numpy(ro), pytensor.asarray(ro),
              pytensor.from_dlpack(ro)):
        with pytest.raises(pytensor.ReadOnlyError):
            t[0] = 1
        assert not t.numpy().flags.writeable
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = torch.frombuffer(b"abcd", dtype=torch.uint8)
    assert not t.is_inference() and t.numpy().flags.writeable      # torch: writable over read-only bytes


def test_negative_stride_dlpack_imports_succeed():
    """torch aborts the whole process on a negatively strided DLPack import
    (see the reference); pytensor imports the view as it is."""
    a = np.arange(6.0)[::-2]
    t = pytensor.from_dlpack(a)
    assert t.stride() == (-2,) and t.tolist() == [5.0, 3.0, 1.0]
    t[0] = 50.0
    assert a[0] == 50.0
    code = "import numpy as np, torch; torch.from_dlpack(np.arange(4.0)[::-1]); print('survived')"
    torch_run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    if require_module("torch") and torch_run.returncode == 0:
        pytest.skip("this torch imports negative strides now: drop the README line")
    assert torch_run.returncode != 0


def test_pytensors_own_numpy_scratch_arrays_do_not_pin(torch):
    """Only an address handed to the user's NumPy array pins a storage; the
    arrays pytensor makes for itself (copying from NumPy, autograd's scatter)
    do not, so these tensors still grow as torch's do."""
    assert_same(torch, lambda M: M.tensor(np.arange(3.0)).resize_(10)[:3], "tensor(ndarray).resize_")
    assert_same(torch, lambda M: M.as_tensor([np.array([1.0])]).resize_(10)[:1], "list of arrays")
    x = pytensor.arange(4.0, requires_grad=True)
    x[1:3].sum().backward()
    assert x.grad.tolist() == [0.0, 1.0, 1.0, 0.0] and x.grad.untyped_storage().resizable()


def test_frombuffer_dtype_names_take_the_c_path():
    """A dtype name is resolved before frombuffer's C fast path, so both spellings
    give the same tensor from the same path."""
    from pytensor._ffi import shim
    buf = bytearray(range(8))
    by_name = pytensor.frombuffer(buf, dtype="int16", count=2, offset=2)
    by_dtype = pytensor.frombuffer(buf, dtype=pytensor.int16, count=2, offset=2)
    fast = shim.share_buffer(buf, pytensor.int16, 2, 2, False)
    for t in (by_name, fast):
        assert (t.dtype, t.shape, t.data_ptr(), t.untyped_storage().label) == \
            (by_dtype.dtype, by_dtype.shape, by_dtype.data_ptr(), by_dtype.untyped_storage().label)
    assert by_name.tolist() == [0x0302, 0x0504]


# ============================================================================ the suite without torch

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_no_test_module_imports_torch_at_its_top():
    """A test module that imports torch at its top crashes at collection where torch is
    missing; torch comes from support.require_module (skips, fails under CI) instead."""
    offenders = []
    for name in sorted(os.listdir(TESTS)):
        if name.endswith(".py"):
            with open(os.path.join(TESTS, name), encoding="utf-8") as f:
                if any(line.startswith(("import torch", "from torch", "import safetensors.torch",
                                        "from safetensors.torch")) for line in f):
                    offenders.append(name)
    assert offenders == []


def test_modules_that_need_torch_skip_without_it_and_fail_in_ci(tmp_path):
    """Collected with torch hidden: no collection error (the modules skip), and under CI=true
    the module that needs torch throughout fails."""
    hidden = tmp_path / "torch"
    hidden.mkdir()
    (hidden / "__init__.py").write_text("raise ImportError('torch is hidden for this test')\n")
    files = [os.path.join(TESTS, f) for f in ("binding/test_float8.py", "interop/test_dlpack_exchange_api.py",
                                              "interop/test_safetensors.py")]
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env["PYTHONPATH"] = str(tmp_path) + os.pathsep + env.get("PYTHONPATH", "")
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--collect-only", *files]
    local = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert local.returncode == 0 and "error" not in local.stdout.lower(), local.stdout[-2000:]
    ci = subprocess.run(cmd, env={**env, "CI": "true"}, capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert ci.returncode != 0 and "CI needs 'torch'" in ci.stdout, ci.stdout[-2000:]


# ============================================================================ warnings where torch warns

WARNING_SCRIPT = r"""
import sys, warnings
M = __import__(sys.argv[1])
seen = []
def show(message, category, filename, lineno, file=None, line=None):
    seen.append((category.__name__, str(message).split(" (Triggered internally")[0][:60], filename == __file__))
warnings.showwarning = show
warnings.simplefilter("always")
M.ones(3).T; M.ones(2, 2, 2).T; M.ones(()).T; M.ones(()).T; M.ones(2, 2).T     # once a kind, never for 2-D
for _ in range(2):
    M.ones(()).mT; M.ones(()).mH; M.ones(()).H; M.ones(()).adjoint(); M.ones(2, 2).mH  # 0-D: once each
z = M.tensor([1 + 1j])
z.bool(); z.to(M.int32); z.float(); M.zeros(1).copy_(z)                        # once a process, not for bool
print(seen)
"""


def test_warnings_where_torch_warns(torch, tmp_path):
    """``.T`` of a tensor that is not 2-D (one warning for 0-D, one for the rest), ``.mT``,
    ``.mH``, ``.H`` and ``adjoint()`` of a 0-D tensor, and a complex-to-real cast (not to
    bool) warn as torch warns: once a process each, a UserWarning naming the user's line.
    Run in fresh interpreters."""
    script = tmp_path / "warns.py"
    script.write_text(WARNING_SCRIPT)
    outs = {}
    for name in ("torch", "pytensor"):
        r = subprocess.run([sys.executable, str(script), name], capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr
        outs[name] = eval(r.stdout)  # noqa: S307 - our own script's printed list
    theirs = [(c, m.replace("torch.arange", "range"), at) for c, m, at in outs["torch"]]
    assert len(outs["pytensor"]) == 7 and outs["pytensor"] == theirs


def test_the_library_filters_no_warnings():
    """A warning the library filters hides it from every user; none is filtered in pytensor."""
    root = os.path.dirname(pytensor.__file__)
    for dirpath, _, files in os.walk(root):
        for name in files:
            if name.endswith(".py"):
                with open(os.path.join(dirpath, name), encoding="utf-8") as f:
                    text = f.read()
                assert "simplefilter(" not in text and "filterwarnings(" not in text, name


# ============================================================================ negation

def _signs(values):
    return [(math.copysign(1, v.real), math.copysign(1, v.imag)) if isinstance(v, complex) else math.copysign(1, v)
            for v in values]


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64", "complex64", "complex128"])
def test_negation_keeps_the_sign_of_zero_and_infinities_as_torch(torch, dtype):
    """-x of 0.0 is -0.0 and of inf+0j is -inf-0j, as in torch and Python; computing 0 - x
    (or a complex product with -1) gave +0.0 and nan. conj() negates the imaginary parts
    the same way. The signs are checked against Python's own -x and conjugate(): torch's
    vectorized complex128 loop gives +0.0 for -(0+0j) where its scalar loop gives -0.0."""
    inf, nan = float("inf"), float("nan")
    values = [0.0, -0.0, inf, -inf, 1.5] if "complex" not in dtype else \
        [complex(0.0, 0.0), complex(-0.0, -0.0), complex(inf, 0.0), complex(1.5, -inf), complex(0.0, 2.0)]
    out = {}
    for M in (torch, pytensor):
        t = M.tensor(values, dtype=getattr(M, dtype))
        out[M] = [(-t).tolist(), t.neg().tolist(), t[::2].neg().tolist(), t.conj_physical().tolist()]
    for ours, theirs in zip(out[pytensor], out[torch]):
        assert ours == theirs
    python = [[-v for v in values]] * 2 + [[-v for v in values[::2]], [v.conjugate() for v in values]]
    for ours, want in zip(out[pytensor], python):
        assert _signs(ours) == _signs(want)
    assert not any(math.isnan(abs(v)) for v in out[pytensor][0]) and nan != nan


def test_data_ptr_of_an_empty_tensor_is_its_source_address(torch):
    """Deliberate difference (README): torch reports 0 for an empty tensor's data_ptr();
    pytensor reports the address its (empty) view starts at, so aliasing stays visible."""
    a = np.zeros((0, 3), np.float32)
    assert torch.from_numpy(a).data_ptr() == 0
    assert pytensor.from_numpy(a).data_ptr() == a.ctypes.data
    buf = bytearray(4)
    t = pytensor.frombuffer(buf, dtype=pytensor.uint8)
    assert t[4:].data_ptr() == t.data_ptr() + 4 and t[4:].numel() == 0


# ============================================================================ the README's differences

README = os.path.join(os.path.dirname(TESTS), "README.md")
DIFFERENCE_SECTIONS = ("## Where pytensor is deliberately safer than torch", "## Other differences from torch")


def test_every_readme_difference_points_to_a_test_that_exists():
    """Each bullet of the two differences sections names the test that shows it
    (``test_file.py::test_name``, or ``::test_name`` for the file named before),
    and each named test is defined in that file."""
    import re
    bullets = []
    text = open(README, encoding="utf-8").read()
    for title in DIFFERENCE_SECTIONS:
        body = text.split(title + "\n", 1)[1].split("\n#", 1)[0].strip()  # to the next heading of any level
        bullets += [b for b in re.split(r"\n(?=- )", body) if b.startswith("- ")]
    assert len(bullets) >= 20
    # test files are named without their folder (tests/<layer>/): each name is one file of the suite
    where = {p.name: str(p) for p in pathlib.Path(TESTS).rglob("test_*.py")}
    for bullet in bullets:
        refs = re.findall(r"`(test_\w+\.py)?::(test_\w+)`", bullet)
        assert refs, f"a difference without a test: {bullet[:80]!r}"
        current = None
        for path, name in refs:
            current = path or current
            with open(where.get(current, os.path.join(TESTS, current)), encoding="utf-8") as f:
                assert f"def {name}(" in f.read(), f"{current}::{name} is named in the README but not defined"


def test_numpy_reads_no_tensor_that_requires_grad_as_torch(torch):
    """np.asarray/np.array of a tensor in a graph raise as torch's do (NumPy would read
    and could write its memory behind autograd's back); numpy(force=True) and
    detach().numpy() share the memory."""
    for M in (torch, pytensor):
        x = M.ones(2, requires_grad=True)
        for convert in (np.asarray, np.array, lambda t: t.numpy(), lambda t: t.__array__()):
            with pytest.raises(RuntimeError, match="requires grad"), warnings.catch_warnings():
                # torch's __array__ takes no copy keyword, which NumPy 2 deprecates
                warnings.filterwarnings("ignore", "__array__ implementation doesn't accept a copy", DeprecationWarning)
                convert(x)
        forced = x.numpy(force=True)
        assert forced.ctypes.data == x.data_ptr() and x.detach().numpy().ctypes.data == x.data_ptr()
    # README ("NumPy arrays as operands"): torch hands `t + array` to NumPy, which cannot read a
    # tensor that requires grad; pytensor computes it and keeps the graph
    with pytest.raises(RuntimeError, match="requires grad"):
        torch.ones(2, requires_grad=True) + np.ones(2)
    assert (pytensor.ones(2, requires_grad=True) + np.ones(2)).grad_fn.name() == "AddBackward0"


def test_size_numel_counts_shapes_and_refuses_what_is_not_one(torch):
    """Size.numel() is libtensor's element count, the one every tensor is sized by: on a valid shape it is
    torch's; a negative extent or a count past int64 raises, where torch returns the plain (or wrapped) product."""
    import pytensor
    from pytensor.errors import PytensorError
    for shape in [(), (0,), (2, 3), (1, 0, 5), (2**31, 2**31)]:
        assert pytensor.Size(shape).numel() == torch.Size(shape).numel()
    assert torch.Size([-1, 3]).numel() == -3
    assert torch.Size([2**32, 2**32]).numel() == 0                    # wrapped past 2**64
    for bad in [(-1, 3), (2**32, 2**32)]:
        with pytest.raises((ValueError, RuntimeError, PytensorError)):
            pytensor.Size(bad).numel()


@pytest.mark.parametrize("name", ["empty", "zeros", "ones", "rand", "randn"])
def test_factories_take_size_as_torch_does(torch, name):
    """No size at all is torch's TypeError (not a 0-d tensor); ``size=`` as a keyword is a shape; ``()`` is 0-d."""
    import pytensor
    for M in (torch, pytensor):
        with pytest.raises(TypeError, match="size"):
            getattr(M, name)()
    for size in [(2, 3), [4], ()]:
        assert tuple(getattr(pytensor, name)(size=size).shape) == tuple(getattr(torch, name)(size=size).shape)
        assert tuple(getattr(pytensor, name)(size).shape) == tuple(getattr(torch, name)(size).shape)
    assert getattr(pytensor, name)(size=(2,), dtype=pytensor.float64).dtype is pytensor.float64
