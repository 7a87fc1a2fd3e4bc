"""The graph as an anywidget in a real JupyterLab with our lab extension disabled (issue #17):
``graph(...).widget()`` is then the only way the interactive view can appear, which is the code
path VS Code and Colab take (they run ipywidgets, not lab extensions).
Screenshots land in test-artifacts/e2e/ (``anywidget-*.png``).
"""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

import pytest
from e2e_lab import artifacts_dir, lab_server, write_notebook
from test_graph_models import SETUP, TUTORIAL, TUTORIAL_INPUTS, drawn_texts, smallest_label_px

pytestmark = pytest.mark.e2e

NODE = "g.jp-AutogradGraph-node[data-key]"


def test_widget_is_interactive_with_the_lab_extension_disabled(browser: Any, tmp_path: Any) -> None:
    pytest.importorskip("anywidget")
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(tmp_path / "config"))
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "jupyter",
            "labextension",
            "disable",
            "--level=user",
            "jupyter-autograd",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    widget_cell = TUTORIAL.replace(
        "%%autograd --backward loss", "%%autograd --backward loss --widget"
    )
    api_cell = (
        "from jupyter_autograd.viz import graph\ngraph(loss, names={'loss': loss, 'w': w}).widget()"
    )
    with lab_server(tmp_path) as server:
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        try:
            write_notebook(
                server.root / "aw.ipynb", [SETUP, TUTORIAL_INPUTS, TUTORIAL, widget_cell, api_cell]
            )
            page.goto(server.url("lab/workspaces/aw/tree/aw.ipynb?reset"))
            page.get_by_text("Python 3 (ipykernel) | Idle").first.wait_for(timeout=90_000)
            page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
            page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()
            page.wait_for_function(
                "() => document.querySelectorAll('.jp-AutogradGraph-anywidget[data-painted]').length >= 2",
                timeout=120_000,
            )
            # the MIME renderer is gone: the plain %%autograd cell falls back to its SVG
            assert (
                page.locator(".jp-AutogradGraph-output:not(.jp-AutogradGraph-anywidget)").count()
                == 0
            )
            assert page.locator(".jp-RenderedSVG").count() >= 1
            out = page.locator(".jp-AutogradGraph-anywidget").first
            texts = drawn_texts(out)
            for name in ("w (5, 3)", "b (3,)", "loss ()"):
                assert name in texts, texts
            assert smallest_label_px(out) >= 11
            # after --backward the visit numbers show, as in the lab extension
            assert out.locator(".jp-AutogradGraph-badge").count() == 6
            # interactive: a click selects and fills the details panel
            add = out.locator(NODE, has_text="AddBackward0").first
            add.dispatch_event("click")
            assert out.locator(".jp-mod-selected").count() == 1
            assert "AddBackward0" in out.locator(".jp-AutogradGraph-details").inner_text()
            out.locator("button[data-action=step-first]").click()
            assert out.locator(".jp-AutogradGraph-stepLabel").inner_text().startswith("0/")
            # the mouse stays where the real click left it; scrolling the output under it put it
            # over AccumulateGrad, whose hover tooltip then showed in the screenshot
            page.mouse.move(1, 1)
            out.scroll_into_view_if_needed()
            out.locator(".jp-AutogradGraph-tooltip").wait_for(state="hidden")
            out.screenshot(path=str(artifacts_dir() / "anywidget-lab-extension-disabled.png"))
            api = page.locator(".jp-AutogradGraph-anywidget").nth(1)
            assert "loss ()" in drawn_texts(api)
            assert errors == []
        except Exception:
            page.screenshot(path=str(artifacts_dir() / "anywidget-FAILED.png"))
            raise
        finally:
            context.close()
