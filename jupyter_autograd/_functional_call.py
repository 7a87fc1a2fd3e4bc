"""``torch.func.functional_call`` and ``torch.func.stack_module_state``: call a module with
other tensors in place of its parameters and buffers (the way per-sample gradients, model
ensembles and NTK computations treat a module as a function of its weights).

For the call, each named tensor is swapped into the module (into ``_parameters`` /
``_buffers`` where the name is one, as a plain attribute otherwise) and the originals are put
back afterwards, even when the call raises. With ``tie_weights=True`` a value given for one
name of a tied parameter (the same tensor under two names) replaces every name of it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence

__all__ = ["functional_call", "stack_module_state"]


def _untie(module, given: dict) -> dict:
    """``given`` with each tied parameter's other names filled in (torch's
    ``_untie_named_tensors_map``)."""
    by_tensor: dict = {}
    named = list(module.named_parameters(remove_duplicate=False)) + list(
        module.named_buffers(remove_duplicate=False)
    )
    for name, t in named:
        by_tensor.setdefault(id(t), set()).add(name)
    tied = {n: names for names in by_tensor.values() if len(names) > 1 for n in names}
    given_tied = {n for n in given if n in tied}
    for n in given_tied:
        names = tied[n]
        if len(names & given_tied) > 1 and len({id(given[k]) for k in names if k in given}) != 1:
            raise ValueError(
                f"functional_call got multiple values for keys {sorted(names)}, "
                "which are tied. Consider using tie_weights=False"
            )
    out = dict(given)
    for n in given_tied:
        for k in tied[n]:
            out[k] = given[n]
    return out


def _owner(module, name: str):
    *path, attr = name.split(".")
    m = module
    for p in path:
        m = getattr(m, p)
    return m, attr


_MISSING = object()


def _swap(module, name: str, value):
    """Put ``value`` at ``name``; returns what was there (``_MISSING`` if nothing)."""
    m, attr = _owner(module, name)
    d = m.__dict__
    for key in ("_parameters", "_buffers"):
        slots = d.get(key)
        if slots is not None and attr in slots:
            old = slots[attr]
            if value is _MISSING:
                del slots[attr]
            else:
                slots[attr] = value
            return old
    old = d.get(attr, _MISSING)
    if value is _MISSING:
        d.pop(attr, None)
    else:
        d[attr] = value
    return old


@contextlib.contextmanager
def _reparametrize(module, tensors: dict, tie_weights: bool, strict: bool):
    if tie_weights:
        tensors = _untie(module, tensors)
    if strict:
        valid = {n for n, _ in module.named_parameters(remove_duplicate=False)}
        valid |= {n for n, _ in module.named_buffers(remove_duplicate=False)}
        unexpected = sorted(set(tensors) - valid)
        missing = sorted(valid - set(tensors))
        msgs = []
        if unexpected:
            msgs.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
        if missing:
            msgs.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
        if msgs:
            raise RuntimeError(
                "Error(s) in reparametrizing for {}:\n\t{}".format(
                    type(module).__name__, "\n\t".join(msgs)
                )
            )
    originals = []
    try:
        for name, value in tensors.items():
            originals.append((name, _swap(module, name, value)))
        yield
    finally:
        for name, old in reversed(originals):
            _swap(module, name, old)


def functional_call(
    module,
    parameter_and_buffer_dicts,
    args=None,
    kwargs=None,
    *,
    tie_weights: bool = True,
    strict: bool = False,
):
    """Call ``module(*args, **kwargs)`` with the given tensors in place of its parameters and
    buffers (one dict, or a sequence of dicts with distinct keys).

    Example:
        >>> import jupyter_autograd as torch
        >>> lin = torch.nn.Linear(2, 1)
        >>> w = {"weight": torch.ones(1, 2), "bias": torch.zeros(1)}
        >>> torch.func.functional_call(lin, w, (torch.tensor([[1., 2.]]),))
        tensor([[3.]])
    """
    if isinstance(parameter_and_buffer_dicts, dict):
        tensors = parameter_and_buffer_dicts
    elif isinstance(parameter_and_buffer_dicts, Sequence):
        if not all(isinstance(d, dict) for d in parameter_and_buffer_dicts):
            raise ValueError(
                "Expected all elements of parameter_and_buffer_dicts to be dictionaries"
            )
        counts: dict = {}
        for d in parameter_and_buffer_dicts:
            for k in d:
                counts[k] = counts.get(k, 0) + 1
        repeated = [k for k, n in counts.items() if n > 1]
        if repeated:
            raise ValueError(
                f"{repeated} appeared in multiple dictionaries; behavior of "
                "functional call is ambiguous"
            )
        tensors = {k: v for d in parameter_and_buffer_dicts for k, v in d.items()}
    else:
        raise ValueError(  # noqa: TRY004 - torch's exception type
            "Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of "
            f"dicts, but got {type(parameter_and_buffer_dicts)}"
        )
    if kwargs is None:
        kwargs = {}
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrize(module, tensors, tie_weights, strict):
        return module(*args, **kwargs)


def _stacked_leaf(tensors, name: str):
    from .ops.api import stack

    every = all(t.requires_grad for t in tensors)
    if not every and any(t.requires_grad for t in tensors):
        raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
    out = stack(tensors)
    return out.detach().requires_grad_() if every else out


def stack_module_state(models) -> tuple:
    """The parameters and buffers of same-class models stacked along a new first dimension
    (``(params, buffers)``), ready for ``vmap(functional_call)`` over an ensemble.

    Example:
        >>> import jupyter_autograd as torch
        >>> ms = [torch.nn.Linear(3, 2) for _ in range(4)]
        >>> params, buffers = torch.func.stack_module_state(ms)
        >>> params["weight"].shape, buffers
        (torch.Size([4, 2, 3]), {})
    """
    if len(models) == 0:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or all(not m.training for m in models)):
        raise RuntimeError(
            "stack_module_state: Expected all models to have the same training/eval mode."
        )
    if not all(type(m) is type(models[0]) for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    all_params = [dict(m.named_parameters()) for m in models]
    params = {k: _stacked_leaf(tuple(p[k] for p in all_params), k) for k in all_params[0]}
    all_buffers = [dict(m.named_buffers()) for m in models]
    buffers = {k: _stacked_leaf(tuple(b[k] for b in all_buffers), k) for k in all_buffers[0]}
    return params, buffers
