"""``Optimizer``: parameter groups, per-parameter state, ``zero_grad`` and state dicts.

Updates run under ``no_grad`` and write into each parameter's array in place (bumping its
version counter), as torch's single-tensor CPU implementations do.
"""

from __future__ import annotations

import copy
import functools
from collections import defaultdict

import numpy as np

from ..grad_mode import enable_grad, no_grad
from ..tensor import Tensor


class _RequiredParameter:
    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()


def _typename(obj) -> str:
    if isinstance(obj, Tensor):
        return "torch." + obj.dtype._legacy
    mod = type(obj).__module__
    return type(obj).__qualname__ if mod == "builtins" else f"{mod}.{type(obj).__qualname__}"


def _use_grad(step):
    """Run ``step`` under no_grad; the closure (if any) re-enables grad itself."""

    @functools.wraps(step)
    def wrapper(self, *args, **kwargs):
        with no_grad():
            return step(self, *args, **kwargs)

    return wrapper


class Optimizer:
    """Base class of the optimizers (``torch.optim.Optimizer``).

    Args:
        params: an iterable of Tensors, or of dicts (parameter groups with their own options).
        defaults: the default options of every group.

    Raises:
        ValueError: ``can't optimize a non-leaf Tensor``; ``optimizer got an empty parameter list``.
        TypeError: when ``params`` is a single Tensor or holds a non-Tensor.
    """

    def __init__(self, params, defaults: dict) -> None:
        self.defaults = defaults
        self.state = defaultdict(dict)
        self.param_groups = []
        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or "
                f"dicts, but got {_typename(params)}"
            )
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for group in param_groups:
            self.add_param_group(group)

    def add_param_group(self, param_group: dict) -> None:
        """Add a group of parameters with its own options (missing ones from ``defaults``)."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group).__name__}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but the "
                "ordering of tensors in sets will change between runs. Please use a list instead."
            )
        else:
            param_group["params"] = list(params)
        for param in param_group["params"]:
            if not isinstance(param, Tensor):
                raise TypeError(
                    "optimizer can only optimize Tensors, but one of the params is "
                    + _typename(param)
                )
            if not (param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(
                    f"parameter group didn't specify a value of required optimization parameter {name}"
                )
            param_group.setdefault(name, default)
        seen = set()
        for group in self.param_groups:
            seen.update(id(p) for p in group["params"])
        if any(id(p) in seen for p in param_group["params"]):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients of every optimized parameter (to None by default, as torch 2.x).

        Example:
            >>> import jupyter_autograd as torch
            >>> w = torch.ones(2, requires_grad=True)
            >>> opt = torch.optim.SGD([w], lr=0.1)
            >>> (w * w).sum().backward()
            >>> opt.zero_grad()
            >>> print(w.grad)
            None
        """
        for group in self.param_groups:
            for p in group["params"]:
                g = p._grad
                if g is None:
                    continue
                if set_to_none:
                    p._grad = None
                else:
                    if g.grad_fn is not None:
                        g.detach_()
                    else:
                        g.requires_grad_(False)
                    g._data[...] = 0

    def _params_with_grad(self, group):
        for p in group["params"]:
            if p._grad is not None:
                yield p, p._grad._data

    def step(self, closure=None):
        raise NotImplementedError

    def _closure(self, closure):
        if closure is None:
            return None
        with enable_grad():
            return closure()

    # ------------------------------------------------------------ state dicts
    def state_dict(self) -> dict:
        """``{"state": {index: {...}}, "param_groups": [{..., "params": [indices]}]}`` as torch."""
        index = {}
        start = 0
        groups = []
        for g in self.param_groups:
            for i, p in enumerate(g["params"], start):
                index.setdefault(id(p), i)
            packed = {k: v for k, v in g.items() if k != "params"}
            packed["params"] = [index[id(p)] for p in g["params"]]
            start += len(packed["params"])
            groups.append(packed)
        state = {}
        for group in self.param_groups:
            for p in group["params"]:
                if p in self.state:
                    state[index[id(p)]] = self.state[p]
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: dict) -> None:
        """Load options and per-parameter state saved by :meth:`state_dict` (tensors are copied)."""
        state_dict = copy.deepcopy(state_dict)
        groups = self.param_groups
        saved = state_dict["param_groups"]
        if len(groups) != len(saved):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved)):
            raise ValueError(
                "loaded state dict contains a parameter group that doesn't match the size of "
                "optimizer's group"
            )
        id_map = {}
        for g, s in zip(groups, saved):
            for old, p in zip(s["params"], g["params"]):
                id_map[old] = p
        self.state = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                p = id_map[k]
                self.state[p] = {
                    key: (
                        Tensor._wrap(val._data.astype(p._data.dtype))
                        if isinstance(val, Tensor) and key != "step" and val._data.dtype.kind == "f"
                        else val
                    )
                    for key, val in v.items()
                }
        for g, s in zip(groups, saved):
            params = g["params"]
            g.clear()
            g.update({k: v for k, v in s.items() if k != "params"})
            g["params"] = params

    def __repr__(self) -> str:
        s = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            s += "\n"
            s += f"Parameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    s += f"    {key}: {group[key]}\n"
        return s + ")"

    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state) -> None:
        self.__dict__.update(state)


def _real_views(*arrays):
    """torch updates a complex parameter through view_as_real: its real and imaginary parts
    are separate coordinates (the second moment of 1+1j is (1, 1), not (1+1j)**2). Real
    arrays are returned as they are."""
    if arrays[0].dtype.kind != "c":
        return arrays
    return tuple(None if a is None else a[..., None].view(a.real.dtype) for a in arrays)


def _zeros_state(p) -> Tensor:
    return Tensor._wrap(np.zeros_like(p._data))


def _step_tensor() -> Tensor:
    # torch keeps ``step`` as a float32 scalar tensor in the state
    return Tensor._wrap(np.zeros((), np.float32))


def _check_lr(lr) -> None:
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")
