"""A fuzz program as data, and how to run it under either library.

A program is a list of :class:`Step`; each step is Python source written against the name
``torch``, so the same program runs with ``torch`` bound to PyTorch or to jupyter_autograd, and
its reproducer is the concatenation of the steps. Running a program records, step by step, an
*observation*: a flat list of ``(path, value)`` pairs (the step's exception, warnings, hook calls,
and for every tensor variable its dtype, shape, flags, grad_fn graph, version, values and .grad).
Two runs are compared pair by pair (:mod:`tests.fuzz.compare`).
"""

from __future__ import annotations

import ast
import builtins
import functools
import re
import warnings
from dataclasses import dataclass, field, replace

import numpy as np

from .prelude import SNIPPETS, snippet_source

_ADDR = re.compile(r"0x[0-9a-fA-F]+")
# where in torch's C++ sources a warning was raised: torch's build paths, nothing to match
_TRIGGERED = re.compile(r" \(Triggered internally at [^)]*\)")
# warnings torch gives once per process (TORCH_WARN_ONCE): whether one shows depends on the
# programs run before in the same process, so they are not observed
WARN_ONCE = re.compile(
    r"^(Using backward\(\) with create_graph=True will create a reference cycle"
    r"|Casting complex values to real discards the imaginary part"
    r"|The use of `x\.T` on tensors|(Tensor\.m?[TH]|adjoint\(\)) is deprecated on 0-D)"
)


@dataclass(frozen=True)
class Step:
    """One statement (or a small block) of a program.

    Attributes:
        src: Python source using ``torch`` and earlier variables.
        kind: what the step does, for classification ("reg:mul", "meth:exp", "backward"...).
        defines: the variables it binds.
        mutates: whether it may change existing tensors (in-place, backward, hooks...): then
            every variable is observed after it, not only the ones it defines.
        needs: prelude snippets (custom Functions, hooks) the source refers to.
        dtype: the dtype of its main operand, for classification.
    """

    src: str
    kind: str
    defines: tuple = ()
    mutates: bool = False
    needs: tuple = ()
    dtype: str = ""


@dataclass
class Program:
    steps: list = field(default_factory=list)
    seed: int | None = None

    @classmethod
    def from_sources(cls, sources) -> Program:
        """A program of hand-written steps (reproducers); every step is observed in full and
        the prelude snippets it names are included."""
        steps = []
        for src in sources:
            needs = tuple(n for n in SNIPPETS if re.search(rf"\b{n}\b", src))
            if needs and any(n[0].isupper() for n in needs):
                needs = ("_conj",) + needs
            defines = tuple(
                n.id
                for node in ast.walk(ast.parse(src))
                if isinstance(node, ast.Assign)
                for t in node.targets
                for n in ast.walk(t)
                if isinstance(n, ast.Name)
            )
            steps.append(Step(src, "repro", defines, True, needs))
        return cls(steps)

    def with_steps(self, steps) -> Program:
        return replace(self, steps=list(steps))

    def needs(self) -> list:
        seen = []
        for s in self.steps:
            for n in s.needs:
                if n not in seen:
                    seen.append(n)
        return seen

    def source(self) -> str:
        """The program's body: the snippets it needs, then its steps."""
        parts = [snippet_source(self.needs())] if self.needs() else []
        parts.extend(s.src for s in self.steps)
        return "\n".join(parts)

    def reproducer(self, note: str = "") -> str:
        """A standalone script: ``python repro.py`` runs it with torch, ``python repro.py ours``
        with jupyter_autograd; both print every variable, so the outputs can be diffed."""
        head = [
            '"""Fuzz reproducer' + (f": {note}" if note else "") + '"""',
            "import sys",
            "",
            'if sys.argv[1:] == ["ours"]:',
            "    import jupyter_autograd as torch",
            "else:",
            "    import torch",
            "",
        ]
        body = []
        for s in self.steps:
            body.append("try:")
            body.extend("    " + line for line in s.src.splitlines())
            body.append("except Exception as e:")
            body.append(f"    print({s.src.splitlines()[0][:60]!r}, '->', type(e).__name__, e)")
        names = []
        for s in self.steps:
            names.extend(n for n in s.defines if n not in names)
        tail = ["", "for _n in " + repr(names) + ":", "    _v = globals().get(_n)"]
        tail += [
            "    if isinstance(_v, torch.Tensor):",
            "        print(_n, _v, 'requires_grad', _v.requires_grad, 'is_leaf', _v.is_leaf,",
            "              'grad_fn', type(_v.grad_fn).__name__ if _v.grad_fn else None,",
            "              'grad', _v.grad if _v.is_leaf else None)",
            "    else:",
            "        print(_n, _v)",
        ]
        pre = [snippet_source(self.needs()), ""] if self.needs() else []
        return "\n".join(head + pre + body + tail) + "\n"


# ------------------------------------------------------------------------------ running


class _Compiled:
    """Code objects of a program's steps, compiled once and run under both libraries."""

    __slots__ = ("codes", "prelude")

    def __init__(self, program: Program) -> None:
        self.prelude = compile(snippet_source(program.needs()), "<prelude>", "exec")
        self.codes = []
        for i, s in enumerate(program.steps):
            try:
                self.codes.append(compile(s.src, f"<step {i}>", "exec"))
            except SyntaxError as e:  # a generator bug: say which step
                raise SyntaxError(f"step {i} does not compile: {s.src!r}") from e


def new_namespace(lib) -> dict:
    # VERSIONS: the version each tensor had when first observed; versions are observed as
    # increments from there (torch's gradient buffers start at version 1: an implementation
    # detail, while an increment, shared or not with a view, is the semantics)
    # PREC / FAMILY: the lowest precision that flowed into each variable (see "precision" below)
    return {
        "torch": lib,
        "__builtins__": builtins,
        "LOG": [],
        "VERSIONS": {},
        "PREC": {},
        "FAMILY": {},
    }


def run(program: Program, lib, compiled: _Compiled | None = None) -> list:
    """Run ``program`` with ``torch`` bound to ``lib``; return its observation list."""
    compiled = compiled or _Compiled(program)
    ns = new_namespace(lib)
    exec(compiled.prelude, ns)  # noqa: S102 - programs are generated here, not user input
    obs = []
    for i, (step, code) in enumerate(zip(program.steps, compiled.codes)):
        obs.extend(run_step(ns, i, step, code, lib))
    obs.extend(finish(ns, program, lib))
    return obs


def finish(ns: dict, program: Program, lib) -> list:
    """The final observation: every variable the program defined."""
    names = []
    for s in program.steps:
        names.extend(n for n in s.defines if n not in names)
    return observe_vars(ns, names, "end", lib)


def run_step(ns: dict, i: int, step: Step, code, lib) -> list:
    """Execute one step in ``ns`` and observe its effects."""
    obs = []
    log_len = len(ns["LOG"])
    reads = [n for n in _reads(step.src) if n in ns and _is_var(n)]
    low = max((_rank_of(ns, n, lib) for n in reads), default=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            exec(code, ns)  # noqa: S102
            obs.append((f"{i}:raised", None))
        except Exception as e:  # noqa: BLE001 - every exception is an observation
            obs.append((f"{i}:raised", (type(e).__name__, normalise(str(e)))))
    _flow(ns, reads, step, low)
    ws = sorted(
        {
            (w.category.__name__, normalise(str(w.message)))
            for w in caught
            if not WARN_ONCE.match(str(w.message))
        }
    )
    obs.append((f"{i}:warnings", tuple(ws)))
    for k, entry in enumerate(ns["LOG"][log_len:]):
        obs.extend(_flatten(f"{i}:log{k}", entry, ns, lib, low=low))
    if step.mutates:
        names = [n for n in ns if _is_var(n)]
    else:
        names = list(step.defines)
    obs.extend(observe_vars(ns, names, str(i), lib))
    return obs


_VAR_NAME = re.compile(r"[a-z][a-z0-9_]*")


def _is_var(name: str) -> bool:
    """Program variables: lower-case names, except hook handles (hd...) and prelude helpers."""
    return (
        _VAR_NAME.fullmatch(name) is not None
        and not name.startswith("hd")
        and name not in SNIPPETS
        and name != "torch"
    )


# ------------------------------------------------------------------------------ precision
# A value computed from a float32 intermediate carries float32's rounding even when it is
# float64 (NumPy's float32 exp is 1 ulp from torch's SLEEF exp; promoted into a float64 op,
# fmod amplifies that ulp). Each variable records the lowest precision that flowed into it, as
# a rank (0 none: integers, bools, Python numbers; 1 float64, 2 float32, 3 half), and is compared at
# that precision's tolerance. The flow is tracked through the program's variables: a step's
# results inherit the lowest precision of the variables it reads; a step that mutates (in-place,
# backward, hooks) lowers every variable connected to the ones it reads (views, leaves, the
# graph's inputs: FAMILY, the variables ever computed from one another). A program of float64
# values only stays at float64's tolerance throughout.

_RANK = {
    "torch.float64": 1,
    "torch.complex128": 1,
    "torch.float32": 2,
    "torch.complex64": 2,
    "torch.float16": 3,
    "torch.bfloat16": 3,
}
PREC_DTYPE = {1: "torch.float64", 2: "torch.float32", 3: "torch.float16"}


@functools.lru_cache(maxsize=4096)
def _reads(src: str) -> tuple:
    """The names a step's source reads."""
    try:
        tree = ast.parse(src)
    except SyntaxError:
        return ()
    return tuple(
        dict.fromkeys(
            n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
        )
    )


def _value_rank(v, lib) -> int:
    if isinstance(v, lib.Tensor):
        return _RANK.get(str(v.dtype), 0)
    if isinstance(v, (tuple, list)):
        return max((_value_rank(x, lib) for x in v), default=0)
    return 0


def _rank_of(ns: dict, name: str, lib) -> int:
    """The lowest precision (highest rank) in variable ``name``: its own dtype or inflow."""
    return max(_value_rank(ns[name], lib), ns["PREC"].get(name, 0))


def _flow(ns: dict, reads: list, step: Step, low: int) -> None:
    prec, family = ns["PREC"], ns["FAMILY"]
    group = set(reads) | set(step.defines)
    for n in list(group):
        group |= family.get(n, set())
    for n in group:
        family[n] = group
    for n in step.defines:
        prec[n] = low
    if step.mutates:
        for n in group:
            prec[n] = max(prec.get(n, 0), low)


def normalise(msg: str) -> str:
    """Only what must differ between two processes: object addresses, torch's source paths."""
    return _TRIGGERED.sub("", _ADDR.sub("0x?", msg))


def observe_vars(ns: dict, names, where: str, lib) -> list:
    obs = []
    ids = _leaf_names(ns)
    for n in names:
        if n in ns:
            obs.extend(_flatten(f"{where}:{n}", ns[n], ns, lib, ids, ns["PREC"].get(n, 0)))
        else:
            obs.append((f"{where}:{n}", "<unbound>"))
    return obs


def _leaf_names(ns: dict) -> dict:
    return {id(v): n for n, v in ns.items() if _is_var(n)}


def _flatten(path: str, v, ns: dict, lib, ids=None, low: int = 0) -> list:
    if ids is None:
        ids = _leaf_names(ns)
    if isinstance(v, lib.Tensor):
        return tensor_obs(path, v, ids, ns["VERSIONS"], PREC_DTYPE.get(low))
    if isinstance(v, (tuple, list)):
        out = [(path + ".len", (type(v).__name__ if type(v) in (tuple, list) else "seq", len(v)))]
        for k, x in enumerate(v):
            out.extend(_flatten(f"{path}[{k}]", x, ns, lib, ids, low))
        return out
    if v is None or isinstance(v, (bool, int, float, complex, str)):
        return [(path, Scalar(v, PREC_DTYPE.get(low)))]
    return [(path, type(v).__name__)]


class Scalar:
    """A Python number or string, compared with the tolerance of its type, or of the lowest
    precision that flowed into it (``prec``: a float32 tensor's ``tolist()`` or ``item()``)."""

    __slots__ = ("prec", "v")

    def __init__(self, v, prec=None) -> None:
        self.v = v
        self.prec = prec

    def __repr__(self) -> str:
        return repr(self.v)


class Arr:
    """A tensor's values, compared with the tolerance of its dtype, or of ``prec`` (the lowest
    precision that flowed into it, a dtype's name) where that is lower."""

    __slots__ = ("a", "dtype", "prec")

    def __init__(self, a: np.ndarray, dtype: str, prec: str | None = None) -> None:
        self.a = a
        self.dtype = dtype
        self.prec = prec

    def __repr__(self) -> str:
        return np.array2string(self.a, precision=6, threshold=20)


def to_numpy(t) -> np.ndarray:
    t = t.detach()
    if hasattr(t, "resolve_conj"):  # torch: lazily conjugated / negated views, ZeroTensors
        return np.asarray(t.resolve_conj().resolve_neg().numpy(force=True)).copy()
    return np.asarray(t.numpy()).copy()


def _attr(fn):
    """An attribute read as an observation: its value, or the exception it raises."""
    try:
        return fn()
    except Exception as e:  # noqa: BLE001
        return ("raises", type(e).__name__, normalise(str(e)))


def tensor_obs(path: str, t, ids: dict, versions: dict, prec: str | None = None) -> list:
    dtype = str(t.dtype)
    # torch raises on some reads (a view modified in place under another grad mode, the
    # version of an inference tensor): every read is guarded and the exception observed
    obs = [
        (path + ".dtype", dtype),
        (path + ".shape", tuple(t.shape)),
        (path + ".requires_grad", _attr(lambda: t.requires_grad)),
        (path + ".is_leaf", _attr(lambda: t.is_leaf)),
        (path + ".grad_fn", _attr(lambda: graph_of(t.grad_fn, ids))),
        (path + "._version", _attr(lambda: t._version - versions.setdefault(id(t), t._version))),
    ]
    try:
        obs.append((path + ".value", Arr(to_numpy(t), dtype, prec)))
    except Exception as e:  # noqa: BLE001
        obs.append((path + ".value", ("unreadable", type(e).__name__)))
    if _attr(lambda: t.is_leaf) is True or _attr(lambda: t.retains_grad) is True:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            g = _attr(lambda: t.grad)
        if g is None or isinstance(g, tuple):
            obs.append((path + ".grad", g))
        else:
            gd = str(g.dtype)
            obs.append((path + ".grad", (gd, tuple(g.shape), g.requires_grad)))
            obs.append((path + ".grad.value", Arr(to_numpy(g), gd, prec)))
    return obs


def graph_of(fn, ids: dict, limit: int = 40):
    """The autograd graph below ``fn`` as nested data: node names in visit order, edges as
    (node number, input_nr), AccumulateGrad nodes with the name of their variable."""
    if fn is None:
        return None
    num = {id(fn): 0}
    order = [fn]
    out = []
    k = 0
    while k < len(order) and k < limit:
        n = order[k]
        k += 1
        edges = []
        for child, nr in n.next_functions:
            if child is None:
                edges.append((None, nr))
                continue
            if id(child) not in num:
                num[id(child)] = len(order)
                order.append(child)
            edges.append((num[id(child)], nr))
        name = type(n).__name__
        if name == "AccumulateGrad":
            name += ":" + ids.get(id(getattr(n, "variable", None)), "?")
        out.append((name, tuple(edges)))
    return tuple(out)


SNIPPET_NAMES = tuple(SNIPPETS)
