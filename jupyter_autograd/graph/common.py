"""Constants and small helpers shared by the payload, SVG, DOT and text exports."""

from __future__ import annotations

import re

SCHEMA_VERSION = 2
MIME_TYPE = "application/vnd.jupyter-autograd.graph+json"
LABEL_CAP = 2000
PREVIEW_CAP = 2000  # previews are cut here by default so 2,000 nodes fit in 1 MB
ARROW = "\u2192"
_SURROGATE = re.compile("[\ud800-\udfff]")


def clean(s, cap: int = LABEL_CAP) -> str:
    """A JSON/UTF-8-safe string: lone surrogates replaced, length capped."""
    if not isinstance(s, str):
        s = str(s)
    if len(s) > cap:
        s = s[: cap - 1] + "\u2026"
    if not s.isascii():
        s = _SURROGATE.sub("\ufffd", s)
    return s


def shape_label(shape) -> str:
    """A shape as torch prints a tuple: ``(5, 3)``, ``(3,)``, ``()``."""
    return "(" + ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"


def dtype_name(t) -> str:
    return repr(t.dtype).replace("torch.", "")


def preview(t, cap: int = PREVIEW_CAP) -> str | None:
    if t is None:
        return None
    try:
        from .._printing import tensor_repr

        return clean(tensor_repr(t), cap)
    except Exception:  # noqa: BLE001 - a preview must never break the graph
        return "<unprintable>"


def value_preview(v, cap: int = PREVIEW_CAP) -> str:
    if hasattr(v, "_data") and hasattr(v, "grad_fn"):
        return preview(v, cap)
    try:
        return clean(repr(v), cap)
    except Exception:  # noqa: BLE001
        return "<unprintable>"


def is_tensor(x) -> bool:
    return hasattr(x, "_data") and hasattr(x, "_requires_grad")


def op_name(kind: str, obj) -> str:
    if kind == "tensor":
        return "Tensor"
    if kind == "accumulate":
        return "AccumulateGrad"
    return obj.name()


def group_members(names: list) -> list:
    """At most 20 member names: the first 10, an ellipsis, the last 9."""
    if len(names) <= 20:
        return names
    return names[:10] + ["\u2026"] + names[-9:]
