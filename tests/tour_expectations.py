"""What the memory tour must show, question by question: one table for its two outputs.

examples/memory_tour.py writes a page with one picture per question, and
examples/memory_tour.ipynb (made from the same file) shows the same pictures
as live widgets. For each question the table gives:

* ``lanes``: ``(lane name, buffer letter)`` in picture order; lanes with the
  same letter lie on one buffer (they share memory), different letters on
  different buffers (a copy, or memory of its own);
* ``says``: phrases the computed answer must contain (its verdicts: if the
  tour computed another answer, the text would differ), among them what the
  inspector recorded about how a view was made ("`picked` was copied from
  `t`");
* ``temporary``: lanes whose Python object is gone once the cell ran (a view
  made inside the call), drawn while their bytes live (notebook only);
* ``freed_later``: lanes a later cell frees; the live picture must say so.

Beyond the table, every answer is read for claims about its own picture
(``claims``): "`x` shares `y`'s bytes", "`x` has its own bytes", "`x` was
copied from `y`" (the inspector's lineage record, where pytensor kept one),
"`x` is read-only", "refcount is n", "`x` has copied-on-write bytes", "byte
k is read by `v[i]`, ...", "`x` is shared with n other processes (...) and has k pages copied by this
process" (its processes strip). The browser tests check each claim against what
the picture draws, and that every lane drawn as copied (and every file
strip drawn with copied-on-write pages) is said to be.
"""
import re

QUESTIONS = [
    {"heading": "1. Does slicing copy?",
     "lanes": [("t", "A"), ("t[::2]", "A"), ("t[4:]", "A"), ("picked", "B")],
     "says": ["No: `t[::2]` shares `t`'s bytes", "t[::2].data_ptr() - t.data_ptr() == 0",
              "`picked` has its own bytes", "`picked` was copied from `t`"],
     "temporary": ["t[::2]", "t[4:]"]},
    {"heading": "2. Why is `grid.T` not contiguous?",
     "lanes": [("grid", "A"), ("grid.T", "A"), ("flat", "B")],
     "says": ["strides are (1, 4), and a contiguous (4, 3) tensor has strides (3, 1)",
              "`grid.T` shares `grid`'s bytes", "grid.T.is_contiguous() is False",
              "Use .reshape(...) instead.", "`flat` has its own bytes"],
     "temporary": ["grid.T"]},
    {"heading": "3. What does `expand` really allocate?",
     "lanes": [("row", "A"), ("wide", "A"), ("dense", "B")],
     "says": ["Nothing: wide = row.expand(3, 4) made 0 new storages", "`wide` shares `row`'s bytes",
              "12 elements from a 16 B storage", "`dense` has its own bytes", "a 48 B storage",
              "`dense` was copied from `wide`"]},
    {"heading": "4. What does `frombuffer` share with my `bytearray`?",
     "lanes": [("buf", "A"), ("lo", "A"), ("hi", "A"), ("frozen", "B")],
     "says": ["`lo` shares `buf`'s bytes [0, 8)", "`hi` shares `buf`'s bytes [8, 16)",
              "buf begins ff ff 02 03", "raises BufferError", "`frozen` is read-only",
              "copy it with .clone() to write"]},
    {"heading": "5. What happens to my file when I write to a `from_file` tensor?",
     "lanes": [("m", "A"), ("m[4:]", "A"), ("p", "B")],
     "says": ["With shared=True it changes", "the file on disk holds [-1.0, 1.0,",
              "With shared=False it does not change", "the file still holds 1.0 at [1]",
              "`p` has its own bytes"],
     "temporary": ["m[4:]"]},
    {"heading": "6. What crossed the DLPack boundary?",
     "lanes": [("x", "A"), ("a", "A"), ("c", "B")],
     "says": ["not the bytes: `a` shares `x`'s bytes", "x = [42.0, 1.0, 2.0, 3.0]",
              "refcount went from 1 to 2", "DLPack capsule", "`c` has its own bytes",
              "is_readonly() is True", "stride() is (-1,)"]},
    {"heading": "7. Who keeps my memory alive?",
     "lanes": [("middle", "A"), ("arr", "A")],
     "says": ["after del owner the storage is alive", "refcount is 2",
              "After `del middle, arr`, the storage is freed"],
     "freed_later": ["middle", "arr"]},
    {"heading": "8. Who reads byte 2 of this `bytearray`?",
     "lanes": [("base", "A"), ("rows", "A"), ("col", "A"), ("window", "A"), ("flipped", "A")],
     "says": ["byte 2 is read by `base[1]`, `rows[0, 1]`, `col[0]`, `window[0, 1]` and `flipped[6]`",
              "`col` shares `rows`'s bytes"]},
    {"heading": "9. Two mappings of one file: are they one buffer?",
     "lanes": [("first", "A"), ("second", "A"), ("mm", "A")],
     "says": ["and one file", "`second` shares `first`'s bytes", "second[5] is -5", "mm[1] is -5",
              "`mm` shares `first`'s bytes", "starts at file byte offset 16"]},
    {"heading": "10. When does torch copy: `g.T.reshape(6)`, `g.T.contiguous()`, `g.view(3, 2)`?",
     "lanes": [("g", "A"), ("g.T", "A"), ("g_rows", "A"), ("g_flat", "B"), ("g_dense", "C")],
     "says": ["strides (1, 3)", "`g_flat` has its own bytes", "`g_dense` has its own bytes",
              "`g_rows` shares `g`'s bytes", "`g.T` shares `g`'s bytes",
              "`g_flat` was copied from `g.T`, because reshape could not make a view: strides (1, 3) cannot "
              "express shape (6,)",
              "`g_dense` was copied from `g.T`, because it was not contiguous"],
     "temporary": ["g.T"]},
    {"heading": "11. What does a forked worker copy: my list, or my tensor?",
     "lanes": [("weights", "A")],
     "says": ["summed both and got the same total", "Your list was copied", "Reading a Python object writes its "
              "reference count", "Your tensor was not copied", "`weights` is shared with 1 other process (the "
              "worker) and has 0 pages copied by this process"]},
]

# The lanes each output must draw, in picture order, as (heading, lanes) pairs: the page draws
# every figure as it was when taken; the notebook's widgets, as they were when displayed.
TOUR_PAGE = [(q["heading"], q["lanes"]) for q in QUESTIONS]
TOUR_NOTEBOOK = TOUR_PAGE


def flat(text):
    """``text`` with every run of whitespace one space (printed answers are wrapped)."""
    return " ".join(text.split())


def check_says(question, text):
    """Every phrase the question's answer must contain is in ``text``."""
    missing = [s for s in question["says"] if s not in flat(text)]
    assert not missing, (question["heading"], missing, flat(text))


def check_lanes(heading, expected, drawn):
    """``drawn``: ``(name, region id)`` per lane as the picture has them; asserts they match ``expected``."""
    assert [n for n, _ in drawn] == [n for n, _ in expected], (heading, drawn)
    region_of = {}
    for (name, region), (_, group) in zip(drawn, expected):
        region_of.setdefault(group, region)
        assert region == region_of[group], (heading, name, "is not on its buffer")
    assert len(set(region_of.values())) == len(region_of), (heading, "buffers that should differ are one")


_CLAIMS = {
    "shares": re.compile(r"`([^`]+)` shares `([^`]+)`'s bytes"),
    "own": re.compile(r"`([^`]+)` has its own bytes"),
    "copied": re.compile(r"`([^`]+)` was copied from (?:`([^`]+)`)?"),
    "readonly": re.compile(r"`([^`]+)` is read-only"),
    "refcount": re.compile(r"refcount (?:is|went from \d+ to) (\d+)"),
    "cow": re.compile(r"`([^`]+)` has copied-on-write bytes"),
    "readers": re.compile(r"byte (\d+) is read by ((?:`[^`]+`(?:, | and )?)+)"),
    "procs": re.compile(r"`([^`]+)` is shared with (\d+) other process(?:es)? \([^)]*\) and has (\d+) pages? "
                        r"copied by this process"),
}


def claims(text):
    """What an answer says about its picture, as ``(kind, ...)`` tuples in a fixed order."""
    text = flat(text)
    out = [("shares", a, b) for a, b in _CLAIMS["shares"].findall(text)]
    out += [("own", a) for a in _CLAIMS["own"].findall(text)]
    out += [("copied", a, b or None) for a, b in _CLAIMS["copied"].findall(text)]
    out += [("readonly", a) for a in _CLAIMS["readonly"].findall(text)]
    out += [("cow", a) for a in _CLAIMS["cow"].findall(text)]
    out += [("refcount", int(n)) for n in _CLAIMS["refcount"].findall(text)]
    out += [("readers", int(k), re.findall(r"`([^`]+)`", who)) for k, who in _CLAIMS["readers"].findall(text)]
    out += [("procs", a, int(n), int(k)) for a, n, k in _CLAIMS["procs"].findall(text)]
    return out


def check_claims(heading, text, drawn, locked=(), badges=(), copied=(), cow_regions=(), procs=()):
    """The answer's claims hold in the picture, and the picture's marks are claimed by the answer.

    ``drawn``: ``(name, region)`` per lane; ``locked``: the lanes drawn with a lock; ``badges``: the
    badge texts; ``copied``: the lanes the picture marks as copied (where the inspector knows how
    each view was made); ``cow_regions``: regions whose file strip marks copied-on-write pages;
    ``procs``: ``{region: (other processes, pages copied by this process)}`` of the processes strips drawn.
    Returns the byte-reader claims, which need a hover to check. Every answer makes at least one
    claim, each about a lane it draws."""
    found = claims(text)
    assert found, (heading, "the answer says nothing checkable about its picture")
    region = dict(drawn)
    for c in found:
        named = [n for n in c[1:] if isinstance(n, str)] if c[0] != "readers" else []   # None: not a lane
        assert all(n in region for n in named), (heading, c, "names a lane the picture does not draw")
        if c[0] == "shares":
            assert region[c[1]] == region[c[2]], (heading, c)
        elif c[0] == "copied":       # the inspector's record: a copy, of a lane of the picture or not
            assert c[1] in copied and (c[2] is None or region[c[1]] != region[c[2]]), (heading, c, copied)
        elif c[0] == "own":
            assert [n for n, r in drawn if r == region[c[1]]] == [c[1]], (heading, c, drawn)
        elif c[0] == "readonly":
            assert c[1] in locked, (heading, c, locked)
        elif c[0] == "refcount":
            assert f"refs {c[1]}" in badges, (heading, c, badges)
        elif c[0] == "cow":
            assert region[c[1]] in cow_regions, (heading, c, cow_regions)
        elif c[0] == "procs":
            assert dict(procs).get(region[c[1]]) == (c[2], c[3]), (heading, c, procs)
    said = {c[1] for c in found if c[0] in ("own", "copied")}
    assert set(copied) <= said, (heading, "drawn as copied but not said to be", set(copied) - said)
    said = {region[c[1]] for c in found if c[0] == "cow"}
    assert set(cow_regions) <= said, (heading, "copied-on-write pages drawn but not said", cow_regions)
    said = {region[c[1]] for c in found if c[0] == "procs"}
    assert set(dict(procs)) <= said, (heading, "a processes strip drawn but not said", procs)
    return [c for c in found if c[0] == "readers"]
