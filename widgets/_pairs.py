"""Which views of a buffer overlap, with the work bounded by the picture, not by the square of its views.

Ten thousand views of one buffer make fifty million overlapping pairs: listing
them, let alone counting the bytes each pair shares, would stall the picture
for minutes. So the pairs are *counted* for every view by sorting footprints
(``listed_prefix``: ``O(n log n)`` searches, no pair visited), and *listed* only among
the first views in the inspected order, as many as fit in ``MAX_PAIRS``: the
first lanes are the ones drawn. A region whose pairs were not all listed says
so (``overlaps_total`` beside the listed ones, and ``overlaps_note``).

``Work`` counts what one picture did (pairs visited, pairs counted byte by
byte, pages of mapped files asked about), so tests can assert that work is
bounded without timing anything.

>>> listed_prefix([(0, 8), (4, 12), (12, 16), (3, 3)], budget=10)
(4, 1)
"""
from __future__ import annotations

import bisect

__all__ = ["MAX_PAIRS", "COUNTED_PAIRS", "COUNT_WORK", "Work", "listed_prefix", "meeting_pairs"]

MAX_PAIRS = 1 << 14        # overlapping pairs listed per picture; the rest are counted, not listed
COUNTED_PAIRS = 1 << 11    # pairs whose shared bytes may be counted element by element (a NumPy pass each)
COUNT_WORK = 1 << 25       # elements and mask bytes those passes may touch together


class Work:
    """What one picture cost, in units a test can count: never seconds.

    ``pairs_listed``: overlapping pairs listed (at most ``MAX_PAIRS``);
    ``pairs_visited``: pairs of views whose footprints were compared while listing them;
    ``pairs_counted``: pairs whose shared bytes were counted element by element (the costly kind);
    ``count_work``: elements and mask bytes those counts touched;
    ``pages_asked``: pages of mapped files whose residency was asked of the kernel;
    ``pages_cache``: residency answers kept for the rest of the picture, by storage;
    ``text_views``, ``text_partners``: views the text summary described, and partners it named in
    their "shares" lists (``_text.to_text``).
    """

    def __init__(self):
        self.pairs_listed = 0
        self.pairs_visited = 0
        self.pairs_counted = 0
        self.count_work = 0
        self.pages_asked = 0
        self.pages_cache = {}
        self.text_views = 0
        self.text_partners = 0

    def may_count(self, cost):
        """Whether one more element-by-element count of ``cost`` units fits the picture's budget."""
        if self.pairs_counted >= COUNTED_PAIRS or self.count_work + cost > COUNT_WORK:
            return False
        self.pairs_counted += 1
        self.count_work += cost
        return True


def listed_prefix(footprints, budget):
    """``(k, total)``: the pairs among the first ``k`` ranges (all of them when they fit) number at most
    ``budget``; ``total`` is the number of meeting pairs among all of them.

    Ranges are added in order, each counting the earlier ranges it meets with two binary searches
    over the sorted starts and ends of those before it.

    >>> listed_prefix([(0, 10), (0, 10), (0, 10), (20, 30)], 1)
    (2, 3)
    """
    starts, ends = [], []
    total, k = 0, None
    for j, (lo, hi) in enumerate(footprints):
        if hi > lo:
            # earlier non-empty ranges, less those wholly before lo and those wholly after hi
            meets = len(starts) - bisect.bisect_right(ends, lo) - (len(starts) - bisect.bisect_left(starts, hi))
            total += meets
            bisect.insort(starts, lo)
            bisect.insort(ends, hi)
        if k is None and total > budget:
            k = j
    return (len(footprints) if k is None else k), total


def meeting_pairs(views, work):
    """Pairs ``(p, q)`` of ``views`` (dicts with a ``footprint``) whose footprints share a byte.

    A sweep by footprint start: a view meets only those that start before it ends, so disjoint
    views cost nothing; each pair compared is counted in ``work.pairs_visited``.
    """
    ordered = sorted(views, key=lambda v: v["footprint"][0])
    out = []
    for x, p in enumerate(ordered):
        if p["footprint"][1] <= p["footprint"][0]:
            continue
        for q in ordered[x + 1:]:
            if q["footprint"][0] >= p["footprint"][1]:
                break
            work.pairs_visited += 1
            if q["footprint"][1] > q["footprint"][0]:
                out.append((p, q))
    return out
