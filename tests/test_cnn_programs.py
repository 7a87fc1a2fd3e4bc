"""Small CNN programs of the kind a course runs (our own code), run under torch and under
jupyter_autograd from the same weights (copied by state_dict): losses, predictions and
parameters after a few optimizer steps must agree."""

from __future__ import annotations

import numpy as np
import pytest

import jupyter_autograd as ja

from ._layer_parity import copy_state
from ._torch import require as require_torch


def lenet(lib):
    nn, F = lib.nn, lib.nn.functional

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 6, 5, padding=2)
            self.pool = nn.MaxPool2d(2, 2)
            self.conv2 = nn.Conv2d(6, 16, 5)
            self.fc1 = nn.Linear(16 * 5 * 5, 120)
            self.fc2 = nn.Linear(120, 84)
            self.fc3 = nn.Linear(84, 10)

        def forward(self, x):
            x = self.pool(F.relu(self.conv1(x)))
            x = self.pool(F.relu(self.conv2(x)))
            x = lib.flatten(x, 1)
            x = F.relu(self.fc1(x))
            x = F.relu(self.fc2(x))
            return self.fc3(x)

    return Net()


def allconv(lib):
    """Mnist_CNN of the "what is torch.nn really" kind: strided convs, then an average pool."""
    nn = lib.nn
    return nn.Sequential(
        nn.Conv2d(1, 8, 3, stride=2, padding=1),
        nn.ReLU(),
        nn.Conv2d(8, 8, 3, stride=2, padding=1),
        nn.ReLU(),
        nn.Conv2d(8, 10, 3, stride=2, padding=1),
        nn.ReLU(),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
    )


def small_vgg(lib):
    nn = lib.nn
    return nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1),
        nn.ReLU(inplace=True),
        nn.Conv2d(8, 8, 3, padding="same", padding_mode="reflect"),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(8, 16, 3, padding=1, groups=2),
        nn.ReLU(),
        nn.AvgPool2d(2),
        nn.AdaptiveAvgPool2d((2, 2)),
        nn.Flatten(),
        nn.Linear(64, 32),
        nn.ReLU(),
        nn.Linear(32, 5),
    )


def _run(lib, model, x, y, steps, opt_name):
    opt = (
        lib.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
        if opt_name == "sgd"
        else lib.optim.Adam(model.parameters(), lr=1e-3)
    )
    loss_fn = lib.nn.CrossEntropyLoss()
    xt, yt = lib.tensor(x), lib.tensor(y)
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = loss_fn(model(xt), yt)
        loss.backward()
        opt.step()
        losses.append(float(loss.detach()))
    with lib.no_grad():
        pred = model(xt).argmax(1).numpy()
    return np.array(losses), pred, {k: v.detach().numpy() for k, v in model.state_dict().items()}


@pytest.mark.parametrize(
    "arch,shape,classes,opt",
    [
        (lenet, (16, 1, 28, 28), 10, "sgd"),
        (allconv, (16, 1, 28, 28), 10, "adam"),
        (small_vgg, (8, 3, 16, 16), 5, "sgd"),
    ],
)
def test_cnn_training_matches_torch(arch, shape, classes, opt):
    torch = require_torch()
    torch.manual_seed(0)
    tm = arch(torch)
    om = arch(ja)
    copy_state(tm, om, ja)
    assert repr(om) == repr(tm)
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape).astype(np.float32)
    y = rng.integers(0, classes, shape[0])
    lo, po, so = _run(ja, om, x, y, 5, opt)
    lt, pt, st = _run(torch, tm, x, y, 5, opt)
    np.testing.assert_allclose(lo, lt, rtol=1e-4, atol=1e-5)
    np.testing.assert_array_equal(po, pt)
    for k in st:
        np.testing.assert_allclose(so[k], st[k], rtol=1e-3, atol=1e-4, err_msg=k)


def test_functional_cnn_float64_gradients_match_torch():
    """A CNN written with F.* only (conv, pools, pad), in float64: every gradient as torch's."""
    torch = require_torch()
    rng = np.random.default_rng(1)
    x = rng.standard_normal((4, 3, 12, 12))
    w1 = rng.standard_normal((6, 3, 3, 3)) * 0.3
    b1 = rng.standard_normal(6) * 0.1
    w2 = rng.standard_normal((8, 3, 3, 3)) * 0.3
    wt = rng.standard_normal((8, 4, 2, 2)) * 0.3
    res = []
    for lib in (ja, torch):
        F = lib.nn.functional
        ps = [lib.tensor(a, requires_grad=True) for a in (x, w1, b1, w2, wt)]
        h = F.relu(F.conv2d(F.pad(ps[0], (1, 1, 1, 1), mode="reflect"), ps[1], ps[2]))
        h = F.max_pool2d(h, 3, stride=2, padding=1, ceil_mode=True)
        h = F.conv2d(h, ps[3], stride=1, padding=1, groups=2).tanh()
        h = F.conv_transpose2d(h, ps[4], stride=2)
        h = F.avg_pool2d(h, 2, count_include_pad=False) + F.adaptive_avg_pool2d(h, (7, 7))
        out = (h * h).mean()
        out.backward()
        res.append([float(out)] + [p.grad.numpy() for p in ps])
    np.testing.assert_allclose(res[0][0], res[1][0], rtol=1e-12)
    for a, b in zip(res[0][1:], res[1][1:]):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)
