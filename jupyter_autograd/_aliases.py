"""NumPy-style keyword names that torch's argument parser accepts for every ``torch.*``
function and Tensor method: ``axis`` for ``dim``, ``keepdims`` for ``keepdim``, ``x``/``a``/
``x1`` for ``input`` and ``x2`` for ``other`` (``x.sum(axis=1, keepdims=True)``); and ``out=``
for the functions that take it without handling it themselves (through ``ops/out.py``)."""

from __future__ import annotations

import dis
import functools
import inspect
import types

import numpy as np

from ._arg_errors import tp_name
from .tensor import Tensor

_ALIASES = {"dim": ("axis",), "keepdim": ("keepdims",), "input": ("x", "a", "x1"), "other": ("x2",)}


def accept_numpy_names(fn, name=None, method=False):
    """``fn``, or a wrapper renaming the NumPy keywords to ``fn``'s parameter names (for the
    public form ``name``, a Tensor method if ``method``: with torch's arity wording on its error
    path, at no cost to a call that succeeds)."""
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return fn
    if any(p.kind is p.VAR_KEYWORD for p in params.values()):
        return fn
    mapping = {
        alias: name
        for name, aliases in _ALIASES.items()
        if name in params
        for alias in aliases
        if alias not in params
    }
    if not mapping:
        return fn

    if name is not None:

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            if kwargs:
                for alias in mapping.keys() & kwargs.keys():
                    kwargs[mapping[alias]] = kwargs.pop(alias)
            try:
                return fn(*args, **kwargs)
            except Exception as e:
                err = _error_path(name, method, args, kwargs, e)
                if err is e:
                    raise
                raise err from None

        wrapper._torch_arity = True
        return wrapper

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if kwargs:
            for alias in mapping.keys() & kwargs.keys():
                kwargs[mapping[alias]] = kwargs.pop(alias)
        return fn(*args, **kwargs)

    return wrapper


def _error_path(name, method, args, kwargs, e):
    """arity_error as a wrapper's error path sees it (a method's self first in ``args``)."""
    if method:
        return arity_error(name, True, args[1:], kwargs, e, args[0] if args else None, 3)
    return arity_error(name, False, args, kwargs, e, None, 3)


def _ignores_out(fn) -> bool:
    """Whether ``fn`` takes an ``out`` argument that its body never reads."""
    code = fn.__code__
    if "out" not in code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]:
        return False
    return not any(
        i.argval == "out" and i.opname.startswith("LOAD") for i in dis.get_instructions(code)
    )


def accept_out(fn, public=None):
    """``fn``, or a wrapper writing its result into ``out=`` with torch's checks (dtype cast,
    resize warning, overlap, no autograd), a tuple ``out`` taking a tuple result (as the
    function ``torch.<public>``: with torch's arity wording on its error path)."""
    if not _ignores_out(fn):
        return fn
    from .ops import out as O

    name = fn.__name__

    @functools.wraps(fn)
    def wrapper(*args, out=None, **kwargs):
        if out is None:
            if public is None:
                return fn(*args, **kwargs)
            try:
                return fn(*args, **kwargs)
            except Exception as e:
                err = _error_path(public, False, args, kwargs, e)
                if err is e:
                    raise
                raise err from None
        if isinstance(out, Tensor):
            return O.out_call(name, fn, args, kwargs, out)
        if not isinstance(out, (tuple, list)):
            raise TypeError(
                f"{name}(): argument 'out' must be tuple of Tensors, not {type(out).__name__}"
            )
        for o in out:
            O.check_out(name, o, args)
        res = fn(*args, **kwargs)
        if len(res) != len(out):
            raise RuntimeError(f"{name}(): expected {len(res)} tensors in out, got {len(out)}")
        written = [O.write(o, r, tuple(O._inputs(args))) for o, r in zip(out, res)]
        return type(res)(*written) if hasattr(res, "_fields") else tuple(written)

    if public is not None:
        wrapper._torch_arity = True
    return wrapper


def install(namespace, names=None) -> None:
    """Wrap the package's functions found in ``namespace`` (a module or the Tensor class); the
    Tensor methods and the package's own functions (torch.*) get torch's arity wording on the
    error path of the wrappers made."""
    is_class = isinstance(namespace, type)
    arity = is_class or getattr(namespace, "__name__", "") == __package__
    for name in names if names is not None else list(vars(namespace)):
        if name.startswith("_"):
            continue
        obj = vars(namespace).get(name)
        if getattr(obj, "_installed", False) or getattr(obj, "_tensor_params", None):
            # wrapped already: importlib.reload(jupyter_autograd) (IPython's %reload_ext) runs
            # this again, and a second wrapper's arity wording replaced the first one's errors
            continue
        if isinstance(obj, types.FunctionType) and (obj.__module__ or "").startswith(
            "jupyter_autograd"
        ):
            public = name if arity else None
            inner = obj if is_class else accept_out(obj, public)
            wrapped = accept_numpy_names(inner, public, is_class)
            if wrapped is not obj:
                wrapped._installed = True
                setattr(namespace, name, wrapped)
        elif is_class and isinstance(obj, staticmethod):
            continue


_NUMBERS = (int, float, complex, np.number, np.bool_)  # bool is an int


def refuse_non_tensors(name, params, args, kwargs, keyword_positions=False) -> None:
    """torch's arg-parser TypeError for the first non-Tensor given to a Tensor-only parameter
    (``params``: names by position, "" where a non-Tensor is fine, ``p#`` where a Python number
    is too; positions count from 1, a method's after ``self``; a keyword argument is named
    without its position unless ``keyword_positions``)."""
    n = len(args)
    for i, p in enumerate(params):
        if not p:
            continue
        numbers = p[-1] == "#"
        p = p.rstrip("#")
        if i < n:
            v, where = args[i], f" (position {i + 1})"
        elif p in kwargs:
            v, where = kwargs[p], f" (position {i + 1})" if keyword_positions else ""
        else:
            continue
        if not isinstance(v, Tensor) and not (numbers and isinstance(v, _NUMBERS)):
            raise TypeError(f"{name}(): argument '{p}'{where} must be Tensor, not {tp_name(v)}")


def _bind_tensor_params(fn, name, params, method, keyword_positions):
    """``fn`` behind a check of its Tensor-only parameters (one isinstance per such argument
    while they are Tensors, the usual call; torch's refusal otherwise) and torch's wording for
    a call with too few or too many arguments (on the error path only)."""
    k = len(params)
    if not params:

        def check(args, kwargs):
            pass
    elif all(params) and k <= 2:

        def check(args, kwargs):
            if (
                len(args) < k
                or not isinstance(args[0], Tensor)
                or not isinstance(args[k - 1], Tensor)
            ):
                refuse_non_tensors(name, params, args, kwargs, keyword_positions)
    else:

        def check(args, kwargs):
            refuse_non_tensors(name, params, args, kwargs, keyword_positions)

    if method:

        @functools.wraps(fn)
        def bound(self, *args, **kwargs):
            check(args, kwargs)
            try:
                return fn(self, *args, **kwargs)
            except Exception as e:
                err = arity_error(name, True, args, kwargs, e, self)
                if err is e:
                    raise
                raise err from None
    elif params:

        @functools.wraps(fn)
        def bound(*args, **kwargs):
            check(args, kwargs)
            try:
                return fn(*args, **kwargs)
            except Exception as e:
                err = arity_error(name, False, args, kwargs, e)
                if err is e:
                    raise
                raise err from None
    else:

        @functools.wraps(fn)
        def bound(*args, **kwargs):
            try:
                return fn(*args, **kwargs)
            except Exception as e:
                err = arity_error(name, False, args, kwargs, e)
                if err is e:
                    raise
                raise err from None

    return bound


_ARITY = {}


def _arity():
    if not _ARITY:
        from . import _tensor_params as P

        for key, text in ((False, P.ARITY_FUNCTIONS), (True, P.ARITY_METHODS)):
            for entry in text.split():
                n, most, req = entry.split(":")
                _ARITY[key, n.lstrip("~")] = (
                    int(most.lstrip("*")),
                    tuple(req.split(",")) if req else (),
                    n[0] == "~",
                    most[0] == "*",
                )
    return _ARITY


def arity_error(name, method, args, kwargs, error, self=None, depth=2):
    """torch's arg-parser TypeError for a call with too few or too many arguments, where torch's
    form has one signature (jupyter_autograd/_tensor_params.py ARITY_*) and ours raised
    ``error`` (torch checks the arguments before anything else); ``error`` itself where the
    call's arity is torch's. Forms with several signatures and methods without arguments
    (jupyter_autograd/_signatures.py) likewise. Read on the error path only, called by the
    binding's wrapper itself (``depth``: frames from here up to the caller's, which is read). A call whose arity is torch's then
    gets torch's autograd check of its Tensor arguments (``self``: a method's) where torch makes
    it before the kernel's (_arg_errors.check_views_first)."""
    err = _arity_error(name, method, args, kwargs, error, depth + 1)
    if err is error:
        from . import _arg_errors as A

        A.check_views_first(name, (self, *args, *kwargs.values()))
    return err


def _arity_error(name, method, args, kwargs, error, depth):
    entry = _arity().get((method, name))
    if entry is None:
        from . import _arg_errors as A

        err = A.no_arguments_error(name, args, kwargs, depth) if method else None
        return err or A.invalid_combination(name, method, args, kwargs, error) or error
    most, req, python, int_varargs = entry
    n = len(args)
    if n > most and not (int_varargs and all(isinstance(a, int) for a in args)):
        if len(req) != most:
            return TypeError(
                f"{name}() takes from {len(req)} to {most} positional arguments but {n} were given"
            )
        return TypeError(
            f"{name}() takes {most} positional argument{'' if most == 1 else 's'} but {n} "
            f"{'was' if n == 1 else 'were'} given"
        )
    for i in range(n, len(req)):
        if req[i] not in kwargs:
            missing = [m for m in req[i:] if m not in kwargs] if python else req[i:]
            k = len(missing)
            if python:  # Python's own words
                names = [f"'{m}'" for m in missing]
                listed = (
                    names[0]
                    if k == 1
                    else (
                        " and ".join(names)
                        if k == 2
                        else ", ".join(names[:-1]) + ", and " + names[-1]
                    )
                )
                return TypeError(
                    f"{name}() missing {k} required positional argument{'' if k == 1 else 's'}: {listed}"
                )
            # (torch's plural is inverted: 'missing 1 required positional arguments')
            return TypeError(
                f"{name}() missing {k} required positional argument{'s' if k == 1 else ''}: "
                + ", ".join(f'"{m}"' for m in missing)
            )
    return error


def _table(text):
    for entry in text.split():
        name, _, params = entry.partition(":")
        yield name.lstrip("="), tuple(params.split(",")), name[0] == "="


def check_tensor_params(module) -> None:
    """Bind torch's Tensor-only parameters (jupyter_autograd/_tensor_params.py, generated from
    torch's schemas) to the package's public functions and Tensor methods; the generated test
    tests/fuzz/test_fixes_tensor_params.py compares every refusal with torch's."""
    from . import _signatures as S
    from . import _tensor_params as P

    several = {ln.split(" ", 2)[1] for ln in S.SIGNATURES.split("\n") if ln.startswith("f ")}
    arity_only = [(name, (), False) for (method, name) in _arity() if not method]
    arity_only += [(name, (), False) for name in sorted(several)]
    for namespace, text, method in ((module, P.FUNCTIONS, False), (Tensor, P.METHODS, True)):
        ns = vars(namespace)
        for name, params, keyword_positions in [*_table(text), *(arity_only if not method else ())]:
            fn = ns.get(name)
            if params == () and getattr(fn, "_torch_arity", False):
                continue  # its wrapper has the error path already
            if isinstance(fn, types.FunctionType) and not getattr(fn, "_tensor_params", None):
                bound = _bind_tensor_params(fn, name, params, method, keyword_positions)
                bound._tensor_params = params
                bound._torch_arity = True
                setattr(namespace, name, bound)
