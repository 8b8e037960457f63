"""The processes strip in words, for the text export: one sentence a region (``_processes.py`` makes the data).

A module of its own so that the text export can import it from any layer.
"""
from __future__ import annotations

__all__ = ["processes_text"]


def processes_text(p, fmt_bytes=lambda n: f"{n} B"):
    """One sentence for the text export: who else maps the bytes, each one's PSS, the pages copied or
    written; '' when no other process maps them and none was copied or written since the last picture. ``fmt_bytes`` writes a
    byte count (the text export passes its own, so that every number of a summary reads alike).

    >>> me = {"pid": 10, "relation": "this process", "pss_bytes": 8192, "mapped_bytes": 16384,
    ...       "shared_pages": 4, "copied_pages": 0}
    >>> child = dict(me, pid=11, relation="child", copied_pages=2)
    >>> processes_text({"pids": [me, child], "pages": 4, "shared": [[0, 16384]], "copied_since": 0,
    ...                 "written_since": None, "note": ""})
    'processes: shared with pid 11 (child); PSS: this process 8192 B of a 16384 B mapping, pid 11 8192 B of a 16384 B mapping; 4 of 4 pages shared; 0 pages copied by this process, 2 by pid 11'
    >>> alone = dict(me, pss_bytes=None, shared_pages=0, copied_pages=None)
    >>> processes_text({"pids": [alone], "pages": 4, "shared": [], "copied_since": 0,
    ...                 "written_since": 1, "note": ""})
    'processes: shared with no other process; 0 of 4 pages shared; 1 page written since the last picture'
    """
    if not p or (len(p["pids"]) < 2 and not p["copied_since"] and not p["written_since"]):
        return ""
    me, others = p["pids"][0], p["pids"][1:]
    parts = ["shared with " + (", ".join(f"pid {o['pid']} ({o['relation']})" for o in others) or "no other process")]
    pss = [f"{'this process' if o is me else 'pid %d' % o['pid']} {fmt_bytes(o['pss_bytes'])} of a "
           f"{fmt_bytes(o['mapped_bytes'])} mapping" for o in p["pids"] if o["pss_bytes"] is not None]
    if pss:
        parts.append("PSS: " + ", ".join(pss))
    if p["shared"] is not None:
        parts.append(f"{me['shared_pages']} of {p['pages']} pages shared")
    if me["copied_pages"] is not None:
        parts.append(", ".join([f"{me['copied_pages']} pages copied by this process"] +
                               [f"{o['copied_pages']} by pid {o['pid']}" for o in others if o["copied_pages"]]))
    if p["copied_since"]:
        parts.append(f"{p['copied_since']} pages copied since the last picture")
    if p["written_since"]:
        n = p["written_since"]
        parts.append(f"{n} page{'' if n == 1 else 's'} written since the last picture")
    if p["note"]:
        parts.append("note: " + p["note"])
    return "processes: " + "; ".join(parts)
