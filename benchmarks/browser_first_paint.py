"""First paint of a large computation graph in a real JupyterLab and headless Debian Chromium.

Starts ``jupyter lab``, opens a notebook that displays an N-node graph payload
(``application/vnd.jupyter-autograd.graph+json``) and reads the renderer's own measure:
from ``renderModel()`` (payload arrives in the browser) to the second animation frame after the
output is attached, i.e. the first frame that shows the graph. Each run reloads the page, so
every run starts from a fresh JavaScript context.

    python benchmarks/browser_first_paint.py                  # 2 000 nodes, 5 runs
    python benchmarks/browser_first_paint.py --nodes 20000 --runs 3 --check 3000

Target (issue 6, test plan G4): median under 2 000 ms for 2 000 nodes on the CI machine.
Needs the extension installed (``pip install -e .``) and /usr/bin/chromium.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "e2e"))

import e2e_payloads as payloads
from e2e_lab import (
    chromium,
    display_cell,
    lab_server,
    labextension_installed,
    open_notebook,
    run_all_cells,
    write_notebook,
    write_payload,
)


def measure(nodes: int, runs: int, shape: str) -> list[dict[str, float | str]]:
    payload = payloads.chain(nodes) if shape == "chain" else payloads.mlp(nodes)
    results: list[dict[str, float | str]] = []
    with tempfile.TemporaryDirectory() as home, lab_server(Path(home)) as server:
        name = write_payload(server.root, "graph.json", payload)
        write_notebook(server.root / "bench.ipynb", [display_cell(name, f"{nodes} nodes")])
        with chromium() as browser:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            for _ in range(runs):
                open_notebook(page, server, "bench.ipynb")
                run_all_cells(page)
                out = page.locator(".jp-AutogradGraph-output[data-painted]").first
                out.wait_for(timeout=120_000)
                view = out.locator(".jp-AutogradGraph")
                results.append(
                    {
                        "first_paint_ms": float(out.get_attribute("data-first-paint-ms") or "nan"),
                        "render_ms": float(out.get_attribute("data-render-ms") or "nan"),
                        "layout_ms": float(view.get_attribute("data-layout-ms") or "nan"),
                        "draw_ms": float(view.get_attribute("data-draw-ms") or "nan"),
                        "engine": view.get_attribute("data-layout-engine") or "?",
                        "visible_nodes": float(view.get_attribute("data-visible-nodes") or "nan"),
                    }
                )
    return results


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, default=2000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--shape", choices=["mlp", "chain"], default="mlp")
    ap.add_argument(
        "--check", type=float, default=None, help="exit 1 if the median (ms) exceeds this"
    )
    ap.add_argument("--json", type=Path, default=None, help="also write the runs here")
    args = ap.parse_args()
    if labextension_installed() is None:
        print("jupyter-autograd labextension is not installed: pip install -e .", file=sys.stderr)
        return 2
    runs = measure(args.nodes, args.runs, args.shape)
    paints = [float(r["first_paint_ms"]) for r in runs]
    med = statistics.median(paints)
    r0 = runs[0]
    print(
        f"first paint of a {args.nodes}-node {args.shape} graph in headless Chromium: "
        f"median {med:.0f} ms, min {min(paints):.0f} ms, max {max(paints):.0f} ms over {len(runs)} runs "
        f"(engine {r0['engine']}, {r0['visible_nodes']:.0f} drawn nodes; renderModel "
        f"{statistics.median(float(r['render_ms']) for r in runs):.0f} ms of which layout "
        f"{statistics.median(float(r['layout_ms']) for r in runs):.0f} ms and SVG build "
        f"{statistics.median(float(r['draw_ms']) for r in runs):.0f} ms)"
    )
    if args.json:
        args.json.write_text(
            json.dumps({"nodes": args.nodes, "shape": args.shape, "runs": runs}, indent=1)
        )
    if args.check is not None and med > args.check:
        print(f"FAIL: median first paint {med:.0f} ms > {args.check:.0f} ms", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
