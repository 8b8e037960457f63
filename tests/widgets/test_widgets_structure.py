"""The inspector's Python modules: one job each, imports one way, the model and sync free of widget libraries.

The way through is ``Inspector`` -> tracker -> snapshot -> (objects, geometry, lineage, accounting) ->
sync -> renderer; each module imports only modules of the layers before its own.
"""
import ast
from pathlib import Path

WIDGETS = Path(__file__).resolve().parents[2] / "widgets"
LAYERS = [
    {"_calls", "_alone"},
    {"_recording"},
    {"_tracked", "_schema", "_pairs", "_badges", "_names", "_files", "_identity", "_geometry", "_lineage", "_deltas",
     "_bundle", "_procfs", "_processes_text", "_written"},
    {"_accounting", "_objects", "_text", "_processes"},
    {"_lifetime", "_snapshot", "_sync", "_export"},
    {"_display"},
    {"_tracker"},
    {"inspector"},
    {"__init__"},
]
WIDGET_LIBRARIES = {"anywidget", "ipywidgets", "traitlets", "IPython"}
MAX_LINES = 300


def imports(path):
    """``(sibling modules, top-level packages)`` a module imports, anywhere in it."""
    siblings, packages = set(), set()
    for n in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(n, ast.ImportFrom) and n.level == 1:
            siblings.update([n.module] if n.module else [a.name for a in n.names])
        elif isinstance(n, ast.ImportFrom) and n.level == 0:
            packages.add(n.module.split(".")[0])
        elif isinstance(n, ast.Import):
            packages.update(a.name.split(".")[0] for a in n.names)
    return siblings, packages


def test_every_module_is_in_a_layer_and_imports_only_earlier_layers():
    layer_of = {m: k for k, layer in enumerate(LAYERS) for m in layer}
    modules = sorted(p.stem for p in WIDGETS.glob("*.py"))
    assert sorted(layer_of) == modules
    for m in modules:
        siblings, _ = imports(WIDGETS / f"{m}.py")
        late = [s for s in siblings if layer_of[s] >= layer_of[m]]
        assert not late, f"{m} imports {late}, which are not before it"


def test_the_model_tracker_and_sync_need_no_widget_library():
    for m in sorted(set().union(*LAYERS[:4]) - {"_display"}):     # _display shows in IPython: its job
        _, packages = imports(WIDGETS / f"{m}.py")
        assert not packages & WIDGET_LIBRARIES, (m, packages & WIDGET_LIBRARIES)
    assert imports(WIDGETS / "inspector.py")[1] & WIDGET_LIBRARIES, "the check can see a widget library"


def test_every_python_module_is_small():
    sizes = {p.name: len(p.read_text(encoding="utf-8").splitlines()) for p in WIDGETS.glob("*.py")}
    assert len(sizes) >= 15
    assert {name: n for name, n in sizes.items() if n > MAX_LINES} == {}
