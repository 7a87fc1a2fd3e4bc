"""Array namespaces handed to op rules: NumPy/CuPy plus the few helpers that NumPy lacks.

A rule written against ``xp`` runs unchanged on raw arrays (this module) and on Tensors
(:mod:`.txp`, for ``create_graph=True``).
"""

from __future__ import annotations

import contextvars
import warnings

import numpy as np


class ArrayNamespace:
    """Delegates to an array module (numpy or cupy) and adds scatter helpers."""

    is_txp = False

    def __init__(self, mod) -> None:
        self._mod = mod
        self.__name__ = mod.__name__

    def __getattr__(self, name: str):
        v = getattr(self._mod, name)
        setattr(self, name, v)  # cache: later lookups are plain attribute reads
        return v

    @staticmethod
    def cj(x):
        """Where torch's complex formula conjugates (``result.conj() + 1``): nothing on arrays
        (a complex twin's rule already runs on conjugated operands); the complex twin's graph
        records the ConjBackward0 there (ops/txp_reflect.py)."""
        return x

    # torch's formulas (derivatives.yaml) call Scalar overloads: ``result.pow(2)``, ``1 + t``,
    # ``2 * t``, ``t / 2``. On arrays they are the operators; under create_graph (txp) they
    # record torch's nodes (PowBackward0, AddBackward1, MulBackward1, DivBackward1...).
    @staticmethod
    def add_scalar(x, c):
        return x + c

    @staticmethod
    def sub_scalar(x, c):
        return x - c

    @staticmethod
    def mul_scalar(x, c):
        return x * c

    @staticmethod
    def div_scalar(x, c):
        return x / c

    @staticmethod
    def pow_scalar(x, c):
        return x**c

    @staticmethod
    def scalar_sub(c, x):
        """C++'s ``c - t`` (a tensor filled with c, minus t: SubBackward0 under create_graph)."""
        return c - x

    @staticmethod
    def scalar_pow(c, x):
        """``pow(c, t)`` (PowBackward2 under create_graph)."""
        return c**x

    def rsqrt(self, x):
        return 1 / self._mod.sqrt(x)

    def masked_fill(self, x, mask, value):
        return self._mod.where(mask, value, x)

    @staticmethod
    def t(x):
        return x.T

    def sigmoid(self, x):
        return 1 / (1 + self._mod.exp(-x))

    def call(self, op, *args, p=None):
        """Row ``op``'s forward on arrays; under create_graph the row is applied and records its
        node (a backward kernel with its own double backward: tanh_backward)."""
        return op.fwd(self, *args, p)

    def sgn(self, x):
        """torch.sgn: ``x / |x|`` (0 at 0) for complex, the sign for real (0 at nan, as torch's
        sign and sgn kernels: NumPy's sign of nan is nan)."""
        m = self._mod
        if x.dtype.kind != "c":
            if x.dtype.kind == "b":  # torch: the sign of a bool is itself
                return x.copy()
            s = m.sign(x)
            if x.dtype.kind == "f":
                s = m.where(m.isnan(s), s.dtype.type(0), s)
            return s
        a = m.abs(x)
        zero = a == 0
        return m.where(zero, 0, x / m.where(zero, 1, a))

    def keep_where(self, cond, x):
        """``where(cond, x, 0)`` for a float ``x``, without a branch per element: torch's
        threshold_backward (a gradient cut by a mask, so inf/nan there give +0, not nan or -0).
        NumPy's where mispredicts on a random mask (a ReLU's) and costs several products; this
        ANDs x's bits with the mask's (all ones or all zeros), one pass of integer work."""
        m = self._mod
        u = _UINT.get(x.dtype.itemsize) if x.dtype.kind == "f" else None
        if u is None or not x.ndim or cond.shape != x.shape:  # a 0-d comparison is a scalar
            return m.where(cond, x, x.dtype.type(0))
        bits = cond.astype(u)
        m.negative(bits, out=bits)
        return m.bitwise_and(x.view(u), bits, out=bits).view(x.dtype)

    def zero_where(self, cut, x):
        """``where(cut, 0, x)`` for a float ``x``, by keep_where's bit trick with the mask
        inverted: torch's threshold_backward (``self <= threshold ? 0 : grad``: a NaN self
        passes the gradient, an inf/nan gradient where cut gives +0)."""
        u = _UINT_OF.get(x.dtype)
        if u is None or not x.ndim or cut.shape != x.shape:
            return self._mod.where(cut, x.dtype.type(0), x)
        m = self._mod
        # 1 (cut) -> 0, 0 -> all ones (a subtract with dtype=u, casting inside the ufunc, costs
        # more: 13 k instructions per spiral backward, measured)
        bits = cut.astype(u)
        m.subtract(bits, 1, out=bits)
        return m.bitwise_and(x.view(u), bits, out=bits).view(x.dtype)

    def zero_tensor_like(self, g):
        """torch's ``_efficientzerotensor`` of ``g``'s shape and dtype (see _zerotensor)."""
        if self._mod is not np:
            return self._mod.zeros_like(g)
        from .._zerotensor import zeros_like

        return zeros_like(g)

    def scatter_add_zeros(self, g, key, shape):
        """zeros(shape) with g added at ``key`` (repeated indices accumulate)."""
        z = self._mod.zeros(shape, g.dtype)
        if _basic(key):  # no element twice: copied, as torch's select/slice_backward (-0 stays)
            z[key] = g
        elif self._mod is np:
            np.add.at(z, key, g)
        else:
            try:
                self._mod.add.at(z, key, g)
            except AttributeError:  # older CuPy
                import cupyx

                cupyx.scatter_add(z, key, g)
        return z

    def put_along_axis_zeros(self, g, idx, axis, shape):
        z = self._mod.zeros(shape, g.dtype)
        self._mod.put_along_axis(z, idx, g, axis=axis)
        return z

    # What a rule needs to know about its arrays' type lives here, not in the rules: these are
    # the plain forms every backend runs (CuPy, the stand-in device); :class:`NumpyNamespace`
    # overrides them with what only NumPy arrays allow. The rules stay backend-agnostic.
    def keep_reduce(self, x, d, how):
        """``x.max/sum(axis=d, keepdims=True)`` (``how``: "max" or "sum")."""
        return x.max(axis=d, keepdims=True) if how == "max" else x.sum(axis=d, keepdims=True)

    def sum_all(self, x):
        """The sum of every element (a 0-d result)."""
        return self._mod.sum(x)

    def row_index(self, n):
        """``arange(n)``: a row index, for picking one element per row."""
        return self._mod.arange(n)

    def add_at(self, r, key, v):
        """``r[key] += v`` in place, repeated indices adding up (ufunc.at)."""
        try:
            self._mod.add.at(r, key, v)
        except AttributeError:  # older CuPy
            import cupyx

            cupyx.scatter_add(r, key, v)

    @staticmethod
    def is_expanded_empty(g):
        """Whether ``g`` is an empty array expanded by a broadcast (all strides 0) whose
        expansion must outlive a reshape (torch's unsqueeze/expand keep it; NumPy's reshape
        gives fresh strides): only NumPy's arrays are tracked so."""
        return False

    @staticmethod
    def diagonal_view(y, offset, rows, cols):
        """The diagonal ``y[..., rows, cols]`` of the last two dims (a copy where the backend
        cannot view it)."""
        return y[..., rows, cols]

    def to_host(self, a):
        """A NumPy copy of a device array (index bookkeeping runs on the host)."""
        return self._mod.asnumpy(a)

    def like(self, a, like):
        """Host array ``a`` on the device of ``like`` (an array of this namespace)."""
        from ..backend import device_of_array, move_array

        return move_array(a, device_of_array(like))

    def on_host(self, fn, args):
        """``fn(NPX, *args)`` on host copies of the device arrays in ``args`` (tuples, lists
        and dicts searched), its results moved back: LAPACK and the special functions run
        through NumPy on the host."""
        from ..backend import device_of_array, move_array

        dev = next((device_of_array(a) for a in _device_leaves(args)), None)
        if dev is None:
            return fn(NPX, *args)
        move = lambda a: move_array(a, "cpu") if _is_array(a) else a
        back = lambda a: move_array(a, dev) if _is_array(a) else a
        return _tree(back, fn(NPX, *_tree(move, args)))


class NumpyNamespace(ArrayNamespace):
    """NumPy's namespace: the plain forms of :class:`ArrayNamespace` with the tricks only
    NumPy's arrays allow (measured on the per-op hot path: see each)."""

    def keep_reduce(self, x, d, how):
        """NumPy reduces a short innermost axis one row at a time (300x3 floats: 12 us for max,
        6 us for sum; 3000x3: 100 us), so such an axis (a classifier's logits) is summed as a
        BLAS product with ones, and its max taken over a transposed copy (1-2 us)."""
        if x.__class__ is not np.ndarray:  # a NumPy scalar
            return ArrayNamespace.keep_reduce(self, x, d, how)
        shape = x.shape
        n = len(shape)
        if n >= 2 and d == n - 1 and 1 < shape[-1] <= 16 and x.size >= 64 and x.dtype.kind == "f":
            c = shape[-1]
            x2 = x if n == 2 else x.reshape(-1, c)
            if how == "sum":
                r = x2 @ _ones(c, x.dtype)
            else:
                r = _max_reduce(x2.T.copy(), 0)
            return r.reshape(shape[:-1] + (1,))
        if x.dtype.kind == "f":  # the ufuncs' C reduce: ndarray.sum/max add a Python wrapper
            return (_max_reduce if how == "max" else _add_reduce)(x, d, keepdims=True)
        return x.max(axis=d, keepdims=True) if how == "max" else x.sum(axis=d, keepdims=True)

    @staticmethod
    def sum_all(x):
        return _add_reduce(x, None)  # the ufunc's C reduce, without np.sum's Python wrapper

    @staticmethod
    def row_index(n):
        return _arange(n)  # cached, read-only

    @staticmethod
    def add_at(r, key, v):
        np.add.at(r, key, v)

    @staticmethod
    def is_expanded_empty(g):
        return g.__class__ is np.ndarray and not g.flags.writeable and not any(g.strides)

    @staticmethod
    def diagonal_view(y, offset, rows, cols):
        """A strided view of the input, as torch's diagonal: writes through it reach the base
        (NumPy's own diagonal is read-only)."""
        if y.__class__ is not np.ndarray:
            return y[..., rows, cols]
        y = y[..., :, offset:] if offset >= 0 else y[..., -offset:, :]
        st = y.strides
        return np.lib.stride_tricks.as_strided(
            y,
            y.shape[:-2] + (len(rows),),
            st[:-2] + (st[-2] + st[-1],),
            writeable=y.flags.writeable,
        )

    @staticmethod
    def to_host(a):
        return a

    @staticmethod
    def like(a, like):
        return a

    def on_host(self, fn, args):
        return fn(self, *args)


def _is_array(a) -> bool:
    return hasattr(a, "shape") and hasattr(a, "dtype")


def _device_leaves(x):
    """The arrays in ``x`` (nested tuples, lists and dicts) that are not NumPy's."""
    for y in x.values() if isinstance(x, dict) else x:
        if isinstance(y, (tuple, list, dict)):
            yield from _device_leaves(y)
        elif _is_array(y) and not isinstance(y, (np.ndarray, np.generic)):
            yield y


def _tree(f, x):
    if isinstance(x, tuple):
        return tuple(_tree(f, y) for y in x)
    if isinstance(x, list):
        return [_tree(f, y) for y in x]
    if isinstance(x, dict):
        return {k: _tree(f, v) for k, v in x.items()}
    return f(x)


def _basic(key) -> bool:
    """Whether an indexing key is basic (ints, slices, Ellipsis, None): it views each element
    once at most."""
    if not isinstance(key, tuple):
        key = (key,)
    return all(
        k is None
        or k is Ellipsis
        or isinstance(k, (slice, int, np.integer))
        and not isinstance(k, (bool, np.bool_))
        for k in key
    )


_UINT = {2: np.uint16, 4: np.uint32, 8: np.uint64}
_UINT_OF = {np.dtype(f): _UINT[np.dtype(f).itemsize] for f in ("float16", "float32", "float64")}
_max_reduce, _add_reduce = np.maximum.reduce, np.add.reduce
NPX = NumpyNamespace(np)
_READONLY: dict = {}


def _readonly(key, make, *args):
    """A cached read-only ``make(*args)`` (shared by every caller: nobody may write into it)."""
    if len(_READONLY) > 128:
        _READONLY.clear()
    v = _READONLY[key] = make(*args)
    v.flags.writeable = False
    return v


def _ones(n: int, dtype):
    """A read-only vector of n ones, for sums as BLAS products."""
    key = ("ones", n, dtype)
    v = _READONLY.get(key)
    return v if v is not None else _readonly(key, np.ones, n, dtype)


def _arange(n: int):
    """A read-only ``arange(n)`` (row indices for picking one column per row)."""
    key = ("arange", n)
    v = _READONLY.get(key)
    return v if v is not None else _readonly(key, np.arange, n)


_CACHE = {np: NPX}


def namespace_for(mod) -> ArrayNamespace:
    ns = _CACHE.get(mod)
    if ns is None:
        ns = _CACHE[mod] = ArrayNamespace(mod)
    return ns


# torch's kernels never warn about floating-point exceptions (log(-1) is nan, 1/0 inf, silently);
# NumPy's ufuncs do, by default. Two ways keep the forwards silent:
# - QUIET, NumPy's error state set to ignore everything around a forward. With NumPy >= 2 that
#   state is a context variable: setting it and resetting it with the token is two C calls
#   (np.errstate's context manager costs ~10x more); NumPy 1.x keeps it in seterr. Still, the
#   two calls are ~8% of a small op's time.
# - FP_FILTER, a warnings filter installed at import that ignores NumPy's floating-point
#   RuntimeWarnings raised from this package's frames. It costs nothing where no exception
#   occurs, but holds only while NumPy's error state is the default one (np.seterr or
#   np.errstate elsewhere may ask to raise) and no filter that acts on it has been put in front
#   (warnings.simplefilter("error"), pytest's -W): filter_holds() checks both, and the dispatch
#   uses QUIET where it does not. Only the elementwise rows rely on the filter
#   (dispatch.filtered; tests/test_quiet_forwards.py runs each on inf, nan and zeros): a ufunc
#   reached through NumPy's Python code (np.mean, np.sinc) warns from NumPy's frame, which the
#   filter does not name, so such a forward sets the error state itself (trig.py's sinc).
FP_MESSAGES = r"(divide by zero|overflow|underflow|invalid value) encountered in "
warnings.filterwarnings("ignore", FP_MESSAGES, RuntimeWarning, r"jupyter_autograd\.")
FP_FILTER = warnings.filters[0]
try:
    from numpy._core._ufunc_config import _extobj_contextvar, _make_extobj

    quiet_enter = _extobj_contextvar.set
    quiet_exit = _extobj_contextvar.reset
    QUIET = _make_extobj(all="ignore")
    errstate_now = _extobj_contextvar.get
    # NumPy's own default (a fresh context holds no value: the variable's default), not the
    # state at import, which np.seterr may have changed already
    DEFAULT_ERRSTATE = contextvars.Context().run(_extobj_contextvar.get)
except (ImportError, AttributeError):  # NumPy 1.x
    QUIET = {"all": "ignore"}
    DEFAULT_ERRSTATE = object()  # never the current state: QUIET always

    def errstate_now():
        return None

    def quiet_enter(q):
        return np.seterr(**q)

    def quiet_exit(old):
        np.seterr(**old)


FILTER_SEEN = [None, -1, None, False]  # warnings.filters as last read: list, length, first, verdict


def _watch_filters() -> list:
    """A one-item list holding the filter list for which filter_holds() last said yes, emptied
    (None) whenever the warnings module changes its filters: dispatch.fast_entry tests
    ``warnings.filters is FILTER_OK[0]``, one comparison per op (the filter list's length and
    first entry cost ~150 ns a small op here). Every change the warnings module makes
    (filterwarnings, simplefilter, resetwarnings, catch_warnings' enter and exit) calls its
    ``_filters_mutated``, which is wrapped to empty the list; where the module's functions do not
    read that name from its globals (other Pythons), nothing is wrapped and the list stays empty:
    filter_holds() then decides every op. A filter list edited by hand, without those functions,
    is not seen (CPython's own warning caches miss it too)."""
    hook = getattr(warnings, "_filters_mutated", None)
    if getattr(hook, "ja_watch", None) is not None:  # importlib.reload: one wrapper, one list
        return hook.ja_watch
    watch = [None]
    if hook is None or getattr(warnings.simplefilter, "__globals__", None) is not vars(warnings):
        return watch

    def _filters_mutated():
        watch[0] = None
        hook()

    _filters_mutated.ja_watch = watch
    warnings._filters_mutated = _filters_mutated
    return watch


FILTER_OK = _watch_filters()
_WATCHING = getattr(getattr(warnings, "_filters_mutated", None), "ja_watch", None) is FILTER_OK


def filter_holds() -> bool:
    """Whether FP_FILTER silences NumPy here now: NumPy's error state is the default one, and
    no filter in front of ours acts on a RuntimeWarning other than by ignoring it (libraries
    put ignore filters in front at import, torch among them; pytest's and a user's
    ``simplefilter("error")`` are what this refuses). A yes is kept in FILTER_OK until the
    warnings module changes its filters (the fast entries test it inline: a call costs ~60 ns,
    1.5% of a small op); any verdict is kept while the filter list is the same list with the
    same length and first entry (where the module's changes cannot be watched)."""
    if errstate_now() is not DEFAULT_ERRSTATE:
        return False
    f = warnings.filters
    if f is FILTER_OK[0]:  # a yes kept since the filters last changed
        return True
    s = FILTER_SEEN
    if f is s[0] and (n := len(f)) == s[1] and (n == 0 or f[0] is s[2]):
        return s[3]
    ok = False
    for entry in f:
        if entry is FP_FILTER:
            ok = True
            break
        if entry[0] != "ignore" and issubclass(RuntimeWarning, entry[2]):
            break
    s[:] = [f, len(f), f[0] if f else None, ok]
    if ok and _WATCHING:
        FILTER_OK[0] = f
    return ok


def isnan(x):
    """NaN test by self-comparison: works on NumPy/CuPy arrays and on Tensors alike (rules that
    run under create_graph get Tensors, whose isnan is not recorded)."""
    return x != x  # noqa: PLR0124
