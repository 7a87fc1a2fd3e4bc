"""Jacobians, Hessians and vector products of whole functions (torch.autograd.functional).

Signatures, return structures (Tensor / tuple / tuple of tuples) and error texts follow
torch 2.13. ``vectorize=True`` is accepted and gives the same results; the rows of the Jacobian
are computed one backward pass at a time; ``strategy="forward-mode"`` runs one forward pass per
input with its basis as a batch of tangents (``jupyter_autograd._batching``).
"""

from __future__ import annotations

import numpy as np

from .._batching import Unbatchable
from ..grad_mode import enable_grad, is_grad_enabled, set_grad_enabled

__all__ = ["hessian", "hvp", "jacobian", "jvp", "vhp", "vjp"]


def _T():
    from ..tensor import Tensor

    return Tensor


def _as_tuple_nocheck(x):
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _as_tuple(inp, arg_name=None, fn_name=None):
    if arg_name is None and fn_name is None:
        return _as_tuple_nocheck(inp)
    is_inp_tuple = True
    if not isinstance(inp, tuple):
        inp = (inp,)
        is_inp_tuple = False
    for i, el in enumerate(inp):
        if not isinstance(el, _T()):
            if is_inp_tuple:
                raise TypeError(
                    f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of "
                    f"Tensors but the value at index {i} has type {type(el)}."
                )
            raise TypeError(
                f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of Tensors "
                f"but the given {arg_name} has type {type(el)}."
            )
    return is_inp_tuple, inp


def _tuple_postprocess(res, to_unpack):
    if isinstance(to_unpack, tuple):
        if not to_unpack[1]:
            res = tuple(el[0] for el in res)
        if not to_unpack[0]:
            res = res[0]
    elif not to_unpack:
        res = res[0]
    return res


def _grad_preprocess(inputs, create_graph, need_graph):
    res = []
    for inp in inputs:
        if create_graph and inp.requires_grad:
            res.append(inp.view_as(inp))
        else:
            res.append(inp.detach().requires_grad_(need_graph))
    return tuple(res)


def _grad_postprocess(inputs, create_graph):
    if isinstance(inputs[0], _T()):
        if not create_graph:
            return tuple(inp.detach() for inp in inputs)
        return inputs
    return tuple(_grad_postprocess(inp, create_graph) for inp in inputs)


def _validate_v(v, other, is_other_tuple):
    if len(other) != len(v):
        if is_other_tuple:
            raise RuntimeError(
                f"v is a tuple of invalid length: should be {len(other)} but got {len(v)}."
            )
        raise RuntimeError("The given v should contain a single Tensor.")
    for idx, (el_v, el_other) in enumerate(zip(v, other)):
        if el_v.size() != el_other.size():
            prepend = f"Entry {idx} in " if is_other_tuple else ""
            raise RuntimeError(
                f"{prepend}v has invalid size: should be {el_other.size()} but got {el_v.size()}."
            )


def _check_requires_grad(inputs, input_type, strict):
    if not strict:
        return
    for i, inp in enumerate(inputs):
        if inp is None:
            raise RuntimeError(
                f"The output of the user-provided function is independent of input {i}. This is "
                "not allowed in strict mode."
            )
        if not inp.requires_grad:
            if input_type == "hessian":
                raise RuntimeError(
                    f"The hessian of the user-provided function with respect to input {i} is "
                    "independent of the input. This is not allowed in strict mode. You should "
                    "ensure that your function is thrice differentiable and that the hessian "
                    "depends on the inputs."
                )
            if input_type == "jacobian":
                raise RuntimeError(
                    "While computing the hessian, found that the jacobian of the user-provided "
                    f"function with respect to input {i} is independent of the input. This is not "
                    "allowed in strict mode. You should ensure that your function is twice "
                    "differentiable and that the jacobian depends on the inputs (this would be "
                    "violated by a linear function for example)."
                )
            if input_type == "grad_inputs":
                raise RuntimeError(
                    f"The gradient with respect to input {i} is independent of the inputs of the "
                    "user-provided function. This is not allowed in strict mode."
                )
            raise RuntimeError(
                f"Output {i} of the user-provided function does not require gradients. The "
                "outputs must be computed in a differentiable manner from the input when running "
                "in strict mode."
            )


def _autograd_grad(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None):
    from . import grad

    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    new_outputs, new_grad_outputs = (), ()
    for out, grad_out in zip(outputs, grad_outputs):
        if out is not None and out.requires_grad:
            new_outputs += (out,)
            new_grad_outputs += (grad_out,)
    if not new_outputs:
        return (None,) * len(inputs)
    return grad(
        new_outputs,
        inputs,
        list(new_grad_outputs),
        allow_unused=True,
        create_graph=create_graph,
        retain_graph=retain_graph,
    )


_STRICT_MSGS = {
    "back": "The output of the user-provided function is independent of input {i}. This is not "
    "allowed in strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the "
    "grad_outputs when using the double backward trick to compute forward mode "
    "gradients. This is not allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. This "
    "is not allowed in strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry {i} "
    "in the grad_jacobian. This is not allowed in strict mode as it prevents "
    "from using the double backward trick to replace forward mode AD.",
}


def _fill_in_zeros(grads, refs, strict, create_graph, stage):
    from ..factories import zeros_like

    res = ()
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise RuntimeError(_STRICT_MSGS[stage].format(i=i))
            g = zeros_like(refs[i])
        elif strict and create_graph and not g.requires_grad:
            what = "jacobian" if "double" not in stage else "hessian"
            raise RuntimeError(
                f"The {what} of the user-provided function is independent of input {i}. This is "
                "not allowed in strict mode when create_graph=True."
            )
        res += (g,)
    return res


def _vector_product(
    outputs, of, inputs, v, create_graph, strict, stage, is_outputs_tuple, is_inputs_tuple
):
    """The second half of vjp and vhp: vᵀ·d(of)/d(inputs), zeros where an input is unused, and
    ``(outputs, product)`` shaped as the caller passed them."""
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grad_res = _autograd_grad(of, inputs, v, create_graph=create_graph)
        res = _fill_in_zeros(grad_res, inputs, strict, create_graph, stage)
    outputs = _grad_postprocess(outputs, create_graph)
    res = _grad_postprocess(res, create_graph)
    return _tuple_postprocess(outputs, is_outputs_tuple), _tuple_postprocess(res, is_inputs_tuple)


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), vᵀ·J)``: the vector-Jacobian product at ``inputs``.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.autograd.functional.vjp(lambda x: (x ** 2).sum(), torch.tensor([3., 6.]))
        (tensor(45.), tensor([ 6., 12.]))
    """
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(
            outputs, "outputs of the user-provided function", "vjp"
        )
        _check_requires_grad(outputs, "outputs", strict=strict)
        if v is not None:
            _, v = _as_tuple(v, "v", "vjp")
            v = _grad_preprocess(v, create_graph=create_graph, need_graph=False)
            _validate_v(v, outputs, is_outputs_tuple)
        elif len(outputs) != 1 or outputs[0].nelement() != 1:
            raise RuntimeError(
                "The vector v can only be None if the user-provided function returns a single "
                "Tensor with a single element."
            )
    return _vector_product(
        outputs, outputs, inputs, v, create_graph, strict, "back", is_outputs_tuple, is_inputs_tuple
    )


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), J·v)``, computed with the double-backward trick as torch does.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.autograd.functional.jvp(lambda x: x ** 2, torch.tensor([3., 6.]), torch.ones(2))
        (tensor([ 9., 36.]), tensor([ 6., 12.]))
    """
    from ..factories import zeros_like

    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        if v is not None:
            _, v = _as_tuple(v, "v", "jvp")
            v = _grad_preprocess(v, create_graph=create_graph, need_graph=False)
            _validate_v(v, inputs, is_inputs_tuple)
        elif len(inputs) != 1 or inputs[0].nelement() != 1:
            raise RuntimeError(
                "The vector v can only be None if the input to the user-provided function is a "
                "single Tensor with a single element."
            )
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(
            outputs, "outputs of the user-provided function", "jvp"
        )
        _check_requires_grad(outputs, "outputs", strict=strict)
        # u ↦ uᵀJ is linear in u, so differentiating it against u with v gives J·v
        grad_outputs = tuple(zeros_like(out, requires_grad=True) for out in outputs)
        grad_inputs = _autograd_grad(outputs, inputs, grad_outputs, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict=strict)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grad_res = _autograd_grad(grad_inputs, grad_outputs, v, create_graph=create_graph)
        res = _fill_in_zeros(grad_res, outputs, strict, create_graph, "back_trick")
    outputs = _grad_postprocess(outputs, create_graph)
    res = _grad_postprocess(res, create_graph)
    return _tuple_postprocess(outputs, is_outputs_tuple), _tuple_postprocess(res, is_outputs_tuple)


def _jacfwd(func, inputs, strict=False, vectorize=False):
    """Jacobian column by column with forward-mode AD (one dual pass per input element)."""
    from ..factories import zeros_like
    from ..ops.api import stack
    from . import forward_ad as fwAD

    if strict:
        raise RuntimeError(
            'torch.autograd.functional.jacobian: `strict=True` and `strategy="forward-mode"` '
            "are not supported together (yet). Please either set `strict=False` or "
            '`strategy="reverse-mode"`.'
        )
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
    if not vectorize:
        raise NotImplementedError(
            "Computing Jacobian using forward-AD or forward-over-reverse Hessian is"
            "only implemented for `vectorize=True`."
        )
    T = _T()
    try:
        return _jacfwd_batched(func, inputs, is_inputs_tuple)
    except Unbatchable:
        pass  # one forward pass per basis vector
    cols = None  # cols[out][inp] = list of tangents, one per element of that input
    is_outputs_tuple = False
    primal_outs = None
    for k, inp in enumerate(inputs):
        for j in range(inp.numel()):
            with fwAD.dual_level():
                dual = []
                for m, x in enumerate(inputs):
                    t = np.zeros(x._data.shape, x._data.dtype)
                    if m == k:
                        t.reshape(-1)[j] = 1
                    dual.append(fwAD.make_dual(x.detach(), T._wrap(t)))
                is_outputs_tuple, outs = _as_tuple(func(*dual), "outputs")
                tans, prim = [], []
                for o in outs:
                    p, tt = fwAD.unpack_dual(o)
                    prim.append(p)
                    tans.append(tt if tt is not None else zeros_like(p))
            if cols is None:
                cols = [[[] for _ in inputs] for _ in outs]
                primal_outs = prim
            for oi, tt in enumerate(tans):
                cols[oi][k].append(tt)
    jac = []
    for oi, o in enumerate(primal_outs):
        row = []
        for k, inp in enumerate(inputs):
            if cols[oi][k]:
                st = stack(cols[oi][k], -1).detach()
            else:
                st = T._wrap(np.zeros(tuple(o.shape) + (0,), o._data.dtype))
            row.append(st.reshape(tuple(o.shape) + tuple(inp.shape)))
        jac.append(tuple(row))
    return _tuple_postprocess(tuple(jac), (is_outputs_tuple, is_inputs_tuple))


def _jacfwd_batched(func, inputs, is_inputs_tuple):
    """The forward-mode Jacobian from one forward pass per input, its basis as a batch of
    tangents (jupyter_autograd._batching); raises Unbatchable where that pass cannot run."""
    from .._batching import jacobian_block

    T = _T()
    blocks, outs = [], None
    is_outputs_tuple = False
    for k, inp in enumerate(inputs):
        if inp.numel() == 0:
            raise Unbatchable

        def select(out):
            nonlocal is_outputs_tuple
            is_outputs_tuple, o = _as_tuple(out, "outputs")
            return o

        _, outs, b = jacobian_block(func, inputs, k, select)
        blocks.append(b)
    jac = tuple(
        tuple(T._wrap(blocks[k][oi]) for k in range(len(inputs))) for oi in range(len(outs))
    )
    return _tuple_postprocess(jac, (is_outputs_tuple, is_inputs_tuple))


def jacobian(
    func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"
):
    """The Jacobian of ``func`` at ``inputs``: shape ``output.shape + input.shape``.

    A tuple of inputs gives a tuple (per input); a tuple of outputs a tuple of tuples
    ``[output][input]``.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.autograd.functional.jacobian(lambda t: (t + 1) ** 2, torch.tensor([1., 2.]))
        tensor([[4., 0.],
                [0., 6.]])
    """
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError(
            'Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
            'function has more outputs than inputs, "forward-mode" tends to be more performant. '
            'Otherwise, prefer to use "reverse-mode".'
        )
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError(
                "torch.autograd.functional.jacobian: `create_graph=True` and "
                '`strategy="forward-mode"` are not supported together (yet). Please either set '
                '`create_graph=False` or `strategy="reverse-mode"`.'
            )
        return _jacfwd(func, inputs, strict, vectorize)
    from ..factories import zeros_like
    from ..ops.api import stack

    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(
            outputs, "outputs of the user-provided function", "jacobian"
        )
        _check_requires_grad(outputs, "outputs", strict=strict)
        if vectorize and strict:
            raise RuntimeError(
                "torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are not "
                "supported together. Please either set `strict=False` or `vectorize=False`."
            )
        T = _T()
        jac = ()
        for i, out in enumerate(outputs):
            jac_i = tuple([] for _ in inputs)
            n = out.nelement()
            if n and not vectorize and out._data.dtype.kind == "c":
                # torch backpropagates each element as a scalar with an implicit grad of 1,
                # which a complex output does not have (vectorize=True passes one-hot grads)
                raise RuntimeError(
                    f"grad can be implicitly created only for real scalar outputs but got {out.dtype!r}"
                )
            for j in range(n):
                # one row of J per backward: vᵀJ with v the j-th basis vector
                e = np.zeros(n, out._data.dtype)
                e[j] = 1
                vj = _autograd_grad(
                    (out,),
                    inputs,
                    (T._wrap(e.reshape(out._data.shape)),),
                    retain_graph=True,
                    create_graph=create_graph,
                )
                for el_idx, (jac_el, vj_el, inp_el) in enumerate(zip(jac_i, vj, inputs)):
                    if vj_el is not None:
                        if strict and create_graph and not vj_el.requires_grad:
                            raise RuntimeError(
                                "The jacobian of the user-provided function is independent of "
                                f"input {i}. This is not allowed in strict mode when "
                                "create_graph=True."
                            )
                        jac_el.append(vj_el)
                    else:
                        if strict:
                            raise RuntimeError(
                                f"Output {i} of the user-provided function is independent of "
                                f"input {el_idx}. This is not allowed in strict mode."
                            )
                        jac_el.append(zeros_like(inp_el))
            jac += (
                tuple(
                    (
                        stack(jac_el, 0)
                        if jac_el
                        else T._wrap(np.zeros((0,) + tuple(inputs[k].shape), inputs[k]._data.dtype))
                    ).reshape(tuple(out.shape) + tuple(inputs[k].shape))
                    for k, jac_el in enumerate(jac_i)
                ),
            )
        jac = _grad_postprocess(jac, create_graph)
        return _tuple_postprocess(jac, (is_outputs_tuple, is_inputs_tuple))


def hessian(
    func,
    inputs,
    create_graph=False,
    strict=False,
    vectorize=False,
    outer_jacobian_strategy="reverse-mode",
):
    """The Hessian of a scalar function: the Jacobian of its gradient.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.autograd.functional.hessian(lambda t: (t ** 3).sum(), torch.tensor([1., 2.]))
        tensor([[ 6.,  0.],
                [ 0., 12.]])
    """
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def ensure_single_output_function(*inp):
        out = func(*inp)
        is_out_tuple, t_out = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(t_out, "outputs", strict=strict)
        if is_out_tuple or not isinstance(out, _T()):
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.nelement() != 1:
            raise RuntimeError(
                "The Tensor returned by the function given to hessian should contain a single element"
            )
        return out.squeeze()

    def jac_func(*inp):
        if outer_jacobian_strategy == "forward-mode":
            inp = tuple(t.requires_grad_(True) for t in inp)
        jac = jacobian(ensure_single_output_function, inp, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict=strict)
        return jac

    res = jacobian(
        jac_func,
        inputs,
        create_graph=create_graph,
        strict=strict,
        vectorize=vectorize,
        strategy=outer_jacobian_strategy,
    )
    return _tuple_postprocess(res, (is_inputs_tuple, is_inputs_tuple))


def _single_scalar(outputs, is_outputs_tuple, name):
    if is_outputs_tuple or not isinstance(outputs[0], _T()):
        raise RuntimeError(f"The function given to {name} should return a single Tensor")
    if outputs[0].nelement() != 1:
        raise RuntimeError(
            f"The Tensor returned by the function given to {name} should contain a single element"
        )


def _prep_v(v, inputs, is_inputs_tuple, create_graph, name):
    if v is not None:
        _, v = _as_tuple(v, "v", name)
        v = _grad_preprocess(v, create_graph=create_graph, need_graph=False)
        _validate_v(v, inputs, is_inputs_tuple)
    elif len(inputs) != 1 or inputs[0].nelement() != 1:
        raise RuntimeError(
            "The vector v can only be None if the input to the user-provided function is a single "
            "Tensor with a single element."
        )
    return v


def _scalar_gradient(func, inputs, v, create_graph, strict, name):
    """The first half of vhp/hvp (under enable_grad): checked inputs, v, the scalar output and
    its gradient recorded for a second differentiation."""
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", name)
    inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
    v = _prep_v(v, inputs, is_inputs_tuple, create_graph, name)
    outputs = func(*inputs)
    is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", name)
    _check_requires_grad(outputs, "outputs", strict=strict)
    _single_scalar(outputs, is_outputs_tuple, name)
    jac = _autograd_grad(outputs, inputs, create_graph=True)
    _check_requires_grad(jac, "jacobian", strict=strict)
    return is_inputs_tuple, inputs, v, is_outputs_tuple, outputs, jac


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), vᵀ·H)`` for a scalar function.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.autograd.functional.vhp(lambda t: (t ** 3).sum(), torch.tensor([1., 2.]), torch.ones(2))
        (tensor(9.), tensor([ 6., 12.]))
    """
    with enable_grad():
        is_inputs_tuple, inputs, v, is_outputs_tuple, outputs, jac = _scalar_gradient(
            func, inputs, v, create_graph, strict, "vhp"
        )
    return _vector_product(
        outputs,
        jac,
        inputs,
        v,
        create_graph,
        strict,
        "double_back",
        is_outputs_tuple,
        is_inputs_tuple,
    )


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), H·v)`` for a scalar function (double-backward trick, as torch).

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.autograd.functional.hvp(lambda t: (t ** 3).sum(), torch.tensor([1., 2.]), torch.ones(2))
        (tensor(9.), tensor([ 6., 12.]))
    """
    from ..factories import zeros_like

    with enable_grad():
        is_inputs_tuple, inputs, v, is_outputs_tuple, outputs, jac = _scalar_gradient(
            func, inputs, v, create_graph, strict, "hvp"
        )
        grad_jac = tuple(zeros_like(inp, requires_grad=True) for inp in inputs)
        double_back = _autograd_grad(jac, inputs, grad_jac, create_graph=True)
        _check_requires_grad(jac, "hessian", strict=strict)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grad_res = _autograd_grad(double_back, grad_jac, v, create_graph=create_graph)
        res = _fill_in_zeros(grad_res, inputs, strict, create_graph, "double_back_trick")
    outputs = _grad_postprocess(outputs, create_graph)
    res = _grad_postprocess(res, create_graph)
    return _tuple_postprocess(outputs, is_outputs_tuple), _tuple_postprocess(res, is_inputs_tuple)
