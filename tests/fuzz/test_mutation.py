"""Mutation checks: the fuzzer must notice a broken engine within the CI budget.

Each test breaks one thing (a registry row's VJP, a conj in a complex rule, the version-counter
check), runs the CI seeds until the first new mismatch and requires one within CI_PROGRAMS. The
unbroken CI run has no new mismatch on these seeds (test_fuzz), so any new one is the mutant's.
"""

from __future__ import annotations

import pytest

import jupyter_autograd as ours
from jupyter_autograd.autograd import engine, executor
from jupyter_autograd.ops import OPS

from .._torch import require as require_torch
from .runner import check
from .test_fuzz import CI_PROGRAMS, CI_SEED


def first_detection(torch, limit: int = CI_PROGRAMS):
    """(seed, result) of the first program with a new mismatch, or (None, None)."""
    for seed in range(CI_SEED, CI_SEED + limit):
        r = check(seed, torch, ours)
        if r.new:
            return seed, r
    return None, None


def _wrong(rule):
    """A VJP rule off by a factor of 1.5 (still the right shape and dtype)."""

    def wrong(xp, g, *args):
        return rule(xp, g, *args) * 1.5

    return wrong


@pytest.mark.parametrize(
    "name,index", [("mul", 0), ("div", 1), ("tanh", 0), ("sum.dim_IntList", 0), ("mm", 1)]
)
def test_wrong_vjp_is_detected(monkeypatch, name, index):
    torch = require_torch()
    op = OPS[name]
    vjp = list(op.vjp)
    vjp[index] = _wrong(vjp[index])
    monkeypatch.setattr(op, "vjp", tuple(vjp))
    seed, r = first_detection(torch)
    assert seed is not None, f"a wrong VJP for {name} (input {index}) went unnoticed"
    print(f"\nwrong VJP of {name}[{index}] detected by seed {seed}: {r.signature}")


@pytest.mark.parametrize("name,index", [("mul", 0), ("exp", 0), ("mm", 1)])
def test_missing_conj_is_detected(monkeypatch, name, index):
    """Drop the conjugation of a complex rule: a holomorphic row records its complex twin,
    whose rules are conj(rule(conj g)) = g * conj(f'(z)); the mutant runs the real rule
    g * f'(z) for complex tensors instead (real tensors are unaffected)."""
    torch = require_torch()
    op = OPS[name]
    twin = getattr(op, "cx", None)
    if twin is None or not hasattr(twin, "vjp"):
        pytest.skip(f"{name} has no complex twin")
    vjp = list(twin.vjp)
    vjp[index] = op.vjp[index]
    monkeypatch.setattr(twin, "vjp", tuple(vjp))
    seed, r = first_detection(torch)
    assert seed is not None, f"dropping the conj of {name} (input {index}) went unnoticed"
    print(f"\nmissing conj in {name}[{index}] detected by seed {seed}: {r.signature}")


def test_missing_version_check_is_detected(monkeypatch):
    torch = require_torch()
    monkeypatch.setattr(engine, "check_versions", lambda node: None)  # run_node's checks
    monkeypatch.setattr(executor, "check_versions", lambda node: None)  # the loop's
    seed, r = first_detection(torch)
    assert seed is not None, "a disabled version-counter check went unnoticed"
    print(f"\ndisabled version check detected by seed {seed}: {r.signature}: {r.mismatch}")
