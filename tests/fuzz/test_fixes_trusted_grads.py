"""Issue #13, gradients you can trust: classes of the differential fuzzer's mismatches in what
backward computes (not only its messages), compared statement by statement with torch."""

from __future__ import annotations

from .test_fixes_check_order import _check

_HOOKED = [
    "x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)",
    "w = torch.tensor([0.5, 1.5, 2.0], requires_grad=True)",
    "log = []",
    "a = x * w",
    "h1 = a.grad_fn.register_hook(lambda gi, go: log.append(['a', [g is None for g in gi]]))",
    "y = a.neg()",
    "h2 = y.grad_fn.register_hook(lambda gi, go: log.append(['y', [g is None for g in gi]]))",
    "h3 = y.grad_fn.register_prehook(lambda go: log.append(['y pre', go[0].tolist()]))",
    "h4 = y.register_hook(lambda g: log.append(['y tensor', g.tolist()]) or g * 10)",
    "loss = (y * 2).sum()",
]


def test_a_non_leaf_input_runs_its_node_but_computes_nothing_below_it():
    """backward(inputs=[y]) with y a non-leaf: torch retains y's gradient and runs y's node
    (its hooks see undefined gradients), but the node computes only the gradients whose edge
    leads to a node that runs (should_compute_output). Ours ran the whole node: a bool
    exponent's pow below y raised, the hooks below ran."""
    _check(
        [
            *_HOOKED,
            "show = ['log', 'yg', 'kept', 'xg']",
            "loss.backward(inputs=[y], retain_graph=True)",
            "yg, kept, xg = y.grad, y.retains_grad, x.grad",
        ],
        [  # y's node leads to another input (x): it computes x's gradient only
            *_HOOKED,
            "show = ['log', 'yg', 'xg', 'wg']",
            "loss.backward(inputs=[y, x])",
            "yg, xg, wg = y.grad, x.grad, w.grad",
        ],
        [
            *_HOOKED,
            "show = ['log', 'r']",
            "r = [g.tolist() for g in torch.autograd.grad(loss, [y, w])]",
        ],
        [  # a target below an unrelated retained grad: a's node runs and computes nothing
            *_HOOKED,
            "show = ['log', 'yg', 'ag']",
            "y.retain_grad()",
            "loss.backward(inputs=[a])",
            "yg, ag = y.grad, a.grad",
        ],
        [
            "x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)",
            "y = x ** torch.tensor(True)",
            "show = ['yg']",
            "y.sum().backward(inputs=[y])",
            "yg = y.grad",
            "z = x * torch.tensor(True)",
            "y = z ** torch.tensor(True)",
            "with torch.autograd.detect_anomaly(): y.sum().backward(inputs=[y])",
            "yg = y.grad",
            "y.sum().backward(inputs=[x])",
        ],
        [  # an Error node raises whatever it computes (fuzz seed 745021)
            "x = torch.tensor(1.0, requires_grad=True)",
            "t = x // torch.ones(2, 3)",
            "t.backward(torch.ones(2, 3), inputs=[t])",
            "show = ['g']",
            "g = torch.autograd.grad(t, [t], torch.ones(2, 3))[0]",
        ],
    )


def _nograd_view(op, *tail):
    return [
        "x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)",
        "w = torch.tensor([1.5, 2.5], requires_grad=True)",
        "with torch.no_grad(): v = x[0:2]; m = x.expand(2, 3)[:, :2]",
        "log = []",
        "show = ['log']",
        "with torch.autograd.graph.saved_tensors_hooks("
        "lambda t: log.append(list(t.shape)) or t, lambda t: t): y = " + op,
        *tail,
    ]


def test_a_node_whose_only_input_is_a_no_grad_view_saves_as_torch():
    """A view made under no_grad of a tensor that requires grad has no edge, yet requires
    grad: torch records the op's node and saves what its generated code does not guard by an
    edge (a single-argument row saves everything, the result always). A second backward is
    then refused, an in-place change of the base or the view detected, the saved tensors
    hooks called; ours saved nothing (no edge, no save)."""
    twice = ("y.sum().backward()", "y.sum().backward()")
    base = ("with torch.no_grad(): x.mul_(2)", "y.sum().backward()")
    view = ("with torch.no_grad(): v.mul_(2)", "y.sum().backward()")
    ops = (
        "v.sin()",
        "v.exp()",
        "v ** 2",
        "v * 2",
        "v * v",
        "v * w",
        "v.clamp(min=1.5)",
        "v.relu()",
        "v.cumprod(0)",
        "v.prod()",
        "torch.max(v)",
        "v.norm()",
        "m @ v",
        "torch.nn.functional.linear(m, v)",
        "torch.atan2(v, v)",
        "torch.cat([v, w])",
    )
    _check(*[_nograd_view(op, *tail) for op in ops for tail in (twice, base, view)])


def _cumprod(mod, create_graph, dtype="float32"):
    return [
        (
            "x = torch.tensor([[1.5, -0.7, 2.0, 0.3], [0.0, 2.0, 3.0, 0.5], [1.2, 0.0, 2.0, 0.0],"
            f" [1.0, 2.0, 0.0, 3.0]], dtype=torch.{dtype}, requires_grad=True)"
        ),
        "g = torch.tensor([[0.3, -1.2, 0.5, 2.0]] * 4, dtype=x.dtype)",
        "y = x.cumprod(1)",
        mod,
        "show = ['gx']",
        f"gx = torch.autograd.grad(y, x, g, create_graph={create_graph})[0].detach()",
    ]


def test_cumprod_backward_reads_its_saved_result_and_input_as_torch():
    """torch's cumprod_backward reads the saved result as well as the input: without a zero,
    reversed_cumsum(result * grad) / input (whose rounding ours now shares); with one, its
    masks (the result just before the first zero), or under create_graph its O(n^2) products
    of the input alone. Ours recomputed everything from the input: a .data write into the
    result (or one that adds or removes a zero) gave another gradient."""
    mods = (
        "pass",
        "y.data.mul_(2)",
        "x.data.mul_(2)",
        "y.data.add_(1); x.data.sub_(0.5)",
        "x.data[0, 1] = 0",
        "x.data[1:, :] += 0.25",
    )
    _check(*[_cumprod(m, cg) for m in mods for cg in (False, True)])
    _check(*[_cumprod(m, False, "float64") for m in mods])


def test_an_in_place_op_saves_self_as_its_result():
    """torch's in-place op saves self as its result: a later ``.data`` write into self (or
    into its base, or a view of it) changes what the formula reads. Ours kept the array the
    op computed before copying it into self."""
    ops = (
        "b.sigmoid_()",
        "b.tanh_()",
        "b.exp_()",
        "b.reciprocal_()",
        "b.cumprod_(0)",
        "b.hypot_(x)",
        "b.copysign_(-1.0)",
        "v.exp_()",
        "v.sigmoid_()",
        "v.cumprod_(0)",
    )
    writes = ("b.data.mul_(1.5)", "v.data.add_(1)", "b.data[1:].mul_(3)")
    _check(
        *[
            [
                "x = torch.tensor([0.3, -0.4, 0.2, 0.5], dtype=torch.float64, requires_grad=True)",
                "b = x * 1",
                "v = b[1:]",
                op,
                write,
                "show = ['gx', 'gg']",
                "gx = torch.autograd.grad(b, x, torch.ones_like(b), retain_graph=True)[0]",
                "gg = torch.autograd.grad(b, x, torch.ones_like(b), create_graph=True)[0]",
                "gx, gg = [round(v, 9) for v in gx.tolist()], [round(v, 9) for v in gg.tolist()]",
            ]
            for op in ops
            for write in writes
        ]
    )


def test_formulas_read_what_torch_saves():
    """median's evenly_distribute_backward fills the elements equal to the saved result (none
    after a .data write: zeros, not 0 * inf); erfinv's recomputes erfinv(self) (torch saves no
    result)."""
    _check(
        *[
            [
                "x = torch.tensor([[0.7, -0.3, 0.4], [0.5, 0.2, -0.6]], dtype=torch.double)",
                "x.requires_grad_()",
                f"y = {op}",
                write,
                "show = ['gx', 'names']",
                "names = sorted(n for n in dir(y.grad_fn) if n in ('_saved_self', '_saved_result'))",
                "gx = torch.autograd.grad(y, x, torch.ones_like(y))[0]",
                "gx = [round(v, 9) for v in gx.flatten().tolist()]",
            ]
            for op in ("x.median()", "x.nanmedian()", "x.erfinv()")
            for write in ("pass", "y.data.mul_(1.5)", "x.data.add_(0.25)")
        ]
    )


def test_saved_tensors_are_checked_in_torchs_order_of_names():
    """torch's generated backward unpacks its saved tensors sorted by name: of two inputs
    modified in place, the one named first is reported (other before self, key before query,
    imag before real), as the saved tensors hooks pack complex's; complex keeps each part while
    its gradient is computed (fuzz seeds 700148, 702201)."""
    ops = (
        "a * b",
        "a / b",
        "torch.atan2(a, b)",
        "a ** b",
        "torch.hypot(a, b)",
        "torch.xlogy(a, b)",
        "torch.complex(a, b)",
        "torch.complex(b, a)",
    )
    _check(
        *[
            [
                "x = torch.tensor([0.3, 0.4, 0.2], requires_grad=True)",
                "w = torch.tensor([0.5, 0.7, 0.9], requires_grad=True)",
                "a = x * 1; b = w + 0",
                f"y = {op}",
                "with torch.no_grad(): a.mul_(2); b.mul_(2)",
                "y.abs().sum().backward()",
            ]
            for op in ops
        ],
        [
            "x = torch.rand(1, 2, 3, 4, requires_grad=True)",
            "q = x * 1; k = x + 0; v = x - 0",
            "y = torch.nn.functional.scaled_dot_product_attention(q, k, v)",
            "with torch.no_grad(): q.mul_(2); k.mul_(2); v.mul_(2)",
            "y.sum().backward()",
        ],
        [
            "x = torch.ones(3, requires_grad=True); y = torch.full((3,), 2.0)",
            "log = []",
            "show = ['log']",
            "hooks = (lambda t: log.append(t.tolist()) or t, lambda t: t)",
            "with torch.autograd.graph.saved_tensors_hooks(*hooks): t = torch.complex(x, y + x)",
            "t.backward(torch.ones(3, dtype=torch.complex64))",
            "t.backward(torch.ones(3, dtype=torch.complex64))",
            "t = torch.complex(y, x)",
            "with torch.no_grad(): y.add_(1)",
            "t.backward(torch.ones(3, dtype=torch.complex64), retain_graph=True)",
            "with torch.no_grad(): x.add_(1)",
            "t.backward(torch.ones(3, dtype=torch.complex64))",
        ],
    )


def test_retain_grad_follows_a_tensor_a_custom_function_marks_dirty():
    """A tensor that retains its gradient (retain_grad, or a non-leaf input of
    backward(inputs=...)) and is then modified in place by a custom Function (mark_dirty) keeps
    retaining it through the Function's node, as after a built-in in-place op (fuzz seed
    716922: ours left its .grad None)."""
    cls = (
        "class AddOne(torch.autograd.Function):\n"
        "    @staticmethod\n"
        "    def forward(ctx, x):\n"
        "        x.add_(1)\n"
        "        ctx.mark_dirty(x)\n"
        "        return x\n"
        "    @staticmethod\n"
        "    def backward(ctx, g):\n"
        "        return g * 2\n"
    )
    fn = [
        cls,
        "x = torch.ones(4, requires_grad=True)",
        "show = ['vg', 'tg', 'xg']",
    ]
    _check(
        *[
            [
                *fn,
                "t = x * 1",
                f"v = {v}",
                retain,
                "AddOne.apply(v)",
                "(v * 3).sum().backward(retain_graph=True)",
                "vg, tg, xg = v.grad, t.grad, x.grad",
                "v.grad = None; t.grad = None",
                "(t * 5).sum().backward()",
                "vg, tg, xg = v.grad, t.grad, x.grad",
            ]
            for v in ("t", "t[1:]")
            for retain in ("v.retain_grad(); t.retain_grad()", "(t * 1).sum().backward(inputs=[v])")
        ]
    )


def test_retain_grad_of_a_no_grad_view_is_a_leafs_no_op():
    """retain_grad returns at torch's is_leaf(), which reads the stored node: a view made under
    no_grad whose base was then modified (also under no_grad) returns there; ours regenerated
    its history first and refused the in-place change (fuzz seeds 715046, 719132)."""
    _check(
        [
            "x = torch.ones(3, 1, dtype=torch.complex64, requires_grad=True)",
            "with torch.no_grad(): t = x.unsqueeze(-1)",
            "with torch.no_grad(): t.copy_(torch.tensor(1 + 1j))",
            "t.retain_grad()",
            "show = ['kept']",
            "kept = t.retains_grad",
            "t.is_leaf",
        ],
        [
            "x = torch.ones(3, requires_grad=True)",
            "with torch.no_grad(): t = x[1:]",
            "t.retain_grad()",
            "x.sum().backward()",
            "show = ['kept']",
            "kept = t.retains_grad",
        ],
    )


def test_hooks_see_undefined_gradients_as_none():
    """torch calls a tensor's hooks (a leaf's too) with None where no gradient reached it (an
    unused output of unbind, linalg.vector_norm(x, 0)'s undefined gradient): a hook returning
    a value then raises; a node's post hooks see the undefined grad_outputs as None (not the
    zeros its formula is run on), and run when none is defined; a custom Function's backward
    still runs, on zeros (fuzz seed 712283)."""
    log = [
        "log = []",
        "show = ['log']",
        (
            "def hk(name, ret=None):\n"
            "    return lambda g: log.append([name, None if g is None else g.tolist()]) or ret\n"
        ),
    ]
    _check(
        [
            *log,
            "x = torch.tensor([1.0, -2.0], requires_grad=True)",
            "a = x * 1",
            "h = a.register_hook(hk('a'))",
            "a.retain_grad()",
            "h = x.register_hook(hk('x'))",
            "t = torch.linalg.vector_norm(a, 0)",
            "h = a.grad_fn.register_hook(lambda gi, go: log.append([str(gi), str(go)]))",
            "t.backward()",
            "show = ['log', 'ag', 'xg']",
            "ag, xg = a.grad, x.grad",
        ],
        [
            *log,
            "x = torch.tensor([1.0, -2.0], requires_grad=True)",
            "h = x.register_hook(hk('x', x))",
            "torch.linalg.vector_norm(x, 0).backward()",
        ],
        [
            *log,
            "x = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)",
            "a, b, c = x.unbind()",
            "h = a.register_hook(hk('a'))",
            "h = b.register_hook(hk('b'))",
            "h = a.grad_fn.register_hook(lambda gi, go: log.append([str(gi), str(go)]))",
            "(b * 2).backward()",
        ],
        [
            *log,
            (
                "class F(torch.autograd.Function):\n"
                "    @staticmethod\n"
                "    def forward(ctx, x):\n"
                "        return x * 2\n"
                "    @staticmethod\n"
                "    def backward(ctx, g):\n"
                "        log.append(g.tolist())\n"
                "        return g * 2\n"
            ),
            "x = torch.tensor([1.0, -2.0], requires_grad=True)",
            "y = F.apply(x)",
            "h = y.grad_fn.register_hook(lambda gi, go: log.append([str(gi), str(go)]))",
            "torch.linalg.vector_norm(y, 0).backward()",
            "show = ['log', 'xg']",
            "xg = x.grad",
        ],
    )


_WALK = (
    "def walk(t):\n"
    "    out, stack, seen = [], [t.grad_fn], set()\n"
    "    while stack:\n"
    "        f = stack.pop()\n"
    "        if f is None or id(f) in seen:\n"
    "            continue\n"
    "        seen.add(id(f))\n"
    "        out.append(f.name())\n"
    "        stack.extend(n for n, _ in f.next_functions)\n"
    "    return out\n"
)


def test_masked_fill_with_a_tensor_value_is_torchs_masked_fill_tensor():
    """A tensor value makes masked_fill torch's masked_fill.Tensor (MaskedFillBackward1, an
    edge to self and to the value, whichever requires grad; its gradient masked_select(grad,
    mask).sum()), refusing a value that is not 0-d; ours went through where (WhereBackward0)
    or took the value's item()."""
    _check(
        *[
            [
                _WALK,
                "m = torch.tensor([[True, False, True], [False, False, True]])",
                "names = vals = gs = None",
                f"z = {z}",
                f"v = {v}",
                f"r = {call}",
                "show = ['names', 'vals', 'gs']",
                "names, vals = walk(r), r.tolist()",
                "ins = [t for t in (z, v) if t.requires_grad]",
                "seed = torch.arange(6.0).reshape(2, 3)[:, : r.shape[-1]]",
                "gs = torch.autograd.grad(r, ins, seed, create_graph=True)",
                "gs = [(g.tolist(), walk(g)) for g in gs]",
            ]
            for z in (
                "torch.zeros(2, 3, requires_grad=True)",
                "torch.zeros(3, requires_grad=True)",
                "torch.zeros(2, 3)",
            )
            for v in (
                "torch.tensor(2.0, requires_grad=True)",
                "torch.tensor(2.0, dtype=torch.float64, requires_grad=True)",
                "torch.tensor(2.0)",
                "torch.tensor([2.0], requires_grad=True)",
                "torch.tensor(2.0 + 1j)",
            )
            for call in ("torch.masked_fill(z, m, v)", "z.clone().masked_fill_(m, v)")
            # (left: torch refuses the in-place broadcast before converting a complex value)
            if not ("1j" in v and "(3," in z and "_(" in call)
        ]
    )


def test_create_graph_records_torchs_sum_to_and_scalar_products():
    """Under create_graph a gradient reduced to a 0-d input is torch's sum() (SumBackward0), to
    another shape one sum over the leading and broadcast dims then a view; lerp's Scalar
    weight multiplies as a Scalar (MulBackward1); max()/min() fill zeros by masked_fill
    (MaskedFillBackward1), fuzz seeds 711146, 717871, 725685."""
    _check(
        *[
            [
                _WALK,
                "x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=torch.double)",
                "x.requires_grad_()",
                f"w = {w}",
                f"y = {expr}",
                "seed = torch.ones_like(y)",
                "gs = torch.autograd.grad(y, [x, w], seed, create_graph=True, allow_unused=True)",
                "show = ['gs']",
                "gs = [None if g is None else (str(g.round(decimals=9)), walk(g)) for g in gs]",
            ]
            for w, expr in (
                (
                    "torch.tensor(1.0, dtype=torch.double).requires_grad_()",
                    "torch.lerp(x, w, 0.25).asinh()",
                ),
                (
                    "torch.tensor([[1.0], [2.0]], dtype=torch.double).requires_grad_()",
                    "(x * w).exp()",
                ),
                (
                    "torch.tensor([[[1.0, 2.0, 3.0]]], dtype=torch.double).requires_grad_()",
                    "(x * w).exp()",
                ),
                (
                    "torch.tensor(2.0, dtype=torch.double).requires_grad_()",
                    "x % x.min() + w * x.max()",
                ),
            )
        ]
    )


def test_unflatten_is_a_view_of_any_strides():
    """unflatten is torch's view (splitting one dim is a view whatever the strides):
    ViewBackward0 where ours reshaped (ReshapeAliasBackward0), fuzz seeds 716050, 721383,
    728810."""
    _check(
        *[
            [
                "x = torch.ones(2, 3, dtype=torch.float64, requires_grad=True)",
                f"r = {e}",
                "show = ['name', 'stride']",
                "name, stride = r.grad_fn.name(), r.stride()",
            ]
            for e in (
                "x.diagonal().unflatten(-1, (2, -1))",
                "x.t().unflatten(0, (3, 1))",
                "x.expand(2, 2, 3).unflatten(0, (1, 2))",
                "x[:, ::2].unflatten(1, (2, 1))",
                "x.unflatten(1, (3, 1))",
            )
        ]
    )


def test_zeros_like_formulas_give_zeros_for_a_nan_or_inf_gradient():
    """torch's zeros_like formulas (copysign's other, the in-place samplers, bernoulli, fill)
    give zeros whatever the incoming gradient; ours multiplied it by 0, turning a nan or inf
    gradient into nan (fuzz seed 745054: copysign then xlog1py)."""
    _check(
        *[
            [
                "x = torch.tensor([0.3, -1.2], dtype=torch.float64, requires_grad=True)",
                "w = torch.tensor([0.5, -0.7], dtype=torch.float64, requires_grad=True)",
                f"y = {e}",
                "g = torch.tensor([float('nan'), float('inf')], dtype=torch.float64)",
                "gs = torch.autograd.grad(y, [x, w], g, allow_unused=True, create_graph=True)",
                "show = ['gs']",
                "gs = [None if t is None else (str(t.tolist()), t.requires_grad) for t in gs]",
            ]
            for e in (
                "torch.copysign(x, w)",
                "x.clone().normal_()",
                "x.clone().uniform_()",
                "x.clone().exponential_()",
                "x.clone().random_(3)",
                "torch.bernoulli(x.sigmoid())",
                "x.clone().bernoulli_(w.sigmoid())",
                "torch.fill(x, 2.0)",
                "x.clone().fill_(w[0])",
            )
        ]
    )
