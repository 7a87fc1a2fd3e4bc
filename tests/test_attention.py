"""Attention against torch: scaled_dot_product_attention (the fused CPU kernel and the math path,
masks, causal, scale, dropout with torch's draws, GQA; values, gradients, grad_fn chains,
create_graph and forward-AD refusals, errors), multi_head_attention_forward/MultiheadAttention and
the Transformer modules (torch's initial weights for a seed, outputs and gradients, masks,
batch_first, eval mode, reprs, warnings)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import jupyter_autograd as ja

from ._layer_parity import compare, compare_errors, copy_state
from ._torch import require as require_torch


def _chain(t, skip=frozenset()):
    out = []

    def walk(n, d):
        if n is None or d > 20:
            return
        name = n.name()
        if name not in skip:
            out.append("  " * d + name)
            d += 1
        for f, _ in n.next_functions:
            walk(f, d)

    walk(t.grad_fn, 0)
    return out


def _mask(lib, m):
    if m is None:
        return None
    return lib.tensor(m) if m.dtype == bool else lib.tensor(m, dtype=lib.float32)


RNG = np.random.default_rng(0)
BOOL_2D = RNG.uniform(size=(4, 6)) > 0.3
BOOL_2D[1] = False  # a row masked out entirely
FLOAT_4D = RNG.standard_normal((2, 1, 4, 6))
SDPA = [
    ((2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 5), {}),
    ((2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 5), {"attn_mask": BOOL_2D}),
    ((2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 5), {"attn_mask": FLOAT_4D}),
    ((2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 5), {"is_causal": True}),
    ((2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 5), {"is_causal": True, "attn_mask": BOOL_2D}),
    ((2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 5), {"scale": 0.3}),
    ((2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 5), {"scale": -0.7}),
    ((3, 4, 5), (3, 6, 5), (3, 6, 7), {}),  # math path: 3-D, value dim differs
    ((4, 5), (6, 5), (6, 5), {"attn_mask": BOOL_2D}),
    ((3, 4, 5), (3, 6, 5), (3, 6, 5), {"is_causal": True}),
    ((2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 3), {"scale": 2.0, "attn_mask": FLOAT_4D}),
    ((2, 3, 4, 5), (1, 3, 6, 5), (1, 3, 6, 5), {}),  # broadcast batch: math path
    ((2, 4, 4, 5), (2, 2, 6, 5), (2, 2, 6, 5), {"enable_gqa": True}),
]


def _sdpa(kw):
    def fn(lib, q, k, v):
        kk = dict(kw)
        if "attn_mask" in kk:
            kk["attn_mask"] = _mask(lib, kk["attn_mask"])
        return lib.nn.functional.scaled_dot_product_attention(q, k, v, **kk)

    return fn


@pytest.mark.parametrize("i", range(len(SDPA)))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sdpa_matches_torch(i, dtype):
    torch = require_torch()
    qs, ks, vs, kw = SDPA[i]
    rng = np.random.default_rng(i)
    arrays = [rng.standard_normal(s) for s in (qs, ks, vs)]
    o, t = compare(
        _sdpa(kw),
        arrays,
        torch,
        dtype,
        rtol=1e-4 if dtype == "float32" else None,
        atol=1e-5 if dtype == "float32" else None,
    )
    if dtype == "float64":
        assert _chain(o) == _chain(t)


def test_sdpa_saved_values_match_torch():
    torch = require_torch()
    rng = np.random.default_rng(3)
    arrays = [rng.standard_normal(s) for s in ((2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 5))]
    outs = []
    for lib in (ja, torch):
        q, k, v = (lib.tensor(a, requires_grad=True) for a in arrays)
        o = lib.nn.functional.scaled_dot_product_attention(
            q, k, v, attn_mask=_mask(lib, BOOL_2D), scale=0.5
        )
        outs.append(o.grad_fn)
    ours, theirs = outs
    names = sorted(a for a in dir(theirs) if a.startswith("_saved_"))
    assert sorted(a for a in dir(ours) if a.startswith("_saved_") and a != "_saved_names") == names
    for n in ("_saved_dropout_p", "_saved_is_causal", "_saved_scale"):
        assert getattr(ours, n) == getattr(theirs, n)
    for n in ("_saved_logsumexp", "_saved_output", "_saved_attn_mask", "_saved_query"):
        np.testing.assert_allclose(
            getattr(ours, n).detach().numpy(),
            getattr(theirs, n).detach().numpy(),
            rtol=1e-5,
            atol=1e-6,
        )


@pytest.mark.parametrize("p", [0.3, 1.0])
def test_sdpa_dropout_draws_torch_mask(p):
    torch = require_torch()
    rng = np.random.default_rng(1)
    arrays = [rng.standard_normal((2, 3, 4, 5)) for _ in range(3)]
    outs = []
    for lib in (ja, torch):
        lib.manual_seed(7)
        q, k, v = (lib.tensor(a, requires_grad=True) for a in arrays)
        o = lib.nn.functional.scaled_dot_product_attention(q, k, v, dropout_p=p)
        o.sum().backward()
        outs.append((o.detach().numpy(), q.grad.numpy(), v.grad.numpy(), _chain(o)))
    for a, b in zip(outs[0][:3], outs[1][:3]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert outs[0][3] == outs[1][3]


def test_sdpa_mask_requiring_grad_takes_math_path():
    torch = require_torch()
    rng = np.random.default_rng(2)
    arrays = [rng.standard_normal(s) for s in ((2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 5), (4, 6))]
    o, t = compare(
        lambda lib, q, k, v, m: lib.nn.functional.scaled_dot_product_attention(q, k, v, m),
        arrays,
        torch,
        "float64",
    )
    assert _chain(o) == _chain(t)


def test_sdpa_create_graph_and_forward_ad_refuse_as_torch():
    torch = require_torch()
    rng = np.random.default_rng(4)
    arrays = [rng.standard_normal((1, 2, 3, 4)) for _ in range(3)]
    res = []
    for lib in (ja, torch):
        q, k, v = (lib.tensor(a, requires_grad=True) for a in arrays)
        o = lib.nn.functional.scaled_dot_product_attention(q, k, v)
        g = lib.autograd.grad(o.sum(), [q, k, v], create_graph=True)
        names = [x.grad_fn.name() for x in g]
        with pytest.raises(RuntimeError) as e:
            g[0].sum().backward()
        res.append((names, str(e.value), [x.detach().numpy() for x in g]))
        fw = lib.autograd.forward_ad
        with fw.dual_level(), pytest.raises(NotImplementedError) as e2:
            lib.nn.functional.scaled_dot_product_attention(
                fw.make_dual(q.detach(), lib.ones_like(q)), k, v
            )
        res[-1] = res[-1] + (str(e2.value).splitlines()[0],)
    assert res[0][0] == res[1][0] and res[0][1] == res[1][1] and res[0][3] == res[1][3]
    for a, b in zip(res[0][2], res[1][2]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_safe_softmax_rows_masked_out():
    torch = require_torch()
    x = np.array([[1.0, 2.0, -np.inf], [-np.inf, -np.inf, -np.inf]])
    o, t = compare(
        lambda lib, a: lib.nn.functional.scaled_dot_product_attention(
            a[:, :2],
            a[:, :2],
            a[:, :2] * 0 + 1,
            attn_mask=lib.tensor([[True, False], [False, False]]),
        ),
        [x[:, :2].copy() * 0 + np.array([[1.0, 2.0], [3.0, 4.0]])],
        torch,
        "float64",
    )
    assert _chain(o) == _chain(t)


SDPA_ERRORS = [
    lambda lib: lib.nn.functional.scaled_dot_product_attention(
        lib.ones(1, 1, 3, 2), lib.ones(1, 1, 4, 2, dtype=lib.float64), lib.ones(1, 1, 4, 2)
    ),
    lambda lib: lib.nn.functional.scaled_dot_product_attention(
        lib.ones(2), lib.ones(1, 1, 4, 2), lib.ones(1, 1, 4, 2)
    ),
    lambda lib: lib.nn.functional.scaled_dot_product_attention(
        lib.ones(1, 1, 3, 2),
        lib.ones(1, 1, 4, 2),
        lib.ones(1, 1, 4, 2),
        attn_mask=lib.ones(3, 4, dtype=lib.int64),
    ),
    lambda lib: lib.nn.functional.scaled_dot_product_attention(
        lib.ones(1, 3, 2),
        lib.ones(1, 4, 2),
        lib.ones(1, 4, 2),
        attn_mask=lib.ones(3, 4, dtype=lib.bool),
        is_causal=True,
    ),
    lambda lib: lib.nn.functional.scaled_dot_product_attention(
        lib.ones(1, 1, 3, 2), lib.ones(1, 1, 4, 2), lib.ones(1, 1, 4, 2), dropout_p=1.5
    ),
    lambda lib: lib.nn.functional.scaled_dot_product_attention(
        lib.ones(1, 1, 3, 2, dtype=lib.complex64),
        lib.ones(1, 1, 4, 2, dtype=lib.complex64),
        lib.ones(1, 1, 4, 2, dtype=lib.complex64),
    ),
]


@pytest.mark.parametrize("i", range(len(SDPA_ERRORS)))
def test_sdpa_errors_match_torch(i):
    compare_errors(SDPA_ERRORS[i], require_torch())


# ---------------------------------------------------------------- multi-head attention
MHA = [
    ({"embed_dim": 8, "num_heads": 2}, "self", {}),
    ({"embed_dim": 8, "num_heads": 2}, "self", {"need_weights": False}),
    (
        {"embed_dim": 8, "num_heads": 2, "batch_first": True},
        "self",
        {"average_attn_weights": False},
    ),
    ({"embed_dim": 8, "num_heads": 4, "kdim": 3, "vdim": 5}, "cross", {}),
    ({"embed_dim": 8, "num_heads": 2, "add_bias_kv": True, "add_zero_attn": True}, "kv", {}),
    ({"embed_dim": 8, "num_heads": 2, "bias": False}, "kv", {"need_weights": False}),
    ({"embed_dim": 8, "num_heads": 2}, "self", {"attn_mask": "causal_bool"}),
    (
        {"embed_dim": 8, "num_heads": 2},
        "self",
        {"attn_mask": "causal_float", "need_weights": False},
    ),
    (
        {"embed_dim": 8, "num_heads": 2},
        "self",
        {"attn_mask": "causal_float", "need_weights": False, "is_causal": True},
    ),
    ({"embed_dim": 8, "num_heads": 2, "batch_first": True}, "self", {"key_padding_mask": "pad"}),
    (
        {"embed_dim": 8, "num_heads": 2},
        "self",
        {"key_padding_mask": "pad", "attn_mask": "causal_bool", "need_weights": False},
    ),
    ({"embed_dim": 8, "num_heads": 2}, "unbatched", {}),
]


def _mha_inputs(kind, cfg, rng):
    e = cfg["embed_dim"]
    bf = cfg.get("batch_first", False)
    if kind == "unbatched":
        x = rng.standard_normal((5, e))
        return [x], lambda ins: (ins[0], ins[0], ins[0])
    shape = (3, 5, e) if bf else (5, 3, e)
    if kind == "self":
        return [rng.standard_normal(shape)], lambda ins: (ins[0], ins[0], ins[0])
    if kind == "kv":
        m = (3, 6, e) if bf else (6, 3, e)
        return [rng.standard_normal(shape), rng.standard_normal(m)], lambda ins: (
            ins[0],
            ins[1],
            ins[1],
        )
    ks = (6, 3, cfg["kdim"])
    vs = (6, 3, cfg["vdim"])
    return (
        [rng.standard_normal(shape), rng.standard_normal(ks), rng.standard_normal(vs)],
        lambda ins: tuple(ins),
    )


def _mha_kwargs(lib, kw, bsz=3, L=5):
    out = dict(kw)
    causal = np.triu(np.ones((L, L), bool), 1)
    if out.get("attn_mask") == "causal_bool":
        out["attn_mask"] = lib.tensor(causal)
    elif out.get("attn_mask") == "causal_float":
        out["attn_mask"] = lib.tensor(np.where(causal, -np.inf, 0.0), dtype=lib.float32)
    if out.get("key_padding_mask") == "pad":
        pad = np.zeros((bsz, L), bool)
        pad[0, 3:] = True
        pad[2, 4:] = True
        out["key_padding_mask"] = lib.tensor(pad)
    return out


@pytest.mark.parametrize("i", range(len(MHA)))
def test_multihead_attention_matches_torch(i):
    torch = require_torch()
    cfg, kind, kw = MHA[i]
    torch.manual_seed(i)
    tm = torch.nn.MultiheadAttention(**cfg)
    ja.manual_seed(i)
    om = ja.nn.MultiheadAttention(**cfg)
    for (n, a), (m, b) in zip(om.state_dict().items(), tm.state_dict().items()):
        assert n == m
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6, atol=1e-7)  # torch's init draws
    assert repr(om) == repr(tm)
    tm, om = tm.double(), om.double()
    rng = np.random.default_rng(i)
    arrays, qkv = _mha_inputs(kind, cfg, rng)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for k in (0, 1):

            def run(lib, *ins, k=k):
                mod = om if lib is ja else tm
                r = mod(*qkv(ins), **_mha_kwargs(lib, kw))
                return r[k] if r[k] is not None else r[0]

            o, t = compare(run, arrays, torch, "float64")
            # with need_weights and a mask torch records baddbmm: a row of the opinfo stream's
            if (
                hasattr(ja, "baddbmm")
                or "attn_mask" not in kw
                and "key_padding_mask" not in kw
                or kw.get("need_weights") is False
            ):
                assert _chain(o) == _chain(t)
        for mod in (om, tm):
            mod.eval()
        with ja.no_grad(), torch.no_grad():  # torch's fast path where it applies
            o = om(*qkv([ja.tensor(a) for a in arrays]), **_mha_kwargs(ja, kw))
            t = tm(*qkv([torch.tensor(a) for a in arrays]), **_mha_kwargs(torch, kw))
        for a, b in zip(o, t):
            assert (a is None) == (b is None)
            if a is not None:
                np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-7, atol=1e-8)


def test_multihead_attention_training_dropout_matches_torch():
    torch = require_torch()
    outs = []
    x = np.random.default_rng(0).standard_normal((5, 3, 8))
    for lib in (ja, torch):
        lib.manual_seed(3)
        m = lib.nn.MultiheadAttention(8, 2, dropout=0.4)
        t = lib.tensor(x, dtype=lib.float32, requires_grad=True)
        o, w = m(t, t, t)
        (o.sum() + w.sum()).backward()
        outs.append(
            (o.detach().numpy(), w.detach().numpy(), t.grad.numpy(), m.in_proj_weight.grad.numpy())
        )
    for a, b in zip(*outs):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


MHA_ERRORS = [
    lambda lib: lib.nn.MultiheadAttention(0, 2),
    lambda lib: lib.nn.MultiheadAttention(7, 2),
    lambda lib: lib.nn.MultiheadAttention(8, 2)(lib.ones(5, 3, 8), lib.ones(5, 8), lib.ones(5, 8)),
    lambda lib: lib.nn.MultiheadAttention(8, 2)(
        lib.ones(5, 3, 6), lib.ones(5, 3, 6), lib.ones(5, 3, 6)
    ),
    lambda lib: lib.nn.MultiheadAttention(8, 2)(
        lib.ones(5, 3, 8), lib.ones(5, 3, 8), lib.ones(4, 3, 8)
    ),
    lambda lib: lib.nn.MultiheadAttention(8, 2)(
        lib.ones(5, 3, 8),
        lib.ones(5, 3, 8),
        lib.ones(5, 3, 8),
        attn_mask=lib.ones(4, 5, dtype=lib.bool),
    ),
    lambda lib: lib.nn.MultiheadAttention(8, 2)(
        lib.ones(5, 3, 8),
        lib.ones(5, 3, 8),
        lib.ones(5, 3, 8),
        attn_mask=lib.ones(5, 5, dtype=lib.int64),
    ),
    lambda lib: lib.nn.MultiheadAttention(8, 2)(
        lib.ones(5, 3, 8), lib.ones(5, 3, 8), lib.ones(5, 3, 8), is_causal=True
    ),
    lambda lib: lib.nn.MultiheadAttention(8, 2)(
        lib.ones(5, 3, 8),
        lib.ones(5, 3, 8),
        lib.ones(5, 3, 8),
        key_padding_mask=lib.ones(2, 5, dtype=lib.bool),
    ),
    lambda lib: lib.nn.MultiheadAttention(8, 2)(
        lib.ones(2, 5, 3, 8), lib.ones(5, 3, 8), lib.ones(5, 3, 8)
    ),
]


@pytest.mark.parametrize("i", range(len(MHA_ERRORS)))
def test_multihead_attention_errors_match_torch(i):
    compare_errors(MHA_ERRORS[i], require_torch())


def test_mask_type_mismatch_warns_as_torch():
    torch = require_torch()
    msgs = []
    for lib in (ja, torch):
        m = lib.nn.MultiheadAttention(8, 2)
        x = lib.ones(5, 3, 8)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            m(x, x, x, key_padding_mask=lib.zeros(3, 5, dtype=lib.bool), attn_mask=lib.zeros(5, 5))
        msgs.append([str(x.message) for x in w])
    assert msgs[0] == msgs[1]


# ---------------------------------------------------------------- transformer modules
def _encoder_layer(lib, **kw):
    return lib.nn.TransformerEncoderLayer(8, 2, 16, **kw)


def _decoder_layer(lib, **kw):
    return lib.nn.TransformerDecoderLayer(8, 2, 16, **kw)


TRANSFORMERS = [
    ("enc", lambda lib: _encoder_layer(lib)),
    ("enc", lambda lib: _encoder_layer(lib, batch_first=True, norm_first=True, activation="gelu")),
    ("enc", lambda lib: _encoder_layer(lib, bias=False, activation=lib.nn.functional.tanh)),
    ("dec", lambda lib: _decoder_layer(lib)),
    ("dec", lambda lib: _decoder_layer(lib, batch_first=True, norm_first=True)),
    (
        "enc",
        lambda lib: lib.nn.TransformerEncoder(
            _encoder_layer(lib, batch_first=True), 2, norm=lib.nn.LayerNorm(8)
        ),
    ),
    ("dec", lambda lib: lib.nn.TransformerDecoder(_decoder_layer(lib), 2)),
    ("full", lambda lib: lib.nn.Transformer(8, 2, 1, 2, 16)),
    ("full", lambda lib: lib.nn.Transformer(8, 2, 2, 1, 16, batch_first=True, norm_first=True)),
]


def _run_transformer(kind, mod, lib, ins, masks):
    causal = lib.nn.Transformer.generate_square_subsequent_mask(4)
    if kind == "enc":
        return mod(ins[0], **({"src_key_padding_mask": masks} if masks is not None else {}))
    if kind == "dec":
        return mod(ins[0], ins[1], tgt_mask=causal)
    return mod(ins[1], ins[0], tgt_mask=causal)


@pytest.mark.parametrize("i", range(len(TRANSFORMERS)))
def test_transformer_modules_match_torch(i):
    torch = require_torch()
    kind, make = TRANSFORMERS[i]
    with warnings.catch_warnings(record=True) as wt:
        warnings.simplefilter("always")
        torch.manual_seed(i)
        tm = make(torch)
    with warnings.catch_warnings(record=True) as wo:
        warnings.simplefilter("always")
        ja.manual_seed(i)
        om = make(ja)
    assert [str(w.message) for w in wo] == [str(w.message) for w in wt]
    assert repr(om) == repr(tm)
    for (n, a), (m, b) in zip(om.state_dict().items(), tm.state_dict().items()):
        assert n == m
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6, atol=1e-7)
    tm, om = tm.double(), om.double()
    for mod in (tm, om):
        mod.eval()  # dropout off: the values are deterministic
    rng = np.random.default_rng(i)
    bf = getattr(om, "batch_first", None)
    if bf is None:
        first = om.layers[0] if hasattr(om, "layers") else om
        bf = first.self_attn.batch_first
    shape = lambda s, b: (b, s, 8) if bf else (s, b, 8)
    arrays = [rng.standard_normal(shape(4, 3)), rng.standard_normal(shape(6, 3))]
    if kind == "enc":
        arrays = arrays[:1]
    compare(
        lambda lib, *ins: _run_transformer(kind, om if lib is ja else tm, lib, ins, None),
        arrays,
        torch,
        "float64",
        names=True,
    )


def test_encoder_eval_padding_follows_torch_nested_path():
    torch = require_torch()
    pad = np.zeros((3, 4), bool)
    pad[1, 2:] = True
    x = np.random.default_rng(5).standard_normal((3, 4, 8))
    outs = []
    for lib in (ja, torch):
        lib.manual_seed(0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            enc = lib.nn.TransformerEncoder(
                lib.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True), 2
            )
        enc.eval()
        with lib.no_grad():
            outs.append(
                enc(lib.tensor(x, dtype=lib.float32), src_key_padding_mask=lib.tensor(pad)).numpy()
            )
    np.testing.assert_allclose(outs[0], outs[1], rtol=1e-4, atol=1e-5)


def test_transformer_training_step_matches_torch():
    """A few optimisation steps of a small Transformer with dropout: torch's losses."""
    torch = require_torch()
    losses = []
    rng = np.random.default_rng(0)
    src, tgt = rng.standard_normal((5, 2, 8)), rng.standard_normal((4, 2, 8))
    for lib in (ja, torch):
        lib.manual_seed(0)
        model = lib.nn.Transformer(8, 2, 1, 1, 16, dropout=0.2)
        opt = lib.optim.SGD(model.parameters(), lr=0.1)
        mask = lib.nn.Transformer.generate_square_subsequent_mask(4)
        run = []
        for _ in range(3):
            opt.zero_grad()
            out = model(
                lib.tensor(src, dtype=lib.float32),
                lib.tensor(tgt, dtype=lib.float32),
                tgt_mask=mask,
            )
            loss = (out**2).mean()
            loss.backward()
            opt.step()
            run.append(loss.item())
        losses.append(run)
    np.testing.assert_allclose(losses[0], losses[1], rtol=1e-4)


TRANSFORMER_ERRORS = [
    lambda lib: lib.nn.TransformerEncoderLayer(8, 2, 16, activation="tanh"),
    lambda lib: lib.nn.Transformer(8, 2, 1, 1, 16)(lib.ones(5, 2, 8), lib.ones(4, 3, 8)),
    lambda lib: lib.nn.Transformer(8, 2, 1, 1, 16)(lib.ones(5, 2, 8), lib.ones(4, 2, 6)),
]


@pytest.mark.parametrize("i", range(len(TRANSFORMER_ERRORS)))
def test_transformer_errors_match_torch(i):
    compare_errors(TRANSFORMER_ERRORS[i], require_torch())


def test_square_subsequent_mask_matches_torch():
    torch = require_torch()
    for lib_dtype in ("float32", "float64"):
        a = ja.nn.Transformer.generate_square_subsequent_mask(4, dtype=getattr(ja, lib_dtype))
        b = torch.nn.Transformer.generate_square_subsequent_mask(4, dtype=getattr(torch, lib_dtype))
        assert repr(a) == repr(b)


_ = copy_state
