"""Random programs, generated the way hypothesis' stateful testing drives a state machine.

The generator runs each step under PyTorch as it draws it, so the live torch objects are its
model of the state: which variables exist, their shapes, dtypes, whether they require grad,
are leaves, have a graph. Every rule (an op, a view, an in-place op, a backward...) picks its
operands from that state; a step torch refuses is kept (exceptions are compared too) and its
variables simply stay unbound. The torch run made while generating is the reference run.
"""

from __future__ import annotations

import random
import re

import numpy as np

from . import catalog, rows
from .compare import compare
from .open_classes import MISSING_API, classifier, is_open
from .prelude import SNIPPETS
from .program import Program, Step, _is_var, finish, new_namespace, run_step

FLOATS = ("float32", "float64")
COMPLEX = ("complex64", "complex128")
INTS = ("int64", "int32", "bool")
SHAPES = ((), (1,), (3,), (0,), (2, 3), (3, 1), (1, 3), (2, 0), (2, 1, 3), (4, 2), (2, 2, 2))

_COMPLEX_SRC = re.compile(r"complex|\dj\b")
# rows drawing random numbers: a common seed goes right before them
RANDOM_ROWS = {"native_dropout"}

# how often each rule is drawn
RULES = {
    "input": 4, "unary": 14, "binary": 14, "reduce": 7, "view": 12, "inplace": 9, "row": 12,
    "custom": 4, "hook": 4, "backward": 10, "grad": 4, "misc": 5, "detach": 2, "random": 3,
}


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


class Generator:
    """Draws one program from ``seed``, running it under ``torch`` as it goes."""

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
        self.main = ("complex64" if r < 0.2 else "complex128" if r < 0.4 else
                     "float32" if r < 0.7 else "float64")
        self.max_steps = max_steps or self.rng.randint(4, 18)
        self.rules = list(RULES)
        self.weights = [RULES[k] for k in self.rules]

    # ------------------------------------------------------------------ plumbing

    def name(self, prefix: str = "t") -> str:
        self.count += 1
        return f"{prefix}{self.count}"

    def emit(self, src: str, kind: str, defines=(), mutates=False, needs=(), dtype="",
             no_grad: bool = False) -> bool:
        """Run one step under torch and record it; True when torch did not raise."""
        if is_open("complex-autograd") and _COMPLEX_SRC.search(src):
            return False  # steered around: see open_classes
        for n in needs:
            if n not in self.loaded:
                exec(SNIPPETS[n], self.ns)  # noqa: S102
                self.loaded.add(n)
        if no_grad:
            src, kind = "with torch.no_grad():\n" + "\n".join(
                "    " + line for line in src.splitlines()), kind + "@no_grad"
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
                "    " + line for line in body.splitlines())
        return "with torch.inference_mode():\n" + body

    def tensors(self, pred=None) -> list:
        T = self.torch.Tensor
        return [(n, v) for n, v in self.ns.items()
                if _is_var(n) and isinstance(v, T) and (pred is None or pred(v))]

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
            draw = (lambda: round(rng.uniform(lo, hi) * 16) / 16) if exact else (
                lambda: round(rng.uniform(lo, hi), 2))
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
        self.emit(f"{name} = {self.tensor_src(shape, dtype, requires_grad, domain)}", "input",
                  (name,), dtype=dtype)
        return name

    def operand_like(self, t, name_a: str) -> str:
        """A second operand for a binary op with ``t``: a scalar, a variable or a new input."""
        rng = self.rng
        r = rng.random()
        shape = tuple(t.shape)
        if r < 0.2:
            return catalog.scalar_literal(rng, self.dtype_of(t))
        if r < 0.8:
            cands = [n for n, v in self.tensors() if n != name_a and _broadcast(tuple(v.shape), shape)]
            if cands:
                return rng.choice(cands)
        if r < 0.83:
            return rng.choice([n for n, _ in self.tensors()])
        bshape = list(shape[rng.randrange(0, len(shape) + 1):]) if shape else []
        bshape = [1 if rng.random() < 0.3 else s for s in bshape]
        return self.new_input(tuple(bshape), dtype=self.dtype_of(t) if rng.random() < 0.8 else None)

    # ------------------------------------------------------------------ rules

    def generate(self) -> Program:
        for _ in range(self.rng.randint(1, 3)):
            self.new_input()
        attempts = 0
        while len(self.steps) < self.max_steps and attempts < 3 * self.max_steps:
            if self.ours_ns is _STOPPED:
                break  # the comparison has ended: the rest of the program would not count
            attempts += 1
            rule = self.rng.choices(self.rules, self.weights)[0]
            getattr(self, "rule_" + rule)()
        if self.ours_ns is not _STOPPED and self.rng.random() < 0.8:
            self.rule_backward(final=True)
        program = Program(self.steps, self.seed)
        theirs_end = finish(self.ns, program, self.torch)
        self.obs.extend(theirs_end)
        if self.ours_ns is not None and self.ours_ns is not _STOPPED:
            m, hits = compare(theirs_end, finish(self.ours_ns, program, self.ours),
                              classifier(program))
            self.hits.extend(hits)
            self.mismatch = m
        return program

    def rule_input(self) -> None:
        self.new_input()

    def _unary_name(self, t) -> str | None:
        names = [n for n in catalog.UNARY if n not in MISSING_API]
        return self.rng.choice(names)

    def rule_unary(self) -> None:
        a, t = self.pick()
        if a is None:
            return self.new_input() and None
        op = self._unary_name(t)
        if op in catalog.METHOD_ONLY or "torch." + op in MISSING_API or self.rng.random() < 0.6:
            src = f"{a}.{op}()"
        else:
            src = f"torch.{op}({a})"
        if self.rng.random() < 0.1:
            src = self.rng.choice([f"-{a}", f"abs({a})", f"~{a}", f"+{a}"])
            op = src[0]
        out = self.name()
        self.emit(f"{out} = {src}", "unary:" + op, (out,), dtype=self.dtype_of(t))

    def rule_binary(self) -> None:
        a, t = self.pick()
        if a is None:
            return
        b = self.operand_like(t, a)
        rng = self.rng
        out = self.name()
        if rng.random() < 0.55:
            op = rng.choice(catalog.OPERATORS)
            if op in ("&", "|", "^") and t.dtype.is_floating_point:
                op = rng.choice(("+", "*"))
            src = f"{b} {op} {a}" if rng.random() < 0.25 else f"{a} {op} {b}"
            kind = "op:" + op
        else:
            fn = rng.choice([f for f in catalog.BINARY_FUNCS if f not in MISSING_API])
            extra = ""
            if fn in ("add", "sub") and rng.random() < 0.3:
                extra = f", alpha={rng.choice([2, 0.5, -1])}"
            if fn == "div" and rng.random() < 0.3:
                extra = f", rounding_mode={rng.choice(['floor', 'trunc'])!r}"
            if fn == "lerp":
                extra = ", 0.25"
            src = f"torch.{fn}({a}, {b}{extra})"
            kind = "fn:" + fn
        self.emit(f"{out} = {src}", kind, (out,), dtype=self.dtype_of(t))

    def rule_reduce(self) -> None:
        a, t = self.pick()
        if a is None:
            return
        src = catalog.reduction(self.rng, a, t)
        if src is None:
            return
        method = src.split(".", 1)[1].split("(")[0]
        if method in MISSING_API:
            return
        out = self.name()
        self.emit(f"{out} = {src}", "reduce:" + method, (out,), dtype=self.dtype_of(t))

    def rule_view(self) -> None:
        a, t = self.pick()
        if a is None:
            return
        got = catalog.view_expr(self.rng, a, t, [(n, v) for n, v in self.tensors() if n != a])
        if got is None or got[0] in MISSING_API:
            return
        kind, src = got
        if kind in ("real", "imag") and is_open("complex-autograd") and not t.is_complex():
            return
        out = self.name()
        self.emit(f"{out} = {src}", "view:" + kind, (out,), dtype=self.dtype_of(t))

    def has_views(self, t) -> bool:
        """Whether ``t`` is a view or has views among the live variables (torch's _base)."""
        if q(t, "_base") is not None:
            return True
        T = self.torch.Tensor
        for n, v in self.ns.items():
            if not _is_var(n):
                continue
            for x in (v if isinstance(v, (tuple, list)) else (v,)):
                if isinstance(x, T) and q(x, "_base") is t:
                    return True
        return False

    def rule_inplace(self) -> None:
        a, t = self.pick()
        if a is None:
            return
        if is_open("inplace-on-views") and self.has_views(t):
            return
        operand = self.operand_like(t, a) if self.rng.random() < 0.7 else None
        kind, src = catalog.inplace_stmt(self.rng, a, t, operand)
        if kind in MISSING_API:
            return
        # a leaf that requires grad is updated under no_grad (an optimizer step), mostly
        leaf = q(t, "is_leaf") and q(t, "requires_grad") and self.rng.random() < 0.8
        self.emit(src, "inplace:" + kind, (), mutates=True, dtype=self.dtype_of(t), no_grad=leaf)

    def rule_detach(self) -> None:
        a, t = self.pick()
        if a is None:
            return
        r = self.rng.random()
        if r < 0.4:
            self.emit(f"{a}.detach_()", "detach_", (), mutates=True, dtype=self.dtype_of(t))
        elif r < 0.7:
            self.emit(f"{a}.requires_grad_()", "requires_grad_", (), mutates=True)
        else:
            out = self.name()
            self.emit(f"{out} = {a}.detach().requires_grad_()", "detach", (out,))

    def rule_row(self) -> None:
        """A registry row, on existing variables or on new inputs from the row's domain."""
        rng = self.rng
        op = rows.draw_row(rng)
        a, t = self.pick()
        fresh = a is None or rng.random() < 0.25
        dtype = self.main if fresh or t is None else self.dtype_of(t)
        base = tuple(t.shape) if not fresh else rng.choice(SHAPES)
        shapes = rows.input_shapes(op, rng, base)
        if shapes is None:
            return
        params = rows.draw_params(op, rng, shapes)
        if params is None:
            return
        domain = tuple((op.sample or {}).get("domain", (-3, 3)))
        args = []
        for k, shape in enumerate(shapes):
            if k == 0 and not fresh and tuple(shape) == base:
                args.append(a)
                continue
            same = [n for n, v in self.tensors() if tuple(v.shape) == tuple(shape)
                    and self.dtype_of(v) == dtype and n not in args]
            if same and not fresh and rng.random() < 0.5:
                args.append(rng.choice(same))
            else:
                args.append(self.new_input(tuple(shape), dtype=dtype, domain=domain))
        kind = (op.sample or {}).get("kind")
        if op.name in RANDOM_ROWS:
            self.seed_rng()
        if kind == "where":
            args[0] = f"({args[0]} > 0)"
        if op.name == "embedding":
            args.append(f"torch.tensor({[rng.randrange(5) for _ in range(4)]})")
        if op.name == "binary_cross_entropy":
            args[1] = f"{args[1]}.detach().sigmoid()"  # targets in [0, 1]
        out = self.name()
        self.emit(f"{out} = {rows.render(op, args, params)}", "row:" + op.name, (out,), dtype=dtype)

    def seed_rng(self) -> None:
        """Seed both libraries' generators (ours draws torch's stream for a seed)."""
        self.emit(f"torch.manual_seed({self.rng.randrange(1000)})", "seed", ())

    def rule_random(self) -> None:
        """Random factories, dropout and in-place samplers, right after a common seed."""
        rng = self.rng
        a, t = self.pick()
        shape = rng.choice(SHAPES)
        dt = rng.choice(FLOATS + COMPLEX) if rng.random() < 0.5 else None
        dts = f", dtype=torch.{dt}" if dt else ""
        c = rng.choice(["rand", "randn", "randint", "randperm", "like", "dropout", "sample_",
                        "bernoulli"])
        out = self.name()
        if c in ("rand", "randn"):
            src, defines = f"{out} = torch.{c}({shape!r}{dts})", (out,)
        elif c == "randint":
            src, defines = f"{out} = torch.randint(-3, 4, {shape!r})", (out,)
        elif c == "randperm":
            src, defines = f"{out} = torch.randperm({rng.randrange(0, 6)})", (out,)
        elif a is None:
            return
        elif c == "like":
            src, defines = f"{out} = torch.{rng.choice(['rand_like', 'randn_like'])}({a})", (out,)
        elif c == "dropout":
            p = rng.choice([0.0, 0.25, 0.5, 1.0])
            src, defines = f"{out} = torch.nn.functional.dropout({a}, {p}, training=True)", (out,)
        elif c == "bernoulli":
            src, defines = f"{out} = torch.bernoulli({a}.detach().abs().clamp(0, 1))", (out,)
        else:
            if is_open("inplace-on-views") and self.has_views(t):
                return
            fn = rng.choice(["uniform_()", "normal_()", "uniform_(-1, 2)", "normal_(1.0, 0.5)"])
            self.seed_rng()
            self.emit(f"{a}.{fn}", "random:" + fn.split("(")[0], (), mutates=True,
                      no_grad=bool(q(t, "is_leaf") and q(t, "requires_grad")))
            return
        self.seed_rng()
        self.emit(src, "random:" + c, defines, dtype=dt or "")

    def rule_custom(self) -> None:
        rng = self.rng
        a, t = self.pick()
        if a is None:
            return
        fn = rng.choice(["MulSaveInputs", "ExpSaveOutput", "ScaleSetupContext", "SplitNonDiff",
                         "AddOneInplace", "SquareDouble"])
        if fn == "MulSaveInputs":
            args = f"{a}, {self.operand_like(t, a) if rng.random() < 0.3 else a}"
            if args.split(", ")[1][0] not in "xt":  # a scalar: Function.apply needs tensors here
                args = f"{a}, {a}"
        elif fn == "ScaleSetupContext":
            args = f"{a}, {rng.choice([2.0, -1, 0.5])}"
        else:
            args = a
        out = self.name()
        self.emit(f"{out} = {fn}.apply({args})", "custom:" + fn, (out,),
                  mutates=fn == "AddOneInplace", needs=("_conj", fn), dtype=self.dtype_of(t))

    def rule_hook(self) -> None:
        rng = self.rng
        a, t = self.pick(lambda v: q(v, 'requires_grad'))
        if a is None:
            return
        h = self.name("hd")
        r = rng.random()
        if r < 0.5:
            kinds = ["hook_log", "hook_double", "hook_double", "hook_bad_dtype", "hook_bad_shape"]
            kind = rng.choice(kinds[:3] if is_open("hook-changes-type") else kinds)
            src = f"{h} = {a}.register_hook({kind}({h!r}))"
        elif r < 0.75 and q(t, 'grad_fn') is not None:
            kind = rng.choice(["node_hook_log", "node_prehook_log"])
            reg = "register_hook" if kind == "node_hook_log" else "register_prehook"
            src = f"{h} = {a}.grad_fn.{reg}({kind}({h!r}))"
        elif q(t, 'is_leaf'):
            kind = "post_acc_log"
            src = f"{h} = {a}.register_post_accumulate_grad_hook(post_acc_log({h!r}))"
        else:
            kind = "retain_grad"
            self.emit(f"{a}.retain_grad()", "retain_grad", (), mutates=True)
            return
        self.emit(src, "hook:" + kind, (), needs=(kind,) if kind in SNIPPETS else ())
        if rng.random() < 0.2:
            self.emit(f"{h}.remove()", "hook:remove", ())

    def _gradient_for(self, t) -> str:
        shape = tuple(t.shape)
        if self.rng.random() < 0.05:
            shape = shape + (2,)  # wrong shape: torch's "Mismatch in shape" error
        return self.tensor_src(shape, self.dtype_of(t), False)

    def rule_backward(self, final: bool = False) -> None:
        rng = self.rng
        a, t = self.pick(lambda v: q(v, 'requires_grad'))
        if final and a is not None:  # the newest result: the deepest graph
            a, t = self.tensors(lambda v: q(v, 'requires_grad'))[-1]
        if a is None:
            if final:
                return
            a, t = self.pick()
            if a is None:
                return
        args = []
        r = rng.random()
        if t.numel() == 1 and r < 0.5:
            target = a
        elif r < 0.75:
            target = a
            args.append(self._gradient_for(t))
        else:
            target = f"{a}.abs().sum()" if t.is_complex() else f"{a}.sum()"
        if rng.random() < 0.4:
            args.append("retain_graph=True")
        if rng.random() < 0.1:
            leaves = [n for n, v in self.tensors(lambda v: q(v, "requires_grad"))]
            ins = rng.sample(leaves, min(len(leaves), rng.randint(1, 2)))
            args.append(f"inputs=[{', '.join(ins)}]")
        elif rng.random() < 0.05:
            args.append("create_graph=True")
        src = f"{target}.backward({', '.join(args)})"
        self.emit(src, "backward", (), mutates=True, dtype=self.dtype_of(t))

    def rule_grad(self) -> None:
        rng = self.rng
        a, t = self.pick(lambda v: q(v, 'requires_grad'))
        if a is None:
            return
        cands = [n for n, v in self.tensors(lambda v: q(v, 'requires_grad'))]
        ins = rng.sample(cands, min(len(cands), rng.randint(1, 3)))
        go = "" if t.numel() == 1 and rng.random() < 0.6 else f", grad_outputs={self._gradient_for(t)}"
        opts = ""
        if rng.random() < 0.4:
            opts += ", retain_graph=True"
        if rng.random() < 0.25:
            opts += ", create_graph=True"
        if rng.random() < 0.4:
            opts += ", allow_unused=True"
        out = self.name()
        self.emit(f"{out} = torch.autograd.grad({a}, [{', '.join(ins)}]{go}{opts})", "autograd.grad",
                  (out,), mutates=True, dtype=self.dtype_of(t))
        if out in self.ns and rng.random() < 0.7:
            for k in range(len(self.ns[out])):
                g = self.name()
                self.emit(f"{g} = {out}[{k}]", "unpack", (g,))

    def rule_misc(self) -> None:
        rng = self.rng
        a, t = self.pick()
        if a is None:
            return
        out = self.name()
        r = rng.random()
        if r < 0.15:
            self.emit(f"{out} = {a}.grad", "read_grad", (out,))
        elif r < 0.3 and q(t, 'is_leaf') and q(t, 'grad') is not None:
            src = rng.choice([f"{a}.grad = None", f"{a}.grad.zero_()"])
            self.emit(src, "zero_grad", (), mutates=True)
        elif r < 0.45:
            if t.numel() == 1 or rng.random() < 0.1:
                self.emit(f"{out} = {a}.item()", "item", (out,))
        elif r < 0.55:
            self.emit(f"{out} = {a}.tolist()", "tolist", (out,))
        elif r < 0.7:
            self.emit(f"{out} = {rng.choice(['repr', 'str'])}({a})", "repr", (out,))
        elif r < 0.85:
            dt = rng.choice(FLOATS + COMPLEX + INTS)
            self.emit(f"{out} = {a}.to(torch.{dt})", "to", (out,), dtype=dt)
        else:
            b = self.operand_like(t, a)
            fn = rng.choice(["cat", "stack"])
            if b[0] not in "xt":
                return
            self.emit(f"{out} = torch.{fn}([{a}, {b}], {rng.choice([0, -1])})", "fn:" + fn, (out,))


def generate(seed: int, torch) -> tuple[Program, list]:
    """A program drawn from ``seed`` and torch's observations of it."""
    g = Generator(seed, torch)
    program = g.generate()
    return program, g.obs


_STOPPED = {}  # ours_ns once the comparison has ended

