"""Layers, containers, activations and losses."""

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
from .conv import *  # noqa: F401,F403,E402 - the layers stream's modules
from .flatten import *  # noqa: F401,F403,E402
from .pooling import *  # noqa: F401,F403,E402
from .dropout import *  # noqa: F401,F403,E402
from .normalization import *  # noqa: F401,F403,E402
from .loss_extra import *  # noqa: F401,F403,E402
from .upsampling import *  # noqa: F401,F403,E402
from .rnn import *  # noqa: F401,F403,E402
from .loss_margin import *  # noqa: F401,F403,E402
from .transformer import *  # noqa: F401,F403,E402
from .embedding_bag import *  # noqa: F401,F403,E402
from .pixelshuffle import *  # noqa: F401,F403,E402
from .fold import *  # noqa: F401,F403,E402
from .unpooling import *  # noqa: F401,F403,E402
from .lazy import *  # noqa: F401,F403,E402 - LazyLinear
