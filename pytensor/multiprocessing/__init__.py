"""``pytensor.multiprocessing``: the standard ``multiprocessing`` module, with tensors that cross it shared.

A drop-in, as ``torch.multiprocessing`` is: every name of ``multiprocessing``
(``Process``, ``Queue``, ``Pool``, ``get_context``, ...) is re-exported, and
importing this module registers pytensor's reducers on multiprocessing's
``ForkingPickler``. A tensor put on a Queue or Pipe, passed to a Pool or
given to a Process (fork, spawn or forkserver) then arrives as a view of
the same physical pages: a write on one side is seen on the other. See
``reductions`` for how each kind of storage travels and ``_fd_server`` for
how descriptors stay few.

>>> import operator, pytensor, pytensor.multiprocessing as mp
>>> t = pytensor.zeros(3)
>>> with mp.get_context("spawn").Pool(1) as pool:  # the worker fills t in place
...     pool.apply(operator.methodcaller("fill_", 7.0), (t,)).tolist(), t.tolist(), t.is_shared()
([7.0, 7.0, 7.0], [7.0, 7.0, 7.0], True)
"""
import multiprocessing as _mp
from multiprocessing import *  # noqa: F401,F403  (the drop-in: every public name)

from .reductions import init_reductions

__all__ = list(_mp.__all__) + ["init_reductions"]

init_reductions()
