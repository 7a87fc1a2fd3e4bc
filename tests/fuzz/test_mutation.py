"""Mutation checks: the fuzzer must notice a broken engine within the CI budget.

Each test breaks one thing (a registry row's VJP, a conj in a complex rule, the version-counter
check), runs the CI seeds until the first new mismatch and requires one within CI_PROGRAMS. The
unbroken CI run has no new mismatch on these seeds (test_fuzz), so any new one is the mutant's.
"""

from __future__ import annotations

import inspect

import pytest

import jupyter_autograd as ours
from jupyter_autograd.autograd import engine
from jupyter_autograd.ops import OPS

from .._torch import require as require_torch
from .open_classes import is_open
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


@pytest.mark.parametrize("name,index", [("mul", 0), ("div", 1), ("tanh", 0), ("sum.dim_IntList", 0),
                                        ("mm", 1)])
def test_wrong_vjp_is_detected(monkeypatch, name, index):
    torch = require_torch()
    op = OPS[name]
    vjp = list(op.vjp)
    vjp[index] = _wrong(vjp[index])
    monkeypatch.setattr(op, "vjp", tuple(vjp))
    seed, r = first_detection(torch)
    assert seed is not None, f"a wrong VJP for {name} (input {index}) went unnoticed"
    print(f"\nwrong VJP of {name}[{index}] detected by seed {seed}: {r.signature}")


def _complex_rows_with_conj():
    """(row, input index) of rules whose source applies a conj."""
    found = []
    for op in OPS.values():
        for i, rule in enumerate(op.vjp):
            try:
                src = inspect.getsource(rule)
            except (OSError, TypeError):
                continue
            if "conj" in src and op.torch is not None:
                found.append((op.name, i))
    return found


def test_missing_conj_is_detected(monkeypatch):
    """Drop the conjugations of a complex rule: for a rule linear in g with conjugated factors,
    conj(rule(conj(g))) is the same rule without them (and the identity on real inputs)."""
    torch = require_torch()
    if is_open("complex-autograd"):
        pytest.skip("complex autograd is an open class (stream complex): the generator draws no "
                    "complex programs until it lands, so a missing conj cannot be told apart yet")
    rows = _complex_rows_with_conj()
    assert rows, "no complex rule applies a conj"
    name, index = next(((n, i) for n, i in rows if n == "mul"), rows[0])
    op = OPS[name]
    rule = op.vjp[index]

    def no_conj(xp, g, *args):
        return xp.conj(rule(xp, xp.conj(g), *args))

    vjp = list(op.vjp)
    vjp[index] = no_conj
    monkeypatch.setattr(op, "vjp", tuple(vjp))
    seed, r = first_detection(torch)
    assert seed is not None, f"dropping the conj of {name} (input {index}) went unnoticed"
    print(f"\nmissing conj in {name}[{index}] detected by seed {seed}: {r.signature}")


def test_missing_version_check_is_detected(monkeypatch):
    torch = require_torch()
    monkeypatch.setattr(engine, "check_versions", lambda node: None)
    seed, r = first_detection(torch)
    assert seed is not None, "a disabled version-counter check went unnoticed"
    print(f"\ndisabled version check detected by seed {seed}: {r.signature}: {r.mismatch}")
