"""IPython magics: ``%%autograd``, ``%grad_fn``, ``%autograd_graph``, ``%grad_mode``.

Thin wrappers over ``jupyter_autograd.viz`` (``run_traced``, ``graph``) and
``jupyter_autograd.graph.grad_fn_tree``; this module only parses arguments, displays results
and registers/unregisters itself with the shell.
"""

from __future__ import annotations

import functools
import logging
import sys

from IPython.core.magic import Magics, cell_magic, line_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments

from ..autograd.node import Node
from ..grad_mode import is_grad_enabled, set_grad_enabled
from ..tensor import Tensor
from . import options

log = logging.getLogger("jupyter_autograd")


# The graph builders load on a magic's first use, not at %load_ext (issue #17: under 0.2 s).
def _viz():
    from .. import viz

    return viz


def _graph():
    from .. import graph

    return graph


_STATE_ATTR = "_jupyter_autograd_extension"


def _graph_options(args) -> dict:
    return {
        "saved": bool(args.saved),
        "values": bool(args.values),
        "max_nodes": options.positive_int("--max-nodes", args.max_nodes),
        "direction": args.direction,
        "format": args.format,
    }


def _display(obj) -> None:
    from IPython.display import display

    display(obj)


_COMMON = [
    argument("--saved", action="store_true", help="show each function's saved tensors"),
    argument("--values", action="store_true", help="print value previews in tensor boxes"),
    argument(
        "--max-nodes",
        metavar="N",
        default="2000",
        help="collapse larger graphs to N nodes (default 2000)",
    ),
    argument(
        "--direction",
        choices=("forward", "backward"),
        default="forward",
        help="forward: arrows from inputs to outputs; backward: gradient flow",
    ),
    argument(
        "--format",
        choices=("auto", "svg", "text", "json"),
        default="auto",
        help="auto: interactive + SVG + text; or only svg, text or json",
    ),
]


def _with_common(f):
    for dec in reversed(_COMMON):
        f = dec(f)
    return f


def _keeps_state(f):
    """On any error the magic raises, grad mode is as before and no trace is left active."""

    @functools.wraps(f)
    def magic(self, *args):
        __tracebackhide__ = True
        grad_mode = is_grad_enabled()
        try:
            return f(self, *args)
        except BaseException:
            set_grad_enabled(grad_mode)
            _viz().stop_all_traces()
            raise

    return magic


@magics_class
class AutogradMagics(Magics):
    """The magics ``%load_ext jupyter_autograd`` registers."""

    @magic_arguments()
    @argument(
        "--backward",
        metavar="NAME",
        help="call NAME.backward() after the cell and show "
        "the gradients and the order backward visited the nodes",
    )
    @argument(
        "--gradient",
        metavar="EXPR",
        help="gradient= passed to backward: an expression "
        'evaluated after the cell; quote it if it has spaces: --gradient "torch.ones(2) * 3"',
    )
    @argument("--retain-graph", action="store_true", help="backward(retain_graph=True)")
    @argument("--no-grad", action="store_true", help="run the cell under torch.no_grad()")
    @argument("--show", metavar="NAMES", help="comma-separated variable names to draw")
    @argument(
        "--widget",
        action="store_true",
        help="show the interactive view as an ipywidget "
        "(anywidget), for frontends without the JupyterLab extension: VS Code, Colab",
    )
    @_with_common
    @cell_magic
    @_keeps_state
    def autograd(self, line: str, cell: str):
        """Run the cell, then show the graph of the tensors it bound.

        Nodes are labelled with variable names and the line that made them.
        """
        __tracebackhide__ = True
        args = options.parse(self.autograd, "%%autograd", line)
        if args is None:
            return
        graph_options = _graph_options(args)
        backward = options.names("--backward", args.backward)
        if len(backward) > 1:
            raise options.usage_error(
                f"--backward takes one name, got {options.shown(args.backward)}; "
                "e.g. --backward loss"
            )
        show = options.names("--show", args.show) or None
        if args.gradient and not backward:
            raise options.usage_error(
                '--gradient needs --backward NAME; e.g. --backward y --gradient "torch.ones(2)"'
            )
        shell = self.shell
        # named after the running cell, so tracebacks say "Cell In[7]" as for any cell
        filename = shell.compile.cache(cell, number=_cell_number(shell))
        try:
            code = shell.compile(cell, filename, "exec")
        except SyntaxError:
            shell.showsyntaxerror(filename)
            return
        try:
            g = _viz().run_traced(
                cell,
                shell.user_ns,
                filename=filename,
                code=code,
                backward=backward[0] if backward else None,
                gradient=args.gradient,
                retain_graph=args.retain_graph,
                no_grad=args.no_grad,
                show=show,
                **graph_options,
            )
        except _viz().OptionError as e:
            raise options.usage_error(str(e)) from None
        except BaseException as e:
            # shown as IPython shows an ordinary cell's error: from the user's first frame
            tb = e.__traceback__
            while tb is not None and tb.tb_frame.f_code.co_filename != filename:
                tb = tb.tb_next
            if tb is not None:
                _render_from(shell, e, tb)
                raise e.with_traceback(tb) from e.__cause__ if e.__cause__ else None
            raise
        _display(g.widget() if args.widget and g.payload is not None else g)
        return

    @magic_arguments()
    @argument("expr", nargs="+", help="an expression giving a tensor or a grad_fn")
    @line_magic
    @_keeps_state
    def grad_fn(self, line: str):
        """Print the grad_fn chain of EXPR as a tree (torch's node names)."""
        args = options.parse(self.grad_fn, "%grad_fn", line, expression="expr")
        if args is None:
            return
        value = self._eval("%grad_fn", " ".join(args.expr))
        fn = value.grad_fn if isinstance(value, Tensor) else value
        if fn is not None and not isinstance(fn, Node):
            raise options.usage_error(
                f"%grad_fn: expected a tensor or a grad_fn node, got {type(value).__name__}; "
                "e.g. %grad_fn loss"
            )
        if fn is None:
            print("None (a leaf tensor, or made under no_grad: nothing was recorded)")
            return
        print(_graph().grad_fn_tree(fn, self._names()))

    @magic_arguments()
    @argument(
        "expr", nargs="+", help="an expression giving a tensor, a grad_fn, or a tuple of them"
    )
    @_with_common
    @line_magic
    @_keeps_state
    def autograd_graph(self, line: str):
        """Show the graph of an existing tensor (or grad_fn)."""
        args = options.parse(self.autograd_graph, "%autograd_graph", line, expression="expr")
        if args is None:
            return
        graph_options = _graph_options(args)
        value = self._eval("%autograd_graph", " ".join(args.expr))
        roots = list(value) if isinstance(value, (tuple, list)) else [value]
        for r in roots:
            if not isinstance(r, (Tensor, Node)):
                raise options.usage_error(
                    f"%autograd_graph: expected tensors or grad_fn nodes, got "
                    f"{type(r).__name__}; e.g. %autograd_graph loss"
                )
        _display(_viz().graph(*roots, names=self._names(), **graph_options))

    @line_magic
    @_keeps_state
    def grad_mode(self, line: str):
        """%grad_mode [on|off]: switch grad mode for the following cells; print the state."""
        try:
            words = [v for v, _ in options.split(line)]
        except ValueError as e:
            raise options.usage_error(f"%grad_mode: cannot read {line.strip()!r} ({e})") from None
        word = words[0].lower() if len(words) == 1 else None
        if word in ("on", "true", "1", "enable"):
            set_grad_enabled(True)
        elif word in ("off", "false", "0", "disable"):
            set_grad_enabled(False)
        elif words:
            raise options.usage_error(
                f"%grad_mode: expected 'on' or 'off', got {options.shown(line.strip())}; "
                "e.g. %grad_mode off"
            )
        print(f"grad mode: {'on' if is_grad_enabled() else 'off'}")

    def _eval(self, magic: str, expr: str):
        try:
            return eval(expr, self.shell.user_ns)
        except Exception as e:  # noqa: BLE001
            raise options.usage_error(
                f"{magic}: cannot evaluate {options.shown(expr)}: {type(e).__name__}: {e}"
            ) from None

    def _names(self) -> dict:
        return {
            k: v
            for k, v in self.shell.user_ns.items()
            if isinstance(v, Tensor) and not k.startswith("_")
        }


def _cell_number(shell) -> int:
    """The execution count of the cell running this magic (IPython's In[N])."""
    numbers = getattr(shell.compile, "_filename_map", {})
    f = sys._getframe(1)
    while f is not None:
        n = numbers.get(f.f_code.co_filename)
        if n is not None:
            return n
        f = f.f_back
    return shell.execution_count


def _render_from(shell, e: BaseException, tb) -> None:
    """Have IPython render ``e`` from ``tb`` on (its hook for exceptions that format
    themselves), leaving out the frame of the ``run_cell_magic`` call above the user's code."""
    try:
        e._render_traceback_ = lambda: shell.InteractiveTB.structured_traceback(
            type(e), e, tb, tb_offset=0
        )
    except (AttributeError, TypeError):  # an exception type without __dict__
        pass


# ------------------------------------------------------------------ callbacks and formatter
_logged = False


def _cleanup() -> None:
    """A trace left active by an interrupted cell must not annotate the next cells."""
    viz = sys.modules.get("jupyter_autograd.viz")  # never imported: no trace can be active
    if viz is not None:
        viz.stop_all_traces()


def _safe(fn):
    def callback(*args):
        global _logged
        try:
            fn()
        except Exception:
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
        names = (
            {k: v for k, v in ip.user_ns.items() if isinstance(v, Tensor) and not k.startswith("_")}
            if ip
            else {}
        )
        b = _viz().graph(obj, names=names)._repr_mimebundle_()
        b["text/plain"] = _graph().safe_text(repr(obj)) + "\n" + b["text/plain"]
        return b
    except Exception:  # noqa: BLE001 - fall back to the plain repr
        return None


def _get_ipython():
    from IPython import get_ipython

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
    for kind, names in (
        ("cell", ("autograd",)),
        ("line", ("grad_fn", "autograd_graph", "grad_mode")),
    ):
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
