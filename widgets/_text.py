"""The text summary of a snapshot: what terminals, ``repr`` and GitHub's notebook viewer show.

One block per buffer and a few lines per view, ``WIDTH`` columns. Its cost follows
the picture, not the square of its views: at most ``TEXT_VIEWS`` views are described,
each names at most ``TEXT_PARTNERS`` of the views it shares bytes with ("and 180
more", as the picture's table does), and the pairs of the snapshot are read once.
A ``Work`` (``widgets/_pairs.py``) passed in counts what was written, so tests
bound it without timing anything.
"""
from __future__ import annotations

import functools
import textwrap

from ._geometry import elements_in_window
from ._processes_text import processes_text

__all__ = ["to_text", "BAR", "WIDTH", "TEXT_VIEWS", "TEXT_PARTNERS"]

BAR = 48             # characters in a text lane
BAR_BUDGET = 1 << 12  # element-walk steps per character before it is drawn as '~' (unknown)
WIDTH = 100          # columns of the text summary
TEXT_VIEWS = 256     # views described per summary (as the picture draws 256 lanes); the rest are counted
BAR_ELEMENTS = 1 << 16  # elements of a view whose bar is marked at once (NumPy); a bigger one's, character by character
TEXT_PARTNERS = 6    # views named per "shares" list (the picture's table names as many); the rest are counted


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
    p = region["preview"]
    # the walk finds elements in row-major index order: the first few found are the first by index
    els = elements_in_window(view["shape"], view["bstrides"], view["itemsize"], view["byte_offset"],
                             p["start"], p["start"] + p["length"], limit=8 * count)
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


def _bar_at_once(view, nbytes, width):
    """The bar from every element's first byte at once (NumPy, a view of up to BAR_ELEMENTS elements),
    or None for a bigger view: each element marks the characters its bytes meet."""
    import numpy as np
    lo, hi = view["footprint"]
    if view["numel"] > BAR_ELEMENTS:
        return None
    offs = np.array([view["byte_offset"]], dtype=np.int64)
    for n, s in zip(view["shape"], view["bstrides"]):
        offs = np.add.outer(offs, np.arange(n, dtype=np.int64) * s).ravel()
    starts = np.array([nbytes * k // width for k in range(width + 1)], dtype=np.int64)
    first = np.searchsorted(starts, offs, side="right") - 1            # the character of an element's first byte
    last = np.searchsorted(starts, offs + view["itemsize"] - 1, side="right") - 1
    marks = np.zeros(width + 1, dtype=np.int64)
    np.add.at(marks, np.clip(first, 0, width), 1)
    np.add.at(marks, np.clip(last + 1, 0, width), -1)
    hit = np.cumsum(marks)[:width] > 0
    return "".join(" " if b <= lo or a >= hi else "#" if hit[k] else "."
                   for k, (a, b) in enumerate(zip(starts.tolist(), starts[1:].tolist())))


def _bar(view, nbytes):
    """One text lane: '#' touched, '.' inside the footprint but skipped, ' ' outside, '~' too costly to tell."""
    chars = []
    width = min(BAR, max(1, nbytes))
    lo, hi = view["footprint"]
    if not view["dense"] and hi > lo:
        at_once = _bar_at_once(view, nbytes, width)
        if at_once is not None:
            return at_once
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


def _partners(snap, described):
    """``({view id: [(partner id, shared bytes), ...]}, {view id: how many more})`` for the described
    views: at most TEXT_PARTNERS each, in picture order. One pass over the pairs, a set lookup each;
    the names kept are bounded."""
    vmap = {v["id"]: v for v in snap["views"]}
    out = {vid: [] for vid in described}
    more = dict.fromkeys(described, 0)
    wanted, older = {}, []
    for vid in described:
        ids = vmap[vid].get("overlaps_with")
        if ids is None:                        # an older snapshot: every pair it lists, in its order
            older.append(vid)
            continue
        for pid in ids[:TEXT_PARTNERS]:        # the model names each view's partners in picture order
            wanted[(vid, pid)] = len(wanted)
        more[vid] = max(0, len(ids) - TEXT_PARTNERS)
    found = []
    for o in snap["overlaps"]:
        a, b = o["a"], o["b"]
        for key in ((a, b), (b, a)):
            if key in wanted and o["shared_bytes"] != 0:
                found.append((wanted[key], key, o["shared_bytes"]))
    for _, (vid, pid), n in sorted(found):
        out[vid].append((pid, n))
    if older:
        keep = set(older)
        for o in snap["overlaps"]:
            for me, other in ((o["a"], o["b"]), (o["b"], o["a"])):
                if me in keep and o["shared_bytes"] != 0:
                    if len(out[me]) < TEXT_PARTNERS:
                        out[me].append((other, o["shared_bytes"]))
                    else:
                        more[me] += 1
    return out, more


def _shares_text(pairs, more, vmap, work):
    if not pairs and not more:
        return ""
    if work is not None:
        work.text_partners += len(pairs)
    named = [f"{'?' if n is None else n} B with {vmap[pid]['name']}" for pid, n in pairs]
    return "shares " + ", ".join(named) + (f", and {more} more view{'s' * (more != 1)}" if more else "")


def _view_lines(v, r, previews, shares, name_w, wrap):
    """A view's bar line and the wrapped sentence about it."""
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
    if shares:
        about.append(shares)
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
    return [f"  {name:<{name_w}} |{_bar(v, r['nbytes'])}|"] + wrap("; ".join(about))


def _region_head(k, r, previews, width):
    badges = ", ".join(b["text"] for b in r["badges"])
    lines = textwrap.wrap(f"buffer {k + 1}: {_fmt_bytes(r['nbytes'])} at {r['addr']}"
                          f"{'' if r['host'] else ' on ' + r['device']} [{badges}]",
                          width=width, subsequent_indent="    ")
    p = r["preview"]
    if p["length"]:
        head = previews[p["pos"]:p["pos"] + min(p["length"], 24)]
        lines.append(f"  bytes {p['start']}..: {head.hex(' ')}{' ...' if p['length'] > 24 else ''}")
    para = functools.partial(textwrap.wrap, width=width, initial_indent="  ", subsequent_indent="    ")
    if "union_bytes" in r:
        lines += para(_total_text(r, len(r["views"])))
    if r.get("file"):
        lines += para(_file_text(r["file"]), break_on_hyphens=False)
    if processes_text(r.get("processes")):
        lines += para(processes_text(r["processes"], _fmt_bytes), break_on_hyphens=False)
    if r.get("overlaps_note"):
        lines += para(r["overlaps_note"])
    return lines


def to_text(snap, previews, width=WIDTH, work=None):
    """A plain-text account of ``snap``: one block per buffer, a few lines per view, ``width`` columns.

    ``work``: a ``_pairs.Work`` that counts the views described and the partners named.
    """
    vmap = {v["id"]: v for v in snap["views"]}
    nv, nr = len(snap["views"]), len(snap["regions"])
    left, listed = TEXT_VIEWS, {}
    for r in snap["regions"]:
        listed[r["id"]] = r["views"][:max(0, left)]
        left -= len(listed[r["id"]])
    partners, more = _partners(snap, [vid for ids in listed.values() for vid in ids])
    lines = [f"pytensor memory inspector: {nv} view{'s' * (nv != 1)} of {nr} buffer{'s' * (nr != 1)}"]
    # a long name is clipped in the lane's bar line (the line must fit); the line after it has room
    name_w = min(max([len(v["name"]) for v in snap["views"]] + [4]), width - BAR - 6)
    wrap = functools.partial(textwrap.wrap, width=width, initial_indent="      ", subsequent_indent="        ",
                             break_on_hyphens=False)
    for k, r in enumerate(snap["regions"]):
        lines += _region_head(k, r, previews, width)
        for vid in listed[r["id"]]:
            shares = _shares_text(partners[vid], more[vid], vmap, work)
            lines += _view_lines(vmap[vid], r, previews, shares, name_w, wrap)
        if work is not None:
            work.text_views += len(listed[r["id"]])
        if len(listed[r["id"]]) < len(r["views"]):
            lines += textwrap.wrap(f"too many to list: showing {len(listed[r['id']])} of this buffer's "
                                   f"{len(r['views'])} views ({TEXT_VIEWS} in one summary)", width=width,
                                   initial_indent="  ", subsequent_indent="    ")
    for g in snap.get("gone", []):
        lines += textwrap.wrap(f"freed: {g['name']} ({g['note']})", width=width, subsequent_indent="    ")
    return "\n".join(lines)
