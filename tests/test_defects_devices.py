"""Mixing devices gives torch's errors, never a raw TypeError from the array library (issue 13,
test plan B11): assigning a gradient from another device, comparisons, torch.equal/allclose/
isclose, logical and bitwise ops, indexing a cpu tensor with a device index. Run on the cuda
stand-in where there is no GPU (tests/_devices.py)."""

from __future__ import annotations

import pytest

import jupyter_autograd as ja

SAME_DEVICE = (
    "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!"
)


def test_grad_from_another_device(cuda_device):
    x = ja.ones(2, device=cuda_device, requires_grad=True)
    with pytest.raises(
        RuntimeError,
        match="^attempting to assign a gradient with device type 'cpu' to a "
        "tensor with device type 'cuda'. Please ensure that the gradient "
        "and the tensor are on the same device$",
    ):
        x.grad = ja.ones(2)
    y = ja.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="device type 'cuda' to a tensor with device type 'cpu'"):
        y.grad = ja.ones(2, device=cuda_device)
    x.grad = ja.full((2,), 3.0, device=cuda_device)
    assert x.grad.device.type == "cuda"


@pytest.mark.parametrize(
    "expr",
    [
        "c == p",
        "p == c",
        "c != p",
        "c < p",
        "c >= p",
        "ja.eq(c, p)",
        "ja.equal(c, p)",
        "ja.equal(p, c)",
        "ja.allclose(c, p)",
        "ja.isclose(c, p)",
        "ja.logical_and(c, p)",
        "ja.logical_xor(p, c)",
        "ci & pi",
        "pi | ci",
        "ci ^ pi",
    ],
)
def test_binary_ops_across_devices(cuda_device, expr):
    env = {
        "ja": ja,
        "c": ja.ones(2, device=cuda_device),
        "p": ja.ones(2),
        "ci": ja.ones(2, dtype=ja.long, device=cuda_device),
        "pi": ja.ones(2, dtype=ja.long),
    }
    with pytest.raises(RuntimeError) as info:
        eval(expr, env)
    assert str(info.value) == SAME_DEVICE


@pytest.mark.parametrize(
    "expr",
    [
        "c == ja.tensor(1.)",
        "ja.tensor(1.) == c",
        "ja.equal(c, c)",
        "ja.allclose(c, c + 1e-9)",
        "ci & ja.tensor(1)",
    ],
)
def test_a_zero_dim_cpu_tensor_meets_a_device_tensor(cuda_device, expr):
    env = {
        "ja": ja,
        "c": ja.ones(2, device=cuda_device),
        "ci": ja.ones(2, dtype=ja.long, device=cuda_device),
    }
    r = eval(expr, env)
    assert r is True or r.device.type == "cuda"


def test_indexing_with_a_device_index(cuda_device):
    p = ja.arange(3.0)
    with pytest.raises(
        IndexError,
        match=r"^indices should be either on cpu or on the same device as the "
        r"indexed tensor \(cpu\)$",
    ):
        p[ja.tensor([0, 1], device=cuda_device)]
    with pytest.raises(IndexError, match="indices should be either on cpu"):
        p[ja.tensor([True, False, True], device=cuda_device)] = 0.0
    c = ja.arange(3.0, device=cuda_device)
    assert c[ja.tensor([0, 2])].tolist() == [0.0, 2.0]  # cpu indices into a device tensor: allowed
    assert c[ja.tensor([0, 2], device=cuda_device)].tolist() == [0.0, 2.0]


def test_grad_assignment_checks_in_torchs_order():
    from ._oracle import assert_as_torch
    from ._torch import require as require_torch

    torch = require_torch()

    def assign(t, value):
        x = t.ones(2, requires_grad=True)
        x.grad = eval(value, {"t": t})
        return x.grad

    for value in [
        "t.ones(3)",
        "t.ones(2, dtype=t.int64)",
        "t.ones(3, dtype=t.float64)",
        "[1, 2]",
        "t.ones(2, dtype=t.complex64)",
        "t.zeros(2)",
    ]:
        assert_as_torch(torch, lambda t, value=value: assign(t, value))


def test_comparisons_of_host_values_held_as_numpy_scalars():
    """A 0-d result stored as a NumPy scalar is still a cpu value: no device error (fuzz seed 607)."""
    from ._oracle import assert_as_torch
    from ._torch import require as require_torch

    torch = require_torch()

    def compare(t):
        b = t.isnan(t.round(t.expm1(t.tensor(1.0))))[()]
        return t.lt(b, t.zeros(0, requires_grad=True)), t.equal(b, t.tensor(False)), t.tensor(2) < b

    assert_as_torch(torch, compare)
