"""Browser-test fixtures: one JupyterLab server and one headless Chromium per session.

In CI (CI=true) a missing /usr/bin/chromium, Playwright or installed extension is a failure;
on a developer machine those tests skip instead.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from e2e_lab import (
    CHROMIUM,
    LabServer,
    artifacts_dir,
    chromium,
    copy_log,
    lab_server,
    labextension_installed,
)

IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def _require(ok: bool, why: str) -> None:
    if not ok:
        if IN_CI:
            pytest.fail(why, pytrace=False)
        pytest.skip(why)


def pytest_configure(config: Any) -> None:
    config.addinivalue_line("markers", "e2e: real JupyterLab + headless Chromium browser test")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: Any, call: Any) -> Iterator[None]:
    outcome = yield
    rep = outcome.get_result()
    setattr(item, f"rep_{rep.when}", rep)


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    _require(os.path.exists(CHROMIUM), f"{CHROMIUM} is missing: apt-get install chromium")
    try:
        import playwright  # noqa: F401
    except ImportError:
        _require(False, "the playwright Python package is missing: pip install -e '.[test]'")
    with chromium() as b:
        yield b


@pytest.fixture(scope="session")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabServer]:
    _require(
        labextension_installed() is not None,
        "the jupyter-autograd labextension is not installed: pip install -e .",
    )
    with lab_server(tmp_path_factory.mktemp("lab")) as server:
        try:
            yield server
        finally:
            copy_log(server, "jupyter-lab.log")


def _delete_sessions(server: LabServer) -> None:
    """Shut down the kernels a test started, so later tests get the CPU."""
    try:
        with urllib.request.urlopen(server.url("api/sessions"), timeout=5) as r:
            sessions = json.load(r)
        for s in sessions:
            req = urllib.request.Request(server.url(f"api/sessions/{s['id']}"), method="DELETE")
            urllib.request.urlopen(req, timeout=10).close()
    except OSError:
        pass


@pytest.fixture
def page(browser: Any, lab: LabServer, request: pytest.FixtureRequest) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
    # Long main-thread tasks, for test plan G3 ("no single task > 1 s").
    context.add_init_script(
        "window.__longTasks = [];"
        "try { new PerformanceObserver(l => l.getEntries().forEach(e => window.__longTasks.push(e.duration)))"
        ".observe({type: 'longtask', buffered: true}); } catch (e) {}"
    )
    pg = context.new_page()
    pg.errors = []  # type: ignore[attr-defined]
    pg.on("pageerror", lambda e: pg.errors.append(f"pageerror: {e}"))
    pg.on(
        "console", lambda m: pg.errors.append(f"console: {m.text}") if m.type == "error" else None
    )
    yield pg
    rep = getattr(request.node, "rep_call", None)
    if rep is not None and rep.failed:
        try:
            pg.screenshot(path=str(artifacts_dir() / f"{request.node.name}-FAILED.png"))
        except Exception:  # noqa: BLE001, S110 - best effort on a failing page
            pass
    context.close()
    _delete_sessions(lab)


@pytest.fixture(scope="session")
def autograd_magic() -> bool:
    """Whether ``%load_ext jupyter_autograd`` provides a ``%%autograd`` cell magic yet."""
    code = (
        "from IPython.testing.globalipapp import start_ipython\n"
        "ip = start_ipython()\n"
        "ip.run_line_magic('load_ext', 'jupyter_autograd')\n"
        "print('autograd' in ip.magics_manager.magics['cell'])\n"
    )
    try:
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
        )
        ok, why = out.stdout.strip().endswith("True"), out.stderr[-2000:]
    except (OSError, subprocess.TimeoutExpired) as e:
        ok, why = False, str(e)
    # the magic exists: in CI (and the release smoke) its absence is a failure, not a fallback
    if not ok and IN_CI:
        pytest.fail(f"%load_ext jupyter_autograd gave no %%autograd magic: {why}", pytrace=False)
    return ok
