"""What comes in: Python and NumPy data made into tensors.

Nested sequences and scalars are always copied, with torch's dtype inference
and its refusals; NumPy arrays are copied here (sharing one is
``shim.share_numpy``, pytensor/_shim_share.c); operands and index items of
the tensor methods become tensors; ``tensor(t)`` copies a tensor keeping its
layout. What goes out (lists, NumPy, ``__array_interface__``) is
``_convert_out``.
"""
from __future__ import annotations

import array
import itertools
import mmap
import sys
import warnings
from collections.abc import Mapping, Sequence

from . import dtypes as _dt
from ._conj import resolved
from ._core import TensorBase, copy_into, empty, make, user_stacklevel
from ._ffi import ffi, lib, shim
from ._layout import nbytes, preserve_strides
from ._storage import UntypedStorage
from ._provenance import OP
from ._convert_out import scratch_ndarray

_P_TENSOR = OP["tensor"]

_PY_SCALARS = (bool, int, float, complex)
_PY_SCALAR_TYPES = frozenset(_PY_SCALARS)


# ================================================================== Python data -> tensor

def _leaf_dtype(x):
    """dtype of one leaf value, or raise torch's error for values that have none."""
    t = type(x)
    if t is float:
        return _dt.get_default_dtype()
    if t is int:
        return _dt.int64
    if t is bool:
        return _dt.bool
    if t is complex:
        return _dt.default_complex()
    if isinstance(x, TensorBase):
        return x.dtype  # a many-element tensor is refused when stored (see _scalarize)
    if _is_numpy_scalar(x) or _is_0d_ndarray(x):
        d = _dt.from_numpy_dtype(x.dtype)
        if d is None:
            raise TypeError(f"can't convert numpy type {x.dtype}")
        return d
    if isinstance(x, _PY_SCALARS):  # subclasses such as IntEnum
        return _leaf_dtype(t.__mro__[[c in _PY_SCALARS for c in t.__mro__].index(True)](x))
    if isinstance(x, (str, bytes)):
        raise TypeError(f"new(): invalid data type '{type(x).__name__}'")
    raise RuntimeError(f"Could not infer dtype of {type(x).__name__}")


def _is_numpy_scalar(x):
    """A NumPy scalar (np.float64(1), np.bool_(True)); 0-d arrays are not scalars."""
    np = sys.modules.get("numpy")
    return np is not None and isinstance(x, np.generic)


def _is_ndarray(x):
    np = sys.modules.get("numpy")
    return np is not None and isinstance(x, np.ndarray)


def _is_0d_ndarray(x):
    return _is_ndarray(x) and x.ndim == 0


def _is_sequence(x):
    """Whether torch reads ``x`` as a sequence of elements: lists, tuples,
    n-d arrays, buffers read as items, and any object with ``__len__`` and
    ``__getitem__`` (Python's sequence protocol), but not strings, mappings,
    sets, tensors, scalars or objects with ``__dlpack__`` (arrays of another
    library: tensor() reads those through DLPack)."""
    if isinstance(x, (list, tuple)):
        return True
    if isinstance(x, (str, bytes, TensorBase, Mapping)) or _is_numpy_scalar(x):
        return False
    if _is_ndarray(x):
        return x.ndim > 0  # a 0-d array is a leaf, unless it comes first (see flatten_data)
    if isinstance(x, (Sequence, bytearray, memoryview, array.array, range, mmap.mmap)):
        return True
    # torch's test is Python's sequence check (a __getitem__, not a dict): an
    # object without __len__ is one too, and len() then raises its TypeError.
    t = type(x)
    return hasattr(t, "__getitem__") and not hasattr(t, "__dlpack__")


def _items(x):
    """The elements of a sequence, as torch reads them: ``x[0] .. x[len(x)-1]``
    (an n-d array's rows, and at the last level its NumPy scalars, which keep
    the array's dtype in the inference)."""
    if isinstance(x, (list, tuple)):
        return x
    if isinstance(x, mmap.mmap):
        return list(x)  # torch reads items through the sequence slot, which gives mmap's as 1-byte bytes
    return [x[i] for i in range(len(x))]


_warned_once = set()  # the keys of warn_once's warnings given in this process


def warn_once(key, message):
    """A UserWarning at the user's line, the first time ``key`` comes in this
    process only (torch's TORCH_WARN_ONCE)."""
    if key not in _warned_once:
        _warned_once.add(key)
        warnings.warn(message, UserWarning, stacklevel=user_stacklevel())


def _warn_ndarray_list():
    warn_once("ndarray list", "Creating a tensor from a list of numpy.ndarrays is extremely slow. Please consider "
              "converting the list to a single numpy.ndarray with numpy.array() before converting to a tensor.")


def flatten_data(data):
    """(shape, flat list of leaves, set of the leaves' types, dtype samples) of
    a nested sequence, with torch's errors for ragged input. The samples are
    one zero of each empty array's dtype: torch infers the dtype from arrays,
    so ``[np.array([], np.int32)]`` is int32 although it has no leaves."""
    _check_first_chain_depth(data)
    shape, level, arrays, samples = [], [data], False, []
    # The walk is as deep as the first-element chain (finite, checked above),
    # and each level holds at most as many items as the tensor has elements
    # up to that dimension: the same inner list repeated ([[0] * n] * m) is
    # read once per place it stands, as torch reads it.
    while level and all(map(_is_sequence, level)):
        if _is_0d_ndarray(_first_item(level[0])):
            # torch sizes each dimension from its first element and asks that
            # element its len(), which a 0-d array does not have.
            raise TypeError("len() of unsized object")
        n = len(level[0])
        for x in level:
            if len(x) != n:
                raise ValueError(f"expected sequence of length {n} at dim {len(shape)} (got {len(x)})")
        shape.append(n)
        if len(shape) > 1 and any(map(_is_ndarray, level)):
            arrays = True
            samples += [x.dtype.type(0) for x in level if _is_ndarray(x) and x.size == 0]
        level = list(itertools.chain.from_iterable(map(_items, level)))
    if shape and level and isinstance(level[0], str):
        # torch sizes dimensions from first elements, and a string is a sequence
        # of strings: it never reaches a leaf.
        raise ValueError(f"too many dimensions 'str': {level[0]!r} at dim {len(shape)} would nest without end; "
                         "strings are not numbers")
    # Leaves that are all plain Python numbers (the common case) need no
    # per-element test: one pass over their types, in C.
    kinds = set(map(type, level))
    if level and not kinds <= _PY_SCALAR_TYPES and any(_is_sequence(x) for x in level):
        if any(_on_or_above_cycle(x) for x in level if isinstance(x, (list, tuple))):
            raise TypeError("new(): self-referential lists are incompatible")
        if _is_sequence(level[0]):
            raise TypeError("not a sequence")
        raise TypeError(f"'{type(next(x for x in level if _is_sequence(x))).__name__}' object cannot be "
                        "interpreted as an integer")
    if level and not arrays and not kinds <= _PY_SCALAR_TYPES:
        arrays = any(map(_is_ndarray, level))  # ragged leaves: an array among the scalars
    if arrays and level:
        _warn_ndarray_list()  # an array inside a sequence (not at its top), and something to store
    return tuple(shape), level, kinds, samples


def _first_item(x):
    """``x[0]`` (None when x is empty): torch sizes each dimension from the first
    element, and an object that cannot give one has no shape (ValueError, as in
    torch, whatever the object raised)."""
    if not len(x):
        return None
    if isinstance(x, (list, tuple)):
        return x[0]
    try:
        return x[0]
    except Exception:  # noqa: BLE001 - any failure means the same to the caller: no shape
        raise ValueError(f"could not determine the shape of object type '{type(x).__name__}'") from None


def _check_first_chain_depth(data):
    """torch's first sizing pass: follow first elements while they are
    sequences, and refuse a chain deeper than a tensor can be (ValueError, as
    torch). A list that is its own first element, at any depth, ends here
    rather than in a walk whose levels could double at each step."""
    x, depth = data, 0
    while _is_sequence(x):
        if depth == lib.LT_MAX_NDIM:
            # a string-like sequence whose items are sequences again (UserString),
            # or a list that contains itself, would nest without end
            raise ValueError(f"too many dimensions '{type(x).__name__}': the data nests deeper than the "
                             f"{lib.LT_MAX_NDIM} dimensions a tensor can have")
        depth += 1
        x = _first_item(x)  # None for an empty sequence, which ends the chain


def _on_or_above_cycle(x):
    """True when a list (or tuple) reachable from ``x`` contains itself on its
    own path: a real cycle. A list repeated in several places (``[[0] * 2] * 3``)
    is no cycle. Depth-first with the current path kept apart from what is
    finished, iteratively (a deep nest must not exhaust Python's stack)."""
    on_path, done = set(), set()
    stack = [(x, iter(x))]
    on_path.add(id(x))
    while stack:
        node, children = stack[-1]
        for child in children:
            if not isinstance(child, (list, tuple)) or id(child) in done:
                continue
            if id(child) in on_path:
                return True
            on_path.add(id(child))
            stack.append((child, iter(child)))
            break
        else:
            stack.pop()
            on_path.discard(id(node))
            done.add(id(node))
    return False


def infer_dtype(leaves, kinds=None):
    """torch's inference over leaves: promote_types of each leaf's dtype (Python
    ints as int64, floats as the default dtype), empty -> default dtype.
    ``kinds``: the set of the leaves' types, when the caller has it already."""
    kinds = set(map(type, leaves)) if kinds is None else kinds
    if kinds <= {float}:
        return _dt.get_default_dtype()
    if kinds <= {int}:
        return _dt.int64
    result = None
    for d in {_leaf_dtype(x) for x in leaves} if kinds <= set(_PY_SCALARS) else map(_leaf_dtype, leaves):
        result = d if result is None else _dt.promote_types(result, d)
    return result if result is not None else _dt.get_default_dtype()


def _scalarize(x, dt=None):
    """A leaf as a Python number, refusing what torch refuses for target dtype ``dt``.

    torch fills integer and bool dtypes through ``__index__`` (Python floats
    and complex numbers, and NumPy scalars subclassing them, are read
    directly), so float tensors and NumPy float32/float16/bool scalars are
    refused there; uint64 takes Python ints only.
    """
    whole = dt is not None and dt.kind in ("bool", "int", "uint")
    if dt is _dt.uint64 and (isinstance(x, TensorBase) or _is_numpy_scalar(x) or _is_0d_ndarray(x)):
        raise TypeError("an integer is required")
    if isinstance(x, TensorBase):
        if x.numel() != 1:
            if whole:
                raise TypeError("only integer tensors of a single element can be converted to an index")
            raise ValueError("only one element tensors can be converted to Python scalars")
        if whole and x.dtype.kind in ("float", "complex"):
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return x.item()
    if _is_numpy_scalar(x) and whole:
        kind = x.dtype.kind
        direct = isinstance(x, (float, complex)) if dt.kind == "bool" else isinstance(x, float)
        if not (kind in "iu" or direct or (kind == "b" and dt.kind == "bool")):
            raise TypeError(f"'{type(x).__module__}.{type(x).__name__}' object cannot be interpreted as an "
                            "integer")
    if _is_numpy_scalar(x) and dt is not None and dt.kind == "float" and x.dtype.kind == "c":
        return x.real.item()  # NumPy's __float__ drops the imaginary part; a Python complex is refused
    if _is_numpy_scalar(x) or _is_0d_ndarray(x):
        return x.item()
    return x


def _check_values(values, dt, types):
    """Refuse, as torch does, the first Python number that ``dt`` cannot hold
    (a quick whole-list test first, so valid lists cost two C passes)."""
    if not _all_fit(values, dt, types):
        for v in values:
            _check_value(v, dt)


def _int_bounds(dt):
    """Python ints ``dt`` takes: an integer dtype's [min, max], and for an
    unsigned one also -max..-1 (two's complement wrap: ``[-1]`` as uint8 is 255)."""
    bits = 8 * dt.itemsize
    hi = 2**bits - 1 if dt.kind == "uint" else 2**(bits - 1) - 1
    return (-hi if dt.kind == "uint" else -hi - 1), hi


def _all_fit(values, dt, types):
    kind = dt.kind
    if kind in ("bool", "complex"):
        return True
    if kind == "float":
        return complex not in types
    if not values or not types <= {int, bool}:
        return not values
    lo, hi = (0, 2**64 - 1) if dt is _dt.uint64 else _int_bounds(dt)
    return lo <= min(values) and max(values) <= hi


def _check_value(v, dt):
    """Raise torch's error when Python number ``v`` does not fit ``dt``.

    Integers are unpacked as int64 first, then range-checked (see _int_bounds);
    floats must lie in [min, max] of an integer dtype (NaN and inf never do);
    uint64 takes only ints in [0, 2**64); complex numbers fit only complex and
    bool dtypes; floating dtypes take any real number (overflow gives inf).
    """
    kind, t = dt.kind, type(v)
    if kind in ("bool", "complex"):
        return
    if kind == "float":
        if t is complex:
            raise TypeError("must be real number, not complex")
        return
    if dt is _dt.uint64:
        if t in (float, complex):
            raise TypeError("an integer is required")
        if v < 0:
            raise OverflowError("can't convert negative int to unsigned")
        if v >= 2**64:
            raise OverflowError("int too big to convert")
        return
    if t is complex:
        raise TypeError("'complex' object cannot be interpreted as an integer")
    lo, hi = _int_bounds(dt)
    if t is float:
        # torch compares in double precision, so 2.0**63 passes for int64
        # (and becomes INT64_MIN), and unsigned dtypes take no negative floats.
        bad = v != v or not (0.0 if kind == "uint" else float(lo)) <= v <= float(hi)
    else:
        if not -2**63 <= v < 2**63:
            raise ValueError("Overflow when unpacking long long")
        bad = not lo <= v <= hi
    if bad:
        raise RuntimeError(f"value cannot be converted to type {dt.name} without overflow")


def _checked(v, dt):
    _check_value(v, dt)
    return v


def _pack(leaves, dt, checked=False, kinds=None):
    """A 1-D tensor of dtype ``dt`` holding ``leaves`` (Python numbers), via the
    widest Python type of their kind and one C conversion. ``checked``: refuse
    values ``dt`` cannot hold, as torch's constructors do. ``kinds``: the set of
    the leaves' types, when the caller has it (one pass per list is the cost)."""
    kinds = set(map(type, leaves)) if kinds is None else kinds
    if not kinds <= _PY_SCALAR_TYPES:
        if checked:  # element by element, so the first bad element picks the error, as in torch
            leaves = [_checked(_scalarize(x, dt), dt) for x in leaves]
        else:
            leaves = [_scalarize(x, dt) for x in leaves]
        kinds = set(map(type, leaves))
    elif checked:
        _check_values(leaves, dt, kinds)
    if checked and int in kinds and dt.kind in ("bool", "float", "complex") and float not in kinds and \
            complex not in kinds and not -2**63 <= min(leaves) <= max(leaves) < 2**63:
        kinds.add(float)  # torch reads ints beyond int64 as doubles for these dtypes
    if checked and dt.kind == "int" and kinds == {int, float}:
        # torch converts each element by its own type: an int stays exact (a
        # double would round 2**53 + 1), a float truncates toward zero.
        leaves = [int(x) for x in leaves]
        kinds = {int}
    if complex in kinds:
        src_dt, code = _dt.complex128, "d"
        leaves = list(itertools.chain.from_iterable((complex(x).real, complex(x).imag) for x in leaves))
    elif float in kinds:
        src_dt, code = _dt.float64, "d"
    elif kinds <= {bool}:
        src_dt, code = _dt.bool, "b"
    elif dt is _dt.uint64 and any(x >= 2**63 for x in leaves):
        src_dt, code = _dt.uint64, "Q"
    else:
        src_dt, code = _dt.int64, "q"
    try:
        buf = array.array(code, leaves)
    except OverflowError:
        raise ValueError("Overflow when unpacking long long") from None
    except TypeError as e:
        raise TypeError(f"could not convert the data to numbers: {e}") from None
    n = len(buf) // (2 if src_dt.is_complex else 1)
    tmp = empty((n,), src_dt)
    if n:
        ffi.memmove(ffi.cast("char *", tmp.data_ptr()), buf, n * src_dt.itemsize)
    return tmp if src_dt is dt else tmp.to(dt)


def list_to_tensor(values, dt):
    """A 1-D tensor of dtype ``dt`` from a flat list of Python numbers."""
    return _pack(values, dt)


def tensor_from_data(data, dtype=None):
    """A new tensor (always a copy) from scalars, nested sequences, arrays or tensors."""
    if data.__class__ is list or data.__class__ is tuple:
        # Rectangular nests of plain floats/ints, whole, in C (_shim_list.c); None: another kind, read below.
        t = shim.pack_nest(data, -1 if dtype is None else dtype.code, _dt.get_default_dtype().code)
        if t is not None:
            return t
    if isinstance(data, TensorBase):
        warnings.warn("To copy construct from a tensor, it is recommended to use sourceTensor.clone().detach() "
                      "rather than pytensor.tensor(sourceTensor).", UserWarning, stacklevel=user_stacklevel())
        return shim.prov_note(copy_preserving_layout(data, dtype), _P_TENSOR, None, data)
    return shim.prov_note(_new_from_data(data, dtype), _P_TENSOR, type(data), None)


def _new_from_data(data, dtype):
    """tensor_from_data for anything but lists C could pack and tensors."""
    if _is_ndarray(data):
        src = from_numpy_copy(data)
        return src.to(dtype or src.dtype, copy=True) if dtype is not None and dtype is not src.dtype else src
    if isinstance(data, (str, bytes)):
        raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
    if data is None or not (_is_sequence(data) or isinstance(data, _PY_SCALARS) or _is_numpy_scalar(data)):
        _leaf_dtype(data)  # raises the right error for this type
    shape, leaves, kinds, samples = flatten_data(data)
    dt = dtype if dtype is not None else infer_dtype(leaves or samples, kinds if leaves else None)
    flat = _pack(leaves, dt, checked=True, kinds=kinds)
    return flat.view(shape) if shape != flat._shape else flat


# ================================================================== copies that keep the layout

def copy_preserving_layout(t, dtype=None):
    """A copy of ``t`` in new memory (as ``dtype``), laid out as torch's
    ``preserve_format`` lays it out: a dense source keeps its strides (a
    transposed array stays column-major), any other keeps its dim order."""
    dt = dtype if dtype is not None else t._dtype
    shape, strides = t._shape, preserve_strides(t._shape, t._strides)   # layout_order.c: torch's rule
    size = nbytes(shape, dt.itemsize)
    out = make(UntypedStorage._new(size), dt, shape, strides, 0)
    if size:
        copy_into(out, t)
    return out


def as_tensor_operand(x, dt):
    """x as a tensor for an operation or a copy: tensors pass through, the rest
    is converted (to ``dt`` when given)."""
    if isinstance(x, TensorBase):
        return resolved(x) if dt is None or x._dtype is dt else x.to(dt)  # to(): a copy, its bits resolved
    if isinstance(x, _PY_SCALARS):
        t = empty((), dt if dt is not None else _dt.scalar_dtype(x))
        t.fill_(x)
        return t
    return tensor_from_data(x, dt)


_INDEX_DTYPES_MESSAGE = "tensors used as indices must be long, int, byte or bool tensors"


def as_index_tensor(item):
    """An index item (tensor, list, ndarray) as an int64 or bool tensor, by
    torch's rules: a bool or uint8 item is a mask (uint8 with torch's
    deprecation warning; NumPy would read uint8 as positions, torch does not);
    a tensor of another dtype than int32/int64 is refused unless it is 0-d
    (then it is a number); a list or ndarray of any integer type is read as
    positions, and an empty list is an empty int64 index."""
    converted = not isinstance(item, TensorBase)
    if converted:
        item = tensor_from_data(item)
        if item.numel() == 0 and item.dtype.kind == "float":  # [] infers float32 (as torch), indexes as int64
            item = empty(tuple(item.shape), _dt.int64)
    kind = item.dtype.kind
    if item.dtype is _dt.uint8:
        warnings.warn("indexing with dtype uint8 is deprecated, as in torch: it is read as a mask; "
                      "use a bool tensor instead", UserWarning, stacklevel=user_stacklevel())
        return item.bool()  # nonzero bytes select, as torch
    if kind == "bool":
        return item
    if kind not in ("int", "uint") or (not converted and item.dim() and item.dtype not in (_dt.int32, _dt.int64)):
        raise IndexError(f"{_INDEX_DTYPES_MESSAGE}, not {item.dtype} (convert it with .long() or .bool())")
    return item if item.dtype is _dt.int64 else item.to(_dt.int64)


# ================================================================== NumPy -> tensor (a copy; sharing is shim.share_numpy)

def from_numpy_copy(arr):
    """A contiguous copy of any supported array (negative strides allowed)."""
    d = _dt.from_numpy_dtype(arr.dtype)
    if d is None:
        if arr.dtype.kind in "biufc" and arr.dtype.byteorder not in ("=", "|"):
            arr = arr.astype(arr.dtype.newbyteorder("="))
            d = _dt.from_numpy_dtype(arr.dtype)
        if d is None:
            shim.share_numpy(arr, 0)  # raises from_numpy's refusal of a dtype pytensor lacks (its one home)
            raise AssertionError(f"share_numpy took an array of dtype {arr.dtype} that from_numpy_dtype does not")
    out = empty(tuple(arr.shape), d)
    scratch_ndarray(out)[...] = arr
    return out
