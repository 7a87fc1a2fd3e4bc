"""Rows of the view + in-place machinery: the strided view torch regenerates a view's history
with (AsStridedBackward0), and the in-place writes (copy_, fill_, zero_); the random fills'
rows are in random_ops.py.

A view's position inside its base is a :class:`~jupyter_autograd.autograd.views.Geometry`
(``p["geometry"]``): the flat C-order index, in the base, of each element of the view. The rules
gather and scatter through it, so they run on arrays and, under ``create_graph``, on Tensors.
"""

from __future__ import annotations

from .registry import AS_WRITTEN, AUTO_ELEMENT_WISE, defop


def _flat(p, like):
    """The view's flat indices into its base, on ``like``'s device (an array, or a Tensor under
    create_graph)."""
    from ..autograd.engine import xp_of

    idx = p["geometry"].flat()
    if hasattr(like, "_data"):
        if like.device.type == "cpu":
            return idx
        from ..backend import move_array

        return move_array(idx, like.device)
    return xp_of(like).like(idx, like)


def _as_strided_fwd(xp, x, p):
    storage = p.get("storage")
    if storage is not None and not xp.is_txp:
        # torch.as_strided: a view of the input's storage (see ops/as_strided.py)
        return storage.view_of(x)
    return _as_strided_jvp(xp, (x,), None, None, p)


def _as_strided_jvp(xp, t, x, out, p):
    geo = p["geometry"]
    inner = getattr(geo, "inner", None)
    if inner is not None:  # the input is not the whole storage: place it there first
        t = xp.scatter_add_zeros(xp.reshape(t[0], (-1,)), (_inner(geo, t[0]),), (geo.base_numel,))
        return t[_flat(p, t)]
    return xp.reshape(t[0], (-1,))[_flat(p, t[0])]


def _inner(geo, like):
    return _flat({"geometry": type("G", (), {"flat": lambda self: geo.inner})()}, like)


def _as_strided_vjp(xp, g, x, out, p):
    geo = p["geometry"]
    inner = getattr(geo, "inner", None)
    if inner is None and not xp.is_txp and not geo.overlap:  # each element once: a copy
        z = xp.zeros(geo.base_shape, g.dtype)
        z.reshape(-1)[_flat(p, g)] = g
        return z
    buf = xp.scatter_add_zeros(g, (_flat(p, g),), (geo.base_numel,))
    if inner is not None:  # the storage's elements that are the input's
        buf = buf[_inner(geo, g)]
    return xp.reshape(buf, geo.base_shape)


def _as_strided_case(x):
    y = x * 1.0
    v = y[1:, ::2]
    y[0] = 0.5  # v's base changed in place: v's history is regenerated (AsStridedBackward0)
    return v * v


def _as_strided_cases(rng):
    return [(_as_strided_case, [rng.uniform(-2, 2, (3, 4))], lambda torch, x: _as_strided_case(x))]


AS_STRIDED = defop(
    "as_strided",
    node="AsStridedBackward0",
    inputs=("self",),
    complex=AS_WRITTEN,
    saved=("size", "storage_offset", "stride"),
    fwd=_as_strided_fwd,
    vjp=_as_strided_vjp,
    jvp=_as_strided_jvp,
    sample={"kind": "view_inplace", "cases": _as_strided_cases},
)


def _zeros(xp, g):
    if xp.is_txp:
        return g.new_zeros(g.shape)
    return xp.zeros_like(g)


def _copy_fwd(xp, x, src, p):
    r = xp.empty_like(x)
    r[...] = src
    return r


def _inplace_cases(fn):
    def cases(rng):
        return [
            (
                lambda a, b: fn(a * 1.0, b),
                [rng.uniform(-2, 2, (3, 4)), rng.uniform(-2, 2, (4,))],
                lambda torch, a, b: fn(a * 1.0, b),
            )
        ]

    return cases


def _copy_case(c, b):
    c.copy_(b)
    return c * c


def _fill_tensor_case(c, b):
    c.fill_(b.sum())
    return c * c


COPY = defop(
    "copy_",
    node="CopyBackwards",
    inputs=("self", "src"),
    complex=AS_WRITTEN,
    fwd=_copy_fwd,
    vjp=(lambda xp, g, x, src, out, p: _zeros(xp, g), lambda xp, g, x, src, out, p: g),
    jvp=lambda xp, t, x, out, p: _copy_fwd(xp, t[0], t[1], p),
    sample={"kind": "inplace", "cases": _inplace_cases(_copy_case)},
)
# fill_(Scalar) is arithmetic.FILL (FillBackward2)
FILL_TENSOR = defop(
    "fill_.Tensor",
    node="FillBackward3",
    inputs=("self", "value"),
    complex=AS_WRITTEN,
    fwd=lambda xp, x, v, p: _copy_fwd(xp, x, v, p),
    vjp=(lambda xp, g, x, v, out, p: _zeros(xp, g), lambda xp, g, x, v, out, p: xp.sum(g)),
    jvp=lambda xp, t, x, out, p: _copy_fwd(xp, t[0], t[1], p),
    sample={"kind": "inplace", "cases": _inplace_cases(_fill_tensor_case)},
)
ZERO = defop(
    "zero_",
    node="ZeroBackward0",
    inputs=("self",),
    complex=AS_WRITTEN,
    fwd=lambda xp, x, p: xp.zeros_like(x),
    vjp=lambda xp, g, x, out, p: _zeros(xp, g),
    jvp=AUTO_ELEMENT_WISE,
    sample={
        "kind": "inplace",
        "cases": lambda rng: [
            (
                lambda a: (a * 1.0).zero_() + a * a,
                [rng.uniform(-2, 2, (3, 4))],
                lambda torch, a: (a * 1.0).zero_() + a * a,
            )
        ],
    },
)
