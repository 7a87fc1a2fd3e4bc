"""In-place ReLU (module and functional) and factories called without a size, as torch."""

from __future__ import annotations

import numpy as np
import pytest

import jupyter_autograd as ja

from ._torch import require as require_torch


@pytest.mark.parametrize(
    "make",
    [
        lambda: ja.nn.ReLU(inplace=True),
        lambda: lambda x: ja.nn.functional.relu(x, inplace=True),
    ],
)
def test_inplace_relu_writes_into_its_input(make):
    w = ja.tensor([-1.0, 2.0, -3.0], requires_grad=True)
    x = w * 1
    r = make()(x)
    assert r is x and x.grad_fn.name() == "ReluBackward0"
    np.testing.assert_array_equal(x.detach().numpy(), [0.0, 2.0, 0.0])
    r.sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), [0.0, 1.0, 0.0])
    # out of place by default: the input is untouched
    y = w * 1
    assert ja.nn.ReLU()(y) is not y and y.grad_fn.name() == "MulBackward0"
    assert repr(ja.nn.ReLU(inplace=True)) == "ReLU(inplace=True)"


@pytest.mark.parametrize("name", ["zeros", "ones", "empty"])
def test_factory_without_size(name):
    with pytest.raises(
        TypeError, match=rf'^{name}\(\) missing 1 required positional arguments: "size"$'
    ):
        getattr(ja, name)()
    assert getattr(ja, name)(()).shape == ()  # an explicit empty size is a 0-d tensor


@pytest.mark.parametrize("name", ["rand", "randn"])
def test_random_factory_without_size(name):
    with pytest.raises(
        TypeError, match=rf"^{name}\(\) received an invalid combination of arguments - got \(\)"
    ):
        getattr(ja, name)()


def test_messages_match_torch():
    torch = require_torch()
    for name in ("zeros", "ones", "empty", "rand", "randn"):
        msgs = []
        for lib in (ja, torch):
            with pytest.raises(TypeError) as e:
                getattr(lib, name)()
            msgs.append(str(e.value))
        assert msgs[0] == msgs[1], name
