"""Imports point one way: each module imports alone, the import graph has no circle, and Tensor is declared once.

pytensor's floors are the ones ARCHITECTURE.md states ("Python, in floors"):
the tests read that list and fail on a module it leaves out and on an import,
at module level or inside a function, of a module on a higher floor or named
later on the same one. These tests keep the code and that page in step.
"""
import ast
import importlib
import importlib.util
import pathlib
import pkgutil
import re
import subprocess
import sys

import pytest

import pytensor

PACKAGE_DIR = pathlib.Path(pytensor.__file__).resolve().parent
SKIP = ("pytensor._build_ffi",)  # the build script, run by meson; not importable at run time
MODULES = sorted(m.name for m in pkgutil.walk_packages(pytensor.__path__, "pytensor.") if m.name not in SKIP)


def _source_files():
    """{module name: path} of every Python module of the package: those MODULES lists (the widgets, installed
    as pytensor.widgets, included), the package itself and the build script (which must not import us either)."""
    build_script = PACKAGE_DIR / "_build_ffi.py"
    if not build_script.exists():  # an installed wheel leaves the build script out; read the source tree's
        build_script = pathlib.Path(__file__).resolve().parents[2] / "pytensor" / "_build_ffi.py"
    files = {"pytensor": PACKAGE_DIR / "__init__.py", "pytensor._build_ffi": build_script}
    for name in MODULES:
        origin = importlib.util.find_spec(name).origin
        if origin and origin.endswith(".py"):
            files[name] = pathlib.Path(origin)
    return files


FILES = _source_files()


def test_the_module_lists_are_not_empty():
    # a walk that found nothing would make every test below pass vacuously
    assert "pytensor.tensor" in MODULES and "pytensor._core" in MODULES and len(MODULES) > 20
    assert "pytensor.tensor" in FILES and "pytensor.autograd" in FILES and len(FILES) > 20


# ============================================================ (a) each module imports alone
@pytest.mark.parametrize("name", MODULES)
def test_module_imports_alone_in_a_fresh_interpreter(name, tmp_path):
    code = f"import importlib; importlib.import_module({name!r}); import pytensor; pytensor.zeros(1) + 1"
    run = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, f"importing {name} first failed:\n{run.stderr[-3000:]}"


# ============================================================ (b) no import circle
def _is_type_checking(test):
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or \
        (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(name, tree):
    """The pytensor modules that module ``name`` imports, at module level or inside functions.

    Imports under ``if TYPE_CHECKING:`` are left out: they never run (annotations only).
    """
    package = name if FILES[name].name == "__init__.py" else name.rpartition(".")[0]
    found = set()

    def resolve(level, module):
        base = package.split(".")
        if level > 1:
            base = base[:len(base) - (level - 1)]
        return ".".join(base + ([module] if module else []))

    def visit(node):
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "pytensor" or alias.name.startswith("pytensor."):
                    found.add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            target = resolve(node.level, node.module) if node.level else node.module or ""
            if target == "pytensor" or target.startswith("pytensor."):
                for alias in node.names:
                    sub = f"{target}.{alias.name}"
                    # `from . import x`: the submodule x (a compiled one, such as _shim, is no edge between
                    # Python modules); `from pytensor import name`: the package
                    found.add(sub if sub in FILES or sub in sys.modules else target)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    found.discard(name)
    return {m for m in found if m in FILES}


def _graph():
    return {name: _imports(name, ast.parse(path.read_text(), str(path))) for name, path in FILES.items()}


def _find_cycle(graph):
    """One import circle as a list of modules (first == last), or None."""
    state, stack = {}, []

    def dfs(node):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                cycle = dfs(nxt)
                if cycle:
                    return cycle
        stack.pop()
        state[node] = "done"
        return None

    for node in sorted(graph):
        if node not in state:
            cycle = dfs(node)
            if cycle:
                return cycle
    return None


def test_the_import_graph_is_read_from_the_sources():
    graph = _graph()
    # edges this test must see: a module-level import, a `from . import x`, and the parts under tensor.py
    assert "pytensor._ffi" in graph["pytensor.errors"]
    assert "pytensor.dtypes" in graph["pytensor._core"]
    assert {"pytensor._tensor_views", "pytensor._autograd_ops"} <= graph["pytensor.tensor"]


def test_the_cycle_finder_finds_cycles():
    assert _find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _find_cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None


def test_pytensor_imports_form_no_circle():
    graph = _graph()
    graph.pop("pytensor", None)  # the package's __init__ imports everything to re-export it; nothing imports it back
    cycle = _find_cycle(graph)
    assert cycle is None, "import circle: " + " -> ".join(cycle)


def test_nothing_below_tensor_imports_it():
    importers = sorted(name for name, deps in _graph().items() if "pytensor.tensor" in deps)
    assert importers == ["pytensor"], f"modules that import pytensor.tensor (only the package should): {importers}"


# ============================================================ (b2) imports point down the floors ARCHITECTURE.md states
ARCHITECTURE = pathlib.Path(__file__).resolve().parents[2] / "ARCHITECTURE.md"


def _stated_floors(text):
    """The floors of ARCHITECTURE.md's "Python, in floors" list: [[module, ...], ...] in the order written.

    A floor is a numbered item ("  3. ..."), continued by its indented lines; its modules are the backticked
    names that are pytensor modules (``tensor.py`` and ``__init__.py`` name ``pytensor.tensor`` and the package),
    in the order they first appear; other backticked words (functions, code) are not modules and are passed over.
    """
    lines = text.split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith("- Python, in floors"))
    floors = []
    for line in lines[start + 1:]:
        item = re.match(r"\s+(\d+)\.\s", line)
        if item:
            assert int(item.group(1)) == len(floors) + 1, f"floor numbers out of order at: {line!r}"
            floors.append([])
        elif not floors or not line.startswith("     "):
            if floors:
                break                                       # the list ended
            continue
        for word in re.findall(r"`([A-Za-z_][\w.]*)`", line):
            name = "pytensor" if word == "__init__.py" else "pytensor." + word.removesuffix(".py")
            if name in FILES and all(name not in f for f in floors):
                floors[-1].append(name)
    return floors


def _floor_order(floors):
    """{module: its place in the stated order}; a package's submodules share the package's place."""
    place = {name: (f, i) for f, names in enumerate(floors) for i, name in enumerate(names)}
    for name in FILES:
        parent = name.rpartition(".")[0]
        if name not in place and parent in place and parent != "pytensor":
            place[name] = place[parent]
    return place


def _upward_imports(graph, place):
    """Imports of a module placed no lower than the importer ("a -> b"); a package may import its own submodules."""
    return sorted(f"{a} -> {b}" for a, deps in graph.items() if a in place for b in deps
                  if b in place and place[b] >= place[a] and not b.startswith(a + "."))


def test_the_floor_reader_reads_an_example():
    text = ("- Python, in floors. Some text:\n  1. `_ffi`, `errors` (uses `check`);\n  2. `_core`\n"
            "     (`make`), `tensor.py`; then `__init__.py`.\n\nAfter the list: `_ops`.\n")
    assert _stated_floors(text) == [["pytensor._ffi", "pytensor.errors"],
                                    ["pytensor._core", "pytensor.tensor", "pytensor"]]


def test_the_floor_check_finds_upward_and_same_floor_imports():
    place = {"pytensor.a": (0, 0), "pytensor.b": (0, 1), "pytensor.c": (1, 0), "pytensor.p": (2, 0),
             "pytensor.p.sub": (2, 0)}
    graph = {"pytensor.a": {"pytensor.b"}, "pytensor.b": {"pytensor.a"}, "pytensor.c": {"pytensor.b"},
             "pytensor.b2": {"pytensor.c"}, "pytensor.p": {"pytensor.p.sub", "pytensor.c"},
             "pytensor.p.sub": {"pytensor.p"}}
    assert _upward_imports(graph, place) == ["pytensor.a -> pytensor.b", "pytensor.p.sub -> pytensor.p"]


def test_the_architecture_names_every_pytensor_module_on_a_floor():
    floors = _stated_floors(ARCHITECTURE.read_text())
    assert len(floors) >= 5 and "pytensor.tensor" in floors[-2], floors  # the list was found and read
    place = _floor_order(floors)
    unplaced = sorted(name for name in FILES
                      if name not in place and not name.startswith("pytensor.widgets") and name not in SKIP)
    assert not unplaced, f"modules ARCHITECTURE.md puts on no floor: {unplaced}"


def test_imports_point_down_the_stated_floors():
    """No module imports one on a higher floor, or one named after it on its own floor, even inside a function."""
    graph = _graph()
    place = _floor_order(_stated_floors(ARCHITECTURE.read_text()))
    assert ("pytensor.autograd", "pytensor._factories") in {(a, b) for a, deps in graph.items() for b in deps}
    upward = _upward_imports(graph, place)
    assert not upward, "imports against the floors of ARCHITECTURE.md: " + "; ".join(upward)


def test_nothing_in_pytensor_imports_the_inspector():
    importers = sorted(a for a, deps in _graph().items() if not a.startswith("pytensor.widgets")
                       and any(b.startswith("pytensor.widgets") for b in deps))
    assert not importers, f"pytensor modules that import widgets/ (the layer above them): {importers}"


# ============================================================ (c) Tensor is declared in one place
def _tensor_attribute_writes(name, tree):
    """Places where module ``name`` sets attributes on Tensor (``setattr(Tensor, ...)``, ``Tensor.x = ...``)."""
    hits = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr" and \
                node.args and isinstance(node.args[0], ast.Name) and node.args[0].id in ("Tensor", "T"):
            hits.append(f"{name}:{node.lineno} setattr({node.args[0].id}, ...)")
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
        for target in targets:
            for t in ast.walk(target):
                if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "Tensor":
                    hits.append(f"{name}:{node.lineno} Tensor.{t.attr} = ...")
    return hits


def test_no_module_sets_attributes_on_tensor():
    hits = [h for name, path in FILES.items() for h in _tensor_attribute_writes(name, ast.parse(path.read_text()))]
    assert not hits, "Tensor must be declared in its class bodies, not patched: " + "; ".join(hits)


def test_the_attribute_check_sees_patches():
    tree = ast.parse("setattr(Tensor, 'x', 1)\nTensor.y = 2\nTensor.z += 1\n")
    assert len(_tensor_attribute_writes("m", tree)) == 3


def _class_body_names(cls):
    """The names the class statement of ``cls`` binds in its own body (defs and assignments)."""
    module = sys.modules[cls.__module__]
    tree = ast.parse(pathlib.Path(module.__file__).read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == cls.__name__:
            names = set()
            for stmt in node.body:
                if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    names.add(stmt.name)
                elif isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                    for target in stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]:
                        names.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
            return names
    raise AssertionError(f"no class statement for {cls.__qualname__} in {module.__file__}")


def test_every_tensor_attribute_comes_from_a_class_body():
    """At run time, after every import: each Python class in Tensor's MRO holds exactly what its body declares."""
    automatic = {"__module__", "__qualname__", "__doc__", "__dict__", "__weakref__", "__firstlineno__",
                 "__static_attributes__", "__annotations__"}
    parts = [c for c in pytensor.Tensor.__mro__ if c.__module__.startswith("pytensor.") and
             c.__module__ != "pytensor._shim"]
    assert len(parts) >= 8, parts  # the parts are there to check
    for cls in parts:
        declared = _class_body_names(cls)
        extra = sorted(set(vars(cls)) - declared - automatic - ({"__hash__"} if "__eq__" in declared else set()))
        assert not extra, f"{cls.__qualname__} has attributes its class body does not declare: {extra}"


def test_hash_is_defined_once():
    owners = [c.__qualname__ for c in pytensor.Tensor.__mro__ if "__hash__" in vars(c) and c is not object]
    assert owners == ["Arithmetic"], owners  # beside __eq__, which would otherwise make tensors unhashable
    t = pytensor.zeros(2)
    assert hash(t) == id(t) and len({t, t.view(2)}) == 2


# ============================================================ (d) optional test dependencies fail in CI
def _importorskip_calls(tree):
    """Lines that reach ``importorskip`` (``pytest.importorskip(...)``, or the name imported from pytest)."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "importorskip":
            lines.append(node.lineno)
        elif isinstance(node, ast.Name) and node.id == "importorskip":
            lines.append(node.lineno)
        elif isinstance(node, ast.ImportFrom) and any(a.name == "importorskip" for a in node.names):
            lines.append(node.lineno)
    return sorted(lines)


def test_the_importorskip_finder_finds_every_spelling():
    tree = ast.parse("import pytest\nt = pytest.importorskip('torch')\nfrom pytest import importorskip\n"
                     "importorskip('jax')\n")
    assert _importorskip_calls(tree) == [2, 3, 4]


def test_no_test_uses_importorskip():
    """pytest.importorskip skips even under CI=true, where a missing dependency must fail the run;
    support.require_module skips on a developer machine and fails in CI."""
    tests_dir = pathlib.Path(__file__).resolve().parents[1]
    files = sorted(tests_dir.rglob("*.py"))
    assert pathlib.Path(__file__).resolve() in files and len(files) > 20  # the walk found the suite
    hits = [f"{p.relative_to(tests_dir)}:{line}" for p in files
            for line in _importorskip_calls(ast.parse(p.read_text(), str(p)))]
    assert not hits, "use support.require_module instead of pytest.importorskip: " + ", ".join(hits)


# ============================================================ (e) comments point at files that exist
def test_the_shim_files_that_python_sources_and_architecture_name_exist():
    """A comment that sends the reader to a shim file (``_shim_prov.c``, ``_shim.h``) names one that is there."""
    root = pathlib.Path(__file__).resolve().parents[2]
    sources = sorted((root / "pytensor").glob("*.py")) + [ARCHITECTURE]
    named = {(src.name, m) for src in sources for m in re.findall(r"\b(_shim\w*\.[ch])\b", src.read_text())}
    assert any(m == "_shim.h" for _, m in named)  # the scan reads names
    missing = sorted(f"{src} names {m}" for src, m in named if not (root / "pytensor" / m).exists())
    assert not missing, "; ".join(missing)


# ============================================================ (f) shape and stride rules have one home
def _subscripted(node):
    """The name a subscript reads from (``shape`` for ``self._shape[d]``), lower-cased; '' for anything else."""
    if not isinstance(node, ast.Subscript):
        return ""
    base = node.value
    return (base.id if isinstance(base, ast.Name) else base.attr if isinstance(base, ast.Attribute) else "").lower()


def _layout_rule_sites(tree):
    """Lines that compute a shape or stride rule themselves: an element count (``math.prod``, NumPy's ``prod``),
    a product of sizes accumulated into strides (``step *= shape[d]``: row-major or dense-order strides), or a
    size times a stride (``shape[d] * strides[d]``: the stride of a new dimension)."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "math" and any(a.name == "prod" for a in node.names):
            lines.append((node.lineno, "an element count: math.prod"))
        elif isinstance(node, ast.Attribute) and node.attr == "prod" and isinstance(node.value, ast.Name) and \
                node.value.id in ("math", "np", "numpy"):
            lines.append((node.lineno, f"an element count: {node.value.id}.prod"))
        elif isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Mult) and "shape" in _subscripted(node.value):
            lines.append((node.lineno, "strides accumulated from sizes"))
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
            names = (_subscripted(node.left), _subscripted(node.right))
            if any("shape" in n or n in ("size", "sizes") for n in names) and any("stride" in n for n in names):
                lines.append((node.lineno, "a size times a stride"))
    return sorted(lines)


def test_the_layout_rule_finder_finds_each_kind():
    tree = ast.parse("import math\nn = math.prod(shape)\nfrom math import prod\nm = np.prod(a.shape)\n"
                     "for d in perm:\n    out[d] = step\n    step *= shape[d]\n"
                     "s = self._shape[d] * self._strides[d]\nt = strides[i] * sizes[i]\n"
                     "ok = t._strides[0] * itemsize\n")
    assert [line for line, _ in _layout_rule_sites(tree)] == [2, 3, 4, 7, 8, 9]


def test_no_python_file_computes_layout_rules_outside_their_home():
    """ARCHITECTURE.md: every shape and stride rule lives in libtensor's layout.c (layout_order.c for result
    layouts), and Python asks it through pytensor/_layout.py; the binding and the inspector keep no copies."""
    root = ARCHITECTURE.parent  # the source tree: pytensor/ and widgets/ (installed as pytensor.widgets)
    files = sorted(set((root / "pytensor").rglob("*.py")) | set((root / "widgets").rglob("*.py")))
    assert any(p.name == "_tensor_views.py" for p in files) and len(files) > 40  # the walk found the sources
    hits = [f"{p.relative_to(root)}:{line} {what}" for p in files if p != root / "pytensor" / "_layout.py"
            for line, what in _layout_rule_sites(ast.parse(p.read_text(), str(p)))]
    assert not hits, "layout rules computed outside libtensor (ask pytensor._layout): " + "; ".join(hits)


# ============================================================ (g) the inspector reaches pytensor through declared names
WIDGET_INTERFACE = "_inspect_api"  # pytensor/_inspect_api.py: the package-internal names the inspector may use


def _is_pytensor_module_lookup(node):
    """``sys.modules["pytensor"]`` or ``sys.modules.get("pytensor")``."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
        target, key = node.func.value, node.args[0] if node.args else None
    elif isinstance(node, ast.Subscript):
        target, key = node.value, node.slice
    else:
        return False
    return isinstance(target, ast.Attribute) and target.attr == "modules" and \
        isinstance(key, ast.Constant) and key.value == "pytensor"


def _widget_reaches(tree, exported):
    """Where a widget module reaches pytensor other than through its public names and the interface module:
    an import of a private module (``pytensor._layout``, ``from pytensor import _provenance``, ``from .. import
    _shm``), a private attribute read through ``sys.modules`` (directly or through a name bound to it), and a
    name taken from the interface that it does not export."""
    hits, package_aliases, interface_aliases = [], set(), set()

    def private(name):
        return name.startswith("_") and name != WIDGET_INTERFACE

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                parts = a.name.split(".")
                if parts[0] == "pytensor" and len(parts) > 1 and private(parts[1]):
                    hits.append((node.lineno, f"import {a.name}"))
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level == 1:
                continue                                                   # the inspector's own modules
            parts = (["pytensor"] if node.level >= 2 else []) + (module.split(".") if module else [])
            if parts[:1] != ["pytensor"] or parts[1:2] == ["widgets"]:
                continue
            if len(parts) > 1 and private(parts[1]):
                hits.append((node.lineno, f"from {'.'.join(parts)} import ..."))
            elif len(parts) > 1:                                           # from pytensor._inspect_api import x
                hits += [(node.lineno, f"{WIDGET_INTERFACE}.{a.name} is not exported") for a in node.names
                         if a.name not in exported]
            for a in node.names:
                if len(parts) == 1 and private(a.name):
                    hits.append((node.lineno, f"from pytensor import {a.name}"))
                elif len(parts) == 1 and a.name == WIDGET_INTERFACE:
                    interface_aliases.add(a.asname or a.name)
        elif isinstance(node, ast.Assign) and _is_pytensor_module_lookup(node.value):
            package_aliases.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Name) and node.value.id in interface_aliases:
            interface_aliases.update(t.id for t in node.targets if isinstance(t, ast.Name))
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute):
            continue
        through_package = _is_pytensor_module_lookup(node.value) or \
            (isinstance(node.value, ast.Name) and node.value.id in package_aliases)
        if through_package and private(node.attr):
            hits.append((node.lineno, f"pytensor.{node.attr} through sys.modules"))
        elif isinstance(node.value, ast.Name) and node.value.id in interface_aliases and node.attr not in exported:
            hits.append((node.lineno, f"{WIDGET_INTERFACE}.{node.attr} is not exported"))
    return sorted(hits)


def test_the_widget_reach_finder_finds_each_spelling():
    code = ("import sys\nfrom pytensor._layout import numel\nfrom pytensor import _provenance, Tensor\n"
            "p = sys.modules['pytensor']._provenance\npt = sys.modules.get('pytensor')\nq = pt._shm\n"
            "from .. import _file\nimport pytensor._core\nfrom pytensor import _inspect_api as api\n"
            "prov = api\nprov.chain(1)\nprov.secret(2)\nfrom pytensor._inspect_api import numel, hidden\n"
            "from ._schema import HOST\nok = pt.Tensor\n")
    hits = _widget_reaches(ast.parse(code), {"chain", "numel"})
    assert [line for line, _ in hits] == [2, 3, 4, 6, 7, 8, 12, 13], hits


def test_widgets_reach_pytensor_through_public_and_declared_names_only():
    """ARCHITECTURE.md: the inspector uses pytensor's public names and pytensor/_inspect_api.py, nothing else."""
    from pytensor import _inspect_api
    exported = set(_inspect_api.__all__)
    assert {"numel", "chain", "node"} <= exported and all(hasattr(_inspect_api, n) for n in exported)
    widgets = ARCHITECTURE.parent / "widgets"
    files = sorted(widgets.rglob("*.py"))
    assert any(p.name == "_lineage.py" for p in files) and len(files) > 10  # the walk found the inspector
    hits = [f"widgets/{p.relative_to(widgets)}:{line} {what}" for p in files
            for line, what in _widget_reaches(ast.parse(p.read_text(), str(p)), exported)]
    assert not hits, "the inspector reaches past pytensor/_inspect_api.py: " + "; ".join(hits)
