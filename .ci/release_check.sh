#!/usr/bin/env bash
# Release path (issue #17): build the sdist and the wheel as a release would, install the wheel
# into a new virtual environment with no Node reachable, check that JupyterLab lists the
# prebuilt extension as enabled, and run the browser smoke tests against that install:
#   - the tutorial's `%%autograd --backward loss` graph, interactive, in JupyterLab
#     (tests/e2e/test_graph_view.py::test_tutorial_graph) and in Notebook 7 (test_notebook7.py);
#   - `graph(...).widget()` interactive in JupyterLab with the lab extension disabled
#     (test_graph_anywidget.py: the anywidget path VS Code and Colab take).
# Run by ./dev.sh test after .ci/labextension.sh, with the dev venv active (labextension/
# node_modules installed). Screenshots go to test-artifacts/release/. Skip with
# JUPYTER_AUTOGRAD_SKIP_RELEASE=1 (never in CI).
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
t0=$SECONDS
step() { echo "[release] $* ($((SECONDS - t0)) s)"; }
work=$(mktemp -d /tmp/jupyter-autograd-release.XXXXXX)
trap 'rm -rf "$work"' EXIT

# 1. sdist + wheel. The dev bundles (unminified, source maps) must go first: the build skips the
#    npm step when they exist and would ship them (recipe pitfall 9). The build writes the
#    production bundles back in their place, which the editable dev install then uses.
step "python -m build"
rm -rf jupyter_autograd/labextension jupyter_autograd/static/graph-widget.js \
  jupyter_autograd/static/graph-widget.css
# uv installs the isolated build environments and the clean venv: pip downloads one file at a
# time and keeps no cache behind this network's proxy (about 140 s against 20 s for the venv)
DEVPY=$(command -v python)
"$DEVPY" -m pip install -q build uv
if ! "$DEVPY" -m build --installer uv --outdir "$work/dist" >"$work/build.log" 2>&1; then
  tail -60 "$work/build.log"
  exit 1
fi
ls -l "$work/dist"
wheel=$(ls "$work"/dist/*.whl)
ls "$work"/dist/*.tar.gz >/dev/null
# the wheel carries the production bundles: extension, install.json, anywidget module, no maps
"$DEVPY" - "$wheel" <<'EOF'
import sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
ext = "share/jupyter/labextensions/jupyter-autograd/"
need = [ext + "package.json", ext + "install.json", ext + "static/style.js",
        "jupyter_autograd/static/graph-widget.js", "jupyter_autograd/static/graph-widget.css"]
missing = [n for n in need if not any(m.endswith(n) for m in names)]
maps = [n for n in names if n.endswith(".map")]
assert not missing, f"wheel lacks {missing}"
assert not maps, f"wheel ships source maps (a dev build): {maps[:3]}"
print(f"[release] wheel: {len(names)} files, production bundles present")
EOF

# 2. A clean venv, the wheel with the `jupyter` extra, and no Node: node/npm/yarn/jlpm on PATH
#    are stubs that record any call and fail as a missing command would. Only what the smoke needs
#    is added (Notebook 7, pytest, playwright); no torch.
step "clean venv + pip install wheel[jupyter] (no Node)"
V=$work/venv
python3 -m venv --without-pip "$V"
mkdir -p "$work/nonode"
for tool in node nodejs npm npx yarn jlpm; do
  printf '#!/bin/sh\necho "%s $*" >> "%s/node-called"\nexit 127\n' "$tool" "$work" >"$work/nonode/$tool"
  chmod +x "$work/nonode/$tool"
done
export PATH="$work/nonode:$V/bin:$PATH"
unset PYTHONPATH VIRTUAL_ENV
# uv installs without compiling bytecode: let the first server and kernel write it, or every
# later process (each kernel) compiles jupyter_server, ipykernel and numpy again
unset PYTHONDONTWRITEBYTECODE
# fresh Jupyter config/data dirs: nothing from this machine's user dirs can stand in for the wheel
export JUPYTER_CONFIG_DIR=$work/config JUPYTER_DATA_DIR=$work/data
cd "$work"
"$DEVPY" -m uv pip install -q --python "$V/bin/python" "${wheel}[jupyter]" "notebook>=7,<8" \
  pytest playwright
if [ -s "$work/node-called" ]; then
  cat "$work/node-called"
  echo "[release] FAIL: installing the wheel called Node" >&2
  exit 1
fi
"$V/bin/python" -c "
import sys, jupyter_autograd as m
assert m.__file__.startswith(sys.prefix), m.__file__
print('[release] imported from', m.__file__)"

step "jupyter labextension list"
out=$("$V/bin/jupyter" labextension list 2>&1)
grep -i "jupyter-autograd" <<<"$out" || true
if ! grep -qiE "jupyter-autograd v[0-9.]+.*enabled.*OK.*\(python, jupyter[-_]autograd\)" <<<"$out" ||
  ! grep -qF "$V/share/jupyter/labextensions" <<<"$out"; then
  echo "$out"
  echo "[release] FAIL: the installed wheel's jupyter-autograd is not listed as enabled and OK" >&2
  exit 1
fi

# 3. Browser smoke against the install: run from outside the checkout, importlib mode (the repo
#    is never put on sys.path), only tests/e2e's conftest (not tests/conftest.py, which needs
#    the test extra).
step "browser smoke (JupyterLab, Notebook 7, anywidget with the extension disabled)"
e2e=$REPO/tests/e2e
set +e
CI=${CI:-true} JUPYTER_AUTOGRAD_ARTIFACTS=$REPO/test-artifacts/release \
  "$V/bin/python" -m pytest -q -rs -p no:cacheprovider --import-mode=importlib \
  --rootdir="$REPO" --confcutdir="$e2e" \
  "$e2e/test_graph_view.py::test_tutorial_graph" "$e2e/test_notebook7.py" \
  "$e2e/test_graph_anywidget.py" 2>&1 | tee "$work/smoke.log"
rc=${PIPESTATUS[0]}
set -e
# a skipped smoke is a failure here: all three must have run against the install
if [ "$rc" != 0 ] || ! grep -qE "(^| )3 passed" "$work/smoke.log" || grep -q "skipped" "$work/smoke.log"; then
  echo "[release] FAIL: browser smoke against the installed wheel (rc $rc)" >&2
  exit 1
fi
# (JupyterLab itself asks yarn for its registry in `labextension list` and falls back without it,
# as on any machine without Node: those calls are not ours)
step "done"
