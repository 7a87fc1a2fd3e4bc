"""Batch rules of ``vmap`` (``_vmap_batch``) for the ops that take dimensions or multiply
matrices: reductions over logical dims, softmax, ``matmul`` and its forms, ``F.linear``, and
``F.cross_entropy`` of class indices. Each runs once on the physical tensors (batch axis first)
as ordinary ops, so autograd records an ordinary graph; what a rule does not cover raises
:class:`~jupyter_autograd._vmap_batch.Fallback` (vmap then runs per element).
"""

from __future__ import annotations

import operator

from . import _dtype
from ._vmap_batch import _FUNCS, BatchedTensor, Fallback, _level, _size, _unwrap, _wrap_b, _wrap_dim
from .ops import api
from .tensor import Tensor

__all__: list = []


def _m_sum(self, dim=None, keepdim=False, *, dtype=None):
    return _reduce(self, "sum", dim, keepdim, dtype)


def _m_mean(self, dim=None, keepdim=False, *, dtype=None):
    return _reduce(self, "mean", dim, keepdim, dtype)


def _m_softmax(self, dim, dtype=None):
    return _softmax(self, "softmax", dim, dtype)


def _m_log_softmax(self, dim, dtype=None):
    return _softmax(self, "log_softmax", dim, dtype)


def _m_matmul(self, other):
    return _matmul(self, other)


def _m___matmul__(self, other):
    return _matmul(self, other)


def _m___rmatmul__(self, other):
    return _matmul(other, self)


def _m_mm(self, other):
    return _checked_matmul(self, other, 2, 2)


def _m_mv(self, other):
    return _checked_matmul(self, other, 2, 1)


def _m_dot(self, other):
    return _checked_matmul(self, other, 1, 1)


def _m_bmm(self, other):
    return _checked_matmul(self, other, 3, 3)


def _reduce(x, how, dim, keepdim, dtype):
    n = x.dim()
    lv = x._lvl
    p = x._phys
    if n == 0:  # a 0-d element: the result is 0-d whatever dim and keepdim say
        for d in dim if isinstance(dim, (tuple, list)) else () if dim is None else (dim,):
            _wrap_dim(d, 0)
        return _wrap_b(getattr(p.reshape(_size(lv), 1), how)(1, dtype=dtype), lv)
    if dim is None:
        if not keepdim:
            return _wrap_b(getattr(p.reshape(_size(lv), -1), how)(1, dtype=dtype), lv)
        dims = tuple(range(1, n + 1))
    else:
        ds = dim if isinstance(dim, (tuple, list)) else (dim,)
        if not ds:
            raise Fallback  # dim=() reduces everything in torch
        dims = tuple(_wrap_dim(d, n) + 1 for d in ds)
    return _wrap_b(getattr(p, how)(dims, keepdim=keepdim, dtype=dtype), lv)


def _softmax(x, how, dim, dtype):
    n = x.dim()
    if n == 0:  # of one number: over a dim of size one
        _wrap_dim(dim, 0)
        return _wrap_b(getattr(x._phys.unsqueeze(1), how)(1, dtype=dtype).squeeze(1), x._lvl)
    return _wrap_b(getattr(x._phys, how)(_wrap_dim(dim, n) + 1, dtype=dtype), x._lvl)


def _matmul(a, b):
    """Logical ``a @ b`` as one physical matmul: 1-D batched operands get the axis matmul would
    add, batched operands are padded to a common rank behind the batch axis."""
    if not (isinstance(a, Tensor) and isinstance(b, Tensor)) or a.dtype != b.dtype:
        raise Fallback
    lv = _level(a, b)
    na, nb = a.dim(), b.dim()
    if na == 0 or nb == 0:
        raise Fallback  # the per-element run raises torch's error
    ba = a.__class__ is BatchedTensor and a._lvl == lv
    bb = b.__class__ is BatchedTensor and b._lvl == lv
    pa, pb = _unwrap(a, lv), _unwrap(b, lv)
    sq_a = ba and na == 1
    sq_b = bb and nb == 1
    if sq_a:
        pa = pa.unsqueeze(-2)
        na = 2
    if sq_b:
        pb = pb.unsqueeze(-1)
        nb = 2
    rank = max(na, nb)
    B = _size(lv)
    if ba and na < rank:
        pa = pa.reshape((B,) + (1,) * (rank - na) + tuple(pa.shape[1:]))
    if bb and nb < rank:
        pb = pb.reshape((B,) + (1,) * (rank - nb) + tuple(pb.shape[1:]))
    out = operator.matmul(pa, pb)
    if sq_b:
        out = out.squeeze(-1)
    if sq_a:  # the row axis added to a: last once b's (logical) vector axis is gone
        out = out.squeeze(-1 if b.dim() == 1 else -2)
    la, lb = a.dim(), b.dim()
    want = 0 if la == lb == 1 else lb - 1 if la == 1 else la - 1 if lb == 1 else max(la, lb)
    if out.dim() != want + 1:
        raise Fallback
    return _wrap_b(out, lv)


def _checked_matmul(a, b, ra, rb):
    if not isinstance(b, Tensor) or a.dim() != ra or b.dim() != rb:
        raise Fallback
    if ra == 3 and a.shape[0] != b.shape[0]:
        raise Fallback
    return _matmul(a, b)


def _linear(input, weight, bias=None):
    if not isinstance(weight, Tensor) or weight.dim() != 2 or input.dim() == 0:
        raise Fallback
    out = _matmul(input, weight.t())
    return out if bias is None else out + bias


def _plain_batched(x, lv):
    """``x`` at level ``lv`` as a physical tensor with the batch axis (expanded if unbatched)."""
    if x.__class__ is BatchedTensor:
        if x._lvl != lv or x._phys.__class__ is BatchedTensor:
            raise Fallback
        return x._phys
    if not isinstance(x, Tensor):
        raise Fallback
    return x.unsqueeze(0).expand(_size(lv), *x.shape)


def _cross_entropy(
    input,
    target,
    weight=None,
    size_average=None,
    ignore_index=-100,
    reduce=None,
    reduction="mean",
    label_smoothing=0.0,
):
    if (
        weight is not None
        or size_average is not None
        or reduce is not None
        or label_smoothing != 0.0
        or reduction not in ("mean", "sum", "none")
        or not isinstance(input, Tensor)
        or not isinstance(target, Tensor)
        or not input.is_floating_point()
        or target.dtype != _dtype.int64
    ):
        raise Fallback
    n = input.dim()
    if n not in (1, 2) or tuple(target.shape) != (tuple(input.shape[:1]) if n == 2 else ()):
        raise Fallback
    lv = _level(input, target)
    B = _size(lv)
    x = _plain_batched(input, lv).log_softmax(n)  # class dim: 1 (or 0 for 1-D) behind the batch
    t = _plain_batched(target, lv)
    valid = t != ignore_index
    tt = api.where(valid, t, 0)
    picked = x.gather(n, tt.unsqueeze(n)).squeeze(n)
    loss = api.where(valid, -picked, 0.0)
    if reduction == "none":
        return _wrap_b(loss, lv)
    total = loss.reshape(B, -1).sum(1)
    if reduction == "sum":
        return _wrap_b(total, lv)
    return _wrap_b(total / valid.reshape(B, -1).sum(1).to(loss.dtype), lv)


for _name, _fn in (
    ("sum", _m_sum),
    ("mean", _m_mean),
    ("softmax", _m_softmax),
    ("log_softmax", _m_log_softmax),
    ("matmul", _m_matmul),
    ("__matmul__", _m___matmul__),
    ("__rmatmul__", _m___rmatmul__),
    ("mm", _m_mm),
    ("mv", _m_mv),
    ("dot", _m_dot),
    ("bmm", _m_bmm),
):
    setattr(BatchedTensor, _name, _fn)
_FUNCS.update({"linear": _linear, "cross_entropy": _cross_entropy, "matmul": _matmul})
