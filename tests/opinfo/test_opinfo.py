"""torch's OpInfo database as the oracle: every entry of ``op_db`` runs its float64 and float32
samples through torch and jupyter_autograd under the same name and compares outputs, gradients,
forward-mode tangents, the Tensor method, the in-place variant and the aliases (see
``harness.py``). Entries on the reviewed skip list (``skips.py``) are reported, not run; the
coverage figure is printed at the end of the session (``conftest.py``)."""

from __future__ import annotations

import pytest

from .._torch import require as require_torch
from . import harness
from .skips import SKIPS, reason_of

RESULTS: dict[str, harness.Result] = {}

try:
    _ENTRIES = harness.all_entries()
except Exception:  # noqa: BLE001 - no torch/expecttest: the test below fails in CI, skips elsewhere
    _ENTRIES = {}
IDS = sorted(_ENTRIES) or ["op_db-unavailable"]


def _require():
    require_torch()
    require_torch("expecttest")
    return require_torch("torch.testing._internal.common_methods_invocations")


@pytest.mark.parametrize("name", IDS)
def test_opinfo_entry(name):
    _require()
    reason = reason_of(name)
    if reason:
        pytest.skip(reason)
    res = harness.run_entry(_ENTRIES[name])
    RESULTS[name] = res
    assert res.passed_all, f"{name}: {res.summary()}"


def test_skip_list_names_real_entries_with_reasons():
    _require()
    unknown = sorted(set(SKIPS) - set(_ENTRIES))
    assert not unknown, f"skip list names entries op_db does not have: {unknown}"
    assert all(isinstance(r, str) and len(r) > 10 for r in SKIPS.values())
