"""Anomaly mode (test plan B9): NaN in backward names the node and shows the forward line."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import jupyter_autograd as ja
from jupyter_autograd import autograd

from ._torch import require as require_torch


class MyFunc(ja.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g * float("nan")  # NaN in its 0th output


ENABLED = "Anomaly Detection has been enabled. This mode will increase the runtime and should only be enabled for debugging."


def test_a_on_for_forward_and_backward_names_node_and_user_line():
    x = ja.ones(2, requires_grad=True)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        with autograd.detect_anomaly():
            y = MyFunc.apply(x)  # the user's forward line
            with pytest.raises(
                RuntimeError,
                match=r"^Function 'MyFuncBackward' returned nan values in its 0th output\.$",
            ):
                y.sum().backward()
    msgs = [str(w.message) for w in rec]
    assert ENABLED in msgs
    tb = [
        m
        for m in msgs
        if m.startswith(
            "Error detected in MyFuncBackward. Traceback of forward call that caused the error:\n"
        )
    ]
    assert tb and "y = MyFunc.apply(x)  # the user's forward line" in tb[0]
    assert "test_anomaly.py" in tb[0]


def test_a_builtin_op_sqrt():
    x = ja.tensor([-1.0], requires_grad=True)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        with autograd.detect_anomaly():
            y = x.sqrt()
            with pytest.raises(
                RuntimeError,
                match="Function 'SqrtBackward0' returned nan values in its 0th output.",
            ):
                y.backward()
    assert any("y = x.sqrt()" in str(w.message) for w in rec)


def test_b_only_around_backward_has_no_forward_info():
    x = ja.ones(2, requires_grad=True)
    y = MyFunc.apply(x)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        with (
            autograd.detect_anomaly(),
            pytest.raises(RuntimeError, match="returned nan values in its 0th output"),
        ):
            y.sum().backward()
    assert any(
        "Error detected in MyFuncBackward. No forward pass information available" in str(w.message)
        for w in rec
    )


def test_c_off_gives_nan_grad_silently():
    x = ja.ones(2, requires_grad=True)
    MyFunc.apply(x).sum().backward()
    assert np.isnan(x.grad.numpy()).all()


def test_d_check_nan_false():
    x = ja.ones(2, requires_grad=True)
    with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"):
        ctx = autograd.detect_anomaly(check_nan=False)
    with ctx:
        assert autograd.is_anomaly_enabled() and not autograd.is_anomaly_check_nan_enabled()
        MyFunc.apply(x).sum().backward()
    assert np.isnan(x.grad.numpy()).all()
    with autograd.set_detect_anomaly(True, check_nan=False):
        MyFunc.apply(x).sum().backward()


def test_prior_mode_restored_even_if_body_raises():
    with pytest.raises(ValueError), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with autograd.detect_anomaly():
            assert autograd.is_anomaly_enabled()
            raise ValueError("boom")
    assert not autograd.is_anomaly_enabled() and autograd.is_anomaly_check_nan_enabled()
    with autograd.set_detect_anomaly(True):
        with autograd.set_detect_anomaly(False, check_nan=False):
            assert not autograd.is_anomaly_enabled()
        assert autograd.is_anomaly_enabled() and autograd.is_anomaly_check_nan_enabled()
    assert not autograd.is_anomaly_enabled()


def test_exception_in_backward_warns_with_forward_trace():
    class Boom(ja.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x + 0

        @staticmethod
        def backward(ctx, g):
            raise KeyError("inside backward")

    x = ja.ones(1, requires_grad=True)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        with autograd.detect_anomaly():
            y = Boom.apply(x)
            with pytest.raises(KeyError):
                y.backward()
    assert any(
        "Error detected in BoomBackward. Traceback of forward call" in str(w.message) for w in rec
    )


def test_matches_torch_message():
    torch = require_torch()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with torch.autograd.detect_anomaly():
            y = torch.tensor([-1.0], requires_grad=True).sqrt()
            with pytest.raises(RuntimeError) as theirs:
                y.backward()
        with autograd.detect_anomaly():
            y = ja.tensor([-1.0], requires_grad=True).sqrt()
            with pytest.raises(RuntimeError) as ours:
                y.backward()
    assert str(ours.value) == str(theirs.value)
