"""Layers, containers, activations and losses."""

from .activation import GELU, Identity, LeakyReLU, LogSoftmax, ReLU, Sigmoid, Softmax, Tanh  # noqa: F401
from .container import ModuleDict, ModuleList, Sequential  # noqa: F401
from .linear import Dropout, Embedding, Flatten, LayerNorm, Linear  # noqa: F401
from .loss import (  # noqa: F401
    BCELoss,
    BCEWithLogitsLoss,
    CrossEntropyLoss,
    L1Loss,
    MSELoss,
    NLLLoss,
)
from .module import Module  # noqa: F401
