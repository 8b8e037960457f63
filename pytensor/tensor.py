"""Tensor: a view of a storage (dtype + shape + strides + offset).

Every view points at its root storage; slicing a view folds the offsets
into one absolute ``storage_offset`` (in elements), so aliasing is always
"same storage, intersecting byte ranges". Strides are in elements.

``Tensor`` is declared here, once, from named parts, each a small class in
its own module (one job each):

==========================  ===================================================================
``_autograd_ops``           Differentiable: the differentiable versions of the parts' methods
``_tensor_views``           Views: view, reshape, transpose, permute, expand, narrow, select, ...
``_tensor_arithmetic``      Arithmetic: + - * /, in-place forms, comparisons, neg
``_tensor_reductions``      Reductions: sum, mean, all, any, equal
``_tensor_indexing``        Indexing: t[index], t[index] = value
``_tensor_copies``          Copies: contiguous, clone, to, type, float/double/..., new_tensor
``_tensor_writes``          Writes: fill_, zero_, copy_, resize_
``_tensor_random``          Random: uniform_, normal_
``_tensor_conversion``      Conversion: tolist, item, int/float/bool, numpy, __array__
``_tensor_dlpack``          DLPackExport: __dlpack__, __dlpack_device__
``_tensor_pickle``          Pickling: __reduce_ex__ (pickle), __copy__, __deepcopy__
``_tensor_formatting``      Formatting: repr, describe
``_tensor_sharing``         Sharing: share_memory_, is_shared
``_tensor_fields``          Fields: shape, stride, dtype, device, data_ptr, grad flags, ...
==========================  ===================================================================

The parts import ``_core`` and the kernels, never this module; the shim
builds the registered class itself, so nothing below here needs ``Tensor``.
"""
from __future__ import annotations

from . import dtypes as _dt
from ._autograd_ops import Differentiable
from ._core import Size, TensorBase
from ._device import device, get_default_device, set_default_device
from ._ffi import shim
from ._storage import UntypedStorage
from ._tensor_arithmetic import Arithmetic
from ._tensor_conversion import Conversion
from ._tensor_copies import Copies
from ._tensor_dlpack import DLPackExport
from ._tensor_fields import Fields
from ._tensor_formatting import Formatting
from ._tensor_indexing import Indexing
from ._tensor_pickle import Pickling
from ._tensor_reductions import Reductions
from ._tensor_sharing import Sharing
from ._tensor_views import Views
from ._tensor_writes import Writes
from ._tensor_random import Random
from .errors import error_for

__all__ = ["Tensor", "device", "Size", "get_default_device", "set_default_device"]


class Tensor(Differentiable, Views, Arithmetic, Reductions, Indexing, Copies, Writes, Conversion, DLPackExport,
             Pickling, Formatting, Sharing, Fields, Random, TensorBase):
    """A strided view of an :class:`UntypedStorage`.

    >>> import pytensor
    >>> t = pytensor.arange(6).view(2, 3)
    >>> t.T.stride(), t.T.data_ptr() == t.data_ptr()
    ((1, 3), True)
    """

    # The fields live in the C base (see _tensor_fields.py); the parts add no instance state.
    __slots__ = ()

    # DLPack 1.3's C exchange API (the shim's exchange table): a C extension that finds this capsule on the
    # type exports, imports and allocates tensors through its static table without a Python call. It is the
    # class's own attribute, so a subclass that overrides __dlpack__ is not bypassed.
    __dlpack_c_exchange_api__ = shim.exchange_api_capsule()


# The shim instantiates these two classes itself (constructors, views, DLPack
# imports) and reports libtensor's errors through the one translator.
shim.register(UntypedStorage, Tensor, [_dt.by_code[c] for c in range(len(_dt.by_code))], error_for)
