"""Forwards stay silent on inf, nan and zeros, as torch's kernels do, on both of the dispatch's
ways of silencing NumPy (ops/xp.py): the warnings filter FP_FILTER where it holds, NumPy's error
state set to ignore where it does not (pytest's own filters, ``simplefilter("error")``,
``np.errstate(all="raise")``)."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import warnings

import numpy as np
import pytest

import jupyter_autograd as ja
from jupyter_autograd.ops import dispatch, xp
from jupyter_autograd.ops.registry import OPS

from ._op_samples import Unsampleable, cases

_EXTREMES = np.array([0.0, -1.0, np.inf, -np.inf, np.nan, 1e308, -1e308, 5e-324, 1.0, 710.0])
_FILTERED = sorted(n for n, op in OPS.items() if dispatch.filtered(op) and op.cx is not op)


def _extreme(a, shift, dtype):
    flat = np.resize(np.roll(_EXTREMES, shift), a.size)
    with np.errstate(all="ignore"):  # 1e308 to float32 overflows, here, in the test
        return flat.reshape(a.shape).astype(dtype)


def _record_all():
    """Inside catch_warnings: the package's filter in front, every other warning recorded."""
    warnings.filters[:] = [xp.FP_FILTER, ("always", None, Warning, None, 0)]
    warnings._filters_mutated()


@pytest.mark.parametrize("name", _FILTERED)
def test_a_filtered_row_is_silent_through_the_filter(name):
    op = OPS[name]
    try:
        row_cases = cases(op, np.random.default_rng(0))
    except Unsampleable:
        row_cases = []
    if not row_cases:  # rows the samples cannot call through the API: the row itself
        row_cases = None
    with warnings.catch_warnings(record=True) as seen:
        _record_all()
        assert xp.filter_holds()  # the path under test is the filter's, not NumPy's error state
        for shift in range(3):
            for dtype in (np.float64, np.float32, np.complex128):
                for rg in (True, False):
                    if row_cases is None:
                        arrays = [np.zeros((2, 5)) for _ in op.inputs]
                        call = lambda *ts: dispatch.apply(op, ts, None)
                    else:
                        arrays = row_cases[0].arrays
                        call = row_cases[0].ours
                    ts = [
                        ja.tensor(
                            _extreme(a, shift + i, dtype),
                            requires_grad=rg and dtype != np.float32,
                        )
                        for i, a in enumerate(arrays)
                    ]
                    with contextlib.suppress(Exception):  # only warnings are under test here
                        call(*ts)
    fp = [str(w.message) for w in seen if issubclass(w.category, RuntimeWarning)]
    assert fp == [], f"{name}: {fp[:3]}"


def test_every_hot_path_row_is_filtered():
    # the rows of the per-op benchmark (x + 0.5, x * 0.9, x.tanh(), x - 0.1) and the MLP's
    for name in ("add.Scalar", "mul.Scalar", "sub.Scalar", "tanh", "addmm", "mul", "add"):
        assert dispatch.filtered(OPS[name]), name


def _silent_ops():
    x = ja.tensor([0.0, -1.0, 1e308], requires_grad=True)
    y = x.log() + x.sqrt() + (1 / x) + x * 10 + (x * 10).exp()
    y.sum().backward()
    return y


def test_the_filter_holds_or_not():
    with warnings.catch_warnings():
        _record_all()
        assert xp.filter_holds()
        warnings.filterwarnings("ignore", "something else")  # an ignore filter in front: harmless
        assert xp.filter_holds()
        warnings.filterwarnings("ignore", category=DeprecationWarning)
        assert xp.filter_holds()
        warnings.filterwarnings("error", category=DeprecationWarning)  # not a RuntimeWarning
        assert xp.filter_holds()
        warnings.simplefilter("error")
        assert not xp.filter_holds()
    with warnings.catch_warnings():
        _record_all()
        with np.errstate(all="raise"):
            assert not xp.filter_holds()
        with np.errstate(all="warn"):  # the default values, but not NumPy's default state object
            assert not xp.filter_holds()
        assert xp.filter_holds()
        warnings.resetwarnings()
        assert not xp.filter_holds()


def test_no_warning_and_no_error_where_the_filter_does_not_hold():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a NumPy warning would raise
        y = _silent_ops()
    with warnings.catch_warnings(record=True) as seen:
        _record_all()
        with np.errstate(all="raise"):  # NumPy would raise FloatingPointError
            z = _silent_ops()
    assert seen == []
    np.testing.assert_array_equal(y.detach().numpy(), z.detach().numpy())
    assert np.isinf(y.detach().numpy()).any()


def test_a_fresh_interpreter_prints_nothing():
    # no pytest filters here: the filter path itself, with the warnings NumPy would print
    code = (
        "import warnings; warnings.simplefilter('default')\n"
        "import jupyter_autograd as torch\n"
        "from jupyter_autograd.ops import xp\n"
        "assert xp.filter_holds()\n"
        "x = torch.tensor([0.0, -1.0, 1e308], requires_grad=True)\n"
        "y = x.log() + x.sqrt() + (1 / x) + x * 10 + (x * 10).exp() + x.tanh() - 0.5\n"
        "y.sum().backward()\n"
        "import numpy as np\n"
        "np.log(np.zeros(1))  # the user's own NumPy call still warns\n"
    )
    r = subprocess.run(
        [sys.executable, "-c", code], check=False, capture_output=True, text=True, timeout=120
    )
    assert r.returncode == 0, r.stderr
    assert r.stderr.count("RuntimeWarning") == 1 and "divide by zero" in r.stderr, r.stderr
    assert "jupyter_autograd" not in r.stderr, r.stderr


@pytest.mark.parametrize(
    "change",
    [
        lambda: warnings.simplefilter("error"),
        lambda: warnings.filterwarnings("error", category=RuntimeWarning),
        lambda: (
            warnings.resetwarnings(),
            warnings.filters.append(("error", None, Warning, None, 0)),
        ),
    ],
    ids=["simplefilter", "filterwarnings", "resetwarnings"],
)
def test_a_filter_change_in_place_is_seen_by_the_next_op(change):
    """The entries keep the filter's yes (xp.FILTER_OK) while the list is the same list: a
    change made in place, after a yes, must reach the very next op (the warnings module's
    _filters_mutated, which every change calls, empties the kept yes)."""
    x = ja.tensor([0.0, 1.0], requires_grad=True)
    with warnings.catch_warnings():
        _record_all()
        (x * 1.0).log()  # the yes is kept for this list
        assert xp.FILTER_OK[0] is warnings.filters
        change()  # in place: the same list object
        assert xp.FILTER_OK[0] is None
        y = (x * 1.0).log()  # -inf: an error filter now, so NumPy's error state is set quiet
    assert y[0].item() == float("-inf")


def test_no_entry_leaves_numpy_error_state_changed():
    """Every generated entry kind (view or not, filtered or not, method or plain) restores
    NumPy's error state when it set it: a view row that is also elementwise (alias) once left
    it quiet, which silenced the user's own NumPy warnings afterwards."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the filter does not hold: the error-state path
        for name, op in sorted(OPS.items()):
            if len(op.inputs) != 1:
                continue
            try:
                dispatch.apply1(op, ja.ones(2, 3, requires_grad=True))
            except Exception:  # noqa: BLE001, S112 - rows that need parameters
                continue
            assert xp.errstate_now() is xp.DEFAULT_ERRSTATE, name
