"""Finite-difference checkers for gradients (torch.autograd.gradcheck / gradgradcheck).

torch's slow mode, step by step. The numerical Jacobian perturbs one input element at a time,
``(f(x + eps) - f(x - eps)) / (2 eps)``; a complex element is perturbed along its real and its
imaginary part and gives the conjugate Wirtinger derivative ``ds/dx + i ds/dy``. The analytical
Jacobian is built row by row with ``autograd.grad`` and one-hot ``grad_outputs`` (computed
twice: a backward that is not reentrant fails). Functions with complex outputs are checked
through the real and the imaginary part of each complex output; forward mode (complex inputs)
through functions of the real and of the imaginary part of each complex input, the other part
held fixed. Values are compared with ``allclose(analytical, numerical, rtol, atol)``.
``fast_mode`` is accepted and runs the same full check.
"""

from __future__ import annotations

import warnings

import numpy as np

__all__ = ["GradcheckError", "gradcheck", "gradgradcheck"]


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
        cols = [np.zeros((data.size, o._data.size), dtype=data.dtype if cplx else o._data.dtype)
                for o in outputs]

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
        raise ValueError("Expected inputs to be non-complex for _get_analytical_jacobian_forward_ad.")
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
                for o, d in enumerate(x for x in _as_tuple(func(*duals)) if _is_float_or_complex(x)):
                    val, res = fwAD.unpack_dual(d)
                    if check_grad_dtypes and res is not None and val.is_complex() != res.is_complex():
                        raise GradcheckError("Forward AD gradient has dtype mismatch.")
                    jacs[k][o][e] = 0 if res is None else res._data.reshape(-1)
                    if res is not None and res.requires_grad:
                        jacs_grad[k][o] = True
                tan.reshape(-1)[e] = 0.0
    return jacs, jacs_grad


# ---------------------------------------------------------------- the checks
def _notallclose_msg(a, n, out_idx, in_idx, complex_indices, test_imag, is_forward_ad=False,
                     a_grad=False):
    out_is_complex = not is_forward_ad and complex_indices and out_idx in complex_indices
    inp_is_complex = is_forward_ad and complex_indices and in_idx in complex_indices
    part = "imaginary" if test_imag else "real"
    element = "inputs" if is_forward_ad else "outputs"
    prefix = (f"While considering the {part} part of complex {element} only, "
              if out_is_complex or inp_is_complex else "")
    mode = "computed with forward mode " if is_forward_ad else ""
    return (prefix + f"Jacobian {mode}mismatch for output {out_idx:d} with respect to input "
            f"{in_idx:d},\nnumerical:{_fmt(n)}\nanalytical:{_fmt(a, a_grad)}\n")


def _allclose(a, n, rtol, atol) -> bool:
    return bool(np.allclose(a, n, rtol=rtol, atol=atol))


def _slow_gradcheck(func, func_out, inputs, outputs, eps, rtol, atol, check_grad_dtypes,
                    nondet_tol, *, use_forward_ad=False, complex_indices=None, test_imag=False):
    func_out = [o for o in _as_tuple(func_out) if _is_float_or_complex(o)]
    if not outputs:
        # nothing requires grad: the function must not depend on its inputs
        for per_input in _numerical_jacobians(func, inputs, func_out, eps, use_forward_ad):
            for jac in per_input:
                if np.any(jac != 0):
                    raise GradcheckError("Numerical gradient for function expected to be zero")
        return True
    numerical = _numerical_jacobians(func, inputs, func_out, eps, use_forward_ad)
    # numerical[i][j]: output i (those requiring grad) with respect to diff input j
    numerical = [[per_in[o] for per_in in numerical] for o, out in enumerate(func_out)
                 if out.requires_grad]
    if use_forward_ad:
        jacs, with_grad = _forward_ad_jacobians(func, inputs, func_out, check_grad_dtypes)
        keep = [o for o, out in enumerate(func_out) if out.requires_grad]
        for i, per_out in enumerate(numerical):
            for j, n in enumerate(per_out):
                a = jacs[j][keep[i]]
                if not _allclose(a, n, rtol, atol):
                    raise GradcheckError(_notallclose_msg(a, n, i, j, complex_indices, test_imag,
                                                          is_forward_ad=True,
                                                          a_grad=with_grad[j][keep[i]]))
        return True
    for i, o in enumerate(outputs):
        analytical = _analytical_jacobian(inputs, o, nondet_tol, check_grad_dtypes)
        for j, (a, n) in enumerate(zip(analytical, numerical[i])):
            if not _allclose(a, n, rtol, atol):
                raise GradcheckError(_notallclose_msg(a, n, i, j, complex_indices, test_imag))
    return True


def _real_and_imag_output(func):
    """``real(func)`` and ``imag(func)``: the complex outputs replaced by their real and
    imaginary parts."""
    from .. import imag, real

    def apply_to_complex_outputs(f):
        def wrapped(*inputs):
            return tuple(f(o) if _is_float_or_complex(o) and o.is_complex() else o
                         for o in _as_tuple(func(*inputs)))

        return wrapped

    return apply_to_complex_outputs(real), apply_to_complex_outputs(imag)


def _real_and_imag_input(func, complex_indices, inputs):
    """Functions of real tensors in place of the complex inputs: ``x -> func(x + i y)`` and
    ``y -> func(x + i y)``, the other part held fixed."""
    def apply_to_complex_inputs(make):
        def wrapped(*args):
            new = list(args)
            for i in complex_indices:
                new[i] = make(new[i], inputs[i])
            return _as_tuple(func(*new))

        return wrapped

    return (apply_to_complex_inputs(lambda x, orig: x + orig.imag * 1j),
            apply_to_complex_inputs(lambda y, orig: orig.real + y * 1j))


def _gradcheck_real_imag(func, func_out, inputs, outputs, eps, rtol, atol, check_grad_dtypes,
                         check_forward_ad, check_backward_ad, nondet_tol):
    complex_out = [i for i, o in enumerate(outputs) if o.is_complex()]
    if check_backward_ad:
        if any(_is_float_or_complex(o) and o.is_complex() for o in _as_tuple(func_out)):
            real_fn, imag_fn = _real_and_imag_output(func)
            imag_out = imag_fn(*inputs)
            _slow_gradcheck(imag_fn, imag_out, inputs, _differentiable_outputs(imag_out), eps,
                            rtol, atol, check_grad_dtypes, nondet_tol,
                            complex_indices=complex_out, test_imag=True)
            real_out = real_fn(*inputs)
            _slow_gradcheck(real_fn, real_out, inputs, _differentiable_outputs(real_out), eps,
                            rtol, atol, check_grad_dtypes, nondet_tol,
                            complex_indices=complex_out)
        else:
            _slow_gradcheck(func, func_out, inputs, outputs, eps, rtol, atol, check_grad_dtypes,
                            nondet_tol)
    if check_forward_ad:
        complex_in = [i for i, t in enumerate(inputs) if _is_float_or_complex(t) and t.is_complex()]
        if complex_in:
            real_fn, imag_fn = _real_and_imag_input(func, complex_in, inputs)
            imag_inputs = [t.imag if i in complex_in else t for i, t in enumerate(inputs)]
            imag_out = imag_fn(*imag_inputs)
            _slow_gradcheck(imag_fn, imag_out, imag_inputs, _differentiable_outputs(imag_out),
                            eps, rtol, atol, check_grad_dtypes, nondet_tol, use_forward_ad=True,
                            complex_indices=complex_in, test_imag=True)
            real_inputs = [t.real if i in complex_in else t for i, t in enumerate(inputs)]
            real_out = real_fn(*real_inputs)
            _slow_gradcheck(real_fn, real_out, real_inputs, _differentiable_outputs(real_out),
                            eps, rtol, atol, check_grad_dtypes, nondet_tol, use_forward_ad=True,
                            complex_indices=complex_in)
        else:
            _slow_gradcheck(func, func_out, inputs, outputs, eps, rtol, atol, check_grad_dtypes,
                            nondet_tol, use_forward_ad=True)


def _check_inputs(inputs) -> None:
    any_rg = False
    for idx, t in enumerate(inputs):
        if _is_float_or_complex(t) and t.requires_grad:
            if t._data.dtype not in (np.float64, np.complex128):
                warnings.warn(
                    f"Input #{idx} requires gradient and is not a double precision floating point "
                    "or complex. This check will likely fail if all the inputs are not of double "
                    "precision floating point or complex. ",
                    UserWarning,
                    stacklevel=4,
                )
            if not all(st > 0 or sz <= 1 for st, sz in zip(t._data.strides, t._data.shape)):
                raise RuntimeError(
                    f"The {idx}th input has a dimension with stride 0. gradcheck only supports "
                    "inputs that are non-overlapping to be able to compute the numerical "
                    "gradients correctly. You should call .contiguous on the input before "
                    "passing it to gradcheck."
                )
            any_rg = True
    if not any_rg:
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient, but none of them "
            "have requires_grad=True."
        )


def _backward_mul_by_grad_output(outputs, inputs) -> None:
    from . import grad as _grad

    diff = [t for _, t in _diff_inputs(inputs)]
    zeros = [_wrap(np.zeros_like(o._data)) for o in outputs]
    gs = _grad(list(outputs), diff, zeros, allow_unused=True)
    for g, t in zip(gs, diff):
        if g is None:
            continue
        if np.any(g._data != 0):
            raise GradcheckError("backward not multiplied by grad_output")
        if g._data.dtype != t._data.dtype:
            raise GradcheckError("grad is incorrect type")
        if g._data.shape != t._data.shape:
            raise GradcheckError("grad is incorrect size")


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

    Complex inputs and outputs are checked as torch does (its "Autograd for Complex Numbers"
    convention): each complex input is perturbed along its real and imaginary parts, each
    complex output checked through its real and imaginary parts.

    Args:
        func: a function of Tensors returning a Tensor or a tuple of Tensors.
        inputs: a Tensor or tuple of Tensors; those with ``requires_grad=True`` are checked.
        eps: finite-difference step.
        atol: absolute tolerance.
        rtol: relative tolerance.
        raise_exception: raise :class:`GradcheckError` on failure (else return False).
        nondet_tol: tolerance between two backward runs with the same inputs.
        check_grad_dtypes: a gradient of another dtype than its input fails.
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
        >>> z = torch.tensor([0.5 + 1j, -1 + 0.5j], dtype=torch.complex128, requires_grad=True)
        >>> torch.autograd.gradcheck(lambda z: (z * z.conj()).exp(), (z,))
        True
    """
    if not (check_forward_ad or check_backward_ad):
        raise AssertionError("Expected at least one of check_forward_ad or check_backward_ad to be True")
    if check_batched_grad and not check_backward_ad:
        raise AssertionError("Setting check_batched_grad=True requires check_backward_ad to be True")
    if check_batched_forward_grad and not check_forward_ad:
        raise AssertionError(
            "Setting check_batched_forward_grad=True requires check_forward_ad to be True")
    try:
        inputs = _as_tuple(inputs)
        _check_inputs(inputs)
        func_out = func(*inputs)
        outputs = _differentiable_outputs(func_out)
        _gradcheck_real_imag(func, func_out, inputs, outputs, eps, rtol, atol, check_grad_dtypes,
                             check_forward_ad, check_backward_ad, nondet_tol)
        if check_backward_ad and outputs:
            _backward_mul_by_grad_output(outputs, inputs)
    except GradcheckError:
        if raise_exception:
            raise
        return False
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

    Random ``grad_outputs`` in [-1, 1) of each output's dtype (both parts of a complex one),
    requiring grad, are drawn when not given, as torch does.

    Example:
        >>> import jupyter_autograd as torch
        >>> x = torch.tensor([0.5, 1.5], dtype=torch.float64, requires_grad=True)
        >>> torch.autograd.gradgradcheck(torch.tanh, (x,))
        True
    """
    from . import grad as _grad

    if not (check_fwd_over_rev or check_rev_over_rev):
        raise AssertionError(
            "Expected at least one of check_fwd_over_rev or check_rev_over_rev to be True")
    if check_undefined_grad and not check_rev_over_rev:
        raise AssertionError(
            "Setting check_undefined_grad=True requires check_rev_over_rev to be True")
    inputs = _as_tuple(inputs)
    T = _tensor_cls()
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        grad_outputs = []
        for o in _differentiable_outputs(func(*inputs)):
            shape = o._data.shape
            v = rng.uniform(-1, 1, shape)
            if o._data.dtype.kind == "c":
                v = v + 1j * rng.uniform(-1, 1, shape)
            grad_outputs.append(T._wrap(np.asarray(v).astype(o._data.dtype), True))
        grad_outputs = tuple(grad_outputs)
    else:
        grad_outputs = _as_tuple(grad_outputs)
    n_out = len(grad_outputs)
    diff_in = {i for i, x in enumerate(inputs) if isinstance(x, T) and x.requires_grad}
    diff_go = {i for i, x in enumerate(grad_outputs) if x.requires_grad}

    def new_func(*args):
        # gradcheck detaches inputs for forward mode: restore what requires grad
        ins = tuple(x.requires_grad_() if i in diff_in and not x.requires_grad else x
                    for i, x in enumerate(args[:-n_out] if n_out else args))
        outs = _differentiable_outputs(func(*ins))
        gos = tuple(x.requires_grad_() if i in diff_go and not x.requires_grad else x
                    for i, x in enumerate(args[len(ins):]))
        diff = tuple(x for i, x in enumerate(ins) if i in diff_in)
        gs = _grad(list(outs), list(diff), list(gos), create_graph=True, allow_unused=True)
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
