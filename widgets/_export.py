"""Outputs of a snapshot that need no kernel: a self-contained HTML page and a text summary.

The HTML page inlines ``inspector.js`` and ``inspector.css`` (no CDN, no
widget manager) and embeds the snapshot as JSON and the previews as base64,
so hover and zoom keep working in a file opened years later. The text
summary is what terminals, ``repr`` and GitHub's notebook viewer show.
"""
from __future__ import annotations

import base64
import functools
import html
import json
import secrets
import textwrap
from pathlib import Path

__all__ = ["to_html", "to_html_page", "to_text", "asset", "script_json"]

_HERE = Path(__file__).resolve().parent
BAR = 48             # characters in a text lane
BAR_BUDGET = 1 << 12  # element-walk steps per character before it is drawn as '~' (unknown)
WIDTH = 100          # columns of the text summary
TEXT_VIEWS = 256     # views described per summary (as the picture draws 256 lanes); the rest are counted
_PROSE = "font-family: system-ui, sans-serif; color: #212529"


def asset(name):
    """The text of a front-end file shipped beside this module (``inspector.js``, ``inspector.css``)."""
    return (_HERE / name).read_text(encoding="utf-8")


def to_html(snap, previews, title="pytensor memory inspector", fragment=False, fallback=False):
    """A self-contained HTML document (or a ``<div>`` fragment) drawing ``snap``.

    ``fallback``: a fragment that stands in for a live widget in the same
    output area and stays empty while one is drawn (``mountFallback``).
    """
    return to_html_page([{"snapshot": snap, "previews": previews}], title=title, fragment=fragment or fallback,
                        fallback=fallback)


def to_html_page(figures, title="pytensor memory inspector", fragment=False, fallback=False):
    """One self-contained page of several pictures, the renderer inlined once.

    ``figures`` are dicts with ``snapshot`` and ``previews`` (``snapshot()``'s
    pair) and optionally ``heading`` and ``text`` (plain text, `code` in
    backticks; blank lines separate paragraphs), as ``figure()`` makes them.
    """
    parts, mounts = [], []
    mount = "mountFallback" if fallback else "mountStatic"
    for fig in figures:
        uid = secrets.token_hex(4)
        snap, previews = fig["snapshot"], fig["previews"]
        parts.append(f'<section class="pti-figure{" pti-fallback" if fallback else ""}">\n')
        if fig.get("heading"):
            parts.append(f'<h3 style="{_PROSE}; font-weight: 600">{html.escape(fig["heading"])}</h3>\n')
        for para in [p for p in fig.get("text", "").split("\n\n") if p.strip()]:
            parts.append(f'<p style="{_PROSE}; max-width: 52em">{_prose(para.strip())}</p>\n')
        parts.append(f'<div class="pti-static" id="pti-{uid}"></div>\n'
                     f'<noscript><pre>{html.escape(to_text(snap, previews))}</pre></noscript>\n</section>\n')
        data = script_json(snap)
        b64 = base64.b64encode(previews).decode("ascii")
        mounts.append(f'{mount}(document.getElementById("pti-{uid}"), {data}, "{b64}");\n')
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


# ====================================================================== text
def _fmt_bytes(n):
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024 or unit == "TiB":
            return f"{n:g} {unit}" if unit == "B" else f"{n:.1f} {unit}".replace(".0 ", " ")
        n /= 1024


def _decode(chunk, dtype, endian, count):
    """Up to ``count`` values from raw bytes, or None for a dtype we cannot decode."""
    import numpy as np
    try:
        if dtype == "bfloat16":
            raw = np.frombuffer(chunk, dtype=np.dtype("u2").newbyteorder(endian))
            vals = (raw.astype(np.uint32) << 16).view(np.float32)
        else:
            vals = np.frombuffer(chunk, dtype=np.dtype(dtype).newbyteorder(endian))
    except (TypeError, ValueError):
        return None
    return vals[:count].tolist()


def _values(view, region, previews, count=6):
    """The first few element values of ``view`` that lie inside the region's preview window."""
    from ._geometry import elements_in_window
    p = region["preview"]
    els = elements_in_window(view["shape"], view["bstrides"], view["itemsize"], view["byte_offset"],
                             p["start"], p["start"] + p["length"], limit=256)
    els.sort(key=lambda e: e[0])
    out = []
    for idx, start in els:
        if len(out) >= count:
            break
        if not any(a <= start and start + view["itemsize"] <= b for a, b in p["known"]):
            continue
        pos = p["pos"] + start - p["start"]
        vals = _decode(previews[pos:pos + view["itemsize"]], view["dtype"], view["endian"], 1)
        if vals is None:
            return None
        out.append((idx, vals[0]))
    return out


def _bar(view, nbytes):
    """One text lane: '#' touched, '.' inside the footprint but skipped, ' ' outside, '~' too costly to tell."""
    from ._geometry import elements_in_window
    chars = []
    width = min(BAR, max(1, nbytes))
    lo, hi = view["footprint"]
    for k in range(width):
        a, b = nbytes * k // width, nbytes * (k + 1) // width
        if b <= lo or a >= hi:
            chars.append(" ")
            continue
        if view["dense"]:
            chars.append("#")
            continue
        els = elements_in_window(view["shape"], view["bstrides"], view["itemsize"], view["byte_offset"], a, b,
                                 limit=1, budget=BAR_BUDGET)
        chars.append("#" if els else "~" if els.truncated else ".")
    return "".join(chars)


def _fmt_value(x):
    """A value as a learner reads it: floats to 6 significant digits (float32's own precision)."""
    if isinstance(x, float):
        return f"{x:.6g}"
    if isinstance(x, complex):
        return f"{x.real:.6g}{x.imag:+.6g}j"
    return str(x)


def _n(x):
    return "? B" if x is None else f"{x} B"


def _total_text(r, nviews):
    """The buffer's bytes reached by all its views, each byte once, beside the double-counting sum."""
    out = f"its views reach {_n(r['union_bytes'])} of this {r['nbytes']} B buffer, each byte once"
    if r["union_bytes"] is None:
        return out + f" ({r['union_note']})"
    if r["touched_sum"] is not None and nviews > 1 and r["touched_sum"] != r["union_bytes"]:
        out += f" ({r['touched_sum']} B if each view were counted alone)"
    return out


def _owns_text(v):
    out = f"touches {_n(v['touched_bytes'])}, {_n(v['exclusive_bytes'])} alone"
    if v["exclusive_bytes"] is None and v.get("ownership_note"):
        out += f" ({v['ownership_note']})"
    return out


def _pages_text(ranges, note, what):
    if ranges is None:
        return note or f"{what} unknown"
    return f"{what} {_fmt_bytes(sum(b - a for a, b in ranges))}"


def _file_text(f):
    """A mapped file in one sentence: path, mapping, file byte range, resident and copied-on-write bytes."""
    off = f.get("file_offset") or 0
    out = f"file {f['path']}, {f['mapping']} mapping, file bytes [{off}, {off + f['nbytes']})"
    out += "; " + _pages_text(f.get("resident"), f.get("resident_note"), "resident in RAM:")
    if f.get("cow") is not None or f.get("cow_note"):
        out += "; " + _pages_text(f.get("cow"), f.get("cow_note"), "copied on write:")
    return out


def _index_text(idx):
    return f"[{','.join(map(str, idx))}]"      # no spaces: the line wrapper never splits an index


def to_text(snap, previews, width=WIDTH):
    """A plain-text account of ``snap``: one block per buffer, a few lines per view, ``width`` columns."""
    vmap = {v["id"]: v for v in snap["views"]}
    nv, nr = len(snap["views"]), len(snap["regions"])
    shares = {}             # per view, the pairs it shares bytes in: one pass over the pairs, not one per view
    for o in snap["overlaps"]:
        if o["shared_bytes"] != 0:
            n = "?" if o["shared_bytes"] is None else o["shared_bytes"]
            shares.setdefault(o["a"], []).append(f"{n} B with {vmap[o['b']]['name']}")
            shares.setdefault(o["b"], []).append(f"{n} B with {vmap[o['a']]['name']}")
    left = TEXT_VIEWS
    lines = [f"pytensor memory inspector: {nv} view{'s' * (nv != 1)} of {nr} buffer{'s' * (nr != 1)}"]
    # a long name is clipped in the lane's bar line (the line must fit); the line after it has room
    name_w = min(max([len(v["name"]) for v in snap["views"]] + [4]), width - BAR - 6)
    wrap = functools.partial(textwrap.wrap, width=width, initial_indent="      ", subsequent_indent="        ",
                             break_on_hyphens=False)
    for k, r in enumerate(snap["regions"]):
        badges = ", ".join(b["text"] for b in r["badges"])
        lines += textwrap.wrap(f"buffer {k + 1}: {_fmt_bytes(r['nbytes'])} at {r['addr']}"
                               f"{'' if r['host'] else ' on ' + r['device']} [{badges}]",
                               width=width, subsequent_indent="    ")
        p = r["preview"]
        if p["length"]:
            head = previews[p["pos"]:p["pos"] + min(p["length"], 24)]
            lines.append(f"  bytes {p['start']}..: {head.hex(' ')}{' ...' if p['length'] > 24 else ''}")
        if "union_bytes" in r:
            lines += textwrap.wrap(_total_text(r, len(r["views"])), width=width, initial_indent="  ",
                                   subsequent_indent="    ")
        if r.get("file"):
            lines += textwrap.wrap(_file_text(r["file"]), width=width, initial_indent="  ", subsequent_indent="    ",
                                   break_on_hyphens=False)
        if r.get("overlaps_note"):
            lines += textwrap.wrap(r["overlaps_note"], width=width, initial_indent="  ", subsequent_indent="    ")
        listed = r["views"][:max(0, left)]
        left -= len(listed)
        for vid in listed:
            v = vmap[vid]
            lo, hi = v["footprint"]
            strides = tuple(v["strides"]) if v["strides"] is not None else f"{tuple(v['bstrides'])} bytes"
            about = [f"{v['dtype']}[{', '.join(map(str, v['shape']))}], strides {strides}, bytes [{lo}, {hi}), "
                     f"{', '.join(v['tags'])}"]
            if v.get("status") == "temporary" or v.get("note"):
                about.append(v.get("note") or "temporary")
            if v["max_hits"] > 1:
                about.append(f"reads bytes up to {v['max_hits']}x")
            if "exclusive_bytes" in v:
                about.append(_owns_text(v))
            if shares.get(vid):
                about.append("shares " + ", ".join(shares[vid]))
            if v["readonly"]:
                about.append("read-only")
            if v.get("lineage_text"):
                about.append(f"made by {v['lineage_text']}")
            if v.get("origin") and v["origin"].get("text"):
                about.append(v["origin"]["text"])
            vals = _values(v, r, previews)
            if vals:
                about.append("values " + ", ".join(f"{_index_text(i)}={_fmt_value(x)}" for i, x in vals[:4])
                             + ("\u2026" if len(vals) > 4 else ""))
            name = v["name"] if len(v["name"]) <= name_w else v["name"][:name_w - 1] + "\u2026"
            lines.append(f"  {name:<{name_w}} |{_bar(v, r['nbytes'])}|")
            lines += wrap("; ".join(about))
        if len(listed) < len(r["views"]):
            lines += textwrap.wrap(f"too many to list: showing {len(listed)} of this buffer's {len(r['views'])} "
                                   f"views ({TEXT_VIEWS} in one summary)", width=width, initial_indent="  ",
                                   subsequent_indent="    ")
    for g in snap.get("gone", []):
        lines += textwrap.wrap(f"freed: {g['name']} ({g['note']})", width=width, subsequent_indent="    ")
    return "\n".join(lines)
