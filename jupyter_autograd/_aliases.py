"""NumPy-style keyword names that torch's argument parser accepts for every ``torch.*``
function and Tensor method: ``axis`` for ``dim``, ``keepdims`` for ``keepdim``, ``x``/``a``/
``x1`` for ``input`` and ``x2`` for ``other`` (``x.sum(axis=1, keepdims=True)``); and ``out=``
for the functions that take it without handling it themselves (through ``ops/out.py``)."""

from __future__ import annotations

import dis
import functools
import inspect
import types

from .tensor import Tensor

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


def _ignores_out(fn) -> bool:
    """Whether ``fn`` takes an ``out`` argument that its body never reads."""
    code = fn.__code__
    if "out" not in code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]:
        return False
    return not any(i.argval == "out" and i.opname.startswith("LOAD") for i in dis.get_instructions(code))


def accept_out(fn):
    """``fn``, or a wrapper writing its result into ``out=`` with torch's checks (dtype cast,
    resize warning, overlap, no autograd), a tuple ``out`` taking a tuple result."""
    if not _ignores_out(fn):
        return fn
    from .ops import out as O

    name = fn.__name__

    @functools.wraps(fn)
    def wrapper(*args, out=None, **kwargs):
        if out is None:
            return fn(*args, **kwargs)
        if isinstance(out, Tensor):
            return O.out_call(name, fn, args, kwargs, out)
        if not isinstance(out, (tuple, list)):
            raise TypeError(f"{name}(): argument 'out' must be tuple of Tensors, not {type(out).__name__}")
        for o in out:
            O.check_out(name, o, args)
        res = fn(*args, **kwargs)
        if len(res) != len(out):
            raise RuntimeError(f"{name}(): expected {len(res)} tensors in out, got {len(out)}")
        written = [O.write(o, r, tuple(O._inputs(args))) for o, r in zip(out, res)]
        return type(res)(*written) if hasattr(res, "_fields") else tuple(written)

    return wrapper


def install(namespace, names=None) -> None:
    """Wrap the package's functions found in ``namespace`` (a module or the Tensor class)."""
    is_class = isinstance(namespace, type)
    for name in names if names is not None else list(vars(namespace)):
        if name.startswith("_"):
            continue
        obj = vars(namespace).get(name)
        if isinstance(obj, types.FunctionType) and (obj.__module__ or "").startswith("jupyter_autograd"):
            wrapped = accept_numpy_names(obj if is_class else accept_out(obj))
            if wrapped is not obj:
                setattr(namespace, name, wrapped)
        elif is_class and isinstance(obj, staticmethod):
            continue
