"""``_embedding_bag`` (EmbeddingBagBackward0): sums, means or maxima of bags of embedding rows,
with torch's CPU bookkeeping (``offset2bag``, ``bag_size``, ``max_indices``, shown as
``_saved_result1..3``, including the values its fast paths leave at zero).

Gradients reach the weight (and ``per_sample_weights`` in sum mode); torch's backward is not
differentiable again (a gradient computed with ``create_graph=True`` does not require grad), and
there is no forward-mode rule, as in torch.
"""

from __future__ import annotations

import numpy as np

from .registry import Refuse, defop, kernel_refuses

SUM, MEAN, MAX = 0, 1, 2


def _host(a):
    """A device array's host copy (its namespace's ``to_host``): the bag bookkeeping is index
    work done in NumPy."""
    from ..autograd.engine import xp_of

    return xp_of(a).to_host(a)


def _bags(idx, offsets, include_last, n_bags):
    """The bag of every index position (the last bag runs to the end of the indices)."""
    starts = offsets[:-1] if include_last else offsets
    bag = np.zeros(idx.shape[0], np.int64)
    if idx.shape[0] and len(starts) > 1:
        marks = np.zeros(idx.shape[0] + 1, np.int64)
        np.add.at(marks, np.clip(starts[1:], 0, idx.shape[0]), 1)
        bag = np.cumsum(marks[:-1])
    return np.minimum(bag, max(n_bags - 1, 0))


def _fwd(xp, w, psw, p):
    # the indices and offsets may live on the weight's device; bookkeeping runs on the host
    idx, offsets = p["_idx"], p["_offsets"] = xp.to_host(p["_idx"]), xp.to_host(p["_offsets"])
    mode, pad, include_last = p["mode"], p["_pad"], p["include_last_offset"]
    n_bags = len(offsets) - 1 if include_last else len(offsets)
    n, d = idx.shape[0], w.shape[1]
    bag = _bags(idx, offsets, include_last, n_bags)
    keep = idx != pad if pad >= 0 else np.ones(n, bool)
    fast_sum = mode == SUM and pad < 0 and w.dtype.name in ("float32", "float16")
    if fast_sum and include_last and len(offsets):
        keep = keep & (np.arange(n) < offsets[-1])  # that path ends the last bag at the last offset
    p["_bag"], p["_keep"] = bag, keep
    counts = np.bincount(bag[keep], minlength=n_bags).astype(np.int64)[:n_bags]
    p["_counts"] = counts
    rows = w[xp.asarray(idx)]
    if mode == MAX:
        out, arg = _max_bags(w, rows, idx, bag, keep, n_bags)
        p["_argmax"] = arg
        res3 = arg
    else:
        if psw is not None:
            rows = rows * psw[:, None]
        rows = rows * xp.asarray(keep[:, None].astype(w.dtype))
        out = xp.zeros((n_bags, d), w.dtype)
        if n:
            _scatter_rows(xp, out, bag, rows)
        if mode == MEAN:
            out = out / xp.asarray(np.maximum(counts, 1).astype(w.dtype))[:, None]
        res3 = counts.copy() if mode == MEAN else np.zeros(n_bags, np.int64)
    # what torch's CPU kernel hands back (its float/half sum fast path fills no offset2bag)
    p["result1"] = np.zeros(0, np.int64) if fast_sum else bag.copy()
    p["result2"] = np.zeros(n_bags, np.int64) if mode == SUM else counts
    p["result3"] = res3
    return out


def _scatter_rows(xp, out, bag, rows):
    xp.add_at(out, xp.asarray(bag), rows)


def _max_bags(w, rows, idx, bag, keep, n_bags):
    """Per bag and column the largest row value (the first one on ties) and its index."""
    d = w.shape[1]
    out = np.zeros((n_bags, d), w.dtype)
    arg = np.zeros((n_bags, d), np.int64)
    seen = np.zeros(n_bags, bool)
    r = _host(rows)
    for j in range(idx.shape[0]):  # bags are visited in order, as torch's loop
        if not keep[j]:
            continue
        b = bag[j]
        if not seen[b]:
            out[b], arg[b], seen[b] = r[j], idx[j], True
            continue
        upd = r[j] > out[b]
        out[b] = np.where(upd, r[j], out[b])
        arg[b] = np.where(upd, idx[j], arg[b])
    return out, arg


def _weight_grad(g, psw, p, n_rows):
    gn = _host(g)
    gw = np.zeros((n_rows, gn.shape[1]), gn.dtype)
    idx, bag, keep, counts = p["_idx"], p["_bag"], p["_keep"], p["_counts"]
    if p["mode"] == MAX:
        arg = p["_argmax"]
        live = counts > 0
        cols = np.broadcast_to(np.arange(gn.shape[1]), arg.shape)
        np.add.at(gw, (arg[live], cols[live]), gn[live])
        return gw
    per = gn[bag]
    if psw is not None:
        per = per * _host(psw)[:, None]
    if p["mode"] == MEAN:
        per = per / np.maximum(counts, 1).astype(gn.dtype)[bag][:, None]
    if p["scale_grad_by_freq"]:
        # torch's CPU backward divides the k-th distinct index's rows by the count of the index
        # at the k-th *sorted position* (counts[indices[i]] with i the distinct number), not
        # by its own count; reproduced as it computes
        freq = np.bincount(idx, minlength=n_rows)
        uniq = np.unique(idx)
        div = np.ones(n_rows, np.int64)
        div[uniq] = freq[np.sort(idx)[: len(uniq)]]
        per = per / div[idx].astype(gn.dtype)[:, None]
    np.add.at(gw, idx[keep], per[keep])
    return gw


def _vjp_weight(xp, g, w, psw, out, p):
    n_rows = p["weight_sym_argsize_0"]
    if xp.is_txp:  # create_graph: torch's backward node, which has no derivative itself
        from .dispatch import apply

        res = _weight_grad(g._data, None if psw is None else psw._data, p, n_rows)
        return apply(EMBEDDING_BAG_BACKWARD, (g, psw), {"_res": xp_asarray(res, g)})
    return xp.asarray(_weight_grad(g, psw, p, n_rows))


def _vjp_psw(xp, g, w, psw, out, p):
    if xp.is_txp:
        from .dispatch import apply

        res = _psw_grad(g._data, w._data, p)
        return apply(PSW_BACKWARD, (g, w), {"_res": xp_asarray(res, g)})
    return xp.asarray(_psw_grad(g, w, p))


def xp_asarray(a, like):
    from ..autograd.engine import xp_of

    return xp_of(like._data).asarray(a)


def _psw_grad(g, w, p):
    idx, bag, keep = p["_idx"], p["_bag"], p["_keep"]
    res = (_host(g)[bag] * _host(w)[idx]).sum(axis=1)
    return np.where(keep, res, 0).astype(res.dtype)


def _cases(rng):
    idx = [1, 2, 4, 5, 4, 3, 2, 9]

    def run(lib, **kw):
        def f(w, *psw):
            return lib.nn.functional.embedding_bag(
                lib.tensor(idx),
                w,
                lib.tensor([0, 3, 3]),
                per_sample_weights=psw[0] if psw else None,
                **kw,
            )

        return f

    w = rng.standard_normal((10, 3))
    out = [(None, [w], lambda tt, a, m=m: run(tt, mode=m)(a)) for m in ("sum", "mean", "max")]
    out.append(
        (
            None,
            [w, rng.uniform(0.5, 1.5, 8)],
            lambda tt, a, b: run(tt, mode="sum", padding_idx=4)(a, b),
        )
    )
    return out


EMBEDDING_BAG = defop(
    "_embedding_bag",
    node="EmbeddingBagBackward0",
    inputs=("weight", "per_sample_weights"),
    saved=(
        "weight",
        "indices",
        "offsets",
        "result1",
        "result2",
        "result3",
        "weight_sym_argsize_0",
        "scale_grad_by_freq",
        "mode",
        "sparse",
        "per_sample_weights",
        "padding_idx",
    ),
    fwd=_fwd,
    vjp=(_vjp_weight, _vjp_psw),
    smooth=False,
    complex=Refuse(
        RuntimeError,
        "Expected tensor for argument #1 'weight' to have one of the following "
        "scalar types: Half, BFloat16, Float, Double; but got CPU{dtype}Type instead (while "
        "checking arguments for embedding_bag)",
    ),
    sample={"kind": "cases", "cases": _cases},
)


def _refuse_weight_backward(*_):
    raise NotImplementedError("the derivative for '_embedding_bag_backward' is not implemented.")


def _refuse_psw_backward(*_):
    raise RuntimeError(
        "derivative for aten::_embedding_bag_per_sample_weights_backward is not implemented"
    )


# torch's node here is EmbeddingBagBackwardBackward0; a NotImplemented node stands in for it
# (same refusal, type and message), as a row whose backward always raises has no gradient to check
EMBEDDING_BAG_BACKWARD = defop(
    "_embedding_bag_backward",
    node="NotImplemented",
    inputs=("grad", "per_sample_weights"),
    fwd=lambda xp, g, psw, p: p["_res"],
    vjp=(_refuse_weight_backward, _refuse_weight_backward),
    complex=kernel_refuses("embedding_bag_backward"),
    sample={"kind": "not_differentiable"},
)
PSW_BACKWARD = defop(
    "_embedding_bag_per_sample_weights_backward",
    node="NotImplemented",
    inputs=("grad", "weight"),
    fwd=lambda xp, g, w, p: p["_res"],
    vjp=(_refuse_psw_backward, _refuse_psw_backward),
    complex=kernel_refuses("_embedding_bag_per_sample_weights_backward"),
    sample={"kind": "not_differentiable"},
)
