"""Every local file the README links or shows (screenshots, notebooks, sources) exists."""

from __future__ import annotations

import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_readme_local_links_exist():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    targets = {t.split("#")[0] for t in re.findall(r"\]\(([^)\s]+)\)", text)}
    local = sorted(t for t in targets if t and "://" not in t and not t.startswith("mailto:"))
    assert any(t.startswith("docs/screenshots/") for t in local), local
    missing = [t for t in local if not (ROOT / t).exists()]
    assert not missing, missing
