"""Benchmark: ``%load_ext jupyter_autograd`` in a fresh IPython shell (issue #17: < 0.2 s).

Each run is a new process (nothing cached in ``sys.modules``): it starts an InteractiveShell,
then times ``import jupyter_autograd`` (the package the extension is) and the extension's own
``load_ipython_extension`` (magics, options). Figures are process CPU time, best of ``--repeat``
runs, so a loaded machine does not inflate them; wall time is printed alongside.

Run: ``python benchmarks/bench_load_ext.py`` (``--check`` exits 1 over 0.2 s CPU).
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
BUDGET_S = 0.2

PROBE = r"""
import json, sys, time
from IPython.core.interactiveshell import InteractiveShell
ip = InteractiveShell.instance()
c0, w0 = time.process_time(), time.perf_counter()
import jupyter_autograd
c1 = time.process_time()
ip.run_line_magic("load_ext", "jupyter_autograd")
c2, w2 = time.process_time(), time.perf_counter()
print(json.dumps({"import": c1 - c0, "extension": c2 - c1, "total": c2 - c0, "wall": w2 - w0,
                  "heavy": [m for m in ("matplotlib", "ipywidgets", "anywidget") if m in sys.modules]}))
"""


def run_once() -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    # an installed package has its bytecode compiled: time that, not recompiling stale sources
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    out = subprocess.run(
        [sys.executable, "-c", PROBE],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=120,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--check", action="store_true", help="exit 1 when over budget")
    args = ap.parse_args()
    runs = [run_once() for _ in range(args.repeat)]
    best = min(runs, key=lambda r: r["total"])
    print(
        f"%load_ext jupyter_autograd, best of {args.repeat} fresh processes (CPU s): "
        f"import {best['import']:.3f} + extension {best['extension']:.3f} = {best['total']:.3f}"
        f" (wall {best['wall']:.3f}); imported of matplotlib/ipywidgets/anywidget: "
        f"{best['heavy'] or 'none'}"
    )
    print(f"budget: {BUDGET_S} s")
    over = best["total"] > BUDGET_S
    if over:
        print(f"OVER BUDGET: {best['total']:.3f} s > {BUDGET_S} s", file=sys.stderr)
    return 1 if over and args.check else 0


if __name__ == "__main__":
    sys.exit(main())
