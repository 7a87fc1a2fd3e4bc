"""Function transforms (torch.func): grad, grad_and_value, vjp, jvp, jacrev, jacfwd, hessian,
linearize, vmap (``_vmap.py``), functional_call and stack_module_state (``_functional_call.py``).
``grad``, ``vjp`` and ``jacrev`` take and return pytrees (dicts, tuples, lists of tensors) as
torch.func does.

Reverse-mode transforms build on ``autograd.grad``; nested inside another transform they keep
the graph (``create_graph=True``) so that ``grad(grad(f))`` works. ``jvp`` and ``jacfwd`` use
forward-mode AD (``autograd.forward_ad``); ``jacfwd`` runs one forward pass per argument with
the basis as a batch of tangents (``_batching``: each registry row's batch rule). ``vmap`` runs the
function once over the batch where every op has a batch rule (``_vmap_batch``; ``grad`` inside
it then runs one forward and one backward for the whole batch), else once per batch element.
"""

from __future__ import annotations

import functools

import numpy as np

from . import _vmap_batch as _vb
from ._batching import Unbatchable, jacobian_block
from ._functional_call import functional_call, stack_module_state
from ._vmap import _flatten, _spec_str, _unflatten, vmap

__all__ = [
    "functional_call",
    "grad",
    "grad_and_value",
    "hessian",
    "jacfwd",
    "jacrev",
    "jvp",
    "linearize",
    "stack_module_state",
    "vjp",
    "vmap",
]

# How many transforms are running; inner ones must keep their graph for the outer ones.
_DEPTH = [0]


def _T():
    from .tensor import Tensor

    return Tensor


def _argnums_tuple(argnums, n, name):
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    if not nums:
        raise RuntimeError(f"{name}: argnums must be non-empty")
    out = []
    for a in nums:
        if not isinstance(a, int):
            raise RuntimeError(f"{name}: argnums must be int or Tuple[int, ...], got: {type(a)}")  # noqa: TRY004 - torch's exception type
        if not -n <= a < n:
            raise RuntimeError(
                f"Got argnums={a}, but only {n} positional inputs were passed. Try to change the "
                "argnums to be smaller."
            )
        out.append(a % n)
    return tuple(out)


def _prepare(x):
    """A differentiable stand-in for one primal: keeps the outer graph when there is one."""
    if x.requires_grad:
        return x.view_as(x)
    return x.detach().requires_grad_(True)


class _Transform:
    def __enter__(self):
        _DEPTH[0] += 1

    def __exit__(self, *exc):
        _DEPTH[0] -= 1


def _keep_graph(prims) -> bool:
    from .grad_mode import is_grad_enabled

    return _DEPTH[0] > 1 or (is_grad_enabled() and any(p.requires_grad for p in prims))


def _finish(t, keep):
    if t is None or keep:
        return t
    return t.detach()


def _split_aux(out, has_aux, name):
    if not has_aux:
        return out, None
    if not (isinstance(out, tuple) and len(out) == 2):
        raise RuntimeError(
            f"{name}(f, ...)(*args): output of function f should be a tuple: (output, aux) if "
            "has_aux is True"
        )
    return out


def grad_and_value(func, argnums=0, has_aux=False):
    """Like :func:`grad`, but the new function returns ``(gradient, value)``.

    Example:
        >>> import jupyter_autograd as torch
        >>> g, v = torch.func.grad_and_value(lambda x: (x ** 2).sum())(torch.tensor([1., 2.]))
        >>> g, v
        (tensor([2., 4.]), tensor(5.))
    """

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        from .autograd import grad as _grad
        from .grad_mode import enable_grad

        nums = _argnums_tuple(argnums, len(args), "grad_and_value")
        if _vb.LEVELS and not _DEPTH[0]:  # inside a batched vmap, under no other transform:
            # one forward and one backward over the batch
            with _Transform():
                per_arg, value, aux = _vb.grad_and_value(
                    func, nums, has_aux, args, kwargs, _flatten, _unflatten, _split_aux
                )
            g = per_arg[0] if isinstance(argnums, int) else tuple(per_arg)
            return (g, (value, aux)) if has_aux else (g, value)
        with _Transform(), enable_grad():
            # each differentiated argument may be a pytree (a dict of parameters...)
            trees = [_flatten(args[i]) for i in nums]
            orig = [leaf for leaves, _ in trees for leaf in leaves]
            keep = _keep_graph(orig)
            args2 = list(args)
            prepared = []
            for i, (leaves, spec) in zip(nums, trees):
                ps = [_prepare(x) for x in leaves]
                prepared.append(ps)
                args2[i] = _unflatten(ps, spec)
            out, aux = _split_aux(func(*args2, **kwargs), has_aux, "grad_and_value")
            if not isinstance(out, _T()):
                raise RuntimeError(  # noqa: TRY004 - torch's exception type
                    "grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got "
                    f"{type(out)}"
                )
            if out.dim() != 0:
                raise RuntimeError(
                    "grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got "
                    f"tensor with {out.dim()} dims. Maybe you wanted to use the vjp or jacrev APIs "
                    "instead?"
                )
            ins = [x for ps in prepared for x in ps]
            if out.requires_grad:
                gs = _grad(out, ins, create_graph=keep, allow_unused=True)
            else:
                gs = (None,) * len(ins)
            from .factories import zeros_like

            gs = [_finish(g if g is not None else zeros_like(x), keep) for g, x in zip(gs, ins)]
            per_arg = []
            for ps, (_, spec) in zip(prepared, trees):
                per_arg.append(_unflatten(gs[: len(ps)], spec))
                gs = gs[len(ps) :]
        g = per_arg[0] if isinstance(argnums, int) else tuple(per_arg)
        value = _finish(out, keep)
        if has_aux:
            return g, (value, aux)
        return g, value

    return wrapper


def grad(func, argnums=0, has_aux=False):
    """``grad(f)(x)``: the gradient of a scalar function ``f`` at ``x`` (torch.func.grad).

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.func.grad(lambda x: x.sin())(torch.tensor(0.))
        tensor(1.)
        >>> torch.func.grad(torch.func.grad(lambda x: x ** 3))(torch.tensor(2.))
        tensor(12.)
    """
    gv = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        g, v = gv(*args, **kwargs)
        if has_aux:
            return g, v[1]
        return g

    return wrapper


def _flat_out(out):
    if isinstance(out, _T()):
        return (out,), False
    if isinstance(out, (tuple, list)):
        return tuple(out), True
    raise RuntimeError(f"Expected the function to return Tensors, got {type(out)}")


def vjp(func, *primals, has_aux=False):
    """``(func(*primals), vjp_fn)``; ``vjp_fn(cotangents)`` returns vᵀJ per primal (a tuple).

    Example:
        >>> import jupyter_autograd as torch
        >>> out, fn = torch.func.vjp(lambda x: x ** 2, torch.tensor([1., 2.]))
        >>> fn(torch.ones(2))
        (tensor([2., 4.]),)
    """
    from .autograd import grad as _grad
    from .grad_mode import enable_grad

    with _Transform(), enable_grad():
        trees = [_flatten(p) for p in primals]  # primals and outputs may be pytrees
        keep = _keep_graph([x for leaves, _ in trees for x in leaves])
        prepared = [[_prepare(x) for x in leaves] for leaves, _ in trees]
        ins = [x for ps in prepared for x in ps]
        out, aux = _split_aux(
            func(*(_unflatten(ps, spec) for ps, (_, spec) in zip(prepared, trees))), has_aux, "vjp"
        )
    outs, out_spec = _flatten(out)
    for o in outs:
        if not isinstance(o, _T()):
            raise RuntimeError(  # noqa: TRY004 - torch's exception type
                f"vjp(f, *primals): Expected f to be a function that has "
                f"non-empty output (got {type(o)} in its outputs)"
            )

    def vjp_fn(*cotangents):
        cts = cotangents[0] if len(cotangents) == 1 else cotangents
        cts, ct_spec = _flatten(cts)
        if ct_spec != out_spec and not (len(cts) == len(outs) and out_spec is None):
            raise RuntimeError(
                "Expected pytree structure of cotangents to be the same as pytree structure of "
                f"outputs to the function. cotangents: {_spec_str(ct_spec)}, primal output: "
                f"{_spec_str(out_spec)}"
            )
        pairs = [(o, c) for o, c in zip(outs, cts) if o.requires_grad]
        from .factories import zeros_like

        with _Transform(), enable_grad():
            if pairs:
                gs = _grad(
                    [o for o, _ in pairs],
                    ins,
                    [c for _, c in pairs],
                    retain_graph=True,
                    create_graph=keep or _DEPTH[0] > 1,
                    allow_unused=True,
                )
            else:
                gs = (None,) * len(ins)
            gs = [
                _finish(g if g is not None else zeros_like(x), keep or _DEPTH[0] > 1)
                for g, x in zip(gs, ins)
            ]
        res = []
        for ps, (_, spec) in zip(prepared, trees):
            res.append(_unflatten(gs[: len(ps)], spec))
            gs = gs[len(ps) :]
        return tuple(res)

    res = _unflatten([_finish(o, keep) for o in outs], out_spec)
    if has_aux:
        return res, vjp_fn, aux
    return res, vjp_fn


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """``(func(*primals), J·tangents)`` with forward-mode AD (torch.func.jvp).

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.func.jvp(lambda x: x ** 2, (torch.tensor([1., 2.]),), (torch.ones(2),))
        (tensor([1., 4.]), tensor([2., 4.]))
    """
    from .autograd import forward_ad as fwAD
    from .factories import zeros_like

    if not isinstance(primals, (tuple, list)):
        raise RuntimeError(  # noqa: TRY004 - torch's exception type
            "jvp(f, primals, tangents): Expected primals to be a tuple. E.g. it should be valid "
            "to call f(*primals)."
        )
    if not isinstance(tangents, (tuple, list)) or len(tangents) != len(primals):
        raise RuntimeError(
            "jvp(f, primals, tangents): Expected primals and tangents to have the same python "
            "structure. For example, if primals is a tuple of 3 tensors, tangents also must be. "
            f"Got primals with structure {len(primals)} and tangents with structure "
            f"{len(tangents) if isinstance(tangents, (tuple, list)) else type(tangents)}"
        )
    for p, t in zip(primals, tangents):
        if tuple(p.shape) != tuple(t.shape):
            raise RuntimeError(
                "jvp(f, primals, tangents): Expected primals and tangents to have the same shape. "
                f"Got primals with shape {tuple(p.shape)} and tangents with shape {tuple(t.shape)}"
            )
    with _Transform(), fwAD.dual_level():
        duals = [fwAD.make_dual(p.detach(), t.detach()) for p, t in zip(primals, tangents)]
        out, aux = _split_aux(func(*duals), has_aux, "jvp")
        outs, is_seq = _flat_out(out)
        prim, tans = [], []
        for o in outs:
            p, t = fwAD.unpack_dual(o)
            prim.append(p.detach())
            tans.append(t.detach() if t is not None else zeros_like(p))
    if is_seq:
        res = (tuple(prim), tuple(tans))
    else:
        res = (prim[0], tans[0])
    return (*res, aux) if has_aux else res


def linearize(func, *primals):
    """``(func(*primals), jvp_fn)`` where ``jvp_fn(*tangents)`` is J·tangents at ``primals``.

    Example:
        >>> import jupyter_autograd as torch
        >>> out, fn = torch.func.linearize(torch.sin, torch.tensor([0.]))
        >>> fn(torch.tensor([2.]))
        tensor([2.])
    """
    out, _ = jvp(func, primals, tuple(p * 0 for p in primals))

    def jvp_fn(*tangents):
        return jvp(func, primals, tangents)[1]

    return out, jvp_fn


def _fwd_outs(out):
    """``out``'s tensors (flat) and whether it is a sequence, with torch's check (jacfwd)."""
    outs = out if isinstance(out, (tuple, list)) else (out,)
    for o in outs:
        if not isinstance(o, _T()):
            raise RuntimeError(  # noqa: TRY004 - torch's exception type
                "jvp(f, primals, tangents): expected f(*primals) to return only tensors, got "
                f"unsupported type {type(o)}"
            )
    return tuple(outs), isinstance(out, (tuple, list))


def _jac_struct(out_list, is_seq_out, per_in, single_arg):
    """Arrange ``per_in[o][k]`` (Jacobian of output o w.r.t. argnum k) as torch.func does."""
    res = []
    for row in per_in:
        res.append(row[0] if single_arg else tuple(row))
    return tuple(res) if is_seq_out else res[0]


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """The Jacobian of ``func`` w.r.t. ``argnums`` by reverse mode, one row per backward pass.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.func.jacrev(torch.sin)(torch.tensor([0., 0.]))
        tensor([[1., 0.],
                [0., 1.]])
    """

    @functools.wraps(func)
    def wrapper(*args):
        from .autograd import grad as _grad
        from .factories import zeros_like
        from .grad_mode import enable_grad
        from .ops.api import stack

        nums = _argnums_tuple(argnums, len(args), "jacrev")
        T = _T()
        with _Transform(), enable_grad():
            trees = [_flatten(args[i]) for i in nums]  # an argument may be a pytree
            keep = _keep_graph([x for leaves, _ in trees for x in leaves])
            args2 = list(args)
            sizes = []
            for i, (leaves, spec) in zip(nums, trees):
                args2[i] = _unflatten([_prepare(x) for x in leaves], spec)
                sizes.append(len(leaves))
            ins = [x for i in nums for x in _flatten(args2[i])[0]]
            out, aux = _split_aux(func(*args2), has_aux, "jacrev")
            outs, is_seq = _flat_out(out)
            per_out = []
            for o in outs:
                n = o.numel()
                rows = [[] for _ in ins]
                for j in range(n):
                    if o.requires_grad:
                        e = np.zeros(n, o._data.dtype)
                        e[j] = 1
                        gs = _grad(
                            o,
                            ins,
                            T._wrap(e.reshape(o._data.shape)),
                            retain_graph=True,
                            create_graph=keep,
                            allow_unused=True,
                        )
                    else:
                        gs = (None,) * len(ins)
                    for k, g in enumerate(gs):
                        rows[k].append(g if g is not None else zeros_like(ins[k]))
                jac = []
                for k, x in enumerate(ins):
                    shape = tuple(o.shape) + tuple(x.shape)
                    if rows[k]:
                        jac.append(_finish(stack(rows[k], 0).reshape(shape), keep))
                    else:
                        jac.append(T._wrap(np.zeros(shape, x._data.dtype)))
                per_arg = []
                for n_leaves, (_, spec) in zip(sizes, trees):
                    per_arg.append(_unflatten(jac[:n_leaves], spec))
                    jac = jac[n_leaves:]
                per_out.append(per_arg)
        res = _jac_struct(outs, is_seq, per_out, isinstance(argnums, int))
        return (res, aux) if has_aux else res

    return wrapper


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """The Jacobian of ``func`` w.r.t. ``argnums`` by forward mode, one column per pass.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.func.jacfwd(lambda x: x ** 2)(torch.tensor([1., 3.]))
        tensor([[2., 0.],
                [0., 6.]])
    """

    @functools.wraps(func)
    def wrapper(*args):
        from .autograd import forward_ad as fwAD
        from .factories import zeros_like
        from .ops.api import stack

        nums = _argnums_tuple(argnums, len(args), "jacfwd")
        T = _T()
        try:
            return _jacfwd_batched(func, args, nums, isinstance(argnums, int), has_aux)
        except Unbatchable:
            pass  # one forward pass per basis vector, as before
        cols = None
        outs_primal = None
        is_seq = False
        aux = None
        with _Transform():
            for kk, i in enumerate(nums):
                x = args[i]
                for j in range(x.numel()):
                    with fwAD.dual_level():
                        args2 = list(args)
                        for m in nums:
                            t = np.zeros(args[m]._data.shape, args[m]._data.dtype)
                            if m == i:
                                t.reshape(-1)[j] = 1
                            args2[m] = fwAD.make_dual(args[m].detach(), T._wrap(t))
                        out, aux = _split_aux(func(*args2), has_aux, "jacfwd")
                        outs, is_seq = _fwd_outs(out)
                        tans, prim = [], []
                        for o in outs:
                            p, t = fwAD.unpack_dual(o)
                            prim.append(p.detach())
                            tans.append(t if t is not None else zeros_like(p))
                    if cols is None:
                        cols = [[[] for _ in nums] for _ in outs]
                        outs_primal = prim
                    for oi, t in enumerate(tans):
                        cols[oi][kk].append(t)
        per_out = []
        for oi, o in enumerate(outs_primal):
            jac = []
            for kk, i in enumerate(nums):
                x = args[i]
                shape = tuple(o.shape) + tuple(x.shape)
                if cols[oi][kk]:
                    jac.append(stack(cols[oi][kk], -1).detach().reshape(shape))
                else:
                    jac.append(T._wrap(np.zeros(shape, o._data.dtype)))
            per_out.append(jac)
        res = _jac_struct(outs_primal, is_seq, per_out, isinstance(argnums, int))
        return (res, aux) if has_aux else res

    return wrapper


def _jacfwd_batched(func, args, nums, single_arg, has_aux):
    """jacfwd from one forward pass per differentiated argument, its basis as a batch of
    tangents (see ``_batching``); raises Unbatchable where that pass cannot run."""
    T = _T()
    aux = None
    per_arg = []
    outs_primal = is_seq = None
    with _Transform():
        for i in nums:

            def select(out):
                nonlocal aux, outs_primal, is_seq
                o, aux = _split_aux(out, has_aux, "jacfwd")
                outs_primal, is_seq = _fwd_outs(o)
                return outs_primal

            _, _, blocks = jacobian_block(func, args, i, select)
            per_arg.append(blocks)
    per_out = [
        [T._wrap(per_arg[kk][oi]) for kk in range(len(nums))] for oi in range(len(outs_primal))
    ]
    res = _jac_struct(outs_primal, is_seq, per_out, single_arg)
    return (res, aux) if has_aux else res


def hessian(func, argnums=0):
    """The Hessian of a scalar function: ``jacrev(jacrev(func))``.

    torch composes ``jacfwd(jacrev(func))``; here both passes are reverse mode (same values).

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.func.hessian(lambda x: (x ** 3).sum())(torch.tensor([1., 2.]))
        tensor([[ 6.,  0.],
                [ 0., 12.]])
    """
    return jacrev(jacrev(func, argnums), argnums)
