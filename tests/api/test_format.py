"""Differential tests for pytensor._format: the same data is printed by torch
and by format_tensor (fed a NumPy array, which satisfies the duck-typed
protocol), and the two strings must agree exactly once torch's dtype prefix
"torch." is rewritten to "pytensor."."""
import importlib.util
import math
import pathlib

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from hypothesis.extra import numpy as hnp

from support import require_module


def _load_format_module():
    try:
        from pytensor import _format
        return _format
    except Exception:  # package not built/importable: load the file itself
        path = pathlib.Path(__file__).resolve().parents[2] / "pytensor" / "_format.py"
        spec = importlib.util.spec_from_file_location("_pytensor_format_standalone", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module


torch = require_module("torch")  # the whole module compares with torch: skipped without it, failed in CI
fmt_mod = _load_format_module()
format_tensor = fmt_mod.format_tensor
set_printoptions = fmt_mod.set_printoptions
get_printoptions = fmt_mod.get_printoptions


@pytest.fixture(autouse=True)
def _restore_defaults():
    yield
    set_printoptions(profile="default")
    torch.set_printoptions(profile="default")
    torch.set_default_dtype(torch.float32)


def both_options(**kwargs):
    set_printoptions(**kwargs)
    torch.set_printoptions(**kwargs)


def _kind(dtype):
    if dtype == torch.bool:
        return "bool"
    if dtype.is_complex:
        return "complex"
    if dtype.is_floating_point:
        return "float"
    return "int"


def ours(tt, arr=None, suffixes=()):
    """format_tensor applied to a NumPy copy of the torch tensor ``tt``."""
    if arr is None:
        src = tt.detach()
        arr = src.float().numpy() if src.dtype == torch.bfloat16 else src.numpy()
    return format_tensor(
        arr,
        dtype_name=str(tt.dtype).removeprefix("torch."),
        kind=_kind(tt.dtype),
        default_float=str(torch.get_default_dtype()).removeprefix("torch."),
        suffixes=list(suffixes),
    )


def theirs(tt):
    return repr(tt).replace("torch.", "pytensor.")


def check(tt, suffixes=()):
    expected = theirs(tt)
    got = ours(tt, suffixes=suffixes)
    assert got == expected, f"\nexpected:\n{expected}\ngot:\n{got}"
    return got


# --------------------------------------------------------------------------
# hand-picked values
# --------------------------------------------------------------------------

nan, inf = math.nan, math.inf

FLOAT_CASES = [
    [1.0, 2.0, 3.0],
    [1.5, 2.25, -3.125],
    [0.1, 100.0, 1000.0],
    [0.1, 100.0, 1000.5],
    [1e-5, 1.0],
    [1e-4, 0.5],
    [1e8, 1.0],
    [1e8 + 1],
    [123456789.0],
    [1e9, 2.5],
    [1e16, -3.0],
    [nan, inf, -inf, 0.0, -0.0],
    [-0.0],
    [0.0, 0.0],
    [nan],
    [inf, -inf],
    [-inf, 1.5],
    [nan, 12345.678],
    [1e-300, 1e300],
    [5e-324, 1.0],
    [1.7976931348623157e308, -1.0],
    [0.0, -0.0, 7.0],
    [-1.0, 2.0, -300.0],
    [1 / 3, 2 / 3, -1 / 7],
    [0.00012345, 0.5],
    [999.9999, 1.0],
    [0.99995, 1.00005],
    [2.5, 3.5, -2.5],
    [1000.0, 1.0],
    [1001.0, 1.0],
    [1000.5, 1.0],
]


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("values", FLOAT_CASES)
def test_float_vectors(values, dtype):
    check(torch.tensor(values, dtype=getattr(torch, dtype)))


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("value", [3.0, -0.0, 0.0, nan, -inf, 1 / 3, 1e-7, 1e12, 2.5, -123.456])
def test_float_scalars(value, dtype):
    check(torch.tensor(value, dtype=getattr(torch, dtype)))


def test_bfloat16_uses_its_own_value():
    t = torch.tensor([1 / 3], dtype=torch.bfloat16)
    assert check(t) == "tensor([0.3340], dtype=pytensor.bfloat16)"


def test_float16_emulated_values():
    rng = np.random.default_rng(0)
    arr = (rng.standard_normal((4, 5)) * 100).astype(np.float16)
    check(torch.from_numpy(arr))


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", "uint8"])
@pytest.mark.parametrize("values", [[0], [1, -2, 3], [5, 10, 100, -1000], [7]])
def test_int_vectors(values, dtype):
    if dtype == "uint8":
        values = [abs(v) % 256 for v in values]
    elif dtype == "int8":
        values = [max(-128, min(127, v)) for v in values]
    check(torch.tensor(values, dtype=getattr(torch, dtype)))


def test_int64_extremes_and_scalars():
    check(torch.tensor([2**63 - 1, -2**63, 0]))
    check(torch.tensor(3))
    check(torch.tensor(-3, dtype=torch.int16))
    check(torch.arange(60).reshape(3, 4, 5))


def test_bool():
    check(torch.tensor([True, False, True]))
    check(torch.tensor(False))
    check(torch.tensor([[True], [False]]))
    check(torch.ones(100, dtype=torch.bool))


COMPLEX_CASES = [
    [1 + 2j, -1 - 2j],
    [0j, complex(0.0, -0.0), complex(-0.0, 0.0)],
    [1e-5 + 1j, 3 - 4j],
    [complex(nan, 1), complex(1, nan), complex(inf, -inf)],
    [0.5 + 0.25j, 1e10 + 1j],
    [1.5 - 2.5j],
    [complex(1, 1e-8), complex(2, -3)],
]


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("values", COMPLEX_CASES)
def test_complex(values, dtype):
    check(torch.tensor(values, dtype=getattr(torch, dtype)))
    check(torch.tensor(values[0], dtype=getattr(torch, dtype)))


def test_complex_matrix_wraps():
    rng = np.random.default_rng(1)
    arr = (rng.standard_normal((3, 9)) + 1j * rng.standard_normal((3, 9))).astype(np.complex64)
    check(torch.from_numpy(arr))


# --------------------------------------------------------------------------
# shapes, layout, suffixes
# --------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(5,), (2, 3), (2, 3, 4), (2, 2, 2, 3), (1, 1, 1, 1), (3, 1, 2)])
def test_nd_layout(shape):
    rng = np.random.default_rng(2)
    arr = rng.standard_normal(shape).astype(np.float32)
    check(torch.from_numpy(arr))
    check(torch.from_numpy(np.arange(math.prod(shape), dtype=np.int32).reshape(shape)))


def test_long_rows_wrap():
    check(torch.arange(100.0) / 7)
    check(torch.arange(50).reshape(2, 25) * 1000)
    check(torch.linspace(-1e6, 1e6, 40).reshape(2, 2, 10))


@pytest.mark.parametrize("shape", [(0,), (0, 3), (2, 0), (0, 0, 1), (3, 0, 2)])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool", "complex64", "uint8"])
def test_empty(shape, dtype):
    check(torch.zeros(shape, dtype=getattr(torch, dtype)))


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128", "int64", "int32"])
def test_default_dtype_float64(dtype):
    torch.set_default_dtype(torch.float64)
    check(torch.tensor([1.5, 2.0]).to(getattr(torch, dtype)))
    check(torch.zeros((0,), dtype=getattr(torch, dtype)))


def test_suffixes():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    check(x, suffixes=["requires_grad=True"])
    y = x * 2
    check(y, suffixes=["grad_fn=<MulBackward0>"])
    h = torch.tensor([1.0, 2.0], dtype=torch.float16, requires_grad=True)
    check(h, suffixes=["requires_grad=True"])
    check(h.sum(), suffixes=["grad_fn=<SumBackward0>"])
    # long last line: the suffix moves onto its own line
    w = torch.arange(16.0, dtype=torch.float64).div(3).reshape(2, 8).requires_grad_()
    check(w, suffixes=["requires_grad=True"])
    check(w + 1, suffixes=["grad_fn=<AddBackward0>"])
    check(torch.ones(11, dtype=torch.float64, requires_grad=True), suffixes=["requires_grad=True"])


# --------------------------------------------------------------------------
# summarisation
# --------------------------------------------------------------------------

def test_summarised_1d_and_2d():
    check(torch.arange(10000))
    check(torch.arange(10000.0) / 3)
    rng = np.random.default_rng(3)
    big = rng.standard_normal((2000, 2000)).astype(np.float32)
    check(torch.from_numpy(big))
    check(torch.from_numpy(big.astype(np.complex64) * (1 + 1j)))
    check(torch.arange(24000).reshape(10, 20, 120))
    check(torch.arange(2002).reshape(2, 1001))
    check(torch.arange(2002).reshape(1001, 2))


class LazyTensor:
    """A tensor whose elements are computed on demand; counts what it reads."""

    def __init__(self, shape, offset=0, strides=None, budget=None):
        self.shape = tuple(shape)
        if strides is None:
            strides, acc = [], 1
            for n in reversed(self.shape):
                strides.insert(0, acc)
                acc *= n
        self.strides = tuple(strides)
        self.offset = offset
        self.budget = budget if budget is not None else [0]

    @staticmethod
    def value(flat):
        return (flat % 1999) * 0.25 - 100.0

    def __getitem__(self, key):
        n = self.shape[0]
        if isinstance(key, int):
            key = key + n if key < 0 else key
            assert 0 <= key < n
            return LazyTensor(self.shape[1:], self.offset + key * self.strides[0],
                              self.strides[1:], self.budget)
        start, stop, step = key.indices(n)
        assert step == 1
        return LazyTensor((max(0, stop - start),) + self.shape[1:],
                          self.offset + start * self.strides[0], self.strides, self.budget)

    def tolist(self):
        def build(shape, strides, offset):
            if not shape:
                self.budget[0] += 1
                return self.value(offset)
            return [build(shape[1:], strides[1:], offset + i * strides[0]) for i in range(shape[0])]
        return build(self.shape, self.strides, self.offset)


def _compressed_torch(lazy, edge):
    """A small torch tensor with the same edge values as ``lazy``."""
    def pick(n):
        if n <= 2 * edge:
            return list(range(n))
        return list(range(edge)) + [n // 2] + list(range(n - edge, n))
    idx = np.ix_(*[pick(n) for n in lazy.shape])
    flat = np.zeros([len(pick(n)) for n in lazy.shape], dtype=np.int64)
    for axis, (ix, stride) in enumerate(zip(idx, lazy.strides)):
        flat = flat + np.asarray(ix) * stride
    return torch.from_numpy(LazyTensor.value(flat).astype(np.float64))


@pytest.mark.parametrize("shape", [(10**9,), (40000, 25000), (2, 5 * 10**8), (1000, 1000, 1000), (10**6, 1, 10**3)])
def test_huge_tensor_reads_only_edges(shape):
    lazy = LazyTensor(shape)
    got = format_tensor(lazy, dtype_name="float64", kind="float", default_float="float32")
    assert lazy.budget[0] <= 6 ** len(shape)
    torch.set_printoptions(threshold=0)
    assert got == theirs(_compressed_torch(lazy, 3))


def test_huge_tensor_edgeitems_zero():
    set_printoptions(edgeitems=0)
    lazy = LazyTensor((10**9,))
    assert format_tensor(lazy, dtype_name="int64", kind="int", default_float="float32") \
        == "tensor([...], size=(1000000000,))"
    assert lazy.budget[0] == 0


# --------------------------------------------------------------------------
# print options
# --------------------------------------------------------------------------

def test_printoptions_defaults_and_profiles():
    assert get_printoptions() == torch._tensor_str.get_printoptions()
    for kwargs in [dict(profile="short"), dict(profile="full"), dict(precision=7),
                   dict(profile="short", linewidth=50, sci_mode=True), dict(profile="nope"),
                   dict(threshold=5, edgeitems=1), dict(profile="default")]:
        both_options(**kwargs)
        assert get_printoptions() == torch._tensor_str.get_printoptions()
    with fmt_mod.printoptions(precision=1):
        assert get_printoptions()["precision"] == 1
    assert get_printoptions() == torch._tensor_str.get_printoptions()


OPTION_SETS = [
    dict(precision=2),
    dict(precision=10),
    dict(precision=0),
    dict(sci_mode=True),
    dict(sci_mode=False),
    dict(linewidth=40),
    dict(linewidth=200),
    dict(linewidth=5),
    dict(threshold=5),
    dict(threshold=5, edgeitems=1),
    dict(threshold=5, edgeitems=0),
    dict(edgeitems=0),
    dict(threshold=0),
    dict(profile="short"),
    dict(profile="full"),
]

OPTION_TENSORS = [
    lambda: torch.arange(2000.0) / 7,
    lambda: torch.tensor([1e-9, 1.0, 1e9, nan, -inf]),
    lambda: torch.tensor([[1.0, 2.0], [3.0, 4.0]]),
    lambda: torch.tensor([0.0, -0.0, inf]),
    lambda: torch.tensor(2.5),
    lambda: torch.arange(120).reshape(2, 3, 4, 5),
    lambda: torch.tensor([1 + 1j, 1e-6 - 3j], dtype=torch.complex128),
    lambda: torch.tensor([True, False] * 7),
    lambda: torch.arange(3000, dtype=torch.int32).reshape(30, 100) - 1500,
    lambda: torch.zeros(0, 4),
]


@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda d: ",".join(f"{k}={v}" for k, v in d.items()))
def test_printoptions_differential(options):
    both_options(**options)
    for make in OPTION_TENSORS:
        check(make())
    check(torch.tensor([1.0, 2.0], requires_grad=True), suffixes=["requires_grad=True"])


# --------------------------------------------------------------------------
# generated arrays
# --------------------------------------------------------------------------

SHAPES = hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=5)


def _float_elements(width):
    return st.one_of(
        st.floats(width=width),
        st.integers(-10**6, 10**6).map(float),
        st.integers(-4000, 4000).map(lambda i: i / 16),
        st.sampled_from([0.0, -0.0, 1e-5, 1e8, 1.5e9, 123.456, nan, inf, -inf]),
    )


ELEMENTS = {
    np.float32: _float_elements(32),
    np.float64: _float_elements(64),
    np.int32: st.integers(-2**31, 2**31 - 1),
    np.int64: st.integers(-2**63, 2**63 - 1),
    np.bool_: st.booleans(),
    np.complex64: st.builds(complex, _float_elements(32), _float_elements(32)),
}


@st.composite
def arrays(draw, max_side=5):
    dtype = draw(st.sampled_from(list(ELEMENTS)))
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=max_side))
    return draw(hnp.arrays(dtype, shape, elements=ELEMENTS[dtype]))


FAST = settings(max_examples=150, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@FAST
@given(arrays())
def test_generated_default_options(arr):
    check(torch.from_numpy(arr))


@FAST
@given(arrays(max_side=7),
       st.integers(0, 60), st.integers(0, 3), st.integers(1, 120),
       st.integers(0, 8), st.sampled_from([None, True, False]))
def test_generated_with_options(arr, threshold, edgeitems, linewidth, precision, sci_mode):
    both_options(threshold=threshold, edgeitems=edgeitems, linewidth=linewidth,
                 precision=precision, sci_mode=sci_mode)
    try:
        check(torch.from_numpy(arr))
    finally:
        set_printoptions(profile="default")
        torch.set_printoptions(profile="default")
