"""copy_ of one row into dense rows (libtensor/src/copy.c: copy_broadcast_rows, issue 27): the row is copied
once and then the rows already written are copied in doubling blocks. Checked against numpy's broadcast for
shapes that end mid-block, every item size, and the layouts the fast case declines (a cast, a dst whose
rows are not dense, a src that is not one dense row), which the general walk copies."""
import numpy as np
import pytest

import pytensor

SHAPES = [(1, 5), (2, 3), (3, 1000), (100, 1000), (1000, 100), (10, 10000), (10000, 10), (37, 129), (5000, 3), (100000, 1), (7, 1), (1, 1)]
DTYPES = ["uint8", "int16", "float32", "float64", "complex128"]


def _expected(shape, dtype):
    row = (np.arange(shape[1]) % 97 + 1).astype(dtype)
    return row, np.broadcast_to(row, shape)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_row_into_dense_rows(shape, dtype):
    row, want = _expected(shape, dtype)
    w = pytensor.zeros(*shape, dtype=getattr(pytensor, dtype))
    w.copy_(pytensor.from_numpy(row.copy()))
    assert np.array_equal(w.numpy(), want)


@pytest.mark.parametrize("shape", [(100, 1000), (37, 129), (10000, 10)], ids=str)
def test_declined_layouts_still_copy(shape):
    row, want = _expected(shape, "float32")
    src = pytensor.from_numpy(row.copy())
    cast = pytensor.zeros(*shape, dtype=pytensor.float64)                 # a cast: the conversion kernel
    cast.copy_(src)
    assert np.array_equal(cast.numpy(), want.astype("float64"))
    big = pytensor.full((shape[0], shape[1] + 3), -1.0)
    big[:, :shape[1]].copy_(src)                                          # rows that are not adjacent
    assert np.array_equal(big.numpy()[:, :shape[1]], want) and (big.numpy()[:, shape[1]:] == -1).all()
    col = pytensor.zeros(*shape)
    col.t().copy_(pytensor.from_numpy(np.arange(shape[0], dtype="float32")))  # dst's dense dim is not src's
    assert np.array_equal(col.numpy(), np.broadcast_to(np.arange(shape[0], dtype="float32")[:, None], shape))
    stepped = pytensor.from_numpy(np.repeat(row, 2))[::2]                 # src not dense
    dst = pytensor.zeros(*shape)
    dst.copy_(stepped)
    assert np.array_equal(dst.numpy(), want)


@pytest.mark.parametrize("dtype", DTYPES)
def test_one_value_into_a_strided_dst(dtype):
    base = np.zeros((6, 9), dtype=dtype)
    w = pytensor.from_numpy(base.copy())
    w[::2, 1::3].copy_(pytensor.tensor(5, dtype=getattr(pytensor, dtype)))   # a 0-d src: every src stride 0
    base[::2, 1::3] = 5
    assert np.array_equal(w.numpy(), base)
