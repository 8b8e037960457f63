"""Text rendering of tensors, laid out the way torch 2.13 lays out ``repr``.

The module works on plain Python values: it asks the tensor for its
``shape``, for first-dimension slices (``t[i]``, ``t[:k]``, ``t[-k:]``) and
for ``tolist()``, and nothing else.  When a tensor is large enough to be
summarised only the edge slices that end up on screen are ever converted to
Python lists, so printing a tensor of a billion elements reads a few dozen.

Layout rules (all chosen to match torch character for character):

* One formatter is built from the values that will be displayed (for complex
  tensors one for the real parts and one for the imaginary parts).  Integers
  and booleans are right-aligned to the widest ``str(value)``.  Floats are
  examined over their non-zero finite values: if all are whole numbers they
  print as ``3.``; scientific notation is picked when the largest magnitude
  exceeds 1e8, the smallest is below 1e-4, or their ratio exceeds 1000
  (``sci_mode`` in the print options overrides that choice); otherwise
  fixed-point with ``precision`` digits.  Widths come only from non-zero finite
  values, so ``inf``/``nan`` may stick out, exactly as torch does.
* A row wraps after ``floor((linewidth - indent) / (width + 2))`` elements.
* Nested dimensions are joined by ``,`` plus ``dim - 1`` newlines and an
  indentation one deeper than the opening bracket.
* Beyond ``threshold`` elements each dimension longer than ``2 * edgeitems``
  shows its first and last ``edgeitems`` entries around ``...``.
* ``dtype=...`` is omitted for int64, bool, the default float dtype and the
  complex dtype that matches it; empty tensors omit it only for the default
  float dtype and show ``size=`` unless they are one-dimensional.
"""
from __future__ import annotations

import contextlib
import math

from ._layout import numel

__all__ = ["format_tensor", "set_printoptions", "get_printoptions", "printoptions"]


# --------------------------------------------------------------------------
# print options
# --------------------------------------------------------------------------

_PROFILES = {
    "default": {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80},
    "short": {"precision": 2, "threshold": 1000, "edgeitems": 2, "linewidth": 80},
    "full": {"precision": 4, "threshold": math.inf, "edgeitems": 3, "linewidth": 80},
}


class _PrintOptions:
    __slots__ = ("precision", "threshold", "edgeitems", "linewidth", "sci_mode")

    def __init__(self):
        for key, value in _PROFILES["default"].items():
            setattr(self, key, value)
        self.sci_mode = None


_OPTIONS = _PrintOptions()


def set_printoptions(precision=None, threshold=None, edgeitems=None,
                     linewidth=None, profile=None, sci_mode=None):
    """Set how tensors are printed (same arguments and defaults as torch).

    ``profile`` is one of ``"default"``, ``"short"`` or ``"full"`` and is
    applied first; any explicitly given option then overrides it.  As in
    torch, ``sci_mode`` is always assigned, so a call that leaves it out
    returns it to ``None`` (automatic choice).
    """
    if profile is not None and profile in _PROFILES:
        for key, value in _PROFILES[profile].items():
            setattr(_OPTIONS, key, value)
    if precision is not None:
        _OPTIONS.precision = precision
    if threshold is not None:
        _OPTIONS.threshold = threshold
    if edgeitems is not None:
        _OPTIONS.edgeitems = edgeitems
    if linewidth is not None:
        _OPTIONS.linewidth = linewidth
    _OPTIONS.sci_mode = sci_mode


def get_printoptions() -> dict:
    """The current print options, as keyword arguments for set_printoptions."""
    return {key: getattr(_OPTIONS, key) for key in _PrintOptions.__slots__}


@contextlib.contextmanager
def printoptions(**kwargs):
    """Temporarily change the print options inside a ``with`` block."""
    saved = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**saved)


# --------------------------------------------------------------------------
# element formatting
# --------------------------------------------------------------------------

class _Skipped:
    """Marks the place of entries left out of a summarised dimension."""

    __slots__ = ()

    def __repr__(self):
        return "<skipped>"


_SKIPPED = _Skipped()


class _Formatter:
    """Chooses one notation and one field width for a set of values."""

    def __init__(self, values, floating, opts):
        self.floating = floating
        self.precision = opts.precision
        self.int_mode = True
        self.sci_mode = False
        self.width = 1
        if not floating:
            for v in values:
                self.width = max(self.width, len(str(v)))
            return
        shown = [v for v in values if v != 0 and math.isfinite(v)]
        if not shown:
            return  # only zeros / inf / nan: whole-number style, width 1
        magnitudes = [abs(v) for v in shown]
        smallest, largest = min(magnitudes), max(magnitudes)
        self.int_mode = all(v.is_integer() for v in shown)
        if opts.sci_mode is None:
            self.sci_mode = largest > 1.0e8 or smallest < 1.0e-4 or largest / smallest > 1000.0
        else:
            self.sci_mode = opts.sci_mode
        if self.sci_mode:
            spec, extra = f".{self.precision}e", 0
        elif self.int_mode:
            spec, extra = ".0f", 1  # room for the trailing "."
        else:
            spec, extra = f".{self.precision}f", 0
        self.width = max(self.width, max(len(format(v, spec)) for v in shown) + extra)

    def __call__(self, v):
        if not self.floating:
            text = str(v)
        elif self.sci_mode:
            text = format(v, f"{self.width}.{self.precision}e")
        elif self.int_mode:
            text = format(v, ".0f")
            if math.isfinite(v):
                text += "."
        else:
            text = format(v, f".{self.precision}f")
        return text.rjust(self.width)


class _ComplexFormatter:
    """Real and imaginary parts each get their own _Formatter."""

    def __init__(self, values, opts):
        values = list(values)
        self.real = _Formatter([z.real for z in values], True, opts)
        self.imag = _Formatter([z.imag for z in values], True, opts)
        # one element: real field, sign-and-imag field, and the "j"
        self.width = self.real.width + self.imag.width + 1

    def __call__(self, z):
        real = self.real(z.real)
        imag = (self.imag(z.imag) + "j").lstrip()
        if imag[0] in "+-":
            return real + imag
        return real + "+" + imag


# --------------------------------------------------------------------------
# reading the tensor
# --------------------------------------------------------------------------

_CONVERTERS = {"bool": bool, "int": int, "float": float, "complex": complex}


def _read(t, shape, summarize, edge):
    """Nested lists of the entries that will be displayed.

    Left-out runs are replaced by a single ``_SKIPPED``.  Only slices that are
    displayed are converted with ``tolist()``.
    """
    if not summarize or not shape:
        return t.tolist()
    if not edge:
        return [_SKIPPED]
    if all(n <= 2 * edge for n in shape):
        return t.tolist()  # nothing inside gets summarised
    n = shape[0]
    if len(shape) == 1:
        return t[:edge].tolist() + [_SKIPPED] + t[-edge:].tolist()
    if n > 2 * edge:
        rows = list(range(edge)) + [None] + list(range(n - edge, n))
    else:
        rows = range(n)
    inner = shape[1:]
    return [_SKIPPED if i is None else _read(t[i], inner, True, edge) for i in rows]


def _convert(node, depth, conv, flat):
    """Apply ``conv`` to every leaf, collecting the leaves into ``flat``."""
    if depth == 0:
        value = conv(node)
        flat.append(value)
        return value
    return [c if c is _SKIPPED else _convert(c, depth - 1, conv, flat) for c in node]


# --------------------------------------------------------------------------
# layout
# --------------------------------------------------------------------------

def _render_row(row, indent, fmt, opts):
    slot = fmt.width + 2  # the element plus ", "
    per_line = max(1, math.floor((opts.linewidth - indent) / slot))
    if len(row) == 1 and row[0] is _SKIPPED:
        items = ["..."]  # edgeitems == 0
    else:
        items = [" ..." if v is _SKIPPED else fmt(v) for v in row]
    lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _render(node, ndim, indent, fmt, opts):
    if ndim == 0:
        return fmt(node)
    if ndim == 1:
        return _render_row(node, indent, fmt, opts)
    parts = ["..." if c is _SKIPPED else _render(c, ndim - 1, indent + 1, fmt, opts)
             for c in node]
    return "[" + ("," + "\n" * (ndim - 1) + " " * (indent + 1)).join(parts) + "]"


def _attach_suffixes(text, suffixes, indent, linewidth):
    """Append ``(suffix, measured_length)`` pairs, wrapping as torch does."""
    # torch measures the last line this way (the +1 quirk included)
    last_line = len(text) - text.rfind("\n") + 1
    out = [text]
    for suffix, length in suffixes:
        if last_line + length + 2 > linewidth:
            out.append(",\n" + " " * indent + suffix)
            last_line = indent + length
        else:
            out.append(", " + suffix)
            last_line += length + 2
    out.append(")")
    return "".join(out)


def _sized(suffix):
    return suffix, len(suffix)


def format_tensor(t, *, dtype_name: str, kind: str, default_float: str,
                  suffixes: list[str] = ()) -> str:
    """``repr`` of the tensor ``t`` in torch's layout, e.g. ``tensor([1., 2.])``.

    ``t`` needs ``.shape``, first-dimension indexing/slicing and ``tolist()``.
    ``kind`` is ``"bool"``, ``"int"``, ``"float"`` or ``"complex"``;
    ``default_float`` names the current default float dtype; ``suffixes`` are
    appended after the dtype (``requires_grad=True``, ``grad_fn=<...>``).
    """
    try:
        conv = _CONVERTERS[kind]
    except KeyError:
        raise ValueError(f"unknown element kind {kind!r}; expected one of "
                         f"{sorted(_CONVERTERS)}") from None
    opts = _OPTIONS
    shape = tuple(int(n) for n in t.shape)
    count = numel(shape)
    prefix = "tensor("
    indent = len(prefix)
    # The dtype suffix is measured as torch's "dtype=torch.<name>" when
    # deciding whether it still fits on the last line, so line breaks land
    # exactly where torch puts them; only the module name differs.
    dtype_suffix = ("dtype=pytensor." + dtype_name, len("dtype=torch." + dtype_name))
    extra = []

    if count == 0:
        if len(shape) != 1:
            extra.append(_sized("size=" + str(shape)))
        if dtype_name != default_float:
            extra.append(dtype_suffix)
        body = "[]"
    else:
        if not opts.edgeitems:
            extra.append(_sized("size=" + str(shape)))
        default_complex = "complex128" if default_float == "float64" else "complex64"
        if dtype_name not in (default_float, default_complex, "int64", "bool"):
            extra.append(dtype_suffix)
        summarize = count > opts.threshold
        nested = _read(t, shape, summarize, opts.edgeitems)
        flat = []
        nested = _convert(nested, len(shape), conv, flat)
        if kind == "complex":
            fmt = _ComplexFormatter(flat, opts)
        else:
            fmt = _Formatter(flat, kind == "float", opts)
        body = _render(nested, len(shape), indent, fmt, opts)

    extra.extend(_sized(str(s)) for s in suffixes)
    return _attach_suffixes(prefix + body, extra, indent, opts.linewidth)
