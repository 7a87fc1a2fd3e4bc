"""NumPy-style keyword names that torch's argument parser accepts for every ``torch.*``
function and Tensor method: ``axis`` for ``dim``, ``keepdims`` for ``keepdim``, ``x``/``a``/
``x1`` for ``input`` and ``x2`` for ``other`` (``x.sum(axis=1, keepdims=True)``)."""

from __future__ import annotations

import functools
import inspect
import types

_ALIASES = {"dim": ("axis",), "keepdim": ("keepdims",), "input": ("x", "a", "x1"),
            "other": ("x2",)}


def accept_numpy_names(fn):
    """``fn``, or a wrapper renaming the NumPy keywords to ``fn``'s parameter names."""
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return fn
    if any(p.kind is p.VAR_KEYWORD for p in params.values()):
        return fn
    mapping = {alias: name for name, aliases in _ALIASES.items() if name in params
               for alias in aliases if alias not in params}
    if not mapping:
        return fn

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if kwargs:
            for alias in mapping.keys() & kwargs.keys():
                kwargs[mapping[alias]] = kwargs.pop(alias)
        return fn(*args, **kwargs)

    return wrapper


def install(namespace, names=None) -> None:
    """Wrap the package's functions found in ``namespace`` (a module or the Tensor class)."""
    is_class = isinstance(namespace, type)
    for name in names if names is not None else list(vars(namespace)):
        if name.startswith("_"):
            continue
        obj = vars(namespace).get(name)
        if isinstance(obj, types.FunctionType) and (obj.__module__ or "").startswith("jupyter_autograd"):
            wrapped = accept_numpy_names(obj)
            if wrapped is not obj:
                setattr(namespace, name, wrapped)
        elif is_class and isinstance(obj, staticmethod):
            continue
