"""Backward graph nodes: one class per torch node name (``AddBackward0``...), plus AccumulateGrad."""

from __future__ import annotations

import itertools
import weakref

import numpy as np

from .. import _slots
from .._errors import ERR_BACKWARD_TWICE

# Creation order of nodes; the engine runs ready nodes highest-first, as torch does.
SEQ = itertools.count()
# AccumulateGrad runs as soon as it is ready (torch gives it the largest sequence number).
ACCUMULATE_PRIORITY = 1 << 62
# torch's Error nodes (NotImplemented) share that largest sequence number: "if it is to be
# executed, it should be executed asap and stop the execution" (functions/basic_ops.h). Ours
# are numbered from here, above every AccumulateGrad.
ERROR_PRIORITY = 1 << 63
UINT64_MAX = (1 << 64) - 1


class RemovableHandle:
    """Returned by ``register_hook``; ``remove()`` unregisters the hook."""

    __slots__ = ("_key", "_ref", "id")
    _ids = itertools.count()

    def __init__(self, hooks_dict: dict) -> None:
        self._ref = weakref.ref(hooks_dict) if hooks_dict is not None else None
        self.id = next(RemovableHandle._ids)

    def remove(self) -> None:
        d = self._ref() if self._ref is not None else None
        if d is not None:
            d.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.remove()


class _HookDict(dict):
    """A dict keyed by handle id (a subclass so that RemovableHandle can weakref it)."""

    __slots__ = ("__weakref__",)


def add_hook(holder_dict: _HookDict, fn) -> RemovableHandle:
    h = RemovableHandle(holder_dict)
    holder_dict[h.id] = fn
    return h


class Node:
    """A function in the backward graph (torch's ``grad_fn`` objects).

    Each registry op gets its own subclass named as torch names it (``MulBackward0``), so
    ``type(y.grad_fn).__name__`` and ``y.grad_fn.name()`` match PyTorch.

    Example:
        >>> import jupyter_autograd as torch
        >>> x = torch.ones(2, requires_grad=True)
        >>> y = x * 2
        >>> y.grad_fn.name()
        'MulBackward0'
        >>> y.grad_fn.next_functions[0][0].name()
        'torch::autograd::AccumulateGrad'
    """

    # Edges: the engine keeps the nodes and output numbers as two flat tuples.
    _fns = ()
    _nrs = ()

    @property
    def next_functions(self) -> tuple:
        """One ``(node, output_nr)`` pair per differentiable input; ``(None, 0)`` where the
        input needs no gradient. Inputs a row marks NO_GRAD (where's condition, indices) are
        not listed, as torch's generated nodes have no edge for them."""
        op = self._op
        if op is not None and not op.variadic and not all(op.differentiable):
            return tuple((f, n) for f, n, d in zip(self._fns, self._nrs, op.differentiable) if d)
        return tuple(zip(self._fns, self._nrs))

    @next_functions.setter
    def next_functions(self, edges) -> None:
        self._fns = tuple(e[0] for e in edges)
        self._nrs = tuple(e[1] for e in edges)

    # Optional state lives in class-level defaults, so recording an op writes only what it has.
    _saved = ()
    _vers = ()
    _frees = False  # set where what it saved is known to need freeing (executor._frees)
    _p = None
    _shapes = ()
    _n_out = 1
    _out_meta = None
    _hooks = None
    _pre = False  # any prehook, tensor hook or retain_grad: one flag for the engine to test
    # a registry node with one output and no hook of any kind: the engine's fast path (the
    # registry's node classes set it from their op; registering a hook clears it)
    _plain = False
    _error = False  # torch's Error node (NotImplemented): run as soon as it is ready
    _prehooks = None
    _tensor_prehooks = None
    _retain = None
    _metadata = None
    _result_fn = None  # weakref to the node a saved result's version error names, if not this
    # Set on subclasses made by the registry.
    _op = None
    _saved_names: tuple = ()

    def name(self) -> str:
        """The node's torch name, e.g. ``'MulBackward0'``."""
        return type(self).__name__

    def __repr__(self) -> str:
        return f"<{type(self).__name__} object at {hex(id(self))}>"

    @property
    def metadata(self) -> dict:
        """A free dict for user data (and the anomaly-mode forward traceback)."""
        if self._metadata is None:
            self._metadata = {}
        return self._metadata

    @property
    def requires_grad(self) -> bool:
        return True

    def _sequence_nr(self) -> int:
        s = self._seq
        return s if s < ACCUMULATE_PRIORITY else UINT64_MAX  # AccumulateGrad and Error nodes

    def _set_sequence_nr(self, n: int) -> None:
        self._seq = n

    @property
    def _input_metadata(self):
        return self._shapes

    def _watched(self, before: bool) -> None:
        """The one writer of the engine's flags ``_plain`` and ``_pre`` once a node exists: a
        hook was added (``before``: one that runs before the node: a prehook, a tensor hook,
        retain_grad), so the engine's fast path no longer applies."""
        self._plain = False
        if before:
            self._pre = True

    def register_hook(self, fn):
        """``fn(grad_inputs, grad_outputs)`` runs after this node; it may return new grad_inputs."""
        d = self._hooks
        if d is None:
            d = self._hooks = _HookDict()
            self._watched(False)
        return add_hook(d, fn)

    def register_prehook(self, fn):
        """``fn(grad_outputs)`` runs before this node; it may return new grad_outputs."""
        d = self._prehooks
        if d is None:
            d = self._prehooks = _HookDict()
            self._watched(True)
        return add_hook(d, fn)

    def _retained(self) -> dict:
        """The retain_grad table (output number -> weakref to the tensor), made on first use."""
        d = self._retain
        if d is None:
            d = self._retain = {}
            self._watched(True)
        return d

    @property
    def _register_hook_dict(self):
        return self._hooks

    def _tensor_hooks_for(self, nr: int) -> _HookDict:
        hooks = self._tensor_prehooks
        if hooks is None:
            hooks = self._tensor_prehooks = {}
            self._watched(True)
        d = hooks.get(nr)
        if d is None:
            d = hooks[nr] = _HookDict()
        return d

    def __dir__(self):
        base = set(object.__dir__(self))
        base.update("_saved_" + n for n in type(self)._saved_names)
        return sorted(base)


def _read_saved(node: Node, key: str):
    """Value of ``_saved_<key>`` as torch shows it (tensors, ints, tuples, None)."""
    op = type(node)._op
    saved = node._saved
    spec = op.saved_spec[key]
    kind, idx = spec
    if kind in ("input", "result"):
        if saved is None:
            raise RuntimeError(ERR_BACKWARD_TWICE)
        if saved.__class__ is not tuple:  # packed by saved-tensor hooks: unpack this one
            v = saved.read(kind, idx)
            if kind == "input" or v is None:
                return v
            from ..tensor import Tensor

            t = Tensor._wrap(v, True)
            t.grad_fn = node
            return t
        ins, out = saved[0], saved[1]
        if kind == "input":
            t = ins[idx]
            return t
        from ..tensor import Tensor

        # torch repacks a saved output: a new Tensor whose grad_fn is this node
        t = Tensor._wrap(out, True)
        t.grad_fn = node
        return t
    if kind == "output":  # one result of a row with several, as a tensor of this node
        if saved is None:
            raise RuntimeError(ERR_BACKWARD_TWICE)
        v = saved.read(kind, idx) if saved.__class__ is not tuple else saved[1][idx]
        from ..tensor import Tensor

        t = Tensor._wrap(v, True)
        t.grad_fn, t._output_nr = node, idx
        return t
    if kind == "param":
        p = node._p
        if saved.__class__ is not tuple and saved is not None and ("param", idx) in saved.slots:
            return saved.read("param", idx)  # with the saved-tensor hooks: unpacked now
        if p is not None and idx in p:
            v = p[idx]
            if saved is None and is_saved_array(v):
                raise RuntimeError(ERR_BACKWARD_TWICE)  # a saved tensor, freed by backward
            return v
        return op.defaults.get(idx)
    if kind == "sizes":
        meta = node._shapes[idx]
        return tuple(meta[0]) if meta is not None else None
    if kind == "const":
        return idx
    raise AttributeError(key)


class _NotImplementedNode(Node):
    """torch's ``NotImplemented`` node (autograd's not-implemented fallback: ``x // 2``): its
    edges are the inputs that require grad only, not one per differentiable input. Like torch's
    Error nodes it has the largest sequence number: the engine runs it (and fails) as soon as it
    is ready, before nodes recorded after it."""

    _error = True
    _plain = False  # the engine's cold path, where it notices an Error node

    @property
    def _seq(self) -> int:
        return self._eseq

    @_seq.setter
    def _seq(self, n: int) -> None:  # recording numbers every node; this one goes to the top
        self._eseq = n if n >= ERROR_PRIORITY else ERROR_PRIORITY + n

    @property
    def next_functions(self) -> tuple:
        return tuple((fn, nr) for fn, nr in zip(self._fns, self._nrs) if fn is not None)

    def name(self) -> str:
        return "torch::autograd::NotImplemented"  # a hand-written C++ node, namespaced


def is_saved_array(v) -> bool:
    """A parameter value that torch keeps as saved tensors: an array, or a list of them
    (index's indices)."""
    if v.__class__ in (list, tuple):
        return any(e is not None and is_saved_array(e) for e in v)
    return hasattr(v, "shape") and not isinstance(v, np.generic)


_CPP_NODES = frozenset({"CopyBackwards"})


def make_node_class(name: str, op, saved_names: tuple) -> type:
    """A Node subclass with torch's name; its module is ``builtins`` as in torch."""
    base = _NotImplementedNode if name == "NotImplemented" else Node
    ns = {"_op": op, "_saved_names": saved_names, "_plain": op.simple and base is Node}
    # saved values, read the torch way (node._saved_self, node._raw_saved_self): properties,
    # not a __getattr__ on Node (that would slow down every attribute read of every node)
    for key in saved_names:
        ns["_saved_" + key] = property(lambda self, _k=key: _read_saved(self, _k))
        ns["_raw_saved_" + key] = property(lambda self, _k=key: _slots.raw_saved(self, _k))
    if name in _CPP_NODES:  # hand-written C++ nodes: name() is namespaced
        ns["name"] = lambda self, _n="torch::autograd::" + name: _n
    cls = type(name, (base,), ns)
    cls.__module__ = "builtins"
    cls.__qualname__ = name
    return cls


class AccumulateGrad(Node):
    """The node that writes a leaf's ``.grad``; ``.variable`` is the leaf."""

    def __init__(self, variable) -> None:
        self.variable = variable  # no inputs: the class defaults (empty edges) stand
        self._seq = ACCUMULATE_PRIORITY + next(SEQ)

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"


AccumulateGrad.__module__ = "builtins"
