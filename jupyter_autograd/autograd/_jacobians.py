"""The Jacobians that :mod:`.gradcheck` compares, and its error type.

Numerical: one input element perturbed at a time, ``(f(x + eps) - f(x - eps)) / (2 eps)`` (a
complex element along its real and its imaginary part, giving the conjugate Wirtinger derivative).
Analytical: row by row with ``autograd.grad`` and one-hot ``grad_outputs``, computed twice (a
backward that is not reentrant fails), or column by column with forward-mode dual tensors.
"""

from __future__ import annotations

import numpy as np


class GradcheckError(RuntimeError):
    """Raised by :func:`gradcheck` and :func:`gradgradcheck` when a check fails."""

    # torch.autograd.gradcheck.GradcheckError: named where callers import it, as torch's
    __module__ = __name__.rpartition(".")[0] + ".gradcheck"


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
    from ..tensor import Tensor

    return Tensor


def _as_tuple(x):
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _is_float_or_complex(t) -> bool:
    return isinstance(t, _tensor_cls()) and t._data.dtype.kind in "fc"


def _diff_inputs(inputs):
    """(position, tensor) of each input that requires grad."""
    T = _tensor_cls()
    return [(i, t) for i, t in enumerate(inputs) if isinstance(t, T) and t.requires_grad]


def _differentiable_outputs(x):
    return tuple(o for o in _as_tuple(x) if _is_float_or_complex(o) and o.requires_grad)


def _wrap(a):
    return _tensor_cls()._wrap(np.asarray(a))


def _fmt(a, copied_with_grad=False):
    """A Jacobian as torch prints it; torch fills it in place (``jac[i].copy_(...)``), so it
    shows ``grad_fn=<CopySlices>`` when a value copied in required grad."""
    t = _wrap(a)
    if copied_with_grad:
        from ..ops import OPS

        t._requires_grad = True
        t.grad_fn = OPS["index_put"].node_cls.__new__(OPS["index_put"].node_cls)
    return repr(t)


# ---------------------------------------------------------------- numerical Jacobians
def _eval(func, inputs):
    """Copies of the float/complex outputs (an output may be a view of the perturbed input)."""
    # grad mode stays on: gradgradcheck's function itself calls autograd.grad
    return [np.array(o._data) for o in _as_tuple(func(*inputs)) if _is_float_or_complex(o)]


def _same_dtype_and_shape(a, b, eps, idx) -> None:
    on_index = f"on index {idx} " if idx is not None else ""
    if a.shape != b.shape:
        raise AssertionError(
            f"Expected `func` to return outputs with the same shape when inputs are perturbed "
            f"{on_index}by {eps}, but got: shapes {_size(a.shape)} and {_size(b.shape)}."
        )
    if a.dtype != b.dtype:
        raise AssertionError(
            f"Expected `func` to return outputs with the same dtype when inputs are perturbed "
            f"{on_index}by {eps}, but got: dtypes {_dt(a.dtype)} and {_dt(b.dtype)}."
        )


def _size(shape) -> str:
    from .._errors import size_str

    return size_str(shape)


def _dt(d) -> str:
    from .._dtype import from_numpy_dtype

    return repr(from_numpy_dtype(d))


def _central(func, inputs, flat, j, step, eps, idx):
    """Central differences of every output for element j moved by ``step`` (eps or i eps)."""
    orig = flat[j]
    flat[j] = orig - step
    lo = _eval(func, inputs)
    flat[j] = orig + step
    hi = _eval(func, inputs)
    flat[j] = orig
    res = []
    for a, b in zip(lo, hi):
        _same_dtype_and_shape(a, b, eps, idx)
        res.append(((b - a) / (2 * eps)).reshape(-1))
    return res


def _numerical_jacobians(func, inputs, outputs, eps, is_forward_ad=False):
    """``jac[k][o]`` of shape ``(numel of input k, numel of output o)`` for the k-th input that
    requires grad and every float/complex output (torch's layout); a complex input's column
    is ``ds/dx + i ds/dy``."""
    if not is_forward_ad and any(o._data.dtype.kind == "c" for o in outputs):
        raise ValueError(
            "Expected output to be non-complex. get_numerical_jacobian no longer supports "
            "functions that return complex outputs."
        )
    jacs = []
    for _, t in _diff_inputs(inputs):
        data = t._data
        # perturbed in the input's own memory (``flat`` writes through any strides), as torch
        flat = data.flat
        shape = tuple(data.shape)
        cplx = data.dtype.kind == "c"
        cols = [
            np.zeros((data.size, o._data.size), dtype=data.dtype if cplx else o._data.dtype)
            for o in outputs
        ]

        for j in range(data.size):
            idx = np.unravel_index(j, shape) if shape else ()
            idx = tuple(int(i) for i in idx)
            ds_dx = _central(func, inputs, flat, j, eps, eps, idx)
            if cplx:  # C -> R: the conjugate Wirtinger derivative
                ds_dy = _central(func, inputs, flat, j, eps * 1j, eps, idx)
                ds = [x + 1j * y for x, y in zip(ds_dx, ds_dy)]
            else:
                ds = ds_dx
            for o, col in enumerate(ds):
                cols[o][j] = col
        jacs.append(cols)
    return jacs


# ---------------------------------------------------------------- analytical Jacobians
def _analytical_rows(inputs, output):
    """Column j of ``jac[k]`` is the gradient of input k for the one-hot grad_output j."""
    from . import grad as _grad

    diff = [t for _, t in _diff_inputs(inputs)]
    n = output._data.size
    base = np.zeros(output._data.shape, output._data.dtype)
    rows = [[] for _ in diff]
    for j in range(n):
        base.reshape(-1)[...] = 0
        base.reshape(-1)[j] = 1
        gs = _grad(output, diff, _wrap(base.copy()), retain_graph=True, allow_unused=True)
        for k, g in enumerate(gs):
            rows[k].append(None if g is None else np.array(g._data))
    return rows


def _stack(rows, inputs, n_out):
    diff = [t for _, t in _diff_inputs(inputs)]
    jacs, types_ok, sizes_ok = [], True, True
    for t, cols in zip(diff, rows):
        jac = np.zeros((t._data.size, n_out), t._data.dtype)
        for j, g in enumerate(cols):
            if g is None:
                continue
            if g.shape != t._data.shape:
                sizes_ok = False
            elif g.dtype != t._data.dtype:
                types_ok = False
            if g.size == jac.shape[0]:
                jac[:, j] = g.reshape(-1)
        jacs.append(jac)
    return jacs, types_ok, sizes_ok


def _analytical_jacobian(inputs, output, nondet_tol, check_grad_dtypes):
    """torch's _check_analytical_jacobian_attributes: the Jacobian rows computed twice."""
    n = output._data.size
    j1, types_ok, sizes_ok = _stack(_analytical_rows(inputs, output), inputs, n)
    j2, _, _ = _stack(_analytical_rows(inputs, output), inputs, n)
    reentrant = all(a.size == 0 or np.max(np.abs(a - b)) <= nondet_tol for a, b in zip(j1, j2))
    if not types_ok and check_grad_dtypes:
        raise GradcheckError("Gradient has dtype mismatch")
    if not sizes_ok:
        raise GradcheckError("Analytical gradient has incorrect size")
    if not reentrant:
        raise GradcheckError(
            "Backward is not reentrant, i.e., running backward with same input and grad_output "
            "multiple times gives different values, although analytical gradient matches "
            f"numerical gradient.The tolerance for nondeterminism was {nondet_tol}."
            + FAILED_NONDET_MSG
        )
    return j1


def _forward_ad_jacobians(func, inputs, outputs, check_grad_dtypes):
    """``jac[k][o]``: row e of input k's Jacobian is the output tangent for the one-hot
    tangent e (inputs are real here: complex ones are split by the caller)."""
    from . import forward_ad as fwAD

    diff = _diff_inputs(inputs)
    if any(t._data.dtype.kind == "c" for _, t in diff):
        raise ValueError(
            "Expected inputs to be non-complex for _get_analytical_jacobian_forward_ad."
        )
    outs = [o for o in outputs if _is_float_or_complex(o)]
    jacs = [[np.zeros((t._data.size, o._data.size), o._data.dtype) for o in outs] for _, t in diff]
    jacs_grad = [[False] * len(outs) for _ in diff]  # a tangent that required grad was copied in
    with fwAD.dual_level():
        duals = list(inputs)
        for pos, t in diff:
            duals[pos] = fwAD.make_dual(t.detach(), _wrap(np.zeros_like(t._data)))
        for k, (pos, t) in enumerate(diff):
            tan = fwAD.unpack_dual(duals[pos]).tangent._data
            for e in range(t._data.size):
                tan.reshape(-1)[e] = 1.0
                for o, d in enumerate(
                    x for x in _as_tuple(func(*duals)) if _is_float_or_complex(x)
                ):
                    val, res = fwAD.unpack_dual(d)
                    if (
                        check_grad_dtypes
                        and res is not None
                        and val.is_complex() != res.is_complex()
                    ):
                        raise GradcheckError("Forward AD gradient has dtype mismatch.")
                    jacs[k][o][e] = 0 if res is None else res._data.reshape(-1)
                    if res is not None and res.requires_grad:
                        jacs_grad[k][o] = True
                tan.reshape(-1)[e] = 0.0
    return jacs, jacs_grad
