"""The functional forms of the layers (convolution, pooling, normalization, padding...), kept
out of ``functional.py`` and re-exported there."""

from ._attention_functional import *
from ._conv_functional import *
from ._dropout_functional import *
from ._embedding_bag import *
from ._fold import *
from ._interp_functional import *
from ._loss_functional import *
from ._margin_losses import *
from ._multi_margin import *
from ._norm_functional import *
from ._pad_functional import *
from ._pixel_shuffle import *
from ._pool3d_functional import *
from ._pool_functional import *
from ._unpool import *
