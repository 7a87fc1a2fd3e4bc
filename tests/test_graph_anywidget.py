"""The graph view as an anywidget (issue #17): ``graph(...).widget()`` and ``%%autograd --widget``
carry the same payload the MIME renderer draws, with the ES module built from the lab
extension's source (labextension/src/anywidget.ts)."""

from __future__ import annotations

import os

import pytest

pytest.importorskip("anywidget")

import jupyter_autograd as torch
from jupyter_autograd import viz
from jupyter_autograd.jupyter import anywidget_graph as AG

IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


@pytest.fixture(autouse=True)
def _bundle_built():
    if not AG.ESM.exists():
        if IN_CI:
            pytest.fail("the anywidget bundle was not built (cd labextension && jlpm build)")
        pytest.skip("the anywidget bundle is not built here (cd labextension && jlpm build)")


def test_widget_carries_the_payload_the_mime_renderer_draws():
    w = torch.ones(3, requires_grad=True)
    g = viz.graph((w * 2).sum(), names={"w": w})
    widget = g.widget()
    assert isinstance(widget, AG.GraphWidget)
    assert widget.payload == g.payload
    # the module is the view's bundle: an ES module exporting render, with the view's CSS
    esm = AG.ESM.read_text(encoding="utf-8")
    assert "export{" in esm.replace(" ", "") and "jp-AutogradGraph" in esm
    assert ".jp-AutogradGraph" in AG.CSS.read_text(encoding="utf-8")
    assert "payload" in widget.keys


def test_refused_graph_has_no_widget():
    g = viz.Graph(None, refused="too large")
    with pytest.raises(RuntimeError, match="too large"):
        g.widget()


def test_autograd_magic_widget_flag():
    from IPython.core.interactiveshell import InteractiveShell

    ip = InteractiveShell.instance()
    ip.run_line_magic("load_ext", "jupyter_autograd")
    shown = []
    from jupyter_autograd.jupyter import magics

    real = magics._display
    magics._display = shown.append
    try:
        ip.user_ns["torch"] = torch
        ip.run_cell_magic(
            "autograd", "--widget", "w = torch.ones(2, requires_grad=True)\nl = (w * 3).sum()"
        )
    finally:
        magics._display = real
        ip.run_line_magic("unload_ext", "jupyter_autograd")
    assert len(shown) == 1 and isinstance(shown[0], AG.GraphWidget)
    assert any(n.get("name") == "w" for n in shown[0].payload["nodes"])
