"""Shared first lines of the programs: ``python prog.py ours`` imports jupyter_autograd as
torch, ``python prog.py`` imports PyTorch."""

import sys


def import_torch():
    if sys.argv[1:] == ["ours"]:
        import jupyter_autograd as torch
    else:
        import torch
    return torch
