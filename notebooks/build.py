"""Regenerate the tutorial notebooks (English and Chinese) with stored outputs.

Each notebook's cells live as Python data in ``notebooks/_src/nbXX_*.py``: a
markdown cell carries its English and Chinese prose, a code cell is shared by
both languages so code and outputs stay identical. This script writes
``notebooks/en/<name>.ipynb`` and ``notebooks/zh/<name>.ipynb`` with
deterministic cell ids, then executes them in place with
``jupyter nbconvert --execute`` so the stored outputs are real.

A cell (or a whole notebook) may name the features it needs, e.g.
``requires=("magics",)``; when the working tree lacks a feature the cell is
left out, so re-running the script after a feature lands grows the notebooks.

Usage::

    .venv/bin/python notebooks/build.py            # every notebook
    .venv/bin/python notebooks/build.py 01 03      # only those numbers
    .venv/bin/python notebooks/build.py --no-execute
    JUPYTER_AUTOGRAD_SRC=/tmp/main-head .venv/bin/python notebooks/build.py
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import pathlib
import re
import subprocess
import sys

import nbformat

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
LANGS = ("en", "zh")
# Where jupyter_autograd is imported from: this working tree by default, or a
# clean checkout (e.g. `git worktree add /tmp/main-head HEAD`) while others edit.
SRC = pathlib.Path(os.environ.get("JUPYTER_AUTOGRAD_SRC", ROOT)).resolve()

sys.path.insert(0, str(SRC))
sys.path.insert(0, str(HERE))

from _src import NOTEBOOKS


def _attr_exists(module: str, attr: str | None = None) -> bool:
    try:
        mod = importlib.import_module(module)
    except Exception:  # noqa: BLE001 - any failing import means the attribute is not there
        return False
    return attr is None or hasattr(mod, attr)


# Each feature maps to a check against the working tree, so a notebook cell is
# only emitted once the code it demonstrates is on main.
FEATURES = {
    "magics": lambda: _attr_exists("jupyter_autograd.jupyter.magics"),
    "widgets": lambda: (
        _attr_exists("jupyter_autograd.widgets") or _attr_exists("jupyter_autograd.jupyter.widgets")
    ),
    "functional": lambda: _attr_exists("jupyter_autograd.autograd.functional", "jacobian"),
    "forward_ad": lambda: _attr_exists("jupyter_autograd.autograd.forward_ad", "dual_level"),
    "function": lambda: _attr_exists("jupyter_autograd.autograd", "Function"),
    "gradcheck": lambda: _attr_exists("jupyter_autograd.autograd", "gradcheck"),
    "anomaly": lambda: _attr_exists("jupyter_autograd.autograd", "detect_anomaly"),
    "nn": lambda: _attr_exists("jupyter_autograd.nn", "Linear"),
    "optim": lambda: _attr_exists("jupyter_autograd.optim", "SGD"),
    "data": lambda: _attr_exists("jupyter_autograd.utils.data", "DataLoader"),
    "datasets": lambda: _attr_exists("jupyter_autograd.datasets"),
    "matplotlib": lambda: importlib.util.find_spec("matplotlib") is not None,
}


def have(features) -> bool:
    return all(FEATURES[f]() for f in features)


def build_notebook(spec, lang: str):
    nb = nbformat.v4.new_notebook()
    nb.metadata = {
        "kernelspec": {
            "display_name": "Python 3 (ipykernel)",
            "language": "python",
            "name": "python3",
        },
        "language_info": {"name": "python"},
    }
    n = 0
    for cell in spec.CELLS:
        if not have(cell.requires):
            continue
        if cell.kind == "markdown":
            c = nbformat.v4.new_markdown_cell(cell.en if lang == "en" else cell.zh)
        else:
            c = nbformat.v4.new_code_cell(cell.source)
            if cell.tags:
                c.metadata["tags"] = list(cell.tags)
        # Deterministic ids keep regenerated notebooks diff-free.
        c["id"] = f"{spec.NAME[:2]}-{lang}-{n:03d}"
        nb.cells.append(c)
        n += 1
    return nb


def execute(path: pathlib.Path) -> None:
    env = dict(os.environ)
    # The kernel must import this working tree, installed or not.
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(SRC), env.get("PYTHONPATH")]))
    env.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "jupyter",
            "nbconvert",
            "--to",
            "notebook",
            "--execute",
            "--inplace",
            "--ExecutePreprocessor.kernel_name=python3",
            "--ExecutePreprocessor.timeout=300",
            "--ExecutePreprocessor.record_timing=False",
            str(path),
        ],
        check=True,
        env=env,
        cwd=str(path.parent),
    )


def sanitize(path: pathlib.Path) -> None:
    """Apply tests/nbval_sanitize.cfg to the stored outputs.

    nbval sanitizes both sides before comparing, so storing the sanitized text
    loses nothing and makes a rebuild byte-identical (no addresses, no pids).
    """
    cfg = (ROOT / "tests" / "nbval_sanitize.cfg").read_text()
    patterns = [
        (re.compile(rx), rep)
        for rx, rep in re.findall(r"^regex: (.*)$\n^replace: (.*)$", cfg, flags=re.MULTILINE)
    ]

    def clean(text):
        joined = "".join(text) if isinstance(text, list) else text
        for rx, rep in patterns:
            joined = rx.sub(rep, joined)
        return joined

    nb = nbformat.read(str(path), as_version=4)
    # Widget models get random ids on every run; the stored view would point at state that
    # changes each rebuild, so keep only the text/PNG fallbacks (running the cell shows the
    # live widget). nbval ignores the widget-view MIME type anyway.
    nb.metadata.pop("widgets", None)
    for cell in nb.cells:
        merged = []
        for out in cell.get("outputs", []):
            out.get("data", {}).pop("application/vnd.jupyter.widget-view+json", None)
            # Stream chunks split by timing: merge consecutive ones of the same name.
            if (
                out.get("output_type") == "stream"
                and merged
                and merged[-1].get("output_type") == "stream"
                and merged[-1]["name"] == out["name"]
            ):
                merged[-1]["text"] += out["text"]
                continue
            merged.append(out)
        if "outputs" in cell:
            cell["outputs"] = merged
        for out in cell.get("outputs", []):
            if out.get("output_type") == "stream":
                out["text"] = clean(out["text"])
            for key, value in out.get("data", {}).items():
                if key.startswith("text/") and key != "text/html":
                    out["data"][key] = clean(value)
    nbformat.write(nb, str(path))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("only", nargs="*", help="notebook numbers to build, e.g. 01 03")
    ap.add_argument("--no-execute", action="store_true")
    ap.add_argument("--lang", choices=LANGS, action="append")
    args = ap.parse_args(argv)
    langs = args.lang or LANGS
    for spec in NOTEBOOKS:
        if args.only and spec.NAME[:2] not in args.only:
            continue
        missing = [f for f in spec.REQUIRES if not FEATURES[f]()]
        if missing:
            print(f"skip {spec.NAME}: missing {', '.join(missing)}")
            continue
        for lang in langs:
            path = HERE / lang / f"{spec.NAME}.ipynb"
            path.parent.mkdir(exist_ok=True)
            nbformat.write(build_notebook(spec, lang), str(path))
            if not args.no_execute:
                execute(path)
                sanitize(path)
            print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
