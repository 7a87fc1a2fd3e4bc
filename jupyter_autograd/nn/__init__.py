"""``jupyter_autograd.nn``: modules, layers, losses, ``init`` and ``functional``, as ``torch.nn``."""

from . import (
    functional,  # noqa: F401
    init,  # noqa: F401
    utils,  # noqa: F401
)
from .modules import *
from .modules import Module  # noqa: F401
from .parameter import Buffer, Parameter  # noqa: F401
