#!/usr/bin/env bash
# JupyterLab extension checks, run by .ci/run (via ./dev.sh test) BEFORE pytest.
# Assumes: the venv is active and `pip install -e ".[test]"` has run (which already did
# `jlpm install` + the extension build through hatch-jupyter-builder). Idempotent.
# The browser tests themselves are tests/e2e (pytest); they need /usr/bin/chromium.
set -euo pipefail
cd "$(dirname "$0")/.."
t0=$SECONDS
step() { echo "[labextension] $* ($((SECONDS - t0)) s)"; }

# 1. Test plan F2: no API that parses strings as markup or code in the renderer source.
step "F2 static scan of labextension/src"
pattern='\binnerHTML\b|\bouterHTML\b|\binsertAdjacentHTML\b|\bDOMParser\b|document\.write|dangerouslySetInnerHTML|\.html\(|\beval[[:space:]]*\(|\bnew[[:space:]]+Function\b|createContextualFragment|\bsrcdoc\b'
hits=$(grep -rnE "$pattern" labextension/src --include='*.ts' --exclude-dir=__tests__ || true)
if [ -n "$hits" ]; then
  echo "$hits"
  echo "[labextension] FAIL: forbidden markup/code APIs in labextension/src (test plan F2)" >&2
  exit 1
fi

# 2. Dependencies exactly as locked (CI=true makes Yarn immutable: a stale yarn.lock fails).
step "jlpm install"
(cd labextension && jlpm install >/tmp/jupyter-autograd-jlpm-install.log 2>&1) || {
  tail -40 /tmp/jupyter-autograd-jlpm-install.log
  exit 1
}

# 3. Lint (Prettier + ESLint, F2 again as no-restricted-syntax), type check, jest (schema
#    guard, graph logic, layout, render, view, widget).
step "prettier + eslint"
(cd labextension && jlpm lint:check)
step "tsc --noEmit"
(cd labextension && jlpm typecheck)
step "jest"
(cd labextension && jlpm test --ci --silent)

# 4. The prebuilt extension is installed and enabled (acceptance: labextension list says OK).
step "jupyter labextension list"
out=$(jupyter labextension list 2>&1)
echo "$out" | grep -i "jupyter-autograd" || true
if ! grep -qiE "jupyter-autograd v[0-9.]+.*enabled.*OK" <<<"$out"; then
  echo "$out"
  echo "[labextension] FAIL: jupyter-autograd is not listed as enabled and OK" >&2
  exit 1
fi
step "done"
