"""`import pytensor` from the repository root after a plain `pip install .` finds
the source folder first, which has no compiled module. That must fail with an
ImportError that says what happened and what to do, not a bare
"No module named 'pytensor._libtensor'"."""
import os
import shutil
import site
import subprocess
import sys
from pathlib import Path

import pytest

import pytensor

ROOT = Path(__file__).resolve().parents[2]


def _import_from_source_copy(tmp_path, with_site_packages):
    """Imports a copy of pytensor/ (without any built module) from its parent
    folder, as Python does from the repository root; returns stderr."""
    shutil.copytree(ROOT / "pytensor", tmp_path / "pytensor",
                    ignore=shutil.ignore_patterns("_libtensor*", "__pycache__"))
    # -S: no site processing, so an editable install's import hook (which would
    # find the built module and hide the problem) is not loaded; the site-packages
    # folders are appended as plain entries instead, after the current folder.
    extra = site.getsitepackages() if with_site_packages else []
    code = f"import sys; sys.path.extend({extra!r}); import pytensor"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    r = subprocess.run([sys.executable, "-S", "-c", code], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode != 0, f"importing the source copy succeeded:\n{r.stdout}{r.stderr}"
    return r.stderr


@pytest.mark.parametrize("with_site_packages", [False, True], ids=["alone", "beside-an-install"])
def test_source_folder_without_binding_says_what_to_do(tmp_path, with_site_packages):
    err = _import_from_source_copy(tmp_path, with_site_packages)
    assert "ImportError: pytensor: Python imported the source folder " + str(tmp_path / "pytensor") in err, err
    assert "no compiled module (pytensor._libtensor)" in err, err
    assert "run Python from another folder" in err, err
    assert "pip install meson-python meson ninja cffi" in err, err
    assert "pip install -e . --no-build-isolation" in err, err
    assert "ModuleNotFoundError" not in err, err  # the cause is explained, not chained
    installed = Path(os.path.abspath(pytensor.__file__)).parent
    if with_site_packages and installed != ROOT / "pytensor":
        # a regular install (not an editable one, whose package folder is the tree's): named
        assert f"instead of the installed package in {installed}" in err, err
    else:
        assert "found no installed pytensor either" in err, err
