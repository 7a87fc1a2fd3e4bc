"""A real JupyterLab server and headless Debian Chromium for browser tests and benchmarks.

Used by tests/e2e/conftest.py and benchmarks/browser_first_paint.py. No browser is downloaded:
Playwright drives the system Chromium through ``executable_path``.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import nbformat

MIME = "application/vnd.jupyter-autograd.graph+json"
CHROMIUM = os.environ.get("JUPYTER_AUTOGRAD_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
REPO = Path(__file__).resolve().parents[2]
LABEXT_NAME = "jupyter-autograd"


def labextension_installed() -> Path | None:
    """The installed prebuilt extension directory, if JupyterLab can find one."""
    from jupyter_core.paths import jupyter_path

    for base in jupyter_path("labextensions"):
        p = Path(base) / LABEXT_NAME / "package.json"
        if p.exists():
            return p.parent
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LabServer:
    """A running ``jupyter lab`` with its own root, config, runtime and data dirs."""

    def __init__(self, root: Path, app: str = "lab") -> None:
        self.root = root
        self.app = app  # "lab" (JupyterLab) or "notebook" (Notebook 7)
        self.port = _free_port()
        self.token = secrets.token_hex(16)
        self.log_path = root.parent / "jupyter-lab.log"
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def url(self, path: str) -> str:
        sep = "&" if "?" in path else "?"
        return f"{self.base}/{path.lstrip('/')}{sep}token={self.token}"

    def start(self, timeout: float = 60.0) -> None:
        home = self.root.parent
        env = dict(os.environ)
        env.update(
            JUPYTER_CONFIG_DIR=str(home / "config"),
            JUPYTER_RUNTIME_DIR=str(home / "runtime"),
            # A fresh data dir also means a fresh notary database: saved outputs are untrusted.
            JUPYTER_DATA_DIR=str(home / "data"),
            IPYTHONDIR=str(home / "ipython"),
            PYTHONUNBUFFERED="1",
        )
        cmd = [
            sys.executable,
            "-m",
            "jupyter",
            self.app,
            "--no-browser",
            "--ip=127.0.0.1",
            f"--port={self.port}",
            "--allow-root",
            f"--IdentityProvider.token={self.token}",
            f"--ServerApp.root_dir={self.root}",
        ]
        _quiet_news(home / "config")
        if self.app == "lab":
            cmd += [
                "--LabApp.news_url=None",
                "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
            ]
        log = open(self.log_path, "wb")  # noqa: SIM115 - closed in stop()
        self._log = log
        self.proc = subprocess.Popen(
            cmd,
            cwd=self.root,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"jupyter lab exited early; log: {self.log_path}")
            try:
                with urllib.request.urlopen(self.url("api/status"), timeout=2) as r:
                    if r.status == 200:
                        return
            except OSError:
                time.sleep(0.25)
        raise RuntimeError(f"jupyter lab did not answer within {timeout} s; log: {self.log_path}")

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)
                self.proc.wait(10)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                try:
                    os.killpg(self.proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        if getattr(self, "_log", None):
            self._log.close()


def _quiet_news(config_dir: Path) -> None:
    """Disable JupyterLab's "get notified about official Jupyter news?" prompt, which otherwise
    sits over the bottom right of every screenshot (merged into a page_config.json that a
    ``jupyter labextension disable --level=user`` may already have written)."""
    path = config_dir / "labconfig" / "page_config.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    config = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    disabled = config.setdefault("disabledExtensions", {})
    if isinstance(disabled, list):  # the older list form
        disabled = config["disabledExtensions"] = {name: True for name in disabled}
    disabled["@jupyterlab/apputils-extension:announcements"] = True
    path.write_text(json.dumps(config, indent=2), encoding="utf-8")


@contextmanager
def lab_server(home: Path, app: str = "lab") -> Iterator[LabServer]:
    """Start a lab (or Notebook 7: ``app="notebook"``) server rooted at ``home/root``; stop it
    (and its kernels) on exit."""
    root = home / "root"
    root.mkdir(parents=True, exist_ok=True)
    server = LabServer(root, app)
    server.start()
    try:
        yield server
    finally:
        server.stop()


@contextmanager
def chromium() -> Iterator[Any]:
    """A headless Debian Chromium driven by Playwright (no browser download)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def write_notebook(path: Path, cells: list[str | dict[str, Any]]) -> Path:
    """Write a notebook of code cells; a dict cell may carry ``source`` and stored ``outputs``."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3 (ipykernel)",
        "language": "python",
    }
    for cell in cells:
        if isinstance(cell, str):
            nb.cells.append(nbformat.v4.new_code_cell(cell))
        else:
            c = nbformat.v4.new_code_cell(cell["source"])
            c.outputs = [nbformat.from_dict(o) for o in cell.get("outputs", [])]
            c.execution_count = cell.get("execution_count")
            nb.cells.append(c)
    path.write_text(nbformat.writes(nb), encoding="utf-8")
    return path


def display_cell(payload_file: str, title: str = "graph") -> str:
    """Code of a cell that displays a payload file with our MIME type (raw, as Python will)."""
    return (
        "import json\n"
        "from IPython.display import display\n"
        f"with open({payload_file!r}, encoding='utf-8') as f:\n"
        "    payload = json.load(f)\n"
        f"display({{{MIME!r}: payload, 'text/plain': {title!r}}}, raw=True)\n"
    )


def write_payload(root: Path, name: str, payload: Any) -> str:
    """Write a payload next to the notebooks; returns its file name."""
    (root / name).write_text(json.dumps(payload), encoding="utf-8")
    return name


def open_notebook(page: Any, server: LabServer, name: str, timeout: float = 60_000) -> None:
    """Open a notebook in a fresh workspace of its own, and wait until its kernel is idle (pitfall
    4 of the recipe). A shared workspace would restore earlier tests' notebooks next to it."""
    page.goto(server.url(workspace_url(name)))
    page.get_by_text("Python 3 (ipykernel) | Idle").first.wait_for(timeout=timeout)


def workspace_url(name: str) -> str:
    """URL path opening `name` alone in a workspace named after it."""
    stem = "".join(c if c.isalnum() else "-" for c in name)
    return f"lab/workspaces/{stem}/tree/{name}?reset"


def run_all_cells(page: Any) -> None:
    """Run > Run All Cells, through the menu as a user would."""
    page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
    page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()


def wait_kernel_idle(page: Any, timeout: float = 60_000) -> None:
    """Wait until every queued cell has finished."""
    page.wait_for_function(
        "() => document.querySelectorAll('.jp-InputArea-prompt').length > 0 && "
        "![...document.querySelectorAll('.jp-InputArea-prompt')].some(p => p.textContent.includes('*'))",
        timeout=timeout,
    )


def artifacts_dir() -> Path:
    """Where screenshots and exports go (uploaded/kept by CI)."""
    d = Path(os.environ.get("JUPYTER_AUTOGRAD_ARTIFACTS", REPO / "test-artifacts" / "e2e"))
    d.mkdir(parents=True, exist_ok=True)
    return d


def copy_log(server: LabServer, name: str) -> None:
    """Keep the server log with the artifacts."""
    try:
        shutil.copy(server.log_path, artifacts_dir() / name)
    except OSError:
        pass


_AT_STEP = (
    "([el, k]) => el.querySelector('.jp-AutogradGraph-stepLabel').textContent.startsWith(k + '/')"
)


def replay_steps(page: Any, out: Any) -> Iterator[tuple[int, int]]:
    """Rewind a graph output's backward replay, then yield ``(step, total)`` at every step from 0
    to the last, each once the view shows it; the caller inspects the view between steps."""
    out.locator("button[data-action=step-first]").click()
    total = int(out.locator(".jp-AutogradGraph-stepLabel").inner_text().split("/")[1])
    assert total > 0, "the replay has no steps"
    for step in range(total + 1):
        if step:
            out.locator("button[data-action=step-next]").click()
        page.wait_for_function(_AT_STEP, arg=[out.element_handle(), step])
        yield step, total
