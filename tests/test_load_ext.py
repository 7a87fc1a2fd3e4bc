"""``%load_ext jupyter_autograd`` stays lazy (issue #17): it imports neither matplotlib nor
ipywidgets nor anywidget; those load when a plot or widget is made. (Its time is measured in
benchmarks/bench_load_ext.py, not asserted here.)"""

from __future__ import annotations

import pathlib
import subprocess
import sys

import pytest

pytest.importorskip("IPython")

ROOT = pathlib.Path(__file__).resolve().parents[1]


def run(code: str) -> str:
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    return out.stdout.strip().splitlines()[-1]


def test_load_ext_imports_no_plotting_or_widget_library():
    code = (
        "import sys\n"
        "from IPython.core.interactiveshell import InteractiveShell\n"
        "ip = InteractiveShell.instance()\n"
        "ip.run_line_magic('load_ext', 'jupyter_autograd')\n"
        "ip.run_cell('import jupyter_autograd as torch\\nx = torch.ones(2, requires_grad=True)')\n"
        "ip.run_cell_magic('autograd', '--format text', 'y = (x * 2).sum()')\n"
        "print([m for m in ('matplotlib', 'ipywidgets', 'anywidget') if m in sys.modules])\n"
    )
    assert run(code) == "[]"


def test_load_ext_defers_what_a_magic_or_a_draw_first_needs():
    """The < 0.2 s budget of benchmarks/bench_load_ext.py rests on these staying unloaded until
    used: the graph builders, serialization (zipfile, pickle) and numpy.random."""
    code = (
        "import sys\n"
        "from IPython.core.interactiveshell import InteractiveShell\n"
        "ip = InteractiveShell.instance()\n"
        "ip.run_line_magic('load_ext', 'jupyter_autograd')\n"
        "lazy = ('jupyter_autograd.viz', 'jupyter_autograd.graph', 'jupyter_autograd.serialization',"
        " 'numpy.random')\n"
        "print([m for m in lazy if m in sys.modules])\n"
    )
    assert run(code) == "[]"
    # and they load when used: a traced cell, save/load, a random draw
    code = (
        "import io, sys\n"
        "from IPython.core.interactiveshell import InteractiveShell\n"
        "ip = InteractiveShell.instance()\n"
        "ip.run_line_magic('load_ext', 'jupyter_autograd')\n"
        "import jupyter_autograd as torch\n"
        "ip.user_ns['torch'] = torch\n"
        "torch.manual_seed(0)\n"
        "x = torch.randn(3, requires_grad=True)\n"
        "ip.user_ns['x'] = x\n"
        "ip.run_cell_magic('autograd', '--format text', 'y = (x * 2).sum()')\n"
        "b = io.BytesIO(); torch.save(x, b); b.seek(0)\n"
        "assert torch.equal(torch.load(b), x)\n"
        "print(x.tolist() == [1.5409960746765137, -0.293428897857666, -2.1787893772125244],"
        " [m for m in ('jupyter_autograd.viz', 'jupyter_autograd.serialization', 'numpy.random')"
        " if m not in sys.modules])\n"
    )
    assert run(code) == "True []"


def test_lazy_names_are_listed_before_their_first_use():
    code = (
        "import sys, jupyter_autograd as torch\n"
        "print({'save', 'load', 'serialization'} <= set(dir(torch)),"
        " 'jupyter_autograd.serialization' in sys.modules)\n"
    )
    assert run(code) == "True False"


def test_a_widget_loads_them_when_made():
    pytest.importorskip("ipywidgets")
    code = (
        "import sys\n"
        "from jupyter_autograd.widgets import GradModeToggle\n"
        "GradModeToggle()\n"
        "print('ipywidgets' in sys.modules)\n"
    )
    assert run(code) == "True"
