"""Recording why: which operation made each torch tensor, and whether it is a view or a copy, and why.

``record()`` (a context manager; ``%%record`` in IPython) enters two of torch's own hooks: a
``TorchFunctionMode`` sees each call as the program wrote it (``x.T.reshape(6)``), and a
``TorchDispatchMode`` sees the ATen operators that call ran. Whether a result aliases its input
is read from those operators' schemas (``Tensor(a) self -> Tensor(a)`` is a view; a return with no
alias annotation is new memory), following the result back through the operators that made it,
never guessed from the op's name; the op's name only chooses the words of the reason.

NumPy offers no hook for plain ndarrays (``__array_function__`` and ``__array_ufunc__`` are
called on other types and on subclasses only, and indexing and methods are C code), so a
recording sees a NumPy array where torch hands it over (``t.numpy()``, ``np.asarray(t)``) and
the arrays ``track()`` (``_tracked.py``) makes; the inspector reads every other array's ``.base``.

A record is a :class:`Step` that holds no tensor: its inputs are weak references, and the table
of records is keyed by ``id`` with a weak reference that removes the entry when the object dies.
"""
from __future__ import annotations

import contextlib
import sys
import weakref
from importlib.util import find_spec
from typing import NamedTuple

from ._calls import call_parts, name_in_frames

__all__ = ["Step", "record", "paused", "recorded", "recording", "keep", "record_cell", "COPY_OPS", "MAX_INLINE"]

# ATen operators whose new memory holds the input's values moved, not new values computed:
# their results are "copies" (the other non-aliasing operators compute new values).
COPY_OPS = {"clone", "_to_copy", "index", "index_select", "take", "gather", "masked_select", "copy",
            "_copy_from", "_copy_from_and_resize", "cat", "stack", "repeat", "_unsafe_view", "contiguous",
            "flip", "roll", "tile", "lift_fresh_copy"}
MAX_INLINE = 48          # an unnamed input's text longer than this is written "…" inside its child's
_RECORDS = {}            # id(obj) -> (weakref to obj, Step)


class Step(NamedTuple):
    """How one object was made. ``parts`` is the expression: strings, and ints naming ``inputs``."""
    op: str                  # the call as torch names it: "reshape", "T", "__getitem__", "numpy"
    parts: tuple             # ("", 0, ".reshape(6)") is "<input 0>.reshape(6)"
    inputs: tuple            # per tensor or array input: (weakref, its Step or None, its name where it was made)
    source: int              # which input the result is a view, copy or computation of
    shared: bool | None      # True: a view of inputs[source]; False: a copy of it; None: new values
    why: str | None          # why it copied, or what computed the new values
    via: str                 # the operator that made new memory ("clone"; "base" for NumPy's)


def recorded(obj):
    """The :class:`Step` that made ``obj`` in a recording, or None."""
    entry = _RECORDS.get(id(obj))
    return entry[1] if entry is not None and entry[0]() is obj else None


def _forget(key):
    def drop(ref):
        if _RECORDS.get(key, (None,))[0] is ref:
            del _RECORDS[key]
    return drop


def keep(obj, step):
    """Record ``step`` as how ``obj`` was made (weakly: the entry goes when ``obj`` does)."""
    try:
        ref = weakref.ref(obj, _forget(id(obj)))
    except TypeError:
        return
    _RECORDS[id(obj)] = (ref, step)


# ====================================================================== aliasing, from the schemas
def _outputs(out):
    torch = sys.modules["torch"]
    if isinstance(out, (list, tuple)):
        return [o for o in out if isinstance(o, torch.Tensor)]
    return [out] if isinstance(out, torch.Tensor) else []


def _aliased_input(entry, k):
    """The argument the operator's k-th output aliases, by its schema's alias sets, or None."""
    func, args, kwargs, _ = entry
    schema = func._schema
    ret = schema.returns[min(k, len(schema.returns) - 1)]
    if ret.alias_info is None:
        return None
    wanted = ret.alias_info.before_set      # empty for a list of views (Tensor(a)[]): its argument says a -> *
    for j, a in enumerate(schema.arguments):
        if a.alias_info is not None and (a.alias_info.before_set & wanted or
                                         not wanted and "*" in a.alias_info.after_set):
            v = args[j] if j < len(args) else kwargs.get(a.name)
            return v[0] if isinstance(v, (list, tuple)) and v else v
    return None


def _trace_back(result, given, trace):
    """``(input reached, shared, deciding operator)``: follow ``result`` back through the operators that
    made it, each to the argument its schema says the output aliases, or, where the output aliases
    nothing (new memory), to the operator's first tensor argument. A view when every step aliased;
    else the non-aliasing operator nearest the input decides (``clone`` under ``reshape``)."""
    torch = sys.modules["torch"]
    producer = {}
    for entry in trace:
        for k, o in enumerate(_outputs(entry[3])):
            producer[id(o)] = (entry, k)
    obj, via = result, None
    for _ in range(len(trace) + 1):
        if any(obj is g for g in given):
            return obj, via is None, via
        if id(obj) not in producer:
            break
        entry, k = producer[id(obj)]
        src = _aliased_input(entry, k)
        if src is None:
            via = str(entry[0]._schema.name).split("::")[-1]
            src = next((a for a in entry[1] if isinstance(a, torch.Tensor)), None)
        obj = src
    return None, (None if via is None else False), via


# ====================================================================== why, in words
def _why(op, via, src, out):
    """Why ``op`` made new memory, in a learner's words, from the layouts themselves."""
    from pytensor import _inspect_api as api
    shape, strides = tuple(src.shape), tuple(src.stride())
    if via in ("clone", "_unsafe_view") and op in ("reshape", "flatten", "ravel", "reshape_as", "view_as"):
        if api.view_strides(shape, strides, tuple(out.shape)) is None:
            return f"{op} could not make a view: strides {strides} cannot express shape {tuple(out.shape)}"
    if via == "clone" and op == "contiguous":
        return (f"it was not contiguous: strides {strides}, where a contiguous {shape} tensor has strides "
                f"{api.contiguous_strides(shape)}")
    if via == "clone":
        return "clone() always copies" if op == "clone" else f"{op} copied its input"
    if via in ("index", "index_select", "take", "gather", "masked_select"):
        return "indexing with a list or a tensor picks elements one by one into new memory (advanced indexing)"
    if via == "_to_copy":
        if src.dtype != out.dtype:
            return f"it converts {str(src.dtype).replace('torch.', '')} to {str(out.dtype).replace('torch.', '')}"
        if src.device != out.device:
            return f"it moves the values from {src.device} to {out.device}"
        return "a copy was asked for"
    if via in COPY_OPS:
        return f"{via} writes its result into new memory"
    return f"{via} computes new values into new memory"


def _note(func, args, kwargs, out, trace):
    """Record each tensor or NumPy array ``out`` holds: its expression, and view, copy or new values."""
    torch, np = sys.modules["torch"], sys.modules.get("numpy")
    results = list(out) if isinstance(out, (list, tuple)) else [out]
    results = [r for r in results if isinstance(r, torch.Tensor) or (np is not None and isinstance(r, np.ndarray))]
    if not results:
        return
    name = torch.overrides.resolve_name(func) or getattr(func, "__name__", "op")
    inputs = []
    parts, op = call_parts(name, args, kwargs, inputs)
    if not inputs:
        return                   # a factory: nothing to be a view or a copy of
    given = tuple(inputs)
    ins = tuple((weakref.ref(t), step, None if step else name_in_frames(t)) for t in given
                for step in [recorded(t)])
    for k, r in enumerate(results):
        step_parts = tuple(parts + ([f"[{k}]"] if len(results) > 1 else []))
        if any(r is g for g in given):
            continue    # an input returned (contiguous() of a contiguous tensor, add_): its own record stays
        if isinstance(r, torch.Tensor):
            src, shared, via = _trace_back(r, given, trace)
        else:                                   # an ndarray torch handed over: a view if every operator aliased
            fresh = [str(e[0]._schema.name).split("::")[-1] for e in trace
                     if any(_aliased_input(e, j) is None for j in range(max(1, len(_outputs(e[3])))))]
            src, shared, via = given[0], not fresh, (fresh[0] if fresh else None)
        if shared is None:
            continue                            # not made from its inputs by anything torch showed us
        j = next((j for j, g in enumerate(given) if g is src), 0)
        why = None
        if shared is False:
            why = _why(op, via, given[j], r) if isinstance(r, torch.Tensor) else f"{via} wrote new memory"
            if via not in COPY_OPS:
                shared = None                   # new values computed, not the input's values moved
        keep(r, Step(op, step_parts, ins, j, shared, why, via or ""))


# ====================================================================== the modes
def _modes():
    """The two mode classes, made on first use (importing torch is the program's choice, not ours)."""
    global _Modes
    if _Modes is not None:
        return _Modes
    from torch.overrides import TorchFunctionMode
    from torch.utils._python_dispatch import TorchDispatchMode

    class Dispatch(TorchDispatchMode):
        """Lists the ATen operators a call runs, with their arguments and outputs (held for that call only)."""

        def __init__(self):
            super().__init__()
            self.trace = None

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            out = func(*args, **kwargs)
            if self.trace is not None:
                self.trace.append((func, args, kwargs, out))
            return out

    class Function(TorchFunctionMode):
        """Sees each call as the program wrote it; torch turns this mode off while it runs, so the
        calls torch makes inside one call are seen only by the dispatch mode."""

        def __init__(self, dispatch):
            super().__init__()
            self.dispatch, self.count = dispatch, 0

        def __torch_function__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            outer, self.dispatch.trace = self.dispatch.trace, []
            try:
                out = func(*args, **kwargs)
                trace = self.dispatch.trace
            finally:
                self.dispatch.trace = outer
            if not _paused:
                before = len(_RECORDS)
                try:
                    _note(func, args, kwargs, out, trace)
                except Exception:         # noqa: BLE001  a record we cannot make must not break the program
                    pass
                self.count += len(_RECORDS) > before
            del trace                             # the intermediate tensors die with the call
            return out

    _Modes = (Function, Dispatch)
    return _Modes


_Modes = None
_paused = False
_active = 0          # recordings entered and not left (NumPy's tracked arrays record only inside one)


class record:
    """``with record():`` names each tensor torch makes by its operation and input, and says
    whether it is a view or a copy of that input and why (the inspector's lanes and text show it).

    Records are weak: nothing here keeps a tensor alive, and a record goes with its object.
    """

    def __enter__(self):
        global _active
        self._function = self._dispatch = None
        if sys.modules.get("torch") is not None or ("torch" not in sys.modules and find_spec("torch")):
            Function, Dispatch = _modes()
            self._dispatch = Dispatch()
            self._function = Function(self._dispatch)
            self._function.__enter__()
            try:
                self._dispatch.__enter__()
            except BaseException:
                self._function.__exit__(None, None, None)
                raise
        _active += 1
        return self

    def __exit__(self, *exc):
        global _active
        _active -= 1
        if self._function is not None:
            try:
                self._dispatch.__exit__(*exc)
            finally:
                self._function.__exit__(*exc)
        return False

    @property
    def count(self):
        """How many torch calls of this recording made a recorded object."""
        return getattr(getattr(self, "_function", None), "count", 0)


@contextlib.contextmanager
def paused():
    """Inside, a recording looks but records nothing (the inspector reading a tensor's layout)."""
    global _paused
    was, _paused = _paused, True
    try:
        yield
    finally:
        _paused = was


def recording():
    """Whether a recording is on (and not paused)."""
    return _active > 0 and not _paused


def record_cell(shell, cell):
    """The ``%%record`` cell magic's body: run ``cell`` in ``shell`` inside a recording."""
    with record():
        return shell.run_cell(cell)
