"""Ray and Dask, on real local clusters the tests start (no mocks): tensors travel by pickle protocol 5.

Neither needs pytensor-specific code: pytensor's storages pickle as one out-of-band PickleBuffer, Ray keeps it
in its shared-memory object store and hands back a read-only buffer over it, Dask sends it as a frame and keeps
the writeable flag (README, "Between processes").
"""
import os
import warnings

import pytest

import pytensor
from pytensor.errors import ReadOnlyError
from support import require_module


def mapping_of(address):
    """(path, permissions) of this process's mapping that holds address, from /proc/self/maps."""
    with open("/proc/self/maps") as maps:
        for line in maps:
            fields = line.split()
            lo, hi = (int(v, 16) for v in fields[0].split("-"))
            if lo <= address < hi:
                return (fields[5] if len(fields) > 5 else ""), fields[1]
    return None


# ---------------------------------------------------------------- Ray

@pytest.fixture(scope="module")
def ray(tmp_path_factory):
    ray = require_module("ray")
    options = dict(num_cpus=1, include_dashboard=False, object_store_memory=256 << 20, log_to_driver=False)
    # Ray puts the driver's current folder first on its workers' sys.path; from the repository root that is
    # the source folder pytensor/, which has no compiled module. Start Ray from a folder of its own, as a
    # user's script runs from theirs.
    here = os.getcwd()
    os.chdir(tmp_path_factory.mktemp("ray"))
    try:
        # Ray gives its raylet and GCS fixed budgets to start (30 s for the raylet, ray/_private/node.py),
        # which a loaded machine can miss; each new start is a real chance, and the third failure fails.
        for attempt in range(3):
            try:
                ray.init(**options)
                break
            except Exception:  # noqa: BLE001
                ray.shutdown()
                if attempt == 2:
                    raise
    finally:
        os.chdir(here)
    yield ray
    ray.shutdown()


def test_ray_get_is_a_read_only_tensor_over_the_object_store(ray):
    x = pytensor.arange(1 << 18, dtype=pytensor.float32)  # 1 MiB: past Ray's inline limit, so in the store
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ref = ray.put(x)
        a, b = ray.get(ref), ray.get(ref)
    assert not [str(w.message) for w in caught]
    assert type(a) is pytensor.Tensor and (a.dtype, a.shape) == (x.dtype, x.shape) and bytes(a) == bytes(x)
    # No copy: two gets are two tensors over one buffer, a shared mapping of Ray's object store (plasma).
    assert a.data_ptr() == b.data_ptr() != x.data_ptr()
    path, perms = mapping_of(a.data_ptr())
    assert "plasma" in path and perms[3] == "s", (path, perms)
    assert a.is_readonly() and a.untyped_storage().provenance == "buffer"
    with pytest.raises(ReadOnlyError):
        a[0] = 1.0  # the store's memory is immutable: the tensor says so instead of corrupting it


def test_ray_keeps_views_of_one_storage_together(ray):
    x = pytensor.arange(1 << 18, dtype=pytensor.int32).view(512, 512)
    a, b, c = ray.get(ray.put([x, x[1:], x.T]))
    assert a.untyped_storage() is b.untyped_storage() is c.untyped_storage()
    assert b.data_ptr() == a.data_ptr() + 512 * 4 and c.stride() == (1, 512) and c[3, 2].item() == x[2, 3].item()


def test_a_ray_task_receives_its_tensor_argument_the_same_way(ray):
    def probe(t):
        import pytensor  # noqa: F401  (the worker unpickles with it)
        address = t.data_ptr()
        with open("/proc/self/maps") as maps:
            where = [ln.split() for ln in maps
                     if int(ln.split()[0].split("-")[0], 16) <= address < int(ln.split()[0].split("-")[1], 16)]
        return type(t).__name__, t.is_readonly(), where[0][1], where[0][5] if len(where[0]) > 5 else "", \
            t[::1000].tolist()

    task = ray.remote(probe)
    x = pytensor.arange(1 << 18, dtype=pytensor.float32)
    for arg in (x, ray.put(x)):
        name, readonly, perms, path, sample = ray.get(task.remote(arg))
        assert (name, readonly) == ("Tensor", True)
        assert "plasma" in path and perms[3] == "s", (path, perms)
        assert sample == x[::1000].tolist()


# ---------------------------------------------------------------- Dask

@pytest.fixture(scope="module")
def dask_client():
    distributed = require_module("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        yield client


def test_dask_serializes_the_storage_as_a_zero_copy_frame():
    protocol = require_module("distributed.protocol")
    for t in (pytensor.arange(1 << 16, dtype=pytensor.float32)[1:],
              pytensor.frombuffer(bytes(64), dtype=pytensor.float32)):
        header, frames = protocol.serialize(t)
        assert header["serializer"] == "pickle" and len(frames) == 2
        frame = pytensor.frombuffer(frames[1], dtype=pytensor.uint8)
        assert frame.data_ptr() == t.untyped_storage().data_ptr()  # the frame is the storage's own memory
        assert header["writeable"] == (not t.is_readonly(),)
        back = protocol.deserialize(header, frames)
        assert back.data_ptr() == t.data_ptr() and back.is_readonly() == t.is_readonly()


def test_dask_cluster_round_trip_keeps_bytes_views_and_the_writeable_flag(dask_client):
    def probe(items):
        s = items[0].untyped_storage()
        return [t.is_readonly() for t in items], all(t.untyped_storage() is s for t in items), s.provenance, \
            [t.sum().item() for t in items]

    def double(t):
        return t * 2

    x = pytensor.arange(1 << 16, dtype=pytensor.float32)
    ro = pytensor.frombuffer(bytes(range(64)), dtype=pytensor.float32)
    for t in (x, ro):
        flags, one_storage, provenance, sums = dask_client.submit(probe, [t, t[1:], t[::2]]).result()
        assert flags == [t.is_readonly()] * 3 and one_storage
        assert provenance == "buffer"  # the worker's tensors wrap the frame it received: pytensor copied nothing
        assert sums == [t.sum().item(), t[1:].sum().item(), t[::2].sum().item()]
        back = dask_client.gather(dask_client.scatter(t))
        assert type(back) is pytensor.Tensor and back.is_readonly() == t.is_readonly() and bytes(back) == bytes(t)
    doubled = dask_client.submit(double, x).result()
    assert not doubled.is_readonly() and doubled.tolist()[:3] == [0.0, 2.0, 4.0]
