"""torch.utils-style helpers (``pytensor.utils.dlpack``)."""
from . import dlpack  # noqa: F401
