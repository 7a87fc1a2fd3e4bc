"""IPython magics: ``%%autograd``, ``%grad_fn``, ``%autograd_graph``, ``%grad_mode``.

Thin wrappers over ``jupyter_autograd.viz`` (``run_traced``, ``graph``) and
``jupyter_autograd.graph.grad_fn_tree``; this module only parses arguments, displays results
and registers/unregisters itself with the shell.
"""

from __future__ import annotations

import logging
import shlex

from IPython.core.error import UsageError
from IPython.core.magic import Magics, cell_magic, line_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring

from .. import graph as _graph
from .. import viz
from ..autograd.node import Node
from ..grad_mode import is_grad_enabled, set_grad_enabled
from ..tensor import Tensor

log = logging.getLogger("jupyter_autograd")
_STATE_ATTR = "_jupyter_autograd_extension"


def _parse(func, line: str):
    """parse_argstring, with every failure (bad quotes, --help) as a short UsageError."""
    __tracebackhide__ = True
    if any(tok in ("--help", "-h") for tok in line.split()):
        raise UsageError(func.__doc__ or "")
    try:
        return parse_argstring(func, line)
    except UsageError:
        raise
    except ValueError as e:  # shlex: "No closing quotation"
        raise UsageError(f"{func.__name__}: cannot parse the options ({e}); check the quotes") from None
    except SystemExit:  # argparse --help prints and exits
        raise UsageError(func.__doc__ or "") from None


def _positive(name: str, value):
    if value is None:
        return None
    try:
        n = int(value)
    except (TypeError, ValueError):
        raise UsageError(f"{name} expects a positive integer, got {value!r}") from None
    if n < 1:
        raise UsageError(f"{name} expects a positive integer, got {value!r}")
    return n


def _graph_options(args) -> dict:
    return {
        "saved": bool(args.saved),
        "values": bool(args.values),
        "max_nodes": _positive("--max-nodes", args.max_nodes),
        "direction": args.direction,
        "format": args.format,
    }


def _display(obj) -> None:
    from IPython.display import display  # noqa: PLC0415

    display(obj)


_COMMON = [
    argument("--saved", action="store_true", help="show each function's saved tensors"),
    argument("--values", action="store_true", help="print value previews in tensor boxes"),
    argument("--max-nodes", metavar="N", default="2000",
             help="collapse larger graphs to N nodes (default 2000)"),
    argument("--direction", choices=("forward", "backward"), default="forward",
             help="forward: arrows from inputs to outputs; backward: gradient flow"),
    argument("--format", choices=("auto", "svg", "text", "json"), default="auto",
             help="auto: interactive + SVG + text; or only svg, text or json"),
]


def _with_common(f):
    for dec in reversed(_COMMON):
        f = dec(f)
    return f


@magics_class
class AutogradMagics(Magics):
    """The magics ``%load_ext jupyter_autograd`` registers."""

    @magic_arguments()
    @argument("--backward", metavar="NAME", help="call NAME.backward() after the cell and show "
              "the gradients and the order backward visited the nodes")
    @argument("--gradient", metavar="EXPR", help="gradient= passed to backward (an expression)")
    @argument("--retain-graph", action="store_true", help="backward(retain_graph=True)")
    @argument("--no-grad", action="store_true", help="run the cell under torch.no_grad()")
    @argument("--show", metavar="NAMES", help="comma-separated variable names to draw")
    @_with_common
    @cell_magic
    def autograd(self, line: str, cell: str):
        """Run the cell, then show the graph of the tensors it bound.

        Nodes are labelled with variable names and the line that made them.
        """
        __tracebackhide__ = True
        args = _parse(self.autograd, line)
        options = _graph_options(args)
        show = [s for s in (args.show or "").replace(",", " ").split() if s] or None
        if args.gradient and not args.backward:
            raise UsageError("--gradient needs --backward NAME")
        shell = self.shell
        filename = shell.compile.cache(cell)
        try:
            code = shell.compile(cell, filename, "exec")
        except SyntaxError:
            shell.showsyntaxerror(filename)
            return None
        grad_mode = is_grad_enabled()
        try:
            g = viz.run_traced(
                cell, shell.user_ns, filename=filename, code=code, backward=args.backward,
                gradient=args.gradient, retain_graph=args.retain_graph, no_grad=args.no_grad,
                show=show, **options,
            )
        except BaseException as e:
            set_grad_enabled(grad_mode)
            viz.stop_all_traces()
            # start the traceback at the user's cell, so magic frames are not shown
            tb = e.__traceback__
            while tb is not None and tb.tb_frame.f_code.co_filename != filename:
                tb = tb.tb_next
            if tb is not None:
                raise e.with_traceback(tb) from e.__cause__ if e.__cause__ else None
            raise
        _display(g)
        return None

    @magic_arguments()
    @argument("expr", nargs="+", help="an expression giving a tensor or a grad_fn")
    @line_magic
    def grad_fn(self, line: str):
        """Print the grad_fn chain of EXPR as a tree (torch's node names)."""
        args = _parse(self.grad_fn, line)
        value = self._eval(" ".join(args.expr))
        fn = value.grad_fn if isinstance(value, Tensor) else value
        if fn is not None and not isinstance(fn, Node):
            raise UsageError(f"%grad_fn: expected a tensor or a grad_fn node, got {type(value).__name__}")
        if fn is None:
            print("None (a leaf tensor, or made under no_grad: nothing was recorded)")
            return
        print(_graph.grad_fn_tree(fn, self._names()))

    @magic_arguments()
    @argument("expr", nargs="+", help="an expression giving a tensor, a grad_fn, or a tuple of them")
    @_with_common
    @line_magic
    def autograd_graph(self, line: str):
        """Show the graph of an existing tensor (or grad_fn)."""
        args = _parse(self.autograd_graph, line)
        options = _graph_options(args)
        value = self._eval(" ".join(args.expr))
        roots = list(value) if isinstance(value, (tuple, list)) else [value]
        for r in roots:
            if not isinstance(r, (Tensor, Node)):
                raise UsageError(f"%autograd_graph: expected tensors or grad_fn nodes, got {type(r).__name__}")
        _display(viz.graph(*roots, names=self._names(), **options))

    @line_magic
    def grad_mode(self, line: str):
        """%grad_mode [on|off]: switch grad mode for the following cells; print the state."""
        word = line.strip().lower()
        if word in ("on", "true", "1", "enable"):
            set_grad_enabled(True)
        elif word in ("off", "false", "0", "disable"):
            set_grad_enabled(False)
        elif word:
            raise UsageError(f"%grad_mode: expected 'on' or 'off', got {shlex.quote(line.strip())}")
        print(f"grad mode: {'on' if is_grad_enabled() else 'off'}")

    def _eval(self, expr: str):
        try:
            return eval(expr, self.shell.user_ns)  # noqa: S307 - the user's expression
        except Exception as e:  # noqa: BLE001
            raise UsageError(f"cannot evaluate {expr!r}: {type(e).__name__}: {e}") from None

    def _names(self) -> dict:
        return {k: v for k, v in self.shell.user_ns.items()
                if isinstance(v, Tensor) and not k.startswith("_")}


# ------------------------------------------------------------------ callbacks and formatter
_logged = False


def _cleanup() -> None:
    """A trace left active by an interrupted cell must not annotate the next cells."""
    viz.stop_all_traces()


def _safe(fn):
    def callback(*args):
        global _logged
        try:
            fn()
        except Exception:  # noqa: BLE001 - never break the user's cell from a callback
            if not _logged:
                _logged = True
                log.exception("jupyter_autograd: internal error in a cell callback (logged once)")

    return callback


def _pre_run_cell(info=None) -> None:
    _safe(lambda: _cleanup())()


def _post_run_cell(result=None) -> None:
    _safe(lambda: _cleanup())()


def _grad_fn_bundle(obj, include=None, exclude=None):
    """Display formatter for a bare ``grad_fn`` as a cell's last line."""
    try:
        ip = _get_ipython()
        names = {k: v for k, v in ip.user_ns.items() if isinstance(v, Tensor) and not k.startswith("_")} if ip else {}
        b = viz.graph(obj, names=names)._repr_mimebundle_()
        b["text/plain"] = repr(obj) + "\n" + b["text/plain"]
        return b
    except Exception:  # noqa: BLE001 - fall back to the plain repr
        return None


def _get_ipython():
    from IPython import get_ipython  # noqa: PLC0415

    return get_ipython()


def load_ipython_extension(ipython) -> str | None:
    """Register the magics, cell callbacks and the grad_fn display formatter (idempotent)."""
    if getattr(ipython, _STATE_ATTR, None) is not None:
        return "already loaded"
    magics = AutogradMagics(ipython)
    ipython.register_magics(magics)
    ipython.events.register("pre_run_cell", _pre_run_cell)
    ipython.events.register("post_run_cell", _post_run_cell)
    fmt = ipython.display_formatter.mimebundle_formatter
    previous = fmt.type_printers.get(Node)
    fmt.for_type(Node, _grad_fn_bundle)
    setattr(ipython, _STATE_ATTR, {"magics": magics, "previous": previous})
    return None


def unload_ipython_extension(ipython) -> str | None:
    """Remove everything ``load_ipython_extension`` added."""
    state = getattr(ipython, _STATE_ATTR, None)
    if state is None:
        return "not loaded"
    table = ipython.magics_manager.magics
    for kind, names in (("cell", ("autograd",)), ("line", ("grad_fn", "autograd_graph", "grad_mode"))):
        for name in names:
            table[kind].pop(name, None)
    registry = ipython.magics_manager.registry
    registry.pop(type(state["magics"]).__name__, None)
    for ev, cb in (("pre_run_cell", _pre_run_cell), ("post_run_cell", _post_run_cell)):
        try:
            ipython.events.unregister(ev, cb)
        except ValueError:
            pass
    fmt = ipython.display_formatter.mimebundle_formatter
    fmt.type_printers.pop(Node, None)
    if state["previous"] is not None:
        fmt.for_type(Node, state["previous"])
    _cleanup()
    delattr(ipython, _STATE_ATTR)
    return None
