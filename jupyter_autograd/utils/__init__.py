"""``jupyter_autograd.utils``: ``data`` (datasets and loaders), as ``torch.utils``."""

from . import benchmark, checkpoint, data  # noqa: F401
