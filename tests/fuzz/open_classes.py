"""Classes of mismatch that are known and still open, which the generator steers around.

Each entry is a root cause (not a case), with its owner (the stream fixing it) and a minimal
reproducer that mismatches while the class is open. ``test_open_classes_are_still_open`` runs
every reproducer: when one stops mismatching the class is fixed and its entry must go, so the
fuzzer covers that ground again. The goal is an empty list.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class M:
    """Recognises a class's mismatches: every given regex must match the step's kind, its
    source, the program's source, torch's observed value or ours (as repr; ``re.search``), and
    the differing field (``re.fullmatch``: "grad" is not "grad_fn")."""

    kind: str = ""
    src: str = ""
    field: str = ""
    torch: str = ""
    ours: str = ""
    prog: str = ""  # searched in the whole program's source
    raised: bool | None = None  # whether torch raised in the step (None: either)

    def __call__(self, program, step, m) -> bool:
        if step is None and (self.kind or self.src):
            return False
        if self.prog and re.search(self.prog, program.source()) is None:
            return False
        if self.raised is not None and m.raised is not self.raised:
            return False
        if self.field and re.fullmatch(self.field, m.field) is None:
            return False
        return all(
            re.search(rx, text) is not None
            for rx, text in (
                (self.kind, step.kind if step else ""),
                (self.src, step.src if step else ""),
                (self.torch, repr(m.theirs)),
                (self.ours, repr(m.ours)),
            )
            if rx
        )


@dataclass(frozen=True)
class Open:
    owner: str  # stream: complex / views / defects / lead
    reason: str  # the root cause, one line
    repro: tuple  # program steps (source against ``torch``) that mismatch while open
    # mismatches of this class, recognised by the comparator: match(program, step, mismatch)
    # -> bool (or a tuple of such);
    # None where the generator steers around the class instead (it checks is_open(key))
    match: Callable | None = None


OPEN: dict[str, Open] = {
    "data-of-expanded-overlap": Open(
        "defects",
        "an in-place op on .data (or detach()) of an expanded view: torch refuses the write "
        "into elements sharing memory ('more than one element of the written-to tensor refers "
        "to a single memory location'); ours checks internal overlap only for views (the .data "
        "tensor has no base) and reports NumPy's read-only write as a shape mismatch",
        (
            "x1 = torch.tensor([[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]], requires_grad=True)",
            "t8 = x1.min().expand_as(x1)",
            "t8.data.mul_(2)",
        ),
        M(field=r"raised\(message\)", torch="more than one element of the written-to tensor"),
    ),
}

# Public names torch has and jupyter_autograd lacks (owner: lead). The generator does not draw
# them; test_missing_api_is_still_missing fails when one appears, so it is removed from here.
MISSING_API: frozenset = frozenset(())


def is_open(key: str) -> bool:
    return key in OPEN


def classifier(program):
    """classify(mismatch) -> the open class it belongs to, or None."""

    def classify(m) -> str | None:
        step = m.step
        s = program.steps[step] if step is not None and 0 <= step < len(program.steps) else None
        for key, entry in OPEN.items():
            matchers = entry.match if isinstance(entry.match, tuple) else (entry.match,)
            if any(f is not None and f(program, s, m) for f in matchers):
                return key
        return None

    return classify
