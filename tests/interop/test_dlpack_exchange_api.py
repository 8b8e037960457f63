"""pytensor publishes DLPack 1.3's C exchange API: a C consumer (tests/c/exchange_consumer.c) finds the
capsule on the Tensor type and exports, imports and allocates tensors without a Python call."""
import gc

import numpy as np
import pytest

import pytensor
from exchange_consumer import build


@pytest.fixture(scope="module")
def consumer(tmp_path_factory):
    return build(tmp_path_factory.mktemp("consumer"))


LAYOUTS = {
    "row-major": lambda: pytensor.arange(12.0).view(3, 4),
    "transposed": lambda: pytensor.arange(12.0).view(3, 4).T,
    "negative stride": lambda: pytensor.from_dlpack(np.arange(10, dtype=np.int16)[::-2]),
    "offset": lambda: pytensor.arange(10, dtype=pytensor.int32)[3:7],
    "0-d": lambda: pytensor.tensor(2.5),
    "empty": lambda: pytensor.empty(0, 3),
    "expanded": lambda: pytensor.arange(3.0)[:1].expand(4),
    "float8": lambda: pytensor.ones(3).to(pytensor.float8_e4m3fn),
    "read-only": lambda: pytensor.frombuffer(b"abcdefgh", dtype=pytensor.uint8),
}


def test_the_table_is_on_the_type(consumer):
    cap = pytensor.Tensor.__dict__["__dlpack_c_exchange_api__"]
    assert type(cap).__name__ == "PyCapsule"
    info = consumer.api_info(pytensor.Tensor)
    assert info["version"] == (1, 3) and info["prev_api_null"]
    # allocator, owning export, owning import, borrowed export (NULL: documented), stream
    assert info["present"] == (True, True, True, False, True)


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_the_export_is_what_dlpack_gives(consumer, layout):
    t = LAYOUTS[layout]()
    got = consumer.export_fields(t)
    want = consumer.capsule_fields(t.__dlpack__(max_version=(1, 3)))
    assert got == want
    assert got["version"] == (1, 3) and got["ndim"] == t.dim()
    if t.numel():
        assert got["data"] + got["byte_offset"] == t.data_ptr()
    assert got["strides"] == list(t.stride())
    assert bool(got["flags"] & 1) == (layout == "read-only")   # DLPACK_FLAG_BITMASK_READ_ONLY


def test_exports_are_refused_as_dlpack_refuses_them(consumer):
    with pytest.raises(BufferError, match="require gradient"):
        consumer.export_fields(pytensor.ones(2, requires_grad=True))

    class NotATensor:
        __dlpack_c_exchange_api__ = pytensor.Tensor.__dlpack_c_exchange_api__
    with pytest.raises(BufferError, match="exports pytensor Tensors"):
        consumer.export_fields(NotATensor())


def test_round_trip_shares_and_frees_exactly_once(consumer):
    t = pytensor.arange(6.0).view(2, 3)[:, 1:]
    st = t.untyped_storage()
    base = st.refcount
    u = consumer.roundtrip(t)
    assert isinstance(u, pytensor.Tensor) and u.data_ptr() == t.data_ptr()
    assert u.shape == t.shape and u.stride() == t.stride() and u.tolist() == t.tolist()
    assert st.refcount > base          # the import holds the export, which holds the storage
    del u
    gc.collect()
    assert st.refcount == base          # the deleter ran, once
    with pytest.raises(BufferError, match="NULL"):
        consumer.to_py_null(pytensor.Tensor)


def test_torch_exports_into_pytensor_through_both_tables(consumer, torch):
    src = torch.arange(12, dtype=torch.float32).view(3, 4).t()
    t = consumer.cross(src, pytensor.Tensor)
    assert isinstance(t, pytensor.Tensor) and t.data_ptr() == src.data_ptr() and t.stride() == src.stride()
    assert t.tolist() == src.tolist()
    back = consumer.cross(t, torch.Tensor)
    assert isinstance(back, torch.Tensor) and back.data_ptr() == src.data_ptr()


def test_the_allocator_makes_zeroed_row_major_host_tensors(consumer):
    t = consumer.alloc(pytensor.Tensor, (2, 3), (2, 32, 1), 1)         # kDLFloat, 32 bits, kDLCPU
    assert t.dtype is pytensor.float32 and t.shape == (2, 3) and t.stride() == (3, 1)
    assert t.tolist() == [[0.0] * 3] * 2
    t[1, 2] = 5.0                                                        # its own, writable memory
    assert consumer.alloc(pytensor.Tensor, (), (10, 8, 1), 1).dtype is pytensor.float8_e4m3fn
    with pytest.raises(RuntimeError, match="BufferError: pytensor allocates host memory only"):
        consumer.alloc(pytensor.Tensor, (2,), (2, 32, 1), 2)             # kDLCUDA
    with pytest.raises(RuntimeError, match="RuntimeError: DLPack dtype \\(code 99"):
        consumer.alloc(pytensor.Tensor, (2,), (99, 32, 1), 1)
    with pytest.raises(RuntimeError, match="RuntimeError: shape\\[1\\] is -2"):
        consumer.alloc(pytensor.Tensor, (2, -2), (2, 32, 1), 1)


@pytest.mark.parametrize("shape, code, bits, why", [
    ((2**62,), 2, 64, "4611686018427387904 elements of 8 bytes exceed int64 bytes"),    # numel fits, bytes do not
    ((2**61, 2), 2, 32, "4611686018427387904 elements of 4 bytes exceed int64 bytes"),
    ((2**62, 2**62, 0), 0, 8, "the product of the sizes leaves int64"),                  # a 0 excuses nothing
])
def test_the_allocator_names_an_overflowing_size_in_a_fresh_message(consumer, torch, shape, code, bits, why):
    # A refusal just before leaves its message behind; the overflow must write its own, not reuse that one.
    with pytest.raises(RuntimeError, match="DLPack dtype \\(code 99"):
        consumer.alloc(pytensor.Tensor, (2,), (99, 32, 1), 1)
    with pytest.raises(RuntimeError) as info:
        consumer.alloc(pytensor.Tensor, shape, (code, bits, 1), 1)
    sizes = ", ".join(map(str, shape))
    assert str(info.value) == f"RuntimeError: Storage size calculation overflowed with sizes=[{sizes}]: {why}"
    with pytest.raises(RuntimeError, match="overflowed"):                # torch refuses each, too
        torch.empty(shape, dtype={8: torch.int8, 32: torch.float32, 64: torch.float64}[bits])


def test_the_cpu_stream_is_null(consumer):
    assert consumer.stream(pytensor.Tensor) == (0, True)


def test_pytensor_imports_its_own_tensors_through_the_table():
    t = pytensor.arange(4.0)
    u = pytensor.from_dlpack(t)
    assert u is not t and u.data_ptr() == t.data_ptr()
    assert pytensor.provenance(u)[0].text == "from_dlpack(pytensor.Tensor)"
