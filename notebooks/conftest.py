"""Let nbval's kernels import this working tree, whether or not it is installed."""

import os
import pathlib

# JUPYTER_AUTOGRAD_SRC may point at another checkout (as in notebooks/build.py).
_SRC = os.environ.get("JUPYTER_AUTOGRAD_SRC") or str(pathlib.Path(__file__).resolve().parent.parent)
# Kernels are started as subprocesses, so they see PYTHONPATH but not sys.path.
os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [_SRC, os.environ.get("PYTHONPATH")]))
