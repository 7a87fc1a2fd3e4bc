"""``torch.vmap`` / ``torch.func.vmap``: map a function over a dimension of its inputs.

Inputs and outputs are pytrees (tuples, lists, dicts of tensors) as in torch: ``in_dims`` and
``out_dims`` are an int/None for all, or a matching (possibly partial) structure.
The call first runs *once* over the whole batch (``_vmap_batch``: batched tensors with a
hidden leading batch axis, each op through its batch rule; ``_vmap_rules``), in chunks of
``chunk_size`` elements when given. Where that cannot be done (an op without a batch rule, a
custom ``autograd.Function``, a read of a batched value such as ``.item()`` or ``bool()``, an
in-place or random op, or any error) the whole call runs once per batch element instead and the
results are stacked at ``out_dims``, so the values and errors are those of the per-element run.
Outputs with ``out_dims=None`` must not depend on the mapped inputs and are returned as
computed.

``randomness``: ``"different"`` draws new numbers for each element; ``"same"`` gives every
element the numbers of the first one (the generator is rewound for each); ``"error"``
(default) refuses random ops inside the mapped function, with torch's error. (Random ops always
take the per-element run.)
"""

from __future__ import annotations

import functools

from . import _vmap_batch as vb
from . import _vmap_rules  # noqa: F401 - installs the batch rules of products and reductions
from . import random as _random
from .ops.api import cat
from .tensor import Tensor

__all__ = ["vmap"]


def _T():
    from .tensor import Tensor

    return Tensor


def _name(func) -> str:
    if hasattr(func, "__name__"):
        return func.__name__
    if isinstance(func, functools.partial):
        return f"functools.partial({_name(func.func)}, ...)"
    return repr(func)


# ------------------------------------------------------------------ pytrees
def _flatten(tree) -> tuple[list, object]:
    """Leaves and a spec (nested tuples naming the containers)."""
    if isinstance(tree, (tuple, list)):
        leaves, specs = [], []
        for x in tree:
            lv, sp = _flatten(x)
            leaves += lv
            specs.append(sp)
        return leaves, (type(tree), tuple(specs))
    if isinstance(tree, dict):
        leaves, specs = [], []
        for k in tree:
            lv, sp = _flatten(tree[k])
            leaves += lv
            specs.append(sp)
        return leaves, (dict, tuple(tree), tuple(specs))
    return [tree], None


def _unflatten(leaves, spec):
    it = iter(leaves)

    def build(sp):
        if sp is None:
            return next(it)
        if sp[0] is dict:
            return {k: build(s) for k, s in zip(sp[1], sp[2])}
        kind, subs = sp
        vals = [build(s) for s in subs]
        return tuple(vals) if kind is tuple else (kind(vals) if kind is list else kind(*vals))

    return build(spec)


def _spec_str(spec) -> str:
    if spec is None:
        return "*"
    if spec[0] is dict:
        return "{" + ", ".join(f"{k!r}: {_spec_str(s)}" for k, s in zip(spec[1], spec[2])) + "}"
    kind, subs = spec
    inner = ", ".join(_spec_str(s) for s in subs)
    return (
        f"({inner},)"
        if kind is tuple and len(subs) == 1
        else (f"({inner})" if kind is tuple else f"[{inner}]")
    )


def _broadcast(prefix, spec):
    """``prefix`` (a leaf or a structure that is a prefix of ``spec``) expanded to one value
    per leaf of ``spec``; None when the structures do not match."""
    if spec is None:
        return None if isinstance(prefix, (tuple, list, dict)) else [prefix]
    if not isinstance(prefix, (tuple, list, dict)):
        n = len(_unflatten_count(spec))
        return [prefix] * n
    if spec[0] is dict:
        if not isinstance(prefix, dict) or set(prefix) != set(spec[1]):
            return None
        out = []
        for k, s in zip(spec[1], spec[2]):
            sub = _broadcast(prefix[k], s)
            if sub is None:
                return None
            out += sub
        return out
    kind, subs = spec
    if isinstance(prefix, dict) or type(prefix) is not kind or len(prefix) != len(subs):
        return None
    out = []
    for p, s in zip(prefix, subs):
        sub = _broadcast(p, s)
        if sub is None:
            return None
        out += sub
    return out


def _unflatten_count(spec) -> list:
    if spec is None:
        return [0]
    subs = spec[2] if spec[0] is dict else spec[1]
    return [x for s in subs for x in _unflatten_count(s)]


# ------------------------------------------------------------------ vmap
def _process_inputs(func, in_dims, args):
    T = _T()
    name = _name(func)
    if not isinstance(in_dims, (int, tuple)):
        raise ValueError(  # noqa: TRY004 - torch's exception type
            f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` to be int or a "
            "(potentially nested) tuple matching the structure of inputs, got: "
            f"{type(in_dims)}."
        )
    if len(args) == 0:
        raise ValueError(
            f"vmap({name})(<inputs>): got no inputs. Maybe you forgot to add inputs, or you are "
            "trying to vmap over a function with no inputs. The latter is unsupported."
        )
    flat_args, spec = _flatten(tuple(args))
    flat_dims = _broadcast(in_dims, spec)
    if flat_dims is None:
        _, dims_spec = _flatten(in_dims)
        raise ValueError(
            f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): in_dims is not compatible with "
            f"the structure of `inputs`. in_dims has structure {_spec_str(dims_spec)} but inputs "
            f"has structure {_spec_str(spec)}."
        )
    for arg, d in zip(flat_args, flat_dims):
        if not (d is None or (isinstance(d, int) and not isinstance(d, bool))):
            raise ValueError(
                f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for an input "
                "but in_dim must be either an integer dimension or None."
            )
        if isinstance(d, int) and not isinstance(arg, T):
            raise ValueError(  # noqa: TRY004 - torch's exception type
                f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for an input "
                f"but the input is of type {type(arg)}. We cannot vmap over non-Tensor "
                "arguments, please use None as the respective in_dim"
            )
        if d is not None and not -arg.dim() <= d < arg.dim():
            raise ValueError(
                f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for some "
                f"input, but that input is a Tensor of dimensionality {arg.dim()} so expected "
                f"in_dim to satisfy -{arg.dim()} <= in_dim < {arg.dim()}."
            )
    sizes = [a.size(d) for a, d in zip(flat_args, flat_dims) if d is not None]
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if any(s != sizes[0] for s in sizes):
        raise ValueError(
            "vmap: Expected all tensors to have the same size in the mapped "
            f"dimension, got sizes {sizes} for the mapped dimension"
        )
    return sizes[0], flat_dims, flat_args, spec


def _check_out_dims(func, out_dims) -> None:
    leaves, _ = _flatten(out_dims)
    for d in leaves:
        if not (d is None or (isinstance(d, int) and not isinstance(d, bool))):
            raise ValueError(
                f"vmap({_name(func)}, ..., out_dims={out_dims}): `out_dims` must be an int, None "
                "or a python collection of ints representing where in the outputs the vmapped "
                "dimension should appear."
            )


def _run(func, batch: int, flat_dims, flat_args, spec, kwargs, randomness):
    """The per-element outputs (flattened) and their spec."""
    from . import random as _random

    state = _random.get_rng_state() if randomness == "same" else None
    per_elem = []
    out_spec = None
    _random._VMAP_MODES.append(randomness)
    try:
        for b in range(batch):
            if state is not None:
                _random.set_rng_state(state)
            leaves = [a.select(d, b) if d is not None else a for a, d in zip(flat_args, flat_dims)]
            out = func(*_unflatten(leaves, spec), **kwargs)
            flat, out_spec = _flatten(out)
            per_elem.append(flat)
    finally:
        _random._VMAP_MODES.pop()
    return per_elem, out_spec


# ------------------------------------------------------------------ the batched run
def _run_batched(func, batch, flat_dims, flat_args, spec, kwargs, chunk_size):
    """``func`` run once over the batch: the flat outputs, each as (physical tensor with the batch
    axis first, or an unbatched value), and the output spec. Raises :class:`vb.Fallback`."""
    vb.install_rows()
    if chunk_size is not None and chunk_size < batch:
        parts, out_spec = [], None
        for s in range(0, batch, chunk_size):
            m = min(chunk_size, batch - s)
            args = [a.narrow(d, s, m) if d is not None else a for a, d in zip(flat_args, flat_dims)]
            outs, out_spec = _run_batched(func, m, flat_dims, args, spec, kwargs, None)
            parts.append(outs)
        res = []
        for k in range(len(parts[0])):
            vals = [p[k] for p in parts]
            if any(v[0] for v in vals):
                res.append(
                    (
                        True,
                        cat(
                            [
                                v[1] if v[0] else _expand(v[1], len_)
                                for v, len_ in zip(vals, _chunk_sizes(batch, chunk_size))
                            ],
                            0,
                        ),
                    )
                )
            else:
                res.append(vals[0])
        return res, out_spec
    lv = len(vb.LEVELS) + 1
    vb.LEVELS.append(batch)
    # a random op raises (torch's "error" mode) before drawing: the per-element run draws
    _random._VMAP_MODES.append("error")
    try:
        leaves = []
        for a, d in zip(flat_args, flat_dims):
            if d is None:
                leaves.append(a)
                continue
            d = d % a.dim()
            leaves.append(vb._wrap_b(a.movedim(d, 0) if d else a, lv))
        out = func(*_unflatten(leaves, spec), **kwargs)
        flat, out_spec = _flatten(out)
        res = []
        for o in flat:
            if o.__class__ is vb.BatchedTensor and o._lvl == lv:
                res.append((True, o._phys))
            elif isinstance(o, Tensor) and vb._level(o) < lv:
                res.append((False, o))
            else:
                raise vb.Fallback  # a non-tensor output: the loop gives torch's error
    finally:
        _random._VMAP_MODES.pop()
        vb.LEVELS.pop()
    return res, out_spec


def _chunk_sizes(batch, chunk):
    return [min(chunk, batch - s) for s in range(0, batch, chunk)]


def _expand(t, n):
    return t.unsqueeze(0).expand(n, *t.shape)


_LOOP = object()


def _batched(func, batch, flat_dims, flat_args, spec, kwargs, out_dims, chunk_size):
    """The call run once over the batch (``_vmap_batch``), or ``_LOOP`` where it cannot be."""
    from .ops.api import stack

    T = _T()
    try:
        outs, out_spec = _run_batched(func, batch, flat_dims, flat_args, spec, kwargs, chunk_size)
        flat_out_dims = (
            _broadcast(out_dims, out_spec)
            if out_spec is not None
            else ([out_dims] if isinstance(out_dims, int) or out_dims is None else None)
        )
        if flat_out_dims is None or len(flat_out_dims) != len(outs):
            raise vb.Fallback
        results = []
        for (is_b, o), d in zip(outs, flat_out_dims):
            if d is None or not isinstance(d, int):
                raise vb.Fallback  # the loop's checks and messages
            ndim = o.dim() + (0 if is_b else 1)
            if not -ndim <= d < ndim:
                raise vb.Fallback
            if not is_b:
                results.append(stack([o] * batch, d))
                continue
            if o._base is not None or any(o is a for a in flat_args):
                o = o.clone()  # a fresh tensor, as the loop's stack gives
            results.append(o.movedim(0, d) if d % ndim else o)
    except (vb.Fallback, Exception) as e:  # the per-element run raises torch's errors
        if vb.refused(e):
            raise
        vb.STATS["fallback"] += 1
        vb.STATS["last"] = vb.reason(e)
        return _LOOP
    vb.STATS["batched"] += 1
    if any(not isinstance(r, T) for r in results):
        return _LOOP
    return _unflatten(results, out_spec)


def vmap(func, in_dims=0, out_dims=0, randomness: str = "error", *, chunk_size=None):
    """``func`` mapped over dimension ``in_dims`` of its inputs; the results are stacked at
    ``out_dims``.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.vmap(torch.dot)(torch.ones(3, 2), torch.ones(3, 2))
        tensor([2., 2., 2.])
        >>> torch.vmap(lambda d: d["a"] * d["b"], in_dims=({"a": 0, "b": None},))(
        ...     {"a": torch.arange(3.), "b": torch.tensor(2.)})
        tensor([0., 2., 4.])
    """
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(
            "Only allowed values for randomness are 'error', 'different', or "
            f"'same'. Got {randomness}"
        )
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        from .ops.api import stack

        T = _T()
        _check_out_dims(func, out_dims)
        batch, flat_dims, flat_args, spec = _process_inputs(func, in_dims, args)
        done = _batched(func, batch, flat_dims, flat_args, spec, kwargs, out_dims, chunk_size)
        if done is not _LOOP:
            return done
        per_elem, out_spec = _run(func, batch, flat_dims, flat_args, spec, kwargs, randomness)
        name = _name(func)
        flat_out_dims = None
        if out_spec is None:
            if isinstance(out_dims, int) or out_dims is None:
                flat_out_dims = [out_dims]
            elif isinstance(out_dims, tuple) and len(out_dims) == 1:
                flat_out_dims = list(out_dims)
        else:
            flat_out_dims = _broadcast(out_dims, out_spec)
        if flat_out_dims is None:
            _, dims_spec = _flatten(out_dims)
            raise ValueError(
                f"vmap({name}, ..., out_dims={out_dims})(<inputs>): out_dims is not compatible "
                f"with the structure of `outputs`. out_dims has structure {_spec_str(dims_spec)} "
                f"but outputs has structure {_spec_str(out_spec)}."
            )
        results = []
        for k, d in enumerate(flat_out_dims):
            vals = [elem[k] for elem in per_elem]
            if d is None:
                results.append(vals[0])
                continue
            if not isinstance(vals[0], T):
                raise ValueError(  # noqa: TRY004 - torch's exception type
                    f"vmap({name}, ...): `{name}` must only return Tensors, got type "
                    f"{type(vals[0])}. Did you mean to set out_dims= to None for output?"
                )
            ndim = vals[0].dim() + 1
            if not -ndim <= d < ndim:
                raise IndexError(
                    f"Dimension out of range (expected to be in range of "
                    f"[{-ndim}, {ndim - 1}], but got {d})"
                )
            results.append(stack(vals, d))
        return _unflatten(results, out_spec)

    return wrapped
