"""Cell sources of the tutorial notebooks, one module per notebook."""

from __future__ import annotations

import importlib
from dataclasses import dataclass


@dataclass(frozen=True)
class Cell:
    kind: str
    en: str = ""
    zh: str = ""
    source: str = ""
    requires: tuple = ()
    tags: tuple = ()


def md(en: str, zh: str, requires=()) -> Cell:
    """A markdown cell: English prose and its Chinese translation."""
    return Cell("markdown", en=en.strip("\n"), zh=zh.strip("\n"), requires=tuple(requires))


def code(source: str, requires=(), tags=()) -> Cell:
    """A code cell shared by both languages (same code, same outputs)."""
    return Cell("code", source=source.strip("\n"), requires=tuple(requires), tags=tuple(tags))


_MODULES = [
    "nb01_autograd_basics",
    "nb02_graphs_and_grad_fn",
    "nb03_grad_modes",
    "nb04_jacobian_products",
    "nb05_higher_order_and_custom_functions",
    "nb06_training_loop",
    "nb07_gpu_with_cupy",
]

NOTEBOOKS = []
for _name in _MODULES:
    try:
        NOTEBOOKS.append(importlib.import_module(f"{__name__}.{_name}"))
    except ModuleNotFoundError as exc:  # a notebook not written yet
        if exc.name != f"{__name__}.{_name}":
            raise
