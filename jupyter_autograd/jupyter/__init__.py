"""The Jupyter layer: magics, widgets and plots (the only package importing IPython, ipywidgets, matplotlib)."""

from __future__ import annotations


def load_ipython_extension(ipython):
    """``%load_ext jupyter_autograd``: register the magics, callbacks and grad_fn formatter."""
    from .magics import load_ipython_extension as _load

    return _load(ipython)


def unload_ipython_extension(ipython):
    """``%unload_ext jupyter_autograd``: remove everything the extension added."""
    from .magics import unload_ipython_extension as _unload

    return _unload(ipython)
