"""Tensor.__array__ keeps NumPy 2's copy protocol, as ndarray.__array__ does:
copy=False never copies (ValueError when a copy would be needed), copy=None
copies only when it must, copy=True always copies."""
import pytest

import pytensor


@pytest.fixture
def pair(np):
    base = np.arange(6, dtype=np.float32)
    return base, pytensor.from_numpy(base)


@pytest.mark.parametrize("dtype", [None, "float32", "float64", "int64"])
@pytest.mark.parametrize("copy", [None, False, True])
def test_array_follows_ndarrays_protocol(np, pair, dtype, copy):
    base, t = pair
    kw = {"copy": copy} if dtype is None else {"dtype": np.dtype(dtype), "copy": copy}
    try:
        expected = base.__array__(**kw)
    except ValueError:
        with pytest.raises(ValueError, match="Unable to avoid copy"):
            t.__array__(**kw)
        return
    got = t.__array__(**kw)
    assert got.dtype == expected.dtype and got.tolist() == expected.tolist()
    assert np.shares_memory(got, base) == np.shares_memory(expected, base)


def test_copy_false_with_a_new_dtype_refuses_instead_of_losing_writes(np, pair):
    """Regression: __array__(float64, copy=False) returned a converted
    copy, so writes through it never reached the tensor."""
    _, t = pair
    with pytest.raises(ValueError, match=r"float32 .* dtype=.*float64.* copy=False"):
        t.__array__(np.float64, copy=False)
    shared = t.__array__(np.float32, copy=False)
    shared[0] = 42
    assert t[0].item() == 42


def test_numpy_entry_points_agree(np, pair):
    _, t = pair
    with pytest.raises(ValueError):
        np.asarray(t, dtype=np.float64, copy=False)
    assert np.shares_memory(np.asarray(t, copy=False), t.numpy())
    assert not np.shares_memory(np.array(t, copy=True), t.numpy())
