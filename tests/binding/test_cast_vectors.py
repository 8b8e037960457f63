"""The AVX2 loops of float32 -> int16, int8, complex64 and complex128 (cast.c):
exact against torch at the truncation and overflow boundaries (NaN, the
infinities, +-2^31, the int16 and int8 wrap points, -0.0), dense (the vector
loop) and strided (the portable loop), and bit-identical to the portable
loops that LT_CAST_BASELINE=1 forces."""
import os
import subprocess
import sys
import tempfile

import numpy as np
import pytest

import pytensor
from support import require_module

EDGES = [np.nan, np.inf, -np.inf, 2**31, -2**31, 2**31 - 128, -2**31 - 256, 2**63, -2**63, 1e30, -0.0, 0.0, 0.5,
         -0.5, -1.5, 32767.9, 32768, -32768.5, -32769, 65535.5, 65536, 127.9, 128, -128.9, -129, 255.5, 256, 1e10,
         -1e10, 2**24 + 2, 3.4e38, -3.4e38, 1e-45]


def _inputs(seed=3):
    """Random values wide enough to wrap int16 and int8 and overflow int32, the edges twice (once where a
    vector block holds them, once in the scalar tail), an odd length."""
    rng = np.random.default_rng(seed)
    edges = np.array(EDGES, dtype=np.float32)
    return np.concatenate([rng.standard_normal(50_003).astype(np.float32) * np.float32(3e9), edges,
                           rng.standard_normal(20_000).astype(np.float32) * np.float32(300), edges])


@pytest.mark.parametrize("strided", [False, True])
@pytest.mark.parametrize("name", ["short", "char", "cfloat", "cdouble"])
def test_float32_casts_match_torch_at_every_boundary(name, strided):
    torch = require_module("torch")
    x = _inputs()
    a, b = pytensor.from_numpy(x.copy()), torch.from_numpy(x.copy())
    if strided:
        a, b = a[::3], b[::3]
    got, want = getattr(a, name)().numpy(), getattr(b, name)().numpy()
    assert got.dtype == want.dtype and got.shape == want.shape
    assert np.array_equal(got, want, equal_nan=True)
    if got.dtype.kind == "c":  # -0.0 stays -0.0 and the imaginary part is +0.0, as torch's
        assert (np.signbit(got.real) == np.signbit(want.real)).all()
        assert (np.signbit(got.imag) == np.signbit(want.imag)).all()


_DIGEST = r"""
import hashlib, sys
import numpy as np
import pytensor
sys.path[:0] = [sys.argv[1], sys.argv[1] + "/.."]  # this file and tests/support.py
from test_cast_vectors import _inputs
h = hashlib.sha256()
x = pytensor.from_numpy(_inputs(11))
for t in (x, x[1:], x[::2]):
    for name in ("short", "char", "cfloat", "cdouble"):
        h.update(bytes(getattr(t, name)().contiguous().view(pytensor.uint8).numpy()))
sys.stdout.write(h.hexdigest())
"""


def test_the_vector_loops_give_the_portable_loops_bytes():
    digests = []
    for force in ("1", "0"):
        env = dict(os.environ, LT_CAST_BASELINE=force)
        res = subprocess.run([sys.executable, "-c", _DIGEST, os.path.dirname(os.path.abspath(__file__))],
                             capture_output=True, text=True, timeout=300, env=env, cwd=tempfile.gettempdir())
        assert res.returncode == 0, res.stderr[-2000:]
        digests.append(res.stdout)
    assert digests[0] == digests[1] and len(digests[0]) == 64
