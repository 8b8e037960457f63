"""float16 and bfloat16 means round once, as torch 2.13's CPU mean does:
the float32 sum divided by the count, then rounded to the dtype (rounding the
sum first was a unit in the last place off in about one case in ten)."""
import random

import pytest

import pytensor
from support import require_module


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
def test_means_round_once_as_torch(dt):
    torch = require_module("torch")
    rng = random.Random(7)
    compared = 0
    for _ in range(60):
        rows, cols = rng.randint(1, 9), rng.randint(1, 40)
        vals = [rng.uniform(-4, 4) for _ in range(rows * cols)]
        t = torch.tensor(vals, dtype=getattr(torch, dt)).view(rows, cols)
        p = pytensor.tensor(t.float().tolist(), dtype=getattr(pytensor, dt))
        for args in ((), (0,), (1,), ((0, 1),), (1, True)):
            got, want = p.mean(*args), t.mean(*args)
            assert got.shape == want.shape and got.dtype.name == dt
            assert got.float().tolist() == want.float().tolist(), (vals, args)
            compared += 1
    # mean(dtype=float16) of a float32 tensor: the same single rounding
    v = [0.1328125, -2.21484375, 1.1884765625, -0.8408203125, 0.60693359375, -1.4296875, 1.0478515625]
    assert pytensor.tensor(v).mean(dtype=getattr(pytensor, dt)).item() == \
        torch.tensor(v).mean(dtype=getattr(torch, dt)).item()
    assert compared == 300


def test_the_attack_rounds_cases():
    v = [0.1328125, -2.21484375, 1.1884765625, -0.8408203125, 0.60693359375, -1.4296875, 1.0478515625]
    assert pytensor.tensor(v, dtype=pytensor.float16).mean().item() == -0.215576171875
    b = [-3.921875, 3.046875, 1.4921875, 3.75, 1.8046875, 0.220703125]
    assert pytensor.tensor(b, dtype=pytensor.bfloat16).mean().item() == 1.0625
    g = pytensor.tensor(v, dtype=pytensor.float16, requires_grad=True)
    g.mean().backward()
    assert g.grad.dtype == pytensor.float16 and all(abs(x - 1 / 7) < 1e-3 for x in g.grad.tolist())
