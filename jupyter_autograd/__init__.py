"""jupyter_autograd: learn, see and debug automatic differentiation in a notebook.

``import jupyter_autograd as torch`` gives a NumPy autograd engine with PyTorch's API and
behaviour; ``%load_ext jupyter_autograd`` adds the graph magics in IPython/Jupyter.

Example:
    >>> import jupyter_autograd as torch
    >>> w = torch.tensor([1.0, 2.0], requires_grad=True)
    >>> loss = (w * w).sum()
    >>> loss.backward()
    >>> w.grad
    tensor([2., 4.])
"""

from __future__ import annotations

import sys as _sys

from . import _dtype
from ._dtype import (  # noqa: F401
    bool,
    finfo,
    iinfo,
    cdouble,
    cfloat,
    complex64,
    complex128,
    double,
    dtype,
    float,
    float16,
    float32,
    float64,
    get_default_dtype,
    half,
    int,
    int8,
    int16,
    int32,
    int64,
    long,
    set_default_dtype,
    short,
    uint8,
    uint16,
    uint32,
    uint64,
)
from ._formats import (  # noqa: F401
    channels_last,
    channels_last_3d,
    contiguous_format,
    layout,
    memory_format,
    preserve_format,
    sparse_coo,
    strided,
)
from ._printing import get_printoptions, set_printoptions  # noqa: F401
from .backend import device  # noqa: F401
from .grad_mode import (  # noqa: F401
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from .tensor import Size, Tensor  # noqa: F401

from . import ops  # noqa: F401 - registers every op
from .ops import txp  # noqa: F401 - the recorded namespace the engine runs rules on (create_graph)
from . import _tensor_methods  # noqa: F401 - wires Tensor methods to the ops
from . import _tensor_conversions  # noqa: F401 - to/float/.../new_* methods
from . import _tensor_setitem  # noqa: F401 - x[key] = value, index_put_ (built on _tensor_methods)
from . import _methods_ext  # noqa: F401 - and to the ops beyond ops/api.py
from .factories import (  # noqa: F401
    arange,
    as_tensor,
    asarray,
    empty,
    empty_like,
    eye,
    from_numpy,
    full,
    full_like,
    linspace,
    logspace,
    ones,
    ones_like,
    range,
    tensor,
    zeros,
    zeros_like,
)
from .random import (  # noqa: F401
    Generator,
    default_generator,
    get_rng_state,
    initial_seed,
    manual_seed,
    seed,
    set_rng_state,
)
from ._sampling import (  # noqa: F401
    bernoulli,
    multinomial,
    normal,
    rand,
    rand_like,
    randint,
    randint_like,
    randn,
    randn_like,
    randperm,
)
from . import random  # noqa: F401
from .ops.api import *
from .ops.api_math import *
from .ops.api_shape import *
from .ops.api_reduce import *
from .ops.api_products import *
from .ops.api_stats import *
from .ops.api_index import *
from .ops.api_special import *
from .ops.api_misc import *
from .ops.as_strided import *
from ._legacy_types import *
from .ops.cplx import (  # noqa: F401
    adjoint,
    angle,
    complex,
    conj,
    conj_physical,
    imag,
    is_conj,
    polar,
    real,
    resolve_conj,
    resolve_neg,
    sgn,
    view_as_complex,
    view_as_real,
)
from . import fft, linalg, masked, signal, special  # noqa: F401
from .ops.api_linalg import TOP as _LINALG_TOP

globals().update(_LINALG_TOP)
from . import autograd  # noqa: F401
from . import nn  # noqa: F401
from .nn.functional import native_dropout  # noqa: F401
from .nn._functional_layers import (  # noqa: F401 - torch has these at the top level too
    adaptive_avg_pool1d,
    adaptive_max_pool1d,
    avg_pool1d,
    conv1d,
    conv2d,
    conv3d,
    conv_transpose1d,
    conv_transpose2d,
    conv_transpose3d,
    max_pool1d,
    max_pool1d_with_indices,
    max_pool2d,
)
from .ops.einsum import einsum  # noqa: F401
from .nn._margin_losses import pairwise_distance  # noqa: F401
from .nn._weight_norm import _weight_norm, norm_except_dim  # noqa: F401
from .nn._norm_functional import (  # noqa: F401
    native_batch_norm,
    native_layer_norm,
    layer_norm,
    torch_batch_norm as batch_norm,
    torch_group_norm as group_norm,
    torch_instance_norm as instance_norm,
    torch_rms_norm as rms_norm,
)
from . import func  # noqa: F401
from .func import vmap  # noqa: F401 - torch.vmap
from . import profiler  # noqa: F401 - torch.profiler
from . import cuda  # noqa: F401 - torch.cuda (CuPy is imported lazily, on first use)
from .factories import get_default_device, set_default_device  # noqa: F401
from . import datasets, distributions, optim, utils  # noqa: F401

# what `torch` names in a timed statement: this package (utils.benchmark, below it, cannot import it)
utils.benchmark.PACKAGE = _sys.modules[__name__]
del _sys

from . import _aliases

for _ns in (Tensor, linalg, special, fft):
    _aliases.install(_ns)
_aliases.install(__import__("sys").modules[__name__])
del _ns

__version__ = "0.1.0"

is_tensor = lambda obj: isinstance(obj, Tensor)


def numel(input: Tensor):
    return input.numel()


def is_floating_point(input: Tensor) -> bool:
    return input.is_floating_point()


def is_complex(input: Tensor) -> bool:
    return input.is_complex()


def promote_types(type1, type2):
    """The smallest dtype both promote to, as ``torch.promote_types``.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.promote_types(torch.float64, torch.complex64)
        torch.complex128
    """
    return _dtype.from_numpy_dtype(_dtype.promote_types(type1.np, type2.np))


def result_type(tensor1, tensor2):
    """The dtype an arithmetic op on the two (tensors or Python numbers) gives, as torch."""
    ts = [(t._data.ndim, t._data.dtype) for t in (tensor1, tensor2) if isinstance(t, Tensor)]
    scalars = [t for t in (tensor1, tensor2) if not isinstance(t, Tensor)]
    return _dtype.from_numpy_dtype(_dtype.result_type(ts, scalars))


def __getattr__(name: str):
    """``save``, ``load`` and ``serialization`` load on first use: zipfile, pickle and the
    storage classes stay out of ``import jupyter_autograd`` (issue #17: a fast %load_ext)."""
    if name in ("save", "load", "serialization"):
        import importlib  # not `from . import serialization`: that asks this __getattr__

        serialization = importlib.import_module(".serialization", __name__)
        globals()["save"], globals()["load"] = serialization.save, serialization.load
        return globals()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    """The lazy names too, so tab completion offers ``torch.save`` before its first use."""
    return sorted(set(globals()) | {"save", "load", "serialization"})


def _jupyter_labextension_paths():
    """Where JupyterLab finds the prebuilt graph renderer shipped in this package."""
    return [{"src": "labextension", "dest": "jupyter-autograd"}]


def load_ipython_extension(ipython) -> None:
    """``%load_ext jupyter_autograd``: register the magics (the Jupyter layer is imported here,
    never at package import)."""
    from .jupyter import load_ipython_extension as _load

    return _load(ipython)


def unload_ipython_extension(ipython) -> None:
    from .jupyter import unload_ipython_extension as _unload

    return _unload(ipython)


from ._inplace_functions import install as _install_inplace

_install_inplace(
    globals()
)  # torch.sin_(x), torch.dropout_(x, p, train), F.relu_ ... (last: every method exists)
_aliases.check_tensor_params(
    __import__("sys").modules[__name__]
)  # torch's Tensor-only parameters (last: every function exists)
