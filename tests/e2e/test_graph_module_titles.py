"""Module titles stay clear of nodes, visit badges and edge labels in both layout directions, in a
real JupyterLab and headless Chromium (issue #15: with the ⇄ direction pressed, 'Linear fc2
(256 → 10)' was drawn under AddmmBackward0 and 'ReLU act' under visit badge 6; the room kept
for a module's title was reserved in layout coordinates, which mirroring moves to the box's
far end, while the title is drawn at its top).

Checked on screen boxes (getBoundingClientRect) of every module title against every node's
shape, every visible visit badge and every visible edge label, at first paint and at every step
of the backward replay, forward and mirrored, on the graphs of test_graph_edge_labels (a 2-layer
MLP with its module boxes; the tutorial and four-input graphs, which have no module, must show
none). Screenshots land in test-artifacts/e2e/ (``module-titles-*.png``).
"""

from __future__ import annotations

from typing import Any

import pytest
from e2e_lab import LabServer, artifacts_dir, replay_steps
from test_graph_edge_labels import FOUR, MLP_BACKWARD, SIBLINGS, overlaps
from test_graph_models import MLP, SETUP, TUTORIAL, TUTORIAL_INPUTS, run
from test_graph_text_size import flip

pytestmark = pytest.mark.e2e

# Screen boxes [[left, top, right, bottom], text] of what a module title must not cover: node
# shapes (a node's drawing without its label and badge), visible badges, visible edge labels.
OBSTACLES = """el => {
  const seen = e => e.checkVisibility({opacityProperty: true, visibilityProperty: true});
  const box = (e, text) => { const r = e.getBoundingClientRect();
                             return [[r.left, r.top, r.right, r.bottom], text]; };
  const out = {titles: [], nodes: [], badges: [], labels: []};
  for (const t of el.querySelectorAll('.jp-AutogradGraph-moduleTitle'))
    if (seen(t)) out.titles.push(box(t, t.textContent));
  for (const g of el.querySelectorAll('g.jp-AutogradGraph-node[data-key]')) {
    const name = g.getAttribute('aria-label');
    for (const c of g.children)
      if (!c.matches('.jp-AutogradGraph-badge, .jp-AutogradGraph-label')) out.nodes.push(box(c, name));
    const b = g.querySelector('.jp-AutogradGraph-badge');
    if (b && seen(b)) out.badges.push(box(b, `badge ${b.textContent} of ${name}`));
  }
  for (const l of el.querySelectorAll('.jp-AutogradGraph-edgeLabel, .jp-AutogradGraph-countLabel'))
    if (seen(l)) out.labels.push(box(l, l.textContent));
  for (const k of Object.keys(out))
    out[k] = out[k].filter(([r]) => r[2] > r[0] && r[3] > r[1]);
  return out;
}"""


def covered(out: Any, where: str) -> tuple[int, list[str]]:
    """How many module titles are drawn, and each (title, thing it intersects) pair."""
    found = out.evaluate(OBSTACLES)
    bad = [
        f"{where}: title {t!r} over {kind[:-1]} {name!r}"
        for rt, t in found["titles"]
        for kind in ("nodes", "badges", "labels")
        for r, name in found[kind]
        if overlaps(rt, r)
    ]
    return len(found["titles"]), bad


def shot(out: Any, name: str) -> None:
    out.scroll_into_view_if_needed()
    out.screenshot(path=str(artifacts_dir() / f"module-titles-{name}.png"))


def check(page: Any, out: Any, name: str, titles: int) -> list[str]:
    """As painted, then every step of the replay from the start."""
    drawn, bad = covered(out, f"{name} as painted")
    assert drawn == titles, (name, drawn)
    shot(out, f"{name}-painted")
    for step, total in replay_steps(page, out):
        drawn, more = covered(out, f"{name} step {step}/{total}")
        assert drawn == titles, (name, step, drawn)
        bad += more
        if step in (0, total // 2, total):
            shot(out, f"{name}-step{step}")
    return bad


def test_module_titles_stay_clear(page: Any, lab: LabServer) -> None:
    cells = [SETUP, TUTORIAL_INPUTS, TUTORIAL, SIBLINGS, FOUR, MLP, MLP_BACKWARD]
    outs = run(page, lab, "module-titles.ipynb", cells, 3)
    # the MLP draws four boxes: MLP model around Linear fc1, ReLU act and Linear fc2
    graphs = {
        "mlp": (outs.nth(2), 4),
        "tutorial": (outs.nth(0), 0),
        "four-inputs": (outs.nth(1), 0),
    }
    bad: list[str] = []
    for name, (out, titles) in graphs.items():
        bad += check(page, out, name, titles)
        flip(page, out, "true")
        bad += check(page, out, f"{name}-mirrored", titles)
        flip(page, out, "false")
    assert not bad, "\n".join(bad)
    assert page.errors == []
