"""The output of a snapshot that needs no kernel: a self-contained HTML page (the text summary is ``_text.py``'s).

The HTML page inlines ``inspector.js`` and ``inspector.css`` (no CDN, no widget manager; a
notebook's static copies store them once, see ``fallback_html``) and embeds the snapshot as JSON
and the previews as base64, so hover and zoom keep working in a file opened years later. The text
summary is what terminals, ``repr`` and GitHub's notebook viewer show. A notebook's static copy carries
its snapshot packed (``pack_json``: base64 of gzipped JSON, a quarter of the JSON's size)."""
from __future__ import annotations

import base64
import functools
import gzip
import hashlib
import html
import json
import secrets
from pathlib import Path

from ._text import BAR, TEXT_VIEWS, to_text  # noqa: F401 (to_text is public here too, as before)

__all__ = ["to_html", "to_html_page", "to_text", "asset", "script_json", "fallback_html", "renderer_hash",
           "renderer_packed", "live_module", "live_loader", "compact_script", "pack_json", "unpack_json",
           "TEXT_TRAIT", "PACKED_TRAIT"]

_HERE = Path(__file__).resolve().parent
_PROSE = "font-family: system-ui, sans-serif; color: #212529"


def asset(name):
    """The text of a front-end file shipped beside this module (``inspector.js``, ``inspector.css``)."""
    return (_HERE / name).read_text(encoding="utf-8")


def to_html(snap, previews, title="pytensor memory inspector", fragment=False, fallback=False, carry=True):
    """A self-contained HTML document (or a ``<div>`` fragment) drawing ``snap``; ``fallback``: the static
    copy a notebook keeps beside a live widget (``fallback_html``, which ``carry`` the renderer)."""
    if fallback:
        return fallback_html(snap, previews, carry=carry)
    return to_html_page([{"snapshot": snap, "previews": previews}], title=title, fragment=fragment)


# ---------------------------------------------------------------------- a notebook's static copies
@functools.lru_cache(maxsize=1)
def _renderer_block():
    """``(hash, base64 of the gzipped {js, css})``: the renderer as a static copy stores it (an inert block)."""
    text = json.dumps({"js": asset("inspector.js"), "css": asset("inspector.css")}, separators=(",", ":"))
    packed = gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0)    # mtime 0: same bytes each time
    return hashlib.sha256(packed).hexdigest()[:16], base64.b64encode(packed).decode("ascii")


def pack_json(obj):
    """``obj`` as base64 of its gzipped compact JSON: what a saved notebook stores a snapshot as, in a static
    copy and in the widget's ``base``/``checkpoint`` traits (13 pictures: 90 KB less). ``ptiUnpackJson``
    (``unpack.js``) and ``unpackJson`` (``js/entry.mjs``) read it. Level 6: most of level 9's saving
    at a third of its time (a 500-view snapshot packs in a few ms); base64 needs no HTML escaping."""
    text = json.dumps(obj, separators=(",", ":")).encode("utf-8")
    return base64.b64encode(gzip.compress(text, compresslevel=6, mtime=0)).decode("ascii")


def unpack_json(text):
    """The object ``pack_json`` packed into ``text``."""
    return json.loads(gzip.decompress(base64.b64decode(text)))


# The inspector's snapshot traits travel as text (one line in a saved widget state, where nbformat would
# indent a dict key by key; entry.mjs reads them): delta, sent by every update, as JSON; base and
# checkpoint, sent rarely and saved once per inspector with the widget state, packed (a quarter the size).
def _trait_from_text(value, _widget):
    if not isinstance(value, str):
        return value
    return json.loads(value) if value.startswith("{") else unpack_json(value)


TEXT_TRAIT = {"to_json": lambda value, _widget: json.dumps(value, separators=(",", ":")),
              "from_json": _trait_from_text}
PACKED_TRAIT = {"to_json": lambda value, _widget: pack_json(value), "from_json": _trait_from_text}


def renderer_hash():
    return _renderer_block()[0]                 # the id static copies store and look up the renderer by


def renderer_packed():
    """The renderer as a notebook stores it, once: base64 of gzipped ``{js, css}`` (``unpack.js`` reads it)."""
    return _renderer_block()[1]


def compact_script(*names):
    """The loaders ``names`` as a notebook stores them, once per picture: their full-line comments, blank
    lines and indentation left out (they hold no multi-line string, which a test checks), joined."""
    lines = (line.strip() for name in names for line in asset(name).splitlines())
    return "\n".join(line for line in lines if line and not line.startswith("//"))


@functools.lru_cache(maxsize=1)
def live_module():
    """The live widget's ``_esm`` (``live_esm.js``): it loads ``live_loader()`` from the renderer model."""
    return compact_script("live_esm.js")


@functools.lru_cache(maxsize=1)
def live_loader():
    """What loads the renderer for the live views (``loader_live.js``), stored once in the renderer model."""
    return compact_script("unpack.js", "loader_live.js")


def fallback_html(snap, previews, carry=True):
    """The static copy of a widget's picture that a saved notebook keeps: an HTML fragment that loads the
    renderer from the one copy on the page made with ``carry`` (``loader.js``: stored once per notebook),
    draws nothing beside a live view (``mountFallback``) and hides a widget output that cannot draw. The
    snapshot travels packed (``pack_json``): each copy is stored in the notebook, 13 pictures of 3 views
    held 50 KB of snapshot JSON."""
    uid = secrets.token_hex(4)
    h, packed = _renderer_block()
    block = f'<script type="application/gzip" data-pti-renderer="{h}">{packed}</script>\n' if carry else ""
    b64 = base64.b64encode(previews).decode("ascii")
    return (f'<section class="pti-figure pti-fallback"><div class="pti-static" id="pti-{uid}"></div></section>\n'
            f'{block}<script type="module">\n{_static_loader()}\n'
            f'ptiDraw("{h}", "pti-{uid}", "{pack_json(snap)}", "{b64}");\n</script>\n')


@functools.lru_cache(maxsize=1)
def _static_loader():
    return compact_script("unpack.js", "loader.js")


def to_html_page(figures, title="pytensor memory inspector", fragment=False):
    """One self-contained page of several pictures, the renderer inlined once.

    ``figures`` are dicts with ``snapshot`` and ``previews`` (``snapshot()``'s
    pair) and optionally ``heading`` and ``text`` (plain text, `code` in
    backticks; blank lines separate paragraphs), as ``figure()`` makes them.
    """
    parts, mounts = [], []
    for fig in figures:
        uid = secrets.token_hex(4)
        snap, previews = fig["snapshot"], fig["previews"]
        parts.append('<section class="pti-figure">\n')
        if fig.get("heading"):
            parts.append(f'<h3 style="{_PROSE}; font-weight: 600">{html.escape(fig["heading"])}</h3>\n')
        for para in [p for p in fig.get("text", "").split("\n\n") if p.strip()]:
            parts.append(f'<p style="{_PROSE}; max-width: 52em">{_prose(para.strip())}</p>\n')
        parts.append(f'<div class="pti-static" id="pti-{uid}"></div>\n'
                     f'<noscript><pre>{html.escape(to_text(snap, previews))}</pre></noscript>\n</section>\n')
        data = script_json(snap)
        b64 = base64.b64encode(previews).decode("ascii")
        mounts.append(f'mountStatic(document.getElementById("pti-{uid}"), {data}, "{b64}");\n')
    body = ("".join(parts) + f'<style>{asset("inspector.css")}</style>\n<script type="module">\n'
            f'{asset("inspector.js")}\n{"".join(mounts)}</script>\n')
    if fragment:
        return body
    return ('<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f'<title>{html.escape(title)}</title>\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            '</head>\n<body style="margin: 12px; background: #fff">\n'
            f'<h2 style="{_PROSE}; font-weight: 600">{html.escape(title)}</h2>\n'
            f'{body}</body>\n</html>\n')


def _prose(text):
    """A paragraph as HTML: escaped, and each `name` in backticks set as code.

    >>> _prose("`a<b` shares `t`'s bytes")
    '<code>a&lt;b</code> shares <code>t</code>&#x27;s bytes'
    """
    return "".join(f"<code>{part}</code>" if k % 2 else part
                   for k, part in enumerate(html.escape(text).split("`"))) if text.count("`") % 2 == 0 \
        else html.escape(text)


def script_json(obj):
    """``obj`` as JSON that is safe inside an HTML ``<script>`` element, whatever its strings hold.

    The HTML tokenizer reads a script element's text before JavaScript does: ``</script`` ends it
    early, and ``<!--`` followed by ``<script`` makes the page's own ``</script>`` stop closing it
    (a name from a downloaded file can say either). With ``<``, ``>`` and ``&`` written as JSON
    escapes no tag or comment can start, and the parsed value is the same (json.dumps already
    writes every other non-ASCII character, U+2028 included, as an escape).

    >>> print(script_json({"name": "</script><!--<script>&"}))
    {"name":"\\u003c/script\\u003e\\u003c!--\\u003cscript\\u003e\\u0026"}
    """
    text = json.dumps(obj, separators=(",", ":"))
    for ch, esc in (("&", "\\u0026"), ("<", "\\u003c"), (">", "\\u003e")):
        text = text.replace(ch, esc)
    return text
