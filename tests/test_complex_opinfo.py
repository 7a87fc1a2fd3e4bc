"""torch's own OpInfo samples in complex128: every ``op_db`` entry that supports complex128 on
CPU and passes the float OpInfo test (``tests/opinfo``), plus the complex-only entries (conj,
real, view_as_real...), runs through torch and jupyter_autograd with complex inputs; outputs,
gradients (torch's conjugate Wirtinger convention), forward-mode tangents, the method, the
in-place variant and the aliases agree (generated cases, issue 13 item 2)."""

from __future__ import annotations

import pytest

from ._torch import require as require_torch

#: complex entries the float OpInfo test leaves to the 'opinfo' stream's list; run here
COMPLEX_ENTRIES = (
    "conj",
    "conj_physical",
    "resolve_conj",
    "resolve_neg",
    "view_as_real",
    "view_as_complex",
    "complex",
    "real",
    "imag",
    "angle",
    "polar",
    "mH",
    "float_power",
)


def _entries():
    try:
        from .opinfo import harness
        from .opinfo.skips import reason_of

        entries = harness.all_entries()
    except Exception:  # noqa: BLE001 - no torch/expecttest: the test fails in CI, skips elsewhere
        return {}
    import torch

    out = {}
    for name, op in entries.items():
        if torch.complex128 not in op.supported_dtypes("cpu"):
            continue
        if reason_of(name) and name not in COMPLEX_ENTRIES:
            continue
        out[name] = op
    return out


_ENTRIES = _entries()
IDS = sorted(_ENTRIES) or ["op_db-unavailable"]


@pytest.mark.parametrize("name", IDS)
def test_opinfo_entry_in_complex128(name, monkeypatch):
    require_torch()
    require_torch("expecttest")
    torch = require_torch("torch")
    from .opinfo import convert, harness

    def complex_only(op):
        return [torch.complex128]

    def tolerance(op, dtype):  # complex128 is compared as float64
        return convert.tolerance(op, torch.float64 if dtype == torch.complex128 else dtype)

    from .opinfo.skips import COMPLEX_DIFFERS

    if name in COMPLEX_DIFFERS:
        pytest.skip(COMPLEX_DIFFERS[name])
    monkeypatch.setattr(harness, "_float_dtypes", complex_only)
    monkeypatch.setattr(harness, "tolerance", tolerance)
    res = harness.run_entry(_ENTRIES[name])
    assert res.passed_all, f"{name}: {res.summary()}"
