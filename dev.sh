#!/usr/bin/env bash
# One entry point for developers and CI.
#   ./dev.sh lab    set up .venv and start JupyterLab on the tutorial notebooks (extension active)
#   ./dev.sh test   set up .venv and run the whole test suite (unit, registry, nbval, browser)
#   ./dev.sh bench  run the benchmarks (full size)
set -euo pipefail
cd "$(dirname "$0")"
PY=${PYTHON:-python3}

setup() {
  if [ ! -x .venv/bin/python ]; then "$PY" -m venv .venv; fi
  # shellcheck disable=SC1091
  . .venv/bin/activate
  python -m pip install -q -U pip
  # torch is only a comparison target in tests; the exact pin takes the local CPU wheel
  # (a bare 'torch' would pull a multi-GB CUDA build).
  # In CI torch is required (comparison tests fail without it); elsewhere they skip.
  if ! python -m pip install -q "torch==2.13.0"; then
    if [ -n "${CI:-}" ]; then echo "torch 2.13.0 could not be installed: CI needs it" >&2; exit 1; fi
    echo "torch 2.13.0 unavailable: torch comparison tests will skip"
  fi
  python -m pip install -q -e ".[test,jupyter]"
  python -m ipykernel install --sys-prefix --name python3 >/dev/null
}

case "${1:-test}" in
  lab)
    setup
    extra=()
    # JupyterLab refuses to run as root without this flag (containers, CI machines)
    if [ "$(id -u)" = 0 ] || [ -n "${JUPYTER_ALLOW_ROOT:-}" ]; then extra+=(--allow-root); fi
    exec jupyter lab --notebook-dir=notebooks "${extra[@]}" "${@:2}"
    ;;
  test)
    setup
    ruff check .   # lint first: a finding fails the run before the long suites
    ruff format --check .
    if [ -f .ci/labextension.sh ]; then bash .ci/labextension.sh; fi
    # release path: sdist + wheel, the wheel in a clean venv without Node, and three browser tests
    # against that install (which pytest below then need not repeat against the editable one)
    rel=()
    if [ -n "${CI:-}" ] || [ -z "${JUPYTER_AUTOGRAD_SKIP_RELEASE:-}" ]; then
      bash .ci/release_check.sh
      rel=(--deselect tests/e2e/test_graph_view.py::test_tutorial_graph
           --deselect tests/e2e/test_notebook7.py --deselect tests/e2e/test_graph_anywidget.py)
    fi
    python -c "import matplotlib.pyplot" >/dev/null 2>&1 || true   # warm the font cache
    # benchmark smokes: they must run, their timings are not tests
    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 python benchmarks/run.py --smoke
    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/bench_training.py --smoke
    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/bench_conv.py --smoke
    python benchmarks/bench_functional.py
    python benchmarks/bench_graph.py
    nb=()
    if [ -d notebooks ]; then
      nb=(notebooks --nbval --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg --nbval-cell-timeout 120)
    fi
    # one worker per core (CI has two); --dist loadfile keeps each file's tests in one process
    workers=$(python -c "import os; print(min(len(os.sched_getaffinity(0)), 4))")
    exec python -m pytest -q -p no:cacheprovider -n "${JOBS:-$workers}" --dist loadfile \
      --doctest-modules jupyter_autograd tests "${nb[@]}" "${rel[@]}" "${@:2}"
    ;;
  bench)
    setup
    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 exec python benchmarks/run.py "${@:2}"
    ;;
  *)
    echo "usage: ./dev.sh lab|test|bench" >&2
    exit 2
    ;;
esac
