"""Hostile names through every text output (issue #19): one function neutralises them all."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

import jupyter_autograd as torch
from jupyter_autograd import graph as G
from jupyter_autograd import viz
from jupyter_autograd.graph import safe_text

# What a terminal or notebook would act on instead of showing.
UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ud800-\udfff]"
)
HOSTILE = {
    "ansi": ("red\x1b[31mRED\x1b[0m", "\\u001b[31m"),
    "csi": ("c1\x9b2J", "\\u009b2J"),
    "bidi": ("abc\u202edcba", "\\u202e"),
    "isolate": ("x\u2066y\u2069", "\\u2066"),
    "nul": ("nu\x00l", "\\u0000"),
    "newline": ("two\nlines", "\\u000a"),
    "cr": ("back\rspace", "\\u000d"),
    "linesep": ("l\u2028s", "\\u2028"),
    "zwsp": ("zero\u200bwidth", "\\u200b"),
    "bel": ("ding\x07", "\\u0007"),
}


def clean(text: str, multiline: bool = True) -> None:
    """No unsafe character left (newlines allowed where the output has several lines)."""
    bad = UNSAFE.findall(text.replace("\n", "") if multiline else text)
    assert not bad, [hex(ord(c)) for c in bad]


def hostile_function(name: str):
    body = {
        "forward": staticmethod(lambda ctx, x: x * 2),
        "backward": staticmethod(lambda ctx, g: g * 2),
    }
    # Python refuses NUL in a class name; the NUL case reaches the outputs as a variable name
    return type(name.replace("\x00", ""), (torch.autograd.Function,), body)


def graph_of(name: str):
    w = torch.ones(2, requires_grad=True)
    out = hostile_function(name).apply(w).sum()
    return w, out


def test_safe_text_escapes_every_unsafe_character():
    for text, escaped in HOSTILE.values():
        out = safe_text(text)
        clean(out, multiline=False)
        assert escaped in out
    assert safe_text("a\tb\nc", multiline=True) == "a\tb\nc"
    assert safe_text("中文 é √ ×3") == "中文 é √ ×3"


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_hostile_names_in_every_text_output(kind):
    text, escaped = HOSTILE[kind]
    w, out = graph_of(text)
    names = {text: w, "out": out}
    payload = G.build_graph([out], names=names)
    outputs = {
        "grad_fn_tree": G.grad_fn_tree(out.grad_fn, names),
        "to_text": G.to_text(payload),
        "to_dot": G.to_dot(payload),
        "repr+text": viz.graph(out, names=names, format="text")._repr_mimebundle_()["text/plain"],
        "summary": repr(viz.graph(out, names=names)),
    }
    for where, s in outputs.items():
        clean(s)
        if where != "summary":
            assert escaped in s, where
    # a name never breaks the tree's structure: one line per node
    assert len(outputs["grad_fn_tree"].splitlines()) == 3
    svg = G.to_svg(payload, show_values=True, show_saved=True)
    root = ET.fromstring(svg)
    drawn = "\n".join("".join(el.itertext()) for el in root.iter() if el.tag.endswith("text"))
    clean(drawn)
    assert escaped in drawn
    titles = "\n".join("".join(el.itertext()) for el in root.iter() if el.tag.endswith("title"))
    clean(titles)


def test_grad_fn_magic_and_bare_grad_fn_display_neutralise_names(capsys):
    pytest.importorskip("IPython")
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "jupyter_autograd")
    try:
        for text, escaped in HOSTILE.values():
            w, out = graph_of(text)
            shell.user_ns["hout"] = out
            shell.user_ns[text] = w  # a hostile name in the namespace too
            assert shell.run_cell("%grad_fn hout").success
            printed = capsys.readouterr().out
            clean(printed)
            assert escaped in printed
            assert len(printed.splitlines()) == 3  # Sum, the custom node, AccumulateGrad
            custom = out.grad_fn.next_functions[0][0]
            data, _ = shell.display_formatter.format(custom)
            clean(data["text/plain"])
            if "\x00" not in text:  # the class name carries it
                assert escaped in data["text/plain"]
            del shell.user_ns[text]
    finally:
        shell.run_line_magic("unload_ext", "jupyter_autograd")


def test_widget_labels_neutralise_names():
    pytest.importorskip("ipywidgets")
    from jupyter_autograd.jupyter import widget_core as core
    from jupyter_autograd.widgets import BackwardStepper, GraphExplorer

    for text, escaped in HOSTILE.values():
        w, out = graph_of(text)
        ex = GraphExplorer(out, names={text: w, "out": out})
        labels = [label for label, _ in ex.node_select.options]
        for label in labels:
            clean(label, multiline=False)
        assert any(escaped in label for label in labels)
        for _, nid in ex.node_select.options:
            clean(ex.state.details(nid))
        clean(core.graph_text(ex.payload))
        assert escaped in core.graph_text(ex.payload)
        w2, out2 = graph_of(text)
        st = BackwardStepper(out2, names={text: w2})
        for k in range(len(st.state.steps) + 1):
            st.state.goto(k)
            clean(st.state.text())
        if "\x00" not in text:
            assert any(escaped in s.describe() for s in st.state.steps)
        clean(st._fallback_text())
