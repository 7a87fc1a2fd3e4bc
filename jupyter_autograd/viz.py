"""See the graph: ``graph(*roots)`` display objects and ``trace()`` for names and source lines.

``graph`` returns a :class:`Graph` whose ``_repr_mimebundle_`` carries the vendor MIME type
(``application/vnd.jupyter-autograd.graph+json``, rendered by the JupyterLab extension), a
static ``image/svg+xml`` (classic Notebook, VS Code, nbconvert HTML) and ``text/plain`` (a
terminal). ``trace`` records, while active, the source line of every op and the input tensors
that need no gradient, so that the graph can be labelled with the user's code. The
``%%autograd`` magics are thin wrappers over ``run_traced`` and ``graph``. The tracing itself is
:mod:`jupyter_autograd.graph.trace`.

No Jupyter imports here: this module belongs to the core.
"""

from __future__ import annotations

import ast
import os
import sys
from collections.abc import Mapping

from . import graph as _g
from .autograd.node import AccumulateGrad, Node
from .graph.trace import (
    _LIBRARY_DIRS,
    _inputs_of,
    _modules_of,
    _set_tensor_source,
    _source_of,
    is_tracing,
    stop_all_traces,  # noqa: F401 - the magics call viz.stop_all_traces()
    trace,
)
from .tensor import Tensor

__all__ = ["BackwardRecord", "Graph", "OptionError", "graph", "is_tracing", "run_traced", "trace"]

BackwardRecord = _g.BackwardRecord
MIME_TYPE = _g.MIME_TYPE


class Graph:
    """A displayable autograd graph (``graph()`` makes one).

    Its ``_repr_mimebundle_`` carries our MIME type, ``image/svg+xml`` and ``text/plain``
    (``AutogradGraph(nodes=..., edges=..., truncated=...)``).

    Example:
        >>> import jupyter_autograd as torch
        >>> from jupyter_autograd.viz import graph
        >>> w = torch.ones(2, requires_grad=True)
        >>> g = graph((w * 2).sum())
        >>> g
        AutogradGraph(nodes=5, edges=4, truncated=False)
        >>> sorted(g._repr_mimebundle_())
        ['application/vnd.jupyter-autograd.graph+json', 'image/svg+xml', 'text/plain']
    """

    def __init__(
        self,
        payload: dict | None,
        *,
        refused: str | None = None,
        note: str | None = None,
        format: str = "auto",
        show_saved: bool = False,
        show_values: bool = False,
        rankdir: str = "TB",
    ) -> None:
        self.payload = payload
        self.refused = refused
        self.note = note
        self.format = format
        self.show_saved = show_saved
        self.show_values = show_values
        self.rankdir = rankdir
        self._svg = None

    def widget(self):
        """The interactive view as an ipywidget (anywidget): the same drawing as JupyterLab's
        extension, in any frontend that runs ipywidgets (VS Code, Colab, Notebook 7).

        Needs the ``anywidget`` package (``pip install jupyter-autograd[jupyter]``).

        Example:
            >>> import jupyter_autograd as torch
            >>> from jupyter_autograd.viz import graph
            >>> w = graph((torch.ones(2, requires_grad=True) * 2).sum()).widget()
            >>> len(w.payload["nodes"])
            5
        """
        self._check()
        from .jupyter.anywidget_graph import GraphWidget

        return GraphWidget(payload=self.payload)

    def to_json(self, indent: int | None = None) -> str:
        """The payload as JSON text (schema ``graph-v1``)."""
        self._check()
        return _g.to_json(self.payload, indent)

    def to_svg(self) -> str:
        """The static SVG drawing."""
        self._check()
        if self._svg is None:
            self._svg = _g.to_svg(
                self.payload,
                show_saved=self.show_saved,
                show_values=self.show_values,
                rankdir=self.rankdir,
            )
        return self._svg

    def to_dot(self) -> str:
        """Graphviz DOT source."""
        self._check()
        return _g.to_dot(self.payload)

    def to_text(self) -> str:
        """The summary line, an optional note and the plain-text tree."""
        if self.payload is None:
            return self.refused or ""
        parts = [_g.summary(self.payload)]
        if self.note:
            parts.append(_g.safe_text(self.note))
        parts.append(_g.to_text(self.payload))
        return "\n".join(parts)

    def save(self, path: str) -> None:
        """Write the graph to ``path``; the extension picks the format (.svg, .json, .dot, .txt).

        Example:
            >>> import os, tempfile, jupyter_autograd as torch
            >>> from jupyter_autograd.viz import graph
            >>> p = os.path.join(tempfile.mkdtemp(), "g.svg")
            >>> graph(torch.ones(1, requires_grad=True) * 2).save(p)
            >>> open(p).read().startswith("<svg")
            True
        """
        ext = os.path.splitext(str(path))[1].lower()
        writers = {
            ".svg": self.to_svg,
            ".json": lambda: self.to_json(2),
            ".dot": self.to_dot,
            ".gv": self.to_dot,
            ".txt": self.to_text,
        }
        if ext not in writers:
            raise ValueError(
                f"Graph.save: unknown extension {ext!r}; use .svg, .json, .dot or .txt"
            )
        with open(path, "w", encoding="utf-8") as f:
            f.write(writers[ext]())

    def _check(self) -> None:
        if self.payload is None:
            raise RuntimeError(self.refused)

    def __repr__(self) -> str:
        if self.payload is None:
            return self.refused or "AutogradGraph(refused)"
        return _g.summary(self.payload)

    def _repr_pretty_(self, p, cycle) -> None:
        p.text(self.to_text() if self.format == "text" else repr(self))

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict:
        if self.payload is None:
            return {"text/plain": self.refused}
        fmt = self.format
        text = repr(self) if fmt != "text" else self.to_text()
        if self.note and fmt != "text":
            text += "\n" + _g.safe_text(self.note)
        bundle = {"text/plain": text}
        if fmt in ("auto", "json"):
            bundle[MIME_TYPE] = self.payload
        if fmt == "json":
            bundle["application/json"] = self.payload
        if fmt in ("auto", "svg"):
            bundle["image/svg+xml"] = self.to_svg()
        return bundle


def _caller_names(depth: int = 2) -> _g.Names:
    f = sys._getframe(depth)
    return _g.Names.from_namespace({**f.f_globals, **f.f_locals}, first=f.f_locals)


def graph(
    *roots,
    names: Mapping[str, Tensor] | _g.Names | None = None,
    max_nodes: int | None = _g.MAX_NODES,
    direction: str = "forward",
    saved: bool = False,
    values: bool = False,
    backward: BackwardRecord | None = None,
    format: str = "auto",
    rankdir: str = "TB",
    title: str | None = None,
    note: str | None = None,
    **payload_options,
) -> Graph:
    """The graph behind ``roots`` (tensors or ``grad_fn`` nodes) as a displayable object.

    Args:
        *roots: tensors and/or ``grad_fn`` nodes.
        names: a ``graph.Names``, or a mapping name -> tensor or module; by default the
            caller's namespace: tensors by variable name, else by parameter or buffer path in
            any ``nn.Module`` there (``model.fc1.weight``).
        max_nodes: collapse larger graphs to this many nodes (``None``: no limit, but payloads
            over 10 MB are refused with a text explanation).
        direction: ``"forward"`` (arrows input -> output) or ``"backward"`` (gradient flow).
        saved: draw saved tensors (as small nodes beside their function in JupyterLab, as
            lines in the function boxes of the SVG).
        values: draw value previews in tensor boxes (the JSON always carries them).
        backward: a ``BackwardRecord`` to show the visiting order and gradients.
        format: ``"auto"`` (all MIME types), ``"svg"``, ``"text"`` or ``"json"``.
        rankdir: ``"TB"`` or ``"LR"`` for the SVG.
        title: stored in the payload.
        note: an extra line for ``text/plain``.
        **payload_options: passed to ``graph.build_graph`` (``replay_step``,
            ``replay_controls``).

    Returns:
        A :class:`Graph`.

    Example:
        >>> import jupyter_autograd as torch
        >>> from jupyter_autograd.viz import graph
        >>> x = torch.ones(3, requires_grad=True)
        >>> y = (x * x).sum()
        >>> graph(y).payload["nodes"][0]["label"]
        'y\\n()'
    """
    if format not in ("auto", "svg", "text", "json"):
        raise ValueError(f"graph(): format must be auto, svg, text or json, got {format!r}")
    if rankdir not in ("TB", "LR"):
        raise ValueError(f"graph(): rankdir must be 'TB' or 'LR', got {rankdir!r}")
    for r in roots:
        if not isinstance(r, (Tensor, Node)):
            raise TypeError(
                f"graph(): expected Tensor or grad_fn node roots, got {type(r).__name__}"
            )
    if names is None:
        names = _caller_names()
    try:
        payload = _g.build_graph(
            roots,
            names=names,
            source_of=_source_of,
            inputs_of=_inputs_of,
            modules_of=_modules_of,
            backward=backward,
            max_nodes=max_nodes,
            direction=direction,
            values=True,
            saved=True,
            show_saved=saved,
            title=title,
            **payload_options,
        )
    except _g.GraphTooLarge as e:
        return Graph(None, refused=str(e))
    return Graph(
        payload, note=note, format=format, show_saved=saved, show_values=values, rankdir=rankdir
    )


# ------------------------------------------------------------------ running a traced cell
class OptionError(ValueError):
    """An option of :func:`run_traced` that the namespace cannot satisfy (one line, naming the
    option and the fix); the magics show it as a ``UsageError``."""


def _bound_tensor(option: str, name: str, namespace: dict) -> Tensor:
    v = namespace.get(name)
    if isinstance(v, Tensor):
        return v
    why = "is not bound" if name not in namespace else f"is a {type(v).__name__}, not a tensor"
    raise OptionError(
        f"{option} {name}: {name!r} {why}; pass the name of a tensor the cell binds, "
        f"e.g. {option} loss"
    )


def _gradient(expr: str, backward: str, namespace: dict) -> Tensor:
    try:
        g = eval(expr, namespace)
    except Exception as e:  # noqa: BLE001 - any failure is reported on one line
        raise OptionError(
            f"--gradient: cannot evaluate {expr!r}: {type(e).__name__}: {e}"
        ) from None
    if not isinstance(g, Tensor):
        raise OptionError(
            f"--gradient: {expr!r} gives a {type(g).__name__}, not a tensor; e.g. "
            f'--gradient "torch.ones_like({backward})"'
        )
    return g


def _raised_in_user_code(e: BaseException) -> bool:
    """Whether ``e`` passed through the user's code (a custom backward), not only ours."""
    tb = e.__traceback__
    while tb is not None:
        if not tb.tb_frame.f_code.co_filename.startswith(_LIBRARY_DIRS):
            return True
        tb = tb.tb_next
    return False


def _bound_names(tree: ast.AST) -> list:
    """Names a cell binds at its top level (assignments, for/with targets, walrus, imports
    excluded), in source order, with the line of their last binding."""
    found: dict = {}

    def targets(node, line):
        if isinstance(node, ast.Name):
            found.pop(node.id, None)
            found[node.id] = line
        elif isinstance(node, (ast.Tuple, ast.List)):
            for e in node.elts:
                targets(e, line)
        elif isinstance(node, ast.Starred):
            targets(node.value, line)

    stack = list(reversed(getattr(tree, "body", [])))
    while stack:
        st = stack.pop()
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(st, ast.Assign):
            for t in st.targets:
                targets(t, st.lineno)
        elif isinstance(st, (ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor)):
            targets(st.target, st.lineno)
        elif isinstance(st, (ast.With, ast.AsyncWith)):
            for it in st.items:
                if it.optional_vars is not None:
                    targets(it.optional_vars, st.lineno)
        for child in reversed(list(ast.iter_child_nodes(st))):
            if isinstance(child, ast.stmt):
                stack.append(child)
            elif isinstance(child, ast.NamedExpr):
                targets(child.target, st.lineno)
    return list(found.items())


def _pick_roots(named: dict, inputs_of) -> list:
    """Named tensors that no other named tensor's graph consumes."""
    consumed = set()
    seen = set()
    stack = []
    for t in named.values():
        fn = t.grad_fn
        if fn is not None and id(fn) not in seen:
            seen.add(id(fn))
            stack.append(fn)
    while stack:
        fn = stack.pop()
        if isinstance(fn, AccumulateGrad):
            consumed.add(("leaf", id(fn.variable)))
            continue
        traced = inputs_of(fn)
        if traced:
            for t in traced:
                if t is not None:
                    consumed.add(("leaf", id(t)))
        for nxt, nr in fn.next_functions:
            if nxt is None:
                continue
            consumed.add(("edge", id(nxt), nr))
            if id(nxt) not in seen:
                seen.add(id(nxt))
                stack.append(nxt)
    roots = []
    for t in named.values():
        key = ("edge", id(t.grad_fn), t._output_nr) if t.grad_fn is not None else ("leaf", id(t))
        if key not in consumed and all(t is not r for r in roots):
            roots.append(t)
    return roots


def run_traced(
    source: str,
    namespace: dict,
    *,
    filename: str = "<autograd-cell>",
    code=None,
    backward: str | None = None,
    gradient: str | None = None,
    retain_graph: bool = False,
    no_grad: bool = False,
    show: list | None = None,
    **graph_options,
) -> Graph:
    """Run ``source`` in ``namespace`` while tracing, then return the graph it built.

    The graph's roots are the tensors the code bound that no other bound tensor consumes (or
    ``show``), labelled with their variable names and the line that made each node.
    Exceptions from the code propagate unchanged; the trace is removed in every case.

    Args:
        source: Python code.
        namespace: globals for the code (an IPython ``user_ns``).
        filename: the name ``code`` was compiled under (tracebacks and source lines).
        code: an already compiled code object for ``source`` (else it is compiled here).
        backward: a variable name to call ``.backward()`` on after the code.
        gradient: an expression evaluated in ``namespace``, passed as ``gradient=``.
        retain_graph: passed to ``backward``.
        no_grad: run the code under ``no_grad()``.
        show: variable names to draw (default: every tensor the code bound).
        **graph_options: passed to :func:`graph`.

    Returns:
        A :class:`Graph`.

    Raises:
        OptionError: ``backward`` or a ``show`` name is not a tensor in the namespace,
            ``gradient`` cannot be evaluated to a tensor, or backward rejects its arguments.

    Example:
        >>> import jupyter_autograd as torch
        >>> from jupyter_autograd.viz import run_traced
        >>> ns = {"torch": torch}
        >>> g = run_traced("w = torch.ones(2, requires_grad=True)\\nl = (w * 3).sum()", ns,
        ...                backward="l")
        >>> ns["w"].grad
        tensor([3., 3.])
        >>> [n["source"]["line"] for n in g.payload["nodes"] if n["kind"] == "function"]
        [2, 2]
    """
    from .grad_mode import no_grad as _no_grad

    tree = ast.parse(source, filename)
    if code is None:
        code = compile(tree, filename, "exec")
    bound = _bound_names(tree)
    lines = source.splitlines()
    with trace(filename, source):
        if no_grad:
            with _no_grad():
                exec(code, namespace)  # noqa: S102 - running the user's cell is the point
        else:
            exec(code, namespace)  # noqa: S102
    named = {}
    for name, line in bound:
        v = namespace.get(name)
        if isinstance(v, Tensor):
            named[name] = v
            if _source_of(v) is None or v.grad_fn is None:
                code_line = lines[line - 1].strip() if 0 < line <= len(lines) else ""
                _set_tensor_source(v, {"line": line, "code": code_line})
    rec = None
    if backward is not None:
        t = _bound_tensor("--backward", backward, namespace)
        grad = _gradient(gradient, backward, namespace) if gradient else None
        try:
            # --saved draws what backward used, though backward frees it
            with BackwardRecord(keep_saved=bool(graph_options.get("saved"))) as rec:
                t.backward(grad, retain_graph=retain_graph)
        except (RuntimeError, TypeError, ValueError) as e:
            if _raised_in_user_code(e):
                raise
            hint = ""
            if grad is None and "scalar" in str(e):
                hint = f'; pass --gradient, e.g. --gradient "torch.ones_like({backward})"'
            raise OptionError(f"--backward {backward}: {type(e).__name__}: {e}{hint}") from None
    if show:
        roots = [_bound_tensor("--show", n, namespace) for n in show]
    else:
        roots = _pick_roots(named, _inputs_of)
    # every name in the namespace labels the graph, the cell's own (and --show's) first
    names = _g.Names.from_namespace(namespace, first=[*(show or ()), *named])
    note = None
    if no_grad:
        recorded = sum(1 for t in named.values() if t.grad_fn is not None)
        note = (
            f"no_grad: nothing was recorded ({len(named)} tensors bound, none has a grad_fn)"
            if not recorded
            else f"no_grad: {recorded} tensors still have a grad_fn"
        )
    elif not named:
        note = "the cell bound no tensors"
    return graph(*roots, names=names, backward=rec, note=note, **graph_options)
