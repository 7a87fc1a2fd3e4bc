"""The functional forms of the layers (convolution, pooling, normalization, padding...), kept
out of ``functional.py`` and re-exported there."""

from ._conv_functional import *  # noqa: F401,F403
from ._pad_functional import *  # noqa: F401,F403
from ._pool_functional import *  # noqa: F401,F403
