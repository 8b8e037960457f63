"""pytensor: tensors whose memory you can see.

A C runtime (libtensor) owns storage, refcounts, mmap and DLPack; this
package gives it PyTorch's names and share-versus-copy rules. Every tensor
is a view: storage + dtype + shape + strides + offset, and ``data_ptr()``,
``untyped_storage()``, ``storage_offset()`` and ``stride()`` tell the truth.

>>> import pytensor
>>> a = pytensor.arange(6)
>>> b = a.view(2, 3)[:, 1]          # a view: no bytes copied
>>> b.untyped_storage().data_ptr() == a.untyped_storage().data_ptr()
True
>>> b.stride(), b.storage_offset()
((3,), 1)
"""
import builtins as _builtins

from ._ffi import lib as _lib
from .dtypes import (  # noqa: F401
    dtype, get_default_dtype, set_default_dtype, promote_types,
    bool, uint8, uint16, uint32, uint64, int8, int16, int32, int64,
    float16, bfloat16, float32, float64, complex64, complex128,
    float8_e4m3fn, float8_e4m3fnuz, float8_e5m2, float8_e5m2fnuz, float8_e8m0fnu, float4_e2m1fn_x2,
)
from .errors import PytensorError, ReadOnlyError, DeviceError, DLPackError, LayoutError  # noqa: F401
from .tensor import Tensor, Size, device, get_default_device, set_default_device  # noqa: F401
from ._storage import UntypedStorage, TypedStorage  # noqa: F401
from ._format import set_printoptions, get_printoptions  # noqa: F401
from ._factories import (  # noqa: F401
    empty, zeros, ones, full, arange, linspace, rand, randn, manual_seed, eye,
    empty_like, zeros_like, ones_like, full_like, rand_like, randn_like,
)
from ._factories import randint, randperm, randint_like  # noqa: F401
from ._generator import (  # noqa: F401
    Generator, default_generator, seed, initial_seed, get_rng_state, set_rng_state,
)
from .creation import tensor, as_tensor, asarray, from_numpy, frombuffer  # noqa: F401
from ._layout import broadcast_shapes  # noqa: F401
from ._ops import equal  # noqa: F401
from ._dlpack import from_dlpack  # noqa: F401
from ._file import from_file  # noqa: F401
from ._provenance import provenance, set_enabled as set_provenance_enabled  # noqa: F401
from ._npy import load  # noqa: F401
from . import safetensors  # noqa: F401
from . import utils  # noqa: F401
from . import _ops as _ops_mod
from . import autograd  # noqa: F401
from .autograd import no_grad, enable_grad, set_grad_enabled, is_grad_enabled  # noqa: F401

_Dims = _builtins.int | tuple[_builtins.int, ...] | None  # (before torch's dtype aliases rebind int)

half, float, double = float16, float32, float64  # noqa: A001  (torch's aliases)
short, int, long = int16, int32, int64  # noqa: A001
cfloat, cdouble = complex64, complex128

__version__ = "0.1.0"


def is_tensor(obj):
    """True when ``obj`` is a pytensor Tensor."""
    return isinstance(obj, Tensor)


def numel(t):
    return t.numel()


def add(input, other, *, alpha=1):
    """``input + alpha * other`` in new memory."""
    return input.add(other, alpha=alpha) if isinstance(input, Tensor) else tensor(input).add(other, alpha=alpha)


def sub(input, other, *, alpha=1):
    return input.sub(other, alpha=alpha)


def mul(input, other):
    """``input * other`` in new memory."""
    return input.mul(other) if isinstance(input, Tensor) else _ops_mod._coerce(other).__rmul__(input)


def div(input, other):
    """``input / other`` in new memory."""
    return input.div(other) if isinstance(input, Tensor) else _ops_mod._coerce(other).__rtruediv__(input)


def eq(input, other):
    return _ops_mod.binary(input, other, "eq")


def sum(input, dim=None, keepdim=False, *, dtype=None):  # noqa: A001
    """Sum of elements (over ``dim`` when given) in new memory."""
    return input.sum(dim, keepdim, dtype)


def mean(input, dim=None, keepdim=False, *, dtype=None):
    """Mean of elements (over ``dim`` when given) in new memory."""
    return input.mean(dim, keepdim, dtype)


def all(input: Tensor, dim: _Dims = None, keepdim: _builtins.bool = False) -> Tensor:  # noqa: A001
    """Whether every element (along ``dim``) is nonzero, as ``input.all(dim, keepdim)``."""
    return input.all(dim, keepdim)


def any(input: Tensor, dim: _Dims = None, keepdim: _builtins.bool = False) -> Tensor:  # noqa: A001
    """Whether some element (along ``dim``) is nonzero, as ``input.any(dim, keepdim)``."""
    return input.any(dim, keepdim)


def live_storages():
    """How many libtensor storages are alive in this process (for leak checks)."""
    return _lib.lt_storage_live_count()


from ._ffi import shim as _shim  # noqa: E402
# lt_set_num_threads / lt_get_num_threads in one C call each, no Python frame (the shim's builtins)
set_num_threads, get_num_threads = _shim.set_num_threads, _shim.get_num_threads
from ._gather_ops import (  # noqa: E402,F401  (the gather family: copies with torch's semantics)
    index_select, masked_select, nonzero, take, gather, where, cat, stack, flip, roll,
)
concat = concatenate = cat
