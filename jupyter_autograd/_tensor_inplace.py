"""The in-place machinery of Tensor methods: :func:`_inplace` makes ``x.op_(...)`` from
``op(x, ...)`` (torch's checks: leaf, overlap, result-type cast, shape; the result written into self, which takes
the op's node, CopySlices for a view), :func:`_snapshot` / :func:`_commit_inplace` for in-place
writers elsewhere (samplers, ``x[key] = v``), and the write ops ``zero_``, ``fill_``, ``copy_``.

:mod:`._tensor_methods` binds them (and every ``op_`` method) onto Tensor."""

from __future__ import annotations

import numpy as np

from . import _dtype
from ._zerotensor import ERR_COPY as ERR_ZERO_COPY
from ._zerotensor import ZeroArray
from .autograd import views as _views
from .autograd.engine import FLAGS
from .autograd.node import SEQ
from .grad_mode import STATE, no_grad
from .ops import api as F
from .ops import arithmetic as ARITH
from .ops import strided as ST
from .ops.dispatch import apply, apply1
from .tensor import Tensor, _to_device


# ---------------------------------------------------------------- in-place ops
def _any_requires_grad(self, args) -> bool:
    if not STATE.grad_enabled:
        return False
    if self._requires_grad:
        return True
    for a in args:
        if isinstance(a, Tensor) and a._requires_grad:
            return True
    return False


def _any_tangent(self, args) -> bool:
    """Whether a forward-mode tangent flows into an in-place op (it is then recorded)."""
    if self._fw:
        return True
    for a in args:
        if isinstance(a, Tensor) and a._fw:
            return True
    return False


def _snapshot(t: Tensor) -> Tensor:
    """The value of ``t`` before an in-place op, with t's place in the graph (a view's
    regenerated one), for the op's record."""
    fn, nr = _views.edge(t)
    s = Tensor._wrap(t._data.copy(), fn is not None)
    s._grad_fn = fn
    s._output_nr = nr
    s._fw = t._fw  # forward-AD tangent of the old value
    return s


def _commit_inplace(self: Tensor, res: Tensor, snap: Tensor | None = None, seq0: int = -1) -> None:
    """Write an in-place op's result into ``self`` and give self the op's history (for a view:
    the base's history is rebased with CopySlices, as torch's rebase_history). ``snap``: the
    snapshot of self the op was applied to (default: the op's node's input 0); ``seq0``: a
    sequence number taken before the op (its nodes are newer)."""
    rd = res._data
    if rd.shape != self._data.shape:
        raise RuntimeError(
            f"output with shape {list(self._data.shape)} doesn't match the broadcast shape {list(rd.shape)}"
        )
    if rd.size:  # nothing to write (an empty expanded tensor is read-only)
        _views.writable(self)[...] = rd
    self._bump_version()
    _adopt_history(self, res, snap, seq0)


def _adopt_history(self: Tensor, res: Tensor, snap, seq0: int) -> None:
    """``self`` was just overwritten with ``res``'s values: it takes res's place in the graph."""
    fn = res._grad_fn
    if fn is not None:
        if self._base is not None:
            edge = (
                (snap._grad_fn, snap._output_nr) if snap is not None else (fn._fns[0], fn._nrs[0])
            )
            _views.rebase_history(self, res, edge, seq0)
            if res._vc is not None:
                _views.adopt_saved_result(fn, res._vc, self._vc, self._grad_fn)
                _saved_result_is_self(fn, res, self)
        else:
            if res._vc is not None:
                _views.adopt_saved_result(fn, res._vc, self._vc)
                _saved_result_is_self(fn, res, self)
            old = self._grad_fn
            self._grad_fn = fn
            self._output_nr = res._output_nr
            if not self._requires_grad:
                self._requires_grad = True
                if self._views:
                    _views.base_requires_grad(self)  # its live views now require grad too
            if self._retains_grad:
                _views.move_retain(self, old, fn)
    elif self._base is None:
        self._grad_fn = None
        self._output_nr = 0
        self._requires_grad = res._requires_grad
    if res._fw is not None or self._fw is not None:
        self._fw = res._fw


def _saved_result_is_self(fn, res: Tensor, self: Tensor) -> None:
    """The node saved its result's array; after the in-place op torch's saved result is self:
    the node reads self's array (a ``.data`` write into self changes its gradient there too)."""
    saved = fn._saved
    if saved.__class__ is tuple and saved and saved[1] is res._data:
        fn._saved = (saved[0], self._data, saved[2])


def _check_result_cast(res: Tensor, self: Tensor) -> None:
    """torch's in-place ops cast their result to self's dtype unless that loses a category
    (floating into integral, complex into real)."""
    rk, sk = res._data.dtype.kind, self._data.dtype.kind
    if (rk in "fc" and sk in "iub") or (rk == "c" and sk != "c") or (rk in "iu" and sk == "b"):
        raise RuntimeError(
            f"result type {_scalar_type(res)} can't be cast to the desired output type {_scalar_type(self)}"
        )


def _inplace(fn, overlap="error", cpp_names=False, differentiable=True):
    """Make ``x.op_(...)`` from ``op(x, ...)``: same node names as the out-of-place op.
    ``cpp_names``: with number arguments torch's cast refusal names self's dtype as C++ does
    (``long int``: clamp's meta function prints the TypeMeta), not as a ScalarType (``Long``).
    ``differentiable=False``: an op torch declares without a derivative (``logical_and_``): it
    writes into a leaf that requires grad too, and leaves self's history as it was."""

    def self_type(t, args, kwargs):
        if cpp_names and not any(isinstance(a, Tensor) for a in (*args, *kwargs.values())):
            return _dtype.cpp_name(t._data.dtype)
        return _scalar_type(t)

    def method(self, *args, **kwargs):
        if "out" in kwargs:  # in-place methods write into self; torch's have no out=
            raise TypeError(f"{fn.__name__}_() got an unexpected keyword argument 'out'")
        rg = differentiable and _any_requires_grad(self, args)
        _views.check_inplace(self, rg, overlap)
        for a in args:
            if isinstance(a, Tensor):
                _views.check_overlap(self._data, a._data)
        if rg or (FLAGS.forward_ad_levels and _any_tangent(self, args)):
            seq0 = next(SEQ)
            snap = _snapshot(self)
            res = fn(snap, *args, **kwargs)
            _check_inplace_shape(self, res)
            if res._data.dtype != self._data.dtype:
                rk, sk = res._data.dtype.kind, self._data.dtype.kind
                if (rk in "fc" and sk in "iub") or (rk == "c" and sk != "c"):
                    raise RuntimeError(
                        f"result type {_scalar_type(res)} can't be cast to the desired output type {self_type(self, args, kwargs)}"
                    )
                # torch computes in the promoted dtype and writes into self's: the op's node
                # stays (its gradient is cast to each input's dtype)
                res._data = res._data.astype(self._data.dtype)
            _commit_inplace(self, res, snap, seq0)
            return self
        with no_grad():
            res = fn(self.detach(), *args, **kwargs)
        _check_inplace_shape(self, res)  # torch checks the shape before the result type
        if res._data.dtype != self._data.dtype:
            rk, sk = res._data.dtype.kind, self._data.dtype.kind
            # torch's canCast: no complex -> real, floating -> integral, non-bool -> bool
            if (
                (rk in "fc" and sk in "iub")
                or (rk == "c" and sk != "c")
                or (sk == "b" and rk != "b")
            ):
                raise RuntimeError(
                    f"result type {_scalar_type(res)} can't be cast to the desired output type {self_type(self, args, kwargs)}"
                )
            res = Tensor._wrap(res._data.astype(self._data.dtype))
        try:
            if res._data.shape != self._data.shape:  # NumPy would drop leading 1s: (1, 3) -> (3,)
                raise ValueError
            if res._data.size:
                _views.writable(self)[...] = res._data
        except ValueError:
            raise RuntimeError(
                f"output with shape {list(self._data.shape)} doesn't match the broadcast shape {list(res._data.shape)}"
            ) from None
        self._bump_version()
        return self

    return method


def _check_inplace_shape(self, res) -> None:
    if res._data.shape != self._data.shape:  # NumPy would drop leading 1s: (1, 3) -> (3,)
        raise RuntimeError(
            f"output with shape {list(self._data.shape)} doesn't match the broadcast shape {list(res._data.shape)}"
        )


def _scalar_type(t):
    """torch's ScalarType name: Float, Double, ComplexFloat, Long..."""
    return t.dtype._legacy[: -len("Tensor")]


# the C++ type torch names when a Python number does not fit a tensor's dtype
_C_TYPES = {
    "float32": "float",
    "float64": "double",
    "float16": "c10::Half",
    "int64": "int64_t",
    "int32": "int",
    "int16": "int16_t",
    "int8": "int8_t",
    "uint8": "uint8_t",
    "bool": "bool",
}


def _c_type(t):
    return _C_TYPES.get(t.dtype.name, t.dtype.name)


def _write_op(self, op, rg, p=None, other=None, value=None, overlap="error"):
    """An in-place write (fill_, zero_, copy_, uniform_...): recorded as ``op`` when grad is
    tracked, else ``value`` (an array or a scalar) is written straight into the memory.
    ``overlap`` None: the caller made torch's in-place checks itself."""
    if overlap is not None:
        _views.check_inplace(self, rg, overlap)
    if rg or (FLAGS.forward_ad_levels and _any_tangent(self, (other,))):
        seq0 = next(SEQ)
        snap = _snapshot(self)
        res = apply1(op, snap, p) if other is None else apply(op, (snap, other), p)
        _commit_inplace(self, res, snap, seq0)
        return self
    _views.writable(self)[...] = value
    self._bump_version()
    return self


def _zero_(self):
    """Fill with zeros in place (allowed on a leaf's ``.grad``)."""
    return _write_op(
        self, ST.ZERO, STATE.grad_enabled and self._requires_grad, value=0, overlap="allow"
    )


def _fill_(self, value):
    if isinstance(value, Tensor):
        if value._data.ndim:
            raise RuntimeError(
                "fill_ only supports 0-dimension value tensor but got tensor with "
                f"{value._data.ndim} dimensions."
            )
        return _fill_tensor_(self, value)
    return _write_op(
        self,
        ARITH.FILL,
        STATE.grad_enabled and self._requires_grad,
        {"value": value},
        value=value,
        overlap="allow",
    )


def _fill_tensor_(self, value):
    data = value._data
    if data.__class__ is not self._data.__class__:
        value = Tensor._wrap(data.reshape(()).item()) if not data.ndim else value
    return _write_op(
        self, ST.FILL_TENSOR, _any_requires_grad(self, (value,)), other=value, value=value._data
    )


def _copy_(self, src, non_blocking=False):
    """Copy ``src`` into self (broadcasting, converting the dtype; CopyBackwards when either
    requires grad)."""
    if not isinstance(src, Tensor):
        src = F._t(src)
    data = src._data
    if data.__class__ is not self._data.__class__:
        if self._data.__class__ is ZeroArray:  # torch's ZeroTensor
            raise RuntimeError(ERR_ZERO_COPY)
        src = (
            Tensor._wrap(_to_device(src, self.device))
            if not src._requires_grad
            else src.to(self.device)
        )
        data = src._data
    # torch's order: autograd's leaf/view checks, the kernel's (TensorIterator's) memory
    # overlap checks (within self, then between self and src), then the broadcast shape
    rg = _any_requires_grad(self, (src,))
    _views.check_inplace(self, rg)
    _views.check_overlap(self._data, data)
    if data.shape != self._data.shape:
        try:
            shape = np.broadcast_shapes(data.shape, self._data.shape)
        except ValueError:
            from .ops.dispatch import _raise_broadcast

            _raise_broadcast(self._data.shape, data.shape)
        if shape != self._data.shape:
            raise RuntimeError(
                f"output with shape {list(self._data.shape)} doesn't match the broadcast shape "
                f"{list(shape)}"
            )
    return _write_op(self, ST.COPY, rg, other=src, value=data, overlap=None)
