"""Notebooks run by a real kernel (test plan E1 under nbclient, F5 through nbconvert HTML).

Each notebook is built with nbformat at test time and run by ``nbclient`` in one ``python3``
kernel whose ``PYTHONPATH`` starts with this working tree, so the kernel imports the code
under test even where the package is not installed (CI installs it editable as well).
"""

from __future__ import annotations

import base64
import json
import os
import pathlib
import re
import sys
from html.parser import HTMLParser

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")
from nbclient.exceptions import CellExecutionError

from jupyter_autograd import graph as G
from tests.fixtures.generate_graph_fixtures import XSS

ROOT = pathlib.Path(__file__).resolve().parents[1]
MIME = G.MIME_TYPE
SUMMARY = re.compile(r"AutogradGraph\(nodes=\d+, edges=\d+, truncated=(True|False)\)")


def _kernel_env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    # the kernel must run this interpreter's packages, not whatever `python` is on PATH
    env["PATH"] = os.pathsep.join((os.path.dirname(sys.executable), env.get("PATH", "")))
    return env


def _run(cells: list, tmp_path) -> tuple:
    """Execute ``cells`` (sources) in a fresh kernel; returns (notebook, error or None)."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(src) for src in cells]
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    client = nbclient.NotebookClient(
        nb,
        kernel_name="python3",
        timeout=60,
        resources={"metadata": {"path": str(tmp_path)}},
    )
    err = None
    try:
        client.execute(env=_kernel_env())
    except CellExecutionError as e:
        err = e
    return nb, err


# ------------------------------------------------------------------ E1
E1_BODY = 'x = 1\nraise ZeroDivisionError("boom")'


def test_e1_autograd_cell_error_stops_nbclient(tmp_path):
    nb, err = _run(
        [
            "%load_ext jupyter_autograd\nimport jupyter_autograd, os\n"
            "assert os.path.dirname(jupyter_autograd.__file__).startswith(" + repr(str(ROOT)) + ")",
            "%%autograd\n" + E1_BODY,
            "never_ran = True",
        ],
        tmp_path,
    )
    assert isinstance(err, CellExecutionError), "the failing %%autograd cell must stop the run"
    text = str(err)
    assert "ZeroDivisionError" in text and "boom" in text
    assert 'raise ZeroDivisionError("boom")' in text  # the user's line is in the traceback
    first, failing, third = nb.cells
    assert first.execution_count is not None and not any(
        o.output_type == "error" for o in first.outputs
    )
    errors = [o for o in failing.outputs if o.output_type == "error"]
    assert [(o.ename, o.evalue) for o in errors] == [("ZeroDivisionError", "boom")]
    assert not any(MIME in o.get("data", {}) for o in failing.outputs), "no graph for a failed cell"
    assert not any(o.output_type in ("display_data", "execute_result") for o in failing.outputs)
    # magic frames are hidden: the traceback starts at the user's cell
    tb = "\n".join(errors[0].traceback)
    assert "run_traced" not in tb and "magics.py" not in tb
    assert third.outputs == [] and third.execution_count is None


# ------------------------------------------------------------------ F5
NB_F5 = [
    "%load_ext jupyter_autograd",
    # build a chain whose tensor names (names=) and op names (Function subclasses) are the labels
    """\
import types
import jupyter_autograd as torch
from jupyter_autograd import viz
from jupyter_autograd.autograd import Function
from tests.fixtures.generate_graph_fixtures import XSS
LABELS = {labels}

def hostile(label):
    def body(ns):
        ns["forward"] = staticmethod(lambda ctx, t: t * 2)
        ns["backward"] = staticmethod(lambda ctx, g: g * 2)
    # Python refuses NUL and lone surrogates in a class name; the rest stays in the op name
    name = "".join(c for c in label if c != "\\x00" and not "\\ud800" <= c <= "\\udfff")
    return types.new_class(name, (Function,), exec_body=body)

x = torch.ones(2, requires_grad=True)
names = {LABELS[0] + "leaf": x}
y = x
for label in LABELS:
    y = hostile(label).apply(y * 1.5)
    names[label] = y
loss = y.sum()
loss.backward(retain_graph=True)""",
    "viz.graph(loss, names=names, values=True, saved=True, title=LABELS[0])",
    "viz.graph(loss, names=names, format='text')",
    # a bare grad_fn as the last line goes through the extension's display formatter
    "y.grad_fn",
    # %%autograd labels nodes with the user's source line: the comment carries a label
    "%%autograd --values --saved --backward z\nz = (y * 3).sum()  # {comment}",
]
HOSTILE_COMMENT = XSS[0] + XSS[1] + XSS[3]
# markup the corpus would inject if some output were not escaped
INJECTED = [
    "<script>alert",
    "<img src=x onerror",
    "<svg onload",
    "<iframe",
    "<foreignobject",
    "<button data-commandlinker",
    '<a id="x"',
]


def _f5_cells(hostile: bool) -> list:
    labels = "XSS" if hostile else "[f'label{k}' for k in range(len(XSS))]"
    comment = HOSTILE_COMMENT if hostile else "plain comment"
    return [c.replace("{labels}", labels).replace("{comment}", comment) for c in NB_F5]


class _Scan(HTMLParser):
    """Collects what could execute: tags, event-handler attributes, javascript: URLs."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list = []
        self.scripts: list = []
        self.handlers: list = []
        self.js_urls: list = []
        self.data_svgs: list = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        a = dict(attrs)
        if tag == "script":
            self.scripts.append((a.get("src"), a.get("type")))
        for k, v in attrs:
            if k.startswith("on"):
                self.handlers.append((tag, k, v))
            if v and re.sub(r"\s", "", v).lower().startswith("javascript:"):
                self.js_urls.append((tag, k, v))
        src = a.get("src") or ""
        if tag == "img" and src.startswith("data:image/svg+xml;base64,"):
            self.data_svgs.append(base64.b64decode(src.split(",", 1)[1]).decode("utf-8"))

    handle_startendtag = handle_starttag


def _scan(text: str) -> _Scan:
    p = _Scan()
    p.feed(text)
    p.close()
    return p


@pytest.fixture(scope="module")
def f5(tmp_path_factory):
    nbconvert = pytest.importorskip("nbconvert")
    out = {}
    for kind, hostile in (("hostile", True), ("control", False)):
        nb, err = _run(_f5_cells(hostile), tmp_path_factory.mktemp(kind))
        assert err is None, str(err)
        html, _ = nbconvert.HTMLExporter().from_notebook_node(nb)
        out[kind] = (nb, html)
    return out


def _outputs(nb) -> list:
    return [o for c in nb.cells for o in c.outputs]


def test_f5_text_plain_summary_in_every_graph_output(f5):
    nb, _ = f5["hostile"]
    graphs = [
        o
        for o in _outputs(nb)
        if o.output_type in ("display_data", "execute_result")
        and (
            MIME in o.data
            or "image/svg+xml" in o.data
            or "AutogradGraph(" in o.data.get("text/plain", "")
        )
    ]
    # auto graph, text graph, grad_fn formatter, %%autograd
    assert len(graphs) == 4, [sorted(o.data) for o in _outputs(nb)]
    for o in graphs:
        assert SUMMARY.search(o.data["text/plain"]), o.data["text/plain"][:200]
    assert not any(
        o.output_type in ("error", "stream") and o.get("name") != "stdout" for o in _outputs(nb)
    ), [o for o in _outputs(nb) if o.output_type != "display_data"]
    # the labels reached the payload (else the test would prove nothing)
    auto = graphs[0].data
    labels = {n["label"].split("\n")[0] for n in auto[MIME]["nodes"]}
    assert (
        XSS[0] in labels
        and XSS[1] in labels
        and XSS[0] + "Backward" in {n.get("op") for n in auto[MIME]["nodes"]}
    )
    # the text tree carries the labels, with bidi overrides and NUL neutralised
    tree = graphs[1].data["text/plain"]
    assert XSS[0] in tree and "\\u202e" in tree and "\u202e" not in tree and "\x00" not in tree
    for o in graphs:
        assert "text/html" not in o.data  # no HTML fallback to escape; SVG/text only


_DATA_SVG = re.compile(r'<img\b[^>]*?\bsrc="data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)"[^>]*>')


def _inline_svgs(html: str) -> str:
    """The page as nbconvert < 7 (and Classic Notebook, VS Code) showed it: SVG inlined."""
    return _DATA_SVG.sub(lambda m: base64.b64decode(m.group(1)).decode("utf-8"), html)


@pytest.mark.parametrize("svg", ["base64", "inline"])
def test_f5_nbconvert_html_has_no_injected_markup(f5, svg):
    _, html = f5["hostile"]
    _, control_html = f5["control"]
    if svg == "inline":
        html, control_html = _inline_svgs(html), _inline_svgs(control_html)
        assert html.count("jp-AutogradGraph-svg") == 3 and not _DATA_SVG.search(html)
    hostile, control = _scan(html), _scan(control_html)
    # nbconvert's own <script> tags (MathJax, require.js, ...) are the same in both
    assert sorted(map(str, hostile.scripts)) == sorted(map(str, control.scripts))
    assert hostile.handlers == [] and hostile.js_urls == []
    # the same elements as the control notebook: no label became markup
    assert sorted(set(hostile.tags)) == sorted(set(control.tags))
    for tag in (
        "iframe",
        "foreignobject",
        "object",
        "embed",
        "button",
        "svg",
        "a",
        "img",
        "script",
    ):
        assert hostile.tags.count(tag) == control.tags.count(tag), tag
    lowered = html.lower()
    for raw in INJECTED:
        assert raw.lower() not in lowered, raw
    # the labels are there, as text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html


def test_f5_svg_outputs_escape_labels(f5):
    nb, html = f5["hostile"]
    svgs = [o.data["image/svg+xml"] for o in _outputs(nb) if "image/svg+xml" in o.data]
    assert len(svgs) == 3
    embedded = _scan(html).data_svgs  # nbconvert's default: SVG as a base64 <img>
    assert sorted(embedded) == sorted(svgs)
    for svg in svgs:
        s = _scan(svg)
        assert set(s.tags) <= {
            "svg",
            "defs",
            "marker",
            "path",
            "rect",
            "g",
            "title",
            "text",
            "circle",
        }, set(s.tags)
        assert s.handlers == [] and s.js_urls == [] and s.scripts == []
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in svg
    # the op-name and the source-line labels were drawn too
    assert any("&lt;svg onload=alert(1)&gt;Backward" in s for s in svgs)
    assert any("&lt;img src=x onerror=alert(1)&gt;" in s and "L1:" in s for s in svgs)


def test_f5_json_payload_safe_inside_html_script(f5):
    nb, _ = f5["hostile"]
    payload = next(o.data[MIME] for o in _outputs(nb) if MIME in o.data)
    text = G.to_json(payload)
    assert "</" not in text and json.loads(text) == payload
    page = f'<script type="{MIME}">{text}</script><p>after</p>'
    s = _scan(page)
    assert s.tags == ["script", "p"] and s.handlers == []
