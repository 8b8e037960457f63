"""pickle (every protocol), copy.copy and copy.deepcopy of tensors and storages.

What is checked: fields and bytes round-trip for every dtype and layout; views pickled together come back as
views of one storage (pickle's memo on the storage object); protocol 5 with a buffer_callback sends each storage
once, out of band, aliasing its memory; the rebuilt tensor is read-only exactly when its buffer is; autograd
leaves only; hostile pickles raise clear errors in a child process that must not die.
"""
import copy
import gc
import pickle
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import numpy as np
import pytest

import pytensor
from pytensor.errors import DeviceError
from dlpack_producer import Producer, wrap

PROTOCOLS = range(pickle.HIGHEST_PROTOCOL + 1)
TESTS = str(Path(__file__).resolve().parents[1])


def storage_bytes(t):
    return bytes(t.untyped_storage())


def same_fields(a, b):
    return (a.dtype, a.shape, a.stride(), a.storage_offset(), a.requires_grad) == \
        (b.dtype, b.shape, b.stride(), b.storage_offset(), b.requires_grad)


def cases():
    """(name, tensor): every dtype, then the layouts a pickle must keep."""
    out = []
    for d in pytensor.dtypes.ALL:
        t = pytensor.empty(2, 3, dtype=d)
        t.view(pytensor.uint8).copy_(pytensor.arange(6 * d.itemsize, dtype=pytensor.uint8).view(2, -1))
        out.append((d.name, t))
    base = pytensor.arange(24, dtype=pytensor.float32).view(2, 3, 4)
    out += [
        ("transposed", base.permute(2, 1, 0)),
        ("stepped-offset", base[1, ::2, 1:]),
        ("expanded", base[0, 0, :1].expand(3, 2)),
        ("0-d", base[1, 2, 3]),
        ("zero-size", base[:, 3:]),
        ("empty-storage", pytensor.zeros(0, 5)),
        ("negative-stride", pytensor.from_dlpack(np.arange(7, dtype=np.int32)[::-3])),
        ("read-only", pytensor.frombuffer(b"\x01\x02\x03\x04\x05\x06", dtype=pytensor.int16)[1:]),
        ("requires-grad leaf", pytensor.ones(3, requires_grad=True)),
    ]
    return out


CASES = cases()


def test_cases_cover_what_they_claim():
    t = dict(CASES)
    assert {d.name for d in pytensor.dtypes.LOW_PRECISION} <= set(t) and "bfloat16" in t
    assert t["negative-stride"].stride()[0] < 0 and t["expanded"].stride()[0] == 0
    assert t["zero-size"].numel() == 0 and t["empty-storage"].untyped_storage().nbytes() == 0
    assert t["read-only"].is_readonly() and t["requires-grad leaf"].requires_grad and t["0-d"].dim() == 0


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("name,t", CASES, ids=[n for n, _ in CASES])
def test_round_trip_keeps_fields_bytes_and_read_only(name, t, protocol):
    back = pickle.loads(pickle.dumps(t, protocol=protocol))
    assert type(back) is pytensor.Tensor and same_fields(back, t)
    assert storage_bytes(back) == storage_bytes(t) and back.is_readonly() == t.is_readonly()
    assert back.is_leaf and back.untyped_storage() is not t.untyped_storage()


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_views_of_one_storage_come_back_as_views_of_one_storage(protocol):
    x = pytensor.arange(12, dtype=pytensor.int32).view(3, 4)
    a, b, c = pickle.loads(pickle.dumps([x, x[1:], x.T], protocol=protocol))
    assert b.untyped_storage() is a.untyped_storage() is c.untyped_storage()
    assert (b.storage_offset(), c.stride()) == (4, (1, 4))
    a[1, 0] = -7  # one write, seen through every alias
    assert b[0, 0].item() == -7 and c[0, 1].item() == -7
    alone = len(pickle.dumps(x, protocol=protocol))
    assert len(pickle.dumps([x, x[1:], x.T], protocol=protocol)) < alone + 200  # the bytes travel once


def test_torch_sends_a_storage_once_per_view_and_pytensor_once(torch):
    """The README's comparison, measured: torch 2.13 pickles [x, x[1:]] with two copies of the storage and
    unpickles two unrelated storages (pytorch#145665); pytensor sends it once and keeps the views together."""
    for lib, copies, shared in ((torch, 2, False), (pytensor, 1, True)):
        x = lib.arange(10_000, dtype=lib.float32)
        size = len(pickle.dumps([x, x[1:]], protocol=4))
        assert copies * 40_000 < size < copies * 40_000 + 2_000, (lib.__name__, size)
        p, q = pickle.loads(pickle.dumps([x, x[1:]], protocol=4))
        assert (p.untyped_storage().data_ptr() == q.untyped_storage().data_ptr()) == shared


def test_a_view_sends_its_whole_storage():
    """The storage travels whole (once for all its views): .clone() sends only a view's elements."""
    x = pytensor.zeros(10_000, dtype=pytensor.uint8)
    assert len(pickle.dumps(x[:2], protocol=4)) > 10_000
    assert len(pickle.dumps(x[:2].clone(), protocol=4)) < 1_000


def test_protocol_5_sends_one_out_of_band_buffer_aliasing_a_1_gib_storage():
    x = pytensor.empty(1 << 28, dtype=pytensor.float32)  # 1 GiB, never touched: no page is allocated
    bufs = []
    data = pickle.dumps([x, x[1:], x[::2]], protocol=5, buffer_callback=bufs.append)
    assert len(data) < 1024 and len(bufs) == 1
    with bufs[0].raw() as raw:
        assert raw.nbytes == 1 << 30 and not raw.readonly
        assert np.frombuffer(raw, np.uint8).__array_interface__["data"][0] == x.data_ptr()
    a, b, c = pickle.loads(data, buffers=bufs)
    assert a.data_ptr() == x.data_ptr() and b.data_ptr() == x.data_ptr() + 4  # the same bytes, no copy
    assert a.untyped_storage() is b.untyped_storage() is c.untyped_storage() and c.stride() == (2,)
    assert not a.is_readonly() and a.untyped_storage().provenance == "buffer"
    a[5] = 3.0
    assert x[5].item() == 3.0
    del a, b, c, bufs
    gc.collect()
    assert x.untyped_storage()._exports == 0


def vm_flags(addr):
    """The VmFlags of the mapping holding ``addr`` (/proc/self/smaps), where the kernel records madvise's advice:
    "hg" for MADV_HUGEPAGE, "nh" for MADV_NOHUGEPAGE."""
    inside = False
    with open("/proc/self/smaps") as f:
        for line in f:
            head = line.split()[0]
            if "-" in head and not head.endswith(":"):
                lo, hi = (int(v, 16) for v in head.split("-"))
                inside = lo <= addr < hi
            elif inside and head == "VmFlags:":
                return line.split()[1:]
    raise AssertionError(f"no mapping holds 0x{addr:x}")


THP = Path("/sys/kernel/mm/transparent_hugepage/enabled").exists()  # else no mapping can carry the advice


@pytest.mark.parametrize("protocol", [2, 3, 4])
def test_in_band_bytes_are_rebuilt_into_memory_without_the_huge_page_advice(protocol):
    """Memory that one copy fills whole at once (the in-band bytes of protocols 0-4, copy.copy of a storage) is
    not advised to use huge pages (libtensor.h, lt_storage_new_copy: at 1 GiB the advice made this load 1.86x
    torch's), while a factory's memory is; read from the kernel's record of each mapping, whatever the timing."""
    n = 6 << 20  # above 2 MiB, where a storage is a mapping of its own
    x = pytensor.arange(n // 4, dtype=pytensor.float32)
    made = pytensor.empty(n // 4)
    y = pickle.loads(pickle.dumps(x, protocol=protocol))
    c = copy.copy(x.untyped_storage())
    assert bytes(y.untyped_storage()) == bytes(c) == bytes(x.untyped_storage())
    assert y.untyped_storage().provenance == c.provenance == "owned" and not y.is_readonly()
    assert "hg" not in vm_flags(y.data_ptr()) and "hg" not in vm_flags(c.data_ptr())
    assert ("hg" in vm_flags(made.data_ptr())) == THP and ("hg" in vm_flags(x.data_ptr())) == THP
    del y, c, made
    gc.collect()
    y = pickle.loads(pickle.dumps(x, protocol=protocol))  # may reuse a freed block: it loses the advice
    assert "hg" not in vm_flags(y.data_ptr()) and bytes(y.untyped_storage()) == bytes(x.untyped_storage())


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_storage_pickles_on_its_own(protocol):
    s = pytensor.arange(5, dtype=pytensor.int16).untyped_storage()
    back = pickle.loads(pickle.dumps(s, protocol=protocol))
    assert type(back) is pytensor.UntypedStorage and bytes(back) == bytes(s) and not back.is_readonly()


def test_read_only_exactly_when_the_buffer_is():
    w = pytensor.arange(4, dtype=pytensor.int32)
    ro = pytensor.frombuffer(bytes(16), dtype=pytensor.int32)
    for src in (w, ro):
        bufs = []
        data = pickle.dumps(src, protocol=5, buffer_callback=bufs.append)
        raw = bytes(bufs[0].raw())
        assert pickle.loads(data, buffers=[raw]).is_readonly()  # bytes: read-only
        # A writable buffer gives a writable tensor, unless the pickle says the source was read-only
        # (pickle's READONLY_BUFFER opcode wraps the buffer read-only).
        assert pickle.loads(data, buffers=[bytearray(raw)]).is_readonly() == src.is_readonly()
        assert pickle.loads(data, buffers=[memoryview(raw)]).is_readonly()
        for protocol in PROTOCOLS:  # in-band: the bytes arrive writable exactly when the source was
            assert pickle.loads(pickle.dumps(src, protocol=protocol)).is_readonly() == src.is_readonly()


def test_requires_grad_round_trips_for_leaves_only():
    leaf = pytensor.ones(3, requires_grad=True)
    for protocol in PROTOCOLS:
        back = pickle.loads(pickle.dumps(leaf, protocol=protocol))
        assert back.requires_grad and back.is_leaf and back.grad is None
    y = leaf * 2
    with pytest.raises(RuntimeError, match="not a graph leaf"):
        pickle.dumps(y)
    with pytest.raises(RuntimeError, match="not a graph leaf"):
        copy.deepcopy(y)
    assert pickle.loads(pickle.dumps(y.detach())).tolist() == [2.0, 2.0, 2.0]


def test_device_tensors_are_refused():
    m = Producer().managed((2, 3), (3, 1))
    m.dl_tensor.device.device_type = 2  # CUDA: metadata only
    t = pytensor.from_dlpack(wrap(m, True))
    for obj in (t, t.untyped_storage()):
        with pytest.raises(DeviceError):
            pickle.dumps(obj)
        with pytest.raises(DeviceError):
            copy.deepcopy(obj)


# ---------------------------------------------------------------- copy and deepcopy

def test_copy_shares_the_storage():
    x = pytensor.arange(6.0).view(2, 3).T
    y = copy.copy(x)
    assert y is not x and same_fields(y, x) and y.untyped_storage() is x.untyped_storage()
    y[0, 0] = 9.0
    assert x[0, 0].item() == 9.0


def test_deepcopy_copies_once_per_storage_and_keeps_views():
    x = pytensor.arange(12.0).view(3, 4)
    x.grad = pytensor.ones(3, 4)
    a, b, c = copy.deepcopy([x, x[1:], x.T])
    assert a.untyped_storage() is b.untyped_storage() is c.untyped_storage() is not x.untyped_storage()
    assert same_fields(b, x[1:]) and same_fields(c, x.T) and a.tolist() == x.tolist()
    assert a.grad.tolist() == x.grad.tolist() and a.grad.data_ptr() != x.grad.data_ptr()
    a[0, 0] = 5.0
    assert x[0, 0].item() == 0.0 and c[0, 0].item() == 5.0


def test_deepcopy_of_read_only_memory_is_new_writable_memory():
    ro = pytensor.frombuffer(b"\x01\x02\x03\x04", dtype=pytensor.uint8)
    d = copy.deepcopy(ro)
    assert not d.is_readonly() and d.tolist() == [1, 2, 3, 4]
    d[0] = 0
    assert ro[0].item() == 1


def test_copy_semantics_match_torch(torch):
    """copy.copy of a tensor shares; of a storage copies; requires_grad kept, grad and history dropped; deepcopy
    keeps grad and refuses non-leaves (torch's behaviour, checked side by side)."""
    results = []
    for lib in (torch, pytensor):
        x = lib.ones(3, requires_grad=True)
        x.grad = lib.ones(3)
        y = x * 2
        c, s = copy.copy(x), x.untyped_storage()
        cy = copy.copy(y)
        results.append((c.data_ptr() == x.data_ptr(), c.requires_grad, c.grad is None,
                        copy.copy(s).data_ptr() == s.data_ptr(), cy.requires_grad, cy.grad_fn is None,
                        copy.deepcopy(x).grad is not None))
        with pytest.raises(RuntimeError):
            copy.deepcopy(y)
    assert results[0] == results[1] == (True, True, True, False, True, True, True)


# ---------------------------------------------------------------- hostile pickles (in a child process)

HOSTILE = """
    import pickle
    import pytensor
    from pytensor._tensor_pickle import _rebuild_tensor
    from pytensor._storage import _rebuild_storage

    class Call:
        def __init__(self, fn, *args): self.fn, self.args = fn, args
        def __reduce__(self): return self.fn, self.args

    def storage(n, data=None):
        return Call(_rebuild_storage, bytes(n) if data is None else data, True)

    def tensor(st, dtype="float32", shape=(2,), strides=(1,), offset=0, grad=False):
        return Call(_rebuild_tensor, st, dtype, shape, strides, offset, grad)

    CASES = {
        "past the end": tensor(storage(8), shape=(3,)),
        "offset past the end": tensor(storage(8), offset=2),
        "huge offset": tensor(storage(8), offset=2**62),
        "offset past int64": tensor(storage(8), offset=2**64),
        "negative offset": tensor(storage(8), offset=-1),
        "negative stride out of range": tensor(storage(12), shape=(3,), strides=(-1,), offset=1),
        "negative size": tensor(storage(8), shape=(-2,)),
        "overflowing sizes": tensor(storage(8), shape=(2**40, 2**40), strides=(1, 1)),
        "stride past int64": tensor(storage(8), strides=(2**70,)),
        "lengths differ": tensor(storage(8), shape=(2, 1), strides=(1,)),
        "65 dimensions": tensor(storage(8), shape=(1,) * 65, strides=(1,) * 65),
        "bad dtype name": tensor(storage(8), dtype="float128"),
        "dtype not a name": tensor(storage(8), dtype=7),
        "storage not a storage": tensor(b"12345678"),
        "shape not a tuple": tensor(storage(8), shape="ab"),
        "shape of floats": tensor(storage(8), shape=(2.0,)),
        "offset not an int": tensor(storage(8), offset=1.5),
        "grad on int dtype": tensor(storage(8), dtype="int32", grad=True),
        "grad not a bool": tensor(storage(8), grad="yes"),
        "buffer not a buffer": tensor(Call(_rebuild_storage, 12345, False)),
        "copy flag not a bool": tensor(Call(_rebuild_storage, bytes(8), "yes")),
        "in range (accepted)": tensor(storage(12), shape=(3,), strides=(-1,), offset=2),
    }
    for name, obj in CASES.items():
        data = pickle.dumps(obj, protocol=5)
        try:
            t = pickle.loads(data)
            print(name.replace(" ", "_"), "ok", t.stride())
        except Exception as e:
            assert str(e), name  # every refusal says why
            print(name.replace(" ", "_"), type(e).__name__)
    # Truncated pickles and a missing out-of-band buffer
    good = pickle.dumps(pytensor.arange(4), protocol=4)
    for cut in (1, 10, len(good) // 2, len(good) - 1):
        try:
            pickle.loads(good[:cut])
        except Exception as e:
            print("truncated", type(e).__name__ in ("UnpicklingError", "EOFError", "ValueError"))
    bufs = []
    oob = pickle.dumps(pytensor.arange(4), protocol=5, buffer_callback=bufs.append)
    try:
        pickle.loads(oob, buffers=[])
    except Exception as e:
        print("missing_buffer", type(e).__name__)
"""

EXPECTED = """
    past_the_end LayoutError
    offset_past_the_end LayoutError
    huge_offset LayoutError
    offset_past_int64 TypeError
    negative_offset LayoutError
    negative_stride_out_of_range LayoutError
    negative_size LibtensorError
    overflowing_sizes LayoutError
    stride_past_int64 TypeError
    lengths_differ RuntimeError
    65_dimensions LibtensorError
    bad_dtype_name TypeError
    dtype_not_a_name TypeError
    storage_not_a_storage TypeError
    shape_not_a_tuple TypeError
    shape_of_floats TypeError
    offset_not_an_int TypeError
    grad_on_int_dtype RuntimeError
    grad_not_a_bool TypeError
    buffer_not_a_buffer TypeError
    copy_flag_not_a_bool TypeError
    in_range_(accepted) ok (-1,)
    truncated True
    truncated True
    truncated True
    truncated True
    missing_buffer UnpicklingError
"""


def run_child(code):
    script = f"import sys; sys.path.insert(0, {TESTS!r})\n" + textwrap.dedent(code)
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                          cwd=tempfile.gettempdir())


def test_hostile_pickles_raise_clear_errors_and_never_crash():
    res = run_child(HOSTILE)
    assert res.returncode == 0, f"child died with {res.returncode}: {res.stderr[-3000:]}"
    assert res.stdout.splitlines() == textwrap.dedent(EXPECTED).strip().splitlines(), res.stdout + res.stderr


FUZZ = """
    import pickle, random
    import pytensor
    rng = random.Random(2026)
    x = pytensor.arange(24, dtype=pytensor.float32).view(2, 3, 4)
    sources = [pickle.dumps([x, x[1:], x.permute(2, 0, 1)], protocol=p) for p in (2, 4, 5)]
    loaded = refused = 0
    for i in range(600):
        data = bytearray(rng.choice(sources))
        for _ in range(rng.randint(1, 3)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        try:
            out = pickle.loads(bytes(data))
            for t in out if isinstance(out, list) else [out]:
                if isinstance(t, pytensor.Tensor):
                    t.tolist()  # every view that loads can be read in full
            loaded += 1
        except Exception:
            refused += 1
    print(loaded > 20, refused > 20, loaded + refused)
"""


def test_corrupted_pickles_never_crash():
    res = run_child(FUZZ)
    assert res.returncode == 0, f"child died with {res.returncode}: {res.stderr[-3000:]}"
    assert res.stdout.split() == ["True", "True", "600"], res.stdout + res.stderr
