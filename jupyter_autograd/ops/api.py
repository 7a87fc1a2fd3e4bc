"""The public op functions (``jupyter_autograd.exp``, ``.matmul``...): argument handling in
torch's signatures, then one registry row (or a composition of rows) each.

One name space over the modules that define them, by family: arithmetic and elementwise
(``api_arith``), comparisons (``api_compare``), reductions (``api_reductions``), matrix products
(``api_matmul``) and shapes (``api_layout``); the helpers they share are in ``_api_base``."""

from __future__ import annotations

from .. import _dtype  # noqa: F401 - read as api._dtype by other modules
from .._size import _wrap_dim  # noqa: F401
from ._api_base import *
from ._api_base import _dims, _float, _t  # noqa: F401 - used by the other api_* modules
from .api_arith import *
from .api_arith import _unary_fn  # noqa: F401
from .api_compare import *
from .api_compare import _broadcast_error, _operands  # noqa: F401
from .api_layout import *
from .api_layout import _expanded_shape, _rename_node  # noqa: F401
from .api_matmul import *
from .api_matmul import _MM_DTYPE_ERRORS  # noqa: F401
from .api_reductions import *
from .api_reductions import _vector_norm  # noqa: F401
