"""Issue #18's acceptance calls, each run under torch and under jupyter_autograd and compared
(values, dtypes, grad_fn names, reprs, errors): NumPy keyword names, the legacy typed
constructors, ``Tensor.log10``, ``F.one_hot``, ``torch.multinomial``, ``nn.LazyLinear``, and
``out=`` on the functions beyond ``ops/api.py``."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import jupyter_autograd as ja

from .._torch import require as require_torch


def _observe(lib, fn):
    """What a call shows: its repr (tensors as values, dtype, grad_fn name), or its error."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            r = fn(lib)
        except Exception as e:  # noqa: BLE001 - the error is the observation
            return ("raised", type(e).__name__, str(e).split("\n")[0])
    # torch's C++ warnings end with where they were raised: " (Triggered internally at ...)"
    return (_show(r), [str(w.message).split(" (Triggered internally")[0] for w in caught])


def _show(r):
    if isinstance(r, (tuple, list)):
        return type(r).__name__, [_show(v) for v in r]
    if hasattr(r, "detach") and hasattr(r, "dtype"):
        g = type(r.grad_fn).__name__ if r.grad_fn is not None else None
        return ("tensor", _values(r.detach().numpy()), str(r.dtype), tuple(r.shape), g)
    return repr(r)


def _values(a):
    """A tensor's values to 6 significant digits: float32 transcendental functions differ by
    an ulp between NumPy's SIMD paths (the CPU decides which) and from torch's."""
    if a.dtype.kind not in "fc":
        return a.tolist()
    flat = a.reshape(-1)
    if a.dtype.kind == "c":
        return [(f"{v.real:.6g}", f"{v.imag:.6g}") for v in flat], a.shape
    return [f"{v:.6g}" for v in flat], a.shape


def _with_out(t, n, call):
    """``call(out)`` with a fresh ``out`` of ``n`` elements, and that out afterwards."""
    o = t.empty(n)
    return call(o), o


CASES = {
    "sum-axis-keepdims": lambda t: t.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True).sum(
        axis=1, keepdims=True
    ),
    "argmax-axis": lambda t: t.argmax(t.tensor([[1.0, 5.0], [3.0, 4.0]]), axis=0),
    "mean-axis-function": lambda t: t.mean(
        t.tensor([[1.0, 2.0], [3.0, 4.0]]), axis=0, keepdims=True
    ),
    "FloatTensor-list": lambda t: t.FloatTensor([1, 2]),
    "FloatTensor-sizes": lambda t: t.FloatTensor(2, 3).shape,
    "FloatTensor-empty": lambda t: t.FloatTensor(),
    "LongTensor-floats": lambda t: t.LongTensor([1.7, 2]),
    "LongTensor-Size": lambda t: t.LongTensor(t.Size([2, 1])).shape,
    "BoolTensor": lambda t: t.BoolTensor([0, 2]),
    "DoubleTensor-isinstance": lambda t: (
        isinstance(t.DoubleTensor([1]), t.DoubleTensor),
        isinstance(t.ones(1), t.DoubleTensor),
    ),
    "type-legacy": lambda t: (
        t.ones(2).type(t.LongTensor),
        t.ones(2).type("torch.DoubleTensor"),
        t.ones(1, dtype=t.int64).type(),
    ),
    "FloatTensor-wrong-dtype": lambda t: t.FloatTensor(t.ones(2, dtype=t.float64)),
    "FloatTensor-number": lambda t: t.FloatTensor(2.5),
    "FloatTensor-negative": lambda t: t.FloatTensor(-1),
    "log10-method": lambda t: t.tensor([1.0, 100.0], requires_grad=True).log10(),
    "one_hot": lambda t: t.nn.functional.one_hot(t.tensor([0, 3, 1]), 5),
    "one_hot-inferred": lambda t: t.nn.functional.one_hot(t.tensor([[0], [2]])),
    "multinomial": lambda t: (t.manual_seed(0), t.multinomial(t.tensor([0.1, 0.5, 0.4]), 3))[1],
    "multinomial-replacement": lambda t: (
        t.manual_seed(3),
        t.multinomial(t.tensor([[0.2, 0.8], [0.5, 0.5]]), 4, True),
    )[1],
    "atan2-out": lambda t: _with_out(
        t, 2, lambda o: t.atan2(t.tensor([1.0, -1.0]), t.tensor([2.0, 2.0]), out=o)
    ),
    "log2-out-resized": lambda t: _with_out(
        t, 3, lambda o: (t.log2(t.tensor([1.0, 8.0]), out=o), o.shape)
    ),
    "hypot-out-int": lambda t: t.hypot(
        t.tensor([3.0]), t.tensor([4.0]), out=t.empty(1, dtype=t.int64)
    ),
    "xlogy-out": lambda t: _with_out(
        t, 2, lambda o: t.xlogy(t.tensor([1.0, 2.0]), t.tensor([3.0, 4.0]), out=o)
    ),
    "lerp-end-dtype": lambda t: t.lerp(t.ones(2), t.ones(2, dtype=t.float64), 0.5),
    "movedim-0d": lambda t: t.tensor(1.0, requires_grad=True).movedim(0, -1),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_call_matches_torch(name):
    torch = require_torch()
    fn = CASES[name]
    assert _observe(ja, fn) == _observe(torch, fn)


def test_lazy_linear_matches_torch():
    """LazyLinear: repr before and after, in_features from the first input, Linear's draws."""
    torch = require_torch()

    def run(t):
        t.manual_seed(0)
        m = t.nn.LazyLinear(4)
        before = (repr(m), repr(m.weight), type(m.weight).__name__)
        y = m(t.ones(2, 3))
        after = (repr(m), type(m).__name__, isinstance(m, t.nn.Linear), type(m.weight).__name__)
        m2 = t.nn.LazyLinear(2, bias=False)
        return (
            before,
            after,
            m.weight.detach().numpy(),
            m.bias.detach().numpy(),
            type(y.grad_fn).__name__,
            repr(m2),
            list(m2.state_dict()),
        )

    ours, theirs = run(ja), run(torch)
    for a, b in zip(ours, theirs):
        if isinstance(a, np.ndarray):
            np.testing.assert_array_equal(a, b)
        else:
            assert a == b
