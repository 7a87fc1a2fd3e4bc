"""torch as the test oracle: required in CI, optional on a user's machine.

CI (``CI`` set in the environment, as ``.ci/run`` does) must compare with torch, so a missing
torch fails there; elsewhere the comparison tests skip.
"""

from __future__ import annotations

import importlib
import os

import pytest


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() not in ("", "0", "false")


def require(name: str = "torch"):
    """Import ``name`` (torch, or a module of it); skip without it, except in CI where it fails."""
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        if in_ci():
            pytest.fail(f"{name} is required in CI: {exc}", pytrace=False)
        pytest.skip(f"{name} not installed: {exc}")
