"""``jupyter_autograd.nn``: modules, layers, losses, ``init`` and ``functional``, as ``torch.nn``."""

from . import functional  # noqa: F401
from . import init  # noqa: F401
from .modules import *  # noqa: F401,F403
from .modules import Module  # noqa: F401
from .parameter import Buffer, Parameter  # noqa: F401
