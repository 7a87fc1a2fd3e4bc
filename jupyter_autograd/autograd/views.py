"""Views and in-place operations, as torch's autograd handles them.

A view shares its base's memory and version counter (``_base`` is the root base, ``_vc`` the
shared one-item list). An in-place operation on a view that requires grad rebases the *base's*
history: the base's ``grad_fn`` becomes a :class:`CopySlices` node wrapping the operation's own
node, and every view of the base (the modified one included) regenerates its ``grad_fn`` the
next time it is read, as an ``AsStridedBackward0`` of the base's new history (torch does the
same lazily, comparing the version counter with the version the view's history was made at).

Views made where an in-place change of them cannot be tracked remember how they were made
(``_cm``: in no_grad or inference mode, by an op returning several views, inside a custom
Function); modifying them, or their base, raises torch's errors for each case.
"""

from __future__ import annotations

import re
import weakref

import numpy as np

from .. import _errors as E
from ..grad_mode import STATE
from . import engine, view_fn
from .node import SEQ, Node

# creation meta (torch's CreationMeta)
DEFAULT, NO_GRAD_MODE, INFERENCE_MODE, MULTI_OUTPUT_NODE, IN_CUSTOM_FUNCTION = range(5)

ERR_OVERLAP = (
    "unsupported operation: more than one element of the written-to tensor refers to a single "
    "memory location. Please clone() the tensor before performing the operation."
)
_SUFFIX = {
    MULTI_OUTPUT_NODE: (
        " This view is the output of a function that returns multiple views. Such functions do "
        "not allow the output views to be modified inplace. You should replace the inplace "
        "operation by an out-of-place one."
    ),
    NO_GRAD_MODE: (
        " Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify "
        "your code by moving both the view and the inplace either both inside the no_grad block "
        "(if you don't want the inplace to be tracked) or both outside (if you want the inplace "
        "to be tracked)."
    ),
    INFERENCE_MODE: (
        " Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify "
        "your code by moving both the view and the inplace either both inside the inference_mode "
        "block (if you don't want the inplace to be tracked) or both outside (if you want the "
        "inplace to be tracked)."
    ),
    IN_CUSTOM_FUNCTION: (
        " This view was created inside a custom Function (or because an input was returned "
        "as-is) and the autograd logic to handle view+inplace would override the custom backward "
        "associated with the custom Function, leading to incorrect gradients. This behavior is "
        "forbidden. You can fix this by cloning the output of the custom Function."
    ),
}
_BACKWARD_SUFFIX = re.compile(r"Backward\d*$")


def _short(fn) -> str:
    return _BACKWARD_SUFFIX.sub("", fn.name())


# ---------------------------------------------------------------- making views
def make_view(res, x, cm: int = DEFAULT, row=None) -> None:
    """Mark ``res`` (whose array views ``x``'s memory) as a view of ``x``'s root base; ``row``:
    the dtype-changing view op that made it (view_as_real/view_as_complex)."""
    if row is not None or x._vfn is not None:
        res._vfn = view_fn.chain(x, res, row)
    if x._is_conj and row is None:  # a view of a conjugate is one (torch's conj bit rides on views)
        res._is_conj = True
    base = x._base
    if base is None:
        base = x
    elif cm == DEFAULT or x._cm == INFERENCE_MODE:
        cm = x._cm  # a view of a view keeps how the first one was made (propagate_creation_meta)
    if STATE.inference:
        cm = INFERENCE_MODE
    elif not STATE.grad_enabled:
        cm = NO_GRAD_MODE
    res._base = base
    vc = x._vc
    if vc is None:
        vc = x._vc = [0]
    res._vc = vc
    res._view_version = vc[0]
    if cm:
        res._cm = cm
    res._inf = x._inf  # a view of a normal tensor is a normal tensor, even in inference mode
    if base._requires_grad and res._requires_grad:
        return
    if res._data.dtype.kind in "fc":
        if base._requires_grad:
            # made without recording (no_grad): it requires grad through its base, with no
            # edge, and stops with it (base.detach_(), base.requires_grad_(False))
            res._requires_grad = True
            res._rg_via_base = True
        # else the base may come to require grad later (an in-place op writing a tensor that
        # requires grad into one of its views): its live views must then follow
        views = base._views
        if views is None:
            views = base._views = []
        elif len(views) > 64 and len(views) & (len(views) - 1) == 0:
            views[:] = [r for r in views if r() is not None]
        views.append(weakref.ref(res))


def base_requires_grad(base) -> None:
    """``base`` now requires grad: so do its live views (through the base, without an edge)."""
    views = base._views
    if not views:
        return
    for ref in views:
        v = ref()
        if v is not None and not v._requires_grad:
            v._requires_grad = True
            v._rg_via_base = True


def base_stops_requiring_grad(base) -> None:
    """``base`` no longer requires grad: nor do its views made in no_grad (they ask it, in torch)."""
    for ref in base._views or ():
        v = ref()
        if v is not None and v._rg_via_base:
            v._requires_grad = False
            v._rg_via_base = False


# ---------------------------------------------------------------- geometry
def _ptr(a) -> int:
    if a.__class__ is np.ndarray:
        return a.__array_interface__["data"][0]
    return a.data.ptr


def _offsets(shape, strides, start=0):
    """The memory offset (in elements) of every element of an array of this geometry."""
    out = np.full(shape, start, dtype=np.int64)
    nd = len(shape)
    for k, (n, s) in enumerate(zip(shape, strides)):
        if n > 1 and s:
            out += (np.arange(n, dtype=np.int64) * s).reshape((n,) + (1,) * (nd - k - 1))
    return out


class Geometry:
    """Where a view's elements sit in its base: torch's (size, stride, storage_offset) of the
    view, plus each element's flat C-order index into the base (made on first use)."""

    __slots__ = (
        "_base_contig",
        "_base_strides",
        "_flat",
        "base_numel",
        "base_shape",
        "offset",
        "overlap",
        "shape",
        "stride",
    )

    def __init__(self, base_arr, view_arr) -> None:
        it = base_arr.itemsize
        self.base_shape = tuple(base_arr.shape)
        self.base_numel = int(base_arr.size)
        self._base_strides = tuple(s // it for s in base_arr.strides)
        self._base_contig = bool(base_arr.flags.c_contiguous)
        self.shape = tuple(view_arr.shape)
        self.stride = tuple(s // it for s in view_arr.strides)
        self.offset = (_ptr(view_arr) - _ptr(base_arr)) // it if view_arr.size else 0
        self.overlap = any(s == 0 and n > 1 for n, s in zip(self.shape, self.stride))
        self._flat = None

    @property
    def storage_offset(self) -> int:
        lo = sum(min(0, (n - 1) * s) for n, s in zip(self.base_shape, self._base_strides) if n)
        return self.offset - lo

    def flat(self):
        f = self._flat
        if f is None:
            if self._base_contig or self.base_numel == 0:
                f = _offsets(self.shape, self.stride, self.offset)
            else:  # the base's own layout is strided: invert its offsets
                bshape, bst = self.base_shape, self._base_strides
                pos = _offsets(bshape, bst).reshape(-1)
                lo = int(pos.min())
                inv = np.full(int(pos.max()) - lo + 1, -1, dtype=np.int64)
                inv[pos - lo] = np.arange(pos.size, dtype=np.int64)
                f = inv[_offsets(self.shape, self.stride, self.offset) - lo]
            self._flat = f
        return f


class _Alias:
    """An array interface over memory we own (NumPy builds a writable array from it)."""

    def __init__(self, interface: dict, base) -> None:
        self.__array_interface__ = interface
        self.base = base


def writable(t):
    """``t``'s array, writable when it is a view of a writable base that NumPy hands out
    read-only (the elements of an expanded tensor, as ``e[0]`` of ``x.expand(2, 3)``)."""
    d = t._data
    if d.__class__ is not np.ndarray or d.flags.writeable or t._base is None:
        return d
    if not t._base._data.flags.writeable:
        return d
    interface = dict(d.__array_interface__)
    interface["data"] = (interface["data"][0], False)
    return np.asarray(_Alias(interface, d))


# ---------------------------------------------------------------- conjugate views
def add_conj_view(res, src, fn=np.conjugate) -> None:
    """Register ``res`` (``fn`` of the array ``src``, which views its root base's memory: the
    conjugate, or the negation of imag() of a conjugate) as such a view of its base; ``fn`` is
    its own inverse. The registry holds the view's array (weakly: it lives as long as a tensor
    views it, ``c.imag`` of a dropped ``c`` included)."""
    root = res._base
    if root._conj_views is None:
        root._conj_views = []
    root._conj_views.append((weakref.ref(res._data), src, fn))


def like_layout(src, values):
    """A new array with ``src``'s strides (its memory laid out as ``src``'s span) holding
    ``values``: a view of it maps onto ``src`` at the same byte offsets (:func:`conj_source`)."""
    n = src.itemsize
    lo = sum((k - 1) * st for k, st in zip(src.shape, src.strides) if st < 0)
    hi = sum((k - 1) * st for k, st in zip(src.shape, src.strides) if st > 0) + n
    buf = np.empty((hi - lo) // n, src.dtype)
    start = -lo // n
    out = np.lib.stride_tricks.as_strided(buf[start:], src.shape, src.strides)
    out[...] = values
    return out


def conj_source(t):
    """The memory ``t`` stands for when it is (a view of) a conjugate view: its source array,
    or the part of it ``t`` views; None when there is none."""
    root = t._base
    if root is None or root._conj_views is None:
        return None
    d0 = t._data
    for r, src, fn in root._conj_views:
        d = r()
        if d is not None and fn is np.conjugate and np.may_share_memory(d0, d):
            if d0 is d:
                return src
            interface = dict(d0.__array_interface__)
            off = interface["data"][0] - d.__array_interface__["data"][0]
            interface["data"] = (src.__array_interface__["data"][0] + off, not src.flags.writeable)
            return np.asarray(_Alias(interface, src))
    return None


def sync_conj(writer) -> None:
    """After an in-place change through ``writer``: a conjugate view written to (or through a
    view of it) writes its values back, conjugated, into its source; the others re-read
    theirs. torch's conj() is a lazy view: both directions show at once."""
    root = writer._base if writer._base is not None else writer
    live = [
        (d, src, fn)
        for d, src, fn in ((r(), src, fn) for r, src, fn in root._conj_views)
        if d is not None
    ]
    if not live:
        root._conj_views = None
        return
    if len(live) < len(root._conj_views):
        root._conj_views = [(weakref.ref(d), src, fn) for d, src, fn in live]
    wd = writer._data
    through = [np.may_share_memory(wd, d) for d, _, _ in live]
    for (d, src, fn), w in zip(live, through):
        if w and src.flags.writeable:
            fn(d, out=src)
    for (d, src, fn), w in zip(live, through):
        if not w:
            fn(src, out=d)


# ---------------------------------------------------------------- the checks torch makes
def handle_view_on_rebase(v, indirect: bool) -> None:
    """torch's error for a view whose in-place change (or its base's) cannot be tracked."""
    cm = v._cm
    if cm == DEFAULT:
        return
    fn = v._grad_fn
    modified = "its base or another view of its base has been" if indirect else "is being"
    if cm in (INFERENCE_MODE, NO_GRAD_MODE) or fn is None:
        if fn is not None:
            prefix = (
                f"Output {v._output_nr} of {_short(fn)} is a view of a view which was created in"
            )
        else:
            prefix = "A view was created in"
        if cm == INFERENCE_MODE:
            msg = f"{prefix} inference mode and {modified} modified inplace in normal mode."
        else:
            msg = f"{prefix} no_grad mode and {modified} modified inplace with grad mode enabled."
    else:
        msg = f"Output {v._output_nr} of {_short(fn)} is a view and {modified} modified inplace."
    raise RuntimeError(msg + _SUFFIX.get(cm, _SUFFIX[NO_GRAD_MODE]))


_OVERLAP_WARNING = (
    "Use of {op} on expanded tensors is deprecated. Please clone() the tensor before performing "
    "this operation. This also applies to advanced indexing e.g. tensor[{key}] = {value}"
)


def check_inplace(t, requires_grad: bool, overlap: str = "error") -> None:
    """Before an in-place op on ``t``: torch's autograd checks (``requires_grad``: whether any
    input of the op requires grad), then the kernel's refusal to write a tensor whose elements
    share memory (``overlap``: "error"; "allow" for fill_ and zero_; "index_put_" and
    "masked_fill_" only warn)."""
    if requires_grad and STATE.grad_enabled:
        base = t._base
        if base is not None:
            handle_view_on_rebase(t, False)
            if t._requires_grad and base._grad_fn is None:
                raise RuntimeError(E.ERR_VIEW_LEAF_INPLACE)
        if t._requires_grad and t.grad_fn is None:
            raise RuntimeError(E.ERR_LEAF_INPLACE)
    d = t._data
    if not d.flags.writeable and t._base is not None and overlap != "allow" and d.size:
        for n, s in zip(d.shape, d.strides):
            if s == 0 and n > 1:
                if overlap == "error":
                    raise RuntimeError(ERR_OVERLAP)
                import warnings

                key, value = (
                    ("indices", "tensor") if overlap == "index_put_" else ("mask", "scalar")
                )
                # the user's line: x[idx] = v (via _setitem), or x.masked_fill_(...)
                warnings.warn(
                    _OVERLAP_WARNING.format(op=overlap, key=key, value=value),
                    UserWarning,
                    stacklevel=4 if overlap == "index_put_" else 3,
                )
                return


ERR_PARTIAL_OVERLAP = (
    "unsupported operation: some elements of the input tensor and the written-to tensor refer "
    "to a single memory location. Please clone() the tensor before performing the operation."
)
_NO, _FULL, _PARTIAL = 0, 1, 2


def _dense_span(a):
    """(first byte, end byte) of an array whose elements fill a block of memory without gaps
    or repeats (torch's is_non_overlapping_and_dense), else None."""
    expected = a.itemsize
    for st, n in sorted((abs(st), n) for n, st in zip(a.shape, a.strides) if n != 1):
        if st != expected:
            return None
        expected *= n
    start = _ptr(a) + sum((n - 1) * st for n, st in zip(a.shape, a.strides) if st < 0)
    return start, start + a.size * a.itemsize


def overlap_status(a, b) -> int:
    """torch's get_overlap_status of two arrays (TooHard, a strided one, counts as no overlap)."""
    if a is b:
        return _FULL
    if (
        a.__class__ is not np.ndarray
        or b.__class__ is not np.ndarray
        or not a.size
        or not b.size
        or not np.may_share_memory(a, b)
    ):
        return _NO
    sa, sb = _dense_span(a), _dense_span(b)
    if sa is None or sb is None:
        return _NO
    if sa == sb:
        # torch compares the stride lists; a size-1 dim's stride is arbitrary in NumPy (where
        # torch's expand and unsqueeze derive it from the next dim), so it is not compared
        same = a.ndim == b.ndim and all(
            sa_ == sb_ or n == 1 for n, sa_, sb_ in zip(a.shape, a.strides, b.strides)
        )
        return _FULL if same else _PARTIAL
    return _PARTIAL if sa[0] < sb[1] and sb[0] < sa[1] else _NO


def check_overlap(out, src, full: bool = False) -> None:
    """torch's assert_no_partial_overlap (``full``: assert_no_overlap, index_put_'s) between a
    written-to array and an input."""
    lap = overlap_status(out, src)
    if lap == _PARTIAL or (full and lap == _FULL):
        raise RuntimeError(ERR_PARTIAL_OVERLAP)


# ---------------------------------------------------------------- regenerating a view's history
def view_grad_fn(v):
    """``v.grad_fn`` for a view: regenerated (AsStridedBackward0 of its base's current history)
    when its base or another view of it was modified in place since it was last made."""
    fn = v._grad_fn
    vc = v._vc
    if vc is None or vc[0] == v._view_version:
        return fn
    base = v._base
    if fn is None and not base._requires_grad:
        return None
    handle_view_on_rebase(v, True)
    if v._vfn is not None:  # a dtype-changing view: its chain of views replayed on the base
        v._view_version = vc[0]
        node = view_fn.regenerate(v)
        v._requires_grad = True
        v._rg_via_base = False
        if v._retains_grad:
            move_retain(v, fn, node)
        return node
    from ..ops.strided import AS_STRIDED  # the rows sit above the engine

    geo = Geometry(base._data, v._data)
    p = {
        "size": geo.shape,
        "stride": geo.stride,
        "storage_offset": geo.storage_offset,
        "geometry": geo,
    }
    old = fn
    v._view_version = vc[0]
    node = engine.record(AS_STRIDED, (base,), None, p, (v,))
    v._output_nr = 0
    v._requires_grad = True
    v._rg_via_base = False
    if v._retains_grad:
        move_retain(v, old, node)
    return node


def move_retain(t, old, new) -> None:
    """torch's update_tensor_hooks_on_new_gradfn: retain_grad follows the tensor's new node."""
    if old is not None and old._retain:
        old._retain.pop(t._output_nr if old is not new else 0, None)
    new._retained()[t._output_nr] = weakref.ref(t)


# ---------------------------------------------------------------- in-place on a view
_WRAPPED = (None, None, None)  # CopySlices._saved of a wrapped node that saved nothing (truthy)


class CopySlices(Node):
    """The base's node after an in-place op on one of its views (torch's CopySlices): it runs
    the op's own node on the view's part of the gradient and passes the rest through."""

    _op = None

    _plan = None  # a dtype-changing view's chain (view_fn.py), replayed on the gradient

    def __init__(self, base, geometry: Geometry, fn: Node, view=None) -> None:
        if geometry is None:
            self._plan = view._vfn
            self._arrays = (base._data, view._data)
        efn, enr = edge(base)
        self._fns = (efn,) + tuple(fn._fns[1:])
        self._nrs = (enr,) + tuple(fn._nrs[1:])
        self._shapes = (engine._meta(base._data),) + tuple(fn._shapes[1:])
        self._fn = fn
        self._geometry = geometry
        self._seq = next(SEQ)

    def name(self) -> str:
        return "torch::autograd::CopySlices"

    _released = False

    # the wrapped node's saved tensors are this node's: freed (and checked) together; one that
    # saved nothing shows _WRAPPED, so that the executor releases this node too, as torch does
    @property
    def _saved(self):
        s = self._fn._saved
        return s if s or self._released else _WRAPPED

    @_saved.setter
    def _saved(self, value) -> None:
        if value is None:
            self._released = True
        self._fn._saved = value

    def _apply(self, grads, create_graph: bool):
        if self._released:
            raise RuntimeError(E.ERR_BACKWARD_TWICE)
        g = grads[0]
        if g is None:
            return [None] * len(self._fns)
        if self._plan is not None:
            return view_fn.copy_slices(self, g, create_graph, _run)
        geo = self._geometry
        if create_graph:
            from ..ops.dispatch import apply
            from ..ops.registry import OPS
            from ..ops.strided import _flat

            gt = g if isinstance(g, engine.Tensor) else engine.Tensor._wrap(g)
            flat_g = gt.reshape(-1)
            idx = _flat({"geometry": geo}, gt)
            outs = _run(self._fn, [flat_g[idx]], True)
            first = outs[0]
            if first is not None:
                first = apply(
                    OPS["index_put"], (flat_g, first), {"key": (idx,), "shape": (geo.base_numel,)}
                ).reshape(geo.base_shape)
        else:
            from ..ops.strided import _flat

            # C order: flat positions are the geometry's. A rule's 0-d gradient may be a NumPy
            # scalar (g * 1.0), whose reshape is a new array: written into, it lost the wrapped
            # op's part (fuzz seed 313040: the neg_ of a 0-d tensor's view was skipped)
            result = np.array(g) if isinstance(g, np.generic) else g.copy()
            flat_r = result.reshape(-1)
            idx = _flat({"geometry": geo}, g)
            outs = _run(self._fn, [flat_r[idx]], False)
            first = outs[0]
            if first is not None:
                flat_r[idx] = first
                first = result
        return [first] + list(outs[1:])


def _run(fn, grads, create_graph):
    if fn._op is not None:
        return engine.run_node(fn, grads, create_graph)
    return fn._apply(grads, create_graph)


def edge(t):
    """``(node, output_nr)`` that a gradient for ``t`` flows into, or ``(None, 0)``."""
    fn = t.grad_fn
    if fn is not None:
        return fn, t._output_nr
    if not t._requires_grad or t._rg_via_base:
        return None, 0
    return t._grad_accumulator(), 0


def adopt_saved_result(node, res_vc, vc, owner=None) -> None:
    """The op's node saved its result with the result's own counter; after an in-place op the
    result *is* the modified tensor: check that tensor's counter instead (torch saves self).
    ``owner``: the node a version error names (a view's regenerated one, as torch)."""
    vers = node._vers
    if not vers:
        return
    if owner is not None:
        node._result_fn = weakref.ref(owner)
    new = list(vers)
    for k in range(0, len(vers), 3):
        if vers[k] is res_vc:
            new[k], new[k + 1] = vc, vc[0]
    node._vers = tuple(new)


def rebase_history(view, res, snap_edge, seq0: int) -> None:
    """After an in-place op on ``view`` whose result ``res`` requires grad: the base's history
    becomes CopySlices over the op's node; the view's own is regenerated from it."""
    fn = res._grad_fn
    sfn, snr = snap_edge
    if not (fn._seq > seq0 and fn._fns and fn._fns[0] is sfn and fn._nrs[0] == snr):
        # the op was recorded as several nodes: wrap it as a copy of its result into the view
        from ..ops.strided import COPY

        cp = COPY.node_cls.__new__(COPY.node_cls)
        rfn, rnr = edge(res)
        cp._fns, cp._nrs = (sfn, rfn), (snr, rnr)
        cp._shapes = (engine._meta(view._data), engine._meta(res._data))
        cp._seq = next(SEQ)
        fn = cp
    rebase(view, fn)


def rebase(view, fn) -> None:
    """torch's rebase_history for a view: its base's history becomes CopySlices over ``fn`` (a
    node whose input 0 is the view), then the view's own is regenerated from it."""
    base = view._base
    if view._vfn is not None:
        cs = CopySlices(base, None, fn, view)
    else:
        cs = CopySlices(base, Geometry(base._data, view._data), fn)
    old = base._grad_fn
    was_rg = base._requires_grad
    base._grad_fn = cs
    base._output_nr = 0
    base._requires_grad = True
    base._rg_via_base = False
    if base._retains_grad and old is not None:
        move_retain(base, old, cs)
    if not was_rg:
        base_requires_grad(base)
    view._requires_grad = True
    view_grad_fn(view)  # the view's history now comes from the base's (torch: self.grad_fn())
