"""Module backward hooks as torch's ``torch.utils.hooks.BackwardHook``: the module's tensor
inputs and outputs pass through an identity autograd Function (``BackwardHookFunctionBackward``
in the graph) whose node hooks capture the gradients flowing out of the module's outputs and
into its inputs, then call the user's hooks with both."""

from __future__ import annotations

import warnings

from ...autograd.function import Function
from ...grad_mode import is_grad_enabled
from ...tensor import Tensor
from . import _global_hooks as _gh


class BackwardHookFunction(Function):
    @staticmethod
    def forward(ctx, *args):
        ctx.mark_non_differentiable(*[arg for arg in args if not arg.requires_grad])
        return args

    @staticmethod
    def backward(ctx, *args):
        return args


def _pack_with_none(indices, values, size):
    res = [None] * size
    for idx, val in zip(indices, values):
        res[idx] = val
    return tuple(res)


class BackwardHook:
    """One forward call's hooks: set up on its inputs and outputs, fired by backward."""

    def __init__(self, module, user_hooks, user_pre_hooks) -> None:
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.module = module
        self.grad_outputs = None
        self.n_outputs = -1
        self.output_tensors_index = None
        self.n_inputs = -1
        self.input_tensors_index = None

    def _set_user_hook(self, grad_fn) -> None:
        def hook(grad_input, _):
            if self.grad_outputs is None:
                # the gradient reached the inputs without passing through the outputs (double
                # backward): torch calls nothing
                return None
            res = _pack_with_none(self.input_tensors_index, grad_input, self.n_inputs)
            for user_hook in self.user_hooks:
                out = user_hook(self.module, res, self.grad_outputs)
                if out is None:
                    continue
                if len(out) != len(res):
                    raise RuntimeError(
                        "Backward hook returned an invalid number of grad_input, "
                        f"got {len(out)}, but expected {len(res)}"
                    )
                res = out
            self.grad_outputs = None
            return tuple(res[i] for i in self.input_tensors_index)

        grad_fn.register_hook(hook)

    def _apply_on_tensors(self, fn, args):
        tensors_idx = []
        tensors = []
        requires_grad = False
        for i, arg in enumerate(args):
            if isinstance(arg, Tensor):
                tensors_idx.append(i)
                tensors.append(arg)
                requires_grad |= arg.requires_grad
        if not (requires_grad and is_grad_enabled()):
            return args, None
        new_tensors = BackwardHookFunction.apply(*tensors)
        if len(new_tensors) == 0:
            raise RuntimeError(
                "Cannot set Module backward hook for a Module with no input Tensors."
            )
        grad_fns = [
            t.grad_fn
            for t in new_tensors
            if t.grad_fn is not None and t.grad_fn.name() == "BackwardHookFunctionBackward"
        ]
        fn(grad_fns[0])
        arg_list = list(args)
        for idx, val in zip(tensors_idx, new_tensors):
            arg_list[idx] = val
        out = tuple(arg_list) if type(args) is tuple else type(args)(*arg_list)
        return out, tensors_idx

    def setup_input_hook(self, args):
        res, input_idx = self._apply_on_tensors(self._set_user_hook, args)
        self.n_inputs = len(args)
        self.input_tensors_index = input_idx
        return res

    def _output_hook(self, _, grad_output):
        self.grad_outputs = _pack_with_none(self.output_tensors_index, grad_output, self.n_outputs)
        if self.user_pre_hooks:
            expected_len = len(self.grad_outputs)
            for user_pre_hook in self.user_pre_hooks:
                hook_grad_outputs = user_pre_hook(self.module, self.grad_outputs)
                if hook_grad_outputs is None:
                    continue
                actual_len = len(hook_grad_outputs)
                if actual_len != expected_len:
                    raise RuntimeError(
                        "Backward pre hook returned an invalid number of grad_output, "
                        f"got {actual_len}, but expected {expected_len}"
                    )
                self.grad_outputs = hook_grad_outputs
        local_grad_outputs = self.grad_outputs
        if self.input_tensors_index is None:
            # no input requires grad: the hooks fire here, with every grad_input None
            warnings.warn(
                "Full backward hook is firing when gradients are computed with respect to module "
                "outputs since no inputs require gradients. See "
                "https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
                "#torch.nn.Module.register_full_backward_hook for more details.",
                stacklevel=5,
            )
            grad_inputs = _pack_with_none([], [], self.n_inputs)
            for user_hook in self.user_hooks:
                res = user_hook(self.module, grad_inputs, self.grad_outputs)
                if res is not None and not (
                    isinstance(res, tuple) and all(el is None for el in res)
                ):
                    raise RuntimeError(
                        "Backward hook for Modules where no input requires gradient should "
                        "always return None or None for all gradients."
                    )
            self.grad_outputs = None
        if local_grad_outputs is not None:
            return tuple(local_grad_outputs[i] for i in self.output_tensors_index)
        return None

    def setup_output_hook(self, args):
        is_tuple = isinstance(args, tuple)
        if not is_tuple:
            args = (args,)
        res, output_idx = self._apply_on_tensors(
            lambda grad_fn: grad_fn.register_hook(self._output_hook), args
        )
        self.n_outputs = len(args)
        self.output_tensors_index = output_idx
        return res if is_tuple else res[0]


class WrappedHook:
    """A legacy (non-full) backward hook on the output's node: ``hook(module, gi, go)``."""

    def __init__(self, hook, module) -> None:
        self.hook = hook
        self.module = module

    def __call__(self, *args):
        return self.hook(self.module, *args)


def call_with_hooks(self, args, kwargs):
    """torch's _call_impl with hooks: the global hooks before the module's own; with backward
    hooks, the inputs go through a BackwardHook after the forward pre-hooks, the outputs after
    the forward hooks."""
    full_hooks, legacy_hooks, pre_hooks = [], [], []
    if _gh._global_backward_pre_hooks or self._backward_pre_hooks:
        pre_hooks = [*_gh._global_backward_pre_hooks.values(), *self._backward_pre_hooks.values()]
    if _gh._global_backward_hooks or self._backward_hooks:
        for is_full, hooks in (
            (_gh._global_is_full_backward_hook[0], _gh._global_backward_hooks),
            (self._is_full_backward_hook, self._backward_hooks),
        ):
            if is_full is True:
                full_hooks += hooks.values()
            elif is_full is False:
                legacy_hooks += hooks.values()
    for hid, hook in (*_gh._global_forward_pre_hooks.items(), *self._forward_pre_hooks.items()):
        if hid in self._forward_pre_hooks_with_kwargs:
            r = hook(self, args, kwargs)
            if r is not None:
                if isinstance(r, tuple) and len(r) == 2:
                    args, kwargs = r
                else:
                    raise RuntimeError(
                        "forward pre-hook must return None or a tuple of (new_args, new_kwargs), "
                        f"but got {r}."
                    )
        else:
            r = hook(self, args)
            if r is not None:
                args = r if isinstance(r, tuple) else (r,)
    bw_hook = None
    if full_hooks or pre_hooks:
        bw_hook = BackwardHook(self, full_hooks, pre_hooks)
        args = bw_hook.setup_input_hook(args)
    result = self.forward(*args, **kwargs)
    for hid, hook in (*_gh._global_forward_hooks.items(), *self._forward_hooks.items()):
        if hid in self._forward_hooks_with_kwargs or hid in _gh._global_forward_hooks_with_kwargs:
            r = hook(self, args, kwargs, result)
        else:
            r = hook(self, args, result)
        if r is not None:
            result = r
    if bw_hook is not None:
        if not isinstance(result, (Tensor, tuple)):
            warnings.warn(
                "For backward hooks to be called, module output should be a Tensor or a tuple of "
                f"Tensors but received {type(result)}",
                stacklevel=2,
            )
        result = bw_hook.setup_output_hook(result)
    if legacy_hooks:
        var = result
        while not isinstance(var, Tensor):
            if isinstance(var, dict):
                var = next(v for v in var.values() if isinstance(v, Tensor))
            else:
                var = var[0]
        if var.grad_fn is not None:
            for hook in legacy_hooks:
                var.grad_fn.register_hook(WrappedHook(hook, self))
    return result
