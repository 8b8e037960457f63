"""dtype objects, the default dtype, and torch's type-promotion rules."""
from __future__ import annotations

from ._ffi import lib

__all__ = [
    "dtype", "get_default_dtype", "set_default_dtype", "promote_types", "result_type_of", "dtype_arg",
]


class dtype:
    """An element type. Instances are singletons: compare with ``is`` or ``==``.

    >>> import pytensor
    >>> pytensor.float32, pytensor.float32.itemsize, pytensor.int8.is_signed
    (pytensor.float32, 4, True)
    >>> pytensor.uint8.scalar_type_name, pytensor.uint8.tensor_type_name
    ('Byte', 'ByteTensor')
    """

    __slots__ = ("name", "code", "itemsize", "kind", "is_floating_point", "is_complex", "is_signed",
                 "scalar_type_name", "tensor_type_name", "aliases", "_np_name", "_struct", "__weakref__")

    def __init__(self, name, code, kind, scalar_type_name, np_name, struct_code, aliases):
        self.name = name
        self.code = code  # the lt_dtype enum value
        self.itemsize = int(lib.lt_dtype_itemsize(code))
        # "bool", "uint", "int", "float", "complex", or "float8"/"float4" for the low-precision floats,
        # which convert but have no arithmetic and no NumPy type (as in torch)
        self.kind = kind
        self.is_floating_point = kind in ("float", "float8", "float4")
        self.is_complex = kind == "complex"
        self.is_signed = kind in ("int", "float", "complex", "float8", "float4") and name != "float8_e8m0fnu"
        self.scalar_type_name = scalar_type_name  # torch's c10::ScalarType name, as its messages print it
        self.tensor_type_name = scalar_type_name + "Tensor"  # torch's legacy type name (Tensor.type())
        self.aliases = aliases  # torch's other names for it (pytensor.half is pytensor.float16)
        self._np_name = np_name  # None where NumPy has no such type (bfloat16)
        self._struct = struct_code  # struct-module format, None where none exists

    def __repr__(self):
        return "pytensor." + self.name

    def __reduce__(self):
        return (_by_name.__getitem__, (self.name,))

    @property
    def category(self):
        """0 bool, 1 integer, 2 floating, 3 complex: the order of scalar promotion."""
        return _CATEGORY[self.kind]

    def to_complex(self):
        """The complex dtype holding two of this floating dtype (float16 -> complex64)."""
        if self.kind in ("float8", "float4"):  # torch's error: a complex scalar meets a float8 tensor
            raise RuntimeError(f"Unknown Complex ScalarType for {self.scalar_type_name}")
        return complex128 if self is float64 else complex64

    def to_real(self):
        """The floating dtype of a complex dtype's parts; other dtypes are returned unchanged."""
        return {complex64: float32, complex128: float64}.get(self, self)


_CATEGORY = {"bool": 0, "uint": 1, "int": 1, "float": 2, "float8": 2, "float4": 2, "complex": 3}

# The one dtype table: one row per dtype, in lt_dtype order; everything else about dtypes is derived from it.
# The float8s and float4_e2m1fn_x2 (two 4-bit floats per byte) are DLPack 1.1's low-precision floats: storage,
# DLPack and conversions, no arithmetic (see README, "Low-precision floats").
#  name                lt_dtype code              kind       torch ScalarType     NumPy name   struct  torch aliases
_TABLE = (
    ("bool",             lib.LT_BOOL,             "bool",    "Bool",              "bool",      "?",    ()),
    ("uint8",            lib.LT_UINT8,            "uint",    "Byte",              "uint8",     "B",    ()),
    ("uint16",           lib.LT_UINT16,           "uint",    "UInt16",            "uint16",    "H",    ()),
    ("uint32",           lib.LT_UINT32,           "uint",    "UInt32",            "uint32",    "I",    ()),
    ("uint64",           lib.LT_UINT64,           "uint",    "UInt64",            "uint64",    "Q",    ()),
    ("int8",             lib.LT_INT8,             "int",     "Char",              "int8",      "b",    ()),
    ("int16",            lib.LT_INT16,            "int",     "Short",             "int16",     "h",    ("short",)),
    ("int32",            lib.LT_INT32,            "int",     "Int",               "int32",     "i",    ("int",)),
    ("int64",            lib.LT_INT64,            "int",     "Long",              "int64",     "q",    ("long",)),
    ("float16",          lib.LT_FLOAT16,          "float",   "Half",              "float16",   "e",    ("half",)),
    ("bfloat16",         lib.LT_BFLOAT16,         "float",   "BFloat16",          None,        None,   ()),
    ("float32",          lib.LT_FLOAT32,          "float",   "Float",             "float32",   "f",    ("float",)),
    ("float64",          lib.LT_FLOAT64,          "float",   "Double",            "float64",   "d",    ("double",)),
    ("complex64",        lib.LT_COMPLEX64,        "complex", "ComplexFloat",      "complex64", "Zf",   ("cfloat",)),
    ("complex128",       lib.LT_COMPLEX128,       "complex", "ComplexDouble",     "complex128", "Zd",  ("cdouble",)),
    ("float8_e4m3fn",    lib.LT_FLOAT8_E4M3FN,    "float8",  "Float8_e4m3fn",     None,        None,   ()),
    ("float8_e4m3fnuz",  lib.LT_FLOAT8_E4M3FNUZ,  "float8",  "Float8_e4m3fnuz",   None,        None,   ()),
    ("float8_e5m2",      lib.LT_FLOAT8_E5M2,      "float8",  "Float8_e5m2",       None,        None,   ()),
    ("float8_e5m2fnuz",  lib.LT_FLOAT8_E5M2FNUZ,  "float8",  "Float8_e5m2fnuz",   None,        None,   ()),
    ("float8_e8m0fnu",   lib.LT_FLOAT8_E8M0FNU,   "float8",  "Float8_e8m0fnu",    None,        None,   ()),
    ("float4_e2m1fn_x2", lib.LT_FLOAT4_E2M1FN_X2, "float4",  "Float4_e2m1fn_x2",  None,        None,   ()),
)

ALL = tuple(dtype(*row) for row in _TABLE)
(bool, uint8, uint16, uint32, uint64, int8, int16, int32, int64, float16, bfloat16,  # noqa: A001  (torch's names)
 float32, float64, complex64, complex128, float8_e4m3fn, float8_e4m3fnuz, float8_e5m2, float8_e5m2fnuz,
 float8_e8m0fnu, float4_e2m1fn_x2) = ALL
LOW_PRECISION = tuple(d for d in ALL if d.kind in ("float8", "float4"))
_by_name = {d.name: d for d in ALL}
by_code = {d.code: d for d in ALL}
by_tensor_type_name = {d.tensor_type_name: d for d in ALL}

# torch's aliases, floats first and narrow first (the order messages list them in); chalf names complex32,
# which pytensor lacks
ALIASES = {**{alias: d for d in sorted((d for d in ALL if d.aliases), key=lambda d: (
    ("float", "int", "complex").index(d.kind), d.itemsize)) for alias in d.aliases}, "chalf": None}

_default_float = float32


def get_default_dtype():
    """The dtype Python floats become (float32 unless changed).

    >>> import pytensor
    >>> pytensor.get_default_dtype()
    pytensor.float32
    """
    return _default_float


def set_default_dtype(d):
    """Make ``d`` (float32 or float64; float16 and bfloat16 as torch allows) the default float dtype.

    Python floats then become ``d`` and Python complex numbers the matching
    complex dtype. Changes no existing tensor.

    >>> import pytensor
    >>> pytensor.set_default_dtype(pytensor.float64)
    >>> pytensor.tensor([1.5]).dtype
    pytensor.float64
    >>> pytensor.set_default_dtype(pytensor.float32)
    """
    global _default_float
    d = dtype_arg("set_default_dtype", d, required=True, name="d")
    if not d.is_floating_point:
        raise TypeError(f"only floating-point types are supported as the default type, got {d}")
    _default_float = d


def default_complex():
    """The dtype Python complex numbers become: complex128 when the default float is float64."""
    return complex128 if _default_float is float64 else complex64


# The names a dtype argument may be given as: each dtype's own, and torch's aliases.
_ARG_NAMES = {**_by_name, **{k: v for k, v in ALIASES.items() if v is not None}}


def dtype_arg(fn, value, required=False, name="dtype"):
    """A dtype argument, read the one way every pytensor function reads it.

    A pytensor dtype, or its name as a string: ``"float32"``, or one of
    torch's aliases (``"float"``, ``"double"``, ``"long"``, ...). torch takes
    only dtype objects; names are pytensor's convenience. None means "not
    given" unless ``required``. NumPy and torch dtype objects, and anything
    else, raise TypeError saying what to pass instead.

    >>> import pytensor
    >>> from pytensor.dtypes import dtype_arg
    >>> dtype_arg("zeros", "int32"), dtype_arg("zeros", "long"), dtype_arg("zeros", None)
    (pytensor.int32, pytensor.int64, None)
    """
    if value.__class__ is dtype:
        return value
    if value is None and not required:
        return None
    if isinstance(value, str):
        found = _ARG_NAMES.get(value)
        if found is None:
            raise TypeError(f"{fn}(): {value!r} is not a dtype name; use one of {', '.join(_by_name)} "
                            f"(or torch's aliases {', '.join(k for k in ALIASES if ALIASES[k] is not None)})")
        return found
    raise TypeError(f"{fn}(): argument '{name}' must be pytensor.dtype or a dtype name such as 'float32', not "
                    f"{type(value).__name__} (for a NumPy or torch dtype, pass its name, e.g. 'float32')")


def as_dtype(d):
    """Accept a pytensor dtype, a torch dtype, a NumPy dtype or a name; return a pytensor dtype.

    For interoperation inside pytensor (NumPy and torch dtypes are not
    arguments: public functions read theirs with :func:`dtype_arg`)."""
    if isinstance(d, dtype):
        return d
    name = getattr(d, "name", None) if not isinstance(d, str) else d
    if isinstance(d, type) and name is None:  # numpy scalar type such as np.float32
        name = getattr(d, "__name__", None)
    if name is None:
        text = str(d)
        name = text.rsplit(".", 1)[-1]
    if isinstance(name, str):
        name = name.rsplit(".", 1)[-1]
        hit = _by_name.get(name) or ALIASES.get(name)
        if name == "bool_":
            hit = bool
        if hit is not None:
            return hit
    raise TypeError(f"cannot interpret {d!r} as a pytensor dtype")


_from_numpy_cache = {}


def from_numpy_dtype(npdt):
    """The pytensor dtype of a NumPy dtype, or None for types pytensor lacks."""
    try:
        return _from_numpy_cache[npdt]  # dtype.name is slow in NumPy; constructors call this per array
    except (KeyError, TypeError):
        pass
    if npdt.byteorder == ">" or (npdt.byteorder == "=" and not _little()):
        found = None
    else:
        found = _by_name.get(npdt.name) if npdt.name != "bool" else bool
    if npdt.metadata is None and len(_from_numpy_cache) < 256:
        _from_numpy_cache[npdt] = found
    return found


def _little():
    import sys
    return sys.byteorder == "little"


# ---------------------------------------------------------------- promotion

_UNSIGNED_WIDE = (uint16, uint32, uint64)


def promote_types(a, b):
    """The dtype both ``a`` and ``b`` convert to in an operation, as torch.promote_types.

    >>> import pytensor
    >>> pytensor.promote_types(pytensor.uint8, pytensor.int8)
    pytensor.int16
    """
    a, b = dtype_arg("promote_types", a, True, "type1"), dtype_arg("promote_types", b, True, "type2")
    if a is b:
        return a
    if a.kind in ("float8", "float4") or b.kind in ("float8", "float4"):
        raise RuntimeError(f"Promotion for Float8 Types is not supported, attempted to promote {a.name} and "
                           f"{b.name} (as in torch); convert with .to() first")
    if a.is_complex or b.is_complex:
        if a in _UNSIGNED_WIDE or b in _UNSIGNED_WIDE:
            _no_promotion(a, b)
        real = promote_types(a.to_real(), b.to_real())
        return real.to_complex()
    if a.is_floating_point or b.is_floating_point:
        if a.is_floating_point and b.is_floating_point:
            if {a, b} == {float16, bfloat16}:
                return float32
            return a if a.itemsize > b.itemsize else b
        return a if a.is_floating_point else b
    if a in _UNSIGNED_WIDE or b in _UNSIGNED_WIDE:
        _no_promotion(a, b)
    if a is bool or b is bool:
        return b if a is bool else a
    if a is uint8 or b is uint8:
        other = b if a is uint8 else a
        return int16 if other.itemsize <= 2 else other
    return a if a.itemsize > b.itemsize else b


def _no_promotion(a, b):
    raise RuntimeError(f"Promotion for {a} and {b} types is not supported; convert one operand first")


def _combine_categories(higher, lower):
    # torch's rule: a lower-priority operand may only raise the category
    # (bool < integer < floating < complex), never the width.
    if higher is None:
        return lower
    if lower is None:
        return higher
    if higher.is_complex:
        return higher
    if lower.is_complex:
        return higher.to_complex() if higher.is_floating_point else lower
    if higher.is_floating_point:
        return higher
    if higher is bool or lower.is_floating_point:
        return promote_types(higher, lower)
    return higher


def scalar_dtype(value):
    """The dtype a Python scalar takes when it meets a tensor (torch's wrapped numbers)."""
    if isinstance(value, builtins_bool):
        return bool
    if isinstance(value, int):
        return int64
    if isinstance(value, float):
        return _default_float
    if isinstance(value, complex):
        return default_complex()
    raise TypeError(f"unsupported operand type {type(value).__name__}")


def result_type_of(operands):
    """torch.result_type over tensors and Python scalars: dims > 0 outrank
    0-d tensors, which outrank Python scalars, except where a lower rank
    brings a higher category."""
    dim_r = zero_r = wrapped_r = None
    for x in operands:
        d = getattr(x, "dtype", None)
        if d is None:
            sd = scalar_dtype(x)
            wrapped_r = sd if wrapped_r is None else promote_types(wrapped_r, sd)
        elif x.dim() == 0:
            zero_r = d if zero_r is None else promote_types(zero_r, d)
        else:
            dim_r = d if dim_r is None else promote_types(dim_r, d)
    return _combine_categories(dim_r, _combine_categories(zero_r, wrapped_r))


import builtins as _builtins  # noqa: E402

builtins_bool = _builtins.bool
