"""The program builder under the fuzz generator: the state of a program being drawn (torch's
namespace, and ours in lockstep), ``emit`` (run one step under both and compare as it goes, dropping
steps of known open classes) and the values steps are made of (literals, new inputs, operands).

The rules that choose the steps are :mod:`.generate`.
"""

from __future__ import annotations

import random
import re

import numpy as np

from . import catalog
from .compare import compare
from .open_classes import classifier, is_open
from .prelude import SNIPPETS
from .program import Program, Step, _is_var, new_namespace, run_step

FLOATS = ("float32", "float64")
COMPLEX = ("complex64", "complex128")
INTS = ("int64", "int32", "bool")
SHAPES = ((), (1,), (3,), (0,), (2, 3), (3, 1), (1, 3), (2, 0), (2, 1, 3), (4, 2), (2, 2, 2))

_COMPLEX_SRC = re.compile(r"complex|\dj\b")


def q(t, attr: str):
    """``t.<attr>``, or None where torch raises on the read (a view invalidated by an in-place
    op under another grad mode, for one)."""
    try:
        return getattr(t, attr)
    except Exception:  # noqa: BLE001
        return None


def _broadcast(a: tuple, b: tuple) -> bool:
    try:
        np.broadcast_shapes(a, b)
        return True
    except ValueError:
        return False


class ProgramBuilder:
    """A program's state and its steps: each step is run under ``torch`` as it is drawn (and
    under ``ours`` in lockstep), from values drawn by ``self.rng``; :class:`.generate.Generator`
    adds the rules that draw the steps."""

    def __init__(self, seed: int, torch, ours=None, max_steps: int | None = None) -> None:
        self.rng = random.Random(seed)
        self.seed = seed
        self.torch = torch
        self.ns = new_namespace(torch)
        # lockstep: ours runs each step as it is drawn (see emit); None: torch only
        self.ours = ours
        self.ours_ns = new_namespace(ours) if ours is not None else None
        self.hits: list = []  # open classes met
        self.dropped: list = []  # open classes of the steps dropped
        self.mismatch = None  # the mismatch that ended the comparison
        self.steps: list = []
        self.obs: list = []
        self.loaded: set = set()
        self.count = 0
        r = self.rng.random()
        # the program's main dtype: complex is as likely as real, once its class is fixed
        if is_open("complex-autograd") and r < 0.5:
            r = 0.5 + r
        self.main = (
            "complex64"
            if r < 0.2
            else "complex128"
            if r < 0.4
            else "float32"
            if r < 0.7
            else "float64"
        )
        self.max_steps = max_steps or self.rng.randint(4, 18)

    # ------------------------------------------------------------------ plumbing

    def name(self, prefix: str = "t") -> str:
        self.count += 1
        return f"{prefix}{self.count}"

    def emit(
        self,
        src: str,
        kind: str,
        defines=(),
        mutates=False,
        needs=(),
        dtype="",
        no_grad: bool = False,
    ) -> bool:
        """Run one step under torch and record it; True when torch did not raise."""
        if is_open("complex-autograd") and _COMPLEX_SRC.search(src):
            return False  # steered around: see open_classes
        for n in needs:
            if n not in self.loaded:
                exec(SNIPPETS[n], self.ns)  # noqa: S102
                self.loaded.add(n)
        if no_grad:
            src, kind = (
                "with torch.no_grad():\n" + "\n".join("    " + line for line in src.splitlines()),
                kind + "@no_grad",
            )
        elif self.rng.random() < 0.1 and kind not in ("input", "hook", "backward", "grad"):
            src, kind = self._grad_mode(src), kind + "@no_grad"
        step = Step(src, kind, tuple(defines), mutates, tuple(needs), dtype)
        i = len(self.steps)
        code = compile(src, f"<step {i}>", "exec")
        obs = run_step(self.ns, i, step, code, self.torch)
        if self.ours_ns is not None and self.ours_ns is not _STOPPED:
            for n in needs:
                if n not in self.ours_ns:
                    exec(SNIPPETS[n], self.ours_ns)  # noqa: S102
            mine = run_step(self.ours_ns, i, step, code, self.ours)
            m, hits = compare(obs, mine, classifier(Program(self.steps + [step])))
            self.hits.extend(hits)
            if m is not None and m.known and not mutates:
                # a known class on a step without side effects: as if it had not been drawn,
                # so the rest of the program is still compared
                self.hits.append(m.known)
                self.dropped.append(m.known)
                for n in defines:
                    for ns in (self.ns, self.ours_ns):
                        # kept alive: a reused id would inherit the dropped tensor's version
                        ns["VERSIONS"].setdefault("dropped", []).append(ns.pop(n, None))
                return False
            if m is not None:
                self.mismatch = m
                self.ours_ns = _STOPPED
        self.steps.append(step)
        self.obs.extend(obs)
        return obs[0][1] is None

    def _grad_mode(self, src: str) -> str:
        body = "\n".join("    " + line for line in src.splitlines())
        r = self.rng.random()
        if r < 0.75:
            return "with torch.no_grad():\n" + body
        if r < 0.85:
            return "with torch.set_grad_enabled(False):\n" + body
        if r < 0.93:
            return "with torch.no_grad():\n    with torch.enable_grad():\n" + "\n".join(
                "    " + line for line in body.splitlines()
            )
        return "with torch.inference_mode():\n" + body

    def tensors(self, pred=None) -> list:
        T = self.torch.Tensor
        return [
            (n, v)
            for n, v in self.ns.items()
            if _is_var(n) and isinstance(v, T) and (pred is None or pred(v))
        ]

    def pick(self, pred=None):
        ts = self.tensors(pred)
        return self.rng.choice(ts) if ts else (None, None)

    def dtype_of(self, t) -> str:
        return str(t.dtype).replace("torch.", "")

    # ------------------------------------------------------------------ values

    def literal(self, shape: tuple, dtype: str, domain=(-3.0, 3.0)) -> str:
        n = int(np.prod(shape)) if shape else 1
        rng = self.rng
        if dtype == "bool":
            vals = [rng.random() < 0.5 for _ in range(n)]
        elif dtype.startswith("int"):
            vals = [rng.randrange(-4, 5) for _ in range(n)]
        else:
            lo, hi = domain
            # two decimals (short reproducers); sixteenths while torch.tensor() rounds float64
            # literals through float32 (open class tensor-float-literals)
            exact = dtype in ("float64", "complex128") and is_open("tensor-float-literals")
            draw = (
                (lambda: round(rng.uniform(lo, hi) * 16) / 16)
                if exact
                else (lambda: round(rng.uniform(lo, hi), 2))
            )
            vals = [draw() for _ in range(n)]
            if rng.random() < 0.1:  # exact ties and zeros: max/abs/relu/sign at their kinks
                vals = [rng.choice([0.0, 1.0, -1.0, vals[0]]) for _ in vals]
            if dtype.startswith("complex"):
                vals = [complex(v, draw()) for v in vals]
        nested = np.array(vals, dtype=object).reshape(shape).tolist() if shape else vals[0]
        return repr(nested)

    def tensor_src(self, shape: tuple, dtype: str, requires_grad: bool, domain=(-3.0, 3.0)) -> str:
        rg = ", requires_grad=True" if requires_grad else ""
        if 0 in shape:
            return f"torch.zeros({shape!r}, dtype=torch.{dtype}{rg})"
        return f"torch.tensor({self.literal(shape, dtype, domain)}, dtype=torch.{dtype}{rg})"

    def new_input(self, shape=None, dtype=None, requires_grad=None, domain=None) -> str:
        rng = self.rng
        if dtype is None:
            r = rng.random()
            dtype = self.main if r < 0.75 else rng.choice(FLOATS + COMPLEX + INTS)
            if is_open("complex-autograd") and dtype in COMPLEX and self.main not in COMPLEX:
                dtype = self.main
        if shape is None:
            shape = rng.choice(SHAPES)
        if requires_grad is None:
            requires_grad = rng.random() < 0.7
            if dtype in INTS:
                requires_grad = rng.random() < 0.05  # torch's "only floating point" error
        if domain is None:
            domain = (-3.0, 3.0) if rng.random() < 0.7 else (0.1, 3.0)
        name = self.name("x")
        self.emit(
            f"{name} = {self.tensor_src(shape, dtype, requires_grad, domain)}",
            "input",
            (name,),
            dtype=dtype,
        )
        return name

    def operand_like(self, t, name_a: str) -> str:
        """A second operand for a binary op with ``t``: a scalar, a variable or a new input."""
        rng = self.rng
        r = rng.random()
        shape = tuple(t.shape)
        if r < 0.2:
            return catalog.scalar_literal(rng, self.dtype_of(t))
        if r < 0.8:
            cands = [
                n for n, v in self.tensors() if n != name_a and _broadcast(tuple(v.shape), shape)
            ]
            if cands:
                return rng.choice(cands)
        if r < 0.83:
            return rng.choice([n for n, _ in self.tensors()])
        bshape = list(shape[rng.randrange(0, len(shape) + 1) :]) if shape else []
        bshape = [1 if rng.random() < 0.3 else s for s in bshape]
        return self.new_input(tuple(bshape), dtype=self.dtype_of(t) if rng.random() < 0.8 else None)


_STOPPED = {}  # ours_ns once the comparison has ended
