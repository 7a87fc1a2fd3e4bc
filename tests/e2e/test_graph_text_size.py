"""No text of the graph view is drawn below 11 px on screen at any zoom the view takes by itself
(issue #15, item 4), in a real JupyterLab and headless Chromium.

Node labels were 12 px and the fit never zoomed below 11/12, but edge labels, "×k" counts,
module titles and visit badges were 11 px before zoom: about 10 px at the opening zoom of a node
with four inputs. Every visible ``<text>``/``<tspan>`` is measured as its computed font size
times the scale of its screen transform (getScreenCTM), on the tutorial graph, a node with four
inputs, a 2-layer MLP with its module boxes and a folded 100-step loop: at first paint, after
Fit, at the smallest readable zoom, at every step of the backward replay, in both directions;
zoomed out further by the reader, text is hidden rather than drawn smaller.
Screenshots land in test-artifacts/e2e/ (``text-size-*.png``).
"""

from __future__ import annotations

from typing import Any

import pytest
from e2e_lab import LabServer, artifacts_dir, replay_steps
from test_graph_edge_labels import FOUR, MLP_BACKWARD, SIBLINGS
from test_graph_models import LOOP, MLP, SETUP, TUTORIAL, TUTORIAL_INPUTS, run

pytestmark = pytest.mark.e2e

SMALLEST_PX = 11.0

# [text, on-screen font px, class] of every visible text element inside the output.
SIZES = """el => [...el.querySelectorAll('svg text, svg tspan')]
  .filter(t => t.textContent.trim() && t.checkVisibility({opacityProperty: true,
                                                          visibilityProperty: true}))
  .filter(t => { const r = t.getBoundingClientRect(); return r.width > 0 && r.height > 0; })
  .map(t => { const m = t.getScreenCTM();
              const k = Math.hypot(m.a, m.b);
              const cls = t.getAttribute('class') || t.parentNode.getAttribute('class') || '';
              return [t.textContent, parseFloat(getComputedStyle(t).fontSize) * k, cls]; })"""

ZOOM = """el => parseFloat(/scale\\(([\\d.]+)\\)/.exec(
  el.querySelector('.jp-AutogradGraph-viewport').getAttribute('transform'))[1])"""

# Wheel-zoom the canvas (centre) to zoom `k`: the view's factor is exp(-deltaY * 0.0015).
WHEEL_TO = """([el, k]) => {
  const vp = el.querySelector('.jp-AutogradGraph-viewport');
  const now = parseFloat(/scale\\(([\\d.]+)\\)/.exec(vp.getAttribute('transform'))[1]);
  const canvas = el.querySelector('.jp-AutogradGraph-canvas');
  const b = canvas.getBoundingClientRect();
  canvas.dispatchEvent(new WheelEvent('wheel', {deltaY: -Math.log(k / now) / 0.0015,
    clientX: b.left + b.width / 2, clientY: b.top + b.height / 2,
    bubbles: true, cancelable: true}));
}"""

# The smallest zoom at which the view still draws labels (viewport.ts MIN_READABLE_ZOOM = 11/12,
# as the transform writes it).
MIN_READABLE = 0.9167


def shot(target: Any, name: str) -> None:
    target.scroll_into_view_if_needed()
    target.screenshot(path=str(artifacts_dir() / f"text-size-{name}.png"))


def too_small(out: Any, where: str, minimum: int = 1) -> list[str]:
    """Every visible text under 11 px on screen; at least `minimum` texts must be visible."""
    sizes = out.evaluate(SIZES)
    assert len(sizes) >= minimum, (where, sizes)
    return [
        f"{where}: {text!r} ({cls}) {px:.2f} px"
        for text, px, cls in sizes
        if px < SMALLEST_PX - 0.01
    ]


def check_zooms(page: Any, out: Any, name: str) -> list[str]:
    """First paint (as the view stands), Fit, the smallest readable zoom, then zoomed out by the
    reader (text hidden, never drawn smaller)."""
    bad = too_small(out, f"{name} as painted")
    shot(out, f"{name}-painted")
    out.locator("button[data-action=fit]").click()
    bad += too_small(out, f"{name} fit")
    shot(out, f"{name}-fit")
    page.evaluate(WHEEL_TO, [out.element_handle(), MIN_READABLE])
    k = out.evaluate(ZOOM)
    assert abs(k - MIN_READABLE) < 2e-4, (name, k)
    bad += too_small(out, f"{name} zoom {k}")
    shot(out, f"{name}-min-zoom")
    for _ in range(4):
        out.locator("button[data-action=zoom-out]").click()
        bad += too_small(out, f"{name} zoomed out to {out.evaluate(ZOOM)}", minimum=0)
    shot(out, f"{name}-zoomed-out")
    out.locator("button[data-action=fit]").click()
    return bad


def check_replay(page: Any, out: Any, name: str) -> list[str]:
    """Every step of the backward replay (badges, gradient labels) at the smallest readable zoom."""
    bad: list[str] = []
    for step, total in replay_steps(page, out):
        if step == 0:
            page.evaluate(WHEEL_TO, [out.element_handle(), MIN_READABLE])
        bad += too_small(out, f"{name} replay step {step}/{total} zoom {out.evaluate(ZOOM)}")
        if step == total // 2 or step == total:
            shot(out, f"{name}-replay-step{step}")
    out.locator("button[data-action=fit]").click()
    return bad


def flip(page: Any, out: Any, pressed: str) -> None:
    out.locator("button[data-action=direction]").click()
    page.wait_for_function(
        "([el, p]) => el.querySelector('button[data-action=direction]')"
        ".getAttribute('aria-pressed') === p",
        arg=[out.element_handle(), pressed],
    )


def test_no_text_below_11px(page: Any, lab: LabServer) -> None:
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
    outs = run(page, lab, "text-size.ipynb", cells, 4)
    graphs = {
        "tutorial": outs.nth(0),
        "four-inputs": outs.nth(1),
        "mlp": outs.nth(2),
        "loop": outs.nth(3),
    }
    # the kinds of text this is about are all on screen somewhere
    assert graphs["loop"].locator(".jp-AutogradGraph-countLabel").count() >= 1
    assert graphs["mlp"].locator(".jp-AutogradGraph-moduleTitle").count() >= 1
    assert graphs["four-inputs"].locator(".jp-AutogradGraph-badge text").count() >= 1

    bad: list[str] = []
    for name, out in graphs.items():
        bad += check_zooms(page, out, name)
        flip(page, out, "true")
        bad += check_zooms(page, out, f"{name}-mirrored")
        flip(page, out, "false")
    for name in ("tutorial", "four-inputs", "mlp"):
        bad += check_replay(page, graphs[name], name)
    flip(page, graphs["four-inputs"], "true")
    bad += check_replay(page, graphs["four-inputs"], "four-inputs-mirrored")
    assert not bad, "\n".join(bad)
    assert page.errors == []
