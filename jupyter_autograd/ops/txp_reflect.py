"""The complex twin of a HOLOMORPHIC row under ``create_graph=True``, recorded as torch's
formulas are: ``grad * f'(z).conj()`` conjugates the derivative where it meets the gradient
(``atan``: ``grad / (self * self + 1).conj()`` records Div(grad, Conj(Add(Mul(self, self))))),
not the operands at the leaves.

The twin's values are the row's rule run on the conjugated inputs (``rule(g, conj(z))``, see
ops/registry.py). Here the rule runs on the inputs as they are, with the gradient wrapped in a
:class:`Reflected`: a value computed from the gradient holds what the conjugated-operand rule
computes at that point; a value computed without it is the conjugate of that (Schwarz
reflection: the rules are real-coefficient functions, ``h(conj z) = conj(h(z))``). So where an
operator, Tensor method or ``xp`` function meets a reflected value, its other tensor (and
complex scalar) arguments are conjugated: that is the one place a ``ConjBackward0`` is
recorded, over the whole factor, as torch's ``.conj()``. A rule whose torch formula conjugates
inside the derivative marks the place with ``xp.cj`` (nothing on arrays).
"""

from __future__ import annotations

import numpy as np

from ..tensor import Tensor
from . import cplx


class Unreflectable(Exception):
    """A rule read a Reflected value's internals (``g._data``: linalg rules telling arrays
    from tensors): it runs on the conjugated operands instead. Not an AttributeError, so
    ``hasattr`` does not take it for an array."""


class Reflected(Tensor):
    """A gradient-derived value inside a complex twin's rule (see the module docstring): its
    tensor ``_t``; operators, public methods and properties run on ``_t`` with the other
    arguments conjugated and return Reflected values. Private attributes are refused
    (:class:`Unreflectable`), so code reading a Tensor's internals cannot use it unconjugated
    by mistake."""

    def __init__(self, t) -> None:  # not Tensor's constructor: a wrapper of ``t``
        object.__setattr__(self, "_t", t)

    def __getattribute__(self, name):
        if name == "_t" or name.startswith("__"):
            return object.__getattribute__(self, name)
        if name.startswith("_"):
            raise Unreflectable(name)
        v = getattr(object.__getattribute__(self, "_t"), name)
        if callable(v):
            return lambda *a, **k: _reflect(v(*_conj(a), **_conj(k)))
        return _reflect(v)

    def __setattr__(self, name, value):
        raise AttributeError("a complex twin's gradient is read only")


def _method(name):
    # Tensor's operators are attached after this module is imported: looked up when called
    def method(self, *args):
        return _reflect(getattr(Tensor, name)(object.__getattribute__(self, "_t"), *_conj(args)))

    method.__name__ = name
    return method


for _name in (
    "__add__",
    "__radd__",
    "__sub__",
    "__rsub__",
    "__mul__",
    "__rmul__",
    "__truediv__",
    "__rtruediv__",
    "__matmul__",
    "__rmatmul__",
    "__neg__",
    "__pos__",
    "__getitem__",
    "__pow__",
    "__rpow__",
    "__eq__",
    "__ne__",
    "__lt__",
    "__le__",
    "__gt__",
    "__ge__",
    "__and__",
    "__or__",
    "__invert__",
    "__abs__",
):
    setattr(Reflected, _name, _method(_name))
Reflected.__hash__ = None


def _has(v) -> bool:
    if v.__class__ is Reflected:
        return True
    if v.__class__ in (tuple, list):
        return any(_has(e) for e in v)
    if v.__class__ is dict:
        return any(_has(e) for e in v.values())
    return False


def _conj(v):
    """``v`` as the conjugated-operand rule sees it: a Reflected value unwrapped, any other
    complex tensor, array or scalar conjugated (containers element by element)."""
    c = v.__class__
    if c is Reflected:
        return object.__getattribute__(v, "_t")
    if isinstance(v, Tensor):
        return cplx.conj(v) if v._data.dtype.kind == "c" else v
    if c is complex:
        return v.conjugate()
    if c in (tuple, list):
        return c(_conj(e) for e in v)
    if c is dict:
        return {k: _conj(e) for k, e in v.items()}
    if getattr(getattr(v, "dtype", None), "kind", None) == "c":
        return np.conj(v)
    return v


def _reflect(v):
    if v.__class__ is not Reflected and isinstance(v, Tensor):
        return Reflected(v)
    if v.__class__ in (tuple, list):
        return v.__class__(_reflect(e) for e in v)
    return v


def settle(v):
    """A rule's result as the twin returns it: a Reflected value unwrapped; a tensor computed
    without the gradient conjugated."""
    c = v.__class__
    if c is Reflected:
        return object.__getattribute__(v, "_t")
    if isinstance(v, Tensor):
        return cplx.conj(v) if v._data.dtype.kind == "c" else v
    if c in (tuple, list):
        return c(settle(e) for e in v)
    return v


class ReflectedXP:
    """``xp`` for a complex twin's rule: a function given a Reflected value runs with its other
    arguments conjugated (and its tensor results Reflected); one given none runs as it is."""

    def __init__(self, xp) -> None:
        self._xp = xp

    @staticmethod
    def cj(x):
        """Where torch's formula conjugates inside the derivative (``result.conj() + 1``,
        ``self.sin().conj()`` under a negation): the conjugate recorded there, its value the
        conjugated-operand rule's from then on."""
        if x.__class__ is Reflected or not isinstance(x, Tensor) or x._data.dtype.kind != "c":
            return x
        return Reflected(cplx.conj(x))

    def __getattr__(self, name):
        v = getattr(self._xp, name)
        if not callable(v) or isinstance(v, type):
            return v

        def fn(*args, **kw):
            if not (_has(args) or _has(kw)):
                return v(*args, **kw)
            return _reflect(v(*_conj(args), **_conj(kw)))

        fn.__name__ = name
        setattr(self, name, fn)
        return fn


def run_reflected(rxp, rule, g, args):
    """``rule(g, *inputs, out, p)`` of a complex twin on graph tensors (see the module
    docstring): the same values as the rule on conjugated operands, torch's graph."""
    *ins, out, p = args
    return settle(rule(rxp, Reflected(g), *ins, out, p))
