"""Finite-difference checkers for gradients (torch.autograd.gradcheck / gradgradcheck).

Central differences ``(f(x + eps) - f(x - eps)) / (2 eps)`` give the numerical Jacobian, one
input element at a time; the analytical Jacobian is built row by row with ``autograd.grad`` and
one-hot ``grad_outputs``. Both are compared with ``allclose(analytical, numerical, rtol, atol)``,
as torch's slow mode does (``fast_mode`` is accepted and runs the same full check).
"""

from __future__ import annotations

import warnings

import numpy as np

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """Raised by :func:`gradcheck` and :func:`gradgradcheck` when a check fails."""


FAILED_NONDET_MSG = """\n
NOTE: If your op relies on non-deterministic operations i.e., it is listed here:
https://pytorch.org/docs/stable/generated/torch.use_deterministic_algorithms.html
this failure might be expected.

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck.
If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `nondet_tol=<tol>` as a keyword argument.
- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test
  to have `gradcheck_nondet_tol=<tol>`.
- is a Module test (e.g., in common_nn.py), then modify the corresponding
  module_test entry to have `gradcheck_nondet_tol=<tol>`
"""


def _tensor_cls():
    from ..tensor import Tensor  # noqa: PLC0415

    return Tensor


def _as_tuple(x):
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _diff_inputs(inputs):
    T = _tensor_cls()
    return [(i, t) for i, t in enumerate(inputs) if isinstance(t, T) and t.requires_grad]


def _float_outputs(outputs):
    T = _tensor_cls()
    return [o for o in outputs if isinstance(o, T) and o._data.dtype.kind in "fc"]


def _wrap(a):
    return _tensor_cls()._wrap(np.asarray(a))


def _eval(func, inputs):
    # grad mode stays on: gradgradcheck's function itself calls autograd.grad
    outs = _float_outputs(_as_tuple(func(*inputs)))
    return [np.array(o._data, dtype=np.result_type(o._data.dtype, np.float64)) for o in outs]


def _numerical_jacobians(func, inputs, diff, n_outputs, eps):
    """``jac[k][o]`` has shape ``(input k numel, output o numel)`` (torch's layout)."""
    jacs = []
    for _, t in diff:
        # the perturbation is written into the input's own buffer (``flat`` is a view even of a
        # non-contiguous array), as torch does
        flat = t._data.flat
        size = t._data.size
        per_out = None
        for j in range(size):
            orig = flat[j].item()
            flat[j] = orig - eps
            lo = _eval(func, inputs)
            flat[j] = orig + eps
            hi = _eval(func, inputs)
            flat[j] = orig
            if per_out is None:
                per_out = [np.zeros((size, o.size)) for o in hi]
            for o, (a, b) in enumerate(zip(lo, hi)):
                per_out[o][j] = ((b - a) / (2 * eps)).reshape(-1)
        if per_out is None:
            per_out = [np.zeros((0, o.size)) for o in _eval(func, inputs)]
        jacs.append(per_out)
    return jacs


def _analytical_jacobians(outputs, diff):
    """Rows of vᵀJ for one-hot v; returns ``jac[k][o]`` (input k numel, output o numel)."""
    from . import grad as _grad  # noqa: PLC0415

    ins = [t for _, t in diff]
    jacs = [[np.zeros((t._data.size, o._data.size)) for o in outputs] for t in ins]
    ok_sizes = True
    for oi, out in enumerate(outputs):
        if not out.requires_grad:
            continue
        n = out._data.size
        for j in range(n):
            v = np.zeros(n, dtype=out._data.dtype)
            v[j] = 1
            gs = _grad(out, ins, _wrap(v.reshape(out._data.shape)), retain_graph=True,
                       allow_unused=True)
            for k, g in enumerate(gs):
                if g is None:
                    continue
                if g._data.size != ins[k]._data.size:
                    ok_sizes = False
                    continue
                jacs[k][oi][:, j] = np.asarray(g._data, dtype=np.float64).reshape(-1)
    return jacs, ok_sizes


def _fmt(a, shape):
    from ..grad_mode import no_grad  # noqa: PLC0415

    with no_grad():
        return repr(_wrap(np.asarray(a).reshape(shape)))


def _fail(msg, raise_exception):
    if raise_exception:
        raise GradcheckError(msg)
    return False


def _check_inputs(inputs) -> None:
    T = _tensor_cls()
    any_rg = False
    for idx, t in enumerate(inputs):
        if isinstance(t, T) and t.requires_grad:
            any_rg = True
            if t._data.dtype not in (np.float64, np.complex128):
                warnings.warn(
                    f"Input #{idx} requires gradient and is not a double precision floating point "
                    "or complex. This check will likely fail if all the inputs are not of double "
                    "precision floating point or complex. ",
                    UserWarning,
                    stacklevel=4,
                )
    if not any_rg:
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient, but none of the "
            "them have requires_grad=True."
        )


def gradcheck(
    func,
    inputs,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    check_batched_grad: bool = False,
    check_batched_forward_grad: bool = False,
    check_forward_ad: bool = False,
    check_backward_ad: bool = True,
    fast_mode: bool = False,
    masked: bool | None = None,
) -> bool:
    """Check analytical gradients of ``func`` at ``inputs`` against central differences.

    Args:
        func: a function of Tensors returning a Tensor or a tuple of Tensors.
        inputs: a Tensor or tuple of Tensors; those with ``requires_grad=True`` are checked.
        eps: finite-difference step.
        atol: absolute tolerance.
        rtol: relative tolerance.
        raise_exception: raise :class:`GradcheckError` on failure (else return False).
        nondet_tol: tolerance between two backward runs with the same inputs.
        check_forward_ad: also check forward-mode tangents (J·e_j) against the numerical one.
        check_backward_ad: check reverse mode (vᵀJ).
        fast_mode: accepted for torch compatibility; the full check runs.

    Returns:
        True if every check passes.

    Raises:
        GradcheckError: with torch's ``Jacobian mismatch for output i with respect to input j``.

    Example:
        >>> import jupyter_autograd as torch
        >>> x = torch.tensor([0.5, 1.5], dtype=torch.float64, requires_grad=True)
        >>> torch.autograd.gradcheck(torch.sin, (x,))
        True
    """
    inputs = _as_tuple(inputs)
    _check_inputs(inputs)
    diff = _diff_inputs(inputs)
    outputs = _float_outputs(_as_tuple(func(*inputs)))
    numerical = _numerical_jacobians(func, inputs, diff, len(outputs), eps)

    # outputs that do not require grad must not depend on any input
    for oi, o in enumerate(outputs):
        if not o.requires_grad:
            for k, (ii, _) in enumerate(diff):
                if not np.allclose(numerical[k][oi], 0, rtol=rtol, atol=atol):
                    return _fail(
                        f"Numerical gradient for function expected to be zero\n"
                        f"output {oi} with respect to input {ii} does not require grad", raise_exception)

    if check_backward_ad:
        analytical, ok_sizes = _analytical_jacobians(outputs, diff)
        if not ok_sizes:
            return _fail("Analytical gradient has incorrect size", raise_exception)
        for oi, o in enumerate(outputs):
            for k, (ii, t) in enumerate(diff):
                a, n = analytical[k][oi], numerical[k][oi]
                if not np.allclose(a, n, rtol=rtol, atol=atol):
                    shape = (t._data.size, o._data.size)
                    return _fail(
                        f"Jacobian mismatch for output {oi:d} with respect to input {ii:d},\n"
                        f"numerical:{_fmt(n, shape)}\nanalytical:{_fmt(a, shape)}\n",
                        raise_exception,
                    )
        again, _ = _analytical_jacobians(outputs, diff)
        for k in range(len(diff)):
            for oi in range(len(outputs)):
                if np.max(np.abs(again[k][oi] - analytical[k][oi]), initial=0.0) > nondet_tol:
                    return _fail(
                        "Backward is not reentrant, i.e., running backward with same input and "
                        "grad_output multiple times gives different values, although analytical "
                        "gradient matches numerical gradient."
                        f"The tolerance for nondeterminism was {nondet_tol}." + FAILED_NONDET_MSG,
                        raise_exception,
                    )
        if not _backward_mul_by_grad_output(outputs, diff, raise_exception):
            return False

    if check_forward_ad:
        ok = _check_forward_ad(func, inputs, diff, numerical, rtol, atol, raise_exception)
        if not ok:
            return False
    return True


def _backward_mul_by_grad_output(outputs, diff, raise_exception) -> bool:
    from . import grad as _grad  # noqa: PLC0415

    outs = [o for o in outputs if o.requires_grad]
    if not outs:
        return True
    zeros = [_wrap(np.zeros_like(o._data)) for o in outs]
    gs = _grad(outs, [t for _, t in diff], zeros, retain_graph=True, allow_unused=True)
    for g, (_, t) in zip(gs, diff):
        if g is None:
            continue
        if np.any(g._data != 0):
            return _fail("backward not multiplied by grad_output", raise_exception)
        if g._data.dtype != t._data.dtype:
            return _fail("grad is incorrect type", raise_exception)
        if g._data.shape != t._data.shape:
            return _fail("grad is incorrect size", raise_exception)
    return True


def _check_forward_ad(func, inputs, diff, numerical, rtol, atol, raise_exception) -> bool:
    from . import forward_ad as fwAD  # noqa: PLC0415
    from ..grad_mode import no_grad  # noqa: PLC0415

    for k, (ii, t) in enumerate(diff):
        n = t._data.size
        cols = None
        for j in range(n):
            tan = np.zeros(t._data.shape, t._data.dtype)
            tan.reshape(-1)[j] = 1
            with fwAD.dual_level(), no_grad():
                args = list(inputs)
                args[ii] = fwAD.make_dual(t.detach(), _wrap(tan))
                outs = _float_outputs(_as_tuple(func(*args)))
                tans = []
                for o in outs:
                    tt = fwAD.unpack_dual(o).tangent
                    tans.append(np.zeros(o._data.size) if tt is None
                                else np.asarray(tt._data, np.float64).reshape(-1))
            if cols is None:
                cols = [np.zeros((n, len(x))) for x in tans]
            for oi, x in enumerate(tans):
                cols[oi][j] = x
        for oi, a in enumerate(cols or []):
            num = numerical[k][oi]
            if not np.allclose(a, num, rtol=rtol, atol=atol):
                return _fail(
                    f"Jacobian computed with forward mode mismatch for output {oi:d} with respect "
                    f"to input {ii:d},\nnumerical:{_fmt(num, num.shape)}\n"
                    f"analytical:{_fmt(a, a.shape)}\n",
                    raise_exception,
                )
    return True


def gradgradcheck(
    func,
    inputs,
    grad_outputs=None,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    gen_non_contig_grad_outputs: bool = False,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    check_batched_grad: bool = False,
    check_fwd_over_rev: bool = False,
    check_rev_over_rev: bool = True,
    fast_mode: bool = False,
    masked: bool = False,
) -> bool:
    """Check second derivatives: gradcheck of ``(inputs, v) -> vᵀJ`` built with create_graph.

    Random ``grad_outputs`` (float64, requiring grad) are drawn when not given, as torch does.

    Example:
        >>> import jupyter_autograd as torch
        >>> x = torch.tensor([0.5, 1.5], dtype=torch.float64, requires_grad=True)
        >>> torch.autograd.gradgradcheck(torch.tanh, (x,))
        True
    """
    from ..tensor import Tensor  # noqa: PLC0415
    from . import grad as _grad  # noqa: PLC0415

    inputs = _as_tuple(inputs)
    if grad_outputs is None:
        outs = _float_outputs(_as_tuple(func(*inputs)))
        rng = np.random.default_rng(0)
        grad_outputs = tuple(
            Tensor._wrap(rng.standard_normal(o._data.shape).astype(o._data.dtype), True)
            for o in outs if o.requires_grad
        )
    else:
        grad_outputs = _as_tuple(grad_outputs)
    n_in = len(inputs)

    def new_func(*args):
        ins = args[:n_in]
        gos = args[n_in:]
        outs = [o for o in _float_outputs(_as_tuple(func(*ins))) if o.requires_grad]
        diff = [t for t in ins if isinstance(t, Tensor) and t.requires_grad]
        gs = _grad(outs, diff, list(gos), create_graph=True, allow_unused=True)
        return tuple(g for g in gs if g is not None)

    return gradcheck(
        new_func,
        inputs + tuple(grad_outputs),
        eps=eps,
        atol=atol,
        rtol=rtol,
        raise_exception=raise_exception,
        nondet_tol=nondet_tol,
        check_undefined_grad=check_undefined_grad,
        check_grad_dtypes=check_grad_dtypes,
        check_forward_ad=check_fwd_over_rev,
        check_backward_ad=check_rev_over_rev,
        fast_mode=fast_mode,
    )
