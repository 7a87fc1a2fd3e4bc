"""``torch.autograd.graph``: hooks for saved tensors (``saved_tensors_hooks``, ``save_on_cpu``,
``disable_saved_tensors_hooks``, ``grad_fn._raw_saved_<name>.register_hooks``).

What is packed, and when (torch's "Hooks for saved tensors"): while a ``saved_tensors_hooks``
block is active in this thread, every tensor an op saves for backward is passed to
``pack_hook`` right after the op is recorded, and the graph keeps only what ``pack_hook``
returned. ``unpack_hook`` turns it back into a tensor each time the saved value is needed: when
the node runs in backward, or when ``grad_fn._saved_<name>`` is read. An op saves what its
backward formulas use for the inputs that require grad (``a * b`` with only ``a`` requiring
grad saves ``b`` alone), in torch's order of the ``_saved_*`` attributes. Custom Functions pack
what ``ctx.save_for_backward`` was given when ``forward`` returns, and unpack on
``ctx.saved_tensors``. Only the innermost pair of hooks applies. The version counter of a
hooked value is not checked (torch cannot follow a tensor through the hooks either).

Registry nodes are packed by a record callback (``FLAGS.record_tracers``), installed only while
some block is active: recording costs nothing extra otherwise. The packed values replace the
node's ``_saved`` triple with a :class:`_PackedSaved`, which unpacks on each read.

Example:
    >>> import jupyter_autograd as torch
    >>> a = torch.ones(2, requires_grad=True)
    >>> def pack(t):
    ...     print("Packing", t)
    ...     return t
    >>> def unpack(t):
    ...     print("Unpacking", t)
    ...     return t
    >>> with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    ...     y = a.pow(2)
    Packing tensor([1., 1.], requires_grad=True)
    >>> y.sum().backward()
    Unpacking tensor([1., 1.], requires_grad=True)
"""

from __future__ import annotations

import contextlib
import threading
import weakref

from .. import _slots
from .engine import FLAGS, _new_vc
from .node import Node, is_saved_array
from .saved_slots import op_output_named
from .saved_slots import saved_slots as _saved_slots

__all__ = [
    "Node",
    "disable_saved_tensors_hooks",
    "increment_version",
    "save_on_cpu",
    "saved_tensors_hooks",
]

_TLS = threading.local()
_ACTIVE = [0]  # blocks active in any thread: the record callback is installed while > 0
_LOCK = threading.Lock()

ERR_HOOKS_SET = (
    "Calling register_hooks on a saved tensor whose hooks have already been set. "
    "Hint: only one pair of hooks is allowed at a time."
)
ERR_FREED = (
    "Calling register_hooks on a saved tensor after it has been freed. Saved intermediate "
    "values of the graph are freed when you call .backward() or autograd.grad(). Specify "
    "retain_graph=True if you need to backward through the graph a second time or if you "
    "need to access saved variables after calling backward."
)
ERR_NONE = "Calling register_hooks on a saved tensor with value None is forbidden"
ERR_PACK_INPLACE = (
    "A saved tensor pack hook is modifying its input in place. Tensors provided as input to pack "
    "hook cannot be modified by in-place operations as this can lead to unexpected side-effects. "
    "Please open an issue if you need to perform in-place operations on the input to a pack hook."
)


def _stack() -> list:
    st = getattr(_TLS, "stack", None)
    if st is None:
        st = _TLS.stack = []
    return st


def current_hooks():
    """The innermost ``(pack_hook, unpack_hook)`` of this thread, or None."""
    st = getattr(_TLS, "stack", None)
    return st[-1] if st else None


def _push(pack_hook, unpack_hook) -> None:
    msg = getattr(_TLS, "disabled", None)
    if msg is not None:
        raise RuntimeError(msg)
    _stack().append((pack_hook, unpack_hook))
    with _LOCK:
        _ACTIVE[0] += 1
        if _ACTIVE[0] == 1:
            FLAGS.record_tracers.append(_pack_node)


def _pop() -> None:
    _stack().pop()
    with _LOCK:
        _ACTIVE[0] -= 1
        if _ACTIVE[0] == 0:
            try:
                FLAGS.record_tracers.remove(_pack_node)
            except ValueError:  # viz.stop_all_traces() cleared the list
                pass


class saved_tensors_hooks:
    """Context manager: ``pack_hook(tensor) -> Any`` runs on every tensor saved for backward
    inside the block; ``unpack_hook(packed) -> Tensor`` gives it back when backward (or
    ``grad_fn._saved_<name>``) needs it. Only the innermost pair applies.

    Example:
        >>> import jupyter_autograd as torch
        >>> x = torch.tensor([1., 2.], requires_grad=True)
        >>> with torch.autograd.graph.saved_tensors_hooks(lambda t: t * 2, lambda t: t):
        ...     y = x.pow(2)
        >>> y.sum().backward()   # the saved x was doubled by pack_hook
        >>> x.grad
        tensor([4., 8.])
    """

    def __init__(self, pack_hook, unpack_hook) -> None:
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self) -> None:
        _push(self.pack_hook, self.unpack_hook)

    def __exit__(self, *args) -> None:
        _pop()


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors go to the CPU when packed and back to their device when unpacked.

    Example:
        >>> import jupyter_autograd as torch
        >>> x = torch.ones(3, requires_grad=True)
        >>> with torch.autograd.graph.save_on_cpu():
        ...     y = x.sin()
        >>> y.sum().backward()
        >>> x.grad
        tensor([0.5403, 0.5403, 0.5403])
    """

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        def pack_to_cpu(tensor):
            return (tensor.device, tensor.cpu())

        def unpack_from_cpu(packed):
            device, tensor = packed
            return tensor.to(device, non_blocking=pin_memory)

        super().__init__(pack_to_cpu, unpack_from_cpu)


@contextlib.contextmanager
def disable_saved_tensors_hooks(error_message: str):
    """Inside the block, entering ``saved_tensors_hooks`` raises ``RuntimeError(error_message)``
    (as does entering this block while hooks are active).

    Example:
        >>> import jupyter_autograd as torch
        >>> with torch.autograd.graph.disable_saved_tensors_hooks("no hooks here"):
        ...     try:
        ...         with torch.autograd.graph.save_on_cpu():
        ...             pass
        ...     except RuntimeError as e:
        ...         print(e)
        no hooks here
    """
    prev = getattr(_TLS, "disabled", None)
    try:
        if _stack():
            raise RuntimeError(error_message)
        _TLS.disabled = error_message
        yield
    finally:
        _TLS.disabled = prev


def increment_version(tensor) -> None:
    """Bump the version counter of ``tensor`` (or of each tensor of an iterable), as an
    in-place change does: saved tensors check it at backward."""
    ts = tensor if isinstance(tensor, (list, tuple)) else (tensor,)
    for t in ts:
        t._bump_version()


# ------------------------------------------------------------------ packing registry nodes
def _tensor():
    from ..tensor import Tensor

    return Tensor


class _Slot:
    """One hooked saved value: what pack returned, its unpack hook and the autograd metadata
    the unpacked tensor gets (torch rebuilds the saved variable around the unpacked data)."""

    __slots__ = ("acc", "grad_fn", "orig", "output_nr", "packed", "requires_grad", "unpack")

    def __init__(self, packed, unpack, t) -> None:
        self.packed = packed
        self.unpack = unpack
        self.requires_grad = t is not None and t._requires_grad
        self.grad_fn = t.grad_fn if t is not None else None
        self.output_nr = t._output_nr if t is not None else 0
        # a leaf keeps its AccumulateGrad, so that a double backward reaches the real leaf
        self.acc = (
            t._grad_acc if t is not None and self.requires_grad and self.grad_fn is None else None
        )
        self.orig = weakref.ref(t) if t is not None else None

    def tensor(self):
        u = self.unpack(self.packed)
        T = _tensor()
        if not isinstance(u, T):
            raise TypeError(
                "Output of saved tensor unpack_hook expected to be a Tensor but got "
                f"result of type {type(u).__name__}"
            )
        if not self.requires_grad and self.grad_fn is None and not u._requires_grad:
            return u  # nothing to rebuild: torch hands the unpacked tensor back as it is
        t = T._wrap(u._data, self.requires_grad)
        t._vc = u._vc
        if self.grad_fn is not None:
            t.grad_fn = self.grad_fn
            t._output_nr = self.output_nr
        elif self.acc is not None:
            t._grad_acc = self.acc
        return t


def _call_pack(pack, t):
    vc = t._vc
    before = vc[0] if vc is not None else 0
    packed = pack(t)
    vc = t._vc
    if (vc[0] if vc is not None else 0) != before:
        raise RuntimeError(ERR_PACK_INPLACE)
    return packed


class _PackedSaved(tuple):
    """A node's ``_saved`` triple ``(input tensors, result array, input arrays)`` whose hooked
    values are unpacked when read. The engine reads two of the three items per backward
    (``[1]`` and ``[2]``, or ``[0]`` and ``[1]``): each slot is unpacked once for the pair, in
    packing order, as torch unpacks a node's saved variables when it runs."""

    def __new__(cls, ins, out, raw, slots, params=None):
        self = tuple.__new__(cls, (None, None, None))
        self.ins = ins
        self.out = out
        self.raw = raw
        # {("in", i) | ("out", 0): _Slot, ("param", name): see _pack_param}
        self.slots = slots
        # the node's own copy of its parameters (node._p), where unpacking puts the hooked ones
        # back for the rules, which read them there after the saved inputs
        self.params = params
        self._cache = None
        self._read = set()
        return self

    def _unpack_all(self):
        ins, raw, out = list(self.ins), list(self.raw), self.out
        outs = list(out) if out.__class__ is tuple else None  # a row with several results
        for (kind, i), s in self.slots.items():
            if kind == "param":
                self.params[i] = _param_value(s)
                continue
            t = s.tensor()
            if kind == "in":
                ins[i], raw[i] = t, t._data
            elif outs is not None:
                outs[i] = t._data
            else:
                out = t._data
        return tuple(ins), out if outs is None else tuple(outs), tuple(raw)

    def __getitem__(self, k):
        c = self._cache
        if c is None or k in self._read:
            c = self._cache = self._unpack_all()
            self._read = set()
        self._read.add(k)
        if len(self._read) >= 2:  # the pair is read: drop the unpacked values
            self._cache = None
            self._read = set()
        return c[k]

    def __iter__(self):
        c = self._unpack_all()
        return iter(c)

    def read(self, kind: str, idx):
        """One value for ``grad_fn._saved_<name>`` (unpacks only that one)."""
        if kind == "param":  # the unpacked tensors, as torch shows a saved tensor
            return _param_value(self.slots[("param", idx)], True)
        if kind == "output":
            s = self.slots.get(("out", idx))
            return self.out[idx] if s is None else s.tensor()._data
        s = self.slots.get(("out", 0) if kind == "result" else ("in", idx))
        if kind == "result":
            return self.out if s is None else s.tensor()._data
        return self.ins[idx] if s is None else s.tensor()


class _Packed:
    """A parameter's place in a packed node's parameters until the node runs: its tensors are
    with the hooks. It has a shape, as a saved array does, so that reading it after backward
    freed the node is refused."""

    __slots__ = ()
    shape = ()


_PACKED = _Packed()


def _param_value(slot, tensors=False):
    """A hooked parameter rebuilt from its unpacked tensors (``slot``: the value with its arrays
    left out, or None for an array, and ``(element, _Slot, as a Tensor)`` triples); arrays
    where the row kept arrays, unless ``tensors``."""
    template, packed = slot
    if template is None:
        _, s, as_tensor = packed[0]
        t = s.tensor()
        return t if as_tensor or tensors else t._data
    items = list(template)
    for j, s, as_tensor in packed:
        t = s.tensor()
        items[j] = t if as_tensor or tensors else t._data
    return type(template)(items)


def _pack_param(pack, unpack, v):
    """``(template, ((element, _Slot, as a Tensor), ...))`` for a parameter's arrays, packed in
    order (some rows keep a Tensor there, torch's own: it is packed as it is)."""
    T = _tensor()

    def one(e):
        if isinstance(e, T):
            return _Slot(_call_pack(pack, e), unpack, e), True
        return _Slot(_call_pack(pack, T._wrap(e, False)), unpack, None), False

    if v.__class__ in (list, tuple):
        template = type(v)(None if is_saved_array(e) else e for e in v)
        return template, tuple(
            (j, *one(e)) for j, e in enumerate(v) if e is not None and is_saved_array(e)
        )
    return None, ((-1, *one(v)),)


def _plain(saved):
    """``(ins, out, raw, slots)`` of a node's saved triple, packed or not."""
    if saved.__class__ is _PackedSaved:
        return list(saved.ins), saved.out, list(saved.raw), dict(saved.slots)
    ins, out, raw = saved
    return list(ins), out, list(raw), {}


def _drop_version_check(node, kind: str, idx: int) -> None:
    """Hooked values are not version-checked; the other saved inputs keep their check, with
    their counter held directly (the engine would otherwise read it from the saved tensor)."""
    vers = node._vers
    new = []
    ins = None
    for k in range(0, len(vers), 3):
        vc, v, i = vers[k], vers[k + 1], vers[k + 2]
        if (kind == "out" and i == -1) or (kind == "in" and i == idx):
            continue
        if vc is None:
            if ins is None:
                ins = node._saved.ins if node._saved.__class__ is _PackedSaved else node._saved[0]
            t = ins[i]
            if t._vc is None:
                t._vc = _new_vc()
            vc = t._vc
        new += (vc, v, i)
    node._vers = tuple(new)


def _result_tensor(node, out, hooked_by_default: bool):
    T = _tensor()
    t = T._wrap(out, hooked_by_default)
    if hooked_by_default:
        t.grad_fn = node
    for k in range(0, len(node._vers), 3):
        if node._vers[k + 2] == -1:
            t._vc = node._vers[k]
    return t


def _pack_node(node, inputs) -> None:
    """Record callback: pack what ``node`` saved with this thread's innermost hooks."""
    hooks = current_hooks()
    if hooks is None or node._op is None:
        return
    saved = node._saved
    if not saved:
        return
    pack, unpack = hooks
    wanted = _saved_slots(node)
    if (
        saved.__class__ is tuple
        and saved[1] is None
        and all(t is None for t in saved[0])
        and not any(kind == "param" for kind, _ in wanted)
    ):
        return  # nothing saved (v * 2 of a no_grad view): nothing freed by backward either
    ins, out, raw, slots = _plain(saved)
    params = None
    for kind, idx in wanted:
        if kind == "param":
            if params is None:
                params = node._p = dict(node._p)  # the node's own: p may be shared
            slots[("param", idx)] = _pack_param(pack, unpack, params[idx])
            params[idx] = _PACKED  # the arrays are the hooks' now
            continue
        if kind == "in":
            t = ins[idx]
            if t is None or not isinstance(t, _tensor()):
                continue
            packed = _call_pack(pack, t)
            slots[("in", idx)] = _Slot(packed, unpack, t)
        else:
            if out is None:
                continue
            if isinstance(out, tuple):
                if op_output_named(node):  # torch's name for each saved result (eigh, svd...)
                    t = _result_tensor(node, out[idx], True)
                    t._output_nr = idx
                    slots[("out", idx)] = _Slot(_call_pack(pack, t), unpack, None)
                # a row that saves its results as a whole keeps them unhooked
                continue
            t = _result_tensor(node, out, True)
            packed = _call_pack(pack, t)
            s = _Slot(packed, unpack, None)
            slots[("out", 0)] = s
    # what was not packed is not saved (torch's undefined saved variables)
    for i in range(len(ins)):
        if ("in", i) not in slots and isinstance(ins[i], _tensor()):
            ins[i] = raw[i] = None
    if isinstance(out, tuple):  # the hooks hold the results they packed
        out = tuple(None if ("out", k) in slots else o for k, o in enumerate(out))
    elif ("out", 0) not in slots:
        out = None
    node._vers = ()
    node._saved = _PackedSaved(tuple(ins), out, tuple(raw), slots, params)


# ------------------------------------------------------------------ grad_fn._raw_saved_<name>
class SavedTensor:
    """``grad_fn._raw_saved_<name>``: one saved tensor of a node, to give its own hooks."""

    __slots__ = ("_idx", "_kind", "_node")

    def __init__(self, node, kind: str, idx: int) -> None:
        self._node = node
        self._kind = kind
        self._idx = idx

    def register_hooks(self, *args, **kwargs) -> None:
        """``pack_hook`` runs now on the saved tensor; ``unpack_hook`` whenever it is read."""
        if kwargs or len(args) != 2 or not all(callable(a) for a in args):
            shown = ", ".join(
                [repr(self)] + [repr(a) for a in args] + [f"{k}={v!r}" for k, v in kwargs.items()]
            )
            raise TypeError(
                "register_hooks(): incompatible function arguments. The following argument types "
                "are supported:\n    1. (self: torch._C._autograd.SavedTensor, arg0: "
                "collections.abc.Callable, arg1: collections.abc.Callable) -> None\n\n"
                f"Invoked with: {shown}"
            )
        pack, unpack = args
        node = self._node
        saved = node._saved
        if saved is None:
            raise RuntimeError(ERR_FREED)
        key = ("out", 0) if self._kind == "result" else ("in", self._idx)
        ins, out, raw, slots = _plain(saved)
        if key in slots:
            raise RuntimeError(ERR_HOOKS_SET)
        if key not in _saved_slots(node):  # torch did not save it: its value is None
            raise RuntimeError(ERR_NONE)
        if self._kind == "result":
            if out is None:
                raise RuntimeError(ERR_NONE)
            t = _result_tensor(node, out, False)
            slots[key] = _Slot(_call_pack(pack, t), unpack, None)
        else:
            t = ins[self._idx]
            if t is None or not isinstance(t, _tensor()):
                raise RuntimeError(ERR_NONE)
            slots[key] = _Slot(_call_pack(pack, t), unpack, t)
            ins[self._idx] = raw[self._idx] = None
        _drop_version_check(node, key[0], self._idx)
        node._saved = _PackedSaved(
            tuple(ins),
            out if self._kind != "result" else None,
            tuple(raw),
            slots,
            saved.params if saved.__class__ is _PackedSaved else None,
        )

    def __repr__(self) -> str:
        return f"<torch._C._autograd.SavedTensor object at {hex(id(self))}>"


SavedTensor.__module__ = "torch._C._autograd"  # as torch's C++ class prints


def raw_saved(node, key: str):
    """``node._raw_saved_<key>`` for a saved input or result; AttributeError otherwise."""
    op = type(node)._op
    spec = op.saved_spec.get(key) if op is not None else None
    if spec is None or spec[0] not in ("input", "result"):
        raise AttributeError(f"'{type(node).__name__}' object has no attribute '_raw_saved_{key}'")
    return SavedTensor(node, spec[0], spec[1])


# ------------------------------------------------------------------ custom Functions
def pack_function_saved(to_save, packed: list) -> list:
    """``ctx.save_for_backward``'s entries packed with this thread's hooks (called as the
    Function's ``apply`` returns, ``packed`` holding one entry per ``to_save`` item):
    ``("hook", _Slot, output_nr, None, 0)`` per tensor."""
    hooks = current_hooks()
    if hooks is None:
        return packed
    pack, unpack = hooks
    res = []
    for t, (kind, a, nr, vc, ver) in zip(to_save, packed):
        if kind == "none":
            res.append((kind, a, nr, vc, ver))
            continue
        # an output's slot keeps no reference to its node (no ctx -> slot -> ctx cycle)
        res.append(
            ("hook", _Slot(_call_pack(pack, t), unpack, t if kind == "in" else None), nr, None, 0)
        )
    return res


def unpack_function_saved(ctx, slot: _Slot, nr: int):
    """One hooked ``ctx.saved_tensors`` entry."""
    t = slot.tensor()
    if slot.orig is None:  # an output: rebuilt with its node, the ctx
        t = _tensor()._wrap(t._data, True)
        t.grad_fn = ctx
        t._output_nr = nr
    return t


_slots.raw_saved = raw_saved
