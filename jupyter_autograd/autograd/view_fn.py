"""Views that cannot be expressed as a strided view of their base (torch's ``view_fn``).

``view_as_real``, ``view_as_complex`` (and ``.real``/``.imag``, built on ``view_as_real``)
change the dtype: a flat index into the base cannot say where such a view's elements sit.
torch records, for these views, the chain of view operations from the root base (its
``ViewInfo::view_fn``: the dtype-changing op itself, and an ``as_strided`` for each ordinary
view before or after it) and replays it:

- when the view's history is regenerated after an in-place change of its base, the chain is
  replayed on the base with grad mode on (``ViewAsComplexBackward0``, or ``AsStridedBackward0``
  over ``ViewAsRealBackward0``, instead of one ``AsStridedBackward0``);
- in ``CopySlices`` (an in-place op on such a view), the view's part of the base's gradient is
  the chain replayed on that gradient.

A chain is a tuple of ``(row, params)`` steps: the dtype-changing row, or ``as_strided`` with
the :class:`~.views.Geometry` of an ordinary view in the chain's previous view. ``conj()`` is
in torch's list of such views too (its values are copied here: NumPy cannot alias them).
"""

from __future__ import annotations

import numpy as np

from .. import _slots
from ..grad_mode import STATE
from . import engine


def chain(x, res, row=None):
    """The steps that replay ``res`` (a view of ``x``) from the root base, or None where an
    ordinary strided view is enough (no dtype-changing op in the way)."""
    prev = x._vfn if x._base is not None else None
    if row is not None:
        if x._base is not None and prev is None:
            prev = (_strided(x._base._data, x._data),)  # x: an ordinary view of the base
        return (prev or ()) + ((row, None),)
    if prev is None:
        return None
    return prev + (_strided(x._data, res._data),)


def _strided(parent, arr):
    """An ``as_strided`` step: where ``arr`` sits in ``parent`` (the chain's previous view)."""
    from ..ops.strided import AS_STRIDED
    from .views import Geometry

    geo = Geometry(parent, arr)
    return (
        AS_STRIDED,
        {
            "size": geo.shape,
            "stride": geo.stride,
            "storage_offset": geo.storage_offset,
            "geometry": geo,
        },
    )


def aliases(steps) -> bool:
    """Whether every step's result shares its input's memory (not conj: NumPy copies it)."""
    return all(row.name != "_conj" for row, _ in steps)


def replay(t, steps_plan):
    """The chain applied to the Tensor ``t``, recorded (a node per step)."""
    from ..ops.dispatch import apply1

    for row, p in steps_plan:
        t = apply1(row, t, p)
    return t


def regenerate(v):
    """The view's new history: its chain replayed on its base with grad mode on."""
    prev = STATE.grad_enabled
    STATE.grad_enabled = True
    try:
        r = replay(v._base, v._vfn)
    finally:
        STATE.grad_enabled = prev
    v._grad_fn = r._grad_fn
    v._output_nr = 0
    return r._grad_fn


class _Alias:
    """An array interface (NumPy builds an array over the given memory from it)."""

    def __init__(self, interface: dict, owner) -> None:
        self.__array_interface__ = interface
        self.base = owner


def _ptr(a) -> int:
    return a.__array_interface__["data"][0]


def _like(base_arr, g):
    """A copy of ``g`` laid out in memory as ``base_arr`` (torch: new_empty_strided with the
    base's sizes and strides, then copy_)."""
    if base_arr.flags.c_contiguous:
        return np.array(g, order="C")
    it = base_arr.itemsize
    lo = sum(min(0, (n - 1) * s) for n, s in zip(base_arr.shape, base_arr.strides) if n)
    hi = sum(max(0, (n - 1) * s) for n, s in zip(base_arr.shape, base_arr.strides) if n)
    buf = np.empty((hi - lo) // it + 1, base_arr.dtype)
    interface = {
        "shape": base_arr.shape,
        "typestr": base_arr.dtype.str,
        "version": 3,
        "strides": base_arr.strides,
        "data": (_ptr(buf) - lo, False),
    }
    out = np.asarray(_Alias(interface, buf))
    out[...] = g
    return out


def _at(result, base_arr, view_arr):
    """The array viewing ``result`` where ``view_arr`` views ``base_arr`` (same bytes)."""
    interface = {
        "shape": view_arr.shape,
        "typestr": view_arr.dtype.str,
        "version": 3,
        "strides": view_arr.strides,
        "data": (_ptr(result) + _ptr(view_arr) - _ptr(base_arr), False),
    }
    return np.asarray(_Alias(interface, result))


def copy_slices(node, g, create_graph: bool, run):
    """CopySlices' gradient for a view with a chain: the wrapped node runs on the view's part of
    ``g`` (the chain applied to it); its result replaces that part."""
    base_arr, view_arr = node._arrays
    steps = node._plan
    if not create_graph and g.__class__ is np.ndarray and aliases(steps):
        result = _like(base_arr, g)
        part = _at(result, base_arr, view_arr)
        outs = run(node._fn, [part.copy()], False)
        first = outs[0]
        if first is not None:
            part[...] = first
            first = result
        return [first] + list(outs[1:])
    # with a graph: result = g + V^T (fn(V g) - V g), V the chain (a selection, so V^T V g is
    # the view's part of g)
    TXP = _slots.TXP
    gt = g if isinstance(g, engine.Tensor) else engine.Tensor._wrap(g)
    gt = gt.contiguous()  # view_as_complex needs a last dimension of stride 1
    part = replay(gt, steps)
    outs = run(node._fn, [part if create_graph else part._data], create_graph)
    first = outs[0]
    if first is not None:
        ft = first if isinstance(first, engine.Tensor) else engine.Tensor._wrap(first)
        d = ft - part
        for row, p in reversed(steps):
            d = row.vjp[0](TXP, d, None, None, p)
        first = gt + d if create_graph else (gt + d)._data
    return [first] + list(outs[1:])
