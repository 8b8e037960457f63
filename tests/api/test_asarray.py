"""asarray: shares whenever it can (copy=None), never with copy=True, and
raises with copy=False when it cannot; returns a source tensor itself;
reads buffers as raw bytes of ``dtype``; copies 0-d arrays, NumPy scalars and
Python data."""
import array
import ctypes
import gc
import inspect
import mmap
import warnings
import weakref

import numpy as np
import pytest

import pytensor
from ctor_support import (GRAD_DTYPES, NO_GRAD_DTYPES, NUMPY_DTYPES, address, assert_shares_numpy,
                          assert_shares_read_only, pt_dtype, sample)


# ------------------------------------------------------------------ tensors

@pytest.mark.parametrize("kwargs", [{}, {"copy": False}, {"copy": None}, {"dtype": pytensor.float32},
                                    {"device": "cpu"}, {"device": pytensor.device("cpu")},
                                    {"requires_grad": False}])
def test_tensor_is_returned_itself(kwargs):
    t = pytensor.arange(6, dtype=pytensor.float32).view(2, 3)[:, 1:]
    assert pytensor.asarray(t, **kwargs) is t


@pytest.mark.parametrize("kwargs", [{"copy": True}, {"copy": True, "dtype": pytensor.float32},
                                    {"copy": True, "requires_grad": False}])
def test_copy_true_never_shares(kwargs):
    t = pytensor.arange(4, dtype=pytensor.float32)
    c = pytensor.asarray(t, **kwargs)
    assert c.data_ptr() != t.data_ptr() and c.tolist() == t.tolist()
    c[0] = 9
    assert t[0].item() == 0


def test_dtype_change_copies():
    t = pytensor.arange(4, dtype=pytensor.int32)
    for copy in (None, True):
        c = pytensor.asarray(t, dtype=pytensor.float64, copy=copy)
        assert c.dtype is pytensor.float64 and c.data_ptr() != t.data_ptr()
        assert c.tolist() == [float(x) for x in t.tolist()]


def test_copy_false_refuses_dtype_change():
    with pytest.raises(ValueError, match="can't alias tensor with dtype 'Float' into dtype 'Double'"):
        pytensor.asarray(pytensor.zeros(2), dtype=pytensor.float64, copy=False)


def test_device_with_an_index_copies_like_torch():
    # torch compares devices exactly: 'cpu:0' is not the tensor's 'cpu'
    t = pytensor.zeros(2)
    c = pytensor.asarray(t, device="cpu:0")
    assert c is not t and c.data_ptr() != t.data_ptr() and c.device.type == "cpu"
    with pytest.raises(ValueError, match="can't alias tensor from device 'cpu' to 'cpu:0'"):
        pytensor.asarray(t, device="cpu:0", copy=False)


def test_copies_keep_a_dense_layout():
    t = pytensor.arange(12, dtype=pytensor.float32).view(3, 4).T
    assert pytensor.asarray(t, copy=True).stride() == t.stride() == (1, 4)
    assert pytensor.asarray(t, dtype=pytensor.float64).stride() == (1, 4)
    holes = pytensor.arange(12, dtype=pytensor.float32).view(3, 4)[:, ::2]
    assert pytensor.asarray(holes, copy=True).stride() == (2, 1)


# ------------------------------------------------------------------ NumPy arrays

@pytest.mark.parametrize("name", NUMPY_DTYPES)
def test_every_numpy_dtype_is_shared(name):
    assert_shares_numpy(pytensor.asarray, name)


@pytest.mark.parametrize("name", NUMPY_DTYPES)
def test_numpy_with_copy_true_or_other_dtype_copies(name):
    a = sample(name, 4)
    c = pytensor.asarray(a, copy=True)
    assert c.data_ptr() != address(a) and c.tolist() == a.tolist()
    other = pytensor.float64 if name != "float64" else pytensor.int32
    with warnings.catch_warnings():  # complex to float64 keeps the real parts and says so (torch too)
        warnings.filterwarnings("ignore", "Casting complex values to real", UserWarning)
        d = pytensor.asarray(a, dtype=other)
    assert d.dtype is other and d.data_ptr() != address(a)
    with pytest.raises(ValueError, match="can't alias"):
        pytensor.asarray(a, dtype=other, copy=False)


def test_numpy_views_keep_strides():
    a = np.arange(12.0).reshape(3, 4)
    t = pytensor.asarray(a.T, copy=False)
    assert t.stride() == (1, 4) and t.data_ptr() == address(a)
    c = pytensor.asarray(a.T, copy=True)
    assert c.stride() == (1, 4) and c.tolist() == a.T.tolist()


def test_0d_arrays_are_always_copied():
    # torch copies a 0-d array even with copy=False, without an error
    a = np.array(1.5)
    for copy in (None, False, True):
        t = pytensor.asarray(a, copy=copy)
        assert t.dim() == 0 and t.item() == 1.5 and t.dtype is pytensor.float64
        assert t.data_ptr() != address(a)
    assert pytensor.asarray(np.array(1.0), dtype=pytensor.int32).item() == 1


def test_numpy_scalars_are_copied():
    s = np.float64(0.5)
    t = pytensor.asarray(s)
    assert t.dim() == 0 and t.dtype is pytensor.float64 and t.item() == 0.5
    assert pytensor.asarray(np.uint64(3)).dtype is pytensor.uint64
    assert pytensor.asarray(np.float16(2)).dtype is pytensor.float16
    with pytest.raises(RuntimeError, match="can't alias NumPy scalars"):
        pytensor.asarray(s, copy=False)


def test_numpy_refusals_are_from_numpys():
    with pytest.raises(ValueError, match="negative"):
        pytensor.asarray(np.arange(3)[::-1])
    with pytest.raises(ValueError, match="byte order"):
        pytensor.asarray(np.arange(3, dtype=">i4"))
    with pytest.raises(TypeError, match="numpy.object_"):
        pytensor.asarray(np.array([None]))


def test_read_only_array_is_shared_read_only():
    a, _ = assert_shares_read_only(pytensor.asarray)
    c = pytensor.asarray(a, copy=True)
    c[0] = 1                                   # a copy is writable
    assert a[0] == 0


def test_ndarray_subclass_is_an_array_not_a_buffer():
    m = np.ma.MaskedArray([1, 2, 3], mask=[0, 1, 0])
    t = pytensor.asarray(m)
    assert t.dtype is pytensor.int64 and t.tolist() == [1, 2, 3] and t.data_ptr() == address(m.data)


# ------------------------------------------------------------------ buffers

def test_buffer_without_dtype_is_read_as_the_default_float():
    a = array.array("i", [1, 2])
    t = pytensor.asarray(a)
    assert t.dtype is pytensor.get_default_dtype()
    assert t.tolist() == np.frombuffer(a, dtype=np.float32).tolist()   # the raw bytes, not the ints
    assert t.data_ptr() == address(a)


@pytest.mark.parametrize("make", [lambda: bytearray(8), lambda: array.array("i", [5, 6]),
                                  lambda: memoryview(bytearray(8)), lambda: mmap.mmap(-1, 8)],
                         ids=["bytearray", "array", "memoryview", "mmap"])
def test_buffers_are_shared_as_dtype(make):
    src = make()
    t = pytensor.asarray(src, dtype=pytensor.int32, copy=False)
    assert t.data_ptr() == address(src) and t.shape == (2,)
    t[1] = -3
    assert np.frombuffer(src, dtype=np.int32)[1] == -3
    c = pytensor.asarray(src, dtype=pytensor.int32, copy=True)
    assert c.data_ptr() != address(src) and c.tolist() == t.tolist()


def test_bytes_give_read_only_tensor_and_writable_copy():
    t = pytensor.asarray(b"\x01\x00\x00\x00", dtype=pytensor.int32)
    assert t.tolist() == [1]
    with pytest.raises(pytensor.ReadOnlyError):
        t[0] = 2
    c = pytensor.asarray(b"\x01\x00\x00\x00", dtype=pytensor.int32, copy=True)
    c[0] = 2
    assert c.tolist() == [2]


def test_buffer_errors_are_frombuffers():
    with pytest.raises(ValueError, match=r"buffer length \(3 bytes\) after offset \(0 bytes\) must be a multiple "
                                         r"of element size \(4\)"):
        pytensor.asarray(bytearray(3))
    with pytest.raises(ValueError, match=r"both buffer length \(0\)"):
        pytensor.asarray(bytearray())
    with pytest.raises(RuntimeError, match="could not retrieve buffer"):
        pytensor.asarray(memoryview(bytearray(8))[::2])


# ------------------------------------------------------------------ Python data

@pytest.mark.parametrize("data", [3, 2.5, True, 1j, [1, 2], [[1.0], [2.0]], (1, 2.5), range(4), []])
def test_python_data_is_copied_like_as_tensor(data):
    t = pytensor.asarray(data)
    ref = pytensor.as_tensor(data)
    assert (t.dtype, t.shape, t.tolist()) == (ref.dtype, ref.shape, ref.tolist())


def test_copy_false_refuses_sequences():
    with pytest.raises(ValueError, match="can't alias arbitrary sequence"):
        pytensor.asarray([1, 2], copy=False)


def test_sequences_holding_tensors_and_numpy_scalars():
    parts = [pytensor.tensor(1, dtype=pytensor.int8), pytensor.tensor(2, dtype=pytensor.int16)]
    t = pytensor.asarray(parts)
    assert t.dtype is pytensor.int16 and t.tolist() == [1, 2]
    assert pytensor.asarray([np.uint8(1), np.int8(2)]).dtype is pytensor.int16
    assert pytensor.asarray([np.float32(1), np.float32(2)], dtype=pytensor.float64).dtype is pytensor.float64
    # the parts are copied, not referenced
    t[0] = 100
    assert parts[0].item() == 1


# ------------------------------------------------------------------ requires_grad

def test_requires_grad_defaults_to_false_as_documented():
    """torch's asarray page: "the returned tensor will, by default, not require a
    gradient". A tensor that requires grad gives a detached alias; the caller's
    tensor keeps its setting. A tensor that does not stays the same object."""
    assert inspect.signature(pytensor.asarray).parameters["requires_grad"].default is False
    leaf = pytensor.ones(3, requires_grad=True)
    a = pytensor.asarray(leaf)
    assert a is not leaf and not a.requires_grad and a.grad_fn is None and a.data_ptr() == leaf.data_ptr()
    assert leaf.requires_grad                                 # the caller's tensor is untouched
    a[0] = 5.0                                                # an alias: writes are shared
    assert leaf.tolist() == [5.0, 1.0, 1.0]
    assert pytensor.asarray(leaf, requires_grad=True) is leaf      # where torch returns it too
    plain = pytensor.ones(3)
    assert pytensor.asarray(plain) is plain
    assert pytensor.asarray(plain, requires_grad=False, copy=None, dtype=None, device=None) is plain
    assert not pytensor.asarray(np.ones(3)).requires_grad
    assert not pytensor.asarray([1.0]).requires_grad
    with pytest.raises(TypeError, match="'requires_grad' must be bool, not NoneType"):
        pytensor.asarray(leaf, requires_grad=None)            # torch 2.13's "inherit" is not the documented API


def test_autograd_history_follows_the_documentation():
    leaf = pytensor.ones(3, requires_grad=True)
    b = leaf * 2                                              # a non-leaf with history
    c = pytensor.asarray(b)                                   # "Shares memory with tensor 'b', with no grad"
    assert c is not b and c.grad_fn is None and not c.requires_grad and c.data_ptr() == b.data_ptr()
    assert b.grad_fn is not None                              # the source is untouched
    assert pytensor.asarray(b, requires_grad=True) is b       # "retaining autograd history"
    d = pytensor.asarray(b, requires_grad=False)
    assert d.grad_fn is None and not d.requires_grad and d.data_ptr() == b.data_ptr()
    c = pytensor.asarray(b, copy=True)                        # a copy, detached by default
    assert c.grad_fn is None and not c.requires_grad and c.data_ptr() != b.data_ptr()
    c = pytensor.asarray(b, copy=True, requires_grad=True)
    assert c.grad_fn.name() == "CloneBackward0" and c.data_ptr() != b.data_ptr()
    e = pytensor.asarray(b, dtype=pytensor.float64, requires_grad=True)
    assert e.grad_fn.name() == "ToCopyBackward0" and e.dtype is pytensor.float64
    e.sum().backward()                                        # gradients flow through the copy
    assert leaf.grad.tolist() == [2.0, 2.0, 2.0]
    f = pytensor.asarray(b, dtype=pytensor.float64)
    assert f.grad_fn is None and not f.requires_grad


def test_requires_grad_false_gives_a_detached_alias_and_leaves_the_source_alone():
    leaf = pytensor.ones(3, requires_grad=True)
    a = pytensor.asarray(leaf, requires_grad=False)
    assert a is not leaf and not a.requires_grad and a.data_ptr() == leaf.data_ptr()
    assert leaf.requires_grad                   # torch would have switched it off


def test_requires_grad_true_on_a_plain_tensor_leaves_the_source_alone():
    t = pytensor.ones(3)
    a = pytensor.asarray(t, requires_grad=True)
    assert a.requires_grad and a.is_leaf and a.data_ptr() == t.data_ptr()
    assert not t.requires_grad


@pytest.mark.parametrize("name", GRAD_DTYPES)
def test_requires_grad_with_shared_inputs(name):
    buf = bytearray(16)
    t = pytensor.asarray(buf, dtype=pt_dtype(name), requires_grad=True)
    assert t.requires_grad and t.data_ptr() == address(buf)
    if name != "bfloat16":
        a = sample(name, 2)
        u = pytensor.asarray(a, requires_grad=True)
        assert u.requires_grad and u.data_ptr() == address(a)


@pytest.mark.parametrize("name", NO_GRAD_DTYPES)
def test_requires_grad_refused_for_other_dtypes(name):
    dt = pt_dtype(name)
    for src in (pytensor.zeros(2, dtype=dt), [1, 0], bytearray(16)):
        with pytest.raises(RuntimeError, match="floating point and complex"):
            pytensor.asarray(src, dtype=dt, requires_grad=True)


# ------------------------------------------------------------------ arguments

def test_argument_types():
    with pytest.raises(TypeError):
        pytensor.asarray([1], pytensor.float64)                  # keyword-only after obj
    with pytest.raises(TypeError, match="'copy' must be bool, not int"):
        pytensor.asarray([1], copy=1)
    with pytest.raises(TypeError, match="'dtype' must be"):
        pytensor.asarray([1], dtype=np.float32)              # a NumPy dtype object: pass its name instead
    assert pytensor.asarray([1], dtype="float32").dtype is pytensor.float32  # names are pytensor's convenience
    with pytest.raises(TypeError, match="'requires_grad' must be bool, not int"):
        pytensor.asarray([1.0], requires_grad=1)
    with pytest.raises(TypeError):
        pytensor.asarray([1], pin_memory=True)
    with pytest.raises(RuntimeError):
        pytensor.asarray([1], device="cuda")


# ------------------------------------------------------------------ NumPy's array interface, without __array__ or a buffer

class Described:
    """An object that exposes its memory only through NumPy's array interface: a
    ctypes block it owns, described by a dict (``__array_interface__``) or by a
    NumPy capsule (``__array_struct__``)."""

    def __init__(self, values, kind="interface", readonly=False, shape=None, strides=None):
        self.block = (ctypes.c_double * len(values))(*values)
        self.address = ctypes.addressof(self.block)
        info = {"version": 3, "typestr": "<f8", "data": (self.address, readonly),
                "shape": (len(values),) if shape is None else shape, "strides": strides}
        if kind == "interface":
            self.__array_interface__ = info
        else:  # NumPy makes the capsule; the object keeps the array that owns it
            self._described = np.asarray(_Dict(info))
            self.__array_struct__ = self._described.__array_struct__


class _Dict:
    def __init__(self, info):
        self.__array_interface__ = info


@pytest.mark.parametrize("kind", ["interface", "struct"])
@pytest.mark.parametrize("ctor", ["asarray", "as_tensor"])
def test_array_interface_objects_are_shared(kind, ctor):
    src = Described([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], kind, shape=(2, 3))
    t = getattr(pytensor, ctor)(src)
    assert t.dtype is pytensor.float64 and t.shape == (2, 3) and t.data_ptr() == src.address
    t[0, 1] = -1.0
    assert src.block[1] == -1.0                               # one memory
    assert getattr(pytensor, ctor)(src, dtype=pytensor.float32).data_ptr() != src.address


@pytest.mark.parametrize("kind", ["interface", "struct"])
def test_array_interface_objects_are_copied_where_arrays_are(kind):
    src = Described([1.0, 2.0], kind)
    t = pytensor.tensor(src)
    assert t.tolist() == [1.0, 2.0] and t.data_ptr() != src.address
    c = pytensor.asarray(src, copy=True)
    assert c.data_ptr() != src.address
    zero_d = Described([7.0], kind, shape=())
    assert pytensor.asarray(zero_d).data_ptr() != zero_d.address   # 0-d: copied, as a 0-d array
    assert pytensor.as_tensor(zero_d).data_ptr() == zero_d.address
    with pytest.raises(ValueError, match="can't alias"):
        pytensor.asarray(src, dtype=pytensor.float32, copy=False)


@pytest.mark.parametrize("kind", ["interface", "struct"])
def test_array_interface_producer_lives_as_long_as_the_tensor(kind):
    src = Described([1.0, 2.0, 3.0], kind)
    alive = weakref.ref(src)
    t = pytensor.asarray(src)
    del src
    gc.collect()
    assert alive() is not None and t.tolist() == [1.0, 2.0, 3.0]
    del t
    gc.collect()
    assert alive() is None


def test_array_interface_read_only_and_strides():
    ro = Described([1.0, 2.0, 3.0], readonly=True)
    t = pytensor.asarray(ro)
    with pytest.raises(RuntimeError, match="read-only"):
        t[0] = 5.0
    assert ro.block[0] == 1.0
    every_other = Described([1.0, 2.0, 3.0, 4.0], shape=(2,), strides=(16,))
    v = pytensor.as_tensor(every_other)
    assert v.stride() == (2,) and v.tolist() == [1.0, 3.0] and v.data_ptr() == every_other.address


@pytest.mark.parametrize("kwargs", [{}, {"copy": True}, {"requires_grad": True}, {"requires_grad": True, "copy": True},
                                    {"requires_grad": False}, {"requires_grad": False, "copy": True}])
def test_retain_autograd_history(kwargs):
    """torch's test_retain_autograd_history (before 2.13, whose default rows, ``{}`` and
    ``{"copy": True}``, now inherit the source's grad): on a non-leaf, the result requires
    grad exactly when asked, and has a grad_fn exactly then."""
    source = pytensor.ones(5, 5, requires_grad=True).clone()
    a = pytensor.asarray(source, **kwargs)
    want = kwargs.get("requires_grad", False)
    assert a.requires_grad is want and (a.grad_fn is None) is (not want)
    assert (a.data_ptr() == source.data_ptr()) is (not kwargs.get("copy", False))
