"""The snapshot's schema: its version, the keys of its dicts and what each means, and the preview size.

Units are in the names: a ``byte_offset``, ``footprint``, ``lo``/``hi`` or
``*_bytes`` counts bytes from the start of the view's region; ``strides`` and
``storage_offset`` count elements, as in torch and libtensor.
tests/test_widgets_keys.py checks that the dicts have exactly these keys and
that the renderer reads no other.
"""
from __future__ import annotations

__all__ = ["SNAPSHOT_VERSION", "PREVIEW_BYTES", "HOST", "VIEW_KEYS", "SOURCE_KEYS", "REGION_KEYS", "OVERLAP_KEYS",
           "PROCESSES_KEYS", "PROCESS_KEYS"]

SNAPSHOT_VERSION = 2      # 2: every byte-valued offset is named byte_offset (it was "offset")
PREVIEW_BYTES = 4096      # bytes of values sent per region; zooming elsewhere asks for another window
HOST = "cpu"            # the device name of host memory


VIEW_KEYS = {
    "id": "v0, v1, ... in the order the objects were inspected",
    "name": "the name the caller gave", "kind": "tensor, ndarray or buffer", "type": "the object's class",
    "region": "the id of the region holding its bytes",
    "dtype": "element type name", "itemsize": "bytes per element", "endian": "'<' or '>'",
    "shape": "elements per dimension", "strides": "elements per index step (None if not whole elements)",
    "bstrides": "bytes per index step", "byte_offset": "element 0's first byte, from the region start",
    "storage_offset": "element 0, in elements from its storage's start",
    "footprint": "[lo, hi): the bytes the layout can reach", "numel": "element count",
    "nbytes": "numel * itemsize", "touched_bytes": "distinct bytes read (None: too costly)",
    "max_hits": "most reads of one byte", "exact": "touched_bytes and max_hits are counts, not bounds",
    "self_overlap": "some byte is read twice (None: unknown)", "dense": "the touched bytes fill the footprint",
    "contiguous": "what the object's own is_contiguous / C_CONTIGUOUS says", "readonly": "writes are refused",
    "version": "write counter of its storage (None: not counted)",
    "provenance": "badge text of the memory owner", "provenance_kind": "badge kind of the memory owner",
    "tags": "stride idioms (idiom_tags)", "status": "live, temporary or freed (drawn from its last picture)", "note": "why it is temporary or freed",
    "lineage": "the steps that made it", "lineage_text": "lineage as one line",
    "origin": "shared or copied, and from what",
    "in_bounds": "its footprint lies inside a live source", "overlaps_with": "ids of views it shares bytes with",
    "exclusive_bytes": "bytes no other view reads", "shared_bytes": "bytes some other view reads too",
    "ownership_note": "why exclusive/shared bytes are None",
    "source": "index of its memory owner in its region's sources",
}
SOURCE_KEYS = {
    "kind": "storage or owner", "provenance": "owned, numpy, buffer, file, dlpack, torch or foreign",
    "label": "file name, exporter type, ...", "readonly": "the owner refuses writes",
    "refcount": "libtensor reference count (None: not a pytensor storage)", "version": "write counter",
    "device": "cpu, cuda:0, ...", "type": "the owner's class",
    "byte_offset": "where its bytes start, from the region start", "nbytes": "how many bytes it spans",
    "identity": "[device, inode, byte offset in that file] of its first byte (None: heap memory)",
}
REGION_KEYS = {
    "id": "r<address>, or f<device>-<inode>-<file offset> for a file (the same in every process)",
    "addr": "hex address of byte 0", "nbytes": "bytes spanned", "device": "cpu, cuda:0, ...",
    "host": "readable from the host", "sources": "SOURCE_KEYS dicts", "badges": "{kind, text, title} dicts",
    "views": "ids of its views", "readonly": "every source refuses writes", "file": "_files.file_info or None",
    "version": "sum of its storages' write counters", "preview": "{start, length, pos, known}: the bytes sent",
    "union_bytes": "distinct bytes all its views read", "union_note": "why union_bytes is None",
    "touched_sum": "the views' touched_bytes added up",
    "overlaps_total": "pairs of its views whose footprints meet (overlaps lists at most MAX_PAIRS of them)",
    "overlaps_note": "'' when overlaps lists every pair; else which pairs it lists",
    "identity": "{device, inode, byte_offset}: the file (or shared memory) whose bytes from byte_offset the "
                "region is, whichever mapping shows them (None: the region is named by its address)",
    "mappings": "[lo, hi, address] pieces: where this process reads the region's live bytes",
    "processes": "PROCESSES_KEYS dict (_processes.region_processes) or None: who else maps its pages",
}
PROCESSES_KEYS = {
    "mapping": "private or shared: how this process maps the bytes",
    "identity": "[device, inode, byte_offset] of the file under the bytes (UntypedStorage.identity()); None: heap",
    "page_size": "bytes per page", "pages": "pages the region's bytes lie on",
    "shared": "[lo, hi) byte ranges of the pages another process maps too (None: pagemap unreadable)",
    "copied": "[lo, hi) ranges of this process's own copies of pages another process maps (None: none can be)",
    "copied_since": "pages shared at this process's last picture of these bytes and copies now (0 at the first; "
    "None: pagemap unreadable)",
    "written": "[lo, hi) ranges of the pages of a shared mapping whose bytes differ from this process's last "
    "picture of them: written since, by any process, this one included (a per-page digest of the bytes, "
    "_written.py). Only pages this process's page tables map at both pictures are compared; a write that "
    "leaves the bytes as they were is not seen. [] at the first picture; None: a private mapping (there "
    "another process's writes are its own copies: copied), pagemap unreadable, or past the bytes a picture "
    "compares (the note says so)",
    "written_since": "how many pages ``written`` lists (None where it is None)",
    "pids": "PROCESS_KEYS dicts: this process first, then each other process that maps the bytes",
    "note": "what the picture's bounds on reading /proc left out ('' when nothing)",
}
PROCESS_KEYS = {
    "pid": "process id", "name": "its command name", "relation": "this process, parent, child (a descendant) or another process", "pss_bytes": "proportional set size of its mappings holding the bytes (None: unreadable)",
    "rss_bytes": "resident bytes of those mappings", "mapped_bytes": "bytes of those mappings",
    "shared_pages": "of its pages over the bytes, those another process maps too",
    "copied_pages": "of them, its own copies (None: a shared mapping, where nothing is copied)",
}
OVERLAP_KEYS = {
    "region": "region id", "a": "view id", "b": "view id (inspected after a)",
    "lo": "first shared footprint byte", "hi": "end of the shared footprint bytes",
    "shared_bytes": "bytes both touch (None: too costly)",
}
