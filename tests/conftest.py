"""Shared fixtures and the CI rule: a test that needs torch, a compiler or a
browser skips on a developer machine that lacks it, but FAILS when the CI
environment variable is set, so CI can never pass by skipping."""
import gc
import sys

import pytest

from support import IN_CI, require_module, require_program  # noqa: F401


@pytest.fixture
def torch():
    return require_module("torch")


@pytest.fixture
def np():
    return require_module("numpy")


@pytest.fixture
def live_baseline():
    """Asserts that libtensor's live-storage count returns to where it started."""
    import pytensor
    gc.collect()
    before = pytensor.live_storages()
    yield before
    gc.collect()
    assert pytensor.live_storages() == before, "a storage leaked"


def refcount(obj):
    return sys.getrefcount(obj)
