"""Matrix products: mm, mv, dot, bmm, addmm (matmul composes them as torch does)."""

from __future__ import annotations

from .registry import ELEMENTWISE, HOLOMORPHIC, defop, kernel_refuses


def _mT(xp, a):
    # the method, not xp.swapaxes: arrays and Tensors both have it, without NumPy's wrapper
    return a.swapaxes(-1, -2)


def _check_mm(a, b, name):
    if a.shape[-1] != b.shape[-2]:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({a.shape[-2]}x{a.shape[-1]} and "
            f"{b.shape[-2]}x{b.shape[-1]})"
        )


def _col_major(x) -> bool:
    """A 2-D array laid out column by column (a transposed view, such as ``weight.t()``)."""
    return x.ndim == 2 and x.flags.f_contiguous and not x.flags.c_contiguous


# torch's mm_mat1_backward / mm_mat2_backward: a gradient comes out in its input's memory
# layout, so ``linear``'s weight (seen as the column-major ``weight.t()``) gets a row-major
# ``.grad`` with the weight's strides, as in torch, from a product of the same cost.
def _mm_grad_mat1(xp, g, b, a=None):
    if a is not None and not xp.is_txp and _col_major(a):
        return _mT(xp, xp.matmul(b, _mT(xp, g)))
    return xp.matmul(g, _t(xp, b))


def _mm_grad_mat2(xp, g, a, b=None):
    if b is not None and not xp.is_txp and _col_major(b):
        return _mT(xp, xp.matmul(_mT(xp, g), a))
    return xp.matmul(_t(xp, a), g)


def _t(xp, a):
    """torch's formulas transpose a matrix with ``t()`` (TBackward0 under create_graph)."""
    return a.t() if xp.is_txp and a.ndim == 2 else a.swapaxes(-1, -2)


def _product_runs(args, p):
    """Whether torch's product kernel runs (and so dispatches on the dtype) for these operands:
    shapes that fit (their error comes first) and a non-empty result with a non-empty
    contraction (mm of (2, 0) @ (0, 2) is zeros without it)."""
    a, b = args[-2], args[-1]
    if a.ndim < 1 or b.ndim < 1:
        return True
    k = a.shape[-1]
    kb = b.shape[0] if b.ndim == 1 else b.shape[-2]
    if k != kb or a.shape[:-2] != b.shape[:-2]:
        return False
    n = a.shape[-2] if a.ndim > 1 else 1
    m = b.shape[-1] if b.ndim > 1 else 1
    batch = 1
    for s in a.shape[:-2]:
        batch *= s
    return bool(k and n and m and batch)


def _mm_fwd(xp, a, b, p):
    _check_mm(a, b, "mm")
    return xp.matmul(a, b)


MM = defop(
    "mm",
    node="MmBackward0",
    inputs=("self", "mat2"),
    batch=ELEMENTWISE,
    complex=HOLOMORPHIC,
    bools=kernel_refuses("addmm_impl_cpu_", when=_product_runs),
    saved=("mat2", "mat2_sym_sizes", "self", "self_sym_sizes"),
    fwd=_mm_fwd,
    vjp=(
        lambda xp, g, a, b, out, p: _mm_grad_mat1(xp, g, b, a),
        lambda xp, g, a, b, out, p: _mm_grad_mat2(xp, g, a, b),
    ),
    layout=((0, 0), (1, 1)),  # torch saves mat2 for self's gradient only, self for mat2's
    jvp=lambda xp, t, x, out, p: xp.matmul(t[0], x[1]) + xp.matmul(x[0], t[1]),
    sample={"domain": (-2, 2), "kind": "mm"},
    torch=lambda torch, a, b: torch.mm(a, b),
)


def _mv_fwd(xp, a, v, p):
    if a.shape[-1] != v.shape[0]:
        raise RuntimeError(
            f"size mismatch, got input ({a.shape[0]}), mat ({a.shape[0]}x{a.shape[1]}), vec ({v.shape[0]})"
        )
    return xp.matmul(a, v)


MV = defop(
    "mv",
    node="MvBackward0",
    inputs=("self", "vec"),
    saved=("self", "vec"),
    batch=lambda xp, t, x, out, p: xp.matmul(t[0], x[1]) + xp.matmul(x[0], t[1][..., None])[..., 0],
    complex=HOLOMORPHIC,
    bools=kernel_refuses("addmv_impl_cpu", when=_product_runs),
    fwd=_mv_fwd,
    # torch: grad.ger(vec.conj()) (outer: grad.reshape(-1, 1) * vec), self.conj().t().mv(grad)
    vjp=(
        lambda xp, g, a, v, out, p: xp.reshape(g, (-1, 1)) * v,
        lambda xp, g, a, v, out, p: xp.call(MV, xp.t(xp.cj(a)), g),
    ),
    jvp=lambda xp, t, x, out, p: xp.matmul(t[0], x[1]) + xp.matmul(x[0], t[1]),
    sample={"domain": (-2, 2), "kind": "mv"},
    torch=lambda torch, a, v: torch.mv(a, v),
)


def _dot_fwd(xp, a, b, p):
    if a.shape != b.shape:
        raise RuntimeError(
            "inconsistent tensor size, expected tensor ["
            + str(a.shape[0])
            + "] and src ["
            + str(b.shape[0])
            + "] to have the same number of elements, but got "
            + f"{a.shape[0]} and {b.shape[0]} elements respectively"
        )
    return xp.dot(a, b) if not xp.is_txp else xp.sum(a * b)


DOT = defop(
    "dot",
    node="DotBackward0",
    inputs=("self", "tensor"),
    saved=("self", "tensor"),
    batch=lambda xp, t, x, out, p: xp.sum(t[0] * x[1], axis=-1) + xp.sum(x[0] * t[1], axis=-1),
    complex=HOLOMORPHIC,
    bools=kernel_refuses("dot", when=lambda args, p: args[0].shape == args[1].shape),
    fwd=_dot_fwd,
    vjp=(lambda xp, g, a, b, out, p: g * b, lambda xp, g, a, b, out, p: g * a),
    jvp=lambda xp, t, x, out, p: xp.sum(t[0] * x[1]) + xp.sum(x[0] * t[1]),
    sample={"domain": (-2, 2), "kind": "dot"},
    torch=lambda torch, a, b: torch.dot(a, b),
)


def _bmm_fwd(xp, a, b, p):
    if a.shape[0] != b.shape[0] or a.shape[2] != b.shape[1]:
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{a.shape[0]}, "
            f"{a.shape[2]}] but got: [{b.shape[0]}, {b.shape[1]}]."
        )
    return xp.matmul(a, b)


BMM = defop(
    "bmm",
    node="BmmBackward0",
    inputs=("self", "mat2"),
    saved=("mat2", "self"),
    batch=ELEMENTWISE,
    complex=HOLOMORPHIC,
    bools=kernel_refuses("bmm", when=_product_runs),
    fwd=_bmm_fwd,
    # torch: grad.bmm(mat2.transpose(1, 2)), self.transpose(1, 2).bmm(grad)
    vjp=(
        lambda xp, g, a, b, out, p: xp.call(BMM, g, xp.swapaxes(b, 1, 2)),
        lambda xp, g, a, b, out, p: xp.call(BMM, xp.swapaxes(a, 1, 2), g),
    ),
    jvp=lambda xp, t, x, out, p: xp.matmul(t[0], x[1]) + xp.matmul(x[0], t[1]),
    sample={"domain": (-2, 2), "kind": "bmm"},
    torch=lambda torch, a, b: torch.bmm(a, b),
)


def _alpha(g, p):
    return g if p is None else g * p["alpha"]


def _addmm_fwd(xp, bias, a, b, p):
    _check_mm(a, b, "addmm")
    out = xp.matmul(a, b)
    if p is not None:
        return out * p["alpha"] + bias * p["beta"]
    out += bias
    return out


# addmm(bias, mat1, mat2) = beta * bias + alpha * mat1 @ mat2 (F.linear with a bias on 2-D input)
ADDMM = defop(
    "addmm",
    node="AddmmBackward0",
    inputs=("self", "mat1", "mat2"),
    batch=ELEMENTWISE,
    complex=HOLOMORPHIC,
    bools=kernel_refuses("addmm_impl_cpu_", when=_product_runs),
    saved=("alpha=1", "beta=1", "mat1", "mat1_sym_sizes", "mat2", "mat2_sym_sizes"),
    fwd=_addmm_fwd,
    vjp=(
        lambda xp, g, bias, a, b, out, p: g if p is None else g * p["beta"],
        lambda xp, g, bias, a, b, out, p: _alpha(_mm_grad_mat1(xp, g, b, a), p),
        lambda xp, g, bias, a, b, out, p: _alpha(_mm_grad_mat2(xp, g, a, b), p),
    ),
    layout=((1, 1), (2, 2)),  # torch saves mat2 for mat1's gradient only, mat1 for mat2's
    jvp=lambda xp, t, x, out, p: (
        t[0] + xp.matmul(t[1], x[2]) + xp.matmul(x[1], t[2])
        if p is None
        else t[0] * p["beta"] + (xp.matmul(t[1], x[2]) + xp.matmul(x[1], t[2])) * p["alpha"]
    ),
    sample={"domain": (-2, 2), "kind": "addmm"},
    torch=lambda torch, bias, a, b: torch.addmm(bias, a, b),
)
