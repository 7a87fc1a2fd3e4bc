"""The differential fuzzer in CI: a fixed-seed budget of random programs run under torch and
under jupyter_autograd, with zero new mismatches (open classes, listed in open_classes.py with
their owners, are counted and reported, not failed)."""

from __future__ import annotations

import collections
import time

import pytest

import jupyter_autograd as ours
from jupyter_autograd.ops import OPS

from .._torch import require as require_torch
from . import rows
from .compare import compare
from .generate import generate
from .open_classes import MISSING_API, OPEN
from .program import Program, run
from .runner import check, shrink

CI_SEED = 0
CI_PROGRAMS = 2800


def test_ci_programs_match_torch():
    """2,000 programs (seeds 0..1999): every mismatch must belong to an open class; a new one
    fails with its shrunk, standalone reproducer."""
    torch = require_torch()
    t0 = time.perf_counter()
    known = collections.Counter()
    new = []
    kinds = set()
    steps = 0
    for seed in range(CI_SEED, CI_SEED + CI_PROGRAMS):
        r = check(seed, torch, ours)
        steps += len(r.program.steps)
        kinds.update(s.kind.split("@")[0] for s in r.program.steps)
        known.update(set(r.known_hits) | ({r.known} if r.known else set()))
        if r.new:
            new.append(r)
    dt = time.perf_counter() - t0
    print(
        f"\nfuzz: {CI_PROGRAMS} programs, {steps} steps in {dt:.1f}s; "
        f"{len(new)} new mismatches; open classes met: {dict(known.most_common())}"
    )
    reports = []
    for r in new[:3]:
        p, m = shrink(r.program, torch, ours)
        reports.append(f"seed {r.seed} [{r.signature}]: {m}\n{p.reproducer(str(m))}")
    assert not new, f"{len(new)} programs mismatch torch; first ones shrunk:\n\n" + "\n\n".join(
        reports
    )
    # every registry row with a torch counterpart was drawn at least once
    missing = [op.name for op in rows.fuzzable_rows() if "row:" + op.name not in kinds]
    assert not missing, f"registry rows the CI programs never drew: {missing}"


@pytest.mark.parametrize("seed", [0, 7, 123, 4242])
def test_generation_is_deterministic(seed):
    """The torch run made while generating is the reference run: it must equal a fresh run of
    the recorded program, and a seed must always give the same program."""
    torch = require_torch()
    p1, obs1 = generate(seed, torch)
    p2, _ = generate(seed, torch)
    assert p1.source() == p2.source()
    m, _ = compare(obs1, run(p1, torch))
    assert m is None, str(m)


def test_every_registry_row_renders():
    """Each row's torch lambda turns into source text the program can run (the CI test checks
    the rows are drawn)."""
    import random

    rng = random.Random(0)
    for op in rows.fuzzable_rows():
        n, _ = rows.signature(op)
        assert op.name in OPS and (n is None or n >= 1)
        shapes = rows.input_shapes(op, rng, (2, 3)) or rows.input_shapes(op, rng, (2, 2, 3))
        assert shapes, op.name
        drawn = rows.draw_params(op, rng, shapes)
        assert drawn is not None or op.name in ("select.int", "slice.Tensor", "gather"), op.name
        if drawn is not None:
            src = rows.render(op, [f"a{k}" for k in range(n or len(shapes))], drawn)
            compile(src, op.name, "eval")


@pytest.mark.parametrize("key", sorted(OPEN))
def test_open_classes_are_still_open(key):
    """Each open class's reproducer still mismatches; when one stops, the class is fixed and
    its entry in tests/fuzz/open_classes.py must go (so the fuzzer covers that ground again)."""
    torch = require_torch()
    entry = OPEN[key]
    program = Program.from_sources(entry.repro)
    m, _ = compare(run(program, torch), run(program, ours))
    assert m is not None, (
        f"open class {key!r} ({entry.owner}) no longer reproduces: its fix has landed. Delete its "
        f"entry in tests/fuzz/open_classes.py (mismatch now: {m})"
    )


def test_missing_api_is_still_missing():
    """Names in MISSING_API are not drawn; one that appears must be removed from the list."""
    import jupyter_autograd

    present = sorted(
        n
        for n in MISSING_API
        if hasattr(jupyter_autograd, n.removeprefix("torch."))
        and (n.startswith("torch.") or hasattr(jupyter_autograd.Tensor, n))
    )
    assert not present, f"now implemented, remove from MISSING_API in open_classes.py: {present}"


def test_reproducer_is_standalone(capsys, monkeypatch):
    """A reproducer runs as a script under both libraries (``python repro.py [ours]``)."""
    import sys

    require_torch()
    program = Program.from_sources(("x = torch.tensor([-1.0])", "y = x.log()"))
    text = program.reproducer("note")
    for argv in (["repro.py"], ["repro.py", "ours"]):
        monkeypatch.setattr(sys, "argv", argv)
        exec(compile(text, "repro.py", "exec"), {"__name__": "__main__"})  # noqa: S102
    out = capsys.readouterr().out
    assert out.count("y tensor(") == 2
