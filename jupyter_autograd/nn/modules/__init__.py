"""Layers, containers, activations and losses."""

from ._param_containers import ParameterDict, ParameterList  # noqa: F401
from .activation import (  # noqa: F401
    GELU,
    Identity,
    LeakyReLU,
    LogSigmoid,
    LogSoftmax,
    ReLU,
    Sigmoid,
    Softmax,
    Softmin,
    Softplus,
    Tanh,
)
from .container import ModuleDict, ModuleList, Sequential  # noqa: F401
from .conv import *
from .dropout import *
from .embedding_bag import *
from .flatten import *
from .fold import *
from .lazy import *
from .linear import Dropout, Embedding, Flatten, LayerNorm, Linear  # noqa: F401
from .loss import (  # noqa: F401
    BCELoss,
    BCEWithLogitsLoss,
    CrossEntropyLoss,
    L1Loss,
    MSELoss,
    NLLLoss,
)
from .loss_extra import *
from .loss_margin import *
from .module import Module  # noqa: F401
from .multihead_attention import *
from .normalization import *
from .pixelshuffle import *
from .pooling import *
from .rnn import *
from .transformer import *
from .unpooling import *
from .upsampling import *
