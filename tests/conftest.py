"""Shared fixtures and the CI rule: a test that needs torch, a compiler or a
browser skips on a developer machine that lacks it, but FAILS when the CI
environment variable is set, so CI can never pass by skipping."""
import gc
import inspect
import os
import sys

import pytest

from browser_support import CHROMIUM_STARTERS
from support import IN_CI, require_module, require_program  # noqa: F401


@pytest.fixture
def torch():
    return require_module("torch")


@pytest.fixture
def np():
    return require_module("numpy")


@pytest.fixture(autouse=True)
def _fd_server_settled():
    """Lets pytensor.multiprocessing's descriptor server drop, before each test, the regions whose messages
    were all received. Its thread does so once a second on its own, and when that lands inside a later test
    the live-storage count that test reads changes under it (seen after a pickling test)."""
    fd = sys.modules.get("pytensor.multiprocessing._fd_server")
    server = getattr(fd, "_server", None)
    if server is not None:
        with server.lock:
            server._sweep()
    yield


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


def _starts_chromium(fn, depth=2):
    """Whether ``fn`` names one of CHROMIUM_STARTERS, itself or through a function of its module it calls
    (a test's helper that opens the page), up to ``depth`` calls down."""
    code = getattr(fn, "__code__", None)
    if code is None:
        return False
    if CHROMIUM_STARTERS & set(code.co_names):
        return True
    if depth == 0:
        return False
    module_globals = getattr(fn, "__globals__", {})
    helpers = (module_globals.get(name) for name in code.co_names)
    return any(_starts_chromium(inspect.unwrap(h), depth - 1) for h in helpers if inspect.isfunction(h))


def _launches_chromium(item):
    """Whether the test, or a fixture it uses, starts Chromium (``_starts_chromium``)."""
    if _starts_chromium(getattr(item, "function", None)):
        return True
    defs = getattr(getattr(item, "_fixtureinfo", None), "name2fixturedefs", {})
    return any(_starts_chromium(getattr(fixturedef, "func", None))
               for name in getattr(item, "fixturenames", ()) for fixturedef in defs.get(name, ()))


def pytest_collection_modifyitems(config, items):
    # The sanitized pass (test_sanitized_suite.py) leaves the browser out: Chromium
    # is not what it checks, and it cannot start with libasan preloaded. Whole
    # browser files are left out there; this catches browser tests in mixed files.
    if not os.environ.get("PYTENSOR_UNDER_SANITIZER"):
        return
    skip = pytest.mark.skip(reason="the sanitized pass leaves Chromium out (it cannot start with libasan preloaded)")
    for item in items:
        if _launches_chromium(item):
            item.add_marker(skip)
