"""Random numbers: libtensor's generator (random.c) behind pytensor.Generator,
manual_seed, rand, randn, randint, randperm, uniform_ and normal_.

For the same seed pytensor gives torch 2.13's CPU numbers bit for bit (rand
and randn in float32 and float64 at 1, 15, 16, 17 and 10**6 elements, and
the rest where noted); float16/bfloat16 rand differs on purpose (samples in
the dtype's own precision, README "Random numbers") and is tested
statistically. Boundaries are tested by setting the generator's state so
that its next words are chosen ones.
"""
import math
import os
import struct
import subprocess
import sys
import tempfile
import textwrap
import threading
import warnings

import pytest

import pytensor

SEEDS = (0, 1, 2**40 + 3)
SIZES = (1, 15, 16, 17, 10**6)
STATE_NBYTES = 5056


def _bytes(t):
    """The raw bytes of a pytensor or torch tensor, in row-major order."""
    if type(t).__module__.startswith("torch"):
        import torch
        return bytes(t.contiguous().view(torch.uint8).numpy()) if t.numel() else b""
    return bytes(t.contiguous().view(pytensor.uint8).numpy()) if t.numel() else b""


def _torch_dtype(torch, dt):
    return getattr(torch, dt.name)


def _x86_vector_torch(torch):
    """torch's float32 randn for >= 16 elements runs its AVX2 kernel (which
    pytensor reproduces) on x86-64 CPUs with AVX2; elsewhere it calls libm."""
    return torch.backends.cpu.get_cpu_capability() in ("AVX2", "AVX512")


def _assert_same_normals(torch, ours, theirs):
    """Bit for bit where torch runs its x86-64 AVX2 kernel for float32 normals
    (which pytensor reproduces); elsewhere torch calls libm for them and only
    last bits may differ (README: Random numbers)."""
    if _x86_vector_torch(torch):
        assert _bytes(ours) == _bytes(theirs)
        return
    a = [complex(x) for x in ours.flatten().tolist()]
    b = [complex(x) for x in theirs.flatten().tolist()]
    tol = 1e-5 if ours.dtype in (pytensor.float32, pytensor.float64, pytensor.complex64, pytensor.complex128) else 1e-2
    assert len(a) == len(b) and max((abs(x - y) for x, y in zip(a, b)), default=0) <= tol * max(
        1.0, max((abs(y) for y in b), default=0))


# ================================================================== torch's numbers, bit for bit
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("fn", ["rand", "randn"])
def test_rand_and_randn_are_torchs_numbers(torch, fn, dtype, n, seed):
    dt = getattr(pytensor, dtype)
    pytensor.manual_seed(seed)
    torch.manual_seed(seed)
    ours, theirs = getattr(pytensor, fn)(n, dtype=dt), getattr(torch, fn)(n, dtype=_torch_dtype(torch, dt))
    if fn == "randn" and dtype == "float32":
        _assert_same_normals(torch, ours, theirs)
    else:
        assert _bytes(ours) == _bytes(theirs)
    # the generators are left in the same place: the next call agrees too
    assert _bytes(getattr(pytensor, fn)(5, dtype=dt)) == _bytes(getattr(torch, fn)(5, dtype=_torch_dtype(torch, dt)))


@pytest.mark.parametrize("n", (1, 15, 16, 17, 33, 1000, 2**18 + 5, 3 * 2**18 + 16))
@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "complex64", "complex128"])
def test_randn_of_other_dtypes_is_torchs(torch, dtype, n):
    """float16/bfloat16 randn are float32 normals rounded (whole blocks only,
    made 2**18 at a time: sizes across that chunk too); complex parts are
    normals of std 1/sqrt(2)."""
    dt = getattr(pytensor, dtype)
    pytensor.manual_seed(7)
    torch.manual_seed(7)
    _assert_same_normals(torch, pytensor.randn(n, dtype=dt), torch.randn(n, dtype=_torch_dtype(torch, dt)))


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_rand_is_torchs(torch, dtype):
    dt = getattr(pytensor, dtype)
    pytensor.manual_seed(3)
    torch.manual_seed(3)
    assert _bytes(pytensor.rand(4, 5, dtype=dt)) == _bytes(torch.rand(4, 5, dtype=_torch_dtype(torch, dt)))


def test_shapes_and_like_forms_draw_as_torch(torch):
    pytensor.manual_seed(11)
    torch.manual_seed(11)
    a, b = pytensor.rand(3, 4, 5), torch.rand(3, 4, 5)
    assert a.shape == tuple(b.shape) and _bytes(a) == _bytes(b)
    _assert_same_normals(torch, pytensor.randn_like(a), torch.randn_like(b))
    assert _bytes(pytensor.rand_like(a, dtype=pytensor.float64)) == _bytes(torch.rand_like(b, dtype=torch.float64))
    assert _bytes(pytensor.randint_like(a, 3, 9)) == _bytes(torch.randint_like(b, 3, 9))


@pytest.mark.parametrize("low,high,dtype", [
    (0, 10, "int64"), (-5, 5, "int32"), (0, 2, "bool"), (0, 256, "uint8"), (-128, 128, "int8"),
    (0, 2**40, "int64"), (-2**62, 2**62, "int64"), (0, 2**33, "float64"), (0, 2**33, "float32"),
    (0, 100, "float16"), (0, 2**33, "bfloat16"), (0, 2**31, "int64"), (0, 7, "uint64"), (0, 2**28 - 1, "int64"),
    (0, 2**28, "int32"), (0, 2**25, "float32"), (-2**25 - 1, 3, "float32"), (0, 1000, "bfloat16"),
    (-999, 1000, "bfloat16"), (-2**40 - 3, 2**40 + 5, "float32"), (0, 65504, "float16"), (-2047, 2049, "float16"),
])
def test_randint_is_torchs(torch, low, high, dtype):
    dt = getattr(pytensor, dtype)
    pytensor.manual_seed(5)
    torch.manual_seed(5)
    with warnings.catch_warnings(record=True) as warned:
        warnings.simplefilter("always")
        ours = pytensor.randint(low, high, (1000,), dtype=dt)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = torch.randint(low, high, (1000,), dtype=_torch_dtype(torch, dt))
    # past 2**digits of a float dtype pytensor warns, as torch does, that not every integer is representable
    digits = {"float16": 11, "bfloat16": 8, "float32": 24, "float64": 53}.get(dtype, 64)
    assert any("out of bounds" in str(w.message) for w in warned) == (max(-low, high - 1) > 2**digits)
    assert ours.dtype is dt and _bytes(ours) == _bytes(theirs)


def test_randint_high_only_and_default_dtype(torch):
    pytensor.manual_seed(2)
    torch.manual_seed(2)
    ours, theirs = pytensor.randint(6, (2, 3)), torch.randint(6, (2, 3))
    assert ours.dtype is pytensor.int64 and ours.tolist() == theirs.tolist()


@pytest.mark.parametrize("n,dtype", [(0, "int64"), (1, "int64"), (10, "int64"), (1000, "int32"), (2049, "float16"),
                                     (100, "float64"), (200, "uint8")])
def test_randperm_is_torchs(torch, n, dtype):
    dt = getattr(pytensor, dtype)
    pytensor.manual_seed(9)
    torch.manual_seed(9)
    ours = pytensor.randperm(n, dtype=dt)
    assert ours.dtype is dt and _bytes(ours) == _bytes(torch.randperm(n, dtype=_torch_dtype(torch, dt)))
    assert sorted(ours.tolist()) == list(range(n))


@pytest.mark.parametrize("n", (5, 16, 100))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_in_place_uniform_and_normal_are_torchs(torch, dtype, n):
    dt = getattr(pytensor, dtype)
    td = _torch_dtype(torch, dt)
    pytensor.manual_seed(4)
    torch.manual_seed(4)
    assert _bytes(pytensor.empty(n, dtype=dt).uniform_(-3, 5)) == _bytes(torch.empty(n, dtype=td).uniform_(-3, 5))
    _assert_same_normals(torch, pytensor.empty(n, dtype=dt).normal_(0, 2.5), torch.empty(n, dtype=td).normal_(0, 2.5))
    # a transposed tensor is filled in memory order, the scalar normal path for normal_
    a, b = pytensor.empty(n, 3, dtype=dt).T, torch.empty(n, 3, dtype=td).T
    assert _bytes(a.uniform_()) == _bytes(b.uniform_())
    assert _bytes(a.normal_()) == _bytes(b.normal_())


def test_the_baseline_float32_kernel_gives_the_same_bits_as_the_vector_one():
    """x86-64 CPUs with AVX2 and FMA run an 8-lane float32 randn kernel; the
    baseline (LT_RANDOM_BASELINE=1 forces it) must give the same bits."""
    code = ("import sys, hashlib, pytensor; pytensor.manual_seed(5); "
            "t = pytensor.randn(100_003); sys.stdout.write(hashlib.sha256(bytes(t.view(pytensor.uint8).numpy()))"
            ".hexdigest())")
    digests = []
    for force in ("1", "0"):
        env = dict(os.environ, LT_RANDOM_BASELINE=force)
        res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env,
                             cwd=tempfile.gettempdir())
        assert res.returncode == 0, res.stderr[-2000:]
        digests.append(res.stdout)
    assert digests[0] == digests[1] and len(digests[0]) == 64


# ================================================================== generators
def test_generator_argument_is_honoured():
    """Regression: generator= was accepted and ignored (two different
    generators gave identical samples)."""
    g1, g2 = pytensor.Generator().manual_seed(1), pytensor.Generator().manual_seed(2)
    for fn in (pytensor.rand, pytensor.randn):
        assert fn(100, generator=g1).tolist() != fn(100, generator=g2).tolist()
    a, b = pytensor.Generator().manual_seed(42), pytensor.Generator().manual_seed(42)
    for fn in (pytensor.rand, pytensor.randn):
        assert fn(100, generator=a).tolist() == fn(100, generator=b).tolist()
    assert pytensor.randint(0, 10**9, (50,), generator=a).tolist() == pytensor.randint(0, 10**9, (50,), generator=b).tolist()
    assert pytensor.randperm(50, generator=a).tolist() == pytensor.randperm(50, generator=b).tolist()
    assert pytensor.empty(20).normal_(generator=a).tolist() == pytensor.empty(20).normal_(generator=b).tolist()


def test_generator_draws_leave_the_default_generator_alone():
    pytensor.manual_seed(0)
    expected = pytensor.rand(10).tolist()
    pytensor.manual_seed(0)
    pytensor.randn(1000, generator=pytensor.Generator())
    assert pytensor.rand(10).tolist() == expected


def test_generators_match_torchs_generators(torch):
    g, tg = pytensor.Generator(), torch.Generator()
    assert g.initial_seed() == tg.initial_seed() == 67280421310721
    assert _bytes(pytensor.rand(20, generator=g)) == _bytes(torch.rand(20, generator=tg))
    g.manual_seed(-1)
    tg.manual_seed(-1)
    assert g.initial_seed() == tg.initial_seed() == 2**64 - 1
    assert _bytes(pytensor.randn(3, generator=g)) == _bytes(torch.randn(3, generator=tg))


def test_state_round_trip_and_torch_interchange(torch):
    g = pytensor.Generator().manual_seed(123)
    pytensor.randn(3, generator=g)  # leaves a cached normal in the state
    state = g.get_state()
    assert state.dtype is pytensor.uint8 and state.shape == (STATE_NBYTES,)
    first = pytensor.randn(7, generator=g).tolist()
    assert pytensor.randn(7, generator=g.set_state(state)).tolist() == first

    # the same bytes as torch's state after the same draws, and states move both ways
    tg = torch.Generator().manual_seed(123)
    torch.randn(3, generator=tg)
    assert _bytes(state) == _bytes(tg.get_state())
    tg.manual_seed(999)
    torch.rand(1001, generator=tg)
    g.set_state(pytensor.tensor(list(_bytes(tg.get_state())), dtype=pytensor.uint8))
    assert _bytes(pytensor.rand(50, generator=g)) == _bytes(torch.rand(50, generator=tg))
    assert g.initial_seed() == 999


def test_module_level_state_functions():
    pytensor.manual_seed(8)
    assert pytensor.initial_seed() == 8
    st = pytensor.get_rng_state()
    a = pytensor.rand(5).tolist()
    pytensor.set_rng_state(st)
    assert pytensor.rand(5).tolist() == a
    s = pytensor.seed()
    assert pytensor.initial_seed() == s and 0 <= s < 2**64
    assert isinstance(pytensor.manual_seed(1), pytensor.Generator)
    assert pytensor.default_generator.initial_seed() == 1


@pytest.mark.parametrize("bad,exc,match", [
    (1.5, RuntimeError, "expected a long, but got float"), (True, RuntimeError, "got bool"),
    ("3", RuntimeError, "got str"), (2**64, ValueError, "Overflow"), (-2**63 - 1, ValueError, "Overflow"),
])
def test_bad_seeds_are_refused_as_torch(bad, exc, match):
    with pytest.raises(exc, match=match):
        pytensor.Generator().manual_seed(bad)


def test_bad_states_and_generators_are_refused():
    g = pytensor.Generator()
    with pytest.raises(TypeError, match="uint8"):
        g.set_state(pytensor.zeros(STATE_NBYTES, dtype=pytensor.int8))
    with pytest.raises(RuntimeError, match="5056 bytes but found 10"):
        g.set_state(pytensor.zeros(10, dtype=pytensor.uint8))
    with pytest.raises(RuntimeError, match="invalid mt19937 state"):
        g.set_state(pytensor.zeros(STATE_NBYTES, dtype=pytensor.uint8))
    # a position that would read past the state words is refused, not read
    raw = bytearray(_bytes(g.get_state()))
    raw[8:12] = struct.pack("<i", 624)
    raw[16:24] = struct.pack("<Q", 624)
    with pytest.raises(RuntimeError, match="next \\+ left <= 625"):
        g.set_state(pytensor.frombuffer(raw, dtype=pytensor.uint8))
    with pytest.raises(TypeError, match="generator"):
        pytensor.rand(3, generator=3)
    with pytest.raises(pytensor.DeviceError):
        pytensor.Generator(device="cuda")


# ================================================================== [0, 1) for every dtype, exhaustively
def _temper(y):
    y ^= y >> 11
    y ^= (y << 7) & 0x9d2c5680
    y ^= (y << 15) & 0xefc60000
    return (y ^ (y >> 18)) & 0xffffffff


def _untemper(y):
    """The state word that mt19937's tempering turns into y."""
    y ^= y >> 18
    y ^= (y << 15) & 0xefc60000
    t = y
    for _ in range(5):
        t = y ^ ((t << 7) & 0x9d2c5680)
    y = t & 0xffffffff
    t = y
    for _ in range(3):
        t = y ^ (t >> 11)
    return t & 0xffffffff


def _generator_drawing(words):
    """A generator whose next len(words) <= 623 draws are exactly ``words``."""
    assert len(words) <= 623
    g = pytensor.Generator()
    raw = bytearray(_bytes(g.get_state()))
    raw[8:12] = struct.pack("<i", 624)  # left: 623 draws before the next twist
    raw[16:24] = struct.pack("<Q", 0)   # next: word 0
    for i, w in enumerate(words):
        raw[24 + 8 * i: 32 + 8 * i] = struct.pack("<Q", _untemper(w))
    return g.set_state(pytensor.frombuffer(raw, dtype=pytensor.uint8))


def test_untemper_inverts_the_tempering():
    ws = [0, 1, 0xffffffff, 0x80000000, 0x12345678] + [(i * 2654435761) & 0xffffffff for i in range(2000)]
    assert all(_temper(_untemper(w)) == w for w in ws)
    g = _generator_drawing([0xdeadbeef, 0xffffff])
    assert pytensor.rand(2, generator=g).tolist() == [0xadbeef / 2**24, 0xffffff / 2**24]


@pytest.mark.parametrize("dtype,digits", [("float16", 11), ("bfloat16", 8)])
def test_16_bit_rand_covers_every_sample_exactly_and_stays_below_one(dtype, digits):
    """Every value of the low `digits` bits of a draw (all of them, in chunks
    of 512 words, with junk in the high bits) gives exactly k / 2**digits:
    so the largest is 1 - 2**-digits, never 1."""
    dt = getattr(pytensor, dtype)
    seen = []
    for start in range(0, 2**digits, 512):
        ks = list(range(start, min(start + 512, 2**digits)))
        g = _generator_drawing([(0xa5a5a5a5 << digits | k) & 0xffffffff for k in ks])
        seen += pytensor.rand(len(ks), generator=g, dtype=dt).float().tolist()
    assert seen == [k / 2**digits for k in range(2**digits)]
    assert max(seen) == 1 - 2**-digits < 1


def test_float32_and_float64_rand_extremes():
    top = [0xffffffff - i for i in range(300)] + [0xff000000 | (0xffffff - i) for i in range(300)]
    v = pytensor.rand(len(top), generator=_generator_drawing(top)).tolist()
    assert max(v) == 1 - 2**-24 and all(0 <= x < 1 for x in v)
    assert pytensor.rand(2, generator=_generator_drawing([0, 0x1000000])).tolist() == [0.0, 0.0]
    words = [0xffffffff] * 4 + [0x001fffff, 0xffffffff] + [0xffe00000, 0]
    d = pytensor.rand(4, dtype=pytensor.float64, generator=_generator_drawing(words)).tolist()
    assert d == [1 - 2**-53, 1 - 2**-53, 1 - 2**-53, 0.0]


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_uniform_samples_stay_below_one(dtype):
    """Regression: rand rounded doubles near 1 up to exactly 1.0
    (float16: 39 in 200,000; bfloat16: 363)."""
    pytensor.manual_seed(0)
    v = pytensor.rand(400_000, dtype=getattr(pytensor, dtype)).double().tolist()
    assert max(v) < 1 and min(v) >= 0


# ================================================================== statistics where torch is not matched
def _ks_statistic(sorted_values, cdf):
    n = len(sorted_values)
    return max(max((i + 1) / n - cdf(x), cdf(x) - i / n) for i, x in enumerate(sorted_values))


@pytest.mark.parametrize("dtype,digits", [("float16", 11), ("bfloat16", 8)])
def test_16_bit_rand_is_uniform_on_its_grid(dtype, digits):
    """Mean, variance and Kolmogorov-Smirnov against the uniform law on the
    grid k / 2**digits, for a fixed seed (deterministic, so never flaky);
    the 1% critical value of KS is 1.63 / sqrt(n)."""
    n = 100_000
    pytensor.manual_seed(1234)
    v = sorted(pytensor.rand(n, dtype=getattr(pytensor, dtype)).float().tolist())
    m = 2**digits
    mean = sum(v) / n
    var = sum((x - mean) ** 2 for x in v) / n
    assert abs(mean - (m - 1) / (2 * m)) < 3 * math.sqrt(1 / 12 / n)
    assert abs(var - (m * m - 1) / (12 * m * m)) < 0.003
    assert _ks_statistic(v, lambda x: (math.floor(x * m) + 1) / m) < 1.63 / math.sqrt(n) + 1 / m


def test_randn_is_standard_normal():
    n = 100_000
    pytensor.manual_seed(99)
    v = sorted(pytensor.randn(n, dtype=pytensor.float64).tolist())
    mean = sum(v) / n
    assert abs(mean) < 4 / math.sqrt(n)
    assert abs(sum((x - mean) ** 2 for x in v) / n - 1) < 0.02
    assert _ks_statistic(v, lambda x: 0.5 * (1 + math.erf(x / math.sqrt(2)))) < 1.63 / math.sqrt(n)


# ================================================================== threads and processes
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_numbers_do_not_depend_on_the_thread_count(dtype):
    dt = getattr(pytensor, dtype)
    before = pytensor.get_num_threads()
    try:
        out = []
        for threads in (1, 2, 4, 7):
            pytensor.set_num_threads(threads)
            pytensor.manual_seed(17)
            out.append(_bytes(pytensor.randn(1_000_003, dtype=dt)) + _bytes(pytensor.rand(300_001, dtype=dt)))
        assert all(o == out[0] for o in out)
    finally:
        pytensor.set_num_threads(before)


def test_threads_sharing_a_generator_get_disjoint_draws():
    """Four real threads draw rand(1000) 50 times each from one generator:
    every call takes its own 1000 consecutive words, so together they are
    exactly the 200 blocks one thread would have drawn, in some order."""
    g = pytensor.Generator().manual_seed(31)
    blocks, lock = [], threading.Lock()

    def work():
        for _ in range(50):
            b = pytensor.rand(1000, generator=g).tolist()
            with lock:
                blocks.append(b)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    g.manual_seed(31)
    serial = [pytensor.rand(1000, generator=g).tolist() for _ in range(200)]
    assert sorted(blocks) == sorted(serial) and len(blocks) == 200


def test_fork_while_another_thread_draws_does_not_deadlock():
    code = textwrap.dedent("""
        import os, threading, pytensor
        stop = False
        def spin():
            while not stop:
                pytensor.randn(200_000)
        t = threading.Thread(target=spin); t.start()
        ok = 0
        for _ in range(20):
            pid = os.fork()
            if pid == 0:
                pytensor.rand(10); pytensor.manual_seed(1)
                os._exit(0 if pytensor.rand(1).item() < 1 else 3)
            _, status = os.waitpid(pid, 0)
            ok += os.waitstatus_to_exitcode(status) == 0
        stop = True; t.join()
        print(ok)
    """)
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         cwd=tempfile.gettempdir())
    assert res.returncode == 0, res.stderr[-2000:]
    assert res.stdout.split() == ["20"]


# ================================================================== refusals and in-place rules
@pytest.mark.parametrize("call,exc,match", [
    (lambda: pytensor.rand(3, dtype=pytensor.int32), NotImplementedError, "check_uniform_bounds"),
    (lambda: pytensor.randn(3, dtype=pytensor.int64), NotImplementedError, "normal_kernel_cpu"),
    (lambda: pytensor.rand(-1), RuntimeError, "negative dimension -1"),
    (lambda: pytensor.randint(5, 3, (3,)), RuntimeError, "from=5 >= to=3"),
    (lambda: pytensor.randint(0, 300, (3,), dtype=pytensor.uint8), RuntimeError, "299 is out of bounds for uint8"),
    (lambda: pytensor.randint(0, 3, (3,), dtype=pytensor.complex64), RuntimeError, "complex64"),
    (lambda: pytensor.randint(0, 2**63, (3,)), RuntimeError, "fit int64"),
    (lambda: pytensor.randperm(-1), RuntimeError, "negative dimension -1"),
    (lambda: pytensor.randperm(3000, dtype=pytensor.float16), RuntimeError, "greater than 2049"),
    (lambda: pytensor.randperm(3, dtype=pytensor.bool), NotImplementedError, "bool"),
    (lambda: pytensor.zeros(3, dtype=pytensor.int32).uniform_(), NotImplementedError, "int32"),
    (lambda: pytensor.zeros(3).normal_(0, -1), RuntimeError, "std >= 0.0, but found std -1"),
    (lambda: pytensor.zeros(3).uniform_(2, 1), RuntimeError, "from=2 > to=1"),
    (lambda: pytensor.zeros(1).expand(3).uniform_(), RuntimeError, "single memory location"),
    (lambda: pytensor.ones(3, requires_grad=True).normal_(), RuntimeError, "leaf Variable"),
    (lambda: pytensor.frombuffer(b"\0" * 16, dtype=pytensor.float32).uniform_(), pytensor.ReadOnlyError, "read-only"),
    (lambda: pytensor.randn(2**40, device="cuda"), pytensor.DeviceError, "CPU only"),
    (lambda: pytensor.randint(0, 5, (2**40,), device="cuda"), pytensor.DeviceError, "CPU only"),
])
def test_refusals(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_in_place_fills_bump_the_version_and_write_through_views():
    base = pytensor.zeros(4, 6)
    v0 = base._version
    col = base[:, 2]
    col.uniform_(5, 6)
    assert base._version > v0
    assert all(5 <= x < 6 for x in base[:, 2].tolist())
    assert base[:, :2].tolist() == [[0, 0]] * 4 and base[:, 3:].tolist() == [[0, 0, 0]] * 4
    row = base[1, 3:]
    row.normal_(100, 1)
    assert all(90 < x < 110 for x in base[1, 3:].tolist())


class _Float(float):
    """A float the one-crossing path declines (not exactly float): the Python path fills."""


@pytest.mark.parametrize("method, args, kwargs", [
    ("uniform_", (), {}), ("uniform_", (-1, 1), {}), ("uniform_", (), {"from": -2.0, "to": 2.0}),
    ("uniform_", (_Float(-1), 1), {}), ("normal_", (), {}), ("normal_", (2, 0.5), {}),
    ("normal_", (_Float(2), 0.5), {})])
@pytest.mark.parametrize("layout", ["contiguous", "T", "offset", "column", "float16", "complex64 conj"])
def test_in_place_fills_count_one_write_as_torch(torch, method, args, kwargs, layout):
    """Each in-place random fill adds 1 to ``_version``, as torch's does,
    whichever path fills it (one C call, the Python path, a temporary copied
    into a strided view), and its tensor becomes the storage's last writer."""
    make = {"contiguous": lambda L: L.zeros(40), "T": lambda L: L.zeros(40, 3).T,
            "offset": lambda L: L.zeros(60)[5:50], "column": lambda L: L.zeros(6, 4)[:, 1],
            "float16": lambda L: L.zeros(17, dtype=L.float16),
            "complex64 conj": lambda L: L.zeros(9, dtype=L.complex64).conj()}[layout]
    ours, theirs = make(pytensor), make(torch)
    v_ours, v_theirs = ours._version, theirs._version
    assert getattr(ours, method)(*args, **kwargs) is ours
    getattr(theirs, method)(*args, **kwargs)
    assert theirs._version - v_theirs == 1
    assert ours._version - v_ours == theirs._version - v_theirs
    version, writer, _node = pytensor._ffi.shim.last_write(ours.untyped_storage())
    assert (version, writer) == (ours._version, id(ours))


def test_default_generator_is_one_object_that_rebinding_does_not_replace(torch, monkeypatch):
    """torch.default_generator is one fixed object: rebinding the attribute
    changes nothing torch.rand draws from. pytensor's is the same object under
    both names, registered once at import, and rebinding either name leaves
    manual_seed, rand and randn (the one-call path and the Python path) on
    the registered generator; the object bound in its place is never drawn from."""
    registered = pytensor.default_generator
    assert registered is pytensor._generator.default_generator
    assert torch.default_generator is torch.random.default_generator
    stand_in, torch_stand_in = pytensor.Generator(), torch.Generator()
    untouched = bytes(stand_in.get_state().numpy())
    monkeypatch.setattr(pytensor, "default_generator", stand_in)
    monkeypatch.setattr(pytensor._generator, "default_generator", stand_in)
    monkeypatch.setattr(torch, "default_generator", torch_stand_in)
    assert pytensor.manual_seed(5) is registered
    torch.manual_seed(5)
    assert _bytes(pytensor.rand(17)) == _bytes(torch.rand(17))
    assert _bytes(pytensor.rand(pytensor.Size([3]))) == _bytes(torch.rand(torch.Size([3])))  # the Python path
    _assert_same_normals(torch, pytensor.randn(16), torch.randn(16))
    assert _bytes(pytensor.empty(5).uniform_()) == _bytes(torch.empty(5).uniform_())
    assert registered.initial_seed() == pytensor.initial_seed() == 5
    assert stand_in.initial_seed() == torch_stand_in.initial_seed() == 67280421310721
    assert bytes(stand_in.get_state().numpy()) == untouched
    assert bytes(pytensor.get_rng_state().numpy()) == bytes(registered.get_state().numpy())


def test_the_default_generator_is_registered_once():
    with pytest.raises(RuntimeError, match="registered at import"):
        pytensor._ffi.shim.rng_register(pytensor.Generator, pytensor.Generator())
    pytensor.manual_seed(1)
    a = pytensor.rand(4).tolist()
    assert pytensor.manual_seed(1) is pytensor.default_generator and pytensor.rand(4).tolist() == a
