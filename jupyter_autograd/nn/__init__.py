"""``jupyter_autograd.nn``: ``functional`` (modules, layers and losses live in nn.modules)."""

from . import functional  # noqa: F401
