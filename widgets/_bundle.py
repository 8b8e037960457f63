"""The renderer's build step: ``widgets/js/*.mjs`` joined into the one module ``widgets/inspector.js``.

The renderer is written as ES modules by job (``MODULES``, in the order they
are joined), each importing what it uses from its siblings, so Node tests can
import any of them. anywidget loads ``_esm`` from a Blob URL and the static
page inlines one ``<script type="module">``: neither can resolve a relative
import, so the modules are joined into one, with their imports of each other
dropped (every top-level name is unique across the modules, which
tests/test_widgets_js_modules.py checks). No Node in the build: after editing
a module, run ``python widgets/_bundle.py``; a test fails while
``inspector.js`` differs from what this writes.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

__all__ = ["MODULES", "DRAWING", "bundle", "module_text"]

HERE = Path(__file__).resolve().parent
SOURCES = HERE / "js"
# by job, in the order they are joined: each imports only modules before it
MODULES = ("geometry", "values", "state", "describe", "marks", "order", "lane", "table", "fold", "processes", "region", "picture", "dom",
           "entry")
# modules that draw: strings in, strings out; they never touch the page (document, window)
DRAWING = MODULES[:MODULES.index("dom")]
# an import of a sibling module: `import { a, b } from "./x.mjs";`, possibly over several lines
_SIBLING_IMPORT = re.compile(r'^import\s*\{[^}]*\}\s*from\s*"\./[a-z_]+\.mjs";\n', re.M)
HEADER = ("// Built by widgets/_bundle.py from widgets/js/{" + ",".join(MODULES) + "}.mjs:\n"
          "// edit those, then run `python widgets/_bundle.py`.\n")


def module_text(name, folder=SOURCES):
    """One module's source, as written."""
    return (Path(folder) / f"{name}.mjs").read_text(encoding="utf-8")


def bundle(folder=SOURCES):
    """The joined module: a header, then each module without its sibling imports."""
    parts = [HEADER]
    for name in MODULES:
        text = _SIBLING_IMPORT.sub("", module_text(name, folder)).lstrip("\n")
        parts.append(f"\n// ---- {name}.mjs\n" + text)
    return "".join(parts)


def main(argv=None):
    out = HERE / "inspector.js"
    out.write_text(bundle(), encoding="utf-8")
    print(f"wrote {out} from {len(MODULES)} modules")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
