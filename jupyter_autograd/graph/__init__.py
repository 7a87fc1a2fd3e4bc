"""The computation graph as data, and its exports.

``build_graph`` walks ``grad_fn`` nodes from root tensors (or nodes) without recursion and
returns a dict that validates against ``schema/graph-v2.schema.json`` (the contract with the
JupyterLab renderer). Exports: ``to_json``, ``to_svg`` (our own near-linear layered layout, no
Graphviz program), ``to_dot`` (Graphviz source) and ``to_text`` (a plain-text tree); all of them
fold big repeated runs (loop bodies, identical siblings) into ``×k`` blocks, so every output of
a graph up to 100 000 nodes stays under 1 MB. Every string in the graph is untrusted text:
``safe_text`` neutralises it for plain text, the SVG also escapes it.

Modules: ``walk`` (grad_fn -> raw graph), ``names`` (variables, parameter and buffer paths),
``fold`` (repeated structure), ``payload`` and ``serialize`` (the JSON), ``view`` (what the
static exports draw), ``layout``, ``svg``, ``dot``, ``text``; ``trace`` records source lines
for the labels while a ``viz.trace()`` is active.

This package imports only the standard library, NumPy and the core; no Jupyter imports.
"""

from __future__ import annotations

from .common import MIME_TYPE, SCHEMA_VERSION
from .dot import to_dot
from .names import Names
from .payload import MAX_NODES, BackwardRecord, GraphTooLarge, build_graph, to_json
from .svg import to_svg
from .text import grad_fn_tree, label_line, safe_text, summary, to_text

__all__ = [
    "MAX_NODES",
    "MIME_TYPE",
    "SCHEMA_VERSION",
    "BackwardRecord",
    "GraphTooLarge",
    "Names",
    "build_graph",
    "grad_fn_tree",
    "label_line",
    "safe_text",
    "summary",
    "to_dot",
    "to_json",
    "to_svg",
    "to_text",
]
