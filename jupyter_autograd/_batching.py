"""Batched forward mode: one forward pass carrying a batch of tangents (``jacfwd``, and
``autograd.functional.jacobian(strategy="forward-mode", vectorize=True)``).

A batched level stores, for every dual tensor, a tangent with one extra *leading* axis (one
basis direction per batch element: ``(N, *primal.shape)``). Each op's output tangent comes from
its registry row (``batch=`` of :func:`~jupyter_autograd.ops.registry.defop`):

- ``ELEMENTWISE``: the row's JVP rule broadcasts; each batched tangent is reshaped to
  ``(N, 1, ..., 1, *shape)`` (padded to the output's rank, so that NumPy's right-aligned
  broadcasting lines the logical axes up) and the rule runs once on the whole batch;
- ``RESHAPE``: the batch of tangents is reshaped to the output's shape behind the batch axis;
- ``ShiftDims(keys)``: the row's JVP rule runs on the batch with its dimension parameters
  moved past the batch axis (``sum.dim_IntList``, ``transpose.int``, ``select.int``);
- a callable: the row's own batched JVP rule (``mv`` moves the batch through ``matmul``);
- undeclared: the row's JVP rule runs once per batch element and the results are stacked
  (counted in :data:`STATS`), so an op without a batch rule is slower, never wrong.

What the batched pass does not cover makes the caller redo the whole computation one basis
vector at a time (:class:`Unbatchable`): a primal or tangent that requires grad (reverse mode
through the tangents), custom ``autograd.Function`` JVPs, and any error in the batched pass
(the per-element run then raises the error torch would).
"""

from __future__ import annotations

import numpy as np

__all__ = ["STATS", "Unbatchable", "jacobian_block", "jvp_basis"]

#: ``row_loops``: ops whose JVP ran once per batch element (no batch rule); ``program_loops``:
#: batched passes abandoned for the per-element run.
STATS = {"row_loops": 0, "program_loops": 0}

#: level key -> batch size, for the forward-mode levels whose tangents are batched
BATCHED: dict = {}


class Unbatchable(Exception):
    """The batched pass cannot continue; the caller reruns per batch element."""


def propagate(op, inputs, arrays, out, p, results, level, n) -> None:
    """The batched output tangent of one op (forward_ad.propagate for a batched level)."""
    from .ops.registry import ELEMENTWISE, NOT_IMPLEMENTED, RESHAPE, ShiftDims
    from .tensor import Tensor

    tans, batched = [], []
    for t, a in zip(inputs, arrays):
        fw = getattr(t, "_fw", None)
        tan = fw.get(level) if fw else None
        if isinstance(t, Tensor) and t._requires_grad:
            raise Unbatchable  # the tangent would need a graph (reverse over forward)
        if tan is not None:
            if tan._data.shape[1:] != a.shape:  # a tangent set outside the rows: not batched
                raise Unbatchable
            tans.append(tan._data)
            batched.append(True)
        else:
            tans.append(a * 0 if hasattr(a, "shape") else 0.0)
            batched.append(False)
    if not any(batched):
        return
    if op.jvp is NOT_IMPLEMENTED:
        raise NotImplementedError(
            f"Trying to use forward AD with {op.name} that does not support it because it has not "
            "been implemented yet."
        )
    from .autograd.engine import xp_of

    multi = isinstance(out, tuple)
    o0 = out[0] if multi else out
    xp = xp_of(o0)
    rule = op.batch
    if rule is ELEMENTWISE and not multi:
        rank = o0.ndim
        padded = tuple(
            t.reshape((n,) + (1,) * (rank - t.ndim + 1) + t.shape[1:])
            if b and t.ndim - 1 < rank
            else t
            for t, b in zip(tans, batched)
        )
        r = op.jvp(xp, padded, tuple(arrays), out, p)
    elif rule is RESHAPE and not multi:
        r = xp.reshape(tans[0], (n, *o0.shape))
    elif rule.__class__ is ShiftDims and not multi:
        nd = max(arrays[0].ndim, 1)
        q = dict(p)
        for k in rule.keys:
            q[k] = _shift(q.get(k), nd)
        r = op.jvp(xp, tuple(tans), tuple(arrays), out, q)
    elif rule is not None and rule is not ELEMENTWISE and not multi:
        r = rule(xp, tuple(tans), tuple(arrays), out, p)
    else:
        STATS["row_loops"] += 1
        per = [
            op.jvp(
                xp, tuple(t[i] if b else t for t, b in zip(tans, batched)), tuple(arrays), out, p
            )
            for i in range(n)
        ]
        if multi:
            r = tuple(xp.stack([_fit(pi[k], o, xp) for pi in per]) for k, o in enumerate(out))
        else:
            r = xp.stack([_fit(pi, out, xp) for pi in per])
    if multi:
        for res, o, ri in zip(results, out, r):
            res._fw = {level: Tensor._wrap(_fit(ri, o, xp, n))}
    else:
        results[0]._fw = {level: Tensor._wrap(_fit(r, out, xp, n))}


def _shift(dims, nd):
    """Dimension parameter(s) of a rank-``nd`` input, moved past a leading batch axis."""
    if dims is None:
        return tuple(range(1, nd + 1))
    if isinstance(dims, (tuple, list)):
        return tuple(d % nd + 1 for d in dims)
    return dims % nd + 1


def _fit(r, out, xp, n=None):
    """``r`` as an array of ``(n, *out.shape)`` (``out.shape`` when n is None), out's dtype."""
    shape = out.shape if n is None else (n, *out.shape)
    if not hasattr(r, "shape") or isinstance(r, np.generic):
        r = xp.asarray(r)
    if r.shape != shape:
        r = xp.broadcast_to(r, shape).copy()
    if r.dtype != out.dtype:
        r = r.astype(out.dtype)
    return r


def jacobian_block(func, args, k, select):
    """``func(*args)`` and, for each tensor ``select(output)`` lists, the Jacobian block
    ``d out / d args[k]`` as an array of shape ``out.shape + args[k].shape``, from one batched
    forward pass (:func:`jvp_basis`)."""
    out, outs, tans = jvp_basis(func, args, k, select)
    x = args[k]._data
    blocks = []
    for o, t in zip(outs, tans):
        od = o._data
        if t is None:
            blocks.append(np.zeros(od.shape + x.shape, od.dtype))
        else:
            blocks.append(np.moveaxis(t.reshape(x.size, -1), 0, -1).reshape(od.shape + x.shape))
    return out, outs, blocks


def jvp_basis(func, args, k, select):
    """Run ``func(*args)`` once with the basis of ``args[k]``'s elements as a batch of tangents.

    Returns ``(output, tensors, tangents)``: ``func``'s output, the tensors ``select(output)``
    lists and, for each, the array ``(numel(args[k]), *tensor.shape)`` of its tangents (None
    where it does not depend on them). Raises :class:`Unbatchable` where the batched pass
    cannot run (the caller then loops over the basis).
    """
    from .autograd import forward_ad as fwAD
    from .autograd.engine import FLAGS
    from .tensor import Tensor

    x = args[k]
    if not isinstance(x, Tensor) or x._data.dtype.kind != "f" or x._requires_grad:
        raise Unbatchable
    n = x._data.size
    if n < 2:  # nothing to gain, and a batch of one could pass for an unbatched tangent
        raise Unbatchable
    basis = np.eye(n, dtype=x._data.dtype).reshape((n, *x._data.shape))
    with fwAD.dual_level():
        key = FLAGS.forward_ad_levels[-1]
        BATCHED[key] = n
        try:
            dual = Tensor._wrap(x._data)
            dual._fw = {key: Tensor._wrap(basis)}
            args2 = list(args)
            args2[k] = dual
            out = func(*args2)
            leaves = select(out)
            tans = []
            for o in leaves:
                if not isinstance(o, Tensor):
                    raise Unbatchable
                fw = getattr(o, "_fw", None)
                t = fw.get(key) if fw else None
                tans.append(None if t is None else t._data)
        except Unbatchable:
            STATS["program_loops"] += 1
            raise
        except Exception as e:
            STATS["program_loops"] += 1
            raise Unbatchable from e
        finally:
            del BATCHED[key]
    return out, leaves, tans
