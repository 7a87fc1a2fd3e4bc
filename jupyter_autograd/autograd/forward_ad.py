"""Forward-mode AD (torch.autograd.forward_ad): dual tensors and JVP propagation."""

from __future__ import annotations

import itertools
from collections import namedtuple

import numpy as np

from .. import _batching, _slots
from .._batching import BATCHED
from ..grad_mode import STATE
from .engine import FLAGS, _new_vc

__all__ = [
    "UnpackedDualTensor",
    "dual_level",
    "enter_dual_level",
    "exit_dual_level",
    "make_dual",
    "unpack_dual",
]


def propagate(op, inputs, arrays, out, p, results) -> None:
    """Compute the output tangent of one op from its inputs' tangents (registry JVP rule)."""
    if not FLAGS.forward_ad_levels:
        return
    level = FLAGS.forward_ad_levels[-1]
    if BATCHED and level in BATCHED:  # tangents with a leading batch axis (jacfwd)
        _batching.propagate(op, inputs, arrays, out, p, results, level, BATCHED[level])
        return
    tans = []
    any_t = False
    for t, a in zip(inputs, arrays):
        fw = getattr(t, "_fw", None)
        tan = fw.get(level) if fw else None
        if tan is not None:
            any_t = True
            tans.append(tan._data)
        else:
            # zeros_like, not a * 0: an input holding inf (a masked fill) has a zero tangent too
            tans.append(_zeros_like(a) if hasattr(a, "shape") else 0.0)
    if not any_t:
        return
    from ..ops.registry import NOT_IMPLEMENTED
    from ..tensor import Tensor

    if op.jvp is NOT_IMPLEMENTED:
        raise NotImplementedError(
            f"Trying to use forward AD with {op.name} that does not support it because it has not "
            "been implemented yet."
        )
    if STATE.grad_enabled and _graph_jvp(op, inputs, arrays, level, out, p, results):
        return
    from .engine import xp_of

    o0 = out[0] if isinstance(out, tuple) else out
    r = op.jvp(xp_of(o0), tuple(tans), tuple(arrays), out, p)  # in the output's array module
    if isinstance(out, tuple):
        # multi-output ops (split, unbind): one tangent per result
        for res, o, ri in zip(results, out, r):
            res._fw = {level: Tensor._wrap(_fit(ri, o))}
        return
    results[0]._fw = {level: Tensor._wrap(_fit(r, out))}


def _graph_jvp(op, inputs, arrays, level, out, p, results) -> bool:
    """The output tangent computed with recorded ops when a primal or a tangent requires grad
    (torch computes tangents with differentiable ops: a tangent then has a grad_fn, and
    reverse mode can differentiate it). False when nothing requires grad, or when the row's
    JVP rule cannot run on Tensors (the tangent is then computed on arrays, without graph)."""
    from ..ops.txp import TXP
    from ..tensor import Tensor

    tans, ins = [], []
    rg = False
    for t, a in zip(inputs, arrays):
        fw = getattr(t, "_fw", None)
        tan = fw.get(level) if fw else None
        if isinstance(t, Tensor):
            rg = rg or t._requires_grad or (tan is not None and tan._requires_grad)
            ins.append(t)
        else:
            ins.append(a)
        tans.append(
            tan if tan is not None else (Tensor._wrap(a * 0) if hasattr(a, "shape") else 0.0)
        )
    if not rg:
        return False
    multi = isinstance(out, tuple)
    out_t = tuple(results) if multi else results[0]
    levels = FLAGS.forward_ad_levels
    FLAGS.forward_ad_levels = []  # the tangent's own ops carry no tangent
    try:
        r = op.jvp(TXP, tuple(tans), tuple(ins), out_t, p)
    except (AttributeError, TypeError, NotImplementedError):
        return False
    finally:
        FLAGS.forward_ad_levels = levels
    if multi:
        for res, o, ri in zip(results, out, r):
            res._fw = {level: _fit_tensor(ri, o)}
    else:
        results[0]._fw = {level: _fit_tensor(r, out)}
    return True


def _fit_tensor(r, out):
    """A recorded tangent as a Tensor of the output's shape and dtype."""
    from .._dtype import from_numpy_dtype
    from ..tensor import Tensor

    if not isinstance(r, Tensor):
        return Tensor._wrap(_fit(r, out))
    if tuple(r.shape) != out.shape:
        r = r.expand(out.shape).contiguous()
    if r._data.dtype != out.dtype:
        r = r.to(from_numpy_dtype(out.dtype))
    return r


def _zeros_like(a):
    from .engine import xp_of

    return xp_of(a).zeros_like(a)


def _fit(r, out):
    """The tangent as an array of the output's shape and dtype."""
    from .engine import xp_of

    xp = xp_of(out)  # NumPy or the device's module: the tangent stays on the output's device
    if not hasattr(r, "shape") or isinstance(r, np.generic):  # a NumPy scalar from a 0-d reduction
        r = xp.asarray(r)
    if r.shape != out.shape:
        r = xp.broadcast_to(r, out.shape).copy()
    if r.dtype != out.dtype:
        r = r.astype(out.dtype)
    return r


# ---------------------------------------------------------------------------- public API
UnpackedDualTensor = namedtuple("UnpackedDualTensor", ["primal", "tangent"])
UnpackedDualTensor.__doc__ = "What :func:`unpack_dual` returns: ``(primal, tangent)``."

# Tangents are stored under a fresh key per entered level, so tangents left on tensors from an
# earlier ``dual_level`` are never mistaken for the current level's (torch clears them instead).
_KEYS = itertools.count()


def _current_key(level):
    levels = FLAGS.forward_ad_levels
    if level is None:
        level = len(levels) - 1
    if level < 0 or level >= len(levels):
        return None
    return levels[level]


def enter_dual_level() -> int:
    """Enter a forward-mode level and return its index (0: nesting is not supported, as torch).

    Example:
        >>> import jupyter_autograd.autograd.forward_ad as fwAD
        >>> lvl = fwAD.enter_dual_level()
        >>> lvl
        0
        >>> fwAD.exit_dual_level()
    """
    if FLAGS.forward_ad_levels:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    FLAGS.forward_ad_levels = FLAGS.forward_ad_levels + [next(_KEYS)]
    return len(FLAGS.forward_ad_levels) - 1


def exit_dual_level(*, level=None) -> None:
    """Leave the current forward-mode level; its tangents stop existing."""
    cur = len(FLAGS.forward_ad_levels) - 1
    if level is None:
        level = cur
    if level != cur or cur < 0:
        raise RuntimeError(
            "Trying to exit a forward AD level that was not the last one that was created. This "
            "is not supported."
        )
    FLAGS.forward_ad_levels = FLAGS.forward_ad_levels[:-1]


def make_dual(tensor, tangent, *, level=None):
    """A view of ``tensor`` carrying ``tangent`` as its forward-mode derivative.

    Ops on dual tensors propagate tangents with each registry row's JVP rule, so the tangent
    of a result is J·v.

    Example:
        >>> import jupyter_autograd as torch
        >>> import jupyter_autograd.autograd.forward_ad as fwAD
        >>> with fwAD.dual_level():
        ...     x = fwAD.make_dual(torch.tensor([2., 3.]), torch.tensor([1., 1.]))
        ...     print(x * x)
        tensor([4., 9.], tangent=tensor([4., 6.]))
    """
    from ..ops import shape as SH
    from ..ops.dispatch import apply1
    from ..tensor import Tensor

    key = _current_key(level)
    if key is None:
        raise RuntimeError(
            "Trying to create a dual Tensor for forward AD but no level exists, make sure to "
            "enter_dual_level() first."
        )
    if tensor._data.dtype.kind not in "fc":
        raise ValueError(
            f"Expected primal to be floating point or complex, but got: {tensor.dtype}"
        )
    if not isinstance(tangent, Tensor):
        tangent = Tensor._wrap(np.asarray(tangent))
    if tangent._data.dtype.kind not in "fc":
        raise ValueError(
            f"Expected tangent to be floating point or complex, but got: {tangent.dtype}"
        )
    if tangent._data.shape != tensor._data.shape:
        from .._errors import list_str

        raise RuntimeError(
            "Trying to set a forward gradient that has a different size than that of the original "
            f"Tensor, this is not supported. Tensor is of size {list_str(tensor._data.shape)} while "
            f"the given forward gradient is of size {list_str(tangent._data.shape)}."
        )
    if tensor._requires_grad:
        dual = apply1(SH.ALIAS, tensor)  # keeps the reverse-mode graph (a view, as torch)
    else:
        dual = Tensor._wrap(tensor._data)
        if tensor._vc is None:
            tensor._vc = _new_vc()
        dual._vc = tensor._vc
    tan = tangent
    if tan._data.dtype != tensor._data.dtype:
        tan = Tensor._wrap(tan._data.astype(tensor._data.dtype), tan._requires_grad)
    dual._fw = {key: tan}
    return dual


def unpack_dual(tensor, *, level=None) -> UnpackedDualTensor:
    """Split a dual tensor into ``(primal, tangent)``; tangent is None for a plain tensor.

    Example:
        >>> import jupyter_autograd as torch
        >>> import jupyter_autograd.autograd.forward_ad as fwAD
        >>> with fwAD.dual_level():
        ...     y = fwAD.make_dual(torch.tensor([1.]), torch.tensor([5.])).exp()
        ...     fwAD.unpack_dual(y).tangent
        tensor([13.5914])
    """
    from ..tensor import Tensor

    key = _current_key(level)
    fw = tensor._fw
    tan = fw.get(key) if (fw and key is not None) else None
    if tan is None:
        return UnpackedDualTensor(tensor, None)
    if tensor._requires_grad and tensor.grad_fn is None:
        # a leaf primal: gradients must still reach the original leaf
        return UnpackedDualTensor(_strip(tensor), tan)
    primal = Tensor._wrap(tensor._data, tensor._requires_grad)
    primal.grad_fn = tensor.grad_fn
    primal._output_nr = tensor._output_nr
    primal._vc = tensor._vc
    return UnpackedDualTensor(primal, tan)


def _strip(t):
    """A view of leaf ``t`` without its tangent that still accumulates into ``t``."""
    from ..ops import shape as SH
    from ..ops.dispatch import apply1

    levels = FLAGS.forward_ad_levels
    FLAGS.forward_ad_levels = []
    try:
        return apply1(SH.ALIAS, t)
    finally:
        FLAGS.forward_ad_levels = levels


class dual_level:
    """Context manager for forward-mode AD: tangents exist only inside it.

    Example:
        >>> import jupyter_autograd as torch
        >>> import jupyter_autograd.autograd.forward_ad as fwAD
        >>> with fwAD.dual_level():
        ...     x = fwAD.make_dual(torch.tensor(2.), torch.tensor(1.))
        ...     fwAD.unpack_dual(x ** 3).tangent
        tensor(12.)
    """

    def __enter__(self) -> int:
        return enter_dual_level()

    def __exit__(self, *exc) -> None:
        exit_dual_level()


_slots.forward_ad_propagate = propagate
