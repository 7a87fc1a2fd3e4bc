"""Pooling and padding against torch: max/avg/adaptive pools (1-D and 2-D) with
hypothesis-drawn windows, float32 and float64; indices, gradients, gradients of gradients,
forward-mode tangents, torch's messages and the modules' reprs; F.pad in every mode."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jupyter_autograd as ja

from ._layer_parity import compare, compare_errors, compare_jvp, compare_repr
from ._torch import require as require_torch


def _distinct(rng, shape):
    """Values without ties (a tie's winner is torch's first; covered separately)."""
    return (rng.permutation(int(np.prod(shape))).reshape(shape) - np.prod(shape) / 2) / 7.0


@st.composite
def pool_cases(draw, kind):
    k = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    s = draw(st.sampled_from([None, (1, 1), (2, 2), (1, 2), (3, 2)]))
    pad = (draw(st.integers(0, k[0] // 2)), draw(st.integers(0, k[1] // 2)))
    kw = {"kernel_size": k, "stride": s, "padding": pad, "ceil_mode": draw(st.booleans())}
    if kind == "max":
        d = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
        kw["padding"] = tuple(min(p, ((kk - 1) * dd + 1) // 2) for p, kk, dd in zip(pad, k, d))
        kw["dilation"] = d
    else:
        kw["count_include_pad"] = draw(st.booleans())
        kw["divisor_override"] = draw(st.sampled_from([None, None, 3]))
    eff = [(kk - 1) * kw.get("dilation", (1, 1))[i] + 1 for i, kk in enumerate(k)]
    shape = tuple([draw(st.integers(1, 2)), draw(st.integers(1, 3))][: draw(st.integers(1, 2))]) + (
        draw(st.integers(eff[0], eff[0] + 5)),
        draw(st.integers(eff[1], eff[1] + 5)),
    )
    if len(shape) == 3 and shape[0] == 0:
        shape = (1,) + shape[1:]
    return kw, shape, draw(st.sampled_from(["float32", "float64"])), draw(st.integers(0, 2**31))


@pytest.mark.parametrize("kind", ["max", "avg"])
@settings(max_examples=80, deadline=None)
@given(data=st.data())
def test_pool2d_matches_torch_hypothesis(kind, data):
    torch = require_torch()
    kw, shape, dtype, seed = data.draw(pool_cases(kind))
    x = _distinct(np.random.default_rng(seed), shape)
    fn = "max_pool2d" if kind == "max" else "avg_pool2d"
    compare(lambda lib, t: getattr(lib.nn.functional, fn)(t, **kw), [x], torch, dtype, seed=seed)
    if kind == "max":
        o = ja.nn.functional.max_pool2d(ja.tensor(x), return_indices=True, **kw)
        t = torch.nn.functional.max_pool2d(torch.tensor(x), return_indices=True, **kw)
        assert o[1].dtype == ja.int64
        np.testing.assert_array_equal(o[1].numpy(), t[1].numpy())


@settings(max_examples=40, deadline=None)
@given(
    h=st.integers(1, 9),
    w=st.integers(1, 9),
    oh=st.integers(1, 5),
    ow=st.integers(1, 5),
    kind=st.sampled_from(["avg", "max"]),
    seed=st.integers(0, 2**31),
)
def test_adaptive_pool2d_matches_torch(h, w, oh, ow, kind, seed):
    torch = require_torch()
    x = _distinct(np.random.default_rng(seed), (2, 3, h, w))
    fn = f"adaptive_{kind}_pool2d"
    compare(lambda lib, t: getattr(lib.nn.functional, fn)(t, (oh, ow)), [x], torch)
    if kind == "max":
        o = ja.nn.functional.adaptive_max_pool2d(ja.tensor(x), (oh, ow), return_indices=True)
        t = torch.nn.functional.adaptive_max_pool2d(torch.tensor(x), (oh, ow), return_indices=True)
        np.testing.assert_array_equal(o[1].numpy(), t[1].numpy())


CASES_1D = [
    ("max_pool1d", {"kernel_size": 3, "stride": 2, "padding": 1}),
    ("max_pool1d", {"kernel_size": 2, "dilation": 2, "ceil_mode": True}),
    ("avg_pool1d", {"kernel_size": 3, "stride": 2, "padding": 1, "count_include_pad": False}),
    ("avg_pool1d", {"kernel_size": 2, "ceil_mode": True}),
    ("adaptive_avg_pool1d", {"output_size": 3}),
    ("adaptive_avg_pool1d", {"output_size": 1}),
    ("adaptive_max_pool1d", {"output_size": 4}),
    ("adaptive_avg_pool2d", {"output_size": 1}),
    ("adaptive_avg_pool2d", {"output_size": (None, 2)}),
]


@pytest.mark.parametrize("i", range(len(CASES_1D)))
@pytest.mark.parametrize("unbatched", [False, True])
def test_pool_1d_and_special_cases_match_torch(i, unbatched):
    torch = require_torch()
    fn, kw = CASES_1D[i]
    shape = (3, 7) if "1d" in fn else (3, 5, 7)
    if not unbatched:
        shape = (2,) + shape
    x = _distinct(np.random.default_rng(i), shape)
    compare(lambda lib, t: getattr(lib.nn.functional, fn)(t, **kw), [x], torch)
    compare(
        lambda lib, t: getattr(lib.nn.functional, fn)(t, **kw),
        [x.astype(np.float32)],
        torch,
        "float32",
    )


def test_max_pool_ties_nan_and_minus_inf_follow_torch():
    """Ties pick the first position, a NaN wins (the last NaN of a window), a window of -inf
    in the padding keeps its first position inside the input: torch's CPU kernel."""
    torch = require_torch()
    x = np.array(
        [
            [
                [
                    [1.0, 1.0, 0.0, np.nan],
                    [1.0, 0.5, np.nan, 2.0],
                    [-np.inf, -np.inf, 3.0, 3.0],
                    [-np.inf, -np.inf, 3.0, 3.0],
                ]
            ]
        ]
    )
    for kw in (
        {"kernel_size": 2},
        {"kernel_size": 3, "stride": 2, "padding": 1},
        {"kernel_size": 2, "stride": 1, "padding": 1},
        {"kernel_size": 3, "stride": 1, "padding": 1, "dilation": 1},
    ):
        o = ja.nn.functional.max_pool2d(ja.tensor(x, requires_grad=True), return_indices=True, **kw)
        t = torch.nn.functional.max_pool2d(
            torch.tensor(x, requires_grad=True), return_indices=True, **kw
        )
        np.testing.assert_array_equal(o[0].detach().numpy(), t[0].detach().numpy())
        np.testing.assert_array_equal(o[1].numpy(), t[1].numpy())
    compare(
        lambda lib, t: lib.nn.functional.max_pool2d(t, 2, 1),
        [np.ones((1, 2, 3, 3))],
        require_torch(),
    )


@pytest.mark.parametrize(
    "fn,kw",
    [
        ("max_pool2d", {"kernel_size": 3, "stride": 2, "padding": 1}),
        ("avg_pool2d", {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True}),
        ("adaptive_avg_pool2d", {"output_size": (3, 2)}),
        ("adaptive_max_pool2d", {"output_size": (3, 2)}),
    ],
)
def test_pool_double_backward_and_forward_ad(fn, kw):
    torch = require_torch()
    x = _distinct(np.random.default_rng(0), (2, 2, 7, 6))
    res = []
    for lib in (ja, torch):
        xt = lib.tensor(x, requires_grad=True)
        y = getattr(lib.nn.functional, fn)(xt, **kw)
        (g,) = lib.autograd.grad((y * y * y).sum(), (xt,), create_graph=True)
        (h,) = lib.autograd.grad((g * g).sum(), (xt,))
        res.append((g.grad_fn.name(), h.numpy()))
    assert res[0][0] == res[1][0] and res[0][0].endswith("BackwardBackward0")
    np.testing.assert_allclose(res[0][1], res[1][1], rtol=1e-10, atol=1e-10)
    compare_jvp(lambda lib, t: getattr(lib.nn.functional, fn)(t, **kw), [x], torch)


def test_pool_saved_values_match_torch():
    torch = require_torch()
    x = ja.ones(1, 2, 6, 6, requires_grad=True)
    tx = torch.ones(1, 2, 6, 6, requires_grad=True)
    for fn, kw in (
        ("max_pool2d", {"kernel_size": 2}),
        ("max_pool2d", {"kernel_size": 3, "stride": 2, "padding": 1}),
        ("avg_pool2d", {"kernel_size": 2, "divisor_override": 3}),
    ):
        o = getattr(ja.nn.functional, fn)(x, **kw).grad_fn
        t = getattr(torch.nn.functional, fn)(tx, **kw).grad_fn
        for name in [
            n
            for n in dir(t)
            if n.startswith("_saved_") and n not in ("_saved_self", "_saved_result1")
        ]:
            assert getattr(o, name) == getattr(t, name), name
    y, idx = ja.nn.functional.max_pool2d(x, 2, return_indices=True)
    assert y.grad_fn._saved_result1 is idx and not idx.requires_grad


ERROR_CASES = {
    "max-k3": lambda lib: lib.nn.functional.max_pool2d(lib.ones(2, 3, 8, 8), (2, 2, 2)),
    "max-s3": lambda lib: lib.nn.functional.max_pool2d(lib.ones(2, 3, 8, 8), 2, stride=(1, 1, 1)),
    "max-p3": lambda lib: lib.nn.functional.max_pool2d(lib.ones(2, 3, 8, 8), 2, padding=(1, 1, 1)),
    "max-d3": lambda lib: lib.nn.functional.max_pool2d(lib.ones(2, 3, 8, 8), 2, dilation=(1, 1, 1)),
    "max-k0": lambda lib: lib.nn.functional.max_pool2d(lib.ones(2, 3, 8, 8), 0),
    "max-s0": lambda lib: lib.nn.functional.max_pool2d(lib.ones(2, 3, 8, 8), 2, stride=0),
    "max-d0": lambda lib: lib.nn.functional.max_pool2d(lib.ones(2, 3, 8, 8), 2, dilation=0),
    "max-pad": lambda lib: lib.nn.functional.max_pool2d(lib.ones(2, 3, 8, 8), 2, padding=2),
    "max-big": lambda lib: lib.nn.functional.max_pool2d(lib.ones(2, 3, 8, 8), 9),
    "max-2d": lambda lib: lib.nn.functional.max_pool2d(lib.ones(8, 8), 2),
    "max-5d": lambda lib: lib.nn.functional.max_pool2d(lib.ones(1, 2, 3, 8, 8), 2),
    "max-empty": lambda lib: lib.nn.functional.max_pool2d(lib.ones(2, 0, 8, 8), 2),
    "avg-k3": lambda lib: lib.nn.functional.avg_pool2d(lib.ones(2, 3, 8, 8), (2, 2, 2)),
    "avg-s3": lambda lib: lib.nn.functional.avg_pool2d(lib.ones(2, 3, 8, 8), 2, stride=(1, 1, 1)),
    "avg-k0": lambda lib: lib.nn.functional.avg_pool2d(lib.ones(2, 3, 8, 8), 0),
    "avg-pad": lambda lib: lib.nn.functional.avg_pool2d(lib.ones(2, 3, 8, 8), 2, padding=2),
    "avg-big": lambda lib: lib.nn.functional.avg_pool2d(lib.ones(2, 3, 8, 8), 9),
    "avg-div0": lambda lib: lib.nn.functional.avg_pool2d(
        lib.ones(2, 3, 8, 8), 2, divisor_override=0
    ),
    "avg-2d": lambda lib: lib.nn.functional.avg_pool2d(lib.ones(8, 8), 2),
    "aavg-3": lambda lib: lib.nn.functional.adaptive_avg_pool2d(lib.ones(2, 3, 8, 8), (2, 2, 2)),
    "aavg-neg": lambda lib: lib.nn.functional.adaptive_avg_pool2d(lib.ones(2, 3, 8, 8), (-1, 2)),
    "aavg-0": lambda lib: lib.nn.functional.adaptive_avg_pool2d(lib.ones(2, 3, 8, 8), (0, 2)),
    "aavg-2d": lambda lib: lib.nn.functional.adaptive_avg_pool2d(lib.ones(8, 8), 2),
    "amax-3": lambda lib: lib.nn.functional.adaptive_max_pool2d(lib.ones(2, 3, 8, 8), (2, 2, 2)),
    "amax-2d": lambda lib: lib.nn.functional.adaptive_max_pool2d(lib.ones(8, 8), 2),
    "max1d-big": lambda lib: lib.nn.functional.max_pool1d(lib.ones(3, 8), 9),
    "max1d-4d": lambda lib: lib.nn.functional.max_pool1d(lib.ones(2, 3, 8, 8), 2),
    "max1d-k2": lambda lib: lib.nn.functional.max_pool1d(lib.ones(3, 8), (2, 2)),
    "avg1d-4d": lambda lib: lib.nn.functional.avg_pool1d(lib.ones(2, 3, 8, 8), 2),
    "avg1d-pad": lambda lib: lib.nn.functional.avg_pool1d(lib.ones(3, 8), 2, padding=2),
    "aavg1d-4d": lambda lib: lib.nn.functional.adaptive_avg_pool1d(lib.ones(2, 3, 8, 8), 2),
    "aavg1d-2": lambda lib: lib.nn.functional.adaptive_avg_pool1d(lib.ones(3, 8), (2, 2)),
    "amax1d-4d": lambda lib: lib.nn.functional.adaptive_max_pool1d(lib.ones(2, 3, 8, 8), 2),
    "pad-odd": lambda lib: lib.nn.functional.pad(lib.ones(1, 2, 4, 5), (1, 2, 3)),
    "pad-long": lambda lib: lib.nn.functional.pad(lib.ones(1, 2, 4, 5), (1,) * 10),
    "pad-mode": lambda lib: lib.nn.functional.pad(lib.ones(1, 2, 4, 5), (1, 2), mode="foo"),
    "pad-value": lambda lib: lib.nn.functional.pad(
        lib.ones(1, 2, 4, 5), (1, 2, 1, 1), mode="reflect", value=1.0
    ),
    "pad-4d-2": lambda lib: lib.nn.functional.pad(lib.ones(1, 2, 4, 5), (1, 2), mode="reflect"),
    "pad-reflect-w": lambda lib: lib.nn.functional.pad(
        lib.ones(1, 2, 4, 5), (5, 2, 1, 1), mode="reflect"
    ),
    "pad-reflect-h": lambda lib: lib.nn.functional.pad(
        lib.ones(1, 2, 4, 5), (2, 2, 4, 0), mode="reflect"
    ),
    "pad-reflect-1d": lambda lib: lib.nn.functional.pad(lib.ones(2, 4), (4, 0), mode="reflect"),
    "pad-3d-6": lambda lib: lib.nn.functional.pad(
        lib.ones(2, 4, 5), (1, 2, 3, 4, 5, 6), mode="reflect"
    ),
    "pad-circular-wrap": lambda lib: lib.nn.functional.pad(
        lib.ones(1, 2, 5), (6, 2), mode="circular"
    ),
    "pad-1d-in": lambda lib: lib.nn.functional.pad(lib.ones(5), (1, 2), mode="replicate"),
    "pad-empty": lambda lib: lib.nn.functional.pad(lib.ones(1, 2, 0), (1, 2), mode="replicate"),
    "pad-replicate-value0": lambda lib: lib.nn.functional.pad(
        lib.ones(1, 2, 4), (1, 2), mode="replicate", value=0
    ),
    "pad-int": lambda lib: lib.nn.functional.pad(lib.arange(5), (1, 2), value=2.5),
}


@pytest.mark.parametrize("case", sorted(ERROR_CASES))
def test_pool_and_pad_errors_match_torch(case):
    compare_errors(ERROR_CASES[case], require_torch())


REPRS = [
    lambda lib: lib.nn.MaxPool2d(2),
    lambda lib: lib.nn.MaxPool2d(
        (2, 3), stride=1, padding=1, dilation=2, ceil_mode=True, return_indices=True
    ),
    lambda lib: lib.nn.AvgPool2d(3),
    lambda lib: lib.nn.AvgPool2d((2, 3), 1, 1, True, False, 2),
    lambda lib: lib.nn.AdaptiveAvgPool2d((5, None)),
    lambda lib: lib.nn.AdaptiveAvgPool2d(3),
    lambda lib: lib.nn.AdaptiveMaxPool2d((2, 3), return_indices=True),
    lambda lib: lib.nn.MaxPool1d(3),
    lambda lib: lib.nn.AvgPool1d(3),
    lambda lib: lib.nn.AdaptiveAvgPool1d(3),
    lambda lib: lib.nn.AdaptiveMaxPool1d(2),
    lambda lib: lib.nn.Flatten(),
    lambda lib: lib.nn.Flatten(0, 2),
    lambda lib: lib.nn.Unflatten(1, (2, 3)),
]


@pytest.mark.parametrize("i", range(len(REPRS)))
def test_pool_module_repr_matches_torch(i):
    compare_repr(REPRS[i], require_torch())


@pytest.mark.parametrize(
    "make",
    [
        lambda lib: lib.nn.MaxPool2d(3, 2, 1),
        lambda lib: lib.nn.AvgPool2d(2, ceil_mode=True),
        lambda lib: lib.nn.AdaptiveAvgPool2d((2, 3)),
        lambda lib: lib.nn.AdaptiveMaxPool2d(2),
        lambda lib: lib.nn.MaxPool1d(2),
        lambda lib: lib.nn.AvgPool1d(3, 1, 1),
        lambda lib: lib.nn.AdaptiveAvgPool1d(2),
        lambda lib: lib.nn.Flatten(),
        lambda lib: lib.nn.Unflatten(-1, (7, 1)),
    ],
)
def test_pool_modules_forward_match_torch(make):
    torch = require_torch()
    x = _distinct(np.random.default_rng(0), (2, 3, 5, 7))
    if isinstance(make(ja), (ja.nn.MaxPool1d, ja.nn.AvgPool1d, ja.nn.AdaptiveAvgPool1d)):
        x = x[:, :, 0]
    compare(lambda lib, t: make(lib)(t), [x], torch)


def test_unflatten_type_errors_match_torch():
    torch = require_torch()
    for args in ((1, 6), (1, (2.0, 3)), (1.5, (2, 3))):
        compare_errors(lambda lib, a=args: lib.nn.Unflatten(*a), torch)


@st.composite
def pad_cases(draw):
    mode = draw(st.sampled_from(["constant", "reflect", "replicate", "circular"]))
    d = draw(st.integers(1, 3))
    batched = draw(st.booleans())
    spatial = tuple(draw(st.integers(2, 5)) for _ in range(d))
    shape = ((2,) if batched else ()) + (draw(st.integers(1, 3)),) + spatial
    pad = []
    for n in reversed(spatial):
        lo = draw(st.integers(-1 if mode in ("constant", "circular") else 0, n - 1))
        hi = draw(st.integers(-1 if mode in ("constant", "circular") else 0, n - 1))
        pad += [lo, hi]
    return mode, shape, tuple(pad), draw(st.sampled_from(["float32", "float64"]))


@settings(max_examples=80, deadline=None)
@given(case=pad_cases(), seed=st.integers(0, 2**31))
def test_pad_matches_torch_hypothesis(case, seed):
    torch = require_torch()
    mode, shape, pad, dtype = case
    x = np.random.default_rng(seed).uniform(-1, 1, shape)
    kw = {"value": 0.5} if mode == "constant" else {}
    compare(
        lambda lib, t: lib.nn.functional.pad(t, pad, mode=mode, **kw),
        [x],
        torch,
        dtype,
        seed=seed,
        names=mode != "circular",
    )


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate"])
def test_pad_double_backward_and_forward_ad(mode):
    torch = require_torch()
    x = np.random.default_rng(0).uniform(-1, 1, (2, 3, 4, 5))
    pad = (2, 1, 1, 3)
    res = []
    for lib in (ja, torch):
        xt = lib.tensor(x, requires_grad=True)
        y = lib.nn.functional.pad(xt, pad, mode=mode)
        (g,) = lib.autograd.grad((y * y * y).sum(), (xt,), create_graph=True)
        (h,) = lib.autograd.grad((g * g).sum(), (xt,))
        res.append((g.grad_fn.name(), h.numpy()))
    assert res[0][0] == res[1][0]
    np.testing.assert_allclose(res[0][1], res[1][1], rtol=1e-10)
    compare_jvp(lambda lib, t: lib.nn.functional.pad(t, pad, mode=mode), [x], torch)
