"""TXP: a NumPy-named namespace of differentiable Tensor ops, handed to VJP rules when the
backward pass is itself recorded (``create_graph=True``)."""

from __future__ import annotations

import numpy as np

from .. import _slots
from ..tensor import Tensor
from . import api
from . import arithmetic as ARITH
from . import shape as SH
from .dispatch import apply, apply1
from .txp_reflect import ReflectedXP, Unreflectable, run_reflected


def as_graph_tensor(g):
    return g if isinstance(g, Tensor) else Tensor._wrap(g)


def _const(c, like, dtype=None):
    """A constant (host or device array, scalar) as a Tensor on ``like``'s device."""
    from ..backend import move_array

    if isinstance(c, Tensor):
        return c
    if not hasattr(c, "shape") or not hasattr(c, "dtype"):
        c = np.asarray(c, dtype=dtype)
    elif dtype is not None and c.dtype != dtype:
        c = c.astype(dtype)
    return Tensor._wrap(move_array(c, like.device) if like is not None else c)


def _axes(axis, ndim):
    if axis is None:
        return None
    if isinstance(axis, int):
        return axis
    return tuple(axis)


_SAME_AS_NUMPY = frozenset(
    {
        "add",
        "angle",
        "arccos",
        "arccosh",
        "arcsin",
        "arcsinh",
        "arctan",
        "arctan2",
        "arctanh",
        "ceil",
        "clip",
        "copysign",
        "cosh",
        "cumprod",
        "diagonal",
        "dot",
        "empty_like",
        "exp2",
        "expm1",
        "floor",
        "fmax",
        "fmin",
        "fmod",
        "hypot",
        "isnan",
        "isneginf",
        "isposinf",
        "ldexp",
        "log10",
        "log2",
        "logaddexp",
        "logaddexp2",
        "nextafter",
        "remainder",
        "roll",
        "sinc",
        "sinh",
        "tan",
        "tile",
        "tril",
        "triu",
        "trunc",
        "vdot",
        "zeros_like",
    }
)


class _TXP:
    is_txp = True
    __name__ = "txp"

    def __getattr__(self, name):
        # functions whose NumPy and torch names and meanings agree (tril, roll, diagonal...);
        # any other name is missing, so a rule needing it falls back to arrays where it can
        if name not in _SAME_AS_NUMPY:
            raise AttributeError(f"txp has no {name!r}")
        # the functions over tensors, imported here: they are built over the rows importing this
        from .. import factories
        from . import api, api_math, api_products, api_reduce, api_shape, cplx

        for m in (api, api_math, api_shape, api_reduce, api_products, cplx, factories):
            if name in vars(m):
                return vars(m)[name]
        raise AttributeError(f"txp has no {name!r}")

    # Scalar overloads, as torch's formulas call them (see ops.xp.ArrayNamespace.add_scalar)
    @staticmethod
    def add_scalar(x, c):
        return apply1(ARITH.ADD_SCALAR, x, {"other": c}) if isinstance(x, Tensor) else x + c

    @staticmethod
    def sub_scalar(x, c):
        return apply1(ARITH.SUB_SCALAR, x, {"other": c}) if isinstance(x, Tensor) else x - c

    @staticmethod
    def mul_scalar(x, c):
        return apply1(ARITH.MUL_SCALAR, x, {"other": c}) if isinstance(x, Tensor) else x * c

    @staticmethod
    def div_scalar(x, c):
        return apply1(ARITH.DIV_SCALAR, x, {"other": c}) if isinstance(x, Tensor) else x / c

    @staticmethod
    def pow_scalar(x, c):
        return apply1(ARITH.POW, x, {"exponent": c}) if isinstance(x, Tensor) else x**c

    @staticmethod
    def scalar_sub(c, x):
        return api.sub(_const(c, x, x._data.dtype), x)

    @staticmethod
    def scalar_pow(c, x):
        return apply1(ARITH.POW_ST, x, {"self": c})

    @staticmethod
    def masked_fill(x, mask, value):
        from .api_layout import masked_fill

        # a saved mask is an array of x's device (a rule's p["mask"]): a tensor there, as is
        return masked_fill(x, _const(mask, x), value)

    reciprocal = staticmethod(api.reciprocal)

    @staticmethod
    def isinf(x):
        # by comparisons, which every device's arrays have (not recorded: a bool result)
        return (x == np.inf) | (x == -np.inf)

    @staticmethod
    def t(x):
        return api.t(x)

    @staticmethod
    def call(op, *args, p=None):
        return apply(op, args, p)

    # elementwise
    exp = staticmethod(api.exp)
    log = staticmethod(api.log)
    log1p = staticmethod(api.log1p)
    sin = staticmethod(api.sin)
    cos = staticmethod(api.cos)
    tanh = staticmethod(api.tanh)
    sqrt = staticmethod(api.sqrt)
    rsqrt = staticmethod(api.rsqrt)
    sigmoid = staticmethod(api.sigmoid)
    abs = staticmethod(api.abs)
    sign = staticmethod(api.sign)

    # complex numbers (the conjugate-convention twins of complex rows call conj)
    @staticmethod
    def conj(x):
        from . import cplx  # cplx imports this module (via dispatch): import late

        return cplx.conj(x) if isinstance(x, Tensor) else np.conj(x)

    @staticmethod
    def real(x):
        from . import cplx

        return cplx.real(x) if isinstance(x, Tensor) else np.real(x)

    @staticmethod
    def imag(x):
        from . import cplx

        return cplx.imag(x) if isinstance(x, Tensor) else np.imag(x)

    @staticmethod
    def sgn(x):
        from . import cplx

        return cplx.sgn(x)

    @staticmethod
    def iscomplexobj(x):
        return x.is_complex() if isinstance(x, Tensor) else np.iscomplexobj(x)

    @staticmethod
    def keep_where(c, x):
        return _TXP.where(c, x, 0)

    @staticmethod
    def zero_where(c, x):
        return _TXP.where(c, 0, x)

    @staticmethod
    def where(c, a, b):
        like = (
            a
            if isinstance(a, Tensor)
            else b
            if isinstance(b, Tensor)
            else c
            if isinstance(c, Tensor)
            else None
        )
        c = _const(c, like)
        if not isinstance(a, Tensor) and not isinstance(b, Tensor):
            a = _const(a, like, np.float64)
        return api.where(c, a, b)

    @staticmethod
    def maximum(a, b):
        if not isinstance(a, Tensor):
            a, b = b, a
        if not isinstance(b, Tensor):
            return api.clamp(a, min=b)
        return api.maximum(a, b)

    @staticmethod
    def minimum(a, b):
        if not isinstance(a, Tensor):
            a, b = b, a
        if not isinstance(b, Tensor):
            return api.clamp(a, max=b)
        return api.minimum(a, b)

    # reductions
    @staticmethod
    def sum(x, axis=None, keepdims=False):
        if axis is None:
            r = api.sum(x)
            return api.reshape(r, (1,) * x.ndim) if keepdims else r
        if isinstance(axis, tuple) and len(axis) == 0:
            return x
        return api.sum(x, axis, keepdims)

    @staticmethod
    def mean(x, axis=None, keepdims=False):
        if axis is None:
            r = api.mean(x)
            return api.reshape(r, (1,) * x.ndim) if keepdims else r
        return api.mean(x, axis, keepdims)

    @staticmethod
    def amax(x, axis=None, keepdims=False):
        return api.amax(x, axis if axis is not None else (), keepdims)

    @staticmethod
    def prod(x, axis=None):
        return api.prod(x, axis)

    # shapes
    @staticmethod
    def reshape(x, shape):
        return api.reshape(x, tuple(shape))

    @staticmethod
    def broadcast_to(x, shape):
        if not isinstance(x, Tensor):
            x = _const(x, None)
        if tuple(x.shape) == tuple(shape):
            return x
        return api.expand(x, tuple(shape))

    @staticmethod
    def expand_dims(x, axis):
        if isinstance(axis, tuple):
            for a in sorted(axis):
                x = api.unsqueeze(x, a)
            return x
        return api.unsqueeze(x, axis)

    @staticmethod
    def squeeze(x, axis=None):
        if isinstance(axis, tuple) and len(axis) > 1:
            shp = tuple(s for i, s in enumerate(x.shape) if i not in axis)
            return api.reshape(x, shp)
        if isinstance(axis, tuple):
            axis = axis[0]
        return api.squeeze(x, axis)

    @staticmethod
    def swapaxes(x, a, b):
        return api.transpose(x, a, b)

    @staticmethod
    def transpose(x, axes):
        return api.permute(x, tuple(int(a) for a in axes))

    @staticmethod
    def moveaxis(x, src, dst):
        nd = x.ndim
        src, dst = src % nd, dst % nd
        order = [i for i in range(nd) if i != src]
        order.insert(dst, src)
        return api.permute(x, tuple(order))

    @staticmethod
    def sum_to(g, shape):
        """torch's at::sum_to as create_graph records it: a full sum() to a 0-d shape, else one
        sum over the leading and the broadcast size-1 dims (keepdim), then a view."""
        if len(shape) == 0:
            return api.sum(g)
        gs = tuple(g.shape)
        lead = len(gs) - len(shape)
        dims = tuple(range(lead)) + tuple(
            i for i in range(lead, len(gs)) if shape[i - lead] == 1 and gs[i] != 1
        )
        if dims:
            g = api.sum(g, dims, True)
        return api.reshape(g, tuple(shape)) if lead > 0 else g

    @staticmethod
    def flip(x, dims):
        return api.flip(x, dims)

    @staticmethod
    def cumsum(x, axis):
        return api.cumsum(x, axis)

    @staticmethod
    def concatenate(xs, axis=0):
        return api.cat(list(xs), axis)

    @staticmethod
    def stack(xs, axis=0):
        return api.stack(list(xs), axis)

    @staticmethod
    def take(x, i, axis):
        return api.select(x, axis, int(i))

    @staticmethod
    def take_along_axis(x, idx, axis):
        return api.gather(x, axis, idx)

    @staticmethod
    def matmul(a, b):
        return api.matmul(a, b)

    @staticmethod
    def zero_tensor_like(g):
        """A ZeroTensor without a history, as torch's ``_efficientzerotensor``."""
        from .._zerotensor import zeros_like

        if g._data.__class__ is not np.ndarray:  # another device: plain zeros
            return Tensor._wrap(g._data * 0)
        return Tensor._wrap(zeros_like(g._data))

    @staticmethod
    def scatter_add_zeros(g, key, shape):
        return apply1(SH.SCATTER, g, {"key": key, "shape": tuple(shape), "indices": None})

    @staticmethod
    def put_along_axis_zeros(g, idx, axis, shape):
        idx = idx._data if isinstance(idx, Tensor) else idx
        return apply1(SH.PUT_ALONG, g, {"index": idx, "dim": axis, "shape": tuple(shape)})

    @staticmethod
    def isfinite(x):
        return api.isfinite(x)

    @staticmethod
    def cj(x):
        return x  # see ops.xp.ArrayNamespace.cj; a complex twin's is txp_reflect.ReflectedXP.cj

    # ops.xp.ArrayNamespace's array-type helpers, on graph tensors
    def keep_reduce(self, x, d, how):
        return self.amax(x, d, True) if how == "max" else self.sum(x, d, True)

    def sum_all(self, x):
        return self.sum(x)

    @staticmethod
    def row_index(n):
        return np.arange(n)

    @staticmethod
    def is_expanded_empty(g):
        return False

    @staticmethod
    def diagonal_view(y, offset, rows, cols):
        return y[..., rows, cols]

    @staticmethod
    def const(a, like):
        """An array without history (a saved statistic) as a graph tensor on ``like``'s device."""
        return _const(a, like)

    @staticmethod
    def twin_rule(rule, g, args, on_conjugated):
        """A HOLOMORPHIC row's complex twin under create_graph: ``rule`` recorded as torch's
        ``grad * f'(z).conj()`` (ops/txp_reflect.py); a rule reading a tensor's internals runs
        as ``on_conjugated(xp, g, *args)`` (on the conjugated operands) instead."""
        try:
            return run_reflected(_RXP, rule, g, args)
        except Unreflectable:
            return on_conjugated(TXP, g, *args)


TXP = _TXP()
_RXP = ReflectedXP(TXP)

_slots.TXP, _slots.as_graph_tensor = TXP, as_graph_tensor
