"""The in-place view ops ``unsqueeze_`` and ``squeeze_``: they change a tensor's shape, not its
values (UnsqueezeBackward1, SqueezeBackward3/4/5 as torch names the in-place overloads)."""

from __future__ import annotations

import numpy as np

from ..autograd import views as _views
from ..grad_mode import STATE
from ..tensor import Tensor
from .dispatch import apply1
from .shape import SQUEEZE_INPLACE_DIM, _shape_op


def _case(method, shape, *args):
    def cases(rng):
        def f(t):
            y = t * 1.0
            getattr(y, method)(*args)
            return y * y

        return [(f, [rng.uniform(-2, 2, shape)], lambda torch, t: f(t))]

    return cases


def _reshape_back(xp, g, x, out, p):
    return xp.reshape(g, p["self_sym_sizes"])


def _to_out_shape(xp, x, p):
    return xp.reshape(x, p["out_shape"])


UNSQUEEZE_ = _shape_op(
    "unsqueeze_",
    "UnsqueezeBackward1",
    lambda xp, x, p: xp.expand_dims(x, p["dim"]),
    lambda xp, g, x, out, p: xp.squeeze(g, axis=p["dim"]),
    saved=("dim",),
    sample={"cases": _case("unsqueeze_", (2, 3), 1)},
)
SQUEEZE_ = _shape_op(
    "squeeze_",
    "SqueezeBackward3",
    _to_out_shape,
    _reshape_back,
    saved=("self_sym_sizes",),
    sample={"cases": _case("squeeze_", (2, 1, 3))},
)
SQUEEZE_DIM_ = SQUEEZE_INPLACE_DIM  # the row matmul(1-D, 2-D) records too
SQUEEZE_DIMS_ = _shape_op(
    "squeeze_.dims",
    "SqueezeBackward5",
    _to_out_shape,
    _reshape_back,
    saved=("dim", "self_sym_sizes"),
    sample={"cases": _case("squeeze_", (2, 1, 3), (0, 1))},
)


def unsqueeze_(self, dim) -> Tensor:
    """Insert a dimension of size 1 at ``dim``, in place (UnsqueezeBackward1).

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.ones(2).unsqueeze_(0).shape
        torch.Size([1, 2])
    """
    from .api import _wrap_dim

    d = _wrap_dim(dim, self._data.ndim + 1)
    return _reshape_(self, UNSQUEEZE_, {"dim": d}, np.expand_dims(self._data, d).shape)


def squeeze_(self, dim=None) -> Tensor:
    """Remove dimensions of size 1 (all, or those in ``dim``), in place (SqueezeBackward3/4/5).

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.ones(1, 2).squeeze_().shape
        torch.Size([2])
    """
    from .api import _dims, _wrap_dim

    shp = self._data.shape
    if dim is None:
        out = tuple(s for s in shp if s != 1)
        return _reshape_(self, SQUEEZE_, {"out_shape": out, "self_sym_sizes": shp}, out)
    dims = _dims(dim, self._data.ndim)
    out = tuple(s for i, s in enumerate(shp) if not (i in dims and s == 1))
    if isinstance(dim, (list, tuple)):
        op, d = SQUEEZE_DIMS_, tuple(dims)
    else:
        op, d = SQUEEZE_DIM_, dims[0] if dims else _wrap_dim(dim, 0)  # 0-d: dims is ()
    return _reshape_(self, op, {"dim": d, "out_shape": out, "self_sym_sizes": shp}, out)


def _reshape_(self, op, p, shape) -> Tensor:
    """Give ``self`` a new shape over the same memory; with a graph, ``op``'s node."""
    rg = STATE.grad_enabled and self._requires_grad
    _views.check_inplace(self, rg, "allow")
    if rg:
        fn, nr = _views.edge(self)
        if fn is not None:
            s = Tensor._wrap(self._data, True)
            s._grad_fn, s._output_nr = fn, nr
            res = apply1(op, s, p)
            self._grad_fn, self._output_nr = res._grad_fn, 0
    self._data = self._data.reshape(shape)
    if self._fw:  # forward-mode tangents take the same shape
        self._fw = {k: v.reshape(shape) for k, v in self._fw.items()}
    self._bump_version()
    if self._base is not None:
        self._view_version = self._vc[0]  # its history is the node above, not a regenerated one
    return self


Tensor.unsqueeze_ = unsqueeze_
Tensor.squeeze_ = squeeze_
