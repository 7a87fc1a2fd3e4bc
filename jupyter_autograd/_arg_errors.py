"""torch's argument-parser wording for a call of the wrong arity to a form with several
signatures (``mm() received an invalid combination of arguments - got (Tensor), but expected
one of: ...``) or to a method that takes no arguments (``Tensor.abs() takes no arguments (1
given)``), from the signatures in the generated table jupyter_autograd/_signatures.py.

Read on the error path of the API binding only (jupyter_autograd/_aliases.py): nothing here
runs for a call that succeeds.
"""

from __future__ import annotations

import dis
import sys

_SIGS: dict = {}
_NO_ARGS: set = set()
_AUTOGRAD_FIRST: set = set()


class _Sig:
    """One signature as torch's parser counts it: its parameters (kw-only after ``*``), the
    required ones, and the entries its error formatter counts (``*`` included)."""

    __slots__ = ("entries", "names", "positional", "required", "text")

    def __init__(self, text: str):
        self.text = text
        body = text[1:-1]
        parts = body.split(", ") if body else []
        self.entries = len(parts)
        self.names, self.required = [], []
        self.positional = 0
        kw_only = False
        for part in parts:
            if part == "*":
                kw_only = True
                continue
            decl, _, default = part.partition(" = ")
            name = decl.rsplit(" ", 1)[-1]
            self.names.append(name)
            if not kw_only:
                self.positional += 1
            if not default:
                self.required.append(name)


def _tables():
    if not _SIGS:
        from . import _signatures as S

        for line in S.SIGNATURES.strip().splitlines():
            form, name, texts = line.split(" ", 2)
            _SIGS[form == "m", name] = [_Sig(text) for text in texts.split(" | ")]
        _NO_ARGS.update(S.NO_ARGUMENTS.split())
        _AUTOGRAD_FIRST.update(S.AUTOGRAD_FIRST.split())
    return _SIGS


def check_views_first(name, values) -> None:
    """Where torch's autograd wrapper for ``name`` reads its Tensor arguments' history before
    the kernel checks them: a view among them whose base was modified in place since it was
    made in no_grad or inference mode is refused first (its ``grad_fn`` raises), as torch."""
    from .grad_mode import STATE
    from .tensor import Tensor

    _tables()
    if not STATE.grad_enabled or name not in _AUTOGRAD_FIRST:
        return
    for v in values:
        for t in v if isinstance(v, (list, tuple)) else (v,):
            if isinstance(t, Tensor) and t._base is not None and t._requires_grad:
                t.grad_fn  # noqa: B018 - regenerates the view's history, or refuses it


_HEAPTYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class made in Python, whose tp_name is its bare name


def tp_name(v) -> str:
    """The type name torch's arg parser prints (CPython's tp_name: ``float``, ``NoneType``,
    ``numpy.ndarray``)."""
    t = type(v)
    if t.__flags__ & _HEAPTYPE or t.__module__ == "builtins":
        return t.__name__
    return f"{t.__module__}.{t.__qualname__}"


def _type_name(v) -> str:
    from ._dtype import dtype

    if isinstance(v, dtype):
        return "torch.dtype"
    return tp_name(v)


def _bound_call(depth: int) -> bool:
    """Whether the call running in the frame ``depth`` levels up got its callable as a bound
    method object (``f = x.abs; f(x)``, ``x.abs(*a)``) rather than through the method
    descriptor (``x.abs(x)``, ``Tensor.abs(x, x)``): CPython names the method ``Tensor.abs`` in
    the first case and ``TensorBase.abs`` in the second. Read from the caller's bytecode: the
    instruction that put the callable on the stack below the call's arguments."""
    try:
        frame = sys._getframe(depth + 1)
        ins = list(dis.get_instructions(frame.f_code))
    except ValueError:
        return True
    # the instruction running (f_lasti may point into its inline caches)
    at = max((i for i, x in enumerate(ins) if x.offset <= frame.f_lasti), default=0)
    call = ins[at]
    if call.opname != "CALL":
        return True  # CALL_FUNCTION_EX: x.abs(*args) loads a bound method (LOAD_ATTR)
    while at and ins[at - 1].opname in ("PRECALL", "KW_NAMES"):  # this call's own
        at -= 1
    need, have = call.arg + 1, 0
    for x in reversed(ins[:at]):
        have += dis.stack_effect(x.opcode, x.arg if x.opcode >= dis.HAVE_ARGUMENT else None)
        if have >= need:
            method_load = x.opname == "LOAD_METHOD" or (
                x.opname == "LOAD_ATTR" and sys.version_info >= (3, 12) and x.arg & 1
            )
            return not method_load
    return True


def no_arguments_error(name, args, kwargs, depth):
    """``Tensor.abs() takes no arguments (2 given)`` (torch's METH_NOARGS methods), or None."""
    _tables()
    if name not in _NO_ARGS or not (args or kwargs):
        return None
    owner = "Tensor" if _bound_call(depth + 1) else "TensorBase"
    if kwargs:
        return TypeError(f"{owner}.{name}() takes no keyword arguments")
    return TypeError(f"{owner}.{name}() takes no arguments ({len(args)} given)")


def invalid_combination(name, method, args, kwargs, error):
    """torch's refusal of a call to a form with several (or one visible) signatures whose arity
    fits none of them, or fits several and ours refused it as a TypeError; None where torch
    words it otherwise (the types marked per signature) or the call's arity is torch's."""
    sigs = _tables().get((method, name))
    if sigs is None:
        return None
    n = len(args) + len(kwargs)
    plausible = [s for s in sigs if len(s.required) <= n <= len(s.names)]
    if len(plausible) > 1 and error.__class__ is not TypeError:
        return None  # a call torch's parser may take (ours refused a value, not the arity)
    if len(plausible) == 1:
        # torch parses with that one signature: its arity words, if the arity is what fails
        s = plausible[0]
        if len(args) > s.positional:
            return _takes(name, len(s.required), s.positional, len(args))
        given = set(s.names[: len(args)]) | set(kwargs)
        missing = [r for r in s.required if r not in given]
        if missing:
            first = s.names.index(missing[0])
            rest = [r for r in s.names[first:] if r in s.required]
            k = len(rest)
            return TypeError(
                f"{name}() missing {k} required positional argument{'s' if k == 1 else ''}: "
                + ", ".join(f'"{r}"' for r in rest)
            )
        return None
    # torch's formatter marks the types for a signature with exactly as many entries as
    # arguments given (words we do not reproduce); it lists several keywords in its own order
    if len(kwargs) > 1 or any(s.entries == n for s in sigs):
        return None
    got = ", ".join([*map(_type_name, args), *(f"{k}={_type_name(v)}" for k, v in kwargs.items())])
    head = f"{name}() received an invalid combination of arguments - got ({got}), but expected "
    if len(sigs) == 1:
        return TypeError(head + sigs[0].text)
    return TypeError(head + "one of:\n" + "".join(f" * {s.text}\n" for s in sigs))


def _takes(name, least, most, n):
    if least != most:
        return TypeError(
            f"{name}() takes from {least} to {most} positional arguments but {n} were given"
        )
    return TypeError(
        f"{name}() takes {most} positional argument{'' if most == 1 else 's'} but {n} "
        f"{'was' if n == 1 else 'were'} given"
    )
