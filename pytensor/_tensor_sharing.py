"""The Tensor part that shares memory with other processes: share_memory_() and is_shared().

Both act on the tensor's storage (pytensor/_shm.py does the work), so every
view of one storage is shared at once.
"""
from __future__ import annotations


class Sharing:
    """share_memory_, is_shared."""

    __slots__ = ()

    def share_memory_(self):
        """Moves the storage's bytes into shared memory, for every view of it; returns self.

        The bytes are copied once and ``data_ptr()`` changes (as torch's), for this tensor and its
        views alike: they all follow the one storage. Refused (RuntimeError) for bytes that belong to
        someone else (NumPy, a buffer, DLPack): share a copy, ``t.clone().share_memory_()``.

        >>> import pytensor
        >>> t = pytensor.arange(6); v = t[2:]
        >>> _ = t.share_memory_()
        >>> v.is_shared(), v.data_ptr() - t.data_ptr(), v.tolist()
        (True, 16, [2, 3, 4, 5])
        """
        self._storage.share_memory_()
        return self

    def is_shared(self):
        """True when other processes can map this tensor's bytes (shared memory, or a file mapped shared)."""
        return self._storage.is_shared()
