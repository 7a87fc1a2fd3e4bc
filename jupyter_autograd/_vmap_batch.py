"""The batched run of ``vmap``: the function runs once, on tensors carrying a hidden batch axis.

Each mapped input becomes a :class:`BatchedTensor`: a tensor whose *logical* shape is one
element's (what ``func`` sees through ``shape``, ``dim()``, ``size()``), backed by an ordinary
*physical* tensor with the batch axis in front (``_phys``; for nested vmaps the physical tensor is
itself batched at the outer level). An op on a batched tensor runs once, as ordinary ops on the
physical tensors, so autograd records an ordinary graph over them:

- elementwise rows (the registry's ``batch=ELEMENTWISE`` Tensor methods, the arithmetic
  operators): the batched operands are padded to the output's rank behind the batch axis and the
  op broadcasts;
- ops taking dimensions (``sum``, ``mean``, ``softmax``, ``transpose``, ``unsqueeze``...) shift
  them past the batch axis; reductions over "all dims" reduce the logical dims only;
- ``matmul``/``mm``/``mv``/``dot``/``F.linear`` batch through ``matmul``; ``F.cross_entropy`` of
  class indices through ``gather``.

What torch refuses on a batched tensor is refused with its message (``item()``, ``float()``,
``bool()`` and data-dependent control flow, ``tolist()``, ``numpy()``, ``.data``, ``nonzero()``,
boolean-mask indexing). Anything else (printing; an in-place op; a random op; an op without a
rule here: anything touching ``_data``) raises :class:`Fallback`, and vmap
reruns the whole call once per batch element (``_vmap._run``), so the values are never wrong and
the errors are torch's. ``grad`` inside the batched run (:func:`grad_and_value`) differentiates
per-sample physical leaves: an unbatched parameter becomes a batch of read-only copies (a
zero-stride view), so its gradient comes out per sample and is never summed over the batch.

Limitation: the fallback reruns ``func``, so Python side effects of ``func`` before the fallback
(appending to a list, an in-place change of a captured tensor that no batched value touches) happen
once more than in the per-element loop alone.
"""

from __future__ import annotations

import operator

import numpy as np

from . import _dtype
from ._size import Size
from .autograd import grad as _grad
from .factories import ones, zeros
from .grad_mode import enable_grad
from .ops.registry import ELEMENTWISE
from .tensor import Tensor

_INSTALLED = [False]

__all__ = ["BatchedTensor", "Fallback", "grad_and_value"]

#: batch size of each batched vmap level running (the outermost first); a level is its index + 1
LEVELS: list = []
#: batched runs that fell back to the per-element loop (tests read it)
STATS = {"batched": 0, "fallback": 0, "last": ""}


class Fallback(
    BaseException
):  # not an Exception: library code's `except Exception` must not swallow it
    """The batched run cannot continue; vmap reruns the call per batch element."""


def refused(e) -> bool:
    """Whether ``e`` is torch's refusal of an operation on a batched tensor (a read of its
    values, a result of data-dependent shape): raised to the caller, never a reason to fall back
    to the per-element loop, where the operation would run (vmap._batched lets it through)."""
    return getattr(e, "vmap_refused", False)


def _refuse(message):
    e = RuntimeError(message)  # torch's type; marked for vmap._batched
    e.vmap_refused = True
    raise e


_ITEM = (
    "vmap: It looks like you're calling .item() on a Tensor. We don't support vmap over calling"
    " .item() on a Tensor, please try to rewrite what you're doing with other operations. If"
    " error is occurring somewhere inside PyTorch internals, please file a bug report."
)
_CONTROL_FLOW = (
    "vmap: It looks like you're attempting to use a Tensor in some data-dependent control flow."
    " We don't support that yet, please file an issue at https://github.com/pytorch/pytorch/issues ."
)
_NO_STORAGE = "Cannot access data pointer of Tensor that doesn't have storage"
_NONZERO = (
    "vmap: We do not support batching operators that can output dynamic shape. Attempted to vmap"
    " over aten::nonzero. Please file an issue at https://github.com/pytorch/pytorch/issues if"
    " you need this feature."
)
_BOOL_MASK = (
    "vmap: We do not support batching operators that can support dynamic shape. Attempting to"
    " batch over indexing with a boolean mask."
)


def reason(e) -> str:
    """Why a batched run fell back: the exception and the line that raised it (no frames kept)."""
    import traceback

    tb = traceback.extract_tb(e.__traceback__)
    where = f" at {tb[-1].filename}:{tb[-1].lineno} ({tb[-1].line})" if tb else ""
    return f"{type(e).__name__}: {e}{where}"


def _wrap_dim(d, n):
    if not isinstance(d, int) or isinstance(d, bool):
        raise Fallback
    m = max(n, 1)
    if not -m <= d < m:
        raise Fallback  # the per-element run raises torch's error
    return d % m


class BatchedTensor(Tensor):
    """A tensor of one batch element's shape, backed by ``_phys`` (batch axis first)."""

    _bt = True

    def __init__(self, *a, **k):  # made by _wrap_b only
        raise TypeError("BatchedTensor is internal to vmap")

    @property
    def _data(self):
        raise Fallback

    @property
    def _requires_grad(self):
        return self._phys.requires_grad

    @property
    def requires_grad(self):
        return self._phys.requires_grad

    @property
    def grad_fn(self):
        raise Fallback

    @property
    def shape(self):
        return Size(self._lshape)

    def size(self, dim=None):
        if dim is None:
            return Size(self._lshape)
        return self._lshape[_wrap_dim(dim, len(self._lshape))] if self._lshape else self._fb()

    def dim(self):
        return len(self._lshape)

    ndimension = dim

    @property
    def ndim(self):
        return len(self._lshape)

    def numel(self):
        return int(np.prod(self._lshape, dtype=np.int64))

    nelement = numel

    def __len__(self):
        if not self._lshape:
            raise Fallback
        return self._lshape[0]

    @property
    def dtype(self):
        return self._phys.dtype

    @property
    def device(self):
        return self._phys.device

    def is_floating_point(self):
        return self._phys.is_floating_point()

    def is_complex(self):
        return self._phys.is_complex()

    def _fb(self):
        raise Fallback

    # what torch refuses on a batched tensor, with its messages (the per-element loop would run
    # each of them, so they are not reasons to fall back)
    def item(self):
        _refuse(_ITEM)

    __float__ = __int__ = __complex__ = item

    def __bool__(self) -> bool:
        _refuse(_CONTROL_FLOW)
        return False  # not reached

    def tolist(self):
        _refuse(_NO_STORAGE)

    def numpy(self, *, force=False):
        _refuse(_NO_STORAGE)

    def nonzero(self, *, as_tuple=False):
        _refuse(_NONZERO)

    @property
    def data(self):
        _refuse("accessing `data` under vmap transform is not allowed")

    _vmap_refuse = _fb

    def _vmap_fn(self, name, *args, **kwargs):
        """Module-level functions (``torch.tanh``, ``F.linear``...) hand batched inputs here."""
        fn = _FUNCS.get(name)
        if fn is None:  # torch.<unary>(x): the method's rule (or its Fallback)
            return getattr(args[0], name)()
        return fn(*args, **kwargs)

    # ------------------------------------------------------------- layout
    def unsqueeze(self, dim):
        return _wrap_b(self._phys.unsqueeze(_wrap_dim(dim, self.dim() + 1) + 1), self._lvl)

    def squeeze(self, dim=None):
        n = self.dim()
        if dim is None:
            dims = tuple(i for i, s in enumerate(self._lshape) if s == 1)
        else:
            ds = dim if isinstance(dim, (tuple, list)) else (dim,)
            dims = tuple(_wrap_dim(d, n) for d in ds) if n else ()
            dims = tuple(d for d in dims if self._lshape[d] == 1)
        if not dims:
            return _wrap_b(self._phys.view_as(self._phys), self._lvl)
        return _wrap_b(self._phys.squeeze(tuple(d + 1 for d in dims)), self._lvl)

    def reshape(self, *shape):
        shape = _shape_arg(shape)
        return _wrap_b(self._phys.reshape((_size(self._lvl), *shape)), self._lvl)

    view = reshape  # in-place ops fall back, so a copy cannot be told from a view

    def view_as(self, other):
        return self.reshape(*other.shape)

    reshape_as = view_as

    def expand(self, *sizes):
        sizes = _shape_arg(sizes)
        n = self.dim()
        if len(sizes) < n:
            raise Fallback
        p = _unwrap(self, self._lvl, len(sizes))
        return _wrap_b(p.expand(_size(self._lvl), *sizes), self._lvl)

    def expand_as(self, other):
        return self.expand(*other.shape)

    def flatten(self, start_dim=0, end_dim=-1):
        n = self.dim()
        if n == 0:
            return self.reshape(1)
        s, e = _wrap_dim(start_dim, n), _wrap_dim(end_dim, n)
        if s > e:
            raise Fallback
        ls = self._lshape
        return self.reshape(*ls[:s], int(np.prod(ls[s : e + 1], dtype=np.int64)), *ls[e + 1 :])

    def t(self):
        n = self.dim()
        if n > 2:
            raise Fallback
        if n < 2:
            return _wrap_b(self._phys.view_as(self._phys), self._lvl)
        return _wrap_b(self._phys.transpose(1, 2), self._lvl)

    def transpose(self, dim0, dim1):
        n = self.dim()
        if n == 0:
            _wrap_dim(dim0, 0), _wrap_dim(dim1, 0)
            return _wrap_b(self._phys.view_as(self._phys), self._lvl)
        return _wrap_b(
            self._phys.transpose(_wrap_dim(dim0, n) + 1, _wrap_dim(dim1, n) + 1), self._lvl
        )

    swapaxes = swapdims = transpose

    def permute(self, *dims):
        dims = _shape_arg(dims)
        n = self.dim()
        if len(dims) != n:
            raise Fallback
        return _wrap_b(self._phys.permute(0, *(_wrap_dim(d, n) + 1 for d in dims)), self._lvl)

    def movedim(self, source, destination):
        n = self.dim()
        return _wrap_b(
            self._phys.movedim(_wrap_dim(source, n) + 1, _wrap_dim(destination, n) + 1), self._lvl
        )

    def __getitem__(self, key):
        # basic indexing (ints, slices, None, ...) keeps the batch axis in front
        k = key if isinstance(key, tuple) else (key,)
        if any(
            i.__class__ is bool or (isinstance(i, Tensor) and i.dtype is _dtype.bool) for i in k
        ):
            _refuse(_BOOL_MASK)
        for i in k:
            if i is None or i is Ellipsis:
                continue
            if isinstance(i, slice):
                if not all(
                    v is None or (isinstance(v, int) and not isinstance(v, bool))
                    for v in (i.start, i.stop, i.step)
                ):
                    raise Fallback
            elif not isinstance(i, int) or isinstance(i, bool):
                raise Fallback
        if (
            sum(i is not None and i is not Ellipsis for i in k) > self.dim()
            or sum(i is Ellipsis for i in k) > 1
        ):
            raise Fallback
        return _wrap_b(self._phys[(slice(None), *k)], self._lvl)


def _shape_arg(shape):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    if not all(isinstance(s, int) and not isinstance(s, bool) for s in shape):
        raise Fallback
    return tuple(shape)


def _size(level):
    return LEVELS[level - 1]


def _wrap_b(phys, level):
    """``phys`` (batch axis first) as a batched tensor of ``level``."""
    if not isinstance(phys, Tensor):
        raise Fallback
    shp = tuple(phys.shape)
    if not shp or shp[0] != LEVELS[level - 1]:
        raise Fallback
    b = object.__new__(BatchedTensor)
    b._phys = phys
    b._lvl = level
    b._lshape = shp[1:]
    return b


def _level(*xs) -> int:
    lv = 0
    for x in xs:
        if x.__class__ is BatchedTensor and x._lvl > lv:
            lv = x._lvl
    return lv


def _unwrap(x, lv, rank=None):
    """The physical operand of ``x`` at level ``lv``: batched ones padded to ``rank`` logical
    dims behind the batch axis (so that broadcasting lines the logical dims up)."""
    if x.__class__ is BatchedTensor and x._lvl == lv:
        p = x._phys
        if rank is not None and len(x._lshape) < rank:
            p = p.reshape((_size(lv),) + (1,) * (rank - len(x._lshape)) + x._lshape)
        return p
    return x


_OPERANDS = (Tensor, int, float, bool, complex, str, type(None))


def _elementwise(fn, *args, **kwargs):
    """``fn`` of an elementwise (broadcasting) op, run once on the physical operands."""
    vals = list(args) + list(kwargs.values())
    lv = _level(*vals)
    if any(not isinstance(v, _OPERANDS) for v in vals):
        raise Fallback  # an array or a list would broadcast against the batch axis
    tens = [v for v in vals if isinstance(v, Tensor)]
    rank = max(t.dim() for t in tens)
    dts = {t.dtype for t in tens}
    cast = None
    if len(dts) > 1 and any(
        t.__class__ is BatchedTensor and t._lvl == lv and not t._lshape for t in tens
    ):
        # a 0-d batched operand is 1-d physically: promote as torch does on the logical ranks
        cast = _dtype.from_numpy_dtype(_dtype.result_type([(t.dim(), t.dtype.np) for t in tens]))

    def phys(a):
        p = _unwrap(a, lv, rank)
        if cast is not None and isinstance(p, Tensor) and p.dtype != cast:
            p = p.to(cast)
        return p

    out = fn(*(phys(a) for a in args), **{k: phys(v) for k, v in kwargs.items()})
    if not isinstance(out, Tensor) or out.dim() != rank + 1:
        raise Fallback
    return _wrap_b(out, lv)


def _method(name):
    def m(self, *args, **kwargs):
        return _elementwise(lambda x, *a, **k: getattr(x, name)(*a, **k), self, *args, **kwargs)

    m.__name__ = name
    return m


def _binary(op, reflected=False):
    if reflected:
        return lambda self, other: _elementwise(lambda a, b: op(b, a), self, other)
    return lambda self, other: _elementwise(op, self, other)


for _n, _op in (
    ("add", operator.add),
    ("sub", operator.sub),
    ("mul", operator.mul),
    ("truediv", operator.truediv),
    ("pow", operator.pow),
):
    setattr(BatchedTensor, f"__{_n}__", _binary(_op))
    setattr(BatchedTensor, f"__r{_n}__", _binary(_op, True))
for _n in ("lt", "le", "gt", "ge", "eq", "ne"):
    setattr(BatchedTensor, f"__{_n}__", _binary(getattr(operator, _n)))
BatchedTensor.__hash__ = Tensor.__hash__
BatchedTensor.__neg__ = lambda self: _elementwise(operator.neg, self)
for _n in (
    "abs",
    "neg",
    "square",
    "clone",
    "float",
    "double",
    "add",
    "sub",
    "mul",
    "div",
    "true_divide",
    "pow",
    "clamp",
    "clamp_min",
    "clamp_max",
    "maximum",
    "minimum",
):
    setattr(BatchedTensor, _n, _method(_n))


def install_rows() -> None:
    """Every Tensor method that is one registry row declared ``batch=ELEMENTWISE`` (once: the
    methods are all on Tensor by the first vmap call)."""
    if _INSTALLED[0]:
        return
    _INSTALLED[0] = True
    for name in dir(Tensor):
        if name in vars(BatchedTensor) or name.endswith("_") and not name.startswith("__"):
            continue
        row = getattr(getattr(Tensor, name, None), "_row", None)
        if (
            row is not None
            and row.batch is ELEMENTWISE
            and row.n_out == 1
            and row.name not in ("mm", "addmm", "bmm")
            and not name.startswith("__")
        ):
            setattr(BatchedTensor, name, _method(name))


_FUNCS: dict = {}  # module-level functions handed batched inputs (filled by _vmap_rules)


def grad_and_value(func, nums, has_aux, args, kwargs, flatten, unflatten, split_aux):
    """``grad_and_value(func)`` inside a batched vmap: one forward and one backward over the
    batch, differentiating per-sample physical leaves."""
    lv = len(LEVELS)
    if lv != 1:
        raise Fallback  # nested batched levels under grad: per-element run
    B = LEVELS[0]
    with enable_grad():
        trees = [flatten(args[i]) for i in nums]
        args2 = list(args)
        phys, prepared = [], []
        for i, (leaves, spec) in zip(nums, trees):
            ps = []
            for x in leaves:
                if x.__class__ is BatchedTensor:
                    p = x._phys
                    if p.__class__ is BatchedTensor or p.requires_grad:
                        raise Fallback
                    leaf = p.detach().requires_grad_(True)
                elif isinstance(x, Tensor):
                    if x.requires_grad or not x.is_floating_point():
                        raise Fallback
                    # one read-only copy per sample (zero stride): per-sample gradients
                    d = x.detach()._data
                    leaf = Tensor._wrap(np.broadcast_to(d, (B, *d.shape)), True)
                else:
                    raise Fallback
                phys.append(leaf)
                ps.append(_wrap_b(leaf, lv))
            prepared.append(ps)
            args2[i] = unflatten(ps, spec)
        out, aux = split_aux(func(*args2, **kwargs), has_aux, "grad_and_value")
        if out.__class__ is not BatchedTensor or out._lvl != lv or out.dim() != 0:
            raise Fallback  # the per-element run gives torch's errors
        po = out._phys
        if po.requires_grad:
            gs = _grad(po, phys, grad_outputs=ones(B, dtype=po.dtype), allow_unused=True)
        else:
            gs = (None,) * len(phys)
    gs = [
        _wrap_b(g.detach() if g is not None else zeros(tuple(x.shape), dtype=x.dtype), lv)
        for g, x in zip(gs, phys)
    ]
    per_arg = []
    for ps, (_, spec) in zip(prepared, trees):
        per_arg.append(unflatten(gs[: len(ps)], spec))
        gs = gs[len(ps) :]
    value = _wrap_b(po.detach(), lv)
    return per_arg, value, aux
