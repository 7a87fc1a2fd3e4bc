"""Shared fixtures: seeded RNG, hypothesis profiles, and a guard that every test leaves the
global state (grad mode, anomaly mode, forward-AD levels, print options, default dtype) as it
found it."""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

import jupyter_autograd as ja
from jupyter_autograd import _dtype, _printing
from jupyter_autograd.autograd.engine import FLAGS
from jupyter_autograd.grad_mode import STATE

from ._devices import cuda_device, device, pytest_addoption, pytest_generate_tests  # noqa: F401 - device lanes (issue 9)

settings.register_profile(
    "ci", max_examples=200, deadline=2000, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("nightly", max_examples=1000, deadline=None)
settings.register_profile("dev", max_examples=10, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture
def rng():
    return np.random.default_rng(0)


@pytest.fixture(autouse=True)
def _global_state_unchanged():
    before = (
        STATE.grad_enabled,
        STATE.inference,
        FLAGS.anomaly,
        FLAGS.anomaly_check_nan,
        list(FLAGS.forward_ad_levels),
        _printing.get_printoptions(),
        _dtype.get_default_dtype(),
    )
    ja.manual_seed(0)
    yield
    after = (
        STATE.grad_enabled,
        STATE.inference,
        FLAGS.anomaly,
        FLAGS.anomaly_check_nan,
        list(FLAGS.forward_ad_levels),
        _printing.get_printoptions(),
        _dtype.get_default_dtype(),
    )
    # restore before failing so one leak does not cascade into other tests
    STATE.grad_enabled, STATE.inference, FLAGS.anomaly, FLAGS.anomaly_check_nan = before[:4]
    FLAGS.forward_ad_levels[:] = before[4]
    _printing.set_printoptions(**before[5])
    _dtype.set_default_dtype(before[6])
    assert after == before, f"test leaked global state: {before} -> {after}"
