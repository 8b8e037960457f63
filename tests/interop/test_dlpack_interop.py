"""DLPack round trips with NumPy, PyTorch and JAX on the CPU: values, dtypes,
pointer equality, and write-through wherever the peer allows writes.

Numbers in comments refer to the checklist in reference/dlpack.md, section 6.
torch aborts the process on negative strides (pytorch#188023), so the one
test that hands them to torch runs in a subprocess.
"""
import gc
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import pytensor
from pytensor.errors import ReadOnlyError
from dlpack_producer import Producer, Holder
from support import require_module

NUMPY_DTYPES = ["bool", "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64", "float16",
                "float32", "float64", "complex64", "complex128"]
TORCH_DTYPES = NUMPY_DTYPES + ["bfloat16"]


def collect():
    gc.collect()
    gc.collect()


def sample(name, shape=(2, 3)):
    """A pytensor tensor of dtype ``name`` with distinct values (alternating for bool)."""
    n = int(np.prod(shape))
    if name == "bool":
        return pytensor.tensor([bool(i % 2) for i in range(n)]).view(*shape)
    return pytensor.arange(n).to(getattr(pytensor, name)).view(*shape)


def expected(name, shape=(2, 3)):
    n = int(np.prod(shape))
    return [bool(i % 2) if name == "bool" else i for i in range(n)]


# ================================================================ NumPy

def test_numpy_import_shares_both_ways():  # 1
    a = np.arange(6.0).reshape(2, 3)
    t = pytensor.from_dlpack(a)
    assert t.data_ptr() == a.ctypes.data and t.shape == (2, 3) and t.tolist() == a.tolist()
    t[0, 1] = -5.0
    assert a[0, 1] == -5.0 and a[0, 2] == 2.0
    a[1, 2] = 50.0
    assert t[1, 2].item() == 50.0


@pytest.mark.parametrize("name", NUMPY_DTYPES)
def test_numpy_every_dtype_both_ways(name):  # 10, 36
    t = sample(name)
    a = np.from_dlpack(t)
    assert a.dtype == np.dtype(name) and a.ctypes.data == t.data_ptr()
    assert a.ravel().tolist() == expected(name)
    assert a.flags.writeable
    back = pytensor.from_dlpack(a)
    assert back.dtype is getattr(pytensor, name) and back.data_ptr() == t.data_ptr()
    a[0, 0] = 1  # visible through both
    assert t[0, 0].item() == back[0, 0].item() == (True if name == "bool" else 1)


@pytest.mark.parametrize("index", [
    (slice(None), slice(None)), (slice(None, None, -1), slice(None, None, -2)),  # 5
    (slice(1, None), slice(None, None, 3)), (slice(None, None, -1), 2),
], ids=["plain", "negative", "sliced", "negative-1d"])
@pytest.mark.parametrize("transpose", [False, True])  # 4
def test_numpy_strided_views_both_ways(index, transpose):
    base = np.arange(30, dtype=np.int32).reshape(5, 6)
    a = base[index]
    if transpose:
        a = a.T
    t = pytensor.from_dlpack(a)
    assert t.tolist() == a.tolist() and t.data_ptr() == a.ctypes.data
    assert t.stride() == tuple(s // 4 for s in a.strides)
    back = np.from_dlpack(t)  # 41: numpy reads negative strides from us
    assert back.strides == a.strides and back.ctypes.data == a.ctypes.data
    np.testing.assert_array_equal(back, a)
    flat = list(np.ndindex(*a.shape))
    if flat:
        t[flat[-1]] = -1
        assert a[flat[-1]] == -1 and np.count_nonzero(base == -1) == 1


def test_numpy_zero_dim_and_zero_size():  # 7, 8, 42
    for a in (np.array(3.5), np.empty((0, 3)), np.empty((4, 0), dtype=np.int8)):
        t = pytensor.from_dlpack(a)
        assert t.shape == a.shape and t.tolist() == a.tolist()
        b = np.from_dlpack(t)
        assert b.shape == a.shape and b.dtype == a.dtype and b.tolist() == a.tolist()
    assert np.from_dlpack(pytensor.tensor(7, dtype=pytensor.int16)).item() == 7


def test_numpy_read_only_import_refuses_writes():  # 12
    a = np.arange(4.0)
    a.flags.writeable = False
    t = pytensor.from_dlpack(a)
    assert t.is_readonly() and t.data_ptr() == a.ctypes.data
    with pytest.raises(ReadOnlyError):
        t[0] = 1.0
    with pytest.raises(ReadOnlyError):
        t[1:][0] = 1.0
    assert a.tolist() == [0.0, 1.0, 2.0, 3.0]
    back = np.from_dlpack(t)  # 43: READ_ONLY travels back
    assert not back.flags.writeable and back.ctypes.data == a.ctypes.data
    with pytest.raises(BufferError):
        t.__dlpack__()  # legacy cannot say read-only


def test_numpy_legacy_export_of_read_only_is_refused_by_numpy():  # 13
    a = np.arange(3.0)
    a.flags.writeable = False

    class LegacyOnly:  # a producer from before max_version, over numpy
        def __dlpack__(self, **kwargs):
            if kwargs:
                raise TypeError("no keywords")
            return a.__dlpack__()

        def __dlpack_device__(self):
            return a.__dlpack_device__()

    with pytest.raises(BufferError, match="readonly"):
        pytensor.from_dlpack(LegacyOnly())
    w = np.arange(3.0)
    legacy = pytensor.from_dlpack(w.__dlpack__())  # writable numpy, legacy capsule: shared and writable
    legacy[0] = 9.0
    assert w[0] == 9.0


def test_numpy_copy_argument():  # 32, 33
    a = np.arange(3.0)
    c = pytensor.from_dlpack(a, copy=True)
    assert c.data_ptr() != a.ctypes.data and c.tolist() == a.tolist()
    c[0] = 7.0
    assert a[0] == 0.0
    s = pytensor.from_dlpack(a, copy=False)
    assert s.data_ptr() == a.ctypes.data
    n = np.from_dlpack(pytensor.arange(3.0), copy=True)
    assert n.flags.writeable
    t = pytensor.arange(3.0)
    assert np.from_dlpack(t, copy=False).ctypes.data == t.data_ptr()
    assert np.from_dlpack(t, copy=True).ctypes.data != t.data_ptr()
    assert np.from_dlpack(t, device="cpu").ctypes.data == t.data_ptr()


def test_numpy_lifetimes(live_baseline):  # 52, 54
    a = np.arange(5.0)
    addr = a.ctypes.data
    t = pytensor.from_dlpack(a)
    del a
    collect()
    assert t.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]  # numpy's array stays alive under our import
    n = np.from_dlpack(t)
    del t
    collect()
    assert n.ctypes.data == addr and n.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    # ours -> numpy -> ours is the same memory
    u = pytensor.arange(4, dtype=pytensor.int64)
    v = pytensor.from_dlpack(np.from_dlpack(u))
    assert v.data_ptr() == u.data_ptr()
    v[3] = 30
    assert u[3].item() == 30
    del n, u, v


def test_asarray_and_as_tensor_share_with_dlpack_producers():
    p = Producer()
    h = Holder(p.capsule((3,), (1,)), p.capsule((3,), (1,)), p.capsule((3,), (1,)))
    for make in (pytensor.asarray, pytensor.as_tensor):
        t = make(h)
        assert t.tolist() == [0.0, 1.0, 2.0] and t.untyped_storage().provenance == "dlpack"
        t[0] = 5.0
        assert pytensor.from_dlpack(t).tolist()[0] == 5.0  # re-export of the same bytes
    cap = pytensor.arange(3.0).__dlpack__()
    t = pytensor.asarray(cap)
    assert t.tolist() == [0.0, 1.0, 2.0]
    del t, h
    collect()
    assert p.calls == 3


# ================================================================ PyTorch

@pytest.fixture
def torch():
    return require_module("torch")


def test_torch_import_shares_and_runs_deleter_once(torch):  # 2
    src = torch.arange(6.0).reshape(2, 3)
    base_count = src._use_count()
    t = pytensor.from_dlpack(src)
    assert t.data_ptr() == src.data_ptr() and t.tolist() == src.tolist()
    assert src._use_count() == base_count + 1  # torch's manager holds the TensorImpl
    t[1, 1] = -4.0
    assert src[1, 1].item() == -4.0 and src[1, 0].item() == 3.0
    src[0, 0] = 8.0
    assert t[0, 0].item() == 8.0
    view = t[1:]
    del t
    collect()
    assert src._use_count() == base_count + 1
    del view
    collect()
    assert src._use_count() == base_count  # the deleter ran, once


@pytest.mark.parametrize("name", TORCH_DTYPES)
def test_torch_every_dtype_both_ways(torch, name):  # 9, 37
    t = sample(name)
    tt = torch.from_dlpack(t)
    assert tt.dtype == getattr(torch, name) and tt.data_ptr() == t.data_ptr()
    assert tt.flatten().tolist() == expected(name)
    back = pytensor.from_dlpack(tt)
    assert back.dtype is getattr(pytensor, name) and back.data_ptr() == t.data_ptr()
    src = torch.ones(3, dtype=getattr(torch, name))
    u = pytensor.from_dlpack(src)
    assert u.dtype is getattr(pytensor, name) and u.data_ptr() == src.data_ptr()
    tt[0, 0] = 1
    assert back[0, 0].item() == (True if name == "bool" else 1)


def test_torch_legacy_capsules_both_ways(torch):
    from torch.utils.dlpack import to_dlpack as torch_to, from_dlpack as torch_from
    from pytensor.utils.dlpack import to_dlpack, from_dlpack
    src = torch.arange(4, dtype=torch.int32)
    t = from_dlpack(torch_to(src))
    assert t.data_ptr() == src.data_ptr() and not t.is_readonly()
    t[0] = 40
    assert src[0].item() == 40
    ours = pytensor.arange(4, dtype=pytensor.int32)
    back = torch_from(to_dlpack(ours))
    assert back.data_ptr() == ours.data_ptr()
    back[1] = 41
    assert ours[1].item() == 41
    cap = torch_to(src)
    pytensor.from_dlpack(cap)
    with pytest.raises(RuntimeError):
        pytensor.from_dlpack(cap)


def test_torch_strides_zero_dim_zero_size(torch):  # 6, 7, 8, 40, 42
    e = torch.arange(3.0).expand(2, 3)
    t = pytensor.from_dlpack(e)
    assert t.stride() == (0, 1) and t.tolist() == e.tolist() and t.data_ptr() == e.data_ptr()
    tr = torch.arange(6.0).reshape(2, 3).t()
    assert pytensor.from_dlpack(tr).tolist() == tr.tolist()
    assert pytensor.from_dlpack(tr).stride() == tr.stride()
    z = pytensor.from_dlpack(torch.tensor(2.5))
    assert z.shape == () and z.item() == 2.5
    empty = torch.empty(0, 3)
    e0 = pytensor.from_dlpack(empty)
    assert e0.shape == (0, 3) and e0.tolist() == []
    base = pytensor.arange(12.0).view(3, 4)
    for ours in (base[1:, 1:3], base.t(), base[:, 2], pytensor.tensor(1.25), pytensor.zeros(0, 3)):
        tt = torch.from_dlpack(ours)
        assert tt.tolist() == ours.tolist() and tuple(tt.shape) == ours.shape
        if ours.numel():
            assert tt.data_ptr() == ours.data_ptr() and tt.stride() == ours.stride()


def test_torch_copy_and_refusals(torch):  # 44, 48
    ours = pytensor.arange(3.0)
    c = torch.from_dlpack(ours, copy=True)
    assert c.data_ptr() != ours.data_ptr() and c.tolist() == [0.0, 1.0, 2.0]
    src = torch.arange(3.0)
    assert pytensor.from_dlpack(src, copy=True).data_ptr() != src.data_ptr()
    assert pytensor.from_dlpack(src, copy=False).data_ptr() == src.data_ptr()
    with pytest.raises(BufferError):
        torch.from_dlpack(pytensor.arange(3.0, requires_grad=True))
    with pytest.raises(BufferError):
        pytensor.from_dlpack(torch.arange(3.0, requires_grad=True))


def test_torch_lifetimes(torch, live_baseline):  # 52, 54
    ours = pytensor.arange(5.0)
    tt = torch.from_dlpack(ours)
    addr = ours.data_ptr()
    del ours
    collect()
    assert pytensor.live_storages() == live_baseline + 1  # torch holds our storage
    assert tt.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0] and tt.data_ptr() == addr
    again = pytensor.from_dlpack(tt)  # ours -> torch -> ours: same memory
    assert again.data_ptr() == addr
    del tt, again
    collect()
    assert pytensor.live_storages() == live_baseline


def test_torch_reads_mmap_after_file_tensor_is_gone(torch, tmp_path):  # 53
    path = tmp_path / "data.bin"
    np.arange(8, dtype=np.float64).tofile(path)
    t = pytensor.from_file(str(path), shared=False, size=8, dtype=pytensor.float64)
    tt = torch.from_dlpack(t)
    assert tt.data_ptr() == t.data_ptr()
    del t
    collect()
    assert tt.tolist() == [float(i) for i in range(8)]


def test_torch_as_tensor_and_asarray_share(torch):
    src = torch.arange(4.0)
    for t in (pytensor.as_tensor(src), pytensor.asarray(src)):
        assert t.data_ptr() == src.data_ptr()
        t[0] = -1.0
        assert src[0].item() == -1.0
    assert pytensor.asarray(src, copy=True).data_ptr() != src.data_ptr()


def test_torch_negative_strides_in_subprocess(torch, tmp_path):  # 41, 18
    # torch 2.13 aborts the process on negative strides; newer torch raises.
    # Either is acceptable; silently wrong values are not.
    script = textwrap.dedent("""
        import numpy as np, torch, pytensor
        t = pytensor.from_dlpack(np.arange(6.0)[::-1])
        print("strides", t.stride(), flush=True)
        try:
            tt = torch.from_dlpack(t)
        except (RuntimeError, BufferError, ValueError) as e:
            print("raised", type(e).__name__, flush=True)
        else:
            print("values", tt.tolist(), flush=True)
    """)
    res = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                         cwd=tmp_path)
    lines = res.stdout.splitlines()
    assert lines and lines[0] == "strides (-1,)", res.stdout + res.stderr
    if res.returncode == 0:
        assert lines[1].startswith("raised") or lines[1] == "values [5.0, 4.0, 3.0, 2.0, 1.0, 0.0]", res.stdout
    else:
        assert len(lines) == 1  # crashed inside torch.from_dlpack, after our export


# ================================================================ JAX (CPU)

@pytest.fixture
def jax():
    jax = require_module("jax")
    jax.config.update("jax_platforms", "cpu")
    return jax


def test_jax_import_shares_memory(jax):  # 3
    jnp = jax.numpy
    j = jnp.arange(12.0, dtype=jnp.float32).reshape(3, 4)
    t = pytensor.from_dlpack(j)
    assert t.tolist() == j.tolist() and t.data_ptr() == j.unsafe_buffer_pointer()
    assert t.dtype is pytensor.float32
    assert int(t.__dlpack_device__()[0]) == 1


@pytest.mark.parametrize("name", ["bool", "uint8", "int8", "int16", "int32", "uint32", "float16", "bfloat16",
                                  "float32", "complex64"])
def test_jax_dtypes_both_ways(jax, name):
    jnp = jax.numpy
    t = sample(name, (4, 4))
    j = jnp.from_dlpack(t)
    assert j.dtype == jnp.dtype(name) and j.shape == (4, 4)
    assert np.asarray(j).ravel().tolist() == expected(name, (4, 4))
    assert j.unsafe_buffer_pointer() == t.data_ptr()  # 64-byte aligned storage: XLA takes it as is
    src = jnp.ones((3,), dtype=jnp.dtype(name))
    back = pytensor.from_dlpack(src)
    assert back.dtype is getattr(pytensor, name) and back.data_ptr() == src.unsafe_buffer_pointer()


def test_jax_strided_exports_read_correctly(jax):  # jax#4196: strides must be honoured
    jnp = jax.numpy
    base = pytensor.arange(12, dtype=pytensor.float32).view(3, 4)
    for ours in (base.t(), base[1:], base[:, :0], pytensor.tensor(2.0, dtype=pytensor.float32)):
        j = jnp.from_dlpack(ours)
        assert np.asarray(j).tolist() == ours.tolist()
    # XLA takes only permutations of compact strides; a gapped view is refused, never misread.
    with pytest.raises(Exception, match="strid"):
        jnp.from_dlpack(base[:, 1:3])
    assert np.asarray(jnp.from_dlpack(base[:, 1:3].contiguous())).tolist() == base[:, 1:3].tolist()


def test_jax_as_tensor_and_asarray_share(jax):
    jnp = jax.numpy
    j = jnp.arange(5, dtype=jnp.int32)
    assert pytensor.as_tensor(j).data_ptr() == j.unsafe_buffer_pointer()
    assert pytensor.asarray(j).data_ptr() == j.unsafe_buffer_pointer()
    ours = pytensor.arange(4, dtype=pytensor.int32)
    j2 = jnp.from_dlpack(ours)
    back = pytensor.from_dlpack(j2)  # ours -> jax -> ours
    assert back.data_ptr() == ours.data_ptr()
