"""What the memory tour must draw, section by section: one table for its two outputs.

Each picture is a list of ``(lane name, buffer letter)``: the lanes the
section's text names, in order, and which of them lie on one buffer (the
same letter) or on different buffers (different letters).
"""

# examples/memory_tour.py: the figures of the page it writes (memory_tour.html)
TOUR_PAGE = [
    ("1. Views", [("base", "A"), ("grid", "A"), ("col", "A"), ("grid.T", "A"), ("grid[1]", "A")]),
    ("2. Stride tricks", [("base", "A"), ("row", "A"), ("base[:1].expand(6)", "A"), ("win", "A")]),
    ("3. NumPy", [("a", "A"), ("asarray(a)", "A"), ("asarray(a, copy=True)", "B")]),
    ("4. frombuffer", [("buf", "A"), ("lo", "A"), ("hi", "A"), ("frozen", "B")]),
    ("5. from_file", [("m", "A"), ("tail", "A"), ("p", "B")]),
    ("6. DLPack", [("t", "A"), ("a", "A"), ("src", "B"), ("src[::-1]", "B"), ("rev", "B")]),
    ("7. All together", [("base", "A"), ("grid", "A"), ("col", "A"), ("window", "A"), ("flipped", "A")]),
]

# examples/memory_tour.ipynb: its inspect() calls in order (lanes are grouped by buffer, in
# the order of each buffer's first lane)
TOUR_NOTEBOOK = [
    ("1. Views", [("base", "A"), ("grid", "A"), ("col", "A"), ("gT", "A")]),
    ("2. Stride tricks", [("base", "A"), ("grid[0:1].expand(3, 4)", "A"), ("base[:1].expand(6)", "A"),
                          ("win", "A")]),
    ("3. NumPy", [("a", "A"), ("t", "A"), ("a[::-1]", "A"), ("c", "B")]),
    ("4. frombuffer", [("buf", "A"), ("lo", "A"), ("hi", "A"), ("frozen", "B")]),
    ("5. from_dlpack", [("src", "A"), ("d", "A"), ("d[::2]", "A"), ("pytensor.from_dlpack(src[::-1])", "A")]),
    ("6. from_file", [("m", "A"), ("m[4:8]", "A"), ("words", "A")]),
    ("7. A large buffer", [("big", "A"), ("big[::1024]", "A"), ("big[2**27:]", "A")]),
]


def check_lanes(heading, expected, drawn):
    """``drawn``: ``(name, region id)`` per lane as the picture has them; asserts they match ``expected``."""
    assert [n for n, _ in drawn] == [n for n, _ in expected], (heading, drawn)
    region_of = {}
    for (name, region), (_, group) in zip(drawn, expected):
        region_of.setdefault(group, region)
        assert region == region_of[group], (heading, name, "is not on its buffer")
    assert len(set(region_of.values())) == len(region_of), (heading, "buffers that should differ are one")
