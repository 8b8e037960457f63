"""torch.utils-style helpers (``pytensor.utils.dlpack``).

>>> import pytensor
>>> from pytensor.utils import dlpack
>>> dlpack.from_dlpack(dlpack.to_dlpack(pytensor.arange(3))).tolist()
[0, 1, 2]
"""
from . import dlpack  # noqa: F401
