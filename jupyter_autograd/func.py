"""Function transforms (torch.func): grad, grad_and_value, vjp, jvp, jacrev, jacfwd, hessian,
linearize and vmap.

Reverse-mode transforms build on ``autograd.grad``; nested inside another transform they keep
the graph (``create_graph=True``) so that ``grad(grad(f))`` works. ``jvp`` and ``jacfwd`` use
forward-mode AD (``autograd.forward_ad``). ``vmap`` runs the function once per batch element and
stacks the results (torch vectorizes instead; the values are the same).
"""

from __future__ import annotations

import functools

import numpy as np

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "linearize", "vmap"]

# How many transforms are running; inner ones must keep their graph for the outer ones.
_DEPTH = [0]


def _T():
    from .tensor import Tensor  # noqa: PLC0415

    return Tensor


def _argnums_tuple(argnums, n, name):
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    if not nums:
        raise RuntimeError(f"{name}: argnums must be non-empty")
    out = []
    for a in nums:
        if not isinstance(a, int):
            raise RuntimeError(f"{name}: argnums must be int or Tuple[int, ...], got: {type(a)}")
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
    from .grad_mode import is_grad_enabled  # noqa: PLC0415

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
        from .autograd import grad as _grad  # noqa: PLC0415
        from .grad_mode import enable_grad  # noqa: PLC0415

        nums = _argnums_tuple(argnums, len(args), "grad_and_value")
        with _Transform(), enable_grad():
            orig = [args[i] for i in nums]
            keep = _keep_graph(orig)
            args2 = list(args)
            for i in nums:
                args2[i] = _prepare(args[i])
            out, aux = _split_aux(func(*args2, **kwargs), has_aux, "grad_and_value")
            if not isinstance(out, _T()):
                raise RuntimeError(
                    "grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got "
                    f"{type(out)}"
                )
            if out.dim() != 0:
                raise RuntimeError(
                    "grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got "
                    f"tensor with {out.dim()} dims. Maybe you wanted to use the vjp or jacrev APIs "
                    "instead?"
                )
            ins = [args2[i] for i in nums]
            if out.requires_grad:
                gs = _grad(out, ins, create_graph=keep, allow_unused=True)
            else:
                gs = (None,) * len(ins)
            from .factories import zeros_like  # noqa: PLC0415

            gs = tuple(_finish(g if g is not None else zeros_like(x), keep) for g, x in zip(gs, ins))
        g = gs[0] if isinstance(argnums, int) else gs
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
    from .autograd import grad as _grad  # noqa: PLC0415
    from .grad_mode import enable_grad  # noqa: PLC0415

    with _Transform(), enable_grad():
        keep = _keep_graph(primals)
        ins = [_prepare(p) for p in primals]
        out, aux = _split_aux(func(*ins), has_aux, "vjp")
    outs, is_seq = _flat_out(out)

    def vjp_fn(*cotangents):
        cts = cotangents[0] if len(cotangents) == 1 else cotangents
        cts, _ = _flat_out(cts)
        if len(cts) != len(outs):
            raise RuntimeError(
                f"Expected pytree structure of cotangents to be the same as pytree structure of "
                f"outputs to the function. cotangents: {len(cts)} tensors, primal output: "
                f"{len(outs)} tensors"
            )
        pairs = [(o, c) for o, c in zip(outs, cts) if o.requires_grad]
        from .factories import zeros_like  # noqa: PLC0415

        with _Transform(), enable_grad():
            if pairs:
                gs = _grad([o for o, _ in pairs], ins, [c for _, c in pairs], retain_graph=True,
                           create_graph=keep or _DEPTH[0] > 1, allow_unused=True)
            else:
                gs = (None,) * len(ins)
            return tuple(_finish(g if g is not None else zeros_like(x), keep or _DEPTH[0] > 1)
                         for g, x in zip(gs, ins))

    res = tuple(_finish(o, keep) for o in outs)
    res = res if is_seq else res[0]
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
    from .autograd import forward_ad as fwAD  # noqa: PLC0415
    from .factories import zeros_like  # noqa: PLC0415

    if not isinstance(primals, (tuple, list)):
        raise RuntimeError(
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
        from .autograd import grad as _grad  # noqa: PLC0415
        from .factories import zeros_like  # noqa: PLC0415
        from .grad_mode import enable_grad  # noqa: PLC0415
        from .ops.api import stack  # noqa: PLC0415

        nums = _argnums_tuple(argnums, len(args), "jacrev")
        T = _T()
        with _Transform(), enable_grad():
            keep = _keep_graph([args[i] for i in nums])
            args2 = list(args)
            for i in nums:
                args2[i] = _prepare(args[i])
            ins = [args2[i] for i in nums]
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
                        gs = _grad(o, ins, T._wrap(e.reshape(o._data.shape)), retain_graph=True,
                                   create_graph=keep, allow_unused=True)
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
                per_out.append(jac)
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
        from .autograd import forward_ad as fwAD  # noqa: PLC0415
        from .factories import zeros_like  # noqa: PLC0415
        from .ops.api import stack  # noqa: PLC0415

        nums = _argnums_tuple(argnums, len(args), "jacfwd")
        T = _T()
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
                        outs, is_seq = _flat_out(out)
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


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """Map ``func`` over a batch dimension (by looping, then stacking the results).

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.func.vmap(torch.dot)(torch.ones(3, 2), torch.ones(3, 2))
        tensor([2., 2., 2.])
    """

    @functools.wraps(func)
    def wrapper(*args):
        from .ops.api import stack  # noqa: PLC0415

        T = _T()
        dims = in_dims if isinstance(in_dims, (tuple, list)) else (in_dims,) * len(args)
        if len(dims) != len(args):
            raise ValueError(
                f"vmap(f, in_dims={in_dims}, ...)(<inputs>): in_dims is not compatible with the "
                f"structure of `inputs`. in_dims has structure {len(dims)} but inputs has "
                f"structure {len(args)}."
            )
        sizes = {a.shape[d] for a, d in zip(args, dims) if d is not None and isinstance(a, T)}
        if not sizes:
            raise ValueError(
                f"vmap(f, in_dims={in_dims}, ...)(<inputs>): at least one input must be batched "
                "(a Tensor with an in_dim that is not None)."
            )
        if len(sizes) > 1:
            raise ValueError(
                "vmap: Expected all tensors to have the same size in the mapped dimension, got "
                f"sizes {sorted(sizes)} for the mapped dimension"
            )
        n = sizes.pop()
        results = []
        for b in range(n):
            sl = [a.select(d, b) if (d is not None and isinstance(a, T)) else a
                  for a, d in zip(args, dims)]
            results.append(func(*sl))
        first = results[0]
        if isinstance(first, (tuple, list)):
            ods = out_dims if isinstance(out_dims, (tuple, list)) else (out_dims,) * len(first)
            return tuple(stack([r[k] for r in results], ods[k]) for k in range(len(first)))
        return stack(results, out_dims)

    return wrapper
