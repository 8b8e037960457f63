"""Saved notebooks for the inspector's viewer tests: executed by nbclient, saved as a front end saves them,
and read back (tests/widgets/test_widgets_saved_notebooks.py, test_widgets_vscode.py,
test_widgets_widget_state.py)."""
import subprocess
import sys
from pathlib import Path

from browser_support import new_page

ROOT = Path(__file__).resolve().parent.parent
TOUR = ROOT / "examples" / "memory_tour.ipynb"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
MAX_BYTES = 300_000
SETUP = "import numpy as np\nimport pytensor\nfrom pytensor.widgets import inspect"
# three pictures, one of an inline temporary (drawn as it was at the call)
PICTURES = [
    ("t = pytensor.arange(8, dtype=pytensor.int32)\ninspect(t, t[::2])", ["t", "t[::2]"]),
    ("inspect(np.broadcast_to(np.arange(3), (4, 3)), names=[\"wide\"])", ["wide"]),
    ("g = pytensor.arange(12, dtype=pytensor.int16).view(3, 4)\ninspect(g, g.T)", ["g", "g.T"]),
]
# thirteen pictures of three views each: the size the issue measured
THIRTEEN = [SETUP] + [f"x{k} = pytensor.arange({8 + k}, dtype=pytensor.float32)\ninspect(x{k}, x{k}[::2], x{k}[1:])"
                      for k in range(13)]
LANES_JS = "(svg) => [...svg.querySelectorAll('g.pti-lane')].map((l) => [l.dataset.name, l.dataset.region])"


def execute(cells, folder, name, widget_state=False):
    """A notebook of ``cells`` (sources) executed by nbclient, saved as JupyterLab saves it (without widget
    state by default; ``widget_state=True``: as with "Save Widget State Automatically") and trusted as its
    author's would be; returns ``(path, notebook)``."""
    import nbclient
    import nbformat
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(src) for src in cells]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbclient.NotebookClient(nb, kernel_name="python3", timeout=300, store_widget_state=widget_state,
                            resources={"metadata": {"path": str(folder)}}).execute()
    return save(nb, folder, name), nb


def tour_cells():
    import nbformat
    nb = nbformat.read(TOUR, as_version=4)
    return [c["source"] for c in nb.cells if c["cell_type"] == "code"]


def save(nb, folder, name, env=None):
    import nbformat
    path = Path(folder) / name
    nbformat.write(nb, path)
    trust = subprocess.run([sys.executable, "-m", "jupyter", "trust", str(path)], env=env, capture_output=True,
                           text=True, timeout=60)
    assert trust.returncode == 0, trust.stderr
    return path


def read(path):
    import nbformat
    return nbformat.read(path, as_version=4)


def open_notebook(context, server, path, kernel=True):
    """``path`` opened in the server's front end (trusted there, as its author's own notebook is);
    ``kernel=False``: the kernel the front end starts is shut down (Kernel > Shut Down Kernel) before
    anything runs, so no kernel is running while the pictures are looked at."""
    from playwright.sync_api import expect
    app, root, route, token, env = server
    save(read(path), root, path.name, env=env)
    page = new_page(context)
    page.goto(f"{route}/{path.name}?reset&token={token}")
    panel = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)")
    if not kernel:
        name = panel.locator(".jp-Toolbar-kernelName, .jp-NotebookKernelName").first
        expect(name).to_contain_text("Python 3", timeout=90_000)
        page.locator(".lm-MenuBar-itemLabel", has_text="Kernel").first.click()
        page.locator(".lm-Menu-itemLabel", has_text="Shut Down Kernel").first.click()
        expect(name).to_contain_text("No Kernel", timeout=30_000)
    return page, panel


def outputs(nb):
    """Every display output's data, in order."""
    return [o["data"] for c in nb.cells for o in c.get("outputs", []) if "data" in o]


def _mark():
    from pytensor.widgets._export import renderer_hash
    return f'data-pti-renderer="{renderer_hash()}">'


def carriers(nb):
    return [k for k, d in enumerate(outputs(nb)) if _mark() in d.get("text/html", "")]


def static_copies(nb):
    return [d for d in outputs(nb) if "pti-fallback" in d.get("text/html", "")]


def carrier_cells(nb):
    """The indices of the cells whose outputs store the renderer."""
    return [k for k, c in enumerate(nb.cells) if any(_mark() in o.get("data", {}).get("text/html", "")
                                                      for o in c.get("outputs", []))]


def carrier_last(nb):
    """The same notebook with the cell whose output stores the renderer moved to the end."""
    (k,) = carrier_cells(nb)
    nb.cells.append(nb.cells.pop(k))
    return nb


def expected_lanes():
    """The lanes of each picture of PICTURES' notebook with its carrier cell (the first picture) moved last."""
    return [lanes for _, lanes in PICTURES[1:] + PICTURES[:1]]
