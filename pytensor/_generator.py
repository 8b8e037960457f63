"""Random number generators: ``Generator``, the default one, and the fills
that draw from them (libtensor's random.c does the drawing).

The generator is torch's CPU generator (mt19937 with torch's sampling
rules and state layout), so ``manual_seed(s)`` followed by ``rand`` or
``randn`` gives torch 2.13's numbers; the README's "Random numbers" section
says where they differ.
"""
from __future__ import annotations

import operator
import os

from . import dtypes as _dt
from ._core import TensorBase, empty as _core_empty
from ._device import device as _device, require_cpu
from ._ffi import ffi, lib, shim
from .errors import check

__all__ = ["Generator", "default_generator", "manual_seed", "seed", "initial_seed", "get_rng_state",
           "set_rng_state", "generator_arg", "fill_uniform", "fill_normal", "fill_int", "fill_perm"]

# The seed of a new Generator(), torch's default_rng_seed_val.
_DEFAULT_SEED = 67280421310721

# The shim's half of the generators (pytensor/_shim_random.c): a capsule owns
# each lt_generator, and the common case of every call on one takes one C
# call, None meaning declined (the code below then decides).
_rng_new, _rng_addr = shim.rng_new, shim.rng_addr
_rng_initial_seed, _rng_get_state, _rng_set_state = shim.rng_initial_seed, shim.rng_get_state, shim.rng_set_state


def _seed_arg(seed):
    """A seed as torch reads it: an int in [-2**63, 2**64), negative ones
    taken modulo 2**64 (torch.manual_seed(-1) seeds 2**64 - 1)."""
    if seed.__class__ is int and 0 <= seed < 2**64:  # the common case, as it is
        return seed
    if isinstance(seed, bool) or not isinstance(seed, int):
        try:
            if isinstance(seed, bool) or isinstance(seed, float):
                raise TypeError
            seed = operator.index(seed)
        except TypeError:
            raise RuntimeError(f"manual_seed expected a long, but got {type(seed).__name__}") from None
    if not -2**63 <= seed < 2**64:
        raise ValueError(f"Overflow when unpacking long long: a seed is in [-2**63, 2**64), got {seed}")
    return seed % 2**64


class Generator:
    """A random number generator on the CPU, torch's ``torch.Generator``.

    Pass it as ``generator=`` to rand, randn, randint, randperm, uniform_ and
    normal_; the same seed gives the same samples (and torch's numbers).

    >>> import pytensor
    >>> g = pytensor.Generator().manual_seed(0)
    >>> pytensor.rand(2, generator=g)
    tensor([0.4963, 0.7682])
    """

    # _cap owns the lt_generator (the capsule frees it); _gen is the same
    # pointer for cffi, valid while _cap is held
    __slots__ = ("_gen", "_cap", "__weakref__")

    def __init__(self, device: str | _device = "cpu"):
        if device.__class__ is not str or device != "cpu":
            require_cpu(device, "Generator")
        self._cap = _rng_new(_DEFAULT_SEED)
        self._gen = ffi.cast("lt_generator *", _rng_addr(self._cap))

    @property
    def device(self) -> _device:
        return _device("cpu")

    def manual_seed(self, seed: int) -> Generator:
        """Restart the stream from ``seed``; returns this generator."""
        lib.lt_generator_manual_seed(self._gen, _seed_arg(seed))
        return self

    def seed(self) -> int:
        """Reseed from the operating system's entropy; returns the new seed."""
        s = int.from_bytes(os.urandom(8), "little")
        lib.lt_generator_manual_seed(self._gen, s)
        return s

    def initial_seed(self) -> int:
        """The seed this generator was last seeded with."""
        s = _rng_initial_seed(self)
        return int(lib.lt_generator_initial_seed(self._gen)) if s is None else s

    def get_state(self):
        """The whole state as a new uint8 tensor of 5056 bytes (torch's layout:
        a state from torch's ``get_rng_state()`` can be given to set_state)."""
        t = _rng_get_state(self)
        if t is not None:
            return t
        t = _core_empty((lib.LT_GENERATOR_STATE_NBYTES,), _dt.uint8)
        buf = ffi.cast("uint8_t *", t._storage._addr)
        check(lib.lt_generator_get_state(self._gen, buf, lib.LT_GENERATOR_STATE_NBYTES))
        return t

    def set_state(self, new_state) -> Generator:
        """Restore a state from ``get_state()``; returns this generator."""
        if _rng_set_state(self, new_state) is not None:
            return self
        if not isinstance(new_state, TensorBase) or new_state.dtype is not _dt.uint8:
            raise TypeError(f"RNG state must be a uint8 tensor (from get_state()), got "
                            f"{getattr(new_state, 'dtype', type(new_state).__name__)}")
        if new_state.numel() != lib.LT_GENERATOR_STATE_NBYTES:
            raise RuntimeError(f"Expected a generator state of {lib.LT_GENERATOR_STATE_NBYTES} bytes but found "
                               f"{new_state.numel()}")
        src = new_state.contiguous()
        check(lib.lt_generator_set_state(self._gen, ffi.cast("uint8_t *", src.data_ptr()), src.numel()))
        return self

    def __repr__(self):
        return f"<pytensor.Generator object at {id(self):#x}>"


# The generator used when none is given, torch's ``torch.default_generator``:
# one object for the life of the process, seeded from the operating system
# at start-up as torch's is (call manual_seed for reproducible numbers). The
# shim registers it here, once (a second registration is refused), and every
# call without ``generator=`` reaches it through the shim or through
# ``_default`` below, never by looking this name up again. So rebinding
# ``pytensor.default_generator`` or ``pytensor._generator.default_generator``
# changes nothing that draws: rand, randn, manual_seed, seed, get_rng_state
# and the rest keep using the registered generator, as torch.rand keeps using
# torch's after ``torch.default_generator`` is rebound. To change the default
# stream, seed it or set its state; to draw from another, pass ``generator=``.
default_generator = _default = Generator()
_default.seed()
shim.rng_register(Generator, _default)


def manual_seed(seed: int) -> Generator:
    """Seed the default generator (rand, randn, ... without ``generator=``); returns it.

    >>> import pytensor
    >>> _ = pytensor.manual_seed(0)
    >>> pytensor.rand(3)
    tensor([0.4963, 0.7682, 0.0885])
    """
    return _default.manual_seed(seed)


def seed() -> int:
    """Seed the default generator from the operating system; returns the seed."""
    return _default.seed()


def initial_seed() -> int:
    """The default generator's last seed."""
    s = _rng_initial_seed(None)
    return _default.initial_seed() if s is None else s


def get_rng_state():
    """The default generator's state (a uint8 tensor)."""
    t = _rng_get_state(None)
    return _default.get_state() if t is None else t


def set_rng_state(new_state) -> None:
    """Restore the default generator's state from ``get_rng_state()``."""
    if _rng_set_state(None, new_state) is None:
        _default.set_state(new_state)


def generator_arg(generator, fn):
    """The lt_generator behind a ``generator=`` argument (None: the default)."""
    if generator is None:
        return _default._gen
    if not isinstance(generator, Generator):
        raise TypeError(f"{fn}(): argument 'generator' must be a pytensor.Generator, not {type(generator).__name__}")
    return generator._gen


# ------------------------------------------------------------------ fills of a contiguous tensor
def fill_uniform(t, low, high, generator, fn):
    check(lib.lt_random_uniform(generator_arg(generator, fn), t._storage._ptr, t._offset, t._dtype.code,
                                t.numel(), float(low), float(high)))


def fill_normal(t, mean, std, generator, fn, contiguous=True):
    check(lib.lt_random_normal(generator_arg(generator, fn), t._storage._ptr, t._offset, t._dtype.code,
                               t.numel(), float(mean), float(std), int(contiguous)))


def fill_int(t, low, high, generator, fn):
    check(lib.lt_random_int(generator_arg(generator, fn), t._storage._ptr, t._offset, t._dtype.code,
                            t.numel(), high - low, low))


def fill_perm(t, generator, fn):
    check(lib.lt_random_perm(generator_arg(generator, fn), t._storage._ptr, t._offset, t._dtype.code, t.numel()))
