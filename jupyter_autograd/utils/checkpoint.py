"""``torch.utils.checkpoint``: activation checkpointing.

``use_reentrant=True`` is torch's ``CheckpointFunction``: forward runs without recording, and
backward reruns the function with grad enabled (with the random state it had, so dropout draws
the same mask) and backpropagates through the rerun. ``use_reentrant=False`` returns what the
function records, as torch's (grad_fn the function's last op, same values and gradients); the
activations are kept rather than recomputed, which only costs memory."""

from __future__ import annotations

import warnings

from ..autograd import backward as _backward
from ..autograd.function import Function
from ..grad_mode import enable_grad, no_grad
from ..random import get_rng_state, set_rng_state
from ..tensor import Tensor

__all__ = ["checkpoint", "checkpoint_sequential"]

_NEED_REENTRANT = (
    "the use_reentrant parameter should be passed explicitly. Starting in PyTorch 2.9, calling "
    "checkpoint without use_reentrant will raise an exception. use_reentrant=False is "
    "recommended, but if you need to preserve the current default behavior, you can pass "
    "use_reentrant=True. Refer to docs for more details on the differences between the two "
    "variants."
)


class CheckpointFunction(Function):
    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        if not any(isinstance(a, Tensor) and a.requires_grad for a in args):
            warnings.warn(
                "None of the inputs have requires_grad=True. Gradients will be None",
                stacklevel=2,
            )
        ctx.run_function = run_function
        ctx.preserve_rng_state = preserve_rng_state
        if preserve_rng_state:
            ctx.fwd_rng_state = get_rng_state()
        ctx.inputs = []
        ctx.tensor_indices = []
        tensor_inputs = []
        for i, arg in enumerate(args):
            if isinstance(arg, Tensor):
                tensor_inputs.append(arg)
                ctx.tensor_indices.append(i)
                ctx.inputs.append(None)
            else:
                ctx.inputs.append(arg)
        ctx.save_for_backward(*tensor_inputs)
        with no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx, *grads):
        inputs = list(ctx.inputs)
        for i, t in zip(ctx.tensor_indices, ctx.saved_tensors):
            inputs[i] = t
        detached = [
            x.detach().requires_grad_(x.requires_grad) if isinstance(x, Tensor) else x
            for x in inputs
        ]
        state = get_rng_state()
        if ctx.preserve_rng_state:
            set_rng_state(ctx.fwd_rng_state)
        try:
            with enable_grad():
                outputs = ctx.run_function(*detached)
        finally:
            set_rng_state(state)
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        pairs = [
            (o, g) for o, g in zip(outputs, grads) if isinstance(o, Tensor) and o.requires_grad
        ]
        if not pairs:
            raise RuntimeError(
                "none of output has requires_grad=True, this checkpoint() is not necessary"
            )
        _backward([o for o, _ in pairs], [g for _, g in pairs])
        return (None, None) + tuple(x.grad if isinstance(x, Tensor) else None for x in detached)


def checkpoint(function, *args, use_reentrant=None, preserve_rng_state=True, **kwargs):
    """Run ``function(*args)``, to be recomputed in backward instead of keeping its
    activations."""
    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint: " + _NEED_REENTRANT, stacklevel=2)
        use_reentrant = True
    for unused in ("context_fn", "determinism_check", "debug", "early_stop"):
        kwargs.pop(unused, None)
    if use_reentrant:
        if kwargs:
            raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
        return CheckpointFunction.apply(function, preserve_rng_state, *args)
    return function(*args, **kwargs)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Checkpoint a sequence of modules in ``segments`` chunks (the last one runs normally)."""
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint.checkpoint_sequential: " + _NEED_REENTRANT, stacklevel=2
        )
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))

    def run_function(start, end, functions):
        def forward(input):
            for j in range(start, end + 1):
                input = functions[j](input)
            return input

        return forward

    if hasattr(functions, "children") and hasattr(functions, "_modules"):
        functions = list(functions.children())
    segment_size = len(functions) // segments
    end = -1
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(
            run_function(start, end, functions),
            input,
            use_reentrant=use_reentrant,
            preserve_rng_state=preserve,
        )
    return run_function(end + 1, len(functions) - 1, functions)(input)
