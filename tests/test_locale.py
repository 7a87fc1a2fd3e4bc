"""The graph view's Chinese UI (issue #15): every UI string of the extension has a zh_CN
translation in the catalogue JupyterLab's translator loads."""

from __future__ import annotations

import json
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[1]
CATALOGUE = ROOT / "jupyter_autograd/locale/zh_CN/LC_MESSAGES/jupyter_autograd.json"
# symbols, file formats and torch names read the same in every language
UNTRANSLATED = {"+", "AccumulateGrad", "PNG", "SVG", "«", "»", "⇄", "⇅", "−", "⌕", "▶", "◀"}


def msgids() -> set:
    ids = set()
    for f in (ROOT / "labextension/src").glob("*.ts"):
        s = f.read_text(encoding="utf-8")
        ids.update(m.group(1) for m in re.finditer(r"__\(\s*'((?:[^'\\]|\\.)*)'", s, re.DOTALL))
    panels = (ROOT / "labextension/src/panels.ts").read_text(encoding="utf-8")
    ids.update(re.findall(r"\['(?:jp-[^']*|)', '([^']*)'\]", panels))
    toolbar = (ROOT / "labextension/src/toolbar.ts").read_text(encoding="utf-8")
    for text, title in re.findall(r"\['[a-z-]+', '([^']*)', '([^']*)'\]", toolbar):
        ids.update((text, title))
    return ids


def test_every_ui_string_has_a_chinese_translation():
    data = json.loads(CATALOGUE.read_text(encoding="utf-8"))
    header = data.pop("")
    # the folder is zh_CN, but JupyterLab's translator looks messages up under its locale code
    # "zh-CN" (as the language pack's own header says): "zh_CN" here left the UI in English
    assert header["domain"] == "jupyter_autograd" and header["language"] == "zh-CN"
    ids = msgids()
    assert len(ids) > 50
    missing = sorted(i for i in ids - UNTRANSLATED if i not in data)
    assert not missing, missing
    for msgid, (text,) in data.items():
        assert re.search("[\u4e00-\u9fff]", text), msgid
        # placeholders survive translation
        assert sorted(re.findall(r"%\d", msgid)) == sorted(re.findall(r"%\d", text)), msgid


def test_the_catalogue_is_found_through_the_entry_point():
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert '[project.entry-points."jupyterlab.locale"]' in pyproject
    assert 'jupyter_autograd = "jupyter_autograd"' in pyproject
