"""embedding_bag / nn.EmbeddingBag against torch: every mode with offsets, 2-D input, empty bags,
padding_idx, include_last_offset, per_sample_weights, scale_grad_by_freq and max_norm; values,
weight and per-sample-weight gradients, the node and what it saves, the non-differentiable
backward and missing forward-mode rule, errors, warnings and reprs."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import jupyter_autograd as ja

from ._layer_parity import compare_errors, compare_repr, outcome
from ._torch import require as require_torch

IDX = [1, 2, 4, 5, 4, 3, 2, 9]
CASES = [
    {"mode": "mean"},
    {"mode": "sum"},
    {"mode": "max"},
    {"mode": "mean", "offsets": [0, 4, 4]},  # an empty bag in the middle
    {"mode": "sum", "padding_idx": 4},
    {"mode": "mean", "padding_idx": 2, "offsets": [0, 3, 8]},
    {"mode": "max", "padding_idx": 4, "include_last_offset": True, "offsets": [0, 4, 8]},
    # (the last offset is the end: indices past it would get torch's uninitialised gradient)
    {"mode": "sum", "include_last_offset": True, "offsets": [0, 4, 4, 8]},
    {"mode": "sum", "psw": True},
    {"mode": "sum", "psw": True, "padding_idx": 9},
    {"mode": "mean", "scale_grad_by_freq": True},
    {"mode": "sum", "scale_grad_by_freq": True, "padding_idx": 2},
    {"mode": "mean", "two_d": True},
    {"mode": "max", "two_d": True},
    {"mode": "sum", "two_d": True, "psw": True},
    {"mode": "mean", "max_norm": 1.0},
]


def _run(lib, case, w, psw, dtype):
    kw = {k: v for k, v in case.items() if k not in ("offsets", "psw", "two_d")}
    idx = lib.tensor(IDX)
    offsets = lib.tensor(case.get("offsets", [0, 3]))
    if case.get("two_d"):
        idx, offsets = idx.view(2, 4), None
        psw = None if psw is None else psw.view(2, 4)
    return lib.nn.functional.embedding_bag(idx, w, offsets, per_sample_weights=psw, **kw)


@pytest.mark.parametrize("i", range(len(CASES)))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_embedding_bag_matches_torch(i, dtype):
    torch = require_torch()
    case = CASES[i]
    rng = np.random.default_rng(i)
    w0 = rng.standard_normal((10, 3))
    p0 = rng.uniform(0.5, 1.5, len(IDX))
    res = []
    for lib in (ja, torch):
        dt = getattr(lib, dtype)
        w = lib.tensor(w0, dtype=dt, requires_grad=True)
        psw = lib.tensor(p0, dtype=dt, requires_grad=True) if case.get("psw") else None
        y = _run(lib, case, w, psw, dtype)
        g = y.grad_fn
        saved = [
            g.name(),
            g._saved_mode,
            g._saved_padding_idx,
            g._saved_scale_grad_by_freq,
            g._saved_sparse,
            g._saved_weight_sym_argsize_0,
            g._saved_weight is None,
            g._saved_per_sample_weights is None,
            [getattr(g, f"_saved_result{k}").tolist() for k in (1, 2, 3)],
            g._saved_indices.tolist(),
            g._saved_offsets.tolist(),
            len(g.next_functions),
        ]
        v = np.arange(np.prod(tuple(y.shape))).reshape(tuple(y.shape)) / 7.0
        y.backward(lib.tensor(v, dtype=dt))
        res.append(
            (
                y.detach().numpy(),
                w.grad.numpy(),
                None if psw is None else psw.grad.numpy(),
                saved,
                w.detach().numpy(),
            )
        )
    tol = 1e-5 if dtype == "float32" else 1e-12
    for a, b in zip(res[0], res[1]):
        if isinstance(a, np.ndarray):
            np.testing.assert_allclose(a, b, rtol=tol, atol=tol)
        else:
            assert a == b


def test_embedding_bag_backward_is_not_differentiable_again():
    torch = require_torch()
    out = []
    for lib in (ja, torch):
        w = lib.tensor(np.arange(30.0).reshape(10, 3), requires_grad=True)
        y = lib.nn.functional.embedding_bag(lib.tensor(IDX), w, lib.tensor([0, 4]))
        (g,) = lib.autograd.grad((y * y).sum(), [w], create_graph=True)
        with pytest.raises(NotImplementedError) as e0:
            g.sum().backward()
        out.append(
            (
                [f.name() if f else None for f, _ in g.grad_fn.next_functions]
                + [g.grad_fn.name(), str(e0.value)],
                g.requires_grad,
                g.detach().numpy(),
            )
        )
        fw = lib.autograd.forward_ad
        with fw.dual_level(), pytest.raises(NotImplementedError) as e:
            lib.nn.functional.embedding_bag(
                lib.tensor(IDX), fw.make_dual(w.detach(), lib.ones_like(w)), lib.tensor([0, 4])
            )
        out[-1] = out[-1][:2] + (str(e.value).splitlines()[0],) + out[-1][2:]
    # torch's node is EmbeddingBagBackwardBackward0, ours a NotImplemented node: the same refusal
    assert out[0][0][-2:] == ["torch::autograd::NotImplemented", out[1][0][-1]]
    assert out[1][0][-2] == "EmbeddingBagBackwardBackward0"
    assert out[0][1:3] == out[1][1:3]
    np.testing.assert_allclose(out[0][3], out[1][3])


def test_embedding_bag_module_matches_torch():
    torch = require_torch()
    for kw in (
        {},
        {"mode": "sum", "padding_idx": 0},
        {"mode": "max", "include_last_offset": True},
        {"max_norm": 2.0, "norm_type": 1.0, "scale_grad_by_freq": True},
    ):
        mods = []
        for lib in (ja, torch):
            lib.manual_seed(0)
            mods.append(lib.nn.EmbeddingBag(10, 3, **kw))
        assert repr(mods[0]) == repr(mods[1])
        np.testing.assert_allclose(mods[0].weight.detach().numpy(), mods[1].weight.detach().numpy())
        offs = [0, 3, 8] if kw.get("include_last_offset") else [0, 3]
        outs = [m(lib.tensor(IDX), lib.tensor(offs)) for m, lib in zip(mods, (ja, torch))]
        np.testing.assert_allclose(outs[0].detach().numpy(), outs[1].detach().numpy(), rtol=1e-6)
    pre = [lib.nn.EmbeddingBag.from_pretrained(lib.ones(4, 2), mode="sum") for lib in (ja, torch)]
    assert (
        repr(pre[0]) == repr(pre[1]) and pre[0].weight.requires_grad == pre[1].weight.requires_grad
    )


def test_embedding_bag_repr_matches_torch():
    torch = require_torch()
    compare_repr(
        lambda lib: lib.nn.EmbeddingBag(5, 2, max_norm=1.0, norm_type=3.0, padding_idx=-1), torch
    )


def test_embedding_bag_argument_order_warning():
    torch = require_torch()
    msgs = []
    for lib in (ja, torch):
        w = lib.ones(10, 3)
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            y = lib.nn.functional.embedding_bag(w, lib.tensor(IDX), lib.tensor([0, 4]))
        msgs.append(([str(r.message) for r in rec], tuple(y.shape)))
    assert msgs[0] == msgs[1]


F = "nn.functional.embedding_bag"
ERRORS = [
    lambda lib: lib.nn.functional.embedding_bag(lib.tensor(IDX), lib.ones(10, 3)),
    lambda lib: lib.nn.functional.embedding_bag(
        lib.tensor(IDX).view(2, 4), lib.ones(10, 3), lib.tensor([0, 4])
    ),
    lambda lib: lib.nn.functional.embedding_bag(
        lib.tensor(IDX), lib.ones(10, 3), lib.tensor([0, 4]), per_sample_weights=lib.ones(8)
    ),
    lambda lib: lib.nn.functional.embedding_bag(
        lib.tensor(IDX), lib.ones(10, 3), lib.tensor([0, 4]), mode="x"
    ),
    lambda lib: lib.nn.functional.embedding_bag(
        lib.tensor(IDX), lib.ones(10, 3), lib.tensor([1, 4])
    ),
    lambda lib: lib.nn.functional.embedding_bag(
        lib.tensor(IDX) + 10, lib.ones(10, 3), lib.tensor([0, 4])
    ),
    lambda lib: lib.nn.functional.embedding_bag(
        lib.tensor(IDX).float(), lib.ones(10, 3), lib.tensor([0, 4])
    ),
    lambda lib: lib.nn.functional.embedding_bag(
        lib.tensor(IDX), lib.ones(10, 3), lib.tensor([[0, 4]])
    ),
    lambda lib: lib.nn.functional.embedding_bag(
        lib.tensor(IDX), lib.ones(10, 3), lib.tensor([0, 9])
    ),
    lambda lib: lib.nn.functional.embedding_bag(lib.tensor(IDX).view(1, 2, 4), lib.ones(10, 3)),
    lambda lib: lib.nn.functional.embedding_bag(
        lib.tensor(IDX),
        lib.ones(10, 3),
        lib.tensor([0, 4]),
        mode="sum",
        per_sample_weights=lib.ones(7),
    ),
    lambda lib: lib.nn.functional.embedding_bag(
        lib.tensor(IDX),
        lib.ones(10, 3),
        lib.tensor([0, 4]),
        mode="sum",
        per_sample_weights=lib.ones(8, dtype=lib.float64),
    ),
    lambda lib: lib.nn.functional.embedding_bag(
        lib.tensor(IDX), lib.ones(10, 3), lib.tensor([0, 4]), padding_idx=10
    ),
    lambda lib: lib.nn.functional.embedding_bag(
        lib.tensor(IDX), lib.ones(10, 3), lib.tensor([0, 4]), mode="max", scale_grad_by_freq=True
    ),
    lambda lib: lib.nn.functional.embedding_bag(lib.tensor(IDX), lib.ones(10), lib.tensor([0, 4])),
    lambda lib: lib.nn.EmbeddingBag(5, 2, padding_idx=5),
    lambda lib: lib.nn.functional.embedding_bag(
        lib.tensor([], dtype=lib.int64), lib.ones(10, 3), lib.tensor([0, 0])
    ),
]


# An index out of range: torch's message depends on which CPU kernel it runs, fbgemm's (the
# one we give) or its generic loop's (seen on an AVX-512 virtual machine where fbgemm is not
# used): the error type is compared there, and our message is fbgemm's
_OUT_OF_RANGE = 5
_GENERIC = "Expected i < index_size to be true, but got false."


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_embedding_bag_errors_match_torch(i):
    torch = require_torch()
    if i == _OUT_OF_RANGE:
        # torch may take either kernel from one call to the next in one process (seen: fbgemm's
        # message, then the generic loop's): ours is fbgemm's, torch's is one of the two
        fbgemm = (
            "RuntimeError",
            "Index 0 of input takes value 11 which is not in the valid range [0, 10)",
        )
        assert outcome(lambda: ERRORS[i](ja)) == fbgemm
        theirs = outcome(lambda: ERRORS[i](torch))
        assert theirs == fbgemm or (
            theirs[0] == "RuntimeError" and str(theirs[1]).startswith(_GENERIC)
        ), theirs
        return
    compare_errors(ERRORS[i], torch)
