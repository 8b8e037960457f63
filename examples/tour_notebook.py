"""Write memory_tour.ipynb from memory_tour.py: one tour, two outputs.

Run:  python examples/tour_notebook.py     (then commit both files)

memory_tour.py is split at its ``# %%`` lines. ``# %% [markdown]`` cells
become markdown (the leading ``# `` of each line dropped); ``# %% [script]``
cells (the command line options, the page writer) stay out; every other cell
is code, and a code cell that starts with ``ask("...")`` gets that question as
its heading, in a markdown cell of its own. The notebook is written clean: no
outputs, no execution counts, stable cell ids. A test checks that the
committed notebook is exactly what this script writes.
"""
import ast
import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE, NOTEBOOK = HERE / "memory_tour.py", HERE / "memory_tour.ipynb"
MARKER = re.compile(r"^# %%(?: \[(markdown|script)\])?\s*$")
ASK = re.compile(r"^ask\((.*)\)\s*$")


def split_cells(text):
    """``(kind, source)`` per ``# %%`` cell, kind "markdown", "script" or "code"; text before the first is dropped."""
    cells, kind, lines = [], None, []
    for line in text.splitlines():
        mark = MARKER.match(line)
        if mark:
            if kind is not None:
                cells.append((kind, "\n".join(lines).strip("\n")))
            kind, lines = mark.group(1) or "code", []
        else:
            lines.append(line)
    if kind is not None:
        cells.append((kind, "\n".join(lines).strip("\n")))
    return cells


def _cell(kind, source):
    lines = source.splitlines(keepends=True)
    if kind == "markdown":
        return {"cell_type": "markdown", "metadata": {}, "source": lines}
    return {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": lines}


def notebook(text):
    """The notebook (a dict in nbformat 4.5) for the tour's source ``text``."""
    cells = []
    for kind, source in split_cells(text):
        if kind == "script":
            continue
        if kind == "markdown":
            source = "\n".join(re.sub(r"^# ?", "", line) for line in source.splitlines())
        else:
            first = ASK.match(source.splitlines()[0])
            if first:          # the question is the heading; the call stays, it files the answers
                cells.append(_cell("markdown", f"## {ast.literal_eval(first.group(1))}"))
        cells.append(_cell(kind, source))
    for k, c in enumerate(cells):
        c["id"] = f"cell-{k:02d}"
    return {"cells": cells,
            "metadata": {"kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python",
                                        "name": "python3"},
                         "language_info": {"name": "python"}},
            "nbformat": 4, "nbformat_minor": 5}


def render(text):
    """The notebook file's exact text."""
    return json.dumps(notebook(text), indent=1, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    NOTEBOOK.write_text(render(SOURCE.read_text(encoding="utf-8")), encoding="utf-8")
    print(f"wrote {NOTEBOOK}", file=sys.stderr)
