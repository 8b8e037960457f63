"""The single import point for the compiled binding: ``ffi``, ``lib`` and
the CPython shim functions (``shim``)."""
import atexit
import os
import sys


def _missing_binding_error():
    """The ImportError for a pytensor folder without its compiled module: says
    why (usually Python found the source folder before the installed package)
    and what to do."""
    from importlib.machinery import PathFinder

    here = os.path.dirname(os.path.abspath(__file__))
    if not os.path.exists(os.path.join(here, "meson.build")):
        return ImportError(
            f"pytensor: the compiled module pytensor._libtensor is missing from {here}, so this "
            "installation is incomplete; reinstall it (pip install --force-reinstall --no-deps pytensor-mem)")
    parent = os.path.dirname(here)
    others = [p for p in sys.path if os.path.abspath(p or os.curdir) != parent]
    spec = PathFinder.find_spec(__package__, others)
    if spec is not None and spec.submodule_search_locations:
        what = (f"instead of the installed package in {list(spec.submodule_search_locations)[0]}, because "
                "the current folder (or the script's) comes first on sys.path")
    else:
        what = "and found no installed pytensor either (`pip install .` installs one)"
    return ImportError(
        f"pytensor: Python imported the source folder {here}, which has no compiled module "
        f"(pytensor._libtensor), {what}.\n"
        "Either run Python from another folder (plain `pytest` works from the repository root; "
        "`python -m pytest` there does not),\n"
        "or, to work in the tree, use an editable install, which builds the module and rebuilds it on import:\n"
        "    pip install meson-python meson ninja cffi\n"
        "    pip install -e . --no-build-isolation")


try:
    from ._libtensor import ffi, lib
except ModuleNotFoundError as e:
    if e.name != f"{__package__}._libtensor":
        raise
    raise _missing_binding_error() from None

if lib.pyt_shim_init() != 0:  # registers the shim's functions in pytensor._shim
    raise ImportError("pytensor: could not register the CPython shim functions")

from . import _shim as shim  # noqa: E402  (exists only after pyt_shim_init)

# After interpreter shutdown starts, storage deleters must not touch Python
# objects; they leak their keep-alive reference instead (the process is ending).
atexit.register(lib.pyt_set_finalizing)

__all__ = ["ffi", "lib", "shim"]
