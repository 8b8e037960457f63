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
from ._ffi import ffi, lib
from .errors import check

__all__ = ["Generator", "default_generator", "manual_seed", "seed", "initial_seed", "get_rng_state",
           "set_rng_state", "generator_arg", "fill_uniform", "fill_normal", "fill_int", "fill_perm"]

# The seed of a new Generator(), torch's default_rng_seed_val.
_DEFAULT_SEED = 67280421310721


def _seed_arg(seed):
    """A seed as torch reads it: an int in [-2**63, 2**64), negative ones
    taken modulo 2**64 (torch.manual_seed(-1) seeds 2**64 - 1)."""
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

    __slots__ = ("_gen", "__weakref__")

    def __init__(self, device: str | _device = "cpu"):
        require_cpu(device, "Generator")
        out = ffi.new("lt_generator **")
        check(lib.lt_generator_new(out, _DEFAULT_SEED))
        self._gen = ffi.gc(out[0], lib.lt_generator_free)

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
        return int(lib.lt_generator_initial_seed(self._gen))

    def get_state(self):
        """The whole state as a new uint8 tensor of 5056 bytes (torch's layout:
        a state from torch's ``get_rng_state()`` can be given to set_state)."""
        t = _core_empty((lib.LT_GENERATOR_STATE_NBYTES,), _dt.uint8)
        buf = ffi.cast("uint8_t *", t._storage._addr)
        check(lib.lt_generator_get_state(self._gen, buf, lib.LT_GENERATOR_STATE_NBYTES))
        return t

    def set_state(self, new_state) -> Generator:
        """Restore a state from ``get_state()``; returns this generator."""
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


# The generator used when none is given. Seeded from the operating system at
# start-up, as torch's is: call manual_seed for reproducible numbers.
default_generator = Generator()
default_generator.seed()


def manual_seed(seed: int) -> Generator:
    """Seed the default generator (rand, randn, ... without ``generator=``); returns it.

    >>> import pytensor
    >>> _ = pytensor.manual_seed(0)
    >>> pytensor.rand(3)
    tensor([0.4963, 0.7682, 0.0885])
    """
    return default_generator.manual_seed(seed)


def seed() -> int:
    """Seed the default generator from the operating system; returns the seed."""
    return default_generator.seed()


def initial_seed() -> int:
    """The default generator's last seed."""
    return default_generator.initial_seed()


def get_rng_state():
    """The default generator's state (a uint8 tensor)."""
    return default_generator.get_state()


def set_rng_state(new_state) -> None:
    """Restore the default generator's state from ``get_rng_state()``."""
    default_generator.set_state(new_state)


def generator_arg(generator, fn):
    """The lt_generator behind a ``generator=`` argument (None: the default)."""
    if generator is None:
        return default_generator._gen
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
