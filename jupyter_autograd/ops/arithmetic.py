"""Arithmetic rows: add/sub/rsub/mul/div (Tensor and Scalar overloads), fill, pow (its three
overloads), maximum/minimum and where, with broadcasting; and the zero rules of piecewise-constant
functions (``zero_grad``).

Part of the elementwise family: :mod:`.elementwise` imports this module first (so the registry
holds these rows before the unary ones) and re-exports the rows its importers read."""

from __future__ import annotations

import cmath

import numpy as np

from .registry import (
    AS_WRITTEN,
    AUTO_ELEMENT_WISE,
    ELEMENTWISE,
    HOLOMORPHIC,
    NO_GRAD,
    Refuse,
    defop,
)

# ---------------------------------------------------------------- binary arithmetic
# The engine reduces broadcast gradients to each input's shape, so rules ignore broadcasting.


def _alpha(p):
    return 1 if p is None else p.get("alpha", 1)


# torch's complex add and sub compute a + alpha * b with a complex alpha (1+0j): a nan or inf
# in b reaches both parts (nan+0j + 1 is nan+nanj), where NumPy adds the parts apart
def _cadd(sign):
    return lambda xp, a, b, p: a + b * complex(sign * _alpha(p))


def _add_alpha(a, b, alpha):
    """``a + alpha * b``; in bool (both operands bool) torch's alpha is a bool too: a | b."""
    if getattr(a, "dtype", None) is not None and a.dtype.kind == "b" and _kind(b) == "b":
        return a | (b & bool(alpha))
    return a + alpha * b


ADD = defop(
    "add",
    node="AddBackward0",
    inputs=("self", "other"),
    saved=("alpha=1",),
    batch=ELEMENTWISE,
    complex=HOLOMORPHIC,
    cfwd=_cadd(1),
    fwd=lambda xp, a, b, p: a + b if p is None else _add_alpha(a, b, p["alpha"]),
    vjp=(
        lambda xp, g, a, b, out, p: g,
        lambda xp, g, a, b, out, p: g if p is None else g * p["alpha"],
    ),
    jvp=lambda xp, t, x, out, p: t[0] + (t[1] if p is None else t[1] * p["alpha"]),
    sample={"domain": (-3, 3)},
    torch=lambda torch, a, b: torch.add(a, b),
    doc="a + alpha * b",
)
SUB = defop(
    "sub",
    node="SubBackward0",
    inputs=("self", "other"),
    saved=("alpha=1",),
    batch=ELEMENTWISE,
    complex=HOLOMORPHIC,
    cfwd=_cadd(-1),
    fwd=lambda xp, a, b, p: a - b if p is None else a - p["alpha"] * b,
    vjp=(
        lambda xp, g, a, b, out, p: g,
        lambda xp, g, a, b, out, p: -g if p is None else g * (-p["alpha"]),
    ),
    jvp=lambda xp, t, x, out, p: t[0] - (t[1] if p is None else t[1] * p["alpha"]),
    sample={"domain": (-3, 3)},
    torch=lambda torch, a, b: torch.sub(a, b),
)
# 1 - a: torch's rsub takes the scalar as an argument, not an input (one next_function)
RSUB = defop(
    "rsub.Scalar",
    node="RsubBackward1",
    inputs=("self",),
    saved=("alpha=1",),
    batch=ELEMENTWISE,
    complex=HOLOMORPHIC,
    fwd=lambda xp, a, p: p["other"] - a * p.get("alpha", 1),
    vjp=lambda xp, g, a, out, p: g * (-p.get("alpha", 1)),
    jvp=AUTO_ELEMENT_WISE,
    sample={"domain": (-3, 3), "params": {"other": 1.5}},
    torch=lambda torch, a, other: other - a,
)
MUL = defop(
    "mul",
    node="MulBackward0",
    inputs=("self", "other"),
    saved=("other", "self"),
    batch=ELEMENTWISE,
    complex=HOLOMORPHIC,
    fwd=lambda xp, a, b, p: a * b,
    vjp=(lambda xp, g, a, b, out, p: g * b, lambda xp, g, a, b, out, p: g * a),
    jvp=lambda xp, t, x, out, p: t[0] * x[1] + x[0] * t[1],
    sample={"domain": (-3, 3)},
    torch=lambda torch, a, b: torch.mul(a, b),
)
DIV = defop(
    "div",
    node="DivBackward0",
    inputs=("self", "other"),
    saved=("other", "self"),
    batch=ELEMENTWISE,
    complex=HOLOMORPHIC,
    fwd=lambda xp, a, b, p: a / b,
    # d(a/b)/db = -a / b^2
    vjp=(
        lambda xp, g, a, b, out, p: g / b,
        lambda xp, g, a, b, out, p: -g * (a / b / b),
    ),  # torch: -grad * ((self / other) / other)
    jvp=lambda xp, t, x, out, p: t[0] / x[1] - t[1] * x[0] / (x[1] * x[1]),
    sample={"domain": (-3, 3), "avoid": {1: (0.0,)}},
    torch=lambda torch, a, b: torch.div(a, b),
)


# div(self, other: Scalar) as torch's internals call it (e.g. a loss divided by the batch size)
DIV_SCALAR = defop(
    "div.Scalar",
    node="DivBackward1",
    inputs=("self",),
    saved=("other",),
    batch=ELEMENTWISE,
    complex=HOLOMORPHIC,
    fwd=lambda xp, x, p: x / p["other"],
    vjp=lambda xp, g, x, out, p: g / p["other"],
    jvp=AUTO_ELEMENT_WISE,
    sample={"domain": (-3, 3), "kind": "div_scalar"},
)


# mul(self, other: Scalar), as torch's internals call it ((1 - label_smoothing) * nll_loss)
MUL_SCALAR = defop(
    "mul.Scalar",
    node="MulBackward1",
    inputs=("self",),
    saved=("other",),
    complex=HOLOMORPHIC,
    batch=ELEMENTWISE,
    fwd=lambda xp, x, p: x * p["other"],
    vjp=lambda xp, g, x, out, p: g * p["other"],
    jvp=AUTO_ELEMENT_WISE,
    sample={
        "kind": "scalar_arg",
        "cases": lambda rng: [
            (
                lambda t: _dispatch().apply1(MUL_SCALAR, t, {"other": 0.7}),
                [rng.uniform(-3, 3, (3, 4))],
                None,
            )
        ],
    },
)
# add/sub(self, other: Scalar), as torch's C++ composites write ``t + eps`` / ``cos - margin``
# (a Python ``t + 0.5`` wraps the number as a tensor: AddBackward0); one edge, nothing saved
ADD_SCALAR = defop(
    "add.Scalar",
    node="AddBackward1",
    inputs=("self",),
    saved=(),
    complex=HOLOMORPHIC,
    batch=ELEMENTWISE,
    fwd=lambda xp, x, p: x + p["other"],
    vjp=lambda xp, g, x, out, p: g,
    jvp=AUTO_ELEMENT_WISE,
    sample={
        "kind": "scalar_arg",
        "cases": lambda rng: [
            (
                lambda t: _dispatch().apply1(ADD_SCALAR, t, {"other": 0.7}),
                [rng.uniform(-3, 3, (3, 4))],
                None,
            )
        ],
    },
)
SUB_SCALAR = defop(
    "sub.Scalar",
    node="SubBackward1",
    inputs=("self",),
    saved=(),
    complex=HOLOMORPHIC,
    batch=ELEMENTWISE,
    fwd=lambda xp, x, p: x - p["other"],
    vjp=lambda xp, g, x, out, p: g,
    jvp=AUTO_ELEMENT_WISE,
    sample={
        "kind": "scalar_arg",
        "cases": lambda rng: [
            (
                lambda t: _dispatch().apply1(SUB_SCALAR, t, {"other": 0.7}),
                [rng.uniform(-3, 3, (3, 4))],
                None,
            )
        ],
    },
)
# fill_(self, value: Scalar): Tensor.fill_ and cross_entropy's empty mean; the gradient is
# zeros_like(grad) as derivatives.yaml (not grad * 0, which keeps NaN/inf)
FILL = defop(
    "fill_.Scalar",
    node="FillBackward2",
    inputs=("self",),
    saved=(),
    complex=AS_WRITTEN,
    fwd=lambda xp, x, p: xp.full(x.shape, p["value"], x.dtype),
    vjp=lambda xp, g, x, out, p: g.new_zeros(g.shape) if xp.is_txp else xp.zeros_like(g),
    jvp=AUTO_ELEMENT_WISE,
    smooth=True,
    sample={
        "kind": "scalar_arg",
        "cases": lambda rng: [
            (
                lambda t: _dispatch().apply1(FILL, t, {"value": 2.0}) * t,
                [rng.uniform(-3, 3, (3, 4))],
                None,
            )
        ],
    },
)


def _dispatch():
    from . import dispatch

    return dispatch


def zero_grad(xp, g, *_):
    """The gradient of a piecewise-constant function: torch's zeros_like(grad), so an inf or
    nan incoming gradient still gives 0 (g * 0 would give nan)."""
    return g.new_zeros(g.shape) if xp.is_txp else xp.zeros_like(g)


# pow(self, exponent: scalar): d/dx x^c = c x^(c-1); c == 0 gives zeros, as torch
def _pow_scalar_vjp(xp, g, x, out, p):
    c = p["exponent"]
    if c == 0:
        return zero_grad(xp, g)
    if isinstance(c, complex) and not xp.iscomplexobj(x):
        # a real base of a complex exponent: the conjugated operands' base is a - 0j, as in
        # _pow_base_vjp (fuzz seed 327073: a negative base's gradient was e^(2 pi) times
        # torch's); the row saves no result, g has the result's dtype. torch's pow_backward
        # ends in handle_r_to_c: the real part, which its forward-mode tangent shows too
        xc = xp.cj(x.to(g.dtype)) if xp.is_txp else xp.conj(x.astype(g.dtype))
        return _r_to_c(xp, x, g * xp.mul_scalar(xp.pow_scalar(xc, c - 1), c))
    # torch's pow_backward: grad * (exponent * self.pow(exponent - 1))
    return g * xp.mul_scalar(xp.pow_scalar(x, c - 1), c)


def _cpow(xp, a, b):
    """``a ** b``; a complex result at a zero base as torch's std::pow (C's cexp(b * clog(a))):
    0 ** (-1+1j) is inf+nanj and 0 ** 0j nan+nanj, where NumPy's power special-cases them.
    Integers follow torch's powi (see _int_pow)."""
    if _integral(a) and _integral(b):
        return _int_pow(xp, a, b)
    out = a**b
    if out.dtype.kind == "c":
        zero = a == 0
        if zero is True or (zero is not False and xp.any(zero)):
            with np.errstate(all="ignore"):
                at0 = xp.exp(b * xp.log(xp.zeros_like(out)))
            out = xp.where(zero, at0, out)
    return out


def _integral(v) -> bool:
    return v.dtype.kind in "iub" if hasattr(v, "dtype") else isinstance(v, int)


def _int_pow(xp, a, b):
    """torch's integer pow: bool ** bool has no kernel; a negative exponent (a tensor's: NumPy
    refuses them) gives 0, except for the bases 1 (1) and -1 (1 or -1 by the exponent's parity)."""
    if _kind(a) == "b" and _kind(b) == "b":
        if b.__class__ is bool and hasattr(a, "dtype"):  # a bool tensor ** a Python bool
            return (a ** int(b)).astype(a.dtype)
        raise NotImplementedError("\"pow\" not implemented for 'Bool'")
    neg = b < 0
    if not xp.any(neg):
        return a**b
    out = a ** xp.where(neg, 0, b)
    odd = (b % 2) != 0
    at_neg = xp.where(a == 1, 1, xp.where(a == -1, xp.where(odd, -1, 1), 0))
    return xp.where(neg, at_neg, out).astype(out.dtype, copy=False)


def _kind(v) -> str:
    return v.dtype.kind if hasattr(v, "dtype") else ("b" if v.__class__ is bool else "i")


POW = defop(
    "pow.Tensor_Scalar",
    node="PowBackward0",
    inputs=("self",),
    saved=("exponent", "self"),
    batch=ELEMENTWISE,
    complex=HOLOMORPHIC,
    fwd=lambda xp, x, p: _cpow(xp, x, p["exponent"]),
    vjp=_pow_scalar_vjp,
    jvp=AUTO_ELEMENT_WISE,
    sample={"domain": (0.2, 3), "params": {"exponent": 2.5}},
    torch=lambda torch, x, exponent: torch.pow(x, exponent),
)


# d/da a^b = b a^(b-1); d/db a^b = a^b log(a) (0 where a == 0 and b >= 0, as torch; a complex
# b counts as >= 0 when it is real and non-negative)
def _pow_exponent_vjp(xp, g, a, b, out, p):
    nonneg = (xp.imag(b) == 0) & (xp.real(b) >= 0) if xp.iscomplexobj(b) else b >= 0
    base = a
    if xp.iscomplexobj(out) and not xp.iscomplexobj(a):
        # torch takes the log of the base in the result type: a negative real base of a
        # complex power has the complex log (not nan). As the complex twin's rule on arrays
        # (conjugated operands) the base is the promoted one's conjugate, a - 0j, which keeps
        # the log's branch on the negative axis (log(conj z) = conj(log z) there too); under
        # create_graph the reflected namespace's cj marks where torch conjugates
        base = xp.cj(a.to(out.dtype)) if xp.is_txp else xp.conj(a.astype(out.dtype))
    # a == 0 with b < 0: result * log(0) = inf * -inf = -inf, as torch (not masked to nan)
    return g * xp.where((a == 0) & nonneg, 0.0, xp.cj(out * xp.log(base)))


def _r_to_c(xp, x, v):
    """torch's handle_r_to_c: the derivative term of a real input ``x`` is ``v``'s real part."""
    return xp.real(v) if xp.iscomplexobj(v) and not xp.iscomplexobj(x) else v


def _pow_base_grad(xp, a, b):
    """d/da a^b = b a^(b-1). torch's pow_backward computes ``exponent - 1`` on the exponent
    tensor itself, which has no kernel for bool: its backward (and tangent) raise."""
    if getattr(b.dtype, "np", b.dtype).kind == "b":  # an array, or a Tensor (create_graph)
        raise RuntimeError(
            "Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
            "trying to invert a mask, use the `~` or `logical_not()` operator instead."
        )
    return b * a ** xp.sub_scalar(b, 1)


def _pow_base_vjp(xp, g, a, b, out, p):
    # torch masks the base's gradient where the exponent is 0 (0 * 0^-1 would be nan). A real
    # base of a complex power: as in _pow_exponent_vjp, the conjugated operands' base is the
    # promoted base's conjugate, a - 0j, so that a negative base's power takes the branch of
    # log that the conjugate of torch's b * a^(b-1) has (fuzz seed 303966)
    if xp.iscomplexobj(out) and not xp.iscomplexobj(a):
        a = xp.cj(a.to(out.dtype)) if xp.is_txp else xp.conj(a.astype(out.dtype))
    return xp.where(b == 0, 0.0, g * _pow_base_grad(xp, a, b))


POW_TT = defop(
    "pow.Tensor_Tensor",
    node="PowBackward1",
    inputs=("self", "exponent"),
    batch=ELEMENTWISE,
    complex=HOLOMORPHIC,
    saved=("exponent", "self", "result"),
    fwd=lambda xp, a, b, p: _cpow(xp, a, b),
    vjp=(
        _pow_base_vjp,
        _pow_exponent_vjp,
    ),
    # torch's pow_backward_self/_exponent end in handle_r_to_c: a real input's term is real (the
    # inputs arrive promoted to the result type; a tangent keeps its input's dtype)
    jvp=lambda xp, t, x, out, p: (
        _r_to_c(xp, t[0], t[0] * _pow_base_grad(xp, x[0], x[1]))
        + _r_to_c(xp, t[1], t[1] * out * xp.log(x[0]))
    ),
    sample={"domain": (0.2, 3)},
    torch=lambda torch, a, b: torch.pow(a, b),
)


# 2 ** x: the base is a scalar argument. torch's pow_backward_exponent: g * result * log(base),
# with the complex log of a real base for a complex exponent (log(-0.5) is log(0.5) + pi j), and
# 0 where the base is 0 and the exponent real and >= 0
def _pow_scalar_base_vjp(xp, g, x, out, p):
    base = p["self"]
    cx = xp.iscomplexobj(x)
    if base == 0:
        nonneg = (xp.imag(x) == 0) & (xp.real(x) >= 0) if cx else x >= 0
        with np.errstate(all="ignore"):
            r = xp.mul_scalar(out, -np.inf)
            return g * xp.where(nonneg, r.new_zeros(r.shape) if xp.is_txp else 0.0, r)
    # a complex exponent gets a complex base from api.pow, so that the conjugate twin's base
    # (-0.5-0j) takes the log's other side of the branch cut
    r = g * xp.mul_scalar(
        out, cmath.log(base) if isinstance(base, complex) else float(np.log(base))
    )
    # torch's pow_backward_exponent ends in handle_r_to_c: a real exponent's gradient (and its
    # forward-mode tangent) is the real part
    return _r_to_c(xp, x, r)


POW_ST = defop(
    "pow.Scalar",
    node="PowBackward2",
    inputs=("exponent",),
    saved=("self", "exponent", "result"),
    batch=ELEMENTWISE,
    complex=HOLOMORPHIC,
    fwd=lambda xp, x, p: _cpow(xp, p["self"], x),
    vjp=_pow_scalar_base_vjp,
    jvp=AUTO_ELEMENT_WISE,
    sample={"domain": (-2, 2), "params": {"self": 2.0}},
    torch=lambda torch, x, self: torch.pow(self, x),
)


# max/min of two tensors: ties split the gradient in half and only the losing side gets none,
# as torch's where(a == b, g / 2, g).masked_fill_(a < b, 0): a nan operand keeps its gradient
def _maximum_vjp(xp, g, a, b, out, p):
    return xp.where(a == b, g * 0.5, xp.where(a < b, 0.0, g))


MAXIMUM = defop(
    "maximum",
    node="MaximumBackward0",
    inputs=("self", "other"),
    saved=("other", "self"),
    batch=ELEMENTWISE,
    complex=Refuse(RuntimeError, "maximum not implemented for complex tensors.", first=True),
    fwd=lambda xp, a, b, p: xp.maximum(a, b),
    vjp=(_maximum_vjp, lambda xp, g, a, b, out, p: _maximum_vjp(xp, g, b, a, out, p)),
    jvp=lambda xp, t, x, out, p: xp.where(x[0] >= x[1], t[0], t[1]),
    smooth=False,
    sample={"domain": (-3, 3), "distinct": True},
    torch=lambda torch, a, b: torch.maximum(a, b),
)
MINIMUM = defop(
    "minimum",
    node="MinimumBackward0",
    inputs=("self", "other"),
    saved=("other", "self"),
    batch=ELEMENTWISE,
    complex=Refuse(RuntimeError, "minimum not implemented for complex tensors.", first=True),
    fwd=lambda xp, a, b, p: xp.minimum(a, b),
    vjp=(lambda xp, g, a, b, out, p: _maximum_vjp(xp, g, b, a, out, p), _maximum_vjp),
    jvp=lambda xp, t, x, out, p: xp.where(x[0] <= x[1], t[0], t[1]),
    smooth=False,
    sample={"domain": (-3, 3), "distinct": True},
    torch=lambda torch, a, b: torch.minimum(a, b),
)
WHERE = defop(
    "where.self",
    node="WhereBackward0",
    inputs=("condition", "self", "other"),
    batch=ELEMENTWISE,
    complex=AS_WRITTEN,
    saved=("condition",),
    fwd=lambda xp, c, a, b, p: xp.where(c, a, b),
    vjp=(
        NO_GRAD,
        lambda xp, g, c, a, b, out, p: xp.where(c, g, 0.0),
        lambda xp, g, c, a, b, out, p: xp.where(c, 0.0, g),
    ),
    jvp=lambda xp, t, x, out, p: xp.where(x[0], t[1], t[2]),
    smooth=True,
    sample={"domain": (-3, 3), "kind": "where"},
    torch=lambda torch, c, a, b: torch.where(c, a, b),
)
