"""Magics take whatever a user types (issue #19): shell-style option values, one-line errors."""

from __future__ import annotations

import pytest

pytest.importorskip("IPython")
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell

import jupyter_autograd as torch
from jupyter_autograd import viz
from jupyter_autograd.autograd.engine import FLAGS
from jupyter_autograd.jupyter import magics as M
from jupyter_autograd.jupyter import options

from ._torch import require as require_torch


@pytest.fixture()
def ip():
    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "jupyter_autograd")
    shell.run_cell("import jupyter_autograd as torch\nd = {'k': torch.ones(2) * 3, 'a b': None}")
    yield shell
    shell.run_line_magic("unload_ext", "jupyter_autograd")
    torch.set_grad_enabled(True)


@pytest.fixture()
def displayed(monkeypatch):
    shown = []
    monkeypatch.setattr(M, "_display", shown.append)
    return shown


CELL = "%%autograd {opts}\nx = torch.ones(2, requires_grad=True)\ny = x * 2\n损失 = y.sum()\n"


def test_quoted_gradient_expression_reaches_backward_unquoted(ip, displayed):
    """The issue's example: y's gradient times 3, as torch computes it."""
    r = ip.run_cell(CELL.format(opts='--gradient "torch.ones(2) * 3" --backward y'))
    assert r.success, r.error_in_exec
    real = require_torch()
    x = real.ones(2, requires_grad=True)
    (x * 2).backward(real.ones(2) * 3)
    assert ip.user_ns["x"].grad.tolist() == x.grad.tolist() == [6.0, 6.0]
    assert displayed[-1].payload["backward_order"]


# Every option of every magic, with values that have spaces, quotes, unicode and shell
# metacharacters: (magic line, check on the shell afterwards).
GRADIENTS = [
    '"torch.ones(2) * 3"',
    "'torch.full((2,), 3.0)'",
    "torch.ones(2)*3",
    "\"d['k']\"",
    "'d[\"k\"]'",
    "\"torch.ones(2) * len('a b;c|d && $(e) > f `g`') / 23 * 3\"",  # 23 characters, all kept
    "\"torch.ones(2) * (3 if '√' else 0)\"",
    '--gradient="torch.ones(2) * 3"',
]


@pytest.mark.parametrize("value", GRADIENTS)
def test_gradient_values_as_a_shell_reads_them(ip, displayed, value):
    opt = value if value.startswith("--") else f"--gradient {value}"
    r = ip.run_cell(CELL.format(opts=f"--backward y {opt}"))
    assert r.success, r.error_in_exec
    assert ip.user_ns["x"].grad.tolist() == [6.0, 6.0]


@pytest.mark.parametrize(
    "opts, names",
    [
        ('--backward "损失"', None),
        ("--backward '损失' --show 'x, 损失'", ["x", "损失"]),
        ('--show "x y"', ["x", "y"]),
        ("--show x,y", ["x", "y"]),
        ('--show="y"', ["y"]),
    ],
)
def test_name_options_quoted_and_unicode(ip, displayed, opts, names):
    r = ip.run_cell(CELL.format(opts=opts))
    assert r.success, r.error_in_exec
    p = displayed[-1].payload
    if "--backward" in opts:
        assert ip.user_ns["x"].grad.tolist() == [2.0, 2.0]
    if names:
        by = {n["id"]: n for n in p["nodes"]}
        assert [by[r]["name"] for r in p["roots"]] == names


@pytest.mark.parametrize(
    "opts, check",
    [
        ('--max-nodes "3"', lambda g: g.payload["truncated"]),
        ("--max-nodes='3'", lambda g: g.payload["truncated"]),
        ("--direction 'backward'", lambda g: g.payload["direction"] == "backward"),
        ('--format "text"', lambda g: list(g._repr_mimebundle_()) == ["text/plain"]),
        (
            '--saved --values --retain-graph --backward "损失"',
            lambda g: g.payload["backward_order"],
        ),
        ("--no-grad", lambda g: "nothing was recorded" in repr(g._repr_mimebundle_())),
    ],
)
def test_other_options_quoted(ip, displayed, opts, check):
    r = ip.run_cell(CELL.format(opts=opts))
    assert r.success, r.error_in_exec
    assert check(displayed[-1])


def test_line_magics_take_python_expressions_as_typed(ip, displayed, capsys):
    ip.run_cell(
        "w = torch.ones(2, requires_grad=True)\nouts = {'loss': (w * 2).sum(), 'a b': w * 3}"
    )
    for line in (
        '%grad_fn outs["loss"]',
        "%grad_fn outs['loss']",
        "%grad_fn \"outs['loss']\"",
        '%grad_fn outs [ "loss" ]',
    ):
        r = ip.run_cell(line)
        assert r.success, (line, r.error_in_exec)
        assert capsys.readouterr().out.startswith("SumBackward0"), line
    r = ip.run_cell("%grad_fn outs['a b']")
    assert r.success and capsys.readouterr().out.startswith("MulBackward0")
    for line in (
        '%autograd_graph outs["loss"] --max-nodes "10" --format \'svg\'',
        '%autograd_graph --direction=backward (outs["loss"], outs["a b"])',
        "%autograd_graph -outs['a b']",
    ):
        r = ip.run_cell(line)
        assert r.success, (line, r.error_in_exec)
    assert displayed[0].payload["nodes"][0]["name"] is None
    assert (
        displayed[1].payload["direction"] == "backward" and len(displayed[1].payload["roots"]) == 2
    )
    assert displayed[2].payload["nodes"][0]["op"] is None  # the NegBackward0 output tensor


@pytest.mark.parametrize("line, on", [('%grad_mode "off"', False), ("%grad_mode 'ON'", True)])
def test_grad_mode_quoted(ip, capsys, line, on):
    torch.set_grad_enabled(not on)
    assert ip.run_cell(line).success
    assert torch.is_grad_enabled() is on


def test_help_prints_the_options_and_runs_nothing(ip, displayed, capsys):
    ip.user_ns["ran"] = False
    r = ip.run_cell("%%autograd --help\nran = True\n")
    out = capsys.readouterr().out
    assert r.success and ip.user_ns["ran"] is False and displayed == []
    assert "--gradient" in out and "--backward" in out


# Every user error: (magic line or cell, words the one-line message must contain).
SETUP = "n = 3\nv = torch.ones(2, requires_grad=True) * 2\n"
ERRORS = [
    ("%%autograd --bogus", ["%%autograd", "--bogus", "quote"]),
    ("%%autograd --backward y extra words", ["unrecognized", "quote"]),
    (
        "%%autograd --gradient torch.ones(2) * 3 --backward y",
        ["unrecognized", '"torch.ones(2) * 3"'],
    ),
    ("%%autograd --max-nodes -5", ["--max-nodes", "positive integer", "500"]),
    ("%%autograd --max-nodes abc", ["--max-nodes", "'abc'"]),
    ("%%autograd --max-nodes", ["--max-nodes", "expected one argument"]),
    ("%%autograd --direction up", ["--direction", "forward", "backward"]),
    ("%%autograd --format pdf", ["--format", "svg"]),
    ('%%autograd --gradient "torch.ones(2', ["close the quote"]),
    ("%%autograd --show 'a", ["close the quote"]),
    ("%%autograd --gradient 1", ["--gradient needs --backward"]),
    ("%%autograd --backward nope", ["--backward", "'nope' is not bound", "e.g. --backward loss"]),
    ("%%autograd --backward n", ["--backward", "int, not a tensor"]),
    ("%%autograd --backward '$(rm -rf /)'", ["--backward", "not a Python name"]),
    ("%%autograd --backward 'a;b'", ["--backward", "not a Python name"]),
    ("%%autograd --backward a,b", ["--backward takes one name"]),
    ("%%autograd --show nope", ["--show", "'nope' is not bound"]),
    ("%%autograd --show 'x | y'", ["--show", "not a Python name"]),
    ('%%autograd --backward y --gradient "torch.ones(2) / nope"', ["--gradient", "NameError"]),
    ('%%autograd --backward y --gradient "1/0"', ["--gradient", "ZeroDivisionError"]),
    ('%%autograd --backward y --gradient "(("', ["--gradient", "SyntaxError"]),
    ("%%autograd --backward y --gradient 3", ["--gradient", "gives a int, not a tensor"]),
    (
        '%%autograd --backward y --gradient "torch.ones(5)"',
        ["--backward y", "RuntimeError", "shape"],
    ),
    ("%%autograd --backward y", ["--backward y", "scalar", "--gradient"]),
    ("%%autograd --backward w", ["--backward w", "does not require grad"]),
    ("%grad_fn", ["%grad_fn", "required"]),
    ("%grad_fn nope", ["%grad_fn", "NameError"]),
    ("%grad_fn n", ["%grad_fn", "got int"]),
    ('%grad_fn "v', ["%grad_fn", "close the quote"]),
    ("%grad_fn v --bogus", ["%grad_fn", "--bogus"]),
    ("%autograd_graph nope", ["%autograd_graph", "NameError"]),
    ("%autograd_graph (v, n)", ["%autograd_graph", "got int"]),
    ("%autograd_graph v --max-nodes 0", ["--max-nodes", "positive integer"]),
    ("%autograd_graph v --format", ["--format", "expected one argument"]),
    ("%grad_mode maybe", ["%grad_mode", "'on' or 'off'"]),
    ("%grad_mode on off", ["%grad_mode", "'on' or 'off'"]),
]
BODY = "x = torch.ones(2, requires_grad=True)\ny = x * 2\nw = torch.zeros(1)\nran = True\n"


@pytest.mark.parametrize("grad_enabled", [True, False])
@pytest.mark.parametrize("line, words", ERRORS)
def test_every_user_error_is_one_usage_error_line(ip, displayed, capsys, line, words, grad_enabled):
    ip.run_cell(SETUP)
    ip.user_ns["ran"] = False
    torch.set_grad_enabled(grad_enabled)
    cell = f"{line}\n{BODY}" if line.startswith("%%") else line
    r = ip.run_cell(cell)
    out = capsys.readouterr()
    err = r.error_in_exec
    assert isinstance(err, UsageError), (line, err)
    msg = str(err)
    assert "\n" not in msg and len(msg) < 400, msg
    # under no_grad the cell records nothing: backward fails earlier, with another message
    for w in words if grad_enabled else words[:1]:
        assert w in msg, (w, msg)
    assert "Traceback" not in out.out + out.err
    assert displayed == []
    assert torch.is_grad_enabled() is grad_enabled
    assert not viz.is_tracing() and FLAGS.record_tracers == []


def test_errors_before_the_cell_runs_do_not_run_it(ip, displayed):
    ip.user_ns["ran"] = False
    for opts in ("--bogus", "--max-nodes 0", "--backward '1x'", "--direction up", '--show "'):
        assert isinstance(ip.run_cell(f"%%autograd {opts}\nran = True\n").error_in_exec, UsageError)
        assert ip.user_ns["ran"] is False


def test_error_in_a_custom_backward_keeps_its_traceback(ip, displayed, capsys):
    """A backward that fails in the user's own code is not an option error: its frames show."""
    cell = (
        "%%autograd --backward y\n"
        "class Bad(torch.autograd.Function):\n"
        "    @staticmethod\n"
        "    def forward(ctx, a):\n"
        "        return a * 2\n"
        "    @staticmethod\n"
        "    def backward(ctx, g):\n"
        "        raise ValueError('my backward is wrong')\n"
        "x = torch.ones(1, requires_grad=True)\n"
        "y = Bad.apply(x).sum()\n"
    )
    r = ip.run_cell(cell)
    assert isinstance(r.error_in_exec, ValueError) and not isinstance(r.error_in_exec, UsageError)
    assert "my backward is wrong" in capsys.readouterr().out


@pytest.mark.parametrize(
    "line, values",
    [
        ('a "b c" d', ["a", "b c", "d"]),
        ("'it''s' x", ["its", "x"]),
        ('"say \\"hi\\"" \\ x', ['say "hi"', " x"]),
        ("a\tb\nc", ["a", "b", "c"]),
        ("中文 'é t'", ["中文", "é t"]),
        ("$(x) `y` a|b;c&&d >e", ["$(x)", "`y`", "a|b;c&&d", ">e"]),
    ],
)
def test_split_matches_shlex(line, values):
    import shlex

    words = options.split(line)
    assert [v for v, _ in words] == values == shlex.split(line)
    assert " ".join(raw for _, raw in words).split() == line.split()
