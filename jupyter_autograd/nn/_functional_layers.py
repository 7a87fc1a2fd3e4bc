"""The functional forms of the layers (convolution, pooling, normalization, padding...), kept
out of ``functional.py`` and re-exported there."""

from ._conv_functional import *  # noqa: F401,F403
from ._pad_functional import *  # noqa: F401,F403
from ._pool_functional import *  # noqa: F401,F403
from ._dropout_functional import *  # noqa: F401,F403
from ._norm_functional import *  # noqa: F401,F403
from ._loss_functional import *  # noqa: F401,F403
from ._interp_functional import *  # noqa: F401,F403
from ._margin_losses import *  # noqa: F401,F403
from ._attention_functional import *  # noqa: F401,F403
from ._embedding_bag import *  # noqa: F401,F403
from ._pixel_shuffle import *  # noqa: F401,F403
from ._fold import *  # noqa: F401,F403
from ._multi_margin import *  # noqa: F401,F403
from ._unpool import *  # noqa: F401,F403
from ._pool3d_functional import *  # noqa: F401,F403
