"""Issue 14 item 6: our own programs doing what PyTorch's tutorials do (autograd basics,
"What is torch.nn really?", the quickstart, extending autograd, torch.func), each run under
PyTorch and under jupyter_autograd; their printed output must agree (numbers to the precision
printed, everything else exactly)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from .._torch import require as require_torch

HERE = Path(__file__).parent
ROOT = HERE.parent.parent
PROGRAMS = sorted(p.name for p in HERE.glob("*.py") if not p.name.startswith(("_", "test_")))
_NUM = re.compile(r"-?\d+\.\d*(?:e[-+]?\d+)?|-?\d+(?:e[-+]?\d+)?|nan|inf")


def _run(name: str, ours: bool) -> str:
    env = dict(os.environ, PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1", PYTHONWARNINGS="ignore")
    args = [sys.executable, str(HERE / name)] + (["ours"] if ours else [])
    r = subprocess.run(
        args, capture_output=True, text=True, env=env, cwd=str(HERE), timeout=300, check=False
    )
    assert r.returncode == 0, f"{name} ({'ours' if ours else 'torch'}) failed:\n{r.stderr[-3000:]}"
    return r.stdout


def _same(a: str, b: str) -> bool:
    """Equal text; numbers equal up to one unit of the last printed digit (float rounding)."""
    if _NUM.sub("#", a) != _NUM.sub("#", b):
        return False
    for x, y in zip(_NUM.findall(a), _NUM.findall(b)):
        if x == y:
            continue
        digits = len(x.split(".")[1].split("e")[0]) if "." in x else 0
        fx, fy = float(x), float(y)
        if abs(fx - fy) > 1.5 * 10.0**-digits + 1e-6 * max(abs(fx), abs(fy)):
            return False
    return True


@pytest.mark.parametrize("name", PROGRAMS)
def test_program_prints_what_torch_prints(name):
    require_torch()
    ours, theirs = _run(name, True), _run(name, False)
    lo, lt = ours.splitlines(), theirs.splitlines()
    assert len(lo) == len(lt), (
        f"{name}: {len(lo)} lines vs torch's {len(lt)}\n{ours}\n---\n{theirs}"
    )
    bad = [(i, o, t) for i, (o, t) in enumerate(zip(lo, lt)) if not _same(o, t)]
    assert not bad, f"{name}: lines differ (ours / torch):\n" + "\n".join(
        f"{i}: {o}\n{i}: {t}" for i, o, t in bad[:10]
    )
