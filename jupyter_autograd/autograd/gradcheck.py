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

from ._jacobians import (
    GradcheckError,
    _analytical_jacobian,
    _as_tuple,
    _diff_inputs,
    _differentiable_outputs,
    _fmt,
    _forward_ad_jacobians,
    _is_float_or_complex,
    _numerical_jacobians,
    _tensor_cls,
    _wrap,
)

__all__ = ["GradcheckError", "gradcheck", "gradgradcheck"]


# ---------------------------------------------------------------- the checks
def _notallclose_msg(
    a, n, out_idx, in_idx, complex_indices, test_imag, is_forward_ad=False, a_grad=False
):
    out_is_complex = not is_forward_ad and complex_indices and out_idx in complex_indices
    inp_is_complex = is_forward_ad and complex_indices and in_idx in complex_indices
    part = "imaginary" if test_imag else "real"
    element = "inputs" if is_forward_ad else "outputs"
    prefix = (
        f"While considering the {part} part of complex {element} only, "
        if out_is_complex or inp_is_complex
        else ""
    )
    mode = "computed with forward mode " if is_forward_ad else ""
    return (
        prefix + f"Jacobian {mode}mismatch for output {out_idx:d} with respect to input "
        f"{in_idx:d},\nnumerical:{_fmt(n)}\nanalytical:{_fmt(a, a_grad)}\n"
    )


def _allclose(a, n, rtol, atol) -> bool:
    return bool(np.allclose(a, n, rtol=rtol, atol=atol))


def _slow_gradcheck(
    func,
    func_out,
    inputs,
    outputs,
    eps,
    rtol,
    atol,
    check_grad_dtypes,
    nondet_tol,
    *,
    use_forward_ad=False,
    complex_indices=None,
    test_imag=False,
):
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
    numerical = [
        [per_in[o] for per_in in numerical] for o, out in enumerate(func_out) if out.requires_grad
    ]
    if use_forward_ad:
        jacs, with_grad = _forward_ad_jacobians(func, inputs, func_out, check_grad_dtypes)
        keep = [o for o, out in enumerate(func_out) if out.requires_grad]
        for i, per_out in enumerate(numerical):
            for j, n in enumerate(per_out):
                a = jacs[j][keep[i]]
                if not _allclose(a, n, rtol, atol):
                    raise GradcheckError(
                        _notallclose_msg(
                            a,
                            n,
                            i,
                            j,
                            complex_indices,
                            test_imag,
                            is_forward_ad=True,
                            a_grad=with_grad[j][keep[i]],
                        )
                    )
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
    from ..ops.cplx import imag, real

    def apply_to_complex_outputs(f):
        def wrapped(*inputs):
            return tuple(
                f(o) if _is_float_or_complex(o) and o.is_complex() else o
                for o in _as_tuple(func(*inputs))
            )

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

    return (
        apply_to_complex_inputs(lambda x, orig: x + orig.imag * 1j),
        apply_to_complex_inputs(lambda y, orig: orig.real + y * 1j),
    )


def _gradcheck_real_imag(
    func,
    func_out,
    inputs,
    outputs,
    eps,
    rtol,
    atol,
    check_grad_dtypes,
    check_forward_ad,
    check_backward_ad,
    nondet_tol,
):
    complex_out = [i for i, o in enumerate(outputs) if o.is_complex()]
    if check_backward_ad:
        if any(_is_float_or_complex(o) and o.is_complex() for o in _as_tuple(func_out)):
            real_fn, imag_fn = _real_and_imag_output(func)
            imag_out = imag_fn(*inputs)
            _slow_gradcheck(
                imag_fn,
                imag_out,
                inputs,
                _differentiable_outputs(imag_out),
                eps,
                rtol,
                atol,
                check_grad_dtypes,
                nondet_tol,
                complex_indices=complex_out,
                test_imag=True,
            )
            real_out = real_fn(*inputs)
            _slow_gradcheck(
                real_fn,
                real_out,
                inputs,
                _differentiable_outputs(real_out),
                eps,
                rtol,
                atol,
                check_grad_dtypes,
                nondet_tol,
                complex_indices=complex_out,
            )
        else:
            _slow_gradcheck(
                func, func_out, inputs, outputs, eps, rtol, atol, check_grad_dtypes, nondet_tol
            )
    if check_forward_ad:
        complex_in = [i for i, t in enumerate(inputs) if _is_float_or_complex(t) and t.is_complex()]
        if complex_in:
            real_fn, imag_fn = _real_and_imag_input(func, complex_in, inputs)
            imag_inputs = [t.imag if i in complex_in else t for i, t in enumerate(inputs)]
            imag_out = imag_fn(*imag_inputs)
            _slow_gradcheck(
                imag_fn,
                imag_out,
                imag_inputs,
                _differentiable_outputs(imag_out),
                eps,
                rtol,
                atol,
                check_grad_dtypes,
                nondet_tol,
                use_forward_ad=True,
                complex_indices=complex_in,
                test_imag=True,
            )
            real_inputs = [t.real if i in complex_in else t for i, t in enumerate(inputs)]
            real_out = real_fn(*real_inputs)
            _slow_gradcheck(
                real_fn,
                real_out,
                real_inputs,
                _differentiable_outputs(real_out),
                eps,
                rtol,
                atol,
                check_grad_dtypes,
                nondet_tol,
                use_forward_ad=True,
                complex_indices=complex_in,
            )
        else:
            _slow_gradcheck(
                func,
                func_out,
                inputs,
                outputs,
                eps,
                rtol,
                atol,
                check_grad_dtypes,
                nondet_tol,
                use_forward_ad=True,
            )


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
        raise AssertionError(
            "Expected at least one of check_forward_ad or check_backward_ad to be True"
        )
    if check_batched_grad and not check_backward_ad:
        raise AssertionError(
            "Setting check_batched_grad=True requires check_backward_ad to be True"
        )
    if check_batched_forward_grad and not check_forward_ad:
        raise AssertionError(
            "Setting check_batched_forward_grad=True requires check_forward_ad to be True"
        )
    try:
        inputs = _as_tuple(inputs)
        _check_inputs(inputs)
        func_out = func(*inputs)
        outputs = _differentiable_outputs(func_out)
        _gradcheck_real_imag(
            func,
            func_out,
            inputs,
            outputs,
            eps,
            rtol,
            atol,
            check_grad_dtypes,
            check_forward_ad,
            check_backward_ad,
            nondet_tol,
        )
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
            "Expected at least one of check_fwd_over_rev or check_rev_over_rev to be True"
        )
    if check_undefined_grad and not check_rev_over_rev:
        raise AssertionError(
            "Setting check_undefined_grad=True requires check_rev_over_rev to be True"
        )
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
        ins = tuple(
            x.requires_grad_() if i in diff_in and not x.requires_grad else x
            for i, x in enumerate(args[:-n_out] if n_out else args)
        )
        outs = _differentiable_outputs(func(*ins))
        gos = tuple(
            x.requires_grad_() if i in diff_go and not x.requires_grad else x
            for i, x in enumerate(args[len(ins) :])
        )
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
