"""tensor() always copies: nothing it returns shares memory with its input.
Also the dtype inference, value conversion and error rules that tensor,
as_tensor and asarray share for Python data."""
import array
import decimal
import fractions
import math
import subprocess
import sys
import tempfile

import numpy as np
import pytest

import pytensor
from ctor_support import GRAD_DTYPES, NO_GRAD_DTYPES, NUMPY_DTYPES, address, pt_dtype, sample

P = pytensor


# ------------------------------------------------------------------ never shares

@pytest.mark.parametrize("name", NUMPY_DTYPES)
def test_numpy_input_is_copied(name):
    a = sample(name, 4)
    t = P.tensor(a)
    assert t.dtype is pt_dtype(name) and t.tolist() == a.tolist()
    assert t.data_ptr() != address(a)
    a[0] = a[1]                                    # later writes to the array are not seen
    assert t[0].item() != a[0].item()
    t[3] = t[2].item()                             # and writes to the copy do not reach it
    assert a[3] != a[2]


def test_tensor_input_is_copied_with_a_warning():
    src = P.arange(4, dtype=P.float32)
    with pytest.warns(UserWarning, match="To copy construct from a tensor"):
        t = P.tensor(src)
    assert t.data_ptr() != src.data_ptr() and t.tolist() == src.tolist()
    t[0] = 9
    assert src[0].item() == 0


@pytest.mark.parametrize("src", [bytearray(b"\x01\x02"), array.array("b", [1, 2]), memoryview(bytearray(b"\x01\x02"))])
def test_buffers_are_iterated_and_copied(src):
    t = P.tensor(src)
    assert t.dtype is P.int64 and t.tolist() == [1, 2]
    t[0] = 5
    assert list(src)[0] == 1


def test_read_only_array_gives_a_writable_copy():
    a = np.arange(3.0)
    a.flags.writeable = False
    t = P.tensor(a)
    t[0] = 7.0
    assert a[0] == 0 and not t.untyped_storage().is_readonly()


def test_result_is_a_detached_leaf():
    src = P.ones(2, requires_grad=True)
    with pytest.warns(UserWarning):
        t = P.tensor(src * 2)
    assert t.is_leaf and not t.requires_grad and t.grad_fn is None
    with pytest.warns(UserWarning):
        u = P.tensor(src, requires_grad=True)
    assert u.is_leaf and u.requires_grad and u.data_ptr() != src.data_ptr()


# ------------------------------------------------------------------ layout of the copy

def _np_elem_strides(a):
    return tuple(s // a.itemsize for s in a.strides)


@pytest.mark.parametrize("make, expected", [
    (lambda: np.arange(12.0).reshape(3, 4).T, "same"),                 # dense: strides kept
    (lambda: np.arange(24.0).reshape(2, 3, 4).transpose(1, 0, 2), "same"),
    (lambda: np.arange(12.0).reshape(3, 4)[:, ::2], (2, 1)),           # holes: dense, same order
    (lambda: np.arange(24.0).reshape(4, 6)[:, ::2].T, (1, 3)),         # holes, column-major order kept
    (lambda: np.broadcast_to(np.arange(3.0), (2, 3)), (3, 1)),         # zero stride: row-major
    (lambda: np.zeros((3, 1)), "same"),
])
def test_copy_keeps_dense_layouts(make, expected):
    a = make()
    t = P.tensor(a)
    assert t.stride() == (_np_elem_strides(a) if expected == "same" else expected)
    assert t.tolist() == a.tolist() and t.data_ptr() != address(a)


def test_sequences_give_row_major_tensors():
    assert P.tensor([[1, 2, 3], [4, 5, 6]]).stride() == (3, 1)


# ------------------------------------------------------------------ dtype inference

@pytest.mark.parametrize("data, dtype", [
    (True, "bool"), (5, "int64"), (5.0, "float32"), (1j, "complex64"),
    ([True, 1], "int64"), ([True, 1.5], "float32"), ([1, 1j], "complex64"),
    ([0.0, True, False, 42, 5j], "complex64"), ([[1, 2], [3.5, 4]], "float32"),
    ([], "float32"), ((), "float32"), (range(3), "int64"), ([1.0, 2**70], "float32"),
    ([np.uint8(1), np.int8(2)], "int16"), ([np.int8(1), np.float16(2)], "float16"),
    ([np.int32(1), np.int32(2)], "int32"), ([np.float32(1), np.float32(2)], "float32"),
    ([np.float16(1.5), 2.0], "float32"), ([np.float64(1), 2], "float64"), ([np.int8(1), 2], "int64"),
    ([np.bool_(True), 2.5], "float32"),
    ([P.tensor(1, dtype=P.int32), P.tensor(2, dtype=P.int32)], "int32"),
    ([P.tensor(1, dtype=P.int8), P.tensor(1, dtype=P.int16)], "int16"),
    ([P.tensor(1, dtype=P.int8), 2], "int64"), ([P.tensor(1, dtype=P.float64), 2.5], "float64"),
    ([P.tensor(1, dtype=P.float16), 2.5], "float32"), ([P.tensor(1, dtype=P.int32), 2.5], "float32"),
    (((7, np.array(5)), (np.array(9), 5.0)), "float32"), (((7, 5), (9, np.array(5.0))), "float64"),
    ([np.array([1, 2]), np.array([3, 4])], "int64"),
    (np.array(()), "float64"), (np.array(5.0), "float64"), (np.array(3, dtype=np.uint8), "uint8"),
    (np.float16(1), "float16"), (np.uint16(1), "uint16"), (np.int16(2), "int16"),
])
def test_dtype_inference(data, dtype):
    assert P.tensor(data).dtype is pt_dtype(dtype)


def test_inference_follows_the_default_dtype():
    old = P.get_default_dtype()
    try:
        P.set_default_dtype(P.float64)
        assert P.tensor(1.5).dtype is P.float64 and P.tensor(1j).dtype is P.complex128
        assert P.tensor([]).dtype is P.float64
        assert P.tensor([np.float16(1), 2.0]).dtype is P.float64
    finally:
        P.set_default_dtype(old)


@pytest.mark.parametrize("data, shape", [([], (0,)), ([[]], (1, 0)), ([[], []], (2, 0)), (3.0, ()),
                                         ([[1], [2], [3]], (3, 1))])
def test_shapes(data, shape):
    assert P.tensor(data).shape == shape


def test_numpy_scalars_keep_their_values():
    for name in ("float64", "float16", "int64", "int32", "int16", "uint8", "bool"):
        s = np.dtype(name).type(42)
        assert P.tensor(s).item() == s.item()


# ------------------------------------------------------------------ errors

def _self_ref():
    z = [0]
    z.append(z)
    return z


@pytest.mark.parametrize("data, exc, match", [
    ([[1, 2], [3]], ValueError, r"expected sequence of length 2 at dim 1 \(got 1\)"),
    ([[1, 2], 3], TypeError, "not a sequence"),
    ([1, [2, 3]], TypeError, "cannot be interpreted as an integer"),
    ("abc", TypeError, "invalid data type 'str'"), ([0, "x"], TypeError, "invalid data type 'str'"),
    (b"ab", TypeError, "invalid data type 'bytes'"),
    (_self_ref(), TypeError, "self-referential lists are incompatible"),
    (None, RuntimeError, "Could not infer dtype of NoneType"), ([None], RuntimeError, "NoneType"),
    ({}, RuntimeError, "Could not infer dtype of dict"), ({1}, RuntimeError, "set"),
    ((x for x in range(2)), RuntimeError, "generator"), (decimal.Decimal(1), RuntimeError, "Decimal"),
    (fractions.Fraction(1, 2), RuntimeError, "Fraction"),
    (2**63, ValueError, "Overflow"), ([2**64], ValueError, "Overflow"), (-2**63 - 1, ValueError, "Overflow"),
    ([P.tensor([1.0, 2.0]), P.tensor([3.0, 4.0])], ValueError, "only one element tensors"),
    ([P.tensor([1, 2])], TypeError, "only integer tensors of a single element"),
    ([np.array(1.5), np.array(2.5)], TypeError, r"len\(\) of unsized object"),
    ([np.bool_(True), 2], TypeError, "'numpy.bool' object cannot be interpreted as an integer"),
    (np.uint64(1), TypeError, "an integer is required"),
    ([np.random.rand(3, 3), np.random.rand(3, 0)], ValueError, r"expected sequence of length 3 at dim 2 \(got 0\)"),
    ([[1, 2, 3], np.random.rand(2)], ValueError, r"expected sequence of length 3 at dim 1 \(got 2\)"),
    ([[np.arange(3), np.float64(1)]], TypeError, "not a sequence"),
    (np.arange(3.0)[::-1], ValueError, "negative"),          # numpy input gets from_numpy's checks
    (np.arange(3, dtype=">i4"), ValueError, "byte order"),
])
def test_errors(data, exc, match):
    with pytest.raises(exc, match=match):
        P.tensor(data)


def test_minimum_int64_is_fine():
    assert P.tensor(-2**63).item() == -2**63


# ------------------------------------------------------------------ conversion to an explicit dtype

@pytest.mark.parametrize("data, dtype, expected", [
    ([1.7, -1.7], "int32", [1, -1]), ([-1], "uint8", [255]), ([-255], "uint8", [1]),
    ([1e40], "float32", [math.inf]), ([1e10], "float16", [math.inf]),
    ([2**63, 2**64 - 1], "uint64", [2**63, 2**64 - 1]), ([2**70], "float64", [float(2**70)]),
    ([2**70], "bool", [True]), ([1j, 0j], "bool", [True, False]),
    ([-1, -1.1, 0, 1, 1.1], "bool", [True, True, False, True, True]),
    ([math.nan, math.inf, 1e-323, 1e-324], "bool", [True, True, True, False]),
    ([np.int64(3)], "float32", [3.0]), ([P.tensor(2.5)], "float64", [2.5]), ([np.float64(2.5)], "int8", [2]),
    ([np.complex64(1 + 2j)], "float32", [1.0]),
])
def test_value_conversion(data, dtype, expected):
    assert P.tensor(data, dtype=pt_dtype(dtype)).tolist() == expected


@pytest.mark.parametrize("data, dtype", [
    ([300], "uint8"), ([-256], "uint8"), ([256], "uint8"), ([2**31], "int32"), ([-2**31 - 1], "int32"),
    ([128], "int8"), ([math.nan], "int64"), ([math.inf], "int32"), ([-math.inf], "int16"),
    ([-0.5], "uint8"), ([255.5], "uint8"), ([127.9], "int8"), ([2.0**31], "int32"), ([70000], "uint16"),
    ([np.int64(300)], "int8"), ([np.float64(300)], "int8"), ([P.tensor(300)], "int8"),
])
def test_values_out_of_range_raise_runtime_error(data, dtype):
    with pytest.raises(RuntimeError, match=f"value cannot be converted to type {dtype} without overflow"):
        P.tensor(data, dtype=pt_dtype(dtype))
    with pytest.raises(RuntimeError, match="without overflow"):
        P.as_tensor(data, dtype=pt_dtype(dtype))
    with pytest.raises(RuntimeError, match="without overflow"):
        P.asarray(data, dtype=pt_dtype(dtype))


@pytest.mark.parametrize("data, dtype, exc, match", [
    ([1j], "float32", TypeError, "must be real number, not complex"),
    ([1j], "int64", TypeError, "'complex' object cannot be interpreted as an integer"),
    ([-1], "uint64", OverflowError, "negative"), ([2**64], "uint64", OverflowError, "too big"),
    ([1.0], "uint64", TypeError, "an integer is required"),
    ([np.bool_(True)], "int64", TypeError, "'numpy.bool' object cannot be interpreted as an integer"),
    ([2**63], "int64", ValueError, "Overflow"),
    ([P.tensor(2.5)], "int8", TypeError, "only integer tensors of a single element"),
    ([np.float32(2.5)], "int32", TypeError, "'numpy.float32' object cannot be interpreted as an integer"),
    ([np.float16(1)], "bool", TypeError, "'numpy.float16' object cannot be interpreted as an integer"),
    ([np.uint8(1)], "uint64", TypeError, "an integer is required"),
])
def test_other_conversion_errors(data, dtype, exc, match):
    with pytest.raises(exc, match=match):
        P.tensor(data, dtype=pt_dtype(dtype))


def test_numpy_arrays_are_cast_without_range_checks():
    # like torch: only Python numbers are range-checked, arrays are cast
    assert P.tensor(np.array([300]), dtype=P.uint8).tolist() == [300 % 256]


# ------------------------------------------------------------------ requires_grad and arguments

@pytest.mark.parametrize("name", GRAD_DTYPES)
def test_requires_grad_for_floating_and_complex(name):
    t = P.tensor([1, 2], dtype=pt_dtype(name), requires_grad=True)
    assert t.requires_grad and t.is_leaf


@pytest.mark.parametrize("name", NO_GRAD_DTYPES)
def test_requires_grad_refused_for_other_dtypes(name):
    with pytest.raises(RuntimeError, match="Only Tensors of floating point and complex dtype"):
        P.tensor([1, 0], dtype=pt_dtype(name), requires_grad=True)


def test_requires_grad_refused_for_inferred_integers():
    with pytest.raises(RuntimeError, match="floating point and complex"):
        P.tensor([1, 2], requires_grad=True)


def test_argument_rules():
    with pytest.raises(TypeError):
        P.tensor([1], P.float64)                             # one positional argument
    with pytest.raises(TypeError):
        P.tensor()
    with pytest.raises(TypeError, match="'dtype' must be"):
        P.tensor([1], dtype=np.float32)
    with pytest.raises(TypeError, match="'requires_grad' must be bool, not NoneType"):
        P.tensor([1.0], requires_grad=None)
    with pytest.raises(RuntimeError):
        P.tensor([1], device="cuda")
    assert P.tensor([1], device="cpu").device.type == "cpu"


# ------------------------------------------------------------------ sequences of any kind (torch's test_tensor_from_sequence)

class MockSequence:
    """__len__ and a __getitem__ that fails: no shape can be read."""

    def __init__(self, items):
        self.items = items

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        raise TypeError("no items here")


class GoodMockSequence(MockSequence):
    def __getitem__(self, i):
        return self.items[i]


@pytest.mark.parametrize("ctor", ["tensor", "as_tensor", "asarray"])
def test_tensor_from_sequence(ctor):
    make = getattr(pytensor, ctor)
    with pytest.raises(ValueError, match="could not determine the shape of object type 'MockSequence'"):
        make(MockSequence([1.0, 2.0, 3.0]))
    with pytest.raises(ValueError, match="could not determine the shape"):
        make([MockSequence([1.0])])                            # a nested one: the same
    assert make(GoodMockSequence([1.0, 2.0, 3.0])).tolist() == [1.0, 2.0, 3.0]
    nested = make(GoodMockSequence([GoodMockSequence([1, 2]), GoodMockSequence([3, 4])]))
    assert nested.dtype is pytensor.int64 and nested.tolist() == [[1, 2], [3, 4]]
    assert make(MockSequence([])).shape == (0,)                # empty: nothing to read


def test_a_failing_item_after_the_first_raises_its_own_error():
    class FailsAtOne(GoodMockSequence):
        def __getitem__(self, i):
            if i == 1:
                raise KeyError("item 1")
            return self.items[i]
    with pytest.raises(KeyError, match="item 1"):
        pytensor.tensor(FailsAtOne([1, 2]))


def test_getitem_without_len_is_a_sequence_without_a_length():
    class OnlyGetitem:
        def __getitem__(self, i):
            return 1
    with pytest.raises(TypeError, match="has no len"):
        pytensor.tensor(OnlyGetitem())


def test_sequences_that_nest_without_end_are_refused_not_hung():
    """A UserString's items are UserStrings, and an object may return itself: these
    used to loop for ever. Run in a subprocess with a timeout (a hang fails it)."""
    code = ("import collections, pytensor\n"
            "class Itself:\n"
            "    def __len__(self): return 1\n"
            "    def __getitem__(self, i): return self\n"
            "for data in (collections.UserString('ab'), [collections.UserString('a')], Itself()):\n"
            "    try:\n"
            "        pytensor.tensor(data)\n"
            "    except ValueError as e:\n"
            "        assert 'too many dimensions' in str(e) and '64' in str(e), e\n"
            "    else:\n"
            "        raise AssertionError('accepted')\n"
            "print('refused')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=tempfile.gettempdir())
    assert out.returncode == 0 and out.stdout.strip() == "refused", out.stderr
