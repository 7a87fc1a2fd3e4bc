"""The graph view for real models in real JupyterLab and headless Chromium (issue #15).

Names from earlier cells and module paths, module boxes that collapse, a 100-step loop folded on
first paint, backward opening on its result, the BackwardStepper in step with its view.
Screenshots land in test-artifacts/e2e/ (``models-*.png``).
"""

from __future__ import annotations

from typing import Any

import pytest
from e2e_lab import LabServer, artifacts_dir, open_notebook, run_all_cells, write_notebook

pytestmark = pytest.mark.e2e

OUTPUT = ".jp-AutogradGraph-output"
NODE = "g.jp-AutogradGraph-node[data-key]"
SETUP = (
    "%load_ext jupyter_autograd\nimport jupyter_autograd as torch\nimport jupyter_autograd.nn as nn"
)
TUTORIAL_INPUTS = (
    "x = torch.ones(5)  # input tensor\ny = torch.zeros(3)  # expected output\n"
    "w = torch.randn(5, 3, requires_grad=True)\nb = torch.randn(3, requires_grad=True)"
)
TUTORIAL = (
    "%%autograd --backward loss\nz = torch.matmul(x, w)+b\n"
    "loss = torch.nn.functional.binary_cross_entropy_with_logits(z, y)"
)
MLP = (
    "class MLP(nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.fc1 = nn.Linear(784, 256)\n"
    "        self.act = nn.ReLU()\n"
    "        self.fc2 = nn.Linear(256, 10)\n"
    "    def forward(self, x):\n"
    "        return self.fc2(self.act(self.fc1(x)))\n"
    "model = MLP()\nxb = torch.randn(8, 784)"
)
LOOP = (
    "%%autograd --backward loss\nh = x0\nfor _ in range(100):\n"
    "    h = torch.tanh(h * v)\nloss = h.sum()"
)


def shot(target: Any, name: str) -> None:
    target.scroll_into_view_if_needed()
    target.screenshot(path=str(artifacts_dir() / f"models-{name}.png"))


def run(page: Any, lab: LabServer, name: str, cells: list[str], outputs: int) -> Any:
    write_notebook(lab.root / name, cells)
    open_notebook(page, lab, name)
    run_all_cells(page)
    page.wait_for_function(
        "n => document.querySelectorAll('.jp-AutogradGraph-output[data-painted]').length >= n",
        arg=outputs,
        timeout=120_000,
    )
    return page.locator(OUTPUT)


def drawn_texts(out: Any) -> list[str]:
    return out.locator(f"{NODE} .jp-AutogradGraph-label").evaluate_all(
        "els => els.map(e => [...e.querySelectorAll('tspan')].map(t => t.textContent).join(' '))"
    )


def smallest_label_px(out: Any) -> float:
    """The smallest label font size on screen: CSS size times the zoom."""
    return out.evaluate(
        """el => {
          const vp = el.querySelector('.jp-AutogradGraph-viewport');
          const k = parseFloat(/scale\\(([\\d.]+)\\)/.exec(vp.getAttribute('transform'))[1]);
          const sizes = [...el.querySelectorAll('.jp-AutogradGraph-label')]
            .map(t => parseFloat(getComputedStyle(t).fontSize) * k);
          return Math.min(...sizes);
        }"""
    )


def test_names_modules_loops_and_backward(page: Any, lab: LabServer) -> None:
    cells = [
        SETUP,
        TUTORIAL_INPUTS,
        TUTORIAL,
        MLP,
        "%%autograd --backward loss\nloss = model(xb).sum()",
        "v = torch.randn(3, requires_grad=True)\nx0 = torch.randn(3)",
        LOOP,
    ]
    outs = run(page, lab, "models.ipynb", cells, 3)
    tut, mlp, loop = outs.nth(0), outs.nth(1), outs.nth(2)

    # The tutorial: w, b, x, y from the earlier cell by name, text at least 11 px.
    texts = drawn_texts(tut)
    for name in ("w (5, 3)", "b (3,)", "y (3,)", "z (3,)", "loss ()"):
        assert name in texts, texts
    assert smallest_label_px(tut) >= 11
    # after --backward every node backward ran shows its visit number, no stepping needed
    badges = tut.locator(".jp-AutogradGraph-badge").evaluate_all(
        "els => els.filter(e => getComputedStyle(e).display !== 'none').map(e => e.textContent)"
    )
    assert sorted(int(b) for b in badges) == list(range(1, 7))
    assert tut.locator(".jp-AutogradGraph-edgeLabel", has_text="(5, 3)").count() >= 1
    shot(tut, "tutorial")

    # The MLP: parameters by path, modules as boxes that collapse and expand.
    texts = drawn_texts(mlp)
    for name in ("model.fc1.weight (256, 784)", "model.fc2.bias (10,)", "xb (8, 784)"):
        assert name in texts, texts
    titles = mlp.locator(".jp-AutogradGraph-moduleTitle").evaluate_all(
        "els => els.map(e => e.textContent)"
    )
    assert any("Linear fc1 (784 → 256)" in t for t in titles), titles
    assert any("MLP model" in t for t in titles), titles
    assert smallest_label_px(mlp) >= 11
    shot(mlp, "mlp-modules")
    before = mlp.locator(NODE).count()
    title = mlp.locator(".jp-AutogradGraph-module", has_text="Linear fc1").locator(
        ".jp-AutogradGraph-moduleTitle"
    )
    assert title.is_visible()
    title.dispatch_event("click")
    collapsed = mlp.locator("g.jp-AutogradGraph-collapsed[data-key]", has_text="Linear fc1")
    collapsed.wait_for()
    assert mlp.locator(NODE).count() == before - 5  # 6 nodes of fc1 became one
    shot(mlp, "mlp-fc1-collapsed")
    collapsed.dblclick()
    page.wait_for_function(
        "([el, n]) => el.querySelectorAll('g.jp-AutogradGraph-node[data-key]').length === n",
        arg=[mlp.element_handle(), before],
    )

    # The 100-step loop: one folded ×100 block on first paint, the shared weight's edge bundled.
    block = loop.locator("g.jp-AutogradGraph-collapsed[data-key]")
    assert block.count() == 1
    assert "×100 repeated" in " ".join(drawn_texts(loop))
    assert loop.locator(".jp-AutogradGraph-countLabel", has_text="×100").count() == 1
    assert loop.locator(NODE).count() <= 10
    assert smallest_label_px(loop) >= 11
    shot(loop, "loop-folded")
    block.dblclick()
    page.wait_for_function(
        "el => el.querySelectorAll('g.jp-AutogradGraph-node[data-key]').length > 150",
        arg=loop.element_handle(),
    )
    shot(loop, "loop-opened")
    assert page.errors == []


def test_one_row_toolbar_at_1000px(browser: Any, lab: LabServer) -> None:
    context = browser.new_context(viewport={"width": 1000, "height": 900})
    page = context.new_page()
    try:
        outs = run(page, lab, "toolbar.ipynb", [SETUP, TUTORIAL_INPUTS, TUTORIAL], 1)
        bar = outs.first.locator(".jp-AutogradGraph-toolbar")
        tops = bar.locator("button, select").evaluate_all(
            "els => els.map(e => Math.round(e.getBoundingClientRect().top))"
        )
        assert max(tops) - min(tops) <= 2, tops
        shot(outs.first, "toolbar-1000px")
    finally:
        context.close()


def test_stepper_and_its_view_agree_at_every_step(page: Any, lab: LabServer) -> None:
    cells = [
        SETUP + "\nfrom jupyter_autograd.widgets import BackwardStepper",
        (
            "w = torch.ones(3, requires_grad=True)\nb = torch.ones(3, requires_grad=True)\n"
            "loss = ((w * 2) + b).sum()\nst = BackwardStepper(loss)\nst"
        ),
    ]
    write_notebook(lab.root / "stepper.ipynb", cells)
    open_notebook(page, lab, "stepper.ipynb")
    run_all_cells(page)
    box = page.locator(".jp-AutogradWidget-BackwardStepper").first
    box.wait_for(timeout=60_000)
    view_label = box.locator(".jp-AutogradGraph-stepLabel")
    view_label.wait_for(timeout=60_000)
    text = box.locator(".jp-AutogradWidget-step_out")
    total = int(view_label.inner_text().split("/")[1])
    assert view_label.inner_text() == f"0/{total}"
    assert box.locator(".jp-AutogradGraph-stepper button").count() == 0  # one stepper: the widget's
    for k in range(1, total + 1):
        box.locator(".jp-AutogradWidget-next_button").click()
        page.wait_for_function(
            "([el, k, n]) => el.querySelector('.jp-AutogradGraph-stepLabel')?.textContent === `${k}/${n}`",
            arg=[box.element_handle(), k, total],
            timeout=30_000,
        )
        assert text.inner_text().startswith(f"{k}/{total}  step {k}:")
        visible = box.locator(".jp-AutogradGraph-badge").evaluate_all(
            "els => els.filter(e => getComputedStyle(e).display !== 'none').length"
        )
        assert visible == k
        if k in (1, total):
            shot(box, f"stepper-{k}")
    assert page.errors == []


def test_saved_tensors_drawn_with_saved_flag(page: Any, lab: LabServer) -> None:
    """``%%autograd --saved`` draws each saved tensor as a small node on a dotted edge to its
    function (torchviz's ``show_saved``); without the flag nothing of it is drawn."""
    saved = TUTORIAL.replace("--backward loss", "--backward loss --saved")
    outs = run(page, lab, "saved.ipynb", [SETUP, TUTORIAL_INPUTS, TUTORIAL, saved], 2)
    plain, with_saved = outs.nth(0), outs.nth(1)
    assert plain.locator(f"{NODE}.jp-AutogradGraph-saved").count() == 0
    nodes = with_saved.locator(f"{NODE}.jp-AutogradGraph-saved")
    labels = sorted(nodes.evaluate_all("els => els.map(e => e.getAttribute('aria-label'))"))
    # mm saved x (as a (1, 5) view) for w's gradient (not w: x needs none, as torch); the loss
    # saved z and y
    assert labels == ["self (1, 5)", "self = z (3,)", "target = y (3,)"], labels
    dotted = with_saved.locator("path.jp-AutogradGraph-edge.jp-mod-saved")
    assert dotted.count() == 3
    assert dotted.first.evaluate("e => getComputedStyle(e).strokeDasharray") not in ("", "none")
    assert smallest_label_px(with_saved) >= 11
    # the legend names the new styles
    legend = with_saved.locator(".jp-AutogradGraph-legend").inner_text()
    assert "saved for backward" in legend and "saved by the function" in legend
    shot(with_saved, "saved-tensors")
    assert page.errors == []


def test_chinese_ui(browser: Any, tmp_path: Any) -> None:
    """A JupyterLab set to zh_CN (the language pack installed) shows the graph's toolbar, legend
    and details panel in Chinese, from the catalogue jupyter_autograd ships."""
    import json

    from e2e_lab import lab_server

    settings = (
        tmp_path
        / "config/lab/user-settings/@jupyterlab/translation-extension/plugin.jupyterlab-settings"
    )
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps({"locale": "zh_CN"}), encoding="utf-8")
    with lab_server(tmp_path) as server:
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        page = context.new_page()
        try:
            write_notebook(server.root / "zh.ipynb", [SETUP, TUTORIAL_INPUTS, TUTORIAL])
            page.goto(server.url("lab/workspaces/zh/tree/zh.ipynb?reset"))
            page.get_by_text("Python 3 (ipykernel) | 空闲").first.wait_for(timeout=90_000)
            page.locator(".lm-MenuBar-itemLabel", has_text="运行").first.click()
            page.locator(".lm-Menu-itemLabel", has_text="运行所有单元格").first.click()
            out = page.locator(f"{OUTPUT}[data-painted]").first
            out.wait_for(timeout=120_000)
            legend = out.locator(".jp-AutogradGraph-legend").inner_text()
            assert "张量" in legend and "tensor" not in legend, legend
            fit = out.locator(".jp-AutogradGraph-toolbar button[data-action=fit]")
            assert fit.inner_text() == "适配"
            titles = out.locator(".jp-AutogradGraph-toolbar button").evaluate_all(
                "els => els.map(e => e.title)"
            )
            assert all(any("\u4e00" <= ch <= "\u9fff" for ch in t) for t in titles), titles
            assert "点击节点查看详情" in out.inner_text()
            # node labels are payload text and stay as Python wrote them
            assert "w (5, 3)" in drawn_texts(out)
            shot(out, "zh-CN")
        finally:
            context.close()
