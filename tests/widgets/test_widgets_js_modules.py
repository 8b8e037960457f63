"""The renderer as ES modules by job, joined into one by the project's own build step (widgets/_bundle.py).

``widgets/inspector.js`` is what anywidget and the static page load; it must be exactly what the bundler
writes from ``widgets/js/*.mjs``. Joining drops the modules' imports of each other, so no two modules
may define the same top-level name; every module must load on its own (Node imports them directly);
the drawing modules (strings in, strings out) never touch the page; no function is longer than
``MAX_FUNCTION_LINES``.
"""
import importlib.util
import re
import subprocess
from pathlib import Path

import pytest

from support import require_program

ROOT = Path(__file__).resolve().parents[2]
WIDGETS = ROOT / "widgets"


def load_bundler():
    spec = importlib.util.spec_from_file_location("pti_bundle", WIDGETS / "_bundle.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


B = load_bundler()
DECL = re.compile(r"^(?:export\s+)?(?:async\s+)?(?:function\*?|class)\s+([A-Za-z_$][\w$]*)"
                  r"|^(?:export\s+)?(?:const|let|var)\s+(.*)$", re.M)
MAX_FUNCTION_LINES = 60
FUNCTION = re.compile(r"^(?:export\s+)?(?:async\s+)?function\*?\s+([\w$]+)|^(?:export\s+)?const\s+([\w$]+)\s*=.*=>\s*\{\s*$")
PAGE = re.compile(r"(?<![\w$.])(document|window|globalThis)\s*[.\[]|\btypeof\s+(document|window)\b")


def code_only(text):
    """``text`` without comments and string literals (a template's ``${...}`` code is kept)."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    text = re.sub(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', '""', text)
    return re.sub(r"`(?:\\.|\$\{[^}]*\}|[^`\\$]|\$(?!\{))*`",
                  lambda m: " ".join(re.findall(r"\$\{([^}]*)\}", m.group(0))) or '""', text)


def top_level_names(text):
    """Names a module declares at its top level (column 0): functions, classes, and each const/let binding."""
    names = []
    for m in DECL.finditer(text):
        if m.group(1):
            names.append(m.group(1))
        else:
            names += re.findall(r"(?:^|,\s*)([A-Za-z_$][\w$]*)\s*=", m.group(2))
    return names


def function_lengths(text):
    """``{name: lines}`` of each top-level function (from its first line to the ``}`` that closes it at
    column 0); what it nests counts as its own."""
    lines, out, i = text.split("\n"), {}, 0
    while i < len(lines):
        m = FUNCTION.match(lines[i])
        if m and lines[i].rstrip().endswith("{"):
            j = next((k for k in range(i + 1, len(lines)) if lines[k] in ("}", "};")), len(lines) - 1)
            out[m.group(1) or m.group(2)] = j - i + 1
            i = j
        i += 1
    return out


def page_uses(text):
    return [m.group(0) for m in PAGE.finditer(code_only(text))]


def test_inspector_js_is_what_the_bundler_writes():
    assert (WIDGETS / "inspector.js").read_text(encoding="utf-8") == B.bundle(), \
        "widgets/inspector.js is stale: run `python widgets/_bundle.py`"
    assert sorted(p.stem for p in (WIDGETS / "js").glob("*.mjs")) == sorted(B.MODULES)


def test_no_two_modules_define_the_same_top_level_name():
    seen = {}
    for name in B.MODULES:
        for n in top_level_names(B.module_text(name)):
            assert n not in seen, f"{n} is defined in {seen[n]}.mjs and {name}.mjs"
            seen[n] = name
    assert {"renderSvg", "elementsInWindow", "mount", "render", "LIMITS"} <= set(seen)
    assert len(seen) > 90


def test_modules_import_only_modules_before_them():
    """The way through has no returns: geometry and values first, the page (dom) and anywidget (entry) last."""
    for k, name in enumerate(B.MODULES):
        deps = re.findall(r'from\s*"\./([a-z_]+)\.mjs"', B.module_text(name))
        late = [d for d in deps if d not in B.MODULES[:k]]
        assert not late, f"{name}.mjs imports {late}, which are not before it"
    assert re.findall(r'from\s*"\./([a-z_]+)\.mjs"', B.module_text("entry")) == ["state", "dom"]


def test_drawing_modules_do_not_touch_the_page():
    # the check sees a use of the page, and not the word in prose or in a string
    assert page_uses("const w = window.innerWidth; if (typeof document === 'x') f();") == \
        ["window.", "typeof document"]
    assert page_uses('// the zoom window.\nconst s = "window.x" + `${a} window.y`;') == []
    for name in B.DRAWING:
        assert page_uses(B.module_text(name)) == [], name
    assert page_uses(B.module_text("dom")), "the DOM module does touch the page (the check can see it)"


def test_every_module_loads_on_its_own():
    node = require_program("node")
    for name in B.MODULES:
        proc = subprocess.run([node, "--input-type=module", "-e", f"await import('./widgets/js/{name}.mjs');"],
                              capture_output=True, text=True, timeout=60, cwd=ROOT)
        assert proc.returncode == 0, (name, proc.stderr[-2000:])


def test_no_function_is_longer_than_sixty_lines():
    body = "\n".join(f"  x += {k};" for k in range(MAX_FUNCTION_LINES - 1))
    assert function_lengths(f"function long(x) {{\n{body}\n}}\nconst ok = (a) => {{\n  return a;\n}};\n") == \
        {"long": MAX_FUNCTION_LINES + 1, "ok": 3}
    lengths = {}
    for name in B.MODULES:
        for fn, n in function_lengths(B.module_text(name)).items():
            lengths[f"{name}.mjs:{fn}"] = n
    assert len(lengths) > 80 and "picture.mjs:renderSvg" in lengths and "dom.mjs:mount" in lengths
    assert {k: n for k, n in lengths.items() if n > MAX_FUNCTION_LINES} == {}
