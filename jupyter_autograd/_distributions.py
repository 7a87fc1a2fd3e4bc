"""torch's CPU sampling kernels, vectorised in NumPy: the same transforms of the same words.

Each function takes a :class:`~jupyter_autograd.random.Generator` and returns a flat NumPy array
of samples in the order torch's kernel writes them (its TensorIterator order); callers shape and
place them. What each one reproduces (torch 2.13, ``aten/src/ATen/core/TransformationHelper.h``,
``DistributionsHelper.h`` and ``native/cpu/DistributionTemplates.h``):

- uniform: the low 24 (float32) or 53 (float64, from two words) bits times 2**-digits, then
  ``x * (to - from) + from`` in the dtype;
- normal, >= 16 contiguous elements: ``normal_fill`` (all uniforms first, Box-Muller on blocks
  of 16: the first 8 are u1 and the last 8 u2, the tail redone on 16 fresh uniforms); float32 on
  AVX2/AVX-512 builds uses avx_mathfun's log/sincos (see ``_fma``);
- normal otherwise: scalar Box-Muller in double on 53-bit uniforms, the sine kept in the
  generator for the next draw, as torch caches it;
- random_/randint: ``word % range + from`` with one word, two from a range of 2**28 on;
- bernoulli: ``uniform < p`` (double uniforms for a scalar p, float ones for a float32 tensor p);
- exponential, cauchy, log_normal, geometric: the double transforms of one uniform each;
- multinomial: exponential races (``p / Exp(1)``, argmax/topk) without replacement or for one
  sample, a cumulative distribution and a binary search per draw otherwise;
- randperm: the Fisher-Yates swap sequence torch runs, resolved without a Python loop.

x86 builds of torch fuse ``a * b + c`` into FMA instructions in these kernels except on the
baseline (``ATEN_CPU_CAPABILITY=default``) build, so the arithmetic follows the capability torch
would pick on this machine (:data:`CPU_CAPABILITY`).

Example:
    >>> from jupyter_autograd.random import Generator
    >>> from jupyter_autograd import _distributions as D
    >>> D.uniform(Generator().manual_seed(0), 3, "float32", 0.0, 1.0)
    array([0.4962566 , 0.7682218 , 0.08847743], dtype=float32)
"""

from __future__ import annotations

import math
import os
import platform

import numpy as np

from ._fma import fma, log256_ps, sincos256_ps

_f32, _f64, _f16 = np.float32, np.float64, np.float16
_M24, _M53 = np.uint32((1 << 24) - 1), np.uint64((1 << 53) - 1)
_TWO_PI = 2.0 * math.pi


def _cpu_capability() -> str:
    """The kernel set torch's dispatcher picks here: ``ATEN_CPU_CAPABILITY`` if set, else
    avx512 / avx2 / default from the CPU's flags (x86; other machines run the default one)."""
    env = os.environ.get("ATEN_CPU_CAPABILITY", "").lower()
    if env in ("default", "avx2", "avx512"):
        return env
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return "default"
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as f:
            flags = next(
                (line.split(":", 1)[1].split() for line in f if line.startswith("flags")), None
            )
    except OSError:
        flags = None
    if flags is None:
        return "avx2"  # x86 without /proc/cpuinfo (Windows, macOS): nearly always AVX2 and FMA
    if {"avx512vl", "avx512bw", "avx512dq", "fma"} <= set(flags):
        return "avx512"
    return "avx2" if {"avx2", "fma"} <= set(flags) else "default"


CPU_CAPABILITY = _cpu_capability()
_FUSED = CPU_CAPABILITY != "default"


def _muladd(a, b, c):
    """``a * b + c`` as torch's build computes it: fused, except on the baseline build."""
    if _FUSED:
        return fma(a, b, c)
    a = np.asarray(a)
    return a * np.asarray(b, a.dtype) + np.asarray(c, a.dtype)


# ---------------------------------------------------------------------------- libm
# torch's scalar kernels call the C library's log, log1p, exp, tan, sin, cos in double. NumPy's
# own SIMD float64 versions (AVX-512 machines) round some results the other way: log1p in ~9%
# of uniform draws, log in ~0.2%, enough to move a cached normal sample by an ulp. Where
# NumPy's differs from the C library here, the C library's (Python's math) is used, one
# element at a time.
def _differs(npf, mf) -> bool:
    x = np.linspace(1e-3, 0.999, 4099)
    return bool((npf(x) != np.fromiter(map(mf, x.tolist()), _f64, count=x.size)).any())


def _libm(npf, mf):
    """``npf`` where it agrees with the C library's ``mf`` here, else ``mf`` element by element;
    decided on the first call (not at import: most programs draw no such sample)."""
    use = []

    def f(x):
        if not use:
            use.append(not _differs(npf, mf))
        if use[0]:
            return npf(x)
        x = np.asarray(x, _f64)
        return np.fromiter(map(mf, x.ravel().tolist()), _f64, count=x.size).reshape(x.shape)

    return f


_log, _log1p, _exp = _libm(np.log, math.log), _libm(np.log1p, math.log1p), _libm(np.exp, math.exp)
_sin, _cos, _tan = _libm(np.sin, math.sin), _libm(np.cos, math.cos), _libm(np.tan, math.tan)


# ---------------------------------------------------------------------------- uniforms
def _u53(g, n: int) -> np.ndarray:
    """``n`` double uniforms in [0, 1) from torch's ``random64()``."""
    return (g._words64(n) & _M53).astype(_f64) * 2.0**-53


def _u24(g, n: int) -> np.ndarray:
    """``n`` float32 uniforms in [0, 1) from torch's ``random()``."""
    return (g._words32(n) & _M24).astype(_f32) * _f32(2.0**-24)


def uniform(g, n: int, dtype, low: float, high: float) -> np.ndarray:
    """torch's ``uniform_(low, high)`` samples: computed in the dtype (float for Half), and a
    value that rounds up to ``high`` is replaced by ``low``, as torch's kernel does."""
    dt = np.dtype(dtype)
    if dt == _f64:
        x, lo, hi = _u53(g, n), _f64(low), _f64(high)
    elif dt in (_f32, _f16):
        x, lo, hi = _u24(g, n), _f32(low), _f32(high)
    else:
        raise TypeError(f"uniform: unsupported dtype {dt}")
    if not (lo == 0 and hi == 1):  # x * 1 + 0 is exact either way
        x = _muladd(x, hi - lo, lo)
    x = x.astype(dt, copy=False)
    top = x == dt.type(high)
    if top.any():
        x[top] = dt.type(low)
    return x


# ---------------------------------------------------------------------------- normal
def normal(g, n: int, dtype, mean: float, std: float, contiguous: bool = True) -> np.ndarray:
    """torch's ``normal_(mean, std)`` on ``n`` elements of ``dtype``."""
    dt = np.dtype(dtype)
    if n < 16 or not contiguous:
        return _normal_serial(g, n, mean, std).astype(dt)
    if dt == _f16:
        # Half works in float (its op-math type) one block of 16 uniforms at a time, so the
        # uniforms of a partial last block are never drawn; the last 16 are redone on new ones
        full = n - n % 16
        out = np.empty(n, _f32)
        _blocks(_fill16_avx2, _u24(g, full), mean, std, out[:full])
        if n % 16:
            _blocks(_fill16_avx2, _u24(g, 16), mean, std, out[n - 16 :])
        return out.astype(_f16)
    fill16 = _fill16_avx2 if dt == _f32 and CPU_CAPABILITY != "default" else _fill16_scalar
    u = uniform(g, n, dt, 0.0, 1.0)
    full = n - n % 16
    out = np.empty(n, dt)
    _blocks(fill16, u[:full], mean, std, out[:full])
    if n % 16:
        # torch redraws 16 uniforms and recomputes the last 16 values
        _blocks(fill16, uniform(g, 16, dt, 0.0, 1.0), mean, std, out[n - 16 :])
    return out


def _blocks(fill16, u, mean, std, out, rows: int = 4096):
    """``fill16`` on rows of 16 uniforms, a few thousand rows at a time: the chain of NumPy
    passes then stays in cache (2-3x faster than whole-array passes for a million samples)."""
    u, out = u.reshape(-1, 16), out.reshape(-1, 16)
    for i in range(0, u.shape[0], rows):
        out[i : i + rows] = fill16(u[i : i + rows], mean, std)


def _normal_serial(g, n: int, mean: float, std: float) -> np.ndarray:
    """``normal_distribution<double>`` drawn n times: pairs of (cos, sin) samples, the first
    one possibly the sine cached by the previous call, the last sine cached for the next."""
    out = np.empty(n, _f64)
    start = 0
    if n and g._normal is not None:
        out[0], g._normal, start = g._normal, None, 1
    m = n - start
    k = (m + 1) // 2
    if k:
        u = _u53(g, 2 * k)
        r = np.sqrt(-2.0 * _log1p(-u[1::2]))
        theta = _TWO_PI * u[0::2]
        pairs = np.empty((k, 2), _f64)
        pairs[:, 0] = r * _cos(theta)
        pairs[:, 1] = r * _sin(theta)
        out[start:] = pairs.ravel()[:m]
        if m % 2:
            g._normal = float(pairs[-1, 1])
    if std == 1.0 and mean == 0.0:
        return out
    return _muladd(out, _f64(std), _f64(mean))


def _fill16_avx2(u, mean, std):
    """``NormalFill16<float>`` with AVX2 on rows of 16 float32 uniforms."""
    if CPU_CAPABILITY == "default":
        return _fill16_scalar(u, mean, std)
    radius = np.sqrt(_f32(-2.0) * log256_ps(_f32(1.0) - u[:, :8]))
    s, c = sincos256_ps(_f32(_TWO_PI) * u[:, 8:])
    m, sd = np.asarray(mean, _f32), np.asarray(std, _f32)
    return np.concatenate([fma(radius * c, sd, m), fma(radius * s, sd, m)], axis=1)


def _fill16_scalar(u, mean, std):
    """The scalar ``NormalFill16`` on rows of 16 uniforms (float or double, explicit fma)."""
    if u.dtype == _f64:
        radius = np.sqrt(-2.0 * _log(1.0 - u[:, :8]))
        theta = _TWO_PI * u[:, 8:]
        cos, sin = _cos(theta), _sin(theta)
    else:
        # glibc's logf/cosf/sinf are correctly rounded, so the double result rounded to float is
        # theirs (NumPy's own float32 versions differ in the last bit now and then)
        radius = np.sqrt(_f32(-2) * np.log((_f32(1) - u[:, :8]).astype(_f64)).astype(_f32))
        theta = (_TWO_PI * u[:, 8:].astype(_f64)).astype(_f32)
        cos = np.cos(theta.astype(_f64)).astype(_f32)
        sin = np.sin(theta.astype(_f64)).astype(_f32)
    m, sd = np.asarray(mean, u.dtype), np.asarray(std, u.dtype)
    return np.concatenate([fma(radius * cos, sd, m), fma(radius * sin, sd, m)], axis=1)


# ---------------------------------------------------------------------------- integers
_BIG_RANGE = 1 << 28  # torch 2.13 switches to random64() from this range on (any dtype)


def random_from_to(g, n: int, dtype, span: int, base: int) -> np.ndarray:
    """torch's ``random_(from, to)``: ``word % (to - from) + from`` cast to ``dtype``."""
    dt = np.dtype(dtype)
    words = g._words64(n) if span >= _BIG_RANGE else g._words32(n)
    vals = (words.astype(np.uint64) % np.uint64(span)) + np.uint64(base % (1 << 64))
    return _cast_int64(vals.view(np.int64), dt)


def random_full_range(g, n: int, dtype) -> np.ndarray:
    """torch's ``random_(-2**63, None)``: a whole 64-bit word as int64."""
    return _cast_int64(g._words64(n).view(np.int64), np.dtype(dtype))


_DEFAULT_MOD = {
    "float64": (1 << 53) + 1,
    "float32": (1 << 24) + 1,
    "float16": (1 << 11) + 1,
    "int64": 1 << 63,
    "int32": 1 << 31,
    "int16": 1 << 15,
    "int8": 1 << 7,
    "uint8": 1 << 8,
}


def random_default(g, n: int, dtype) -> np.ndarray:
    """torch's ``random_()``: [0, 2**mantissa] for floats, [0, max] for integers, bits for bool."""
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return (g._words32(n) & np.uint32(1)).astype(np.bool_)
    words = g._words64(n) if dt.name in ("int64", "float64") else g._words32(n).astype(np.uint64)
    return _cast_int64((words % np.uint64(_DEFAULT_MOD[dt.name])).view(np.int64), dt)


def _cast_int64(vals: np.ndarray, dt) -> np.ndarray:
    if dt == np.bool_:
        return vals != 0
    return vals.astype(dt)  # C++'s static_cast: wraps for narrow ints, rounds for floats


# ---------------------------------------------------------------------------- other laws
def bernoulli_scalar(g, n: int, dtype, p: float) -> np.ndarray:
    """torch's ``bernoulli_(p)`` for a number p: a double uniform below p."""
    return (_u53(g, n) < p).astype(dtype)


def bernoulli_tensor(g, p: np.ndarray, dtype) -> np.ndarray:
    """torch's ``bernoulli_(p)`` for a tensor p (flat, in output order): double uniforms for a
    float64 p, float32 ones otherwise."""
    if p.dtype == _f64:
        return (_u53(g, p.size) < p).astype(dtype)
    return (_u24(g, p.size) < p.astype(_f32)).astype(dtype)


def exponential(g, n: int, dtype, lambd: float) -> np.ndarray:
    """torch's ``exponential_(lambd)``: ``-1/lambd * log1p(-u)`` in double."""
    return ((-1.0 / lambd) * _log1p(-_u53(g, n))).astype(dtype)


def cauchy(g, n: int, dtype, median: float, sigma: float) -> np.ndarray:
    """torch's ``cauchy_(median, sigma)``: ``median + sigma * tan(pi * (u - 0.5))`` in double."""
    t = _tan(math.pi * (_u53(g, n) - 0.5))
    return _muladd(np.full(n, _f64(sigma)), t, _f64(median)).astype(dtype)


def log_normal(g, n: int, dtype, mean: float, std: float) -> np.ndarray:
    """torch's ``log_normal_(mean, std)``: ``exp`` of the scalar normal sampler."""
    return _exp(_normal_serial(g, n, mean, std)).astype(dtype)


def geometric(g, n: int, dtype, p: float) -> np.ndarray:
    """torch's ``geometric_(p)``: ``ceil(log(u) / log1p(-p))`` in double."""
    with np.errstate(divide="ignore"):
        v = np.ceil(_log(_u53(g, n)) / math.log1p(-p))
    return v.astype(dtype)


def multinomial(g, probs: np.ndarray, n_sample: int, replacement: bool) -> np.ndarray:
    """torch's ``multinomial`` on a 2-D array of rows (checks done by the caller)."""
    if not replacement or n_sample == 1:
        q = exponential(g, probs.size, probs.dtype, 1.0).reshape(probs.shape)
        with np.errstate(divide="ignore", invalid="ignore"):
            keys = probs / q
        if n_sample == 1:
            return np.argmax(keys, axis=-1)[:, None]
        # topk: largest first; a stable sort on the negated keys keeps equal keys in index order
        return np.argsort(-keys, axis=-1, kind="stable")[:, :n_sample]
    acc = probs.dtype if probs.dtype in (_f32, _f64) else _f32
    cum = np.cumsum(probs.astype(acc), axis=-1, dtype=acc)  # sequential, as torch's loop
    cum = cum / cum[:, -1:]
    cum[:, -1] = 1
    u = _u53(g, probs.shape[0] * n_sample).reshape(probs.shape[0], n_sample)
    out = np.empty(u.shape, np.int64)
    for i in range(probs.shape[0]):  # first slot whose cumulative mass reaches u
        out[i] = np.searchsorted(cum[i].astype(_f64), u[i], side="left")
    return out


# ---------------------------------------------------------------------------- randperm
RANDPERM_SMALL = 0xFFFFFFFF // 20  # below this n torch swaps with 32-bit words


def randperm(g, n: int) -> np.ndarray:
    """torch's ``randperm(n)`` (int64): for i in 0..n-2 swap r[i] with r[i + word % (n - i)]."""
    if n >= RANDPERM_SMALL:
        raise NotImplementedError(
            f"randperm({n}): torch switches to a 64-bit Fisher-Yates variant at n >= "
            f"{RANDPERM_SMALL}, which this package does not reproduce"
        )
    if n < 2:
        return np.arange(n, dtype=np.int64)
    steps = np.arange(n - 1, dtype=np.int64)
    target = steps + (g._words32(n - 1).astype(np.int64) % (n - steps))
    return _resolve_swaps(n, target)


def _resolve_swaps(n: int, target: np.ndarray) -> np.ndarray:
    """The permutation left by swapping r[k] and r[target[k]] for k = 0, 1, ... (target >= k).

    Slot k is final after step k, so out[k] is what slot target[k] holds just before step k:
    the value the last earlier step aiming at that slot moved there, else the slot's own index.
    A step m < j aiming at slot j moves there what slot m held before step m; those chains are
    followed by pointer jumping, so the whole sequence costs a sort and a few array passes.
    """
    steps = np.arange(target.size, dtype=np.int64)
    moving = steps[target != steps]
    # the moving steps grouped by target slot, in step order within a slot
    key = np.sort(target[moving] * n + moving)
    slot, order = np.divmod(key, n)
    same = np.empty(order.size, bool)
    same[:1] = False
    same[1:] = slot[1:] == slot[:-1]
    prev = np.where(same, np.roll(order, 1), -1)  # the earlier step aiming at the same slot
    last = np.ones(order.size, bool)
    last[:-1] = ~same[1:]
    every = np.arange(n, dtype=np.int64)
    into = np.full(n, -1, np.int64)  # into[j]: the last step that moved a value into slot j
    into[slot[last]] = order[last]
    # before[k]: the index whose value slot k holds just before step k (chains of moves)
    before = np.where(into < 0, every, into)
    while True:
        nxt = before[before]
        if np.array_equal(nxt, before):
            break
        before = nxt
    src = np.full(target.size, -1, np.int64)  # the step that last filled slot target[k]
    src[order] = prev
    fixed = target == steps  # a step swapping a slot with itself reads that slot's own value
    src[fixed] = into[steps[fixed]]
    out = np.empty(n, np.int64)
    out[:-1] = np.where(src < 0, target, before[np.maximum(src, 0)])
    out[-1] = before[n - 1]
    return out
