"""IPython extension (test plan E1-E7) with an in-process InteractiveShell."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("IPython")
from IPython.core.interactiveshell import InteractiveShell

import jupyter_autograd as torch
from jupyter_autograd import graph as G
from jupyter_autograd import viz
from jupyter_autograd.jupyter import magics as M


@pytest.fixture()
def ip():
    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "jupyter_autograd")
    shell.run_cell("import jupyter_autograd as torch")
    yield shell
    shell.run_line_magic("unload_ext", "jupyter_autograd")
    torch.set_grad_enabled(True)


@pytest.fixture()
def displayed(monkeypatch):
    shown = []
    monkeypatch.setattr(M, "_display", shown.append)
    return shown


def ours(shell, event):
    return [
        cb for cb in shell.events.callbacks[event] if getattr(cb, "__module__", "") == M.__name__
    ]


CELL = """%%autograd {opts}
w = torch.ones(3, requires_grad=True)
y = torch.zeros(3)
z = (w * 2 - y).sum()
"""


def test_autograd_cell_graph_with_names_and_lines(ip, displayed):
    r = ip.run_cell(CELL.format(opts="--backward z"))
    assert r.success, r.error_in_exec
    (g,) = displayed
    p = g.payload
    names = {n.get("name") for n in p["nodes"]}
    assert {"w", "y", "z"} <= names
    assert p["backward_order"] and ip.user_ns["w"].grad is not None
    mul = next(n for n in p["nodes"] if n.get("op") == "MulBackward0")
    assert mul["source"] == {"line": 3, "code": "z = (w * 2 - y).sum()"}


def test_options_show_format_direction(ip, displayed):
    r = ip.run_cell(
        CELL.format(
            opts="--show w --format text --direction backward --max-nodes 50 --saved --values"
        )
    )
    assert r.success, r.error_in_exec
    g = displayed[-1]
    assert (
        g.payload["roots"] == [g.payload["nodes"][0]["id"]] and g.payload["nodes"][0]["name"] == "w"
    )
    assert list(g._repr_mimebundle_()) == ["text/plain"]
    assert g.payload["direction"] == "backward"


def test_gradient_and_retain_graph(ip, displayed):
    r = ip.run_cell(
        "%%autograd --backward v --gradient torch.ones(2) --retain-graph\n"
        "a = torch.ones(2, requires_grad=True)\nv = a * 3\n"
    )
    assert r.success, r.error_in_exec
    assert ip.user_ns["a"].grad.tolist() == [3.0, 3.0]
    ip.run_cell("v.backward(torch.ones(2))")  # graph retained
    assert ip.user_ns["a"].grad.tolist() == [6.0, 6.0]


def test_no_grad_shows_nothing_recorded(ip, displayed):
    r = ip.run_cell("%%autograd --no-grad\na = torch.ones(2, requires_grad=True)\nb = a * 2\n")
    assert r.success
    assert ip.user_ns["b"].grad_fn is None and torch.is_grad_enabled()
    assert "nothing was recorded" in displayed[-1]._repr_mimebundle_()["text/plain"]


def test_e1_exception_propagates_state_restored(ip, displayed, capsys):
    from jupyter_autograd.autograd.engine import FLAGS

    r = ip.run_cell("%%autograd\nx = 1\nraise ZeroDivisionError('boom')\n")
    out = capsys.readouterr()
    assert r.success is False and isinstance(r.error_in_exec, ZeroDivisionError)
    assert ip.user_ns["x"] == 1
    assert torch.is_grad_enabled() and not viz.is_tracing() and FLAGS.record_tracers == []
    assert displayed == []
    tb = re.sub(r"\x1b\[[0-9;]*m", "", out.out + out.err)
    assert "raise ZeroDivisionError" in tb and "magics.py" not in tb and "run_traced" not in tb


@pytest.mark.filterwarnings("ignore:To exit")
@pytest.mark.parametrize("exc", ["KeyboardInterrupt", "SystemExit"])
def test_e2_interrupts_propagate(ip, displayed, exc):
    r = ip.run_cell(
        f"%%autograd\nimport jupyter_autograd as torch\ntorch.set_grad_enabled(False)\nraise {exc}\n"
    )
    assert type(r.error_in_exec).__name__ == exc and r.success is False
    assert torch.is_grad_enabled() and not viz.is_tracing() and displayed == []


def test_e3_no_grad_raising_and_generator(ip, displayed):
    r = ip.run_cell("%%autograd\nwith torch.no_grad():\n    raise ValueError('x')\n")
    assert isinstance(r.error_in_exec, ValueError) and torch.is_grad_enabled()
    r = ip.run_cell(
        "%%autograd\n"
        "@torch.no_grad()\n"
        "def gen():\n"
        "    yield torch.is_grad_enabled()\n"
        "    yield torch.is_grad_enabled()\n"
        "g = gen()\n"
        "first = next(g)\n"
        "outside = torch.is_grad_enabled()\n"
        "second = next(g)\n"
    )
    assert r.success
    assert (ip.user_ns["first"], ip.user_ns["outside"], ip.user_ns["second"]) == (
        False,
        True,
        False,
    )
    assert torch.is_grad_enabled() and not viz.is_tracing()


@pytest.mark.parametrize(
    "opts",
    [
        "--bogus",
        "--max-nodes -5",
        "--max-nodes abc",
        '--name "unterminated',
        '--show "a',
        "--gradient 1",
        "--direction up",
    ],
)
def test_e4_argument_errors_are_usage_errors(ip, displayed, opts, capsys):
    from IPython.core.error import UsageError

    ip.user_ns["ran"] = False
    r = ip.run_cell(f"%%autograd {opts}\nran = True\n")
    out = capsys.readouterr()
    assert isinstance(r.error_in_exec, UsageError)
    assert ip.user_ns["ran"] is False and displayed == []
    assert (
        "Traceback" not in out.out + out.err
        and "No closing quotation" not in str(r.error_in_exec).split("(")[0]
    )


def test_e5_load_reload_unload_idempotent():
    shell = InteractiveShell.instance()
    from jupyter_autograd import load_ipython_extension, unload_ipython_extension

    def count():
        return len(ours(shell, "pre_run_cell")), len(ours(shell, "post_run_cell"))

    shell.run_line_magic("load_ext", "jupyter_autograd")
    assert count() == (1, 1)
    shell.run_line_magic("load_ext", "jupyter_autograd")
    assert count() == (1, 1)
    for _ in range(3):
        shell.run_line_magic("reload_ext", "jupyter_autograd")
        assert count() == (1, 1)
    assert load_ipython_extension(shell) == "already loaded"
    assert load_ipython_extension(shell) == "already loaded"
    assert count() == (1, 1)
    shell.run_line_magic("unload_ext", "jupyter_autograd")
    assert count() == (0, 0)
    assert "autograd" not in shell.magics_manager.magics["cell"]
    assert "grad_fn" not in shell.magics_manager.magics["line"]
    assert unload_ipython_extension(shell) == "not loaded"
    assert shell.extension_manager.unload_extension("jupyter_autograd") == "not loaded"
    assert shell.extension_manager.load_extension("jupyter_autograd") is None
    assert shell.extension_manager.load_extension("jupyter_autograd") == "already loaded"
    shell.run_line_magic("unload_ext", "jupyter_autograd")
    assert count() == (0, 0)


def test_e6_callback_failure_is_logged_once(ip, monkeypatch, capsys, caplog):
    def boom():
        raise RuntimeError("internal")

    monkeypatch.setattr(M, "_cleanup", boom)
    monkeypatch.setattr(M, "_logged", False)
    r1 = ip.run_cell("q = 41 + 1")
    r2 = ip.run_cell("q")
    out = capsys.readouterr()
    assert r1.success and r2.result == 42
    assert "Error in callback" not in out.err + out.out
    assert (
        sum("internal error in a cell callback" in rec.getMessage() for rec in caplog.records) == 1
    )
    (post,) = ours(ip, "post_run_cell")
    post(r2)  # accepts the result argument


def test_e7_path_label_is_literal(ip, tmp_path):
    secret = tmp_path / "secret.svg"
    secret.write_text("<svg>TOPSECRET</svg>")
    x = torch.ones(1, requires_grad=True)
    g = viz.graph(x * 2, names={str(secret): x})
    data, _ = ip.display_formatter.format(g)
    blob = str(data)
    assert str(secret) in blob and "TOPSECRET" not in blob


def test_grad_fn_magic_tree(ip, capsys):
    ip.run_cell("w = torch.ones(2, requires_grad=True)\nc = torch.ones(2)\nz = (w * c).sum()")
    ip.run_cell("%grad_fn z")
    out = capsys.readouterr().out
    assert out.splitlines()[:4] == [
        "SumBackward0",
        "\u2514\u2500\u2500 MulBackward0",
        "    \u251c\u2500\u2500 AccumulateGrad (w)",
        "    \u2514\u2500\u2500 None",
    ]
    ip.run_cell("%grad_fn w")
    assert capsys.readouterr().out.startswith("None")


def test_autograd_graph_magic(ip, displayed):
    ip.run_cell("w = torch.ones(2, requires_grad=True)\nz = (w * 3).sum()")
    r = ip.run_cell("%autograd_graph z --max-nodes 10 --format svg")
    assert r.success, r.error_in_exec
    assert "image/svg+xml" in displayed[-1]._repr_mimebundle_()
    assert displayed[-1].payload["nodes"][0]["name"] == "z"


def test_grad_mode_magic(ip, capsys):
    ip.run_cell("%grad_mode off")
    assert not torch.is_grad_enabled()
    ip.run_cell("%grad_mode")
    assert capsys.readouterr().out.splitlines() == ["grad mode: off", "grad mode: off"]
    ip.run_cell("%grad_mode on")
    assert torch.is_grad_enabled()


def test_bare_grad_fn_formatter_only_after_load():
    shell = InteractiveShell.instance()
    shell.run_cell(
        "import jupyter_autograd as torch\nw = torch.ones(2, requires_grad=True)\nz = w * 2"
    )
    fn = shell.user_ns["z"].grad_fn
    data, _ = shell.display_formatter.format(fn)
    assert set(data) == {"text/plain"} and data["text/plain"].startswith("<MulBackward0 object at")
    shell.run_line_magic("load_ext", "jupyter_autograd")
    try:
        data, _ = shell.display_formatter.format(fn)
        assert G.MIME_TYPE in data and "image/svg+xml" in data
        assert "AutogradGraph(nodes=" in data["text/plain"]
    finally:
        shell.run_line_magic("unload_ext", "jupyter_autograd")
    data, _ = shell.display_formatter.format(fn)
    assert set(data) == {"text/plain"}


def test_traced_cell_error_shows_the_real_cell_number_and_user_frames_first(ip, displayed, capsys):
    """As IPython shows an ordinary cell's error: "Cell In[N], line 2" first, no magic frame."""
    ip.run_cell("a = 1", store_history=True)
    r = ip.run_cell(
        "%%autograd\nx = torch.ones(2, requires_grad=True)\ny = x @ torch.ones(3)\n",
        store_history=True,
    )
    out = re.sub(r"\x1b\[[0-9;]*m", "", capsys.readouterr().out)
    assert isinstance(r.error_in_exec, RuntimeError)
    frames = re.findall(r"^(Cell In\[\d+\], line \d+|File .*)$", out, re.MULTILINE)
    assert frames[0] == f"Cell In[{r.execution_count}], line 2", frames
    assert "Cell In[0]" not in out and "run_cell_magic" not in out and "magics.py" not in out
    assert "y = x @ torch.ones(3)" in out
