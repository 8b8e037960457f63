"""The inspector's interface: the package-internal names ``pytensor.widgets`` may use.

The inspector sits a layer above the binding. Besides pytensor's public names
(``Tensor``, ``UntypedStorage``, ``PytensorError``, ...) it needs two things
no user calls: libtensor's layout rules, to draw what a view touches the way
libtensor computes it, and the provenance records, to say how each view was
made and which write went through which view. It reaches them here and only
here (``tests/structure/test_import_structure.py`` fails on a widget module that imports
another private pytensor module or reads one through ``sys.modules``, and on
a name it takes from this module that is not listed below), so a change to
``_layout`` or ``_provenance`` that the inspector would feel shows up in this
file. A name the inspector starts to need is added to ``__all__`` here.

>>> from pytensor import _inspect_api as api
>>> api.byte_extent((3, 2), (8, -4), 4, 4), api.numel((2, 3))
((0, 24), 6)
"""
from ._layout import byte_extent, contiguous_strides, is_contiguous, numel, view_strides
from ._shm import address_copied_pages, address_identity
from ._provenance import OPS, chain, inline_refs, last_writer, node, origin, parent_ref, source, source_text

__all__ = [
    # layout rules (libtensor's layout.c, through pytensor/_layout.py)
    "byte_extent", "contiguous_strides", "is_contiguous", "numel", "view_strides",
    # provenance: each tensor's node, its chain of steps, their text, and the last writer of a storage
    "OPS", "chain", "inline_refs", "last_writer", "node", "origin", "parent_ref", "source", "source_text",
    # memory no storage describes (a NumPy memmap, torch's mappings): its file identity and copied pages
    "address_copied_pages", "address_identity",
]
