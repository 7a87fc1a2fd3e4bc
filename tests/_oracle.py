"""Run one program under torch and under jupyter_autograd and compare what a user sees.

A *program* is ``program(lib)`` where ``lib`` is ``torch`` or ``jupyter_autograd``. Its outcome is
what it returned (tensors as dtype, shape, values, ``requires_grad``, ``is_leaf`` and ``grad_fn``
name; tuples, lists and plain values as they are) or the exception it raised (type name and
message), plus the warnings it emitted (category and message; torch's build-specific
`` (Triggered internally at ...)`` suffix dropped, as spec/pytorch-semantics.md says).
"""

from __future__ import annotations

import math
import re
import warnings

import numpy as np

import jupyter_autograd as ja

_TRIGGERED = re.compile(r" \(Triggered internally at .*\)$", re.DOTALL)


def _is_tensor(x) -> bool:
    return (
        isinstance(x, ja.Tensor) or type(x).__module__.startswith("torch") and hasattr(x, "grad_fn")
    )


def _summary(x):
    if _is_tensor(x):
        fn = x.grad_fn
        d = x.detach()
        if str(d.device) != "cpu":
            d = d.cpu()
        return (
            "tensor",
            str(x.dtype),
            tuple(x.shape),
            np.array(d.tolist(), dtype=_np_dtype(x)),
            bool(x.requires_grad),
            bool(x.is_leaf),
            None if fn is None else type(fn).__name__,
        )
    if isinstance(x, (tuple, list)):
        return (type(x).__name__, tuple(_summary(v) for v in x))
    if isinstance(x, float) and math.isnan(x):
        return ("float", "nan")
    if (
        isinstance(x, ja.dtype)
        or type(x).__name__ in ("dtype", "device")
        and type(x).__module__.startswith("torch")
    ):
        return (type(x).__name__, str(x))
    if isinstance(x, ja.device):
        return ("device", str(x))
    return x


def _np_dtype(t):
    name = str(t.dtype).replace("torch.", "")
    return {"bool": np.bool_}.get(name, getattr(np, name, None))


def outcome(lib, program):
    """``(("ok", summary) or ("raise", type name, message), warnings)``."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            res = ("ok", _summary(program(lib)))
        except Exception as e:  # noqa: BLE001 - the exception is the outcome being compared
            res = ("raise", type(e).__name__, str(e))
    ws = [(w.category.__name__, _TRIGGERED.sub("", str(w.message))) for w in caught]
    return res, ws


def _same(a, b, rtol, atol) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        if not (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)) or a.shape != b.shape:
            return False
        if a.dtype.kind in "fc":
            return bool(
                np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True)
                and np.array_equal(np.isnan(a), np.isnan(b))
                and np.array_equal(
                    np.signbit(a.real[np.isinf(a.real)]), np.signbit(b.real[np.isinf(b.real)])
                )
            )
        return bool(np.array_equal(a, b))
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_same(x, y, rtol, atol) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, float):
        return bool(np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=True))
    return a == b


def assert_as_torch(torch, program, rtol=1e-6, atol=1e-7, warnings_too=True) -> None:
    """``program`` gives the same outcome (and warnings) under both libraries."""
    theirs = outcome(torch, program)
    ours = outcome(ja, program)
    same = _same(ours[0], theirs[0], rtol, atol) and (not warnings_too or ours[1] == theirs[1])
    assert same, f"\ntorch: {theirs}\nours:  {ours}"
