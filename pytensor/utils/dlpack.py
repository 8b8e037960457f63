"""``to_dlpack`` and ``from_dlpack`` under torch's names (torch.utils.dlpack).

>>> import numpy as np, pytensor
>>> from pytensor.utils.dlpack import to_dlpack, from_dlpack
>>> t = pytensor.arange(3)
>>> u = from_dlpack(to_dlpack(t)); u[0] = 7; t
tensor([7, 1, 2])
"""
from .._dlpack import DLDeviceType, from_dlpack, to_dlpack

__all__ = ["DLDeviceType", "from_dlpack", "to_dlpack"]
