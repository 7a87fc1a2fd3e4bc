"""The explorer widgets clicked in a real JupyterLab and headless Chromium (issue 7).

Each test clicks a widget as a user would, checks what changes on screen, then reads the
kernel's state back by running a new cell and reading its printed output. Screenshots land
in test-artifacts/e2e/ (``widget-*.png``).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from e2e_lab import LabServer, artifacts_dir, open_notebook, run_all_cells, write_notebook

pytestmark = pytest.mark.e2e

IMPORTS = (
    "import numpy as np\n"
    "import jupyter_autograd as torch\n"
    "from jupyter_autograd.widgets import AccumulationDemo, GradModeToggle, JacobianExplorer\n"
)
W = ".jp-AutogradWidget-"
OUT = ".jp-OutputArea-output"


def shot(target: Any, name: str) -> Path:
    path = artifacts_dir() / f"widget-{name}.png"
    target.screenshot(path=str(path))
    return path


def wait_text(el: Any, present: str, absent: str = "\0", timeout: float = 30_000) -> str:
    """Wait until the element's text holds `present` and not `absent`; return the text."""
    el.page.wait_for_function(
        "([el, p, a]) => el.textContent.includes(p) && !el.textContent.includes(a)",
        arg=[el.element_handle(), present, absent],
        timeout=timeout,
    )
    return el.inner_text()


def kernel(page: Any, code: str, tag: str, timeout: float = 60_000) -> str:
    """Run one line in a new cell below the last one; return the text it printed after
    ``tag``. The tag is assembled at run time so the cell's source never matches it."""
    page.locator(".jp-Notebook .jp-Cell .jp-InputPrompt").last.click()
    page.keyboard.press("Escape")
    page.keyboard.press("b")
    page.keyboard.press("Enter")
    # insert_text, not type(): no key events, so no bracket auto-closing or auto-indent.
    page.keyboard.insert_text(f"{code}; print({tag[:1]!r} + {tag[1:]!r}, flush=True)")
    page.keyboard.press("Shift+Enter")
    out = page.locator(OUT, has_text=tag).last
    out.wait_for(timeout=timeout)
    text = out.inner_text()
    before, _, _ = text.partition(tag)
    return before.strip()


def open_and_run(page: Any, lab: LabServer, name: str, cells: list[str], root: str) -> Any:
    write_notebook(lab.root / name, cells)
    open_notebook(page, lab, name)
    run_all_cells(page)
    box = page.locator(f"{W}{root}")
    box.wait_for(timeout=90_000)
    return box


def test_accumulation_demo(page: Any, lab: LabServer) -> None:
    """backward() twice adds up (4 -> 8 in the corner, 48 -> 96 in total), zero_() resets."""
    box = open_and_run(
        page,
        lab,
        "w_accum.ipynb",
        [IMPORTS + "demo = AccumulationDemo()\ndemo"],
        "AccumulationDemo",
    )
    out, count = box.locator(f"{W}out"), box.locator(f"{W}count")
    button = box.locator(f"{W}backward_button")
    assert button.inner_text().strip() == "backward()"
    assert "presses: 0" in count.inner_text()
    shot(box, "accumulation-0")

    button.click()
    page.wait_for_function(
        "el => el.textContent.includes('presses: 1')", arg=count.element_handle(), timeout=30_000
    )
    out.locator("text=tensor([[4., 2., 2., 2., 2.]").wait_for(timeout=30_000)
    assert kernel(page, "print(demo.state.x.grad.sum().item())", "KC1") == "48.0"
    shot(box, "accumulation-1")

    button.click()
    out.locator("text=tensor([[8., 4.,").wait_for(timeout=30_000)
    assert "presses: 2" in count.inner_text()
    assert kernel(page, "print(demo.state.x.grad.sum().item())", "KC2") == "96.0"
    shot(box, "accumulation-2")

    box.locator(f"{W}zero_button").click()
    out.locator("text=tensor([[0., 0., 0., 0., 0.]").wait_for(timeout=30_000)
    assert not re.search(r"[1-9]\.", out.inner_text().split("tensor(", 1)[-1].split(")")[0])
    assert kernel(page, "print(demo.state.x.grad.sum().item())", "KC3") == "0.0"
    shot(box, "accumulation-zero")
    assert page.errors == []


def test_grad_mode_toggle(page: Any, lab: LabServer) -> None:
    """no_grad cuts grad_fn, inference_mode marks tensors; the kernel's global mode is untouched."""
    box = open_and_run(
        page, lab, "w_mode.ipynb", [IMPORTS + "tog = GradModeToggle()\ntog"], "GradModeToggle"
    )
    y_out, d_out = box.locator(f"{W}y_out"), box.locator(f"{W}detach_out")
    y_out.locator("text=grad_fn=SumBackward0").wait_for(timeout=30_000)
    shot(box, "gradmode-enabled")

    box.locator(f"{W}mode button", has_text="torch.no_grad()").click()
    # The x line reads grad_fn=None in every mode: wait for y's line to lose SumBackward0.
    text = wait_text(y_out, "with torch.no_grad():", absent="SumBackward0")
    assert re.search(r"^y .*grad_fn=None", text, re.MULTILINE), text
    assert "d.grad_fn=None" in d_out.inner_text()
    got = kernel(page, "print(tog.probe['y']['grad_fn'], torch.is_grad_enabled())", "KM1")
    assert got == "None True"
    shot(box, "gradmode-no_grad")

    box.locator(f"{W}mode button", has_text="torch.inference_mode()").click()
    text = wait_text(y_out, "with torch.inference_mode():")
    assert re.search(r"^y .*is_inference=True", text, re.MULTILINE), text
    wait_text(d_out, "d.is_inference()=True")
    got = kernel(
        page,
        "print(tog.mode.value, tog.probe['y']['is_inference'], torch.is_grad_enabled())",
        "KM2",
    )
    assert got == "inference_mode True True"
    shot(box, "gradmode-inference_mode")

    box.locator(f"{W}mode button", has_text="grad enabled").click()
    wait_text(y_out, "grad_fn=SumBackward0")
    assert kernel(page, "print(tog.probe['y']['grad_fn'])", "KM3") == "SumBackward0"
    assert page.errors == []


JACOBIAN = (
    IMPORTS + "f = lambda x: torch.stack([x[0] * x[1], x[0].sin(), x[1] ** 2])\n"
    "ex = JacobianExplorer(f, [1., 2.], v=[1., 0., 1.], u=[1., 0.])\n"
    "ex"
)


def test_jacobian_explorer(page: Any, lab: LabServer) -> None:
    """Arrow keys on the v0 slider: one new figure per release, vᵀJ recomputed in the kernel."""
    box = open_and_run(page, lab, "w_jac.ipynb", [JACOBIAN], "JacobianExplorer")
    img = box.locator(f"{W}plot_out img")
    img.wait_for(timeout=60_000)
    assert img.evaluate("i => i.complete && i.naturalWidth > 200")
    shot(box, "jacobian-0")
    check = (
        "ex.refresh(); r = ex.report; "
        "print(ex.throttle.draws, r.v.tolist(), np.allclose(r.vjp, r.v @ r.J), "
        "r.vjp.round(4).tolist())"
    )
    draws0, v0, ok0, vjp0 = _parse(kernel(page, check, "KJ0"))
    assert v0 == [1.0, 0.0, 1.0] and ok0 and vjp0 == [2.0, 5.0]

    handle = box.locator(f"{W}v_sliders-0 .noUi-handle")
    src = img.get_attribute("src")
    for step in (1, 2):
        handle.focus()
        page.keyboard.press("ArrowRight")  # keydown + keyup: one change, sent on release
        page.wait_for_function(
            "([el, old]) => { const i = el.querySelector('img'); return i && i.src !== old; }",
            arg=[box.locator(f"{W}plot_out").element_handle(), src],
            timeout=30_000,
        )
        src = img.get_attribute("src")
        draws, v, ok, vjp = _parse(kernel(page, check, f"KJ{step}"))
        assert draws == draws0 + step, (draws, draws0, step)
        assert v[0] > v0[0] and v[1:] == [0.0, 1.0] and ok
        assert vjp != vjp0
        v0, vjp0 = v, vjp
    readout = box.locator(f"{W}v_sliders-0 .widget-readout")
    assert readout.inner_text().strip() == f"{v0[0]:.2f}" == "1.10"
    shot(box, "jacobian-after-keys")
    assert page.errors == []


def _parse(text: str) -> tuple[int, list[float], bool, list[float]]:
    m = re.fullmatch(r"(\d+) (\[.*?\]) (True|False) (\[.*?\])", text)
    assert m, text
    return int(m[1]), eval(m[2]), m[3] == "True", eval(m[4])
