"""The one-crossing paths of random numbers (pytensor/_shim_random.c): rand,
randn, randint, randperm, their *_like forms, uniform_/normal_ and the
default generator's seed and state. Where the shim answers, it answers as
the Python path it short-cuts (the same call with the shim function
replaced by one that declines) and as torch: the same bits, dtype, shape,
strides, provenance record and generator state afterwards. Where it
declines, the Python path answers (its refusals included). Both halves are
counted."""
import warnings

import pytest

import pytensor
from pytensor import _factories, _generator, _tensor_random
from support import require_module

STATE_NBYTES = 5056


class _Watch:
    """Replaces module.attr (a shim function) for a block: ``decline=True``
    makes it decline everything (the Python path then answers); otherwise it
    is called through and the answers it gave are counted."""

    def __init__(self, module, attr, decline=False):
        self.module, self.attr, self.decline = module, attr, decline
        self.taken = self.declined = 0

    def __enter__(self):
        self.saved = fn = getattr(self.module, self.attr)

        def watched(*args):
            r = None if self.decline else fn(*args)
            if r is None:
                self.declined += 1
            else:
                self.taken += 1
            return r
        setattr(self.module, self.attr, watched)
        return self

    def __exit__(self, *exc):
        setattr(self.module, self.attr, self.saved)


def _raw(t):
    """t's values as bytes in row-major order (any dtype, bfloat16 included)."""
    return bytes(t.detach().resolve_conj().contiguous().untyped_storage())


def _answer(fn):
    """What a call gives: its result's dtype, shape, strides, bytes and
    provenance, the warnings it gave, and the generator state after; or the
    exception type."""
    pytensor.manual_seed(123)
    with warnings.catch_warnings(record=True) as warned:
        warnings.simplefilter("always")
        try:
            r = fn()
        except Exception as e:  # noqa: BLE001  the exception type is part of the answer
            return type(e).__name__, bytes(pytensor.get_rng_state().numpy())
    seen = tuple(sorted(str(w.message) for w in warned))
    return (str(r.dtype), tuple(r.shape), r.stride(), r.storage_offset(), _raw(r),
            pytensor.provenance(r), r.requires_grad, seen, bytes(pytensor.get_rng_state().numpy()))


P = pytensor
FACTORY_CASES = [
    # rand / randn: sizes, dtypes, generators, and what declines
    lambda: P.rand(100), lambda: P.rand(3, 4), lambda: P.rand((2, 5)), lambda: P.rand(()), lambda: P.rand(0),
    lambda: P.rand(size=(2, 3)), lambda: P.rand(7, dtype=P.float64), lambda: P.rand(40, dtype=P.float16),
    lambda: P.rand(9, dtype=P.bfloat16), lambda: P.rand(5, dtype=P.complex64), lambda: P.rand(5, dtype=P.int32),
    lambda: P.rand(5, dtype="float64"), lambda: P.rand([2, 3]), lambda: P.rand(-1), lambda: P.rand(2.0),
    lambda: P.rand(3, requires_grad=True), lambda: P.rand(3, device="cpu"), lambda: P.rand(3, device="meta"),
    lambda: P.rand(3, generator=P.Generator().manual_seed(5)), lambda: P.rand(3, generator=object()),
    lambda: P.rand(2**62, 2**62), lambda: P.rand(),
    lambda: P.randn(100), lambda: P.randn(15), lambda: P.randn(16), lambda: P.randn(17, dtype=P.float64),
    lambda: P.randn(33, dtype=P.float16), lambda: P.randn(20, dtype=P.bfloat16), lambda: P.randn(9, dtype=P.complex128),
    lambda: P.randn(4, 5, generator=P.Generator()), lambda: P.randn(3, dtype=P.int64), lambda: P.randn((4, -1)),
    # the *_like forms: the input's layout, filled in memory order
    lambda: P.rand_like(P.zeros(3, 4)), lambda: P.rand_like(P.zeros(3, 4).T), lambda: P.rand_like(P.zeros(4, 6)[:, ::2]),
    lambda: P.rand_like(P.zeros(2, 3, 4).permute(2, 0, 1)), lambda: P.rand_like(P.zeros(3, dtype=P.int32)),
    lambda: P.rand_like(P.zeros(3, dtype=P.int32), dtype=P.float64), lambda: P.rand_like(P.zeros(3), device="meta"),
    lambda: P.rand_like(P.zeros(5), requires_grad=True), lambda: P.rand_like(P.zeros(5, dtype=P.complex64).conj()),
    lambda: P.randn_like(P.zeros(5, 7)), lambda: P.randn_like(P.zeros(5, 7).T), lambda: P.randn_like(P.zeros(3, 3).T),
    lambda: P.randn_like(P.zeros(20, dtype=P.float64)), lambda: P.randn_like(P.zeros(4, 8, dtype=P.float16).T),
    lambda: P.randn_like(P.zeros(2, dtype=P.uint8)),
    # randint: integer dtypes, float dtypes within 2**digits, and the rest (the Python path moves or refuses)
    lambda: P.randint(0, 100, (100,)), lambda: P.randint(10, (3, 4)), lambda: P.randint(-5, 5, ()),
    lambda: P.randint(0, 2**40, (50,)), lambda: P.randint(-2**63, 2**63 - 1, (9,)), lambda: P.randint(0, 2**28, (9,)),
    lambda: P.randint(0, 2**28 - 1, (9,)), lambda: P.randint(0, 256, (30,), dtype=P.uint8),
    lambda: P.randint(0, 257, (30,), dtype=P.uint8), lambda: P.randint(-128, 128, (30,), dtype=P.int8),
    lambda: P.randint(0, 2, (30,), dtype=P.bool), lambda: P.randint(0, 3, (30,), dtype=P.bool),
    lambda: P.randint(0, 7, (9,), dtype=P.uint64), lambda: P.randint(0, 2**33, (9,), dtype=P.uint32),
    lambda: P.randint(-2**24, 2**24, (9,), dtype=P.float32), lambda: P.randint(0, 2**24 + 1, (9,), dtype=P.float32),
    lambda: P.randint(0, 2**33, (9,), dtype=P.float32), lambda: P.randint(0, 2048, (9,), dtype=P.float16),
    lambda: P.randint(0, 65504, (9,), dtype=P.float16), lambda: P.randint(-256, 256, (9,), dtype=P.bfloat16),
    lambda: P.randint(0, 1000, (9,), dtype=P.bfloat16), lambda: P.randint(0, 2**53, (9,), dtype=P.float64),
    lambda: P.randint(5, 5, (3,)), lambda: P.randint(6, 5, (3,)), lambda: P.randint(0, 2**64, (3,)),
    lambda: P.randint(0, 5, [3]), lambda: P.randint(0, 5, ((3,),)), lambda: P.randint(0, 5, (-3,)),
    lambda: P.randint(True, 5, (3,)), lambda: P.randint(0, 5.0, (3,)), lambda: P.randint(0, 5, (3,), dtype=P.complex64),
    lambda: P.randint(0, 5, (3,), requires_grad=True), lambda: P.randint(0, 5, (3,), generator=P.Generator()),
    lambda: P.randint(0, 5, (3,), generator=3), lambda: P.randint(0, 5, (3,), device="meta"),
    lambda: P.randint_like(P.zeros(3, 4), 10), lambda: P.randint_like(P.zeros(3, 4).T, 3, 9),
    lambda: P.randint_like(P.zeros(3, 4, dtype=P.int16)[:, ::2], -4, 4),
    lambda: P.randint_like(P.zeros(3, dtype=P.int8), 300), lambda: P.randint_like(P.zeros(3), 2**30),
    lambda: P.randint_like(P.zeros(3, dtype=P.complex64), 3), lambda: P.randint_like(P.zeros(3), 3, dtype=P.int32),
    lambda: P.rand_like([1.0, 2.0]), lambda: P.randn_like(P.zeros(3).numpy()), lambda: P.randint_like((1, 2), 5),
    # randperm
    lambda: P.randperm(0), lambda: P.randperm(1), lambda: P.randperm(100), lambda: P.randperm(50, dtype=P.int32),
    lambda: P.randperm(128, dtype=P.int8), lambda: P.randperm(127, dtype=P.int8), lambda: P.randperm(129, dtype=P.int8),
    lambda: P.randperm(256, dtype=P.uint8), lambda: P.randperm(40, dtype=P.float32), lambda: P.randperm(30, dtype=P.bool),
    lambda: P.randperm(30, dtype=P.uint16), lambda: P.randperm(-1), lambda: P.randperm(2.0),
    lambda: P.randperm(5, generator=P.Generator()), lambda: P.randperm(5, requires_grad=True),
    lambda: P.randperm(2**62), lambda: P.randperm(2049, dtype=P.float16), lambda: P.randperm(2050, dtype=P.float16),
]
FACTORY_SHIMS = ("_random_new", "_randint_new", "_randperm_new")


def _watching(decline):
    class All:
        def __enter__(self):
            self.watches = [_Watch(_factories, name, decline) for name in FACTORY_SHIMS]
            for w in self.watches:
                w.__enter__()
            return self

        def __exit__(self, *exc):
            for w in self.watches:
                w.__exit__()

        @property
        def taken(self):
            return sum(w.taken for w in self.watches)
    return All()


def test_random_factories_answer_as_the_python_path():
    taken = declined = 0
    for i, case in enumerate(FACTORY_CASES):
        with _watching(False) as w:
            fast = _answer(case)
        with _watching(True):
            slow = _answer(case)
        assert fast == slow, i
        taken += w.taken > 0
        declined += w.taken == 0
    assert taken >= 55 and declined >= 45, (taken, declined)


LIKE_INPUTS = [lambda L: L.zeros(3, 4), lambda L: L.zeros(3, 4).T, lambda L: L.zeros(4, 6)[:, ::2],
               lambda L: L.zeros(2, 3, 4).permute(2, 0, 1), lambda L: L.zeros(5, 7, dtype=L.float64).T,
               lambda L: L.zeros(40, 3).T]


@pytest.mark.parametrize("fn, args", [("rand_like", ()), ("randn_like", ()), ("randint_like", (3, 90))])
def test_like_forms_keep_the_layout_and_the_numbers_of_torch(fn, args):
    torch = require_module("torch")
    for make in LIKE_INPUTS:
        for fast in (True, False):
            with _watching(not fast) as w:
                pytensor.manual_seed(8)
                torch.manual_seed(8)
                got, want = getattr(pytensor, fn)(make(pytensor), *args), getattr(torch, fn)(make(torch), *args)
            assert w.taken == fast
            assert got.stride() == want.stride() and str(got.dtype)[9:] == str(want.dtype)[6:]
            # bytes in memory order: the same samples where torch puts them
            got_mem = got.permute(*sorted(range(got.dim()), key=lambda d: -got.stride()[d])).contiguous()
            want_mem = want.permute(*sorted(range(want.dim()), key=lambda d: -want.stride()[d])).contiguous()
            assert got_mem.numpy().tobytes() == want_mem.numpy().tobytes(), (fn, got.shape, got.stride())


@pytest.mark.parametrize("call", [
    lambda L: L.rand(100), lambda L: L.randn(100), lambda L: L.randn(5, dtype=L.float64), lambda L: L.rand(3, 5),
    lambda L: L.randint(0, 100, (100,)), lambda L: L.randint(-7, 2**40, (20,)), lambda L: L.randperm(100),
    lambda L: L.randint(0, 100, (10,), dtype=L.int32), lambda L: L.randint(0, 100, (10,), dtype=L.float32),
    lambda L: L.randperm(60, dtype=L.float64), lambda L: L.randint(0, 2, (9,), dtype=L.bool),
])
def test_fast_factories_give_torchs_numbers(call):
    torch = require_module("torch")
    with _watching(False) as w:
        pytensor.manual_seed(31)
        torch.manual_seed(31)
        got, want = call(pytensor), call(torch)
    assert w.taken == 1
    assert got.numpy().tobytes() == want.numpy().tobytes() and got.stride() == want.stride()


def _inplace_targets():
    """(name, make) pairs: what uniform_/normal_ are given, fresh each time."""
    P = pytensor

    def read_only():
        return P.frombuffer(bytes(40), dtype=P.float32)

    def leaf():
        return P.zeros(4, requires_grad=True)

    def in_graph():
        return P.zeros(4, requires_grad=True) * 2
    return [("contiguous", lambda: P.zeros(100)), ("2-d", lambda: P.zeros(3, 8, dtype=P.float64)),
            ("offset", lambda: P.zeros(50)[7:40]), ("T", lambda: P.zeros(20, 3).T),
            ("permuted", lambda: P.zeros(2, 3, 4).permute(1, 2, 0)), ("strided", lambda: P.zeros(4, 6)[:, ::2]),
            ("expanded", lambda: P.zeros(3).expand(4, 3)), ("empty", lambda: P.zeros(0, 3)),
            ("0-d", lambda: P.zeros(())), ("float16", lambda: P.zeros(40, dtype=P.float16)),
            ("bfloat16 T", lambda: P.zeros(17, 2, dtype=P.bfloat16).T), ("complex", lambda: P.zeros(9, dtype=P.complex64)),
            ("conj", lambda: P.zeros(9, dtype=P.complex64).conj()), ("int", lambda: P.zeros(4, dtype=P.int32)),
            ("read-only", read_only), ("leaf", leaf), ("in graph", in_graph)]


INPLACE_ARGS = [(), (-3, 5), (2, 2), (5, -3), (0.5, 2**60), (-2**53, 2**53), (float("nan"), 1.0), (0, float("inf")),
                (1.5, True), (pytensor.tensor(0.25), 1.0)]


def _inplace_answer(make, method, args, kwargs, no_grad):
    kwargs = {k: v() for k, v in kwargs.items()}  # a fresh Generator for each answer

    def call():
        t = make()
        v = t._version
        if no_grad:
            with pytensor.no_grad():
                r = getattr(t, method)(*args, **kwargs)
        else:
            r = getattr(t, method)(*args, **kwargs)
        assert r is t
        return t, t._version - v
    pytensor.manual_seed(77)
    try:
        t, bumps = call()
    except Exception as e:  # noqa: BLE001  the exception type is part of the answer
        return type(e).__name__
    return (t.stride(), _raw(t), bumps,
            pytensor.provenance(t) is not None, bytes(pytensor.get_rng_state().numpy()))


def test_uniform_and_normal_answer_as_the_python_path():
    taken = declined = 0
    for name, make in _inplace_targets():
        for method in ("uniform_", "normal_"):
            for args in INPLACE_ARGS:
                for kwargs, no_grad in (({}, False), ({}, True), ({"generator": pytensor.Generator}, False)):
                    with _Watch(_tensor_random, "_random_inplace") as w:
                        fast = _inplace_answer(make, method, args, kwargs, no_grad)
                    with _Watch(_tensor_random, "_random_inplace", decline=True):
                        slow = _inplace_answer(make, method, args, kwargs, no_grad)
                    assert fast == slow, (name, method, args, kwargs, no_grad)
                    taken += w.taken
                    declined += w.declined
    assert taken >= 200 and declined >= 200, (taken, declined)


def test_uniform_with_from_keyword_and_bad_generator_take_the_python_path():
    t = pytensor.zeros(5)
    with _Watch(_tensor_random, "_random_inplace") as w:
        t.uniform_(**{"from": 2.0, "to": 3.0})
        assert all(2.0 <= x < 3.0 for x in t.tolist())
        with pytest.raises(TypeError, match="generator"):
            t.normal_(generator="g")
    assert w.taken == 0


@pytest.mark.parametrize("method, args", [("uniform_", (-1, 1)), ("normal_", (2, 0.5))])
@pytest.mark.parametrize("layout", ["contiguous", "T", "offset"])
def test_fast_inplace_gives_torchs_numbers(method, args, layout):
    torch = require_module("torch")
    make = {"contiguous": lambda L: L.zeros(40), "T": lambda L: L.zeros(40, 3).T,
            "offset": lambda L: L.zeros(60)[5:50]}[layout]
    with _Watch(_tensor_random, "_random_inplace") as w:
        pytensor.manual_seed(3)
        torch.manual_seed(3)
        got, want = getattr(make(pytensor), method)(*args), getattr(make(torch), method)(*args)
    assert w.taken == 1
    assert got.contiguous().numpy().tobytes() == want.contiguous().numpy().tobytes()


def test_state_and_seed_answer_as_the_python_path():
    P = pytensor
    g = P.Generator().manual_seed(2**40 + 9)
    P.manual_seed(5)
    P.rand(3)
    with _Watch(_generator, "_rng_get_state") as w:
        fast = (P.get_rng_state(), g.get_state())
    with _Watch(_generator, "_rng_get_state", decline=True):
        slow = (P.get_rng_state(), g.get_state())
    assert w.taken == 2
    for a, b in zip(fast, slow):
        assert a.dtype is b.dtype is P.uint8 and a.shape == b.shape == (STATE_NBYTES,) and a.equal(b)
    with _Watch(_generator, "_rng_initial_seed") as w:
        assert (P.initial_seed(), g.initial_seed()) == (5, 2**40 + 9)
    assert w.taken == 2
    with _Watch(_generator, "_rng_initial_seed", decline=True):
        assert (P.initial_seed(), g.initial_seed()) == (5, 2**40 + 9)
    state = fast[0]
    wide = P.zeros(2 * STATE_NBYTES, dtype=P.uint8)
    wide[::2] = state
    sets = [state, state.clone().reshape(64, 79), wide[::2], state.to(P.int16), state[:100], state.tolist(),
            P.zeros(STATE_NBYTES, dtype=P.uint8)]
    taken = 0
    for new in sets:
        answers = []
        for decline in (False, True):
            P.manual_seed(0)
            with _Watch(_generator, "_rng_set_state", decline) as w:
                try:
                    P.set_rng_state(new)
                    answers.append(bytes(P.rand(4).numpy()))
                except Exception as e:  # noqa: BLE001  the exception type is part of the answer
                    answers.append(type(e).__name__)
            taken += w.taken
        assert answers[0] == answers[1], new
    assert taken == 2  # the contiguous uint8 states; the strided one, the wrong ones and the list: Python


def test_generator_fast_paths_keep_the_generator_alive_and_leave_the_default_alone():
    P = pytensor
    P.manual_seed(1)
    before = P.get_rng_state()
    g = P.Generator().manual_seed(1)
    big = P.rand(1 << 16, generator=g)  # a fill that releases the GIL
    assert P.get_rng_state().equal(before)
    P.manual_seed(1)
    assert P.rand(1 << 16).equal(big)
    # the capsule owns the lt_generator: a generator dropped mid-expression does not take it along
    assert P.rand(1 << 16, generator=P.Generator().manual_seed(1)).equal(big)


@pytest.mark.parametrize("fn, args", [("rand_like", ()), ("randn_like", ()), ("randint_like", (5,))])
def test_like_forms_refuse_what_is_not_a_tensor_as_torch(fn, args):
    torch = require_module("torch")
    for bad in ([1.0, 2.0], pytensor.zeros(3).numpy()):
        with pytest.raises(TypeError):
            getattr(torch, fn)(bad, *args)
        with pytest.raises(TypeError, match=f"{fn}\\(\\): argument 'input' \\(position 1\\) must be Tensor"):
            getattr(pytensor, fn)(bad, *args)


@pytest.mark.parametrize("kind", [0, 1])
def test_random_inplace_records_its_write_in_its_one_call(kind):
    """shim.random_inplace is the whole of uniform_/normal_'s common case: the
    fill's one version bump (libtensor counts it) and the writer record, with
    no note_write after it, so one call is one write."""
    shim = pytensor._ffi.shim
    t = pytensor.zeros(2, 8)
    other = t[0]
    shim.note_write(other)  # the last writer before: another view of the storage
    before = t._version
    assert shim.random_inplace(t, kind, 0.0, 1.0, None) is t
    assert t._version == before + 1
    version, writer, _node = shim.last_write(t.untyped_storage())
    assert (version, writer) == (before + 1, id(t))
