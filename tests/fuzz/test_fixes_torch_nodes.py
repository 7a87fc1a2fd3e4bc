"""Issue #13, torch's nodes: the in-place activations record torch's own nodes (which save
the result), celu is its own row, rrelu and pdist exist, copysign by a number is its own
overload; compared statement by statement with torch."""

from __future__ import annotations

from .test_fixes_check_order import _check

_X = "x = torch.tensor([-1.5, -0.2, 0.0, 0.3, 2.0], requires_grad=True)"


def _node(call, **more):
    """``call`` on a non-leaf copy of x: its node, what it saves, its edges and x's gradient
    (rounded: the formulas from the result differ from the input's in the last bits);
    ``more``: further values shown, each by its expression."""
    return [
        _X,
        "y = x * 1",
        f"r = {call}",
        f"show = {['name', 'saved', 'edges', 'same', 'value', 'grad', *more]!r}",
        "name = r.grad_fn.name()",
        "saved = sorted(k for k in dir(r.grad_fn) if k.startswith('_saved_') and k != '_saved_names')",
        "edges = [type(f).__name__ for f, _ in r.grad_fn.next_functions]",
        "same = r is y",
        "value = [round(v, 5) for v in r.tolist()]",
        *(f"{k} = {v}" for k, v in more.items()),
        "r.sum().backward()",
        "grad = [round(v, 5) for v in x.grad.tolist()]",
    ]


def test_in_place_activations_record_their_own_nodes_from_the_result():
    """F.elu/celu/selu/leaky_relu/threshold with inplace=True (and torch.selu_, celu_,
    threshold_, F.leaky_relu_) record torch's in-place nodes: EluBackward1, CeluBackward1,
    LeakyReluBackward1 saving the result, ThresholdBackward1 saving the input as it was; ours
    recorded the out-of-place nodes (fuzz)."""
    _check(
        _node("torch.nn.functional.elu(y, 0.7, inplace=True)", alpha="r.grad_fn._saved_alpha"),
        _node("torch.nn.functional.elu_(y)"),
        _node("torch.nn.functional.selu(y, inplace=True)"),
        _node("torch.selu_(y)"),
        _node("torch.nn.functional.celu(y, 0.5, inplace=True)"),
        _node("torch.celu_(y, 0.5)"),
        _node("torch.nn.functional.celu(y, 0.5)"),
        _node("torch.nn.functional.leaky_relu(y, 0.2, inplace=True)"),
        _node("torch.nn.functional.leaky_relu_(y, 0.2)"),
        _node(
            "torch.nn.functional.threshold(y, 0.1, 2.0, inplace=True)",
            kept="r.grad_fn._saved_self.tolist()",
        ),
        _node("torch.threshold_(y, 0.1, 2.0)"),
        [  # the result's formula cannot invert a negative slope: backward refuses it
            _X,
            "r = torch.nn.functional.elu(x * 1, -0.5, inplace=True)",
            "r.sum().backward()",
            "r = torch.nn.functional.celu(x * 1, -0.5, inplace=True)",
            "r.sum().backward()",
            "r = torch.nn.functional.leaky_relu(x * 1, -0.5, inplace=True)",
            "r.sum().backward()",
            "r = torch.nn.functional.celu(x * 1, 0.0)",
            "r = torch.nn.functional.leaky_relu(x * 1, -0.5)",
            "r.sum().backward()",
            "show = ['g']",
            "g = x.grad.tolist()",
        ],
        [  # the gradient reads the result: a later write into it is caught
            _X,
            "y = x * 1",
            "r = torch.nn.functional.elu(y, inplace=True)",
            "y.add_(1)",
            "r.sum().backward()",
            "y = x * 1",
            "r = torch.nn.functional.threshold(y, 0.1, 2.0, inplace=True)",
            "y.add_(1)",
            "r.sum().backward()",
            "show = ['g']",
            "g = x.grad.tolist()",
        ],
    )


def test_rrelu_and_pdist_exist_with_torchs_nodes():
    """F.rrelu / torch.rrelu (RreluWithNoiseBackward0, 1 in place): the mean slope out of
    training, torch's draws in training (the same random stream for the same seed); torch.pdist
    (PdistBackward0, whose double backward refuses to run). Ours had neither."""
    _check(
        _node("torch.nn.functional.rrelu(y)", training="r.grad_fn._saved_training"),
        _node("torch.rrelu(y, 0.1, 0.3)"),
        _node("torch.nn.functional.rrelu(y, inplace=True)"),
        ["torch.manual_seed(3)", *_node("torch.nn.functional.rrelu(y, training=True)")],
        [
            "torch.manual_seed(5)",
            *_node(
                "torch.rrelu_(y, 0.2, 0.6, True)",
                noise="[round(v, 5) for v in r.grad_fn._saved_noise.tolist()]",
                up="r.grad_fn._saved_upper",
            ),
        ],
        [
            "torch.manual_seed(5)",
            "show = ['a']",
            "a = torch.nn.functional.rrelu(-torch.ones(3, 4, dtype=torch.float64), training=True).tolist()",
            "torch.nn.functional.rrelu(torch.ones(2, dtype=torch.int64))",
            "torch.nn.functional.rrelu(torch.ones(2, dtype=torch.int64), training=True)",
            "torch.nn.functional.rrelu(torch.ones(2), 0.5, 0.2)",
        ],
        *(
            [
                "x = torch.tensor([[0.5, 1.0], [2.0, -1.0], [0.5, 1.0], [0.1, 0.2]], requires_grad=True)",
                f"r = torch.pdist(x, {q})",
                "show = ['name', 'saved', 'value', 'grad', 'node']",
                "name = r.grad_fn.name()",
                "saved = sorted(k for k in dir(r.grad_fn) if k.startswith('_saved_') and k != '_saved_names')",
                "value = [round(v, 5) for v in r.tolist()]",
                "g, = torch.autograd.grad(r.sum(), x, create_graph=True)",
                "grad = [round(v, 5) for v in g.flatten().tolist()]",
                "node = g.grad_fn.name()",
                "g.sum().backward()",
            ]
            for q in (0, 0.5, 1, 1.5, 2, 3, "float('inf')")
        ),
        [
            "show = ['a', 'b']",
            "a = torch.pdist(torch.ones(1, 3, requires_grad=True)).grad_fn.name()",
            "b = torch.nn.functional.pdist(torch.ones(0, 3)).shape",
            "torch.pdist(torch.ones(2, 3, dtype=torch.int64))",
            "torch.pdist(torch.ones(2, 3), -1)",
            "torch.pdist(torch.ones(3))",
        ],
    )


def test_copysign_by_a_number_is_torchs_scalar_overload():
    """torch.copysign(x, 2.0) records CopysignBackward1 (one edge, no other); ours recorded
    CopysignBackward0 with an edge for the number made a tensor (fuzz)."""
    _check(
        *(
            _node(call)
            for call in (
                "torch.copysign(y, 2.0)",
                "torch.copysign(y, -0.0)",
                "y.copysign(-3)",
                "y.copysign(True)",
                "y.copysign_(-1.0)",
                "torch.copysign(y, torch.tensor(-2.0))",
            )
        ),
        [
            "show = ['a', 'b', 'c']",
            "a = str(torch.copysign(torch.tensor([1, -2]), -2).dtype)",
            "b = str(torch.copysign(torch.tensor([1.0], dtype=torch.float64), 2.0).dtype)",
            "c = torch.copysign(torch.tensor([1.0, -2.0]), float('nan')).tolist()",
            "torch.copysign(torch.tensor([1j]), 2.0)",
        ],
    )


def test_in_place_comparisons_keep_a_history_with_zero_gradients():
    """x.eq_(y), lt_, ... (and greater_, less_equal_, not_equal_) on a tensor that requires grad,
    or with an other that does: torch records EqBackward0 (a number) or EqBackward1 (a tensor),
    whose gradients are zeros; ours left the result without history (fuzz)."""
    programs = []
    for name in ("eq_", "ne_", "lt_", "le_", "gt_", "ge_", "greater_", "less_equal_"):
        programs.append(_node(f"y.{name}(0.3)"))
        programs.append(
            [
                "w = torch.tensor([0.0, -0.2, 1.0, 0.3, 2.0], requires_grad=True)",
                *_node(
                    f"y.{name}(w)",
                    wg="torch.autograd.grad(r.sum(), w, retain_graph=True)[0].tolist()",
                ),
            ]
        )
    _check(
        *programs,
        [
            "w = torch.tensor([2.0, 2.0, 2.0], requires_grad=True)",
            "r = torch.ones(3).gt_(w[0])",
            "show = ['edges', 'g', 'h']",
            "edges = [type(f).__name__ if f else None for f, _ in r.grad_fn.next_functions]",
            "g = torch.autograd.grad(r.sum(), w, create_graph=True)[0]",
            "h = [g.requires_grad, g.grad_fn]",
        ],
        [
            _X,
            "y = x * 1",
            "y[:2].eq_(-1.5)",
            "show = ['name', 'v', 'g']",
            "name = y.grad_fn.name()",
            "v = y.tolist()",
            "y.sum().backward()",
            "g = x.grad.tolist()",
            "x.eq_(1.0)",
            "(x * 1).lt_(torch.ones(2))",
            "(x * 1).lt_(1j)",
        ],
    )


def test_dist_records_dist_backward():
    """torch.dist records DistBackward0 (self, other, p, result) with edges to both inputs;
    p = 0 leaves self's gradient undefined and refuses other's; ours recorded the norm of a
    difference (LinalgVectorNormBackward0 below SubBackward0)."""
    programs = []
    for q in (2, 1, 0, 0.5, 1.5, 3, "float('inf')", "-float('inf')", -1):
        programs.append(
            [
                "x = torch.tensor([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]], requires_grad=True)",
                "w = torch.tensor([1.0, 0.0, 3.0], requires_grad=True)",
                f"r = torch.dist(x, w, {q})",
                "show = ['name', 'saved', 'p', 'edges', 'value', 'g', 'g0']",
                "name = r.grad_fn.name()",
                "saved = sorted(k for k in dir(r.grad_fn) if k.startswith('_saved_') and k != '_saved_names')",
                "p = r.grad_fn._saved_p",
                "edges = [type(f).__name__ for f, _ in r.grad_fn.next_functions]",
                "value = round(r.item(), 5)",
                "g = g0 = 'refused'",
                "g = [None if t is None else [round(v, 5) for v in t.flatten().tolist()] for t in torch.autograd.grad(r, [x, w], retain_graph=True, allow_unused=True)]",
                "g0 = [t is None for t in torch.autograd.grad(r, [x], allow_unused=True)]",
            ]
        )
    _check(
        *programs,
        [
            "show = ['d']",
            "d = str(torch.dist(torch.ones(2, 3), torch.ones(2, 1, dtype=torch.float64)).dtype)",
            "torch.dist(torch.tensor([1, 2]), torch.tensor([1, 2]))",
            "torch.dist(torch.ones(3), torch.ones(4))",
        ],
    )


def test_ldexp_records_its_own_node():
    """torch.ldexp records LdexpBackward0 (other and the result saved, edges to both inputs;
    its double backward is grad * pow(2, other)); ours recorded the mul and pow it composes."""
    _check(
        [
            "x = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)",
            "o = torch.tensor([1.0, 0.5, -2.0], requires_grad=True)",
            "r = torch.ldexp(x, o)",
            "show = ['name', 'saved', 'edges', 'v', 'g', 'gg', 'i']",
            "name = r.grad_fn.name()",
            "saved = sorted(k for k in dir(r.grad_fn) if k.startswith('_saved_') and k != '_saved_names')",
            "edges = [type(f).__name__ for f, _ in r.grad_fn.next_functions]",
            "v = r.tolist()",
            "g = [t.tolist() for t in torch.autograd.grad(r.sum(), [x, o], retain_graph=True)]",
            "h = torch.autograd.grad(r.sum(), x, create_graph=True)[0]",
            "gg = [h.grad_fn.name(), [type(f).__name__ if f else None for f, _ in h.grad_fn.next_functions]]",
            "r = torch.ldexp(x, torch.tensor([1, 2, 3]))",
            "i = [str(r.dtype), str(r.grad_fn._saved_other.dtype), r.grad_fn._saved_result.tolist()]",
        ],
    )


def test_renorm_records_its_node_and_refuses_as_torch():
    """torch.renorm records RenormBackward0 (dim as given, a negative one as its unsigned wrap)
    and refuses a non-positive p, a negative maxnorm and an input under 2 dims; ours composed
    a mul and a where, and renormed a 1-d input."""
    programs = []
    for q, d, m in (
        (2, 0, 1.0),
        (1, 1, 0.5),
        ("float('inf')", 0, 1.0),
        (3, 1, 2.0),
        (1.5, -1, 0.7),
    ):
        programs.append(
            [
                "y = torch.tensor([[1.0, 2.0, -3.0], [0.1, 0.2, 0.3], [2.0, 0.0, 1.0]], requires_grad=True)",
                f"r = torch.renorm(y, {q}, {d}, {m})",
                "show = ['name', 'saved', 'edges', 'v', 'g']",
                "name = r.grad_fn.name()",
                "saved = [r.grad_fn._saved_dim, r.grad_fn._saved_p, r.grad_fn._saved_maxnorm]",
                "edges = [type(f).__name__ for f, _ in r.grad_fn.next_functions]",
                "v = [round(t, 5) for t in r.flatten().tolist()]",
                "(r * torch.arange(9.0).view(3, 3)).sum().backward()",
                "g = [round(t, 5) for t in y.grad.flatten().tolist()]",
            ]
        )
    _check(
        *programs,
        [
            "torch.renorm(torch.ones(3), 2, 0, 1.0)",
            "torch.ones(3).renorm_(2, 0, 1.0)",
            "torch.renorm(torch.ones(()), 2, 0, 1.0)",
            "torch.renorm(torch.ones(3, 2), -1, 0, 1.0)",
            "torch.renorm(torch.ones(3, 2), 0, 0, 1.0)",
            "torch.renorm(torch.ones(3, 2), 2, 0, -1.5)",
            "torch.renorm(torch.ones(3, 2), 2, 2, 1.0)",
        ],
    )


def test_cdist_records_cdist_backward():
    """torch.cdist off the matrix-product path records CdistBackward0 (p, result, x1, x2)
    whose double backward refuses to run; ours recorded the norm of broadcast differences."""
    programs = []
    for q in (0, 0.5, 1, 1.5, 2, 3, "float('inf')"):
        programs.append(
            [
                "x = torch.tensor([[0.5, 1.0], [2.0, -1.0], [0.5, 1.0]], requires_grad=True)",
                "y = torch.tensor([[0.5, 1.0], [1.0, 3.0]], requires_grad=True)",
                f"r = torch.cdist(x, y, {q})",
                "show = ['name', 'saved', 'p', 'edges', 'v', 'g', 'node']",
                "name = r.grad_fn.name()",
                "saved = sorted(k for k in dir(r.grad_fn) if k.startswith('_saved_') and k != '_saved_names')",
                "p = r.grad_fn._saved_p",
                "edges = [type(f).__name__ for f, _ in r.grad_fn.next_functions]",
                "v = [round(t, 5) for t in r.flatten().tolist()]",
                "w = torch.arange(6.0).view(3, 2)",
                "gs = torch.autograd.grad((r * w).sum(), [x, y], create_graph=True)",
                "g = [[round(t, 5) for t in a.flatten().tolist()] for a in gs]",
                "node = gs[0].grad_fn.name()",
                "gs[0].sum().backward()",
            ]
        )
    _check(
        *programs,
        [
            "x = torch.tensor([[0.5, 1.0], [2.0, -1.0], [0.5, 1.0]], requires_grad=True)",
            "y = torch.tensor([[0.5, 1.0], [1.0, 3.0]], requires_grad=True)",
            "r = torch.cdist(x.unsqueeze(0), y.unsqueeze(0).expand(2, 2, 2))",
            "show = ['s', 'g']",
            "s = [list(r.shape), list(r.grad_fn._saved_x1.shape)]",
            "r.sum().backward()",
            "g = [x.grad.tolist(), y.grad.tolist()]",
            "torch.cdist(torch.ones(2, 3), torch.ones(2, 3), -1)",
            "torch.cdist(torch.ones(2, 3, dtype=torch.int64), torch.ones(2, 3, dtype=torch.int64))",
            "torch.cdist(torch.ones(2, 3), torch.ones(2, 3, dtype=torch.float64))",
            "torch.cdist(torch.ones(2, 2, 3), torch.ones(3, 2, 3))",
        ],
    )


def test_cdist_matrix_product_path_records_euclidean_dist():
    """cdist with p = 2 on more than 25 rows (or compute_mode='use_mm_for_euclid_dist') is
    torch's _euclidean_dist viewed to the output (ViewBackward0 over EuclideanDistBackward0),
    its double backward composed of differentiable ops; ours recorded the norm of differences.
    (No coincident points: there the clamp at 1e-30 meets the product's rounding.)"""
    walk = (
        "def walk(f, d=0, out=None):\n"
        "    out = [] if out is None else out\n"
        "    if f is not None and d < 7:\n"
        "        out.append('  ' * d + f.name())\n"
        "        for g, _ in f.next_functions: walk(g, d + 1, out)\n"
        "    return out"
    )
    _check(
        [
            walk,
            "a = torch.tensor([[0.5, 1.0], [2.0, -1.0], [0.3, 1.0], [0.0, 0.1]], requires_grad=True)",
            "b = torch.tensor([[0.5, 1.5], [1.0, 3.0], [-1.0, 0.0]], requires_grad=True)",
            "r = torch.cdist(a, b, compute_mode='use_mm_for_euclid_dist')",
            "show = ['v', 'nodes', 'g', 'n0', 'n1', 'big']",
            "v = [round(t, 4) for t in r.flatten().tolist()]",
            "nodes = [walk(r.grad_fn), list(r.grad_fn._saved_self_sym_sizes)]",
            "gs = torch.autograd.grad((r * torch.arange(12.0).view(4, 3)).sum(), [a, b], create_graph=True)",
            "g = [[round(t, 4) for t in x.flatten().tolist()] for x in gs]",
            "n0, n1 = walk(gs[0].grad_fn), walk(gs[1].grad_fn)",
            "big = walk(torch.cdist(torch.arange(60.0).view(30, 2).requires_grad_(), b).grad_fn)",
        ]
    )
