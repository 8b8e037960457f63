"""The Tensor part that makes views: new shapes and strides over the same storage, never a copy.

Each method computes a view's (shape, strides, offset) and hands them to
``Fields._view`` with its provenance step; the only exception is
``reshape``, which copies when no strides can express the new shape (as torch).
view/reshape's common case is built in C (shim.reshape_view); the rules it
follows, and the Python path's, are libtensor's (pytensor._layout).
"""
from __future__ import annotations

import operator
import warnings
from typing import Self

from . import _conj, _layout
from . import dtypes as _dt
from ._convert_in import as_tensor_operand
from ._core import TensorBase, check_int64, int64_arg, make, shape_args, user_stacklevel, wrap_dim
from ._ffi import lib, shim
from ._layout import infer_shape, numel, unsqueeze_strides
from ._provenance import OP
from .errors import check

reshape_view = shim.reshape_view  # view/reshape's common case in C; None: the Python path decides
permute_view = shim.permute_view  # permute/t/T in one C call; None: the Python path below (its refusals)
expand_view = shim.expand_view  # expand's common case in one C call; None: the Python path below
as_strided_view = shim.as_strided_view  # as_strided's common case in one C call; None: the Python path
diagonal_view = shim.diagonal_view  # diagonal's common case in one C call; None: the Python path
unflatten_view = shim.unflatten_view  # unflatten's common case in one C call; None: the Python path
unfold_view = shim.unfold_view  # unfold's common case in one C call; None: the Python path
squeeze_view = shim.squeeze_view  # squeeze() and squeeze(int) in one C call; None: the Python path
select_view = shim.select_view  # select's common case in one C call; None: the Python path
narrow_view = shim.narrow_view  # narrow's common case in one C call; None: the Python path
select_views = shim.select_views  # unbind's selects, all in one C call
narrow_views = shim.narrow_views  # split's narrows by a list of sizes, all in one C call (sizes checked here first)
split_views = shim.split_views  # split(n)'s and chunk(n)'s narrows, lengths and all, in one C call (n checked here)
_note = shim.prov_note  # _note(t, op, arg, parent) records how t was made (see _provenance.py)
(_P_VIEW, _P_RESHAPE, _P_VIEW_DTYPE, _P_T, _P_MT, _P_TRANSPOSE, _P_T_METHOD, _P_PERMUTE, _P_SQUEEZE, _P_UNSQUEEZE,
 _P_EXPAND, _P_NARROW, _P_SELECT, _P_UNFOLD, _P_AS_STRIDED, _P_DIAGONAL) = (OP[n] for n in (
    "view", "reshape", "view_dtype", "T", "mT", "transpose", "t", "permute", "squeeze", "unsqueeze", "expand",
    "narrow", "select", "unfold", "as_strided", "diagonal"))
_P_ALIAS = OP["alias"]

# torch warns once a process about each deprecated use of the transposes (`.T` of a
# tensor that is not 2-D; `.mT`, `.mH`, `.H`, `adjoint()` of a 0-D one); _WARNED
# remembers which were given.
_WARNED = set()
_MESSAGES = {
    "T-0d": "Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases.",
    "T-nd": "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated and it "
            "will throw an error in a future release. Consider `x.mT` to transpose batches of matrices or "
            "`x.permute(*range(x.ndim - 1, -1, -1))` to reverse the dimensions of a tensor.",
    "mT-0d": "Tensor.mT is deprecated on 0-D tensors. This function is the identity in these cases.",
    "mH-0d": "Tensor.mH is deprecated on 0-D tensors. Consider using x.conj().",
    "H-0d": "Tensor.H is deprecated on 0-D tensors. Consider using x.conj().",
    "adjoint-0d": "adjoint() is deprecated on 0-D tensors. Consider using x.conj().",
}


def _warn_once(kind):
    if kind not in _WARNED:
        _WARNED.add(kind)
        warnings.warn(_MESSAGES[kind], UserWarning, stacklevel=user_stacklevel())


def _matrices_only(what, ndim):
    """torch's refusal of a transpose of the last two dims on a 1-D tensor."""
    if ndim == 1:
        raise RuntimeError(f"{what} is only supported on matrices or batches of matrices. Got 1-D tensor.")


class Views:
    """view, reshape, transpose, permute, squeeze, expand, narrow, select, unfold, as_strided, split, ..."""

    __slots__ = ()

    def view(self, *shape: int | _dt.dtype) -> Self:
        """A view with a new shape over the same bytes; raises when the strides cannot express it.

        >>> import pytensor
        >>> t = pytensor.arange(6)
        >>> v = t.view(2, 3); v[1, 2] = 60; t[5].item()
        60
        """
        t = reshape_view(self, shape, _P_VIEW)
        if t is not None:
            return t
        if len(shape) == 1 and (isinstance(shape[0], (_dt.dtype, str)) or not (
                hasattr(shape[0], "__index__") or hasattr(shape[0], "__iter__"))):
            return self._view_dtype(_dt.dtype_arg("view", shape[0]))  # a dtype (or its name): not a shape
        # Sizes given as a list, a Size or __index__ objects: normalised here, then the one rule in C.
        return reshape_view(self, shape_args(shape), _P_VIEW)

    def _view_dtype(self, dt):
        if self._bits:  # the bytes are not the values: reinterpreting them would drop the bit
            raise RuntimeError("torch.Tensor.view is not supported for conjugate view tensors when converting to a "
                               "different dtype." if self._bits & _conj.CONJ else "torch.Tensor.view is not supported "
                               "for tensors with negative bit set when converting to a different dtype.")
        if dt.itemsize != self._dtype.itemsize:
            if self.dim() == 0 or self._strides[-1] != 1:
                raise RuntimeError("self.stride(-1) must be 1 to view with a dtype of a different size")
            ratio_num, ratio_den = self._dtype.itemsize, dt.itemsize
            last = self._shape[-1] * ratio_num
            off = self._offset * ratio_num
            if last % ratio_den or off % ratio_den or any((s * ratio_num) % ratio_den for s in self._strides[:-1]):
                raise RuntimeError(f"cannot view a tensor of {self._dtype} as {dt}: the last dimension's size "
                                   "and the other strides must be divisible by the size ratio")
            shape = self._shape[:-1] + (last // ratio_den,)
            strides = tuple(s * ratio_num // ratio_den for s in self._strides[:-1]) + (1,)
            return make(self._storage, dt, shape, strides, off // ratio_den, _P_VIEW_DTYPE, dt, self)
        return make(self._storage, dt, self._shape, self._strides, self._offset, _P_VIEW_DTYPE, dt, self)

    def view_as(self, other):
        return self.view(other.shape)

    def reshape(self, *shape: int) -> Self:
        """A view when the strides allow it, otherwise a contiguous copy (as torch)."""
        t = reshape_view(self, shape, _P_RESHAPE)
        if t is not None:
            return t
        return reshape_view(self, shape_args(shape), _P_RESHAPE)

    def reshape_as(self, other):
        return self.reshape(other.shape)

    def transpose(self, dim0: int, dim1: int) -> Self:
        """Swap two dimensions (a view: only the strides move)."""
        n = self.dim()
        d0, d1 = wrap_dim(dim0, n), wrap_dim(dim1, n)
        if n == 0:
            return self._view((), (), None, _P_TRANSPOSE, (dim0, dim1))
        shape, strides = list(self._shape), list(self._strides)
        shape[d0], shape[d1] = shape[d1], shape[d0]
        strides[d0], strides[d1] = strides[d1], strides[d0]
        return self._view(shape, strides, None, _P_TRANSPOSE, (dim0, dim1))

    swapaxes = swapdims = transpose

    def t(self):
        if self.dim() > 2:
            raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {self.dim()}D")
        if self.dim() < 2:
            return self._view(self._shape, self._strides, None, _P_T_METHOD)
        return permute_view(self, (1, 0), _P_T_METHOD)

    @property
    def T(self):
        """All dimensions reversed (a view); warns, as torch does, unless the tensor is 2-D."""
        if len(self._shape) != 2:
            _warn_once("T-0d" if not self._shape else "T-nd")
        return self._view(self._shape[::-1], self._strides[::-1], None, _P_T)

    @property
    def mH(self):
        """The conjugate transpose of the last two dimensions (``conj().mT``)."""
        _matrices_only("tensor.mH", self.dim())
        if not self._shape:
            _warn_once("mH-0d")
            return self.conj()
        return self.transpose(-2, -1).conj()  # torch's order: its node is ConjBackward0

    def adjoint(self) -> Self:
        """The conjugate transpose of the last two dimensions (``conj().mT``)."""
        _matrices_only("tensor.adjoint()", self.dim())
        if not self._shape:
            _warn_once("adjoint-0d")
            return self.conj()
        return self.transpose(-2, -1).conj()  # torch's order: its node is ConjBackward0

    @property
    def H(self):
        """The conjugate transpose of a matrix (``conj().T`` of a 2-D tensor)."""
        if not self._shape:
            _warn_once("H-0d")
            return self.conj()
        if self.dim() != 2:
            extra = " For batches of matrices, consider using tensor.mH" if self.dim() > 2 else ""
            raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {self.dim()}-D tensor."
                               + extra)
        return self.transpose(0, 1).conj()

    # ================================================================ complex parts
    # A complex element is two floats side by side (real, imaginary), so the
    # real parts of a complex tensor are a float tensor over the same bytes:
    # strides doubled (counted in floats), offset 2*offset (+1 for the
    # imaginary parts). Writes through them reach the complex tensor.
    # conj() is a view too, as torch's: the same bytes with the conjugate bit
    # (pytensor/_conj.py says what the bits mean and where they are resolved).
    def _complex_part(self, which):
        t = make(self._storage, self._dtype.to_real(), self._shape, tuple(2 * s for s in self._strides),
                 2 * self._offset + which, _P_ALIAS, ("real", "imag")[which], self)
        # the part of a conjugate view: the real parts as stored, the imaginary parts negated (torch's neg bit)
        negated = bool(self._bits & _conj.NEG) != bool(which and self._bits & _conj.CONJ)
        t._bits = _conj.NEG if negated else 0
        return t

    @property
    def real(self):
        """The real parts: a float view of a complex tensor's storage (self for a real tensor).

        >>> import pytensor
        >>> z = pytensor.tensor([1+2j, 3-4j])
        >>> z.real, z.real.stride(), z.imag.storage_offset()
        (tensor([1., 3.]), (2,), 1)
        """
        return self._complex_part(0) if self._dtype.is_complex else self

    @real.setter
    def real(self, value):
        self.real.copy_(_part_value(value))

    @property
    def imag(self):
        """The imaginary parts: a float view of a complex tensor's storage (offset by one float); of a
        conjugate view, a view with the negative bit (``is_neg()``), as torch's."""
        if not self._dtype.is_complex:
            raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
        return self._complex_part(1)

    @imag.setter
    def imag(self, value):
        self.imag.copy_(_part_value(value))

    def conj_physical(self) -> Self:
        """The complex conjugate in new memory, with no bit (self for a real tensor, as torch)."""
        if not self._dtype.is_complex:
            return self
        return _conj.conjugate_copy(self)

    def conj(self) -> Self:
        """The complex conjugate as a view: the same bytes with the conjugate bit flipped (torch's lazy
        conjugate); self for a tensor that is not complex.

        >>> import pytensor
        >>> z = pytensor.tensor([1+2j]); c = z.conj()
        >>> c, c.is_conj(), c.data_ptr() == z.data_ptr(), c.conj().is_conj()
        (tensor([1.-2.j]), True, True, False)
        """
        if not self._dtype.is_complex:
            return self
        t = make(self._storage, self._dtype, self._shape, self._strides, self._offset, _P_ALIAS, "conj", self)
        t._bits = self._bits ^ _conj.CONJ
        return t

    def resolve_conj(self) -> Self:
        """New memory holding the values of a tensor with the conjugate bit (the bit off); self otherwise."""
        return _conj.materialise(self, _conj.CONJ) if self._bits & _conj.CONJ else self

    def resolve_neg(self) -> Self:
        """New memory holding the values of a tensor with the negative bit (the bit off); self otherwise."""
        return _conj.materialise(self, _conj.NEG) if self._bits & _conj.NEG else self

    def is_conj(self) -> bool:
        """Whether this is a view with the conjugate bit: its values are its bytes conjugated."""
        return bool(self._bits & _conj.CONJ)

    def is_neg(self) -> bool:
        """Whether this is a view with the negative bit (``conj().imag``): its values are its bytes negated."""
        return bool(self._bits & _conj.NEG)

    @property
    def mT(self):
        _matrices_only("tensor.mT", self.dim())
        if not self._shape:
            _warn_once("mT-0d")
            return self  # the identity, as torch's
        return _note(self.transpose(-2, -1), _P_MT, None, self)

    def permute(self, *dims: int) -> Self:
        """Reorder dimensions (a view)."""
        r = permute_view(self, dims[0] if len(dims) == 1 and dims[0].__class__ is tuple else dims, _P_PERMUTE)
        if r is not None:
            return r
        dims = shape_args(dims)
        n = self.dim()
        if len(dims) != n:
            raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does not match "
                               f"the length of the desired ordering of dimensions i.e. input.dim() = {n} "
                               f"is not equal to len(dims) = {len(dims)}")
        dims = [wrap_dim(d, n) for d in dims]
        if len(set(dims)) != n:
            raise RuntimeError("permute(): duplicate dims are not allowed.")
        return self._view([self._shape[d] for d in dims], [self._strides[d] for d in dims], None, _P_PERMUTE,
                          tuple(dims))

    def movedim(self, source, destination):
        """Move dimension(s) ``source`` to position(s) ``destination`` (ints, or sequences of the same length);
        the others keep their order. A view (of a 0-d tensor, whose one valid dim is 0 or -1: itself)."""
        n = len(self._shape)
        if source.__class__ is int and destination.__class__ is int and -n <= source < n and -n <= destination < n:
            src = source % n  # the common call: dims in range, wrapped without wrap_dim's checks
            order = [d for d in range(n) if d != src]
            order.insert(destination % n, src)
            order = tuple(order)
            r = permute_view(self, order, _P_PERMUTE)
            return r if r is not None else self.permute(order)
        seqs = isinstance(source, (tuple, list)), isinstance(destination, (tuple, list))
        if seqs[0] != seqs[1]:
            raise TypeError(f"movedim(): source and destination must both be ints or both be sequences of ints, "
                            f"got {type(source).__name__} and {type(destination).__name__}")
        src = [wrap_dim(d, n) for d in (source if seqs[0] else (source,))]
        dst = [wrap_dim(d, n) for d in (destination if seqs[1] else (destination,))]
        if len(src) != len(dst):
            raise RuntimeError(f"movedim: Invalid source or destination dims: source ({list(source)} dims) should "
                               f"contain the same number of dims as destination ({list(destination)} dims)")
        for name, dims, given in (("source", src, source), ("destination", dst, destination)):
            if len(set(dims)) != len(dims):
                raise RuntimeError(f"movedim: repeated dim in `{name}` ({list(given)})")
        rest = iter([d for d in range(n) if d not in src])
        placed = dict(zip(dst, src))
        order = tuple(placed[i] if i in placed else next(rest) for i in range(n))  # () for a 0-d tensor
        r = permute_view(self, order, _P_PERMUTE)  # self.permute(order)'s C path, recorded the same
        return r if r is not None else self.permute(order)

    def squeeze(self, dim=None):
        """Drop dimensions of extent 1 (all, or those named); a view."""
        t = squeeze_view(self, dim)
        if t is not None:
            return t
        n = self.dim()
        if dim is None:
            keep = [i for i in range(n) if self._shape[i] != 1]
        else:
            dims = {wrap_dim(d, n) for d in (dim if isinstance(dim, (tuple, list)) else (dim,))}
            keep = [i for i in range(n) if not (i in dims and self._shape[i] == 1)]
        return self._view([self._shape[i] for i in keep], [self._strides[i] for i in keep], None, _P_SQUEEZE, dim)

    def unsqueeze(self, dim):
        """Insert a dimension of extent 1 at ``dim`` (a view)."""
        d = wrap_dim(dim, self.dim() + 1)
        shape = self._shape[:d] + (1,) + self._shape[d:]
        return self._view(shape, unsqueeze_strides(self._shape, self._strides, d), None, _P_UNSQUEEZE, dim)

    def expand(self, *sizes):
        """Broadcast to ``sizes`` with zero strides: every new element aliases an old one."""
        r = expand_view(self, sizes[0] if len(sizes) == 1 and isinstance(sizes[0], tuple) else sizes, _P_EXPAND)
        if r is not None:
            return r
        sizes = shape_args(sizes)
        n, m = self.dim(), len(sizes)
        if m < n:
            raise RuntimeError(f"expand: the number of sizes provided ({m}) must be greater or equal to the "
                               f"number of dimensions in the tensor ({n})")
        shape, strides, grew = [], [], m > n
        for i, want in enumerate(sizes):
            j = i - (m - n)
            have, st = (self._shape[j], self._strides[j]) if j >= 0 else (1, 0)
            if want == -1:
                if j < 0:
                    raise RuntimeError(f"The expanded size of the tensor (-1) isn't allowed in a leading, "
                                       f"non-existing dimension {i}")
                want = have
            if have != want:
                if have != 1:
                    raise RuntimeError(f"The expanded size of the tensor ({want}) must match the existing size "
                                       f"({have}) at non-singleton dimension {i}.  Target sizes: {list(sizes)}.  "
                                       f"Tensor sizes: {list(self._shape)}")
                if want < 0:
                    raise RuntimeError(f"expand: size {want} at dimension {i} is negative")
                st, grew = 0, True
            shape.append(want)
            strides.append(st)
        if grew:
            numel(shape)  # the one numel rule: (2**62, 2**62, 0) is refused here as torch refuses it
        return self._view(shape, strides, None, _P_EXPAND, tuple(sizes))

    def expand_as(self, other):
        return self.expand(other.shape)

    def flatten(self, start_dim=0, end_dim=-1):
        """Merge dimensions start_dim..end_dim; a view when possible, else a copy (as reshape)."""
        n = len(self._shape)
        if n == 0:
            return self.reshape(1)
        if start_dim.__class__ is int and end_dim.__class__ is int and -n <= start_dim < n and -n <= end_dim < n:
            s, e = start_dim % n, end_dim % n  # wrap_dim's answer for plain ints in range, without the call
        else:
            s, e = wrap_dim(start_dim, n), wrap_dim(end_dim, n)
        if s > e:
            raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
        if s == e:
            return self  # nothing to merge: torch returns the tensor itself
        shape = self._shape[:s] + (numel(self._shape[s:e + 1]),) + self._shape[e + 1:]
        return reshape_view(self, (shape,), _P_RESHAPE)  # self.reshape(shape)'s C path, recorded the same

    def unflatten(self, dim, sizes):
        t = unflatten_view(self, dim, sizes)
        if t is not None:
            return t
        d = wrap_dim(dim, len(self._shape))
        sizes = infer_shape(tuple(sizes), self._shape[d])
        shape = self._shape[:d] + sizes + self._shape[d + 1:]
        r = reshape_view(self, (shape,), _P_VIEW)  # self.view(shape)'s C path, recorded the same
        return r if r is not None else self.view(shape)

    def narrow(self, dim, start, length):
        """Elements start..start+length-1 along ``dim`` (a view)."""
        t = narrow_view(self, dim, start, length)
        if t is not None:
            return t
        n = self.dim()
        if n == 0:
            raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
        d = wrap_dim(dim, n)
        size = self._shape[d]
        start, length = operator.index(start), operator.index(length)
        if not -size <= start <= size:
            raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], but got {start})")
        if start < 0:
            start += size
        if length < 0:
            raise RuntimeError("narrow(): length must be non-negative.")
        if start + length > size:
            raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
        shape, offset = _layout.narrow(self._shape, self._strides, self._offset, d, start, length)
        return self._view(shape, self._strides, offset, _P_NARROW, (dim, start, length))

    def select(self, dim, index):
        """The slice at ``index`` along ``dim``, one dimension fewer (a view)."""
        t = select_view(self, dim, index)
        if t is not None:
            return t
        n = self.dim()
        if n == 0:
            raise IndexError("select() cannot be applied to a 0-dim tensor.")
        d = wrap_dim(dim, n)
        size = self._shape[d]
        index = operator.index(index)
        if not -size <= index < size:
            raise IndexError(f"index {index} is out of bounds for dimension {d} with size {size}")
        arg = (dim, index)
        if index < 0:
            index += size
        return self._view(*_layout.select(self._shape, self._strides, self._offset, d, index), _P_SELECT, arg)

    def unfold(self, dimension, size, step):
        """Sliding windows of ``size`` every ``step`` along ``dimension`` (a view that overlaps itself)."""
        t = unfold_view(self, dimension, size, step)
        if t is not None:
            return t
        n = self.dim()
        d = wrap_dim(dimension, n)
        size, step = int64_arg("unfold", "size", size), int64_arg("unfold", "step", step)
        extent = self._shape[d] if n else 1
        if size > extent:
            raise RuntimeError(f"maximum size for tensor at dimension {d} is {extent} but size is {size}")
        if step <= 0:
            raise RuntimeError(f"step is {step} but must be > 0")
        if size < 0:  # else the window count exceeds the extent and the windows have a negative extent
            raise RuntimeError(f"size is {size} but must be >= 0")
        shape, strides = _layout.unfold(self._shape, self._strides, d, size, step)
        return self._view(shape, strides, None, _P_UNFOLD, (dimension, size, step))

    def as_strided(self, size, stride, storage_offset=None):
        """Any view of the same storage; checked to lie inside it."""
        t = as_strided_view(self, size, stride, storage_offset)
        if t is not None:
            return t
        size = check_int64("size", tuple(map(operator.index, size)))
        stride = check_int64("stride", tuple(map(operator.index, stride)))
        if len(size) != len(stride):
            raise RuntimeError(f"mismatch in length of strides and shape: {len(stride)} vs {len(size)}")
        off = self._offset if storage_offset is None else operator.index(storage_offset)
        if off < 0:
            raise RuntimeError(f"Tensor: invalid storage offset {off}")
        if off >= 2**63:
            raise ValueError(f"as_strided(): storage_offset {off} does not fit in int64")
        if any(s < 0 for s in stride):
            raise RuntimeError("as_strided: Negative strides are not supported at the moment, got strides: "
                               f"{list(stride)}")
        check(lib.lt_layout_check(len(size), size, stride, off, self.itemsize, self._storage._nbytes))
        return self._view(size, stride, off, _P_AS_STRIDED, (size, stride, None if storage_offset is None else off))

    def diagonal(self, offset=0, dim1=0, dim2=1):
        t = diagonal_view(self, offset, dim1, dim2)
        if t is not None:
            return t
        diag_offset = int64_arg("diagonal", "offset", offset)  # torch's TypeError for a bool, ValueError past int64
        n = self.dim()
        d1, d2 = wrap_dim(dim1, n), wrap_dim(dim2, n)
        if d1 == d2:
            raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
        return self._view(*_layout.diagonal(self._shape, self._strides, self._offset, diag_offset, d1, d2),
                          _P_DIAGONAL, (offset, dim1, dim2))

    def split(self, split_size, dim=0):
        """Views of ``split_size`` elements along ``dim`` (the last may be
        shorter), or of the sizes in a list, which must sum to the extent."""
        if self.dim() == 0:
            raise RuntimeError("split expects at least a 1-dimensional tensor")
        d = wrap_dim(dim, self.dim())
        size = self._shape[d]
        if not isinstance(split_size, (list, tuple)):
            split_size = int64_arg("split", "split_size", split_size)
            if split_size < 0:
                raise RuntimeError(f"split expects split_size be non-negative, but got split_size={split_size}")
            if split_size == 0 and size != 0:
                raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of "
                                   f"{size}")
            return split_views(self, d, split_size, False)
        try:
            sizes = [operator.index(n) for n in split_size]
        except TypeError:
            raise TypeError("split_with_sizes(): argument 'split_sizes' must be tuple of ints") from None
        if any(not -2**63 <= n < 2**63 for n in sizes):
            raise TypeError("split_with_sizes(): argument 'split_sizes' failed to unpack: Overflow when unpacking "
                            "long long")
        if any(n < 0 for n in sizes):
            raise RuntimeError(f"split_with_sizes expects split_sizes have only non-negative entries, but got "
                               f"split_sizes={sizes}")
        if sum(sizes) != size:
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's size "
                               f"at dimension {d}), but got split_sizes={sizes}")
        return narrow_views(self, d, tuple(sizes))

    def chunk(self, chunks, dim=0):
        """At most ``chunks`` views along ``dim``, each ``ceil(extent / chunks)``
        long (the last may be shorter); an empty dimension gives ``chunks`` empty views."""
        if self.dim() == 0:
            raise RuntimeError("chunk expects at least a 1-dimensional tensor")
        chunks = int64_arg("chunk", "chunks", chunks)
        if chunks <= 0:
            raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
        return split_views(self, wrap_dim(dim, len(self._shape)), chunks, True)

    def unbind(self, dim=0):
        """Every select along ``dim`` (views), as a tuple."""
        if not self._shape:
            raise IndexError("Dimension specified as 0 but tensor has no dimensions")
        return select_views(self, wrap_dim(dim, len(self._shape)), dim)


def _part_value(value):
    """What ``t.real = value`` writes: a tensor as it is, a number or a sequence as a tensor."""
    return value if isinstance(value, TensorBase) else as_tensor_operand(value, None)

