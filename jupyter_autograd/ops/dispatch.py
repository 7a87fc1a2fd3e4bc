"""Applying a registry op to tensors: unwrap, type-promote, run the forward, record the node."""

from __future__ import annotations

import linecache
import os
import types
import warnings  # noqa: F401 - read by the generated entries (_ENTRY)

import numpy as np

from .. import _dtype, _slots
from ..autograd import views as _views
from ..autograd.engine import FLAGS, HOST_ARRAYS, device_mismatch, record, save_plan, xp_of
from ..grad_mode import STATE
from ..tensor import Tensor
from .registry import ELEMENTWISE, Refuse
from .xp import (  # noqa: F401 - DEFAULT_ERRSTATE, FILTER_OK, errstate_now: read by _ENTRY
    DEFAULT_ERRSTATE,
    FILTER_OK,
    NPX,
    QUIET,
    errstate_now,
    filter_holds,
    quiet_enter,
    quiet_exit,
)

_ndarray = np.ndarray
_SCALARS = (int, float, bool, complex)
_new = object.__new__


def _fix_out(out, like_cls, xp):
    """Ufuncs on 0-d arrays return NumPy scalars; keep every result an array of the input's kind."""
    if out.__class__ is like_cls:
        return out
    return xp.asarray(out)


def _host_pair(c1, c2) -> bool:
    """Two host array classes (engine.same_device's test on classes, where two differ)."""
    return c1 in HOST_ARRAYS and c2 in HOST_ARRAYS


def apply(op, inputs: tuple, p=None, record_inputs=None):
    """Run ``op`` on ``inputs`` (Tensors, Python scalars or None) and return the result Tensor(s).
    ``record_inputs``: the tensors the node records instead (the originals of promoted inputs)."""
    arrays = []
    rg = False
    cls = None
    for t in inputs:
        if isinstance(t, Tensor):
            d = t._data
            if cls is None:
                cls = d.__class__
            elif d.__class__ is not cls:
                if not _host_pair(cls, d.__class__):
                    raise device_mismatch([x for x in inputs if isinstance(x, Tensor)])
                cls = _ndarray
            arrays.append(d)
            if t._requires_grad:
                rg = True
        else:
            arrays.append(t)
    xp = (
        NPX
        if cls is _ndarray or cls is None
        else xp_of(
            arrays[0]
            if isinstance(inputs[0], Tensor)
            else next(a for a in arrays if a.__class__ is cls)
        )
    )
    # torch's kernels never warn: ops.xp's FP_FILTER where it holds (filtered(op), inline), else
    # NumPy's error state set to QUIET around the forward
    if op.batch is ELEMENTWISE and filter_holds():
        q = None
    else:
        q = quiet_enter(QUIET)
    try:
        out = op.fwd(xp, *arrays, p)
    except ValueError:
        shapes = [a.shape for a in arrays if hasattr(a, "shape")]
        if len(shapes) < 2:
            raise
        _refuse_complex_first(op, arrays, p)
        _raise_broadcast(shapes[0], shapes[1])
    except TypeError:
        _refuse_complex_inputs(op, arrays, p)
        raise
    finally:
        if q is not None:
            quiet_exit(q)
    if record_inputs is not None:
        inputs = record_inputs
        rg = any(t._requires_grad for t in inputs if isinstance(t, Tensor))
    rg = rg and STATE.grad_enabled
    if op.n_out == 1:
        if out.__class__ is not cls:
            out = _fix_out(out, cls or _ndarray, xp)
        k = out.dtype.kind
        if k == "c" and op.cx is not op:
            if op.cfwd is not None:
                out = op.cfwd(xp, *arrays, p)
                if out.__class__ is not cls:
                    out = _fix_out(out, cls or _ndarray, xp)
            op = complex_row(op, out, p, rg)
        res = _new(Tensor)  # Tensor._wrap's steps: out is an array of the inputs' kind
        res._data = out
        if STATE.inference:
            res._inf = True
        if rg and k in "fc":
            res._requires_grad = True
            record(op, inputs, out, p, (res,))
        else:
            res._requires_grad = False
        if FLAGS.forward_ad_levels:
            _forward_ad(op, inputs, arrays, out, p, (res,))
        return res
    outs = tuple(_fix_out(o, cls or _ndarray, xp) for o in out)
    if outs and outs[0].dtype.kind == "c" and op.cx is not op:
        op = complex_row(op, outs[0], p, rg)
    res = tuple(Tensor._wrap(o, rg) for o in outs)
    if rg:
        node = record(op, inputs, outs, p, res)
        node._n_out = len(outs)
        node._out_meta = tuple((o.shape, o.dtype) for o in outs)
    if op.name in MULTI_VIEW_OPS:
        x = inputs[0]
        for r in res:
            if r._data.base is not None:
                _views.make_view(r, x, _views.MULTI_OUTPUT_NODE)
    if FLAGS.forward_ad_levels:
        _forward_ad(op, inputs, arrays, outs, p, res)
    return res


def apply1(op, x: Tensor, p=None, scalar=None) -> Tensor:
    """:func:`apply` for one tensor input ``x``, followed by a Python float ``scalar`` when
    given (the 0.5 of ``y + 0.5``, an input slot without an edge): the row's entry built by
    :func:`fast_entry` (made on the row's first call)."""
    e = _ENTRIES.get(op)
    if e is None:
        e = _ENTRIES[op] = fast_entry(op)
    return e(x, scalar, p)


_ENTRIES: dict = {}


def fast_entry(op, slow=None, binary: bool = False):
    """The fast entry of row ``op``: :func:`apply`'s steps for one tensor ``x`` and, in the
    row's second input slot, an optional Python float ``scalar``. It is the hot path of
    small-tensor code: ``Tensor.tanh`` (``unary_method``) and ``tensor <op> float``
    (``binary_method``) are such entries, and :func:`apply1` calls the row's plain one.

    ``slow``: for a method's entry, where calls outside the fast case go: a unary method's
    non-floating tensor (integer promotion), a binary method's operand that is neither a
    Python float nor a tensor of the same floating dtype and array kind (promotion to the
    result type; a shape error is raised there too). None: every call is taken.

    The entry is generated from the row's fixed facts (a method or not, a view row or not,
    silenced by the warnings filter or by NumPy's error state, input 0 differentiable): the
    lines of :data:`_ENTRY` whose condition holds (each test a fact would decide costs ~30 ns
    a call here). tests/test_fast_entries.py runs every entry against :func:`apply`."""
    facts = {
        "method": slow is not None,
        "binary": binary,
        "unary": slow is not None and not binary,
        "view": op.name in VIEW_OPS,
        "filt": filtered(op),
        "diff0": bool(op.differentiable) and op.differentiable[0],
    }
    key = tuple(facts.values())
    make = _FACTORIES.get(key)
    if make is None:
        make = _FACTORIES[key] = _factory(facts)
    entry = make(op, slow, op.name, save_plan(op, 1))
    entry.__name__ = entry.__qualname__ = op.name
    entry._row = op  # tests/test_fast_entries.py runs it against apply()
    return entry


# The fast entry's lines; "#[...]" keeps a line where that condition on the row's facts holds.
# plan1: what a node of this row keeps when input 0 has the edge (save_plan(op, 1)).
_ENTRY = """
def make(op, slow, name, plan1):
    def entry(x, scalar=None, p=None):
        d = x._data
        s = scalar  #[binary]
        if (dt := d.dtype).kind != "f":  #[binary]
            return slow(x, scalar)  #[binary]
        if scalar.__class__ is not float:  #[binary]
            # another floating tensor of the same dtype and array kind: nothing to promote  #[binary]
            if scalar.__class__ is not Tensor:  #[binary]
                return slow(x, scalar)  #[binary]
            s = scalar._data  #[binary]
            if s.dtype is not dt or s.__class__ is not d.__class__:  #[binary]
                return slow(x, scalar)  #[binary]
        if scalar is not None or p is not None:  #[unary]
            n = (scalar is not None) + (p is not None)  #[unary]
            raise TypeError(f"TensorBase.{name}() takes no arguments ({n} given)")  #[unary]
        if (dt := d.dtype).kind != "f":  #[unary]
            return slow(x)  #[unary]
        cls = d.__class__
        xp = NPX if cls is _ndarray else xp_of(d)
        # a view row computes no values (nothing for NumPy to warn about); a filtered row is
        # silent by xp.FP_FILTER where filter_holds() said yes and the filters have not changed
        if (errstate_now() is DEFAULT_ERRSTATE and warnings.filters is FILTER_OK[0]) or (  #[filt and not view]
            filter_holds()  #[filt and not view]
        ):  #[filt and not view]
            q = None  #[filt and not view]
        else:  #[filt and not view]
            q = quiet_enter(QUIET)  #[filt and not view]
        q = quiet_enter(QUIET)  #[not filt and not view]
        fwd = op.fwd  # read per call: the profiler swaps it while it records (not a method call:
        try:  # the attribute is the instance's, which LOAD_METHOD does not specialise)
            out = fwd(xp, d, s, p)  #[binary]
            out = fwd(xp, d, p)  #[unary]
            out = fwd(xp, d, p) if scalar is None else fwd(xp, d, scalar, p)  #[not method]
        except (TypeError, ValueError) as e:
            if s is not scalar:  #[binary]
                return slow(x, scalar)  # two tensors: apply's error (broadcasting)  #[binary]
            if e.__class__ is TypeError:
                _refuse_complex_inputs(op, (d,) if scalar is None else (d, scalar), p)
            raise
        finally:  #[not view]
            if q is not None:  #[filt]
                quiet_exit(q)  #[filt]
            quiet_exit(q)  #[not filt and not view]
        if out.__class__ is not cls:
            out = _fix_out(out, cls, xp)
        if out.dtype is not dt:  #[method]
            # not the float input's dtype (no method row gives another): apply's steps  #[method]
            return apply(op, (x,) if scalar is None else (x, scalar), p)  #[method]
        row = op
        k = out.dtype.kind  #[not method]
        plan = plan1  #[not method]
        if k == "c" and op.cx is not op:  #[not method]
            if op.cfwd is not None:  #[not method]
                out = op.cfwd(xp, d, p) if scalar is None else op.cfwd(xp, d, scalar, p)  #[not method]
                if out.__class__ is not cls:  #[not method]
                    out = _fix_out(out, cls, xp)  #[not method]
            row = complex_row(op, out, p, x._requires_grad and STATE.grad_enabled)  #[not method]
            plan = save_plan(row, 1)  #[not method]
        res = _new(Tensor)
        res._data = out
        if s is not scalar:  # two tensors: the general edges  #[binary]
            if (x._requires_grad or scalar._requires_grad) and STATE.grad_enabled:  #[binary]
                res._requires_grad = True  #[binary]
                record(row, (x, scalar), out, p, (res,))  #[binary]
            else:  #[binary]
                res._requires_grad = False  #[binary]
        elif x._requires_grad and STATE.grad_enabled:  #[binary and diff0]
        if x._requires_grad and STATE.grad_enabled:  #[unary and diff0]
        if x._requires_grad and STATE.grad_enabled and (k == "f" or k == "c"):  #[not method and diff0]
            res._requires_grad = True  #[diff0]
            if x._base is None and not x._inf:  #[diff0]
                record(row, (x,), out, p, (res,), plan1)  #[diff0 and unary]
                record(row, (x, scalar), out, p, (res,), plan1)  #[diff0 and binary]
                ins = (x,) if scalar is None else (x, scalar)  #[diff0 and not method]
                record(row, ins, out, p, (res,), plan)  #[diff0 and not method]
            else:  #[diff0]
                record(row, (x,) if scalar is None else (x, scalar), out, p, (res,))  #[diff0]
        else:  #[diff0 or binary]
            res._requires_grad = False  #[diff0 or binary]
        res._requires_grad = False  #[not diff0 and not binary]
        if STATE.inference:
            res._inf = True
        if out.base is not None or out is d:  #[view]
            _views.make_view(res, x)  #[view]
        if FLAGS.forward_ad_levels:
            _forward_ad(
                row,
                (x,) if scalar is None else (x, scalar),
                (d,) if scalar is None else (d, s),  #[binary]
                (d,) if scalar is None else (d, scalar),  #[not binary]
                out,
                p,
                (res,),
            )
        return res

    return entry
"""

_FACTORIES: dict = {}


def _factory(facts):
    """Compile :data:`_ENTRY` for one combination of facts: its kept lines, in this module's
    namespace (linecache holds the text, so tracebacks show the generated lines)."""
    lines = []
    for line in _ENTRY.splitlines():
        code, mark, cond = line.partition("  #[")
        if mark and not eval(cond.rstrip("]"), {"__builtins__": {}}, facts):
            continue
        lines.append(code.rstrip())
    src = "\n".join(lines) + "\n"
    # named inside this package's directory: tracebacks, anomaly mode's source lines and the
    # graph tracers take its frames for library code, as dispatch.py's own
    name = "<fast entry " + " ".join(k for k, v in facts.items() if v) + ">"
    fname = os.path.join(os.path.dirname(os.path.abspath(__file__)), name)
    linecache.cache[fname] = (len(src), None, src.splitlines(True), fname)
    module = compile(src, fname, "exec")
    code = next(c for c in module.co_consts if isinstance(c, types.CodeType))
    return types.FunctionType(code, globals())


def filtered(op) -> bool:
    """Whether row ``op`` relies on ops.xp's FP_FILTER to keep its forward silent where the filter
    holds: the elementwise rows, whose forwards call their ufuncs from this package's frames
    (tests/test_quiet_forwards.py runs each on inf, nan and zeros to keep it so)."""
    return op.batch is ELEMENTWISE


# Ops whose result shares memory with the input (when NumPy returns a view): the result is a
# view, with the input's base and version counter, as torch's views. (_unsafe_view is not one:
# torch uses it on fresh internal results, reshape's copy and matmul's product, and its result
# has no base: an in-place op on it is a plain one.)
VIEW_OPS = frozenset(
    {
        "view",
        "transpose.int",
        "t",
        "permute",
        "squeeze",
        "squeeze.dim",
        "squeeze.dims",
        "squeeze_.dim",
        "_reshape_alias",
        "unsqueeze",
        "expand",
        "select.int",
        "slice.Tensor",
        "alias",
        "diagonal",
    }
)


def _make_view(res: Tensor, x: Tensor) -> None:
    _views.make_view(res, x)


# ops returning several views (torch forbids modifying them in place where grad is tracked)
MULTI_VIEW_OPS = frozenset({"split_with_sizes", "unbind.int"})


def promote2(a, b):
    """Cast two operands (Tensor or Python scalar) to torch's result dtype; returns arrays-ready pair."""
    if isinstance(b, Tensor):
        da, db = a._data.dtype, b._data.dtype
        if da is db or da == db:
            return a, b
        rt = _dtype.result_type([(a._data.ndim, da), (b._data.ndim, db)])
        if da != rt:
            a = _cast(a, rt)
        if db != rt:
            b = _cast(b, rt)
        return a, b
    da = a._data.dtype
    kind = da.kind
    if b.__class__ is float:
        if kind not in "fc":
            a = _cast(a, _dtype.get_default_dtype().np)
        return a, b
    if b.__class__ is int:
        if kind == "b":
            a = _cast(a, np.dtype(np.int64))
        return a, b
    if b.__class__ is bool:
        return a, b
    if isinstance(b, complex):
        if kind != "c":
            a = _cast(a, _dtype.result_type([(1, da)], (b,)))
        return a, b
    raise TypeError(f"unsupported operand type: {type(b).__name__}")


def promote_data(a, b):
    """:func:`promote2` without recording the casts: torch's kernels promote inside the op, so
    its node has edges to the original inputs (DivBackward0 straight to a float32 leaf, not
    through a ToCopyBackward0) and the engine casts each gradient back to its input's dtype."""
    if not STATE.grad_enabled:
        return promote2(a, b)
    STATE.grad_enabled = False
    try:
        return promote2(a, b)
    finally:
        STATE.grad_enabled = True


def _cast(t: Tensor, dt) -> Tensor:
    return t.to(_dtype.from_numpy_dtype(np.dtype(dt)))


def binary_method(op, check=None):
    """``Tensor.__add__`` and friends for a binary row: the row's :func:`fast_entry` for
    ``tensor <op> float`` (the scalar an input slot, nothing to promote); any other operand
    goes through ``check(a, b)`` (a refusal torch makes first, if any) and :func:`apply2`'s
    promotion."""

    def slow(a, b):
        if check is not None:
            check(a, b)
        return _apply_promoted(op, a, b, None)

    method = fast_entry(op, slow, binary=True)
    method.__name__ = method.__qualname__ = f"__{op.name}__"
    return method


def unary_method(op, fallback):
    """``Tensor.tanh`` and friends for an elementwise row: the row's :func:`fast_entry` for
    floating tensors; others (integer promotion) go through ``fallback``."""
    method = fast_entry(op, fallback)
    method.__doc__ = fallback.__doc__
    return method


def apply2(op, a, b, p=None) -> Tensor:
    """Binary op with torch's promotion; ``a`` is a Tensor, ``b`` a Tensor or Python scalar.
    ``tensor <op> float`` takes :func:`apply1` (the scalar an input slot, nothing to promote)."""
    if p is None and b.__class__ is float and a._data.dtype.kind == "f":
        return apply1(op, a, None, b)
    return _apply_promoted(op, a, b, p)


def _apply_promoted(op, a, b, p):
    """:func:`apply2` past its float-scalar entry: torch's promotion to the result type and its
    0-d cpu tensor rule across devices, then :func:`apply` (its steps, not a copy of them) on
    the promoted operands, recording the originals (torch promotes inside the kernel)."""
    if b.__class__ is float and a._data.dtype.kind == "f":
        return apply(op, (a, b), p)
    if b.__class__ is not Tensor and not isinstance(b, Tensor):
        if not isinstance(b, _SCALARS):
            b = as_operand(b, a)
        if not isinstance(b, Tensor):
            a2, b = promote_data(a, b)
            return apply(op, (a2, b), p, None if a2 is a else (a, b))
    a0, b0 = a, b
    if a._data.dtype is not b._data.dtype:
        a, b = promote_data(a, b)
    ad, bd = a._data, b._data
    if bd.__class__ is not ad.__class__ and not _host_pair(ad.__class__, bd.__class__):
        # a 0-d cpu tensor meets a device tensor as a scalar would (torch allows it)
        if not bd.ndim and bd.__class__ is _ndarray:
            return apply2(op, a, b.to(a.device), p)
        if not ad.ndim and ad.__class__ is _ndarray:
            return apply2(op, a.to(b.device), b, p)
        raise device_mismatch([a, b])
    return apply(op, (a, b), p, None if a is a0 and b is b0 else (a0, b0))


def complex_row(op, out, p, recording: bool):
    """The row that records a complex result: the row's conjugate-convention twin (or the
    row itself), or torch's refusal of complex tensors for it (see ops.registry)."""
    cx = op.cx
    if cx.__class__ is Refuse:
        if cx.empty is not None and out.size == 0:
            cx = cx.empty
        if recording or not cx.autograd_only:
            raise cx.error(p, out)
        return op
    return cx


def _refuse_complex_inputs(op, arrays, p) -> None:
    """NumPy has no kernel for a complex input (floor, erf...): torch's refusal, if it has one,
    after its shape check (torch broadcasts before it dispatches on the dtype)."""
    shapes = [a.shape for a in arrays if hasattr(a, "shape")]
    if len(shapes) > 1:
        try:
            np.broadcast_shapes(*shapes)
        except ValueError:
            _raise_broadcast(shapes[0], shapes[1])
    cx = op.cx
    if cx.__class__ is Refuse and not cx.autograd_only:
        for a in arrays:
            if getattr(a, "dtype", None) is not None and a.dtype.kind == "c":
                raise cx.error(p, a) from None


def _refuse_complex_first(op, arrays, p) -> None:
    """Shapes that do not broadcast: a row whose complex refusal torch checks before it
    broadcasts (``Refuse(first=True)``: maximum, fmax...) refuses a complex input first."""
    cx = op.cx
    if cx.__class__ is Refuse and cx.first:
        for a in arrays:
            if getattr(a, "dtype", None) is not None and a.dtype.kind == "c":
                raise cx.error(p, a) from None


def as_operand(b, like: Tensor):
    """Turn a NumPy array / list / numpy scalar operand into a Tensor on ``like``'s device."""
    if isinstance(
        b, (Tensor, int, float, bool, complex)
    ):  # _SCALARS, spelled out: a constant tuple
        return b
    if isinstance(b, np.generic):
        return b.item()
    if b.__class__ is _ndarray:
        if b.ndim and like._data.__class__ is not _ndarray:
            # torch makes a cpu tensor of it: no silent host -> device copy (test plan B11)
            raise device_mismatch([like, Tensor._wrap(b)])
    elif hasattr(b, "shape") and hasattr(b, "dtype"):
        return Tensor._wrap(b)  # a device (CuPy) array: its own device, checked by the op
    return _slots.as_tensor(b, device=like.device)


def _forward_ad(op, inputs, arrays, out, p, results) -> None:
    """Propagate forward-mode tangents through one op (see autograd.forward_ad)."""
    _slots.forward_ad_propagate(op, inputs, arrays, out, p, results)


def _raise_broadcast(s1, s2):
    from .._errors import broadcast_error

    broadcast_error(s1, s2)
