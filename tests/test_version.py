"""The version is written once, in ``jupyter_autograd/__init__.py``: the wheel takes it from there
(pyproject's ``dynamic = ["version"]``) and the lab extension's package.json repeats it."""

from __future__ import annotations

import json
import pathlib
import re

import jupyter_autograd

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_one_version_everywhere():
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert re.search(r'^dynamic = \["version"\]', pyproject, re.MULTILINE)
    assert not re.search(r"^version\s*=", pyproject, re.MULTILINE)
    assert 'path = "jupyter_autograd/__init__.py"' in pyproject
    package = json.loads((ROOT / "labextension" / "package.json").read_text(encoding="utf-8"))
    assert package["version"] == jupyter_autograd.__version__
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert jupyter_autograd.__version__ in changelog
