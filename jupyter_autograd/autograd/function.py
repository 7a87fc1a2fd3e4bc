"""Custom differentiable functions (torch.autograd.Function).

A subclass defines static ``forward`` and ``backward`` methods; ``MyFn.apply(...)`` runs the
forward without recording and attaches one ``MyFnBackward`` node to the outputs. That node is
also the ``ctx`` handed to ``forward``/``backward`` (as in torch, where ``ctx is y.grad_fn``);
the engine runs it through its ``_apply`` method because its class has ``_op = None``.
"""

from __future__ import annotations

import functools
import traceback

import numpy as np

from .. import _errors as E
from ..grad_mode import STATE, no_grad, set_grad_enabled
from . import graph as _graph
from . import views as _views
from .engine import FLAGS, NONE_EDGE, _new_vc, _sum_to, xp_of
from .node import SEQ, Node

__all__ = ["BackwardCFunction", "Function", "FunctionCtx", "InplaceFunction", "once_differentiable"]


class FunctionCtx:
    """The ``ctx`` object: what ``forward`` stores for ``backward``.

    Example:
        >>> import jupyter_autograd as torch
        >>> class Square(torch.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, x):
        ...         ctx.save_for_backward(x)
        ...         return x * x
        ...     @staticmethod
        ...     def backward(ctx, g):
        ...         (x,) = ctx.saved_tensors
        ...         return 2 * x * g
        >>> x = torch.tensor([3.0], requires_grad=True)
        >>> Square.apply(x).backward()
        >>> x.grad
        tensor([6.])
    """

    def save_for_backward(self, *tensors) -> None:
        """Keep tensors (inputs, outputs or None) for ``backward``; read them via ``saved_tensors``."""
        for t in tensors:
            if t is not None and not _is_tensor(t):
                raise TypeError(
                    "save_for_backward can only save variables, but argument "
                    f"{tensors.index(t)} is of type {type(t).__name__}"
                )
        self.to_save = tensors

    def save_for_forward(self, *tensors) -> None:
        """Keep tensors for the ``jvp`` static method (forward mode)."""
        self.saved_for_forward = tensors

    def mark_dirty(self, *args) -> None:
        """Declare inputs that ``forward`` modified in place (they are returned as outputs)."""
        self.dirty_tensors = args

    def mark_shared_storage(self, *pairs) -> None:
        raise RuntimeError(
            "mark_shared_storage is deprecated. Tensors with shared storages are "
            "automatically tracked. Note that calls to `set_()` are not tracked"
        )

    def mark_non_differentiable(self, *args) -> None:
        """Declare outputs that have no gradient (indices, masks); their grads are zeros."""
        self.non_differentiable = args

    def set_materialize_grads(self, value: bool) -> None:
        """Whether ``backward`` gets zeros (True, the default) or None for unused outputs."""
        self.materialize_grads = value

    @property
    def saved_tensors(self) -> tuple:
        """The tensors given to ``save_for_backward`` (raises after the graph was freed)."""
        return self._unpack_saved()

    @property
    def saved_variables(self) -> tuple:
        return self._unpack_saved()


def _is_tensor(x) -> bool:
    from ..tensor import Tensor

    return isinstance(x, Tensor)


class BackwardCFunction(FunctionCtx, Node):
    """Base of the ``<ClassName>Backward`` node classes made for each Function subclass."""

    _op = None
    _forward_cls = None
    materialize_grads = True
    to_save = ()
    dirty_tensors = ()
    non_differentiable = ()

    def __repr__(self) -> str:
        cls = type(self)
        return f"<{cls.__module__}.{cls.__name__} object at {hex(id(self))}>"

    def name(self) -> str:
        return type(self).__name__

    # ------------------------------------------------------------------ saved tensors
    def _unpack_saved(self) -> tuple:
        from ..tensor import Tensor

        saved = self._saved
        if saved is None:
            raise RuntimeError(E.ERR_BACKWARD_TWICE)
        if saved == () and self.to_save:
            # still inside forward (nothing packed yet): torch returns what was given
            return tuple(self.to_save)
        res = []
        for kind, a, nr, vc, ver in saved:
            if kind == "none":
                res.append(None)
                continue
            if kind == "hook":
                res.append(_graph.unpack_function_saved(self, a, nr))
                continue
            if vc[0] != ver:
                from .engine import _modified_error

                if kind == "out":
                    t = Tensor._wrap(a)
                    fn = self
                else:
                    t, fn, nr = a, a.grad_fn, a._output_nr
                raise _modified_error(t, fn, nr, vc[0], ver)
            if kind == "out":
                # outputs are kept as data plus their version counter (no node -> output ->
                # node cycle) and rebuilt here, as torch's SavedVariable(is_output=True)
                t = Tensor._wrap(a, True)
                t.grad_fn = self
                t._output_nr = nr
                t._vc = vc
                res.append(t)
            else:
                res.append(a)
        return tuple(res)

    # ------------------------------------------------------------------ backward
    def _apply(self, grads, create_graph: bool):
        """Run the user's ``backward`` and check what it returns (called by the engine)."""
        from ..tensor import Tensor

        cls = self._forward_cls
        gts = []
        for i, g in enumerate(grads):
            meta = self._out_meta[i]
            if meta is None:
                gts.append(None)
                continue
            if g is None:
                if self.materialize_grads:
                    g = np.zeros(meta[0], meta[1])
                else:
                    gts.append(None)
                    continue
            gts.append(g if isinstance(g, Tensor) else Tensor._wrap(g))
        backward = cls.backward
        if backward is Function.backward and cls.vjp is not Function.vjp:
            backward = cls.vjp
        with set_grad_enabled(create_graph):
            res = backward(self, *gts)
        if not isinstance(res, tuple):
            res = (res,)
        n_args = len(self._arg_tensor)
        name = self.name()
        if len(res) != n_args:
            if len(res) > n_args and all(r is None for r in res[n_args:]):
                res = res[:n_args]
            else:
                raise RuntimeError(
                    f"function {name} returned an incorrect number of gradients (expected "
                    f"{n_args}, got {len(res)})"
                )
        out = []
        k = 0
        for i, (is_t, g) in enumerate(zip(self._arg_tensor, res)):
            if not is_t:
                if g is not None:
                    raise RuntimeError(
                        f"function {name} returned a gradient different than None at position "
                        f"{i + 1}, but the corresponding forward input was not a Variable"
                    )
                continue
            edge = self.next_functions[k]
            meta = self._shapes[k]
            k += 1
            if g is None:
                out.append(None)
                continue
            if edge[0] is None:
                # torch's validate_outputs skips an input without an edge: its gradient is
                # neither checked nor sent anywhere, but the node's hooks see it as returned
                out.append((g if create_graph else g._data) if isinstance(g, Tensor) else None)
                continue
            if not isinstance(g, Tensor):
                raise TypeError(
                    f"{name}.backward must return Tensors or None, but got {type(g).__name__} "
                    f"at index {i}"
                )
            out.append(_validate_grad(name, i, g, meta, create_graph))
        return out


def _on_host(cls) -> bool:
    """NumPy arrays and NumPy scalars (a 0-d value may be held as either) are host memory."""
    return cls is np.ndarray or issubclass(cls, np.generic)


def _validate_grad(name, i, g, meta, create_graph):
    """torch's validate_outputs: shape (sum to a broadcast-compatible shape), device, dtype."""
    shape, dt, cls = meta
    d = g._data
    if d.__class__ is not cls and not (_on_host(d.__class__) and _on_host(cls)):
        want = "cpu" if cls is np.ndarray else "cuda:0"
        raise RuntimeError(
            f"Function {name} returned an invalid gradient at index {i} - expected device "
            f"{want} but got {g.device}"
        )
    if tuple(d.shape) != tuple(shape):
        if not _expandable(shape, d.shape):
            raise RuntimeError(
                f"Function {name} returned an invalid gradient at index {i} - got "
                f"{E.list_str(d.shape)} but expected shape compatible with {E.list_str(shape)}"
            )
        if create_graph:
            from ..ops.txp import TXP

            g = _sum_to(TXP, g, tuple(shape))
        else:
            d = _sum_to(xp_of(d), d, tuple(shape))
    if d.dtype.kind == "c" and np.dtype(dt).kind != "c":
        # torch's engine refuses a complex gradient for a real input (built-in formulas take
        # its real part themselves; a custom backward must too)
        raise RuntimeError(
            "Expected isFloatingType(grad.scalar_type()) || (input_is_complex == grad_is_complex) "
            "to be true, but got false.  (Could this error message be improved?  If so, please "
            "report an enhancement request to PyTorch.)"
        )
    if create_graph:
        return g if g._data.dtype == dt else g.to(_torch_dtype(dt))
    return d if d.dtype == dt else d.astype(dt)


def _torch_dtype(dt):
    from .. import _dtype

    return _dtype.from_numpy_dtype(np.dtype(dt))


def _expandable(shape, gshape) -> bool:
    """Whether ``shape`` broadcasts to ``gshape`` (the gradient can be summed back)."""
    if len(shape) > len(gshape):
        return False
    for s, gs in zip(reversed(shape), reversed(gshape)):
        if s != gs and s != 1:
            return False
    return True


class FunctionMeta(type):
    """Gives each Function subclass its node class, named ``<ClassName>Backward``."""

    def __init__(cls, name, bases, attrs):
        backward_fn = type(name + "Backward", (BackwardCFunction,), {"_forward_cls": cls})
        backward_fn.__module__ = "torch.autograd.function"
        backward_fn.__qualname__ = name + "Backward"
        cls._backward_cls = backward_fn
        super().__init__(name, bases, attrs)


class Function(metaclass=FunctionMeta):
    """Base class for differentiable functions with a hand-written backward (torch's API).

    Write ``forward(ctx, *args)`` (or ``forward(*args)`` plus ``setup_context(ctx, inputs,
    output)``) and ``backward(ctx, *grad_outputs)`` as static methods, then call
    ``MyFunction.apply(*args)``. The node is named ``MyFunctionBackward``.

    Example:
        >>> import jupyter_autograd as torch
        >>> class Exp(torch.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, i):
        ...         result = i.exp()
        ...         ctx.save_for_backward(result)
        ...         return result
        ...     @staticmethod
        ...     def backward(ctx, grad_output):
        ...         (result,) = ctx.saved_tensors
        ...         return grad_output * result
        >>> x = torch.tensor([0.0, 1.0], requires_grad=True)
        >>> y = Exp.apply(x)
        >>> y.grad_fn.name()
        'ExpBackward'
        >>> y.sum().backward()
        >>> x.grad
        tensor([1.0000, 2.7183])
    """

    # Function subclasses are used through apply(); torch warns on instantiation, and so do we
    def __init__(self, *args, **kwargs) -> None:
        import warnings

        warnings.warn(
            f"{self.__class__} should not be instantiated. Methods on autograd functions are all "
            "static, so you should invoke them on the class itself. Instantiating an autograd "
            "function will raise an error in a future version of PyTorch.",
            DeprecationWarning,
            stacklevel=2,
        )

    generate_vmap_rule = False

    @staticmethod
    def forward(*args, **kwargs):
        raise NotImplementedError(
            "You must implement the forward function for custom autograd.Function."
        )

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom "
            "autograd.Function to use it with backward mode AD."
        )

    vjp = backward

    @staticmethod
    def jvp(ctx, *grad_inputs):
        raise NotImplementedError(
            "You must implement the jvp function for custom autograd.Function to use it with "
            "forward mode AD."
        )

    @classmethod
    def apply(cls, *args, **kwargs):
        """Run ``forward`` and record one ``<ClassName>Backward`` node for the outputs."""
        return _apply_function(cls, args, kwargs)


def _uses_setup_context(cls) -> bool:
    return getattr(cls.setup_context, "__func__", cls.setup_context) is not getattr(
        Function.setup_context, "__func__", Function.setup_context
    )


def _apply_function(cls, args, kwargs):
    from ..tensor import Tensor

    node_cls = cls._backward_cls
    ctx = node_cls.__new__(node_cls)
    arg_tensor = tuple(isinstance(a, Tensor) for a in args)
    for a in args:  # a custom Function has no batch rule: vmap runs it per element
        if a.__class__ is not Tensor and getattr(a, "_bt", False):
            a._vmap_refuse()
    needs = tuple(isinstance(a, Tensor) and a._requires_grad for a in args)
    ctx.needs_input_grad = needs
    ctx._arg_tensor = arg_tensor
    is_diff = STATE.grad_enabled and any(needs)
    if is_diff:
        # the inputs' edges as they are before forward (which may modify them in place)
        nf = [
            _views.edge(a) if a._requires_grad else NONE_EDGE for a in args if isinstance(a, Tensor)
        ]

    if _uses_setup_context(cls):
        with no_grad():
            output = cls.forward(*args, **kwargs)
        cls.setup_context(ctx, args, output)
    else:
        with no_grad():
            output = cls.forward(ctx, *args, **kwargs)

    single = not isinstance(output, tuple)
    outs = (output,) if single else output
    dirty = {id(t) for t in ctx.dirty_tensors}
    nondiff = {id(t) for t in ctx.non_differentiable}
    inputs_by_id = {id(a): a for a in args if isinstance(a, Tensor)}

    new_outs = []
    for o in outs:
        if isinstance(o, Tensor) and id(o) in inputs_by_id and id(o) not in dirty:
            # an input returned unchanged becomes a view of it, made without recording; marked
            # non-differentiable, the view is too, or (the input requiring grad) torch's
            # detached alias
            if id(o) in nondiff and o._requires_grad:
                v = o.detach()
            else:
                v = Tensor._wrap(o._data[...])
                with no_grad():
                    _views.make_view(v, o)
            if id(o) in nondiff:
                nondiff.add(id(v))
            o = v
        new_outs.append(o)
    for o in new_outs:
        # torch: a view returned by a custom Function may not be modified in place (its own
        # backward would be overridden), nor used after its base was
        if isinstance(o, Tensor) and o._base is not None and id(o) not in dirty:
            o._cm = _views.IN_CUSTOM_FUNCTION

    for t in ctx.dirty_tensors:  # torch's _mark_dirty bumps them before any check
        if isinstance(t, Tensor):
            _bump(t)
    if not is_diff:
        for k, o in enumerate(new_outs):
            # outputs that require grad come back as detached aliases (torch: inputs are
            # detached out of place, the Function's own results in place)
            if isinstance(o, Tensor) and o._requires_grad:
                if id(o) in inputs_by_id:
                    new_outs[k] = o.detach()
                elif o._base is None:
                    o.detach_()
        ctx._saved = ()
        res = tuple(new_outs)
        _forward_mode(cls, ctx, args, res)
        return res[0] if single else res

    shapes = []
    for a in args:
        if isinstance(a, Tensor):
            shapes.append((a._data.shape, a._data.dtype, a._data.__class__))
    ctx.next_functions = tuple(nf)
    ctx._shapes = tuple(shapes)
    ctx._n_out = len(new_outs)
    ctx._seq = next(SEQ)
    metas = []
    for i, o in enumerate(new_outs):
        if not isinstance(o, Tensor):
            metas.append(None)
            continue
        metas.append((o._data.shape, o._data.dtype))
        is_dirty = id(o) in dirty
        if id(o) in nondiff or o._data.dtype.kind not in "fc":
            o._requires_grad = False
            continue
        if is_dirty:
            # torch's _wrap_outputs for a tensor modified in place, in its order: its checks,
            # then it drops the tensor's .grad (its value belongs to the history the tensor no
            # longer has; a built-in in-place op keeps it), then rebase_history's checks
            if o._grad_fn is None and o._requires_grad:
                raise RuntimeError(
                    "a leaf Variable that requires grad has been used in an in-place operation."
                )
            if o._base is not None and len(new_outs) > 1:
                raise RuntimeError(E.ERR_DIRTY_VIEW_MULTI_OUTPUT)
            o._grad = None
            if o._base is not None:
                _views.handle_view_on_rebase(o, False)
                if o._base._requires_grad and o._base._grad_fn is None:
                    raise RuntimeError(E.ERR_VIEW_LEAF_INPLACE)
        if is_dirty and o._base is not None:
            _views.rebase(o, ctx)  # the input's base now goes through this node (CopySlices)
            continue
        o._requires_grad = True
        o._rg_via_base = False
        old = o._grad_fn
        o._grad_fn = ctx
        o._output_nr = i
        if is_dirty and o._retains_grad:  # retain_grad follows it to this node (fuzz 716922)
            _views.move_retain(o, old, ctx)
        if o._base is not None:
            o._view_version = o._vc[0]
    ctx._out_meta = tuple(metas)

    # pack the saved tensors: outputs as data (no reference cycle), everything else as the
    # tensor itself; each with its version counter and the version it had when saved
    packed = []
    for t in ctx.to_save:
        if t is None:
            packed.append(("none", None, 0, None, 0))
            continue
        vc = t._vc
        if vc is None:
            vc = t._vc = _new_vc()
        if t.grad_fn is ctx:
            packed.append(("out", t._data, t._output_nr, vc, vc[0]))
        else:
            packed.append(("in", t, 0, vc, vc[0]))
    if _graph.current_hooks() is not None:  # saved_tensors_hooks (autograd/graph.py)
        packed = _graph.pack_function_saved(ctx.to_save, packed)
    ctx._saved = tuple(packed) if packed else ()
    # torch clears these once forward is done: they may hold the outputs (a reference cycle)
    ctx.to_save = ctx.dirty_tensors = ctx.non_differentiable = ()
    if FLAGS.anomaly:
        ctx.metadata["traceback_"] = traceback.format_stack()[:-2]  # drop apply frames
    res = tuple(new_outs)
    _forward_mode(cls, ctx, args, res)
    return res[0] if single else res


def _bump(t) -> None:
    if t._vc is None:
        t._vc = _new_vc()
    t._vc[0] += 1


def _forward_mode(cls, ctx, args, outs) -> None:
    """Forward-mode AD through a custom Function: its ``jvp`` static method gives the tangents."""
    if not FLAGS.forward_ad_levels:
        return
    from ..tensor import Tensor

    level = FLAGS.forward_ad_levels[-1]
    from .._batching import BATCHED, Unbatchable

    if level in BATCHED:  # a user's jvp takes one tangent per input, not a batch
        raise Unbatchable
    tans = []
    any_t = False
    for a in args:
        if isinstance(a, Tensor):
            fw = a._fw
            t = fw.get(level) if fw else None
            any_t = any_t or t is not None
            tans.append(t)
        else:
            tans.append(None)
    if not any_t:
        return
    with no_grad():
        r = cls.jvp(ctx, *tans)  # NotImplementedError (torch's text) when the class has none
    r = r if isinstance(r, tuple) else (r,)
    for o, t in zip(outs, r):
        if isinstance(o, Tensor) and t is not None:
            o._fw = {level: t if isinstance(t, Tensor) else Tensor._wrap(np.asarray(t))}


class InplaceFunction(Function):
    """A Function that may work in place (torch.autograd.function.InplaceFunction)."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace


def once_differentiable(fn):
    """Decorate a ``backward`` that is not itself differentiable: it runs without recording.

    Example:
        >>> import jupyter_autograd as torch
        >>> from jupyter_autograd.autograd.function import once_differentiable
        >>> class Cube(torch.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, x):
        ...         ctx.save_for_backward(x)
        ...         return x ** 3
        ...     @staticmethod
        ...     @once_differentiable
        ...     def backward(ctx, g):
        ...         (x,) = ctx.saved_tensors
        ...         return 3 * x ** 2 * g
        >>> x = torch.tensor([2.0], requires_grad=True)
        >>> Cube.apply(x).backward()
        >>> x.grad
        tensor([12.])
    """

    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with no_grad():
            outputs = fn(ctx, *args)
        # torch makes these outputs error on a second backward; here they simply carry no graph
        return outputs

    return wrapper
