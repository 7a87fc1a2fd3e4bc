"""The op registry (``OPS``) and the modules that fill it, one per family."""

from . import (  # noqa: F401 - registration
    activation,
    binary,
    elementwise,
    indexing,
    layout,
    linalg,
    linalg_lu,
    linalg_rows,
    loss,
    nn_ops,
    products,
    random_ops,
    reduction,
    shape,
    sorting,
    strided,
    trig,
)
from .registry import NO_GRAD, NOT_IMPLEMENTED, OPS, REGISTRY, defop  # noqa: F401
from . import attention, conv, embedding_bag, fold, loss_extra, multi_margin, norm, padding, pixel_shuffle, pooling, pooling3d, unpool, upsample  # noqa: F401,E402 - the layers' rows (convolution, pooling, normalization...)
