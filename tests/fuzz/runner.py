"""Run programs under both libraries, classify mismatches, shrink them to reproducers."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .compare import Mismatch, compare
from .generate import Generator
from .open_classes import classifier
from .program import Program, Step, run


@dataclass
class Result:
    seed: int
    program: Program
    mismatch: Mismatch | None  # the first mismatch that ended the comparison
    known_hits: list  # open classes met (counted, not failures)

    @property
    def known(self) -> str | None:
        return self.mismatch.known if self.mismatch else None

    @property
    def new(self) -> bool:
        return self.mismatch is not None and self.mismatch.known is None

    @property
    def signature(self) -> str:
        return signature(self.program, self.mismatch) if self.mismatch else ""


def signature(program: Program, m: Mismatch) -> str:
    """A mismatch's class by symptom: what kind of step showed it, and what differed."""
    step = m.step
    inside = step is not None and 0 <= step < len(program.steps)
    kind = program.steps[step].kind if inside else "end"
    dtype = program.steps[step].dtype if inside else ""
    return f"{kind.split('@')[0]} / {m.field}" + (f" / {dtype}" if dtype else "")


def compare_runs(program: Program, theirs: list, ours_lib) -> tuple[Mismatch | None, list]:
    try:
        return compare(theirs, run(program, ours_lib), classifier(program))
    except Exception as e:  # noqa: BLE001 - a crash of the comparison itself is a finding too
        return Mismatch(-1, "end:crash", None, (type(e).__name__, str(e))), []


def check(seed: int, torch, ours) -> Result:
    """Draw the program of ``seed`` running it under both libraries in lockstep, and compare.

    A step that shows a known (open-class) mismatch and has no side effects is dropped from the
    program, so the comparison goes on; the program recorded is what both ran.
    """
    g = Generator(seed, torch, ours)
    try:
        program = g.generate()
        m = g.mismatch
    except Exception as e:  # noqa: BLE001 - a crash of the harness on ours is a finding too
        program = Program(g.steps, seed)
        m = Mismatch(-1, "end:crash", None, (type(e).__name__, str(e)))
    if m is not None and m.known is None and g.dropped:
        # a dropped step may have had side effects after all (torch changed a tensor's history
        # in a call it then refused): if the recorded program does not show the mismatch, it
        # is a consequence of that step, whose class it is counted in
        again = mismatch_of(program, torch, ours)
        if again is None or again.path != m.path:
            m.known = g.dropped[-1]
    return Result(seed, program, m, g.hits)


def mismatch_of(program: Program, torch, ours) -> Mismatch | None:
    """The mismatch that ends the comparison of ``program`` (known or new), or None."""
    try:
        theirs = run(program, torch)
    except Exception as e:  # noqa: BLE001
        return Mismatch(-1, "end:crash", ("torch run", type(e).__name__, str(e)), None)
    return compare_runs(program, theirs, ours)[0]


# ------------------------------------------------------------------------------ shrinking


def shrink(program: Program, torch, ours, budget: int = 400) -> tuple[Program, Mismatch]:
    """Delta debugging over steps, then simplification of each step, keeping the mismatch's
    class (signature and open class) unchanged. Returns the smallest program found."""
    m0 = mismatch_of(program, torch, ours)
    if m0 is None:  # it mismatched in lockstep only (state the replay does not recreate)
        return program, None
    want = (signature(program, m0), m0.known)
    calls = [0]

    def still(p: Program) -> Mismatch | None:
        if calls[0] >= budget:
            return None
        calls[0] += 1
        m = mismatch_of(p, torch, ours)
        if m is not None and (signature(p, m), m.known) == want:
            return m
        return None

    steps = list(program.steps)
    # drop everything after the step that showed the mismatch
    if m0.step is not None and m0.step >= 0:
        cand = program.with_steps(steps[: m0.step + 1])
        if still(cand):
            steps = cand.steps
    n = 2
    while len(steps) >= 2:
        chunk = max(1, len(steps) // n)
        removed = False
        for start in range(0, len(steps), chunk):
            cand = steps[:start] + steps[start + chunk :]
            if cand and still(program.with_steps(cand)):
                steps = cand
                n = max(n - 1, 2)
                removed = True
                break
        if not removed:
            if chunk == 1:
                break
            n = min(len(steps), 2 * n)
    # simplify the remaining steps one at a time
    changed = True
    while changed:
        changed = False
        for k, s in enumerate(steps):
            for alt in _simpler(s):
                cand = steps[:k] + [alt] + steps[k + 1 :]
                if still(program.with_steps(cand)):
                    steps = cand
                    changed = True
                    break
    final = program.with_steps(steps)
    return final, mismatch_of(final, torch, ours) or m0


_KWARGS = re.compile(r", (retain_graph|create_graph|allow_unused|keepdim|alpha)=[^,)]+")
_NUM = re.compile(r"(?<![\w.])-?\d+\.\d+")


def _simpler(step: Step):
    """Simpler variants of one step: without its grad-mode block, without optional keyword
    arguments, with round literals."""
    src = step.src
    if src.startswith("with "):
        lines = src.splitlines()
        inner = [ln[4:] for ln in lines[1:]]
        yield Step(
            "\n".join(inner),
            step.kind.split("@")[0],
            step.defines,
            step.mutates,
            step.needs,
            step.dtype,
        )
    for m in _KWARGS.finditer(src):
        yield Step(
            src[: m.start()] + src[m.end() :],
            step.kind,
            step.defines,
            step.mutates,
            step.needs,
            step.dtype,
        )
    if step.kind == "input" and _NUM.search(src):
        rounded = _NUM.sub(lambda m: repr(float(round(float(m.group())))), src)
        if rounded != src:
            yield Step(rounded, step.kind, step.defines, step.mutates, step.needs, step.dtype)
        ones = _NUM.sub("1.0", src)
        if ones != src:
            yield Step(ones, step.kind, step.defines, step.mutates, step.needs, step.dtype)
