"""The smaller readability defects of issue #15's "Why", each checked in a real JupyterLab and
headless Chromium: what is measured is what a student sees (boxes on screen, not the code).

- the details panel never wraps a number mid-digit;
- the tooltip sits beside the node, off the highlighted path where a free place fits it, and
  covers no node's label (on the path or not) where a place covering no node fits it;
- gradient labels never cover node labels at any step of the backward replay;
- "Collapsed N chains." does not stay after "Unfold all";
- the PNG export of the 100-step loop has a sane size (it was 16384 x 42 px);
- GradModeToggle shows its ``torch.inference_mode()`` label whole, on one line, and never
  wraps its printed lines mid-word.

Screenshots land in test-artifacts/e2e/ (``why-*.png``).
"""

from __future__ import annotations

import struct
from typing import Any

import pytest
from e2e_lab import LabServer, artifacts_dir, replay_steps
from test_graph_models import LOOP, NODE, SETUP, TUTORIAL, TUTORIAL_INPUTS, run

pytestmark = pytest.mark.e2e

WIDE = (
    "%%autograd\nbig = torch.arange(40.).reshape(4, 10) * 123456.789 + 0.5\n"
    "big.requires_grad_()\nout = (big * 2).sum()"
)
PATH = f"{NODE}.jp-mod-selected, {NODE}.jp-mod-downstream, {NODE}.jp-mod-upstream"
TOGGLE = "from jupyter_autograd.widgets import GradModeToggle\nGradModeToggle()"

# Rectangles of the matched elements, as [left, top, right, bottom] in page pixels.
RECTS = """([root, sel]) => [...root.querySelectorAll(sel)]
  .filter(e => getComputedStyle(e).display !== 'none' && getComputedStyle(e).visibility !== 'hidden')
  .map(e => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; })
  .filter(r => r[2] > r[0] && r[3] > r[1])"""


def overlaps(a: list[float], b: list[float], slack: float = 1.0) -> bool:
    return (
        a[0] < b[2] - slack and b[0] < a[2] - slack and a[1] < b[3] - slack and b[1] < a[3] - slack
    )


def rects(out: Any, sel: str) -> list[list[float]]:
    return out.page.evaluate(RECTS, [out.element_handle(), sel])


# Whether a box of the tooltip's size fits somewhere in the canvas (a 24 px grid and its edges)
# covering no node: then the tooltip must cover no node's label.
FREE_PLACE = """([root, w, h]) => {
  const c = root.querySelector('.jp-AutogradGraph-canvas').getBoundingClientRect();
  const nodes = [...root.querySelectorAll('.jp-AutogradGraph-node')]
    .map(e => e.getBoundingClientRect())
    .filter(r => r.right > c.left && r.bottom > c.top && r.left < c.right && r.top < c.bottom);
  const xs = [c.left + 2, c.right - w - 2], ys = [c.top + 2, c.bottom - h - 2];
  for (let x = c.left + 2; x < c.right - w; x += 24) xs.push(x);
  for (let y = c.top + 2; y < c.bottom - h; y += 24) ys.push(y);
  for (const x of xs) for (const y of ys) {
    if (x < c.left || y < c.top) continue;
    if (!nodes.some(r => x < r.right - 1 && r.left < x + w - 1 && y < r.bottom - 1 && r.top < y + h - 1))
      return [x, y, x + w, y + h];
  }
  return null;
}"""


def shot(target: Any, name: str) -> None:
    target.scroll_into_view_if_needed()
    target.screenshot(path=str(artifacts_dir() / f"why-{name}.png"))


def test_readability_defects_stay_fixed(page: Any, lab: LabServer) -> None:
    cells = [
        SETUP,
        TUTORIAL_INPUTS,
        TUTORIAL,
        WIDE,
        "v = torch.randn(3, requires_grad=True)\nx0 = torch.randn(3)",
        LOOP,
        TOGGLE,
    ]
    outs = run(page, lab, "why.ipynb", cells, 3)
    tut, wide, loop = outs.nth(0), outs.nth(1), outs.nth(2)

    # Gradient labels never cover node labels, at any step of the replay.
    for step, total in replay_steps(page, tut):
        labels = rects(tut, ".jp-AutogradGraph-edgeLabel")
        texts = rects(tut, f"{NODE} .jp-AutogradGraph-label")
        hit = [(a, b) for a in labels for b in texts if overlaps(a, b)]
        assert not hit, f"step {step}: {hit}"
        if step == total // 2:
            shot(tut, "replay-midway")

    # The tooltip of a selected node sits beside it, off the highlighted path.
    add = tut.locator(NODE, has_text="AddBackward0").first
    add.dispatch_event("click")
    add.dispatch_event("pointerover")
    tip = tut.locator(".jp-AutogradGraph-tooltip")
    tip.wait_for(state="visible")
    tip_rect = rects(tut, ".jp-AutogradGraph-tooltip")[0]
    path = rects(tut, PATH)
    assert len(path) >= 3
    assert not [r for r in path if overlaps(tip_rect, r)], (tip_rect, path)
    shot(tut, "tooltip-beside-path")
    add.dispatch_event("pointerout")
    # hovering any other node keeps it, the selection and the rest of the path visible
    nodes = tut.locator(NODE)
    selected = rects(tut, f"{NODE}.jp-mod-selected")[0]
    biggest = 0.0
    frees = 0
    for k in range(nodes.count()):
        node = nodes.nth(k)
        node.dispatch_event("pointerover")
        tip.wait_for(state="visible")
        tip_rect = rects(tut, ".jp-AutogradGraph-tooltip")[0]
        hovered = node.evaluate(
            "e => { const r = e.getBoundingClientRect(); "
            "return [r.left, r.top, r.right, r.bottom]; }"
        )
        label = node.get_attribute("aria-label")
        assert not overlaps(tip_rect, hovered), (label, tip_rect, hovered)
        if hovered != selected:
            assert not overlaps(tip_rect, selected), (label, tip_rect, selected)
        # nor any node of the highlighted path: a tooltip too big for every free place shrinks
        path = [r for r in rects(tut, PATH) if r != hovered]
        covered = [r for r in path if overlaps(tip_rect, r)]
        assert not covered, (label, tip_rect, covered)
        # nor any node's label at all (on the path or not: it hid the tutorial's `y`) while a
        # place covering no node fits it
        free = tut.page.evaluate(
            FREE_PLACE, [tut.element_handle(), tip_rect[2] - tip_rect[0], tip_rect[3] - tip_rect[1]]
        )
        if free is not None:
            names = rects(tut, f"{NODE} .jp-AutogradGraph-label")
            hidden = [r for r in names if overlaps(tip_rect, r)]
            assert not hidden, (label, tip_rect, hidden, "free:", free)
        frees += free is not None
        area = (tip_rect[2] - tip_rect[0]) * (tip_rect[3] - tip_rect[1])
        if area > biggest:
            biggest = area
            shot(tut, "tooltip-biggest-off-path")
        node.dispatch_event("pointerout")
    assert frees, "no hover had a free place: the label check above checked nothing"

    # "Collapsed N chains." does not outlive "Unfold all".
    status = tut.locator(".jp-AutogradGraph-status")
    tut.locator("button[data-action=collapse-chains]").click()
    page.wait_for_function("el => /chains/.test(el.textContent)", arg=status.element_handle())
    tut.locator("button[data-action=expand-all]").click()
    page.wait_for_function("el => !/chains/.test(el.textContent)", arg=status.element_handle())
    assert "expanded" in status.inner_text()

    # The details panel never wraps a number mid-digit: each preview line is one line on screen.
    wide.locator(NODE, has_text="big").first.dispatch_event("click")
    details = wide.locator(".jp-AutogradGraph-details")
    details.locator(".jp-AutogradGraph-value").first.wait_for()
    lines = page.evaluate(
        """el => [...el.querySelectorAll('.jp-AutogradGraph-value')].map(v => {
             const r = document.createRange(); r.selectNodeContents(v);
             const tops = new Set([...r.getClientRects()].map(x => Math.round(x.top)));
             return [v.textContent.split('\\n').length, tops.size, v.textContent.slice(0, 60)];
           })""",
        details.element_handle(),
    )
    assert any("e+0" in t and want > 3 for want, _, t in lines), lines
    for want, got, text in lines:
        assert got == want, (text, want, got)
    shot(wide, "details-digits")

    # The folded loop exports a PNG of a sane shape, not 16384 x 42.
    with page.expect_download() as dl:
        loop.locator("button[data-action=export-png]").click()
    png_path = artifacts_dir() / "why-loop-export.png"
    dl.value.save_as(png_path)
    png = png_path.read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", png[16:24])
    assert 100 <= min(width, height) and max(width, height) <= 16384, (width, height)
    assert max(width, height) / min(width, height) < 12, (width, height)

    # GradModeToggle: every mode's label whole and on one line.
    toggle = page.locator(".jp-AutogradWidget-GradModeToggle").first
    toggle.wait_for(timeout=60_000)
    buttons = toggle.locator(".jp-AutogradWidget-mode button")
    cut = buttons.evaluate_all(
        """els => els.map(b => {
             const r = document.createRange(); r.selectNodeContents(b);
             const tops = new Set([...r.getClientRects()].map(x => Math.round(x.top)));
             return [b.textContent.trim(), b.scrollWidth > b.clientWidth + 1, tops.size];
           })"""
    )
    assert any("inference_mode" in t for t, _, _ in cut), cut
    assert all(not c and n <= 1 for _, c, n in cut), cut
    # and its printed lines are never wrapped mid-word (half-width boxes did: "is_inf/erence")
    wrapped = toggle.locator(".jp-OutputArea-output pre").evaluate_all(
        """els => els.map(p => {
             const r = document.createRange(); r.selectNodeContents(p);
             const tops = new Set([...r.getClientRects()].map(x => Math.round(x.top)));
             return [p.textContent.replace(/\\n$/, '').split('\\n').length, tops.size];
           })"""
    )
    assert wrapped and all(want == got for want, got in wrapped), wrapped
    shot(toggle, "gradmode-labels")
    assert page.errors == []
