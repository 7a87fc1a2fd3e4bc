"""The core imports only NumPy: never IPython, ipywidgets, matplotlib or CuPy."""

import subprocess
import sys


def test_import_pulls_in_no_jupyter_stack_or_cupy():
    code = (
        "import sys, jupyter_autograd, jupyter_autograd.nn.functional, jupyter_autograd.autograd\n"
        "bad = [m for m in ('IPython', 'ipywidgets', 'matplotlib', 'cupy', 'torch') if m in sys.modules]\n"
        "print(bad)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
