"""The graph view in Notebook 7 (``jupyter notebook``, issue #17): the prebuilt MIME renderer and
the widgets work there as in JupyterLab. Screenshots land in test-artifacts/e2e/ (``nb7-*.png``).
"""

from __future__ import annotations

from typing import Any

import pytest
from e2e_lab import artifacts_dir, lab_server, write_notebook
from test_graph_models import SETUP, TUTORIAL, TUTORIAL_INPUTS, drawn_texts, smallest_label_px

pytestmark = pytest.mark.e2e

NODE = "g.jp-AutogradGraph-node[data-key]"


def test_tutorial_graph_and_widget_in_notebook7(browser: Any, tmp_path: Any) -> None:
    pytest.importorskip("notebook")
    widget = "from jupyter_autograd.widgets import GradModeToggle\nGradModeToggle()"
    with lab_server(tmp_path, app="notebook") as server:
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(f"{e} {getattr(e, 'stack', '')}"[:600]))
        try:
            write_notebook(server.root / "nb7.ipynb", [SETUP, TUTORIAL_INPUTS, TUTORIAL, widget])
            page.goto(server.url("notebooks/nb7.ipynb"))
            page.locator(".jp-Notebook").first.wait_for(timeout=90_000)
            page.wait_for_function(
                "() => document.querySelector('.jp-Notebook-ExecutionIndicator')?.dataset.status === 'idle'"
                " || /Idle/.test(document.body.innerText)",
                timeout=90_000,
            )
            page.wait_for_timeout(1500)  # the kernel connection settles after the first idle
            page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
            page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()
            out = page.locator(".jp-AutogradGraph-output[data-painted]").first
            out.wait_for(timeout=120_000)
            texts = drawn_texts(out)
            for name in ("w (5, 3)", "b (3,)", "loss ()"):
                assert name in texts, texts
            assert smallest_label_px(out) >= 11
            assert out.locator(".jp-AutogradGraph-badge").count() == 6
            out.locator(NODE, has_text="AddBackward0").first.dispatch_event("click")
            assert out.locator(".jp-mod-selected").count() == 1
            assert "AddBackward0" in out.locator(".jp-AutogradGraph-details").inner_text()
            out.scroll_into_view_if_needed()
            out.screenshot(path=str(artifacts_dir() / "nb7-tutorial-graph.png"))
            # the widgets render and answer clicks
            toggle = page.locator(".jp-AutogradWidget-GradModeToggle").first
            toggle.wait_for(timeout=60_000)
            toggle.locator(".jp-AutogradWidget-mode button", has_text="torch.no_grad()").click()
            page.wait_for_function(
                "el => el.textContent.includes('with torch.no_grad():')",
                arg=toggle.element_handle(),
                timeout=30_000,
            )
            toggle.screenshot(path=str(artifacts_dir() / "nb7-gradmode.png"))
            # Notebook 7.6 itself throws once while loading a plugin's settings ("reading
            # 'schema'", every frame in its notebook_core bundle); only our errors count
            ours = [e for e in errors if "notebook_core" not in e or "autograd" in e.lower()]
            assert ours == [], ours
        except Exception:
            page.screenshot(path=str(artifacts_dir() / "nb7-FAILED.png"))
            raise
        finally:
            context.close()
