"""``jupyter_autograd.utils``: ``data`` (datasets and loaders), as ``torch.utils``."""

from . import data  # noqa: F401
