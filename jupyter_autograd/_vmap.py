"""``torch.vmap`` / ``torch.func.vmap``: map a function over a dimension of its inputs.

Inputs and outputs are pytrees (tuples, lists, dicts of tensors) as in torch: ``in_dims`` and
``out_dims`` are an int/None for all, or a matching (possibly partial) structure. The function
runs once per batch element (``chunk_size`` elements are taken together by torch; here each
chunk is still run element by element) and the results are stacked at ``out_dims``. Outputs
with ``out_dims=None`` must not depend on the mapped inputs and are returned as computed.

``randomness``: ``"different"`` draws new numbers for each element; ``"same"`` gives every
element the numbers of the first one (the generator is rewound for each); ``"error"``
(default) refuses random ops inside the mapped function, with torch's error.

Not done: torch's batching rules (a vectorized run of each op over the batch); the values are
the same, the speed is that of a Python loop.
"""

from __future__ import annotations

import functools

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
    return f"({inner},)" if kind is tuple and len(subs) == 1 else (
        f"({inner})" if kind is tuple else f"[{inner}]")


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
            f"{type(in_dims)}.")
    if len(args) == 0:
        raise ValueError(
            f"vmap({name})(<inputs>): got no inputs. Maybe you forgot to add inputs, or you are "
            "trying to vmap over a function with no inputs. The latter is unsupported.")
    flat_args, spec = _flatten(tuple(args))
    flat_dims = _broadcast(in_dims, spec)
    if flat_dims is None:
        _, dims_spec = _flatten(in_dims)
        raise ValueError(
            f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): in_dims is not compatible with "
            f"the structure of `inputs`. in_dims has structure {_spec_str(dims_spec)} but inputs "
            f"has structure {_spec_str(spec)}.")
    for arg, d in zip(flat_args, flat_dims):
        if not (d is None or (isinstance(d, int) and not isinstance(d, bool))):
            raise ValueError(
                f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for an input "
                "but in_dim must be either an integer dimension or None.")
        if isinstance(d, int) and not isinstance(arg, T):
            raise ValueError(  # noqa: TRY004 - torch's exception type
                f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for an input "
                f"but the input is of type {type(arg)}. We cannot vmap over non-Tensor "
                "arguments, please use None as the respective in_dim")
        if d is not None and not -arg.dim() <= d < arg.dim():
            raise ValueError(
                f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for some "
                f"input, but that input is a Tensor of dimensionality {arg.dim()} so expected "
                f"in_dim to satisfy -{arg.dim()} <= in_dim < {arg.dim()}.")
    sizes = [a.size(d) for a, d in zip(flat_args, flat_dims) if d is not None]
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if any(s != sizes[0] for s in sizes):
        raise ValueError("vmap: Expected all tensors to have the same size in the mapped "
                         f"dimension, got sizes {sizes} for the mapped dimension")
    return sizes[0], flat_dims, flat_args, spec


def _check_out_dims(func, out_dims) -> None:
    leaves, _ = _flatten(out_dims)
    for d in leaves:
        if not (d is None or (isinstance(d, int) and not isinstance(d, bool))):
            raise ValueError(
                f"vmap({_name(func)}, ..., out_dims={out_dims}): `out_dims` must be an int, None "
                "or a python collection of ints representing where in the outputs the vmapped "
                "dimension should appear.")


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
        raise RuntimeError("Only allowed values for randomness are 'error', 'different', or "
                           f"'same'. Got {randomness}")
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        from .ops.api import stack

        T = _T()
        _check_out_dims(func, out_dims)
        batch, flat_dims, flat_args, spec = _process_inputs(func, in_dims, args)
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
                f"but outputs has structure {_spec_str(out_spec)}.")
        results = []
        for k, d in enumerate(flat_out_dims):
            vals = [elem[k] for elem in per_elem]
            if d is None:
                results.append(vals[0])
                continue
            if not isinstance(vals[0], T):
                raise ValueError(  # noqa: TRY004 - torch's exception type
                    f"vmap({name}, ...): `{name}` must only return Tensors, got type "
                    f"{type(vals[0])}. Did you mean to set out_dims= to None for output?")
            ndim = vals[0].dim() + 1
            if not -ndim <= d < ndim:
                raise IndexError(f"Dimension out of range (expected to be in range of "
                                 f"[{-ndim}, {ndim - 1}], but got {d})")
            results.append(stack(vals, d))
        return _unflatten(results, out_spec)

    return wrapped
