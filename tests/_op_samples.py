"""Registry-driven samples: for every op row, how to call it (ours and torch's) on inputs drawn
from the row's ``sample`` metadata. A row this module cannot sample fails the meta-test."""

from __future__ import annotations

import inspect

import numpy as np

import jupyter_autograd as ja

ELEMENTWISE_PUBLIC = {
    "add": "add",
    "sub": "sub",
    "mul": "mul",
    "div": "div",
    "maximum": "maximum",
    "minimum": "minimum",
    "pow.Tensor_Tensor": "pow",
}


class Case:
    """One way to exercise a row: ``ours(*tensors)``, ``theirs(torch, *tensors)``, float64 inputs."""

    def __init__(self, ours, arrays, theirs=None, nondiff=None, rtol=None):
        self.rtol = rtol
        self.ours = ours
        self.arrays = [np.array(a, dtype=np.float64) for a in arrays]
        self.theirs = theirs
        self.nondiff = nondiff or {}


class Unsampleable(Exception):
    pass


class NotDifferentiable(Unsampleable):
    """A row torch records as a ``NotImplemented`` node: backward through it raises, so the
    gradient checks do not apply (its forward and its error are compared with torch in
    tests/test_defects_rounding.py)."""


def _draw(rng, shape, meta, i=0):
    lo, hi = meta.get("domain", (-3, 3))
    x = rng.uniform(lo, hi, size=shape)
    avoid = (meta.get("avoid") or {}).get(i, ())
    for a in avoid:
        close = np.abs(x - a) < 1e-2
        x = np.where(close, x + 0.05 * np.sign(x - a + 1e-12), x)
    return x


def _build(builder, rng):
    """A row's case builder: ``builder(rng)``, or ``builder(rng, lib)`` where it needs the package
    itself to size its inputs (a gradient's shape is the forward's output shape)."""
    if len(inspect.signature(builder).parameters) == 2:
        return builder(rng, ja)
    return builder(rng)


def cases(op, rng, shapes=None):
    """Return a list of Cases for registry row ``op``; ``shapes`` (for elementwise ops) are the
    (mutually broadcastable) input shapes."""
    meta = op.sample or {}
    # torch's NotImplemented nodes, and backward kernels whose own node refuses to run
    # (PdistBackwardBackward0)
    if op.node_name == "NotImplemented" or meta.get("kind") == "not_differentiable":
        raise NotDifferentiable(op.name)
    if "cases" in meta:  # a row may carry its own case builder: rng -> [(ours, arrays, theirs)]
        # ours None: the row's samples call torch's API, ``theirs(torch, *tensors)``; ours is
        # the same call with this package in torch's place (the rows cannot import the package)
        return [
            Case(*(c if c[0] is not None else (lambda *ts, f=c[2]: f(ja, *ts), *c[1:])))
            for c in _build(meta["cases"], rng)
        ]
    kind = meta.get("kind")
    params = dict(meta.get("params", {}))
    n = len(op.inputs)
    if kind is None and not meta.get("reduce"):
        shapes = shapes or [(3, 4)] * n
        arrays = [_draw(rng, s, meta, i) for i, s in enumerate(shapes)]
        if meta.get("distinct") and n == 2:
            arrays[1] = arrays[1] + np.where(np.abs(arrays[0] - arrays[1]) < 1e-2, 0.1, 0.0)
        name = ELEMENTWISE_PUBLIC.get(op.name, op.name)
        if op.name == "rsub.Scalar":
            return [Case(lambda x: params["other"] - x, arrays, lambda t, x: params["other"] - x)]
        if op.name == "pow.Tensor_Scalar":
            return [
                Case(
                    lambda x: x ** params["exponent"], arrays, lambda t, x: x ** params["exponent"]
                )
            ]
        if op.name == "pow.Scalar":
            return [Case(lambda x: params["self"] ** x, arrays, lambda t, x: params["self"] ** x)]
        if op.name == "clamp":
            return [
                Case(
                    lambda x: ja.clamp(x, params["min"], params["max"]),
                    arrays,
                    lambda t, x: t.clamp(x, params["min"], params["max"]),
                )
            ]
        fn = getattr(ja, name, None)
        if fn is None:
            fn = getattr(ja.nn.functional, name, None)
        if fn is None:
            raise Unsampleable(op.name)
        tfn = op.torch
        return [
            Case(
                lambda *xs: fn(*xs, **params),
                arrays,
                (lambda t, *xs: tfn(t, *xs, **params)) if tfn else None,
            )
        ]
    if meta.get("reduce"):
        return _reduce_cases(op, rng, meta, params)
    builder = _BUILDERS.get(kind)
    if builder is None:
        raise Unsampleable(f"{op.name} (sample kind {kind!r})")
    return builder(op, rng, meta, params)


def _reduce_cases(op, rng, meta, params):
    x = _draw(rng, (3, 4), meta)
    if meta.get("distinct"):
        x = x + np.arange(12).reshape(3, 4) * 1e-1
    name = op.name.split(".")[0].lstrip("_")
    out = []
    if op.name in ("sum", "mean", "prod", "max", "min"):
        out.append(Case(lambda t: getattr(t, name)(), [x], lambda tt, t: getattr(t, name)()))
    elif op.name in ("sum.dim_IntList", "mean.dim", "amax", "amin", "logsumexp"):
        for dim, keep in ((0, False), (1, True), ((0, 1), False)):
            if op.name == "logsumexp":
                out.append(
                    Case(
                        lambda t, d=dim, k=keep: ja.logsumexp(t, d, k),
                        [x],
                        lambda tt, t, d=dim, k=keep: tt.logsumexp(t, d, keepdim=k),
                    )
                )
            else:
                out.append(
                    Case(
                        lambda t, d=dim, k=keep: getattr(t, name)(d, keepdim=k),
                        [x],
                        lambda tt, t, d=dim, k=keep: getattr(t, name)(d, keepdim=k),
                    )
                )
    elif op.name in ("prod.dim_int", "max.dim", "min.dim"):
        for dim, keep in ((0, False), (1, True)):
            if name == "prod":
                out.append(
                    Case(
                        lambda t, d=dim, k=keep: t.prod(d, keepdim=k),
                        [x],
                        lambda tt, t, d=dim, k=keep: t.prod(d, keepdim=k),
                    )
                )
            else:
                out.append(
                    Case(
                        lambda t, d=dim, k=keep, f=name: getattr(t, f)(d, keepdim=k)[0],
                        [x],
                        lambda tt, t, d=dim, k=keep, f=name: getattr(t, f)(d, keepdim=k)[0],
                    )
                )
    elif op.name in ("var.correction", "std.correction"):
        for dim, corr in ((None, 1), (1, 0), ((0, 1), 1)):
            out.append(
                Case(
                    lambda t, d=dim, c=corr, f=name: getattr(ja, f)(t, d, correction=c),
                    [x],
                    lambda tt, t, d=dim, c=corr, f=name: getattr(tt, f)(t, d, correction=c),
                )
            )
    elif op.name == "linalg_vector_norm":
        for o, dim in ((2, None), (1, 1), (3, 0), (float("inf"), None)):
            xx = x + np.arange(12).reshape(3, 4) * 1e-1 if o == float("inf") else x
            out.append(
                Case(
                    lambda t, o=o, d=dim: ja.linalg.vector_norm(t, o, d),
                    [xx],
                    lambda tt, t, o=o, d=dim: tt.linalg.vector_norm(t, o, d),
                )
            )
    elif op.name in ("_softmax", "_log_softmax"):
        f = "softmax" if op.name == "_softmax" else "log_softmax"
        for dim in (0, -1):
            out.append(
                Case(
                    lambda t, d=dim, f=f: getattr(ja, f)(t, d),
                    [x],
                    lambda tt, t, d=dim, f=f: getattr(tt, f)(t, d),
                )
            )
    else:
        raise Unsampleable(op.name)
    return out


def _b(fn):
    _BUILDERS[fn.__name__[1:]] = fn
    return fn


_BUILDERS = {}


def _simple(op, rng, meta, shapes, ours, theirs):
    return [Case(ours, [_draw(rng, s, meta, i) for i, s in enumerate(shapes)], theirs)]


@_b
def _where(op, rng, meta, params):
    c = rng.uniform(size=(3, 4)) > 0.5
    arrays = [_draw(rng, (3, 4), meta), _draw(rng, (4,), meta)]
    return [
        Case(
            lambda a, b: ja.where(ja.tensor(c), a, b),
            arrays,
            lambda t, a, b: t.where(t.tensor(c), a, b),
        )
    ]


def _shape_builders():
    specs = {
        "view": ((2, 6), lambda t: t.reshape(3, 4), lambda tt, t: t.reshape(3, 4)),
        "_reshape_alias": (
            (3, 4),
            lambda t: t.t().reshape(4, 3),
            lambda tt, t: t.t().reshape(4, 3),
        ),
        "_unsafe_view": (
            (2, 3, 4),
            lambda t: ja.matmul(t, ja.ones(4, 2, dtype=ja.float64)),
            lambda tt, t: tt.matmul(t, tt.ones(4, 2, dtype=tt.float64)),
        ),
        "transpose.int": ((2, 3, 4), lambda t: t.transpose(0, 2), lambda tt, t: t.transpose(0, 2)),
        "t": ((2, 3), lambda t: t.t(), lambda tt, t: t.t()),
        "permute": ((2, 3, 4), lambda t: t.permute(2, 0, 1), lambda tt, t: t.permute(2, 0, 1)),
        "squeeze": ((2, 1, 3), lambda t: t.squeeze(), lambda tt, t: t.squeeze()),
        "squeeze.dim": ((2, 1, 3), lambda t: t.squeeze(1), lambda tt, t: t.squeeze(1)),
        "squeeze.dims": ((2, 1, 3), lambda t: t.squeeze((1,)), lambda tt, t: t.squeeze((1,))),
        "squeeze_.dim": (
            (5,),
            lambda t: ja.matmul(t, ja.ones(5, 3, dtype=ja.float64)),
            lambda tt, t: tt.matmul(t, tt.ones(5, 3, dtype=tt.float64)),
        ),
        "unsqueeze": ((2, 3), lambda t: t.unsqueeze(1), lambda tt, t: t.unsqueeze(1)),
        "expand": ((3, 1), lambda t: t.expand(2, 3, 4), lambda tt, t: t.expand(2, 3, 4)),
        "repeat": ((2, 3), lambda t: t.repeat(2, 1, 3), lambda tt, t: t.repeat(2, 1, 3)),
        "flip": ((2, 3), lambda t: t.flip(1), lambda tt, t: t.flip(1)),
        "clone": ((2, 3), lambda t: t.clone(), lambda tt, t: t.clone()),
        "_copy_backwards": ((2, 3), lambda t: _copy_backwards(t), None),
        "masked_fill": (
            (3, 4),
            lambda t: t.masked_fill(ja.tensor(_MASK), 0.5),
            lambda tt, t: t.masked_fill(tt.tensor(_MASK), 0.5),
        ),
        "index_select": (
            (4, 3),
            lambda t: t.index_select(0, ja.tensor([0, 2, 2])),
            lambda tt, t: t.index_select(0, tt.tensor([0, 2, 2])),
        ),
        "div_scalar": ((3, 4), lambda t: _div_scalar(t), None),
        "cumsum": ((3, 4), lambda t: t.cumsum(1), lambda tt, t: t.cumsum(1)),
        "alias": ((2, 3), lambda t: t[...], lambda tt, t: t[...]),
        "_to_copy": ((2, 3), lambda t: t.to(ja.float32).to(ja.float64) * 1.0, None),
        "select": ((3, 4), lambda t: t[1], lambda tt, t: t[1]),
        "slice": ((5, 4), lambda t: t[1:4:2], lambda tt, t: t[1:4:2]),
        "index": ((5, 4), lambda t: t[[0, 2, 2]], lambda tt, t: t[[0, 2, 2]]),
        "gather": (
            (3, 4),
            lambda t: t.gather(1, ja.tensor([[0, 1], [3, 3], [2, 0]])),
            lambda tt, t: t.gather(1, tt.tensor([[0, 1], [3, 3], [2, 0]])),
        ),
        "mm": (((3, 4), (4, 2)), lambda a, b: ja.mm(a, b), lambda tt, a, b: tt.mm(a, b)),
        "mv": (((3, 4), (4,)), lambda a, b: ja.mv(a, b), lambda tt, a, b: tt.mv(a, b)),
        "dot": (((4,), (4,)), lambda a, b: ja.dot(a, b), lambda tt, a, b: tt.dot(a, b)),
        "bmm": (((2, 3, 4), (2, 4, 2)), lambda a, b: ja.bmm(a, b), lambda tt, a, b: tt.bmm(a, b)),
        "addmm": (
            ((2,), (3, 4), (4, 2)),
            lambda c, a, b: ja.addmm(c, a, b),
            lambda tt, c, a, b: tt.addmm(c, a, b),
        ),
        "cat": (((2, 3), (4, 3)), lambda a, b: ja.cat([a, b]), lambda tt, a, b: tt.cat([a, b])),
        "stack": (
            ((2, 3), (2, 3)),
            lambda a, b: ja.stack([a, b], 1),
            lambda tt, a, b: tt.stack([a, b], 1),
        ),
        "split": (
            (5, 3),
            lambda t: ja.split(t, [2, 3])[1] * 2 + ja.split(t, [2, 3])[0].sum(),
            lambda tt, t: tt.split(t, [2, 3])[1] * 2 + tt.split(t, [2, 3])[0].sum(),
        ),
        "unbind": (
            (3, 2),
            lambda t: t.unbind(0)[2] * 3 + t.unbind(0)[0],
            lambda tt, t: t.unbind(0)[2] * 3 + t.unbind(0)[0],
        ),
        "index_put": (((3, 4), (4,)), _index_put_ours, _index_put_theirs),
        "scatter": ((3,), lambda t: _scatter(t), None),
        "put_along": ((3, 1), lambda t: _put_along(t), None),
        "mse": (
            ((3, 4), (3, 4)),
            lambda a, b: ja.nn.functional.mse_loss(a, b),
            lambda tt, a, b: tt.nn.functional.mse_loss(a, b),
        ),
        "bce_logits": (
            ((3, 4), (3, 4)),
            lambda a, b: ja.nn.functional.binary_cross_entropy_with_logits(a, b),
            lambda tt, a, b: tt.nn.functional.binary_cross_entropy_with_logits(a, b),
        ),
        "bce": (
            ((3, 4), (3, 4)),
            lambda a, b: ja.nn.functional.binary_cross_entropy(a, b),
            lambda tt, a, b: tt.nn.functional.binary_cross_entropy(a, b),
        ),
        "layer_norm": (
            ((4, 3), (3,), (3,)),
            lambda x, w, b: ja.nn.functional.layer_norm(x, (3,), w, b),
            lambda tt, x, w, b: tt.nn.functional.layer_norm(x, (3,), w, b),
        ),
        "embedding": (
            (5, 3),
            lambda w: ja.nn.functional.embedding(ja.tensor([[0, 2], [4, 2]]), w),
            lambda tt, w: tt.nn.functional.embedding(tt.tensor([[0, 2], [4, 2]]), w),
        ),
        "dropout": (
            (4, 3),
            lambda x: (ja.manual_seed(0), ja.native_dropout(x, 0.5, True)[0])[1],
            lambda tt, x: (tt.manual_seed(0), tt.native_dropout(x, 0.5, True)[0])[1],
        ),
        "nll": (
            (4, 3),
            lambda t: ja.nn.functional.nll_loss(t, ja.tensor([0, 2, 1, 2])),
            lambda tt, t: tt.nn.functional.nll_loss(t, tt.tensor([0, 2, 1, 2])),
        ),
    }
    # complex rows, sampled as real functions: (..., 2) pairs -> complex -> the row -> pairs
    for kind, f in {
        "conj": lambda lib, z: z.conj(),
        "conj_physical": lambda lib, z: z.conj_physical(),
        "sgn": lambda lib, z: z.sgn(),
        "view_as_real": lambda lib, z: lib.view_as_complex(lib.view_as_real(z * (1 + 2j)) * 1.0),
        "view_as_complex": lambda lib, z: z,
    }.items():
        specs[kind] = (
            (3, 2),
            lambda t, f=f: _ri(ja, f(ja, ja.view_as_complex(t))),
            lambda tt, t, f=f: _ri(tt, f(tt, tt.view_as_complex(t))),
        )
    specs["angle"] = (
        (3, 2),
        lambda t: ja.view_as_complex(t).angle(),
        lambda tt, t: tt.view_as_complex(t).angle(),
    )
    specs["complex"] = (
        ((3,), (3,)),
        lambda a, b: _ri(ja, ja.complex(a, b)),
        lambda tt, a, b: _ri(tt, tt.complex(a, b)),
    )
    specs["polar"] = (
        ((3,), (3,)),
        lambda a, b: _ri(ja, ja.polar(a, b)),
        lambda tt, a, b: _ri(tt, tt.polar(a, b)),
    )
    for kind, (shapes, ours, theirs) in specs.items():
        if shapes and isinstance(shapes[0], int):
            shapes = (shapes,)

        def builder(op, rng, meta, params, shapes=shapes, ours=ours, theirs=theirs, kind=kind):
            cs = _simple(op, rng, meta, shapes, ours, theirs)
            if kind == "_to_copy":
                cs[0].rtol = 0.2  # finite differences through float32 are only good to ~1e-7/eps
            return cs

        _BUILDERS[kind] = builder


def _ri(lib, z):
    """A complex tensor's (real, imaginary) pairs, through .real and .imag."""
    return lib.stack([z.real, z.imag], -1)


_MASK = np.array([[True, False, True, False]] * 3)


def _div_scalar(t):
    from jupyter_autograd.ops import arithmetic as ARITH
    from jupyter_autograd.ops.dispatch import apply1

    return apply1(ARITH.DIV_SCALAR, t, {"other": 3.0})


def _copy_backwards(t):
    from jupyter_autograd.ops import shape as SH
    from jupyter_autograd.ops.dispatch import apply

    return apply(SH.COPY_BACKWARDS, (None, t))


def _index_put_ours(a, b):
    c = a * 1.0
    c[[1]] = b  # advanced indexing: index_put_ (basic indexing writes into a view: CopySlices)
    return c


def _index_put_theirs(tt, a, b):
    c = a * 1.0
    c[[1]] = b
    return c


def _scatter(t):
    from jupyter_autograd.ops import shape as SH
    from jupyter_autograd.ops.dispatch import apply1

    return apply1(SH.SCATTER, t, {"key": (np.array([0, 2, 2]),), "shape": (4,), "indices": None})


def _put_along(t):
    from jupyter_autograd.ops import shape as SH
    from jupyter_autograd.ops.dispatch import apply1

    return apply1(SH.PUT_ALONG, t, {"index": np.array([[1], [0], [2]]), "dim": 1, "shape": (3, 3)})


_shape_builders()
