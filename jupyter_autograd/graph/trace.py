"""Tracing for graph labels: ``trace()`` records, while active, the source line of every op run
(the first frame outside this package, or the given cell's file), the modules whose ``forward``
was running, and the input tensors that need no gradient; ``_source_of``, ``_inputs_of`` and
``_modules_of`` read them back when the graph is built. :mod:`jupyter_autograd.viz` re-exports
``trace`` and ``is_tracing``.
"""

from __future__ import annotations

import linecache
import os
import sys
import sysconfig
import weakref
from typing import TYPE_CHECKING

from ..autograd.engine import FLAGS
from ..autograd.node import Node
from ..tensor import Tensor

if TYPE_CHECKING:
    from typing import Self  # 3.11+; annotations are strings here (PEP 563)

_PKG_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep  # jupyter_autograd/
# Frames in these files are library code, not the user's (for errors raised during backward).
_LIBRARY_DIRS = (_PKG_DIR,) + tuple(
    os.path.join(sysconfig.get_paths()[k], "")
    for k in ("stdlib", "platstdlib", "purelib", "platlib")
)
# Source lines of traced ops, per node (nodes compare by identity, so a weak dict is safe).
_NODE_INFO: weakref.WeakKeyDictionary[Node, tuple] = weakref.WeakKeyDictionary()
# Tensors compare elementwise, so they are keyed by id with a weakref guarding reuse.
_TENSOR_SRC: dict = {}


def _set_tensor_source(t: Tensor, src: dict) -> None:
    k = id(t)
    _TENSOR_SRC[k] = (weakref.ref(t, lambda _r, k=k: _TENSOR_SRC.pop(k, None)), src)


def _source_of(obj) -> dict | None:
    if isinstance(obj, Node):
        info = _NODE_INFO.get(obj)
        return info[0] if info else None
    hit = _TENSOR_SRC.get(id(obj))
    if hit is not None and hit[0]() is obj:
        return hit[1]
    return None


def _modules_of(node) -> tuple:
    """The modules whose ``forward`` was running when ``node`` was recorded, outermost first."""
    info = _NODE_INFO.get(node)
    if not info or not info[2]:
        return ()
    return tuple(m for m in (r() for r in info[2]) if m is not None)


def _inputs_of(node) -> tuple | None:
    info = _NODE_INFO.get(node)
    if not info or info[1] is None:
        return None
    return tuple(r() if r is not None else None for r in info[1])


def is_tracing() -> bool:
    """Whether a ``trace()`` is active (ops are being annotated with source lines)."""
    return bool(FLAGS.record_tracers)


class trace:
    """Record the source line of each op run inside the block, for graph labels.

    Args:
        filename: the code object's file name to attribute ops to (an IPython cell's name);
            by default the first frame outside this package.
        source: the text of that file, to read lines from (else ``linecache``).

    Example:
        >>> import jupyter_autograd as torch
        >>> from jupyter_autograd.viz import trace, graph
        >>> x = torch.ones(2, requires_grad=True)
        >>> with trace() as tr:
        ...     y = x * 2
        >>> len(tr.nodes)
        1
    """

    def __init__(self, filename: str | None = None, source: str | None = None) -> None:
        from ..nn.modules.module import Module

        self.filename = filename
        self.lines = source.splitlines() if source is not None else None
        self.nodes: list = []
        self._module_cls = Module

    def _on_record(self, node, inputs) -> None:
        f = sys._getframe(2)
        target = self.filename
        hit = None
        depth = 0
        modules = None
        while f is not None and depth < 60:
            code = f.f_code
            if code.co_name == "forward":  # inside an nn.Module: the node belongs to it
                owner = f.f_locals.get("self")
                if isinstance(owner, self._module_cls):
                    modules = (owner,) if modules is None else (owner, *modules)
            fn = code.co_filename
            if target is not None and fn == target:
                hit = f
                break
            if hit is None and not fn.startswith(_PKG_DIR):
                hit = f
            f = f.f_back
            depth += 1
        src = None
        if hit is not None:
            line = hit.f_lineno
            if (
                self.lines is not None
                and hit.f_code.co_filename == target
                and 0 < line <= len(self.lines)
            ):
                code = self.lines[line - 1]
            else:
                code = linecache.getline(hit.f_code.co_filename, line)
            src = {"line": line, "code": code.strip()}
        refs = None
        nf = tuple(zip(node._fns, node._nrs))  # one per input (next_functions omits NO_GRAD ones)
        for k, (fn_, _) in enumerate(nf):
            if fn_ is None and k < len(inputs) and isinstance(inputs[k], Tensor):
                if refs is None:
                    refs = [None] * len(nf)
                refs[k] = weakref.ref(inputs[k])
        mods = tuple(weakref.ref(m) for m in modules) if modules else None
        _NODE_INFO[node] = (src, tuple(refs) if refs is not None else None, mods)
        self.nodes.append(weakref.ref(node))

    def __enter__(self) -> Self:
        FLAGS.record_tracers.append(self._on_record)
        return self

    def __exit__(self, *exc) -> None:
        try:
            FLAGS.record_tracers.remove(self._on_record)
        except ValueError:
            pass


def stop_all_traces() -> None:
    """Remove every active trace (a safety net after an interrupted cell)."""
    del FLAGS.record_tracers[:]
