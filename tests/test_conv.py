"""Convolutions against torch: F.conv1d/2d/3d and their transposes with hypothesis-drawn
geometry (stride, padding incl. "same"/"valid", dilation, groups, bias), float32 and float64;
gradients of every input, gradients of gradients (ConvolutionBackwardBackward0), forward-mode
tangents, torch's error messages, and the Conv modules' reprs, checks and padding modes."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jupyter_autograd as ja

from ._layer_parity import compare, compare_errors, compare_jvp, compare_repr, copy_state
from ._torch import require as require_torch


@st.composite
def conv_cases(draw, transposed=False):
    d = draw(st.sampled_from([1, 2, 2, 3]))
    groups = draw(st.sampled_from([1, 1, 2]))
    cin = groups * draw(st.integers(1, 2))
    cout = groups * draw(st.integers(1, 2))
    k = tuple(draw(st.integers(1, 3)) for _ in range(d))
    stride = tuple(draw(st.integers(1, 3)) for _ in range(d))
    dil = tuple(draw(st.integers(1, 2)) for _ in range(d))
    n = draw(st.integers(1, 2))
    if transposed:
        pad = tuple(draw(st.integers(0, 1)) for _ in range(d))
        outpad = tuple(draw(st.integers(0, max(s, dl) - 1)) for s, dl in zip(stride, dil))
        spatial = tuple(draw(st.integers(1, 4)) for _ in range(d))
        if any(
            (i - 1) * s - 2 * p + dl * (kk - 1) + op + 1 <= 0
            for i, s, p, dl, kk, op in zip(spatial, stride, pad, dil, k, outpad)
        ):
            pad = (0,) * d
        kw = {
            "stride": stride,
            "padding": pad,
            "output_padding": outpad,
            "groups": groups,
            "dilation": dil,
        }
        shapes = ((n, cin) + spatial, (cin, cout // groups) + k, (cout,))
    else:
        pad = draw(st.sampled_from(["int", "same", "valid"]))
        if pad == "same":
            stride = (1,) * d
        if pad == "int":
            pad = tuple(draw(st.integers(0, 2)) for _ in range(d))
        padded = [dl * (kk - 1) + 1 for dl, kk in zip(dil, k)]
        spatial = tuple(
            draw(st.integers(max(1, e - 2 * (p if isinstance(pad, tuple) else 0)), e + 4))
            for e, p in zip(padded, pad if isinstance(pad, tuple) else (0,) * d)
        )
        kw = {"stride": stride, "padding": pad, "dilation": dil, "groups": groups}
        shapes = ((n, cin) + spatial, (cout, cin // groups) + k, (cout,))
    bias = draw(st.booleans())
    dtype = draw(st.sampled_from(["float32", "float64"]))
    seed = draw(st.integers(0, 2**31))
    return d, kw, shapes, bias, dtype, seed


def _fn(d, kw, transposed):
    name = f"conv_transpose{d}d" if transposed else f"conv{d}d"

    def fn(lib, x, w, b=None):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the even-kernel 'same' warning, checked below
            return getattr(lib.nn.functional, name)(x, w, b, **kw)

    return fn


@pytest.mark.parametrize("transposed", [False, True])
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_conv_matches_torch_hypothesis(transposed, data):
    torch = require_torch()
    d, kw, shapes, bias, dtype, seed = data.draw(conv_cases(transposed))
    rng = np.random.default_rng(seed)
    arrays = [rng.uniform(-1, 1, s) for s in shapes]
    if not bias:
        arrays[2] = None
    compare(_fn(d, kw, transposed), arrays, torch, dtype, seed=seed)


@pytest.mark.parametrize("transposed", [False, True])
@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_conv_forward_ad_matches_torch(transposed, data):
    torch = require_torch()
    d, kw, shapes, bias, _, seed = data.draw(conv_cases(transposed))
    rng = np.random.default_rng(seed)
    arrays = [rng.uniform(-1, 1, s) for s in shapes]
    if not bias:
        arrays[2] = None
    compare_jvp(_fn(d, kw, transposed), arrays, torch)


@pytest.mark.parametrize("transposed", [False, True])
@pytest.mark.parametrize("groups", [1, 2])
def test_conv_double_backward_matches_torch(transposed, groups):
    """Gradients of gradients: ConvolutionBackwardBackward0 nodes, values as torch's."""
    torch = require_torch()
    rng = np.random.default_rng(3)
    x = rng.uniform(-1, 1, (2, 4, 6, 5))
    w = rng.uniform(-1, 1, (4, 4 // groups, 3, 2) if not transposed else (4, 2, 3, 2))
    res = []
    for lib in (ja, torch):
        xt = lib.tensor(x, requires_grad=True)
        wt = lib.tensor(w, requires_grad=True)
        f = lib.nn.functional.conv_transpose2d if transposed else lib.nn.functional.conv2d
        y = f(xt, wt, stride=2, padding=1, groups=groups)
        gx, gw = lib.autograd.grad((y * y).sum(), (xt, wt), create_graph=True)
        names = (gx.grad_fn.name(), gw.grad_fn.name())
        s = (gx * gx.cos()).sum() + (gw**2).sum()
        hx, hw = lib.autograd.grad(s, (xt, wt))
        res.append((names, hx.detach().numpy(), hw.detach().numpy()))
    assert res[0][0] == res[1][0] == ("ConvolutionBackwardBackward0",) * 2
    np.testing.assert_allclose(res[0][1], res[1][1], rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(res[0][2], res[1][2], rtol=1e-9, atol=1e-10)


def test_conv_graph_and_saved_values():
    torch = require_torch()
    x = ja.ones(2, 3, 5, 5, requires_grad=True)
    w = ja.ones(4, 3, 3, 3, requires_grad=True)
    b = ja.ones(4, requires_grad=True)
    y = ja.nn.functional.conv2d(x, w, b, stride=2, padding=1)
    fn = y.grad_fn
    tx, tw, tb = (
        torch.ones(2, 3, 5, 5, requires_grad=True),
        torch.ones(4, 3, 3, 3, requires_grad=True),
        torch.ones(4, requires_grad=True),
    )
    tfn = torch.nn.functional.conv2d(tx, tw, tb, stride=2, padding=1).grad_fn
    for name in (
        "stride",
        "padding",
        "dilation",
        "groups",
        "transposed",
        "output_padding",
        "bias_sym_sizes_opt",
    ):
        assert tuple(np.atleast_1d(getattr(fn, "_saved_" + name))) == tuple(
            np.atleast_1d(getattr(tfn, "_saved_" + name))
        ), name
    assert fn._saved_input is x and fn._saved_weight is w
    assert [f.name() for f, _ in fn.next_functions] == [f.name() for f, _ in tfn.next_functions]
    # an unbatched input goes through unsqueeze/squeeze as in torch
    u = ja.nn.functional.conv2d(x[0], w)
    tu = torch.nn.functional.conv2d(tx[0], tw)
    assert u.grad_fn.name() == tu.grad_fn.name() == "SqueezeBackward1"
    assert u.grad_fn.next_functions[0][0].name() == "ConvolutionBackward0"


def test_same_padding_even_kernel_pads_and_warns_once():
    torch = require_torch()
    from jupyter_autograd.nn import _conv_functional as CF

    CF._warned_same = False
    x = np.random.default_rng(0).uniform(-1, 1, (1, 2, 6, 5))
    w = np.random.default_rng(1).uniform(-1, 1, (3, 2, 4, 2))
    with pytest.warns(UserWarning, match="padding='same' with even kernel lengths"):
        o = ja.nn.functional.conv2d(ja.tensor(x, requires_grad=True), ja.tensor(w), padding="same")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # once only, as torch's TORCH_WARN_ONCE
        ja.nn.functional.conv2d(ja.tensor(x), ja.tensor(w), padding="same")
    assert o.grad_fn.next_functions[0][0].name() == "ConstantPadNdBackward0"
    compare(
        lambda lib, a, b: lib.nn.functional.conv2d(a, b, padding="same", dilation=(1, 2)),
        [x, w],
        torch,
    )


ERROR_CASES = {
    "channels": lambda lib: lib.nn.functional.conv2d(lib.ones(2, 3, 8, 8), lib.ones(4, 2, 3, 3)),
    "rank2": lambda lib: lib.nn.functional.conv2d(lib.ones(8, 8), lib.ones(4, 3, 3, 3)),
    "rank5": lambda lib: lib.nn.functional.conv2d(lib.ones(2, 3, 8, 8, 1), lib.ones(4, 3, 3, 3)),
    "kernel": lambda lib: lib.nn.functional.conv2d(lib.ones(2, 3, 8, 8), lib.ones(4, 3, 9, 9)),
    "dilated": lambda lib: lib.nn.functional.conv2d(
        lib.ones(1, 3, 8, 8), lib.ones(4, 3, 3, 3), dilation=4
    ),
    "groups": lambda lib: lib.nn.functional.conv2d(
        lib.ones(2, 3, 8, 8), lib.ones(4, 3, 3, 3), groups=2
    ),
    "groups-div": lambda lib: lib.nn.functional.conv2d(
        lib.ones(2, 3, 8, 8), lib.ones(4, 1, 3, 3), groups=3
    ),
    "weight0": lambda lib: lib.nn.functional.conv2d(lib.ones(2, 3, 8, 8), lib.ones(0, 3, 3, 3)),
    "stride0": lambda lib: lib.nn.functional.conv2d(
        lib.ones(2, 3, 8, 8), lib.ones(4, 3, 3, 3), stride=0
    ),
    "padneg": lambda lib: lib.nn.functional.conv2d(
        lib.ones(2, 3, 8, 8), lib.ones(4, 3, 3, 3), padding=-1
    ),
    "dil0": lambda lib: lib.nn.functional.conv2d(
        lib.ones(2, 3, 8, 8), lib.ones(4, 3, 3, 3), dilation=0
    ),
    "same-strided": lambda lib: lib.nn.functional.conv2d(
        lib.ones(2, 3, 8, 8), lib.ones(4, 3, 3, 3), padding="same", stride=2
    ),
    "padstr": lambda lib: lib.nn.functional.conv2d(
        lib.ones(2, 3, 8, 8), lib.ones(4, 3, 3, 3), padding="foo"
    ),
    "bias-size": lambda lib: lib.nn.functional.conv2d(
        lib.ones(2, 3, 8, 8), lib.ones(4, 3, 3, 3), lib.ones(3)
    ),
    "dtype": lambda lib: lib.nn.functional.conv2d(
        lib.ones(1, 3, 8, 8), lib.ones(4, 3, 3, 3, dtype=lib.float64)
    ),
    "dtype-rev": lambda lib: lib.nn.functional.conv2d(
        lib.ones(1, 3, 8, 8, dtype=lib.float64), lib.ones(4, 3, 3, 3)
    ),
    "bias-dtype": lambda lib: lib.nn.functional.conv2d(
        lib.ones(1, 3, 8, 8), lib.ones(4, 3, 3, 3), lib.ones(4, dtype=lib.float64)
    ),
    "stride-len": lambda lib: lib.nn.functional.conv2d(
        lib.ones(2, 3, 8, 8), lib.ones(4, 3, 3, 3), stride=(1, 1, 1)
    ),
    "pad-len": lambda lib: lib.nn.functional.conv1d(
        lib.ones(2, 3, 8), lib.ones(4, 3, 3), padding=(1, 1)
    ),
    "weight-rank": lambda lib: lib.nn.functional.conv2d(lib.ones(1, 3, 8, 8), lib.ones(4, 3, 3)),
    "weight-rank2": lambda lib: lib.nn.functional.conv2d(
        lib.ones(1, 3, 8, 8), lib.ones(4, 3, 3), stride=1, padding=0, dilation=1
    ),
    "empty-batch": lambda lib: lib.nn.functional.conv2d(lib.ones(0, 3, 8, 8), lib.ones(4, 3, 3, 3)),
    "unbatched": lambda lib: lib.nn.functional.conv2d(lib.ones(3, 8, 8), lib.ones(4, 3, 3, 3)),
    "long": lambda lib: lib.nn.functional.conv2d(
        lib.ones(1, 3, 4, 4, dtype=lib.int64), lib.ones(2, 3, 3, 3, dtype=lib.int64)
    ),
    "t-channels": lambda lib: lib.nn.functional.conv_transpose2d(
        lib.ones(2, 3, 8, 8), lib.ones(4, 2, 3, 3)
    ),
    "t-outpad": lambda lib: lib.nn.functional.conv_transpose2d(
        lib.ones(2, 3, 8, 8), lib.ones(3, 2, 3, 3), output_padding=1
    ),
    "t-bias": lambda lib: lib.nn.functional.conv_transpose2d(
        lib.ones(2, 3, 8, 8), lib.ones(3, 2, 3, 3), lib.ones(3)
    ),
    "mod-groups": lambda lib: lib.nn.Conv2d(3, 4, 3, groups=2),
    "mod-groups-out": lambda lib: lib.nn.Conv2d(4, 6, 3, groups=4),
    "mod-groups0": lambda lib: lib.nn.Conv2d(4, 6, 3, groups=0),
    "mod-same-stride": lambda lib: lib.nn.Conv2d(3, 4, 3, padding="same", stride=2),
    "mod-padstr": lambda lib: lib.nn.Conv2d(3, 4, 3, padding="bar"),
    "mod-channels": lambda lib: lib.nn.Conv2d(3, 4, 3)(lib.ones(2, 5, 8, 8)),
    "mod-reflect-small": lambda lib: lib.nn.Conv2d(3, 4, 3, padding=1, padding_mode="reflect")(
        lib.ones(1, 3, 1, 1)
    ),
    "mod-t-padmode": lambda lib: lib.nn.ConvTranspose2d(3, 4, 3, padding_mode="reflect"),
    "mod-t-outsize": lambda lib: lib.nn.ConvTranspose2d(3, 4, 3, stride=2)(
        lib.ones(1, 3, 5, 5), output_size=[12, 12]
    ),
    "mod-t-outsize-bad": lambda lib: lib.nn.ConvTranspose2d(3, 4, 3, stride=2)(
        lib.ones(1, 3, 5, 5), output_size=[14, 14]
    ),
}


@pytest.mark.parametrize("case", sorted(ERROR_CASES))
def test_conv_errors_match_torch(case):
    compare_errors(ERROR_CASES[case], require_torch())


def test_conv_padding_mode_error():
    """The valid modes are printed as a set, whose order varies between processes."""
    with pytest.raises(ValueError) as e:
        ja.nn.Conv2d(3, 4, 3, padding_mode="foo")
    msg = str(e.value)
    assert msg.startswith("padding_mode must be one of {") and msg.endswith(
        ", but got padding_mode='foo'"
    )
    assert all(f"'{m}'" in msg for m in ("zeros", "reflect", "replicate", "circular"))


REPRS = [
    lambda lib: lib.nn.Conv2d(3, 4, 3),
    lambda lib: lib.nn.Conv2d(
        3, 4, (3, 5), stride=2, padding=1, dilation=2, bias=False, padding_mode="reflect"
    ),
    lambda lib: lib.nn.Conv1d(2, 4, 3, padding="same"),
    lambda lib: lib.nn.Conv1d(2, 4, 3, padding="valid"),
    lambda lib: lib.nn.Conv3d(2, 4, (1, 2, 3), padding_mode="circular", padding=1),
    lambda lib: lib.nn.ConvTranspose2d(3, 4, 3, stride=2, output_padding=1),
    lambda lib: lib.nn.ConvTranspose1d(3, 6, 3, groups=3, dilation=2),
    lambda lib: lib.nn.ConvTranspose2d(3, 4, 3, padding="same"),
    lambda lib: lib.nn.Conv2d(4, 4, 3, groups=2, padding=(1, 2)),
    lambda lib: lib.nn.Sequential(lib.nn.Conv2d(1, 6, 5), lib.nn.ReLU(), lib.nn.MaxPool2d(2)),
]


@pytest.mark.parametrize("i", range(len(REPRS)))
def test_conv_module_repr_matches_torch(i):
    compare_repr(REPRS[i], require_torch())


@pytest.mark.parametrize("mode", ["zeros", "reflect", "replicate", "circular"])
@pytest.mark.parametrize("padding", [1, (2, 1), "same"])
def test_conv_module_padding_modes(mode, padding):
    """Conv2d with each padding mode, from torch's weights: same output, gradients, graph."""
    torch = require_torch()
    tm = torch.nn.Conv2d(
        3, 4, (3, 4) if padding == "same" else 3, padding=padding, padding_mode=mode
    )
    om = ja.nn.Conv2d(3, 4, (3, 4) if padding == "same" else 3, padding=padding, padding_mode=mode)
    copy_state(tm, om, ja)
    x = np.random.default_rng(0).uniform(-1, 1, (2, 3, 6, 5)).astype(np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compare(lambda lib, a: (om if lib is ja else tm)(a), [x], torch, "float32")
    assert om.weight.grad is not None and om.weight.shape == tm.weight.shape


def test_conv_module_parameters_and_init():
    torch = require_torch()
    for make in (
        lambda lib: lib.nn.Conv2d(3, 6, 5),
        lambda lib: lib.nn.ConvTranspose2d(6, 4, 3, groups=2),
        lambda lib: lib.nn.Conv1d(4, 8, 3, bias=False),
    ):
        o, t = make(ja), make(torch)
        assert [(n, tuple(p.shape)) for n, p in o.named_parameters()] == [
            (n, tuple(p.shape)) for n, p in t.named_parameters()
        ]
        fan_in = o.weight.shape[1] * int(np.prod(o.weight.shape[2:]))
        bound = 1 / np.sqrt(fan_in)
        assert float(o.weight.abs().max()) <= bound + 1e-6
        if o.bias is not None:
            assert float(o.bias.abs().max()) <= bound + 1e-6


def test_conv_transpose_output_size():
    torch = require_torch()
    tm = torch.nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1)
    om = ja.nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1)
    copy_state(tm, om, ja)
    x = np.random.default_rng(0).uniform(-1, 1, (1, 3, 4, 5))
    for size in ([8, 10], [7, 9], (1, 2, 8, 9)):
        compare(
            lambda lib, a, s=size: (om if lib is ja else tm)(a, output_size=s),
            [x],
            torch,
            "float32",
        )


def test_conv_inference_and_no_grad():
    """Under no_grad nothing is recorded; integer convolutions run (no gradient)."""
    x = ja.ones(1, 2, 4, 4, requires_grad=True)
    w = ja.ones(3, 2, 3, 3, requires_grad=True)
    with ja.no_grad():
        y = ja.nn.functional.conv2d(x, w)
    assert y.grad_fn is None and not y.requires_grad
    yi = ja.nn.functional.conv2d(
        ja.ones(1, 2, 4, 4, dtype=ja.int64), ja.ones(3, 2, 3, 3, dtype=ja.int64)
    )
    assert yi.dtype == ja.int64 and int(yi[0, 0, 0, 0]) == 18
