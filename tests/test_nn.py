"""nn: modules, layers, losses and init against torch 2.13 (weights copied from torch models)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import jupyter_autograd as ja
from jupyter_autograd import nn

from ._torch import require as require_torch

torch = require_torch()

TOL = {"float64": 1e-10, "float32": 1e-5}


def _copy_from_torch(ours, theirs):
    """Load torch's parameters and buffers into our module (same state_dict keys)."""
    sd = {k: ja.tensor(v.detach().numpy().copy()) for k, v in theirs.state_dict().items()}
    ours.load_state_dict(sd)


def _close(a, b, dt):
    a = a.detach().numpy() if hasattr(a, "detach") else a
    np.testing.assert_allclose(np.asarray(a), b.detach().numpy(), rtol=TOL[dt], atol=TOL[dt])


def _mlp(lib, act):
    n = lib.nn
    acts = {
        "relu": n.ReLU(),
        "leaky": n.LeakyReLU(0.1),
        "tanh": n.Tanh(),
        "sigmoid": n.Sigmoid(),
        "gelu": n.GELU(),
        "gelu_tanh": n.GELU(approximate="tanh"),
    }
    return n.Sequential(n.Linear(4, 8), acts[act], n.LayerNorm(8), n.Linear(8, 3))


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("act", ["relu", "leaky", "tanh", "sigmoid", "gelu", "gelu_tanh"])
def test_mlp_forward_loss_and_grads_match_torch(act, dt):
    torch.manual_seed(0)
    theirs = _mlp(torch, act).to(getattr(torch, dt))
    ours = _mlp(ja, act).to(getattr(ja, dt))
    _copy_from_torch(ours, theirs)
    rng = np.random.default_rng(1)
    x = rng.normal(size=(6, 4)).astype(dt)
    y = np.array([0, 2, 1, 1, 0, 2])
    out_t = theirs(torch.tensor(x))
    loss_t = torch.nn.CrossEntropyLoss()(out_t, torch.tensor(y))
    loss_t.backward()
    out_o = ours(ja.tensor(x))
    loss_o = nn.CrossEntropyLoss()(out_o, ja.tensor(y))
    loss_o.backward()
    _close(out_o, out_t, dt)
    _close(loss_o, loss_t, dt)
    assert type(loss_o.grad_fn).__name__ == type(loss_t.grad_fn).__name__
    for (name, p), (tname, tp) in zip(ours.named_parameters(), theirs.named_parameters()):
        assert name == tname
        _close(p.grad, tp.grad, dt)


LOSSES = [
    ("MSELoss", {}, "float"),
    ("L1Loss", {}, "float"),
    ("CrossEntropyLoss", {}, "index"),
    ("CrossEntropyLoss", {"label_smoothing": 0.1}, "index"),
    ("NLLLoss", {}, "logp"),
    ("BCELoss", {}, "prob"),
    ("BCEWithLogitsLoss", {}, "binary"),
    ("MSELoss", {"reduction": "sum"}, "float"),
    ("CrossEntropyLoss", {"reduction": "none"}, "index"),
]


@pytest.mark.parametrize("name,kw,kind", LOSSES)
def test_loss_modules_match_torch(name, kw, kind):
    rng = np.random.default_rng(2)
    x = rng.normal(size=(5, 3))
    if kind == "index":
        y = rng.integers(0, 3, 5)
    elif kind == "logp":
        x = x - np.log(np.exp(x).sum(1, keepdims=True))
        y = rng.integers(0, 3, 5)
    elif kind == "prob":
        x = 1 / (1 + np.exp(-x))
        y = rng.uniform(size=(5, 3))
    elif kind == "binary":
        y = (rng.uniform(size=(5, 3)) > 0.5).astype(float)
    else:
        y = rng.normal(size=(5, 3))
    xo, xt = ja.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    lo = getattr(nn, name)(**kw)(xo, ja.tensor(y))
    lt = getattr(torch.nn, name)(**kw)(xt, torch.tensor(y))
    _close(lo, lt, "float64")
    lo.sum().backward()
    lt.sum().backward()
    _close(xo.grad, xt.grad, "float64")
    assert repr(getattr(nn, name)(**kw)) == repr(getattr(torch.nn, name)(**kw))


def test_embedding_and_padding_grads_match_torch():
    torch.manual_seed(0)
    te = torch.nn.Embedding(6, 3, padding_idx=1).double()
    oe = nn.Embedding(6, 3, padding_idx=1).double()
    _copy_from_torch(oe, te)
    idx = np.array([[1, 2, 2], [5, 0, 1]])
    w = np.random.default_rng(0).normal(size=(2, 3, 3))
    (te(torch.tensor(idx)) * torch.tensor(w)).sum().backward()
    out = oe(ja.tensor(idx))
    assert out.grad_fn.name() == "EmbeddingBackward0"
    (out * ja.tensor(w)).sum().backward()
    _close(oe.weight.grad, te.weight.grad, "float64")
    assert np.all(oe.weight.grad.numpy()[1] == 0)
    with pytest.raises(IndexError, match="index out of range in self"):
        oe(ja.tensor([6]))


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_double_backward_matches_torch(approximate):
    x = np.linspace(-3, 3, 7)
    xo, xt = ja.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    (go,) = ja.autograd.grad(nn.functional.gelu(xo, approximate).sum(), xo, create_graph=True)
    (gt,) = torch.autograd.grad(
        torch.nn.functional.gelu(xt, approximate=approximate).sum(), xt, create_graph=True
    )
    _close(go, gt, "float64")
    go.sum().backward()
    gt.sum().backward()
    _close(xo.grad, xt.grad, "float64")


def test_layer_norm_double_backward_and_saved_names():
    rng = np.random.default_rng(3)
    x, w, b = rng.normal(size=(4, 5)), rng.normal(size=5), rng.normal(size=5)
    args_o = [ja.tensor(a, requires_grad=True) for a in (x, w, b)]
    args_t = [torch.tensor(a, requires_grad=True) for a in (x, w, b)]
    yo = nn.functional.layer_norm(args_o[0], (5,), args_o[1], args_o[2])
    yt = torch.nn.functional.layer_norm(args_t[0], (5,), args_t[1], args_t[2])
    _close(yo, yt, "float64")
    for name in ("_saved_result1", "_saved_result2", "_saved_normalized_shape"):
        assert hasattr(yt.grad_fn, name) and hasattr(yo.grad_fn, name)
    go = ja.autograd.grad((yo * yo * yo).sum(), args_o, create_graph=True)
    gt = torch.autograd.grad((yt * yt * yt).sum(), args_t, create_graph=True)
    for a, b_ in zip(go, gt):
        _close(a, b_, "float64")
    sum(g.sum() for g in go).backward()
    sum(g.sum() for g in gt).backward()
    for a, b_ in zip(args_o, args_t):
        _close(a.grad, b_.grad, "float64")


def test_leaky_relu_and_gelu_forward_ad():
    x = ja.tensor([-1.5, 0.5, 2.0], dtype=ja.float64)
    t = ja.tensor([1.0, 2.0, 3.0], dtype=ja.float64)
    import jupyter_autograd.autograd.forward_ad as fwAD

    with fwAD.dual_level():
        d = fwAD.make_dual(x, t)
        tan = fwAD.unpack_dual(nn.functional.leaky_relu(d, 0.2)).tangent
    np.testing.assert_allclose(tan.numpy(), [0.2, 2.0, 3.0])


# ---------------------------------------------------------------- printing and state dicts
class _Block:
    pass


def _arch(lib):
    n = lib.nn

    class Net(n.Module):
        def __init__(self):
            super().__init__()
            self.emb = n.Embedding(10, 4, padding_idx=0)
            self.body = n.Sequential(
                n.Linear(4, 8),
                n.ReLU(),
                n.Dropout(0.1),
                n.LeakyReLU(0.2),
                n.Tanh(),
                n.Sigmoid(),
                n.GELU(),
                n.LayerNorm(8),
                n.Flatten(),
                n.Identity(),
            )
            self.heads = n.ModuleList(
                [n.Linear(8, 2) for _ in range(3)] + [n.Linear(8, 3, bias=False)]
            )
            self.acts = n.ModuleDict({"sm": n.Softmax(dim=1), "lsm": n.LogSoftmax(dim=-1)})
            self.register_buffer("steps", lib.zeros(1))
            self.register_buffer("scratch", lib.zeros(1), persistent=False)

        def forward(self, x):
            return self.heads[0](self.body(self.emb(x)))

    return Net()


def test_print_and_state_dict_keys_match_torch():
    ours, theirs = _arch(ja), _arch(torch)
    assert repr(ours) == repr(theirs)
    assert str(ours) == str(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    assert [n for n, _ in ours.named_modules()] == [n for n, _ in theirs.named_modules()]
    assert [n for n, _ in ours.named_buffers()] == [n for n, _ in theirs.named_buffers()]
    assert len(list(ours.children())) == len(list(theirs.children()))


def test_parameter_repr_and_identity():
    p = nn.Parameter(ja.ones(2))
    assert repr(p) == repr(torch.nn.Parameter(torch.ones(2)))
    assert p.requires_grad and p.is_leaf and isinstance(p, ja.Tensor)
    assert p._is_param
    assert (p * 2).__class__ is ja.Tensor


def test_load_state_dict_errors_match_torch():
    ours, theirs = nn.Linear(2, 3), torch.nn.Linear(2, 3)
    bad_t = {"weight": torch.zeros(4, 2), "extra": torch.zeros(1)}
    bad_o = {"weight": ja.zeros(4, 2), "extra": ja.zeros(1)}
    with pytest.raises(RuntimeError) as et:
        theirs.load_state_dict(bad_t)
    with pytest.raises(RuntimeError) as eo:
        ours.load_state_dict(bad_o)
    assert str(eo.value) == str(et.value)
    res = ours.load_state_dict({"weight": ja.zeros(3, 2)}, strict=False)
    assert res.missing_keys == ["bias"] and res.unexpected_keys == []
    assert np.all(ours.weight.numpy(force=True) == 0)


def test_state_dict_shares_memory_and_round_trips():
    a, b = nn.Linear(3, 2), nn.Linear(3, 2)
    sd = a.state_dict()
    assert not sd["weight"].requires_grad
    b.load_state_dict(sd)
    x = ja.randn(4, 3)
    assert ja.equal(a(x), b(x))
    with ja.no_grad():
        a.weight.mul_(2)
    assert ja.equal(sd["weight"], a.weight.detach())


# ---------------------------------------------------------------- module behaviour
def test_train_eval_dropout_and_zero_grad():
    m = nn.Sequential(nn.Linear(3, 3), nn.Dropout(0.5))
    assert m.training and m[1].training
    m.eval()
    assert not m[1].training
    x = ja.randn(2, 3)
    assert ja.equal(m(x), m[0](x))
    m.train()
    m(ja.randn(4, 3)).sum().backward()
    assert m[0].weight.grad is not None
    m.zero_grad()
    assert m[0].weight.grad is None
    m(ja.randn(4, 3)).sum().backward()
    m.zero_grad(set_to_none=False)
    assert np.all(m[0].weight.grad.numpy() == 0)


def test_dropout_mask_scaling_and_gradient():
    x = ja.ones(20000, requires_grad=True)
    y = nn.functional.dropout(x, 0.25)
    kept = y.detach().numpy() != 0
    assert abs(kept.mean() - 0.75) < 0.02
    np.testing.assert_allclose(y.detach().numpy()[kept], 1 / 0.75, rtol=1e-6)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), y.detach().numpy(), rtol=1e-6)
    assert y.grad_fn.name() == "MulBackward0"  # torch on the CPU: bernoulli_ mask, then mul
    with pytest.raises(
        ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"
    ):
        nn.Dropout(1.5)


def test_forward_hooks_apply_to_and_requires_grad():
    m = nn.Linear(2, 2)
    seen = []
    h1 = m.register_forward_pre_hook(lambda mod, args: (args[0] * 0,))
    h2 = m.register_forward_hook(lambda mod, args, out: seen.append(out.shape) or out + 1)
    out = m(ja.ones(1, 2))
    assert seen == [ja.Size([1, 2])]
    np.testing.assert_allclose(out.detach().numpy(), m.bias.detach().numpy()[None] + 1, rtol=1e-6)
    h1.remove()
    h2.remove()
    assert ja.equal(m(ja.zeros(1, 2)), m.bias.detach()[None] + ja.zeros(1, 2))
    names = []
    nn.Sequential(m, nn.ReLU()).apply(lambda mod: names.append(type(mod).__name__))
    assert names == ["Linear", "ReLU", "Sequential"]
    p = m.weight
    m.to(ja.float64)
    assert (
        m.weight is p
        and m.weight.dtype == ja.float64
        and m(ja.ones(1, 2, dtype=ja.float64)).dtype == ja.float64
    )
    m.requires_grad_(False)
    assert not any(q.requires_grad for q in m.parameters())


def test_setattr_registration_and_errors():
    m = nn.Module()
    m.w = nn.Parameter(ja.ones(1))
    m.sub = nn.Linear(1, 1)
    m.plain = ja.ones(1)
    assert [n for n, _ in m.named_parameters()] == ["w", "sub.weight", "sub.bias"]
    assert "plain" not in m.state_dict()
    with pytest.raises(TypeError, match=r"cannot assign 'int' as parameter 'w'"):
        m.w = 3
    with pytest.raises(KeyError, match="attribute 'plain' already exists"):
        m.register_buffer("plain", ja.ones(1))
    with pytest.raises(AttributeError, match="'Module' object has no attribute 'nope'"):
        m.nope  # noqa: B018
    shared = nn.Linear(2, 2)
    seq = nn.Sequential(shared, shared)
    assert len(list(seq.parameters())) == 2
    del seq[0]
    assert len(seq) == 1 and list(seq._modules) == ["0"]


def test_linear_wrong_feature_size_message_matches_torch():
    with pytest.raises(RuntimeError) as et:
        torch.nn.Linear(3, 2)(torch.ones(4, 5))
    with pytest.raises(RuntimeError) as eo:
        nn.Linear(3, 2)(ja.ones(4, 5))
    assert (
        str(eo.value) == str(et.value) == "mat1 and mat2 shapes cannot be multiplied (4x5 and 3x2)"
    )


def test_cross_entropy_target_out_of_range():
    with pytest.raises(IndexError, match=r"^Target 5 is out of bounds\.$"):
        nn.functional.cross_entropy(ja.zeros(2, 3), ja.tensor([0, 5]))
    with pytest.raises(IndexError, match=r"^Target 5 is out of bounds\.$"):
        torch.nn.functional.cross_entropy(torch.zeros(2, 3), torch.tensor([0, 5]))


# ---------------------------------------------------------------- initialisation
def _uniform_stats(w, bound):
    a = w.detach().numpy().ravel()
    assert np.abs(a).max() <= bound * (1 + 1e-6)
    assert np.abs(a).max() > 0.95 * bound  # fills the interval, not a narrower one
    assert abs(a.std() - bound / math.sqrt(3)) < 0.05 * bound
    assert abs(a.mean()) < 0.05 * bound


def test_linear_init_has_torch_bounds():
    fan_in = 50
    ours, theirs = nn.Linear(fan_in, 400), torch.nn.Linear(fan_in, 400)
    bound = 1 / math.sqrt(fan_in)
    _uniform_stats(ours.weight, bound)
    _uniform_stats(theirs.weight, bound)
    big = nn.Linear(fan_in, 20000)
    _uniform_stats(big.bias, bound)
    assert ours.weight.dtype == ja.float32 == ja.get_default_dtype()


def test_init_functions_statistics():
    w = ja.empty(300, 200)
    nn.init.kaiming_uniform_(w, nonlinearity="relu")
    _uniform_stats(w, math.sqrt(2) * math.sqrt(3 / 200))
    nn.init.xavier_uniform_(w, gain=nn.init.calculate_gain("tanh"))
    _uniform_stats(w, 5 / 3 * math.sqrt(6 / 500))
    nn.init.kaiming_normal_(w, mode="fan_out")
    assert abs(w.numpy().std() - math.sqrt(2 / (1 + 0.01**2)) / math.sqrt(300)) < 0.01
    nn.init.xavier_normal_(w)
    assert abs(w.numpy().std() - math.sqrt(2 / 500)) < 0.002
    e = nn.Embedding(500, 100)
    a = e.weight.detach().numpy()
    assert abs(a.mean()) < 0.02 and abs(a.std() - 1) < 0.02
    ln = nn.LayerNorm(6)
    assert np.all(ln.weight.detach().numpy() == 1) and np.all(ln.bias.detach().numpy() == 0)
    for g in ("relu", "tanh", "sigmoid", "selu", "linear"):
        assert nn.init.calculate_gain(g) == pytest.approx(torch.nn.init.calculate_gain(g))
    assert nn.init.calculate_gain("leaky_relu", 0.2) == pytest.approx(
        torch.nn.init.calculate_gain("leaky_relu", 0.2)
    )
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        nn.init.xavier_uniform_(ja.empty(3))
    p = nn.Parameter(ja.empty(3, 3))
    nn.init.constant_(p, 0.5)  # in place on a leaf that requires grad: runs under no_grad
    assert p.requires_grad and np.all(p.detach().numpy() == 0.5)


def test_layer_reprs_match_torch():
    pairs = [
        (lambda n: n.Linear(3, 2, bias=False)),
        (lambda n: n.LeakyReLU()),
        (lambda n: n.GELU("tanh")),
        (lambda n: n.Softmax(0)),
        (lambda n: n.Dropout()),
        (lambda n: n.Flatten(0, 2)),
        (lambda n: n.LayerNorm([2, 3], elementwise_affine=False)),
        (lambda n: n.Embedding(5, 2, padding_idx=-1)),
        (lambda n: n.ReLU(inplace=True)),
        (lambda n: n.ModuleList()),
        (lambda n: n.ModuleList([n.ReLU(), n.ReLU(), n.Tanh()])),
    ]
    for make in pairs:
        assert repr(make(nn)) == repr(make(torch.nn))
