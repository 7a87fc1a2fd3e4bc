"""Random programs, generated the way hypothesis' stateful testing drives a state machine.

The generator runs each step under PyTorch as it draws it, so the live torch objects are its
model of the state: which variables exist, their shapes, dtypes, whether they require grad,
are leaves, have a graph. Every rule (an op, a view, an in-place op, a backward...) picks its
operands from that state; a step torch refuses is kept (exceptions are compared too) and its
variables simply stay unbound. The torch run made while generating is the reference run.
"""

from __future__ import annotations

from . import catalog, rows
from .builder import (
    _STOPPED,
    COMPLEX,
    FLOATS,
    INTS,
    SHAPES,
    ProgramBuilder,
    q,
)
from .compare import compare
from .open_classes import MISSING_API, classifier, is_open
from .prelude import SNIPPETS
from .program import Program, _is_var, finish

# rows drawing random numbers: a common seed goes right before them
RANDOM_ROWS = {"native_dropout"}

# how often each rule is drawn
RULES = {
    "input": 4,
    "unary": 14,
    "binary": 14,
    "reduce": 7,
    "view": 12,
    "inplace": 9,
    "row": 12,
    "custom": 4,
    "hook": 4,
    "backward": 10,
    "grad": 4,
    "misc": 5,
    "detach": 2,
    "random": 3,
}


class Generator(ProgramBuilder):
    """Draws one program from ``seed``, running it under ``torch`` as it goes."""

    def __init__(self, seed: int, torch, ours=None, max_steps: int | None = None) -> None:
        super().__init__(seed, torch, ours, max_steps)
        self.rules = list(RULES)
        self.weights = [RULES[k] for k in self.rules]

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
            m, hits = compare(
                theirs_end, finish(self.ours_ns, program, self.ours), classifier(program)
            )
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
            for x in v if isinstance(v, (tuple, list)) else (v,):
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
            same = [
                n
                for n, v in self.tensors()
                if tuple(v.shape) == tuple(shape) and self.dtype_of(v) == dtype and n not in args
            ]
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
        c = rng.choice(
            ["rand", "randn", "randint", "randperm", "like", "dropout", "sample_", "bernoulli"]
        )
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
            self.emit(
                f"{a}.{fn}",
                "random:" + fn.split("(")[0],
                (),
                mutates=True,
                no_grad=bool(q(t, "is_leaf") and q(t, "requires_grad")),
            )
            return
        self.seed_rng()
        self.emit(src, "random:" + c, defines, dtype=dt or "")

    def rule_custom(self) -> None:
        rng = self.rng
        a, t = self.pick()
        if a is None:
            return
        fn = rng.choice(
            [
                "MulSaveInputs",
                "ExpSaveOutput",
                "ScaleSetupContext",
                "SplitNonDiff",
                "AddOneInplace",
                "SquareDouble",
            ]
        )
        if fn == "MulSaveInputs":
            args = f"{a}, {self.operand_like(t, a) if rng.random() < 0.3 else a}"
            if args.split(", ")[1][0] not in "xt":  # a scalar: Function.apply needs tensors here
                args = f"{a}, {a}"
        elif fn == "ScaleSetupContext":
            args = f"{a}, {rng.choice([2.0, -1, 0.5])}"
        else:
            args = a
        out = self.name()
        self.emit(
            f"{out} = {fn}.apply({args})",
            "custom:" + fn,
            (out,),
            mutates=fn == "AddOneInplace",
            needs=("_conj", fn),
            dtype=self.dtype_of(t),
        )

    def rule_hook(self) -> None:
        rng = self.rng
        a, t = self.pick(lambda v: q(v, "requires_grad"))
        if a is None:
            return
        h = self.name("hd")
        r = rng.random()
        if r < 0.5:
            kinds = ["hook_log", "hook_double", "hook_double", "hook_bad_dtype", "hook_bad_shape"]
            kind = rng.choice(kinds[:3] if is_open("hook-changes-type") else kinds)
            src = f"{h} = {a}.register_hook({kind}({h!r}))"
        elif r < 0.75 and q(t, "grad_fn") is not None:
            kind = rng.choice(["node_hook_log", "node_prehook_log"])
            reg = "register_hook" if kind == "node_hook_log" else "register_prehook"
            src = f"{h} = {a}.grad_fn.{reg}({kind}({h!r}))"
        elif q(t, "is_leaf"):
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
        a, t = self.pick(lambda v: q(v, "requires_grad"))
        if final and a is not None:  # the newest result: the deepest graph
            a, t = self.tensors(lambda v: q(v, "requires_grad"))[-1]
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
        a, t = self.pick(lambda v: q(v, "requires_grad"))
        if a is None:
            return
        cands = [n for n, v in self.tensors(lambda v: q(v, "requires_grad"))]
        ins = rng.sample(cands, min(len(cands), rng.randint(1, 3)))
        go = (
            ""
            if t.numel() == 1 and rng.random() < 0.6
            else f", grad_outputs={self._gradient_for(t)}"
        )
        opts = ""
        if rng.random() < 0.4:
            opts += ", retain_graph=True"
        if rng.random() < 0.25:
            opts += ", create_graph=True"
        if rng.random() < 0.4:
            opts += ", allow_unused=True"
        out = self.name()
        self.emit(
            f"{out} = torch.autograd.grad({a}, [{', '.join(ins)}]{go}{opts})",
            "autograd.grad",
            (out,),
            mutates=True,
            dtype=self.dtype_of(t),
        )
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
        elif r < 0.3 and q(t, "is_leaf") and q(t, "grad") is not None:
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
