"""Forward-mode AD (torch.autograd.forward_ad): dual tensors and JVP propagation."""

from __future__ import annotations

from .engine import FLAGS


def propagate(op, inputs, arrays, out, p, results) -> None:
    """Compute the output tangent of one op from its inputs' tangents (registry JVP rule)."""
    if not FLAGS.forward_ad_levels:
        return
    level = FLAGS.forward_ad_levels[-1]
    tans = []
    any_t = False
    for t, a in zip(inputs, arrays):
        fw = getattr(t, "_fw", None)
        tan = fw.get(level) if fw else None
        if tan is not None:
            any_t = True
            tans.append(tan._data)
        else:
            tans.append(a * 0 if hasattr(a, "shape") else 0.0)
    if not any_t:
        return
    from ..ops.registry import NOT_IMPLEMENTED  # noqa: PLC0415
    from ..ops.xp import NPX  # noqa: PLC0415
    from ..tensor import Tensor  # noqa: PLC0415

    if op.jvp is NOT_IMPLEMENTED:
        raise NotImplementedError(
            f"Trying to use forward AD with {op.name} that does not support it because it has not "
            "been implemented yet."
        )
    r = op.jvp(NPX, tuple(tans), tuple(arrays), out, p)
    if not hasattr(r, "shape"):
        import numpy as np  # noqa: PLC0415

        r = np.asarray(r)
    if r.shape != out.shape:
        import numpy as np  # noqa: PLC0415

        r = np.broadcast_to(r, out.shape).copy()
    if r.dtype != out.dtype:
        r = r.astype(out.dtype)
    res = results[0]
    res._fw = {level: Tensor._wrap(r)}
