"""The ``device`` fixture: run a test on ``cpu`` and on a second device.

The second device is real CUDA (CuPy) where a GPU is usable, and otherwise the stand-in from
:mod:`jupyter_autograd.testing.fake_cuda`, installed as ``cuda`` for the test only. So CI without a
GPU still runs every device-parametrised test on an array type that is not ``numpy.ndarray`` and
that refuses to mix with it, as CuPy does.

``pytest --devices=cpu`` (or ``cuda``, or ``cpu,cuda``, the default) picks the lanes.
"""

from __future__ import annotations

import pytest

from jupyter_autograd.backend import _BACKENDS, CupyBackend
from jupyter_autograd.testing import fake_cuda


def pytest_addoption(parser):
    parser.addoption(
        "--devices",
        default="cpu,cuda",
        help="devices for the `device` fixture: cpu, cuda or cpu,cuda (cuda is the CuPy GPU "
        "where one is usable, else the NumPy stand-in)",
    )


def _real_cuda() -> bool:
    be = _BACKENDS.get("cuda")
    return isinstance(be, CupyBackend) and be.is_available()


@pytest.fixture
def cuda_device():
    """``"cuda"``: a real GPU if usable, else the stand-in installed for this test."""
    if _real_cuda():
        yield "cuda"
        return
    with fake_cuda.installed():
        yield "cuda"


def pytest_generate_tests(metafunc):
    if "device" in metafunc.fixturenames:
        opt = metafunc.config.getoption("--devices", default="cpu,cuda")
        metafunc.parametrize(
            "device", [d.strip() for d in opt.split(",") if d.strip()], indirect=True
        )


@pytest.fixture
def device(request):
    """The device string for this lane (``"cpu"`` or ``"cuda"``)."""
    if request.param == "cpu":
        yield "cpu"
        return
    if _real_cuda():
        yield "cuda"
        return
    with fake_cuda.installed():
        yield "cuda"
