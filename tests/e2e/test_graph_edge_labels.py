"""Edge labels (gradient values and shapes during and after the backward replay, "×k" counts of
bundled edges) never cover each other nor a node's label, in a real JupyterLab and headless
Chromium (issue #15: "during replay gradient labels are drawn over node labels"; two sibling
gradients flowing into AddBackward0 were drawn on top of each other).

Checked on screen boxes (getBoundingClientRect) at every replay step and in the final state, on
the tutorial graph (both directions), a node with four inputs, one with three, and a 2-layer MLP;
in the final state of a folded 100-step loop too.
Screenshots land in test-artifacts/e2e/ (``edge-labels-*.png``).
"""

from __future__ import annotations

from typing import Any

import pytest
from e2e_lab import LabServer, artifacts_dir, replay_steps
from test_graph_models import LOOP, MLP, NODE, SETUP, TUTORIAL, TUTORIAL_INPUTS, run

pytestmark = pytest.mark.e2e

SIBLINGS = (
    "p, q, r, s = (torch.randn(3, requires_grad=True) for _ in range(4))\n"
    "A = torch.randn(2, 3, requires_grad=True); B = torch.randn(3, 3, requires_grad=True)"
)
# CatBackward0 passes four gradients at one step; AddmmBackward0 three.
FOUR = "%%autograd --backward out\nout = torch.cat([p, q, r, s]).sum() + torch.addmm(p, A, B).sum()"
MLP_BACKWARD = "%%autograd --backward loss\nloss = model(xb).sum()"

EDGE_LABELS = ".jp-AutogradGraph-edgeLabel, .jp-AutogradGraph-countLabel"
NODE_LABELS = f"{NODE} .jp-AutogradGraph-label"

# Visible boxes of the matched elements with their text: [[left, top, right, bottom], text].
BOXES = """([root, sel]) => [...root.querySelectorAll(sel)]
  .filter(e => getComputedStyle(e).display !== 'none' && getComputedStyle(e).visibility !== 'hidden')
  .map(e => { const r = e.getBoundingClientRect();
              return [[r.left, r.top, r.right, r.bottom], e.textContent]; })
  .filter(([r]) => r[2] > r[0] && r[3] > r[1])"""


def overlaps(a: list[float], b: list[float], slack: float = 1.0) -> bool:
    return (
        a[0] < b[2] - slack and b[0] < a[2] - slack and a[1] < b[3] - slack and b[1] < a[3] - slack
    )


def boxes(out: Any, sel: str) -> list[tuple[list[float], str]]:
    return [(r, t) for r, t in out.page.evaluate(BOXES, [out.element_handle(), sel])]


def collisions(out: Any) -> tuple[int, list[str]]:
    """How many edge labels are drawn, and every pair that intersects (label-label, label-node);
    a gradient label left out for want of a free place counts as a failure too."""
    dropped = out.locator(".jp-AutogradGraph-edgeLabels").get_attribute("data-dropped")
    labels = boxes(out, EDGE_LABELS)
    names = boxes(out, NODE_LABELS)
    bad = [
        f"edge labels {a!r} and {b!r}"
        for i, (ra, a) in enumerate(labels)
        for rb, b in labels[i + 1 :]
        if overlaps(ra, rb)
    ]
    bad += [
        f"edge label {a!r} over node label {b!r}"
        for ra, a in labels
        for rb, b in names
        if overlaps(ra, rb)
    ]
    if dropped not in (None, "0"):  # None: a build that never leaves a label out
        bad.append(f"{dropped} gradient labels left out")
    return len(labels), bad


def shot(target: Any, name: str) -> None:
    target.scroll_into_view_if_needed()
    target.screenshot(path=str(artifacts_dir() / f"edge-labels-{name}.png"))


def check_replay(page: Any, out: Any, name: str) -> None:
    """Every step of the replay from the start, then the final state."""
    drawn_max = 0
    for step, total in replay_steps(page, out):
        drawn, bad = collisions(out)
        drawn_max = max(drawn_max, drawn)
        shot(out, f"{name}-step{step}")
        assert not bad, f"{name} step {step}/{total}: {bad}"
    # the final state labels every edge backward passed a gradient along
    assert drawn_max >= 3, (name, drawn_max)


def test_edge_labels_never_cover_labels(page: Any, lab: LabServer) -> None:
    cells = [
        SETUP,
        TUTORIAL_INPUTS,
        TUTORIAL,
        SIBLINGS,
        FOUR,
        MLP,
        MLP_BACKWARD,
        "v = torch.randn(3, requires_grad=True)\nx0 = torch.randn(3)",
        LOOP,
    ]
    outs = run(page, lab, "edge-labels.ipynb", cells, 4)
    tut, four, mlp, loop = outs.nth(0), outs.nth(1), outs.nth(2), outs.nth(3)

    # After --backward the view opens on the result: every gradient shape, nothing covered
    # (the folded loop: its bundled edge's "×100" and gradient shape too).
    assert loop.locator(".jp-AutogradGraph-countLabel", has_text="×100").count() == 1
    for out, name in ((tut, "tutorial"), (four, "four-inputs"), (mlp, "mlp"), (loop, "loop")):
        drawn, bad = collisions(out)
        shot(out, f"{name}-final")
        assert drawn >= 3 and not bad, (name, drawn, bad)

    check_replay(page, tut, "tutorial")
    check_replay(page, four, "four-inputs")
    check_replay(page, mlp, "mlp")

    # Mirrored (backward direction): placed again, still clear.
    tut.locator("button[data-action=direction]").click()
    page.wait_for_function(
        "el => el.querySelector('button[data-action=direction]')"
        ".getAttribute('aria-pressed') === 'true'",
        arg=tut.element_handle(),
    )
    check_replay(page, tut, "tutorial-mirrored")
    assert page.errors == []
