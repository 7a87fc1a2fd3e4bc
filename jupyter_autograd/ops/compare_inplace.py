"""The in-place comparisons' rows (``x.eq_(y)``, ``lt_``...): torch records them on a tensor
that requires grad (EqBackward0 for a number, EqBackward1 for a tensor), their gradients are
zeros (derivatives.yaml: ``zeros_like``). The values are the out-of-place comparison's, made
in the caller (with its checks), written in self's dtype."""

from __future__ import annotations

import numpy as np

from .registry import AS_WRITTEN, defop


def _zeros(xp, g, *_):
    return xp.zeros_like(g)


def _cases(name, tensor):
    def cases(rng):
        a = np.round(rng.uniform(-3, 3, (3, 4)), 1)
        if tensor:
            b = np.round(rng.uniform(-3, 3, (4,)), 1)
            return [(None, [a, b], lambda tt, x, y: getattr(x * 1, name + "_")(y))]
        return [(None, [a], lambda tt, x: getattr(x * 1, name + "_")(0.5))]

    return cases


def _row(name, tensor):
    return defop(
        f"{name}_.{'Tensor' if tensor else 'Scalar'}",
        node=f"{name.capitalize()}Backward{1 if tensor else 0}",
        inputs=("self", "other") if tensor else ("self",),
        fwd=(
            (lambda xp, x, y, p: xp.asarray(p["_res"]).astype(x.dtype))
            if tensor
            else (lambda xp, x, p: xp.asarray(p["_res"]).astype(x.dtype))
        ),
        vjp=(_zeros, _zeros) if tensor else _zeros,
        jvp=lambda xp, t, x, out, p: xp.zeros_like(out),
        smooth=False,
        # complex self: eq_/ne_ record it too (the ordered ones refuse before, in the caller)
        complex=AS_WRITTEN,
        sample={"kind": "cases", "cases": _cases(name, tensor)},
    )


ROWS = {
    (name, tensor): _row(name, tensor)
    for name in ("eq", "ne", "lt", "le", "gt", "ge")
    for tensor in (False, True)
}


def inplace_compare(name, compare):
    """``Tensor.<name>_``: torch's comparison written into self, recorded on its row."""
    from .._tensor_inplace import _inplace
    from ..grad_mode import no_grad
    from ..tensor import Tensor
    from .dispatch import apply

    def recorded(input, other):
        with no_grad():
            res = compare(input, other)._data
        if isinstance(other, Tensor):
            return apply(ROWS[name, True], (input, other), {"_res": res})
        return apply(ROWS[name, False], (input,), {"_res": res})

    recorded.__name__ = recorded.__qualname__ = name
    return _inplace(recorded)
