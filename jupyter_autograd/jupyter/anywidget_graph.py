"""The interactive graph as an anywidget (issue #17): the lab extension's view, bundled as an ES
module (``jupyter_autograd/static/graph-widget.js``, built from ``labextension/src/anywidget.ts``),
for every frontend that runs ipywidgets: VS Code, Colab, Notebook 7, JupyterLab without the
extension. Imported only when a widget is made, so ``%load_ext`` stays light.
"""

from __future__ import annotations

import pathlib

import anywidget
import traitlets

STATIC = pathlib.Path(__file__).resolve().parent.parent / "static"
ESM = STATIC / "graph-widget.js"
CSS = STATIC / "graph-widget.css"


def _bundle(path: pathlib.Path) -> pathlib.Path:
    if not path.exists():
        raise FileNotFoundError(
            f"{path} is missing: this checkout has not built the graph widget "
            "(cd labextension && jlpm build:anywidget); installed wheels ship it"
        )
    return path


class GraphWidget(anywidget.AnyWidget):
    """The interactive autograd graph of a payload (``graph(...).widget()``)."""

    _esm = _bundle(ESM)
    _css = _bundle(CSS)
    payload = traitlets.Dict().tag(sync=True)
