"""Names cannot break a page: lane names and safetensors keys holding HTML are drawn, literally.

A name comes from the caller or from a downloaded file (``inspect(safetensors.load_file(path))``).
The static page embeds the snapshot as JSON inside a ``<script>``; the HTML tokenizer reads that
text before JavaScript does, so ``</script`` or ``<!--<script`` in a name could end the script or
keep the page's own ``</script>`` from closing it, and nothing would be drawn. Fuzzed names go
through the real Chromium, in every kind of static output: ``write_page``, ``write_html`` of a
safetensors file, and the static copies a notebook keeps beside a live widget.
"""
import random

import pytest

from browser_support import chromium_context, new_page
from support import require_module

import pytensor
from pytensor import safetensors
from pytensor.widgets import figure, write_html, write_page

FIXED = ["<!--<script", "</script>", "<script>x</script>", "<!--", "-->", "a&amp;b", "&lt;&#60;", "]]>",
         "<svg onload=1>", "\"'`\\", "<\u2028\u2029>", "</SCRIPT", "<!--<script>/*", "<b>bold</b>"]
ALPHABET = ["<", ">", "!", "--", "/", "script", "SCRIPT", "&", "#", ";", "\"", "'", "\\", " ", "\u2028", "x", "é"]


def fuzzed_names(count, seed=11):
    """``count`` short names (at most 14 characters, the lane label's width) built from HTML's dangerous
    pieces; asserts the generator made the cases this file claims to cover."""
    rng = random.Random(seed)
    names = []
    while len(names) < count:
        name = "".join(rng.choice(ALPHABET) for _ in range(rng.randrange(1, 8)))[:14]
        if name not in names:
            names.append(name)
    text = "".join(names)
    assert all(piece in text for piece in ("</", "<!--", "script", "&", ">", "\u2028")), "the fuzz covers its cases"
    return names


@pytest.fixture(scope="module")
def context():
    require_module("playwright")
    yield from chromium_context("pti-hostile-chromium-")


def shown_names(page):
    """Per picture on the page, the lane names as the browser holds them: (data-name, label text over its
    lines, title)."""
    return page.evaluate("""() => [...document.querySelectorAll('svg.pti-svg')].map((svg) =>
        [...svg.querySelectorAll('g.pti-lane')].map((g) => {
          const label = svg.querySelector(`g.pti-label[data-view="${g.dataset.view}"]`);
          return [g.dataset.name, [...label.querySelectorAll('.pti-name')].map((t) => t.firstChild.textContent).join(''),
                  label.querySelector('title').textContent];
        }))""")


def check_page(page, path, pictures, names_per_picture, scripts=1):
    page.goto(path.as_uri())
    page.wait_for_function(f"() => document.querySelectorAll('svg.pti-svg').length === {pictures}", timeout=30_000)
    got = shown_names(page)
    assert len(got) == pictures
    for lanes, names in zip(got, names_per_picture):
        assert sorted(n for n, _, _ in lanes) == sorted(names)     # every lane drawn, its name literally
        for name, label, title in lanes:
            assert "".join(label.split()) == "".join(name.split())   # the label wraps a long name, never cuts it
            assert title.startswith(f"{name}:")
    # the names made no element: the page's own scripts, and no other
    assert page.evaluate("() => document.querySelectorAll('script').length") == scripts
    assert not page.errors, page.errors


def test_fuzzed_names_are_drawn_literally_on_a_written_page(context, tmp_path):
    names = FIXED + fuzzed_names(120)
    t = pytensor.arange(64, dtype=pytensor.int32)
    groups = [names[k:k + 16] for k in range(0, len(names), 16)]
    figs = [figure(f"picture {k} <!--<script", *[t[j:j + 8] for j in range(len(g))], names=g,
                   text="prose </script><!--<script> &amp;")
            for k, g in enumerate(groups)]
    page = new_page(context)
    check_page(page, write_page(tmp_path / "hostile.html", figs, title="</script><!--<script>"), len(groups), groups)
    page.close()
    # one page per picture too: a later name holding "-->" would end the comment state an earlier
    # "<!--<script" opened, and hide the fault on the page of all of them
    for k, (fig, g) in enumerate(zip(figs, groups)):
        page = new_page(context)
        check_page(page, write_page(tmp_path / f"hostile{k}.html", [fig]), 1, [g])
        page.close()


def test_safetensors_keys_are_drawn_literally(context, tmp_path):
    keys = ["<!--<script", "</script>", "w&b", "<!--<script>x"]
    src = tmp_path / "hostile.safetensors"
    safetensors.save_file({k: pytensor.arange(4 * (i + 1), dtype=pytensor.float32) for i, k in enumerate(keys)}, src)
    path = write_html(tmp_path / "keys.html", safetensors.load_file(src))
    page = new_page(context)
    check_page(page, path, 1, [keys])
    page.close()


def test_the_notebook_static_copies_draw_hostile_names(context, tmp_path):
    require_module("anywidget")
    require_module("ipywidgets")
    from pytensor.widgets import Inspector
    names = ["<!--<script", "</script>x", "a&b>c"]
    t = pytensor.arange(32, dtype=pytensor.int16)
    w = Inspector(t, t[::2], t[4:], names=names)
    fragment = w._fallback_bundle()["text/html"]
    w.close()
    path = tmp_path / "notebook_copy.html"
    path.write_text('<!DOCTYPE html><html><head><meta charset="utf-8"></head><body>'
                    f'<div class="jp-OutputArea">{fragment}</div></body></html>', encoding="utf-8")
    page = new_page(context)
    check_page(page, path, 1, [names], scripts=2)     # the renderer's data block and the drawing script
    page.close()
