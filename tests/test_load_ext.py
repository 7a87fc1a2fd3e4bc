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
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, timeout=300, check=False)
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


def test_a_widget_loads_them_when_made():
    pytest.importorskip("ipywidgets")
    code = (
        "import sys\n"
        "from jupyter_autograd.widgets import GradModeToggle\n"
        "GradModeToggle()\n"
        "print('ipywidgets' in sys.modules)\n"
    )
    assert run(code) == "True"
