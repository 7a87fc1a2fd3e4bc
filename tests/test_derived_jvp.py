"""JVPs derived from a row's other rules (issue 16 item 4): ``jvp=AUTO_ELEMENT_WISE`` runs the
VJP rule on the tangent, ``jvp=AUTO_LINEAR`` the forward, as torch's derivatives.yaml derives
``auto_element_wise`` / ``auto_linear`` formulas.

Generated over the registry: every row declaring a derivation holds the derived rule and no hand
copy; no other row writes its JVP as a copy of its VJP rule or of its forward (the declaration
is the one place to say so); and every derived tangent equals torch's forward-mode tangent
(``torch.autograd.forward_ad``) on the row's samples, real and, where the row takes complex
tensors, complex, on arrays and on graph tensors (a primal that requires grad: the rule runs on
``txp``)."""

from __future__ import annotations

import inspect
import re

import numpy as np
import pytest

import jupyter_autograd as ja
from jupyter_autograd.ops import OPS
from jupyter_autograd.ops.registry import (
    AS_WRITTEN,
    AUTO_ELEMENT_WISE,
    AUTO_LINEAR,
    HOLOMORPHIC,
    NO_GRAD,
    _Marker,
    defop,
)

from ._op_samples import NotDifferentiable, Unsampleable, cases
from ._torch import require as require_torch
from .test_complex_registry import _complex_cases

ALL = sorted(OPS)
DERIVED = sorted(n for n in ALL if OPS[n].jvp_from is not None)
ELEMENT_WISE = sorted(n for n in DERIVED if OPS[n].jvp_from is AUTO_ELEMENT_WISE)

#: rows whose samples call the row directly (no torch counterpart there): torch's same call
THEIRS = {
    "add.Scalar": lambda torch, x: x + 0.7,
    "sub.Scalar": lambda torch, x: x - 0.7,
    "mul.Scalar": lambda torch, x: x * 0.7,
    "div.Scalar": lambda torch, x: x / 3.0,
    "fill_.Scalar": lambda torch, x: x.clone().fill_(2.0) * x,
    "_to_copy": lambda torch, x: x.to(torch.float32).to(torch.float64) * 1.0,
}

#: rows whose hand JVP reads like their VJP rule but is not a derivation: each says why
NOT_DERIVABLE = {
    # sgn's complex Jacobian is not complex-linear: its map is self-adjoint, so torch's formula
    # runs sgn_backward on the tangent as it stands; auto_element_wise would conjugate it
    "sgn": "self-adjoint, not holomorphic",
    # two outputs (the result and its mask): torch's auto_element_wise needs one
    "native_dropout": "two outputs",
}


def _src(f) -> str:
    try:
        return inspect.getsource(f).strip()
    except (OSError, TypeError):
        return ""


def _normalized(src: str) -> str:
    """A rule's expression with the JVP's names read as the VJP's (``t[0]`` -> ``g``,
    ``x[0]`` -> ``x``), without its keyword, comments and spaces."""
    s = re.sub(r"#.*", "", src)
    s = re.sub(r"^(\w+ = |jvp=|vjp=)", "", s).rstrip(",")
    s = s.replace("t[0]", "g").replace("x[0]", "x")
    s = re.sub(r"lambdaxp,[gt],x,out,p:", "", s.replace(" ", "").replace("\n", ""))
    return s


def _resolve(fn, name):
    code = fn.__code__
    if name in code.co_freevars:
        return fn.__closure__[code.co_freevars.index(name)].cell_contents
    return fn.__globals__.get(name)


def _hand_copy(op) -> str | None:
    """How a row's hand-written JVP repeats another of its rules, or None."""
    jvp = op.jvp
    if op.variadic or isinstance(jvp, _Marker) or not hasattr(jvp, "__code__"):
        return None
    js = _src(jvp)
    fwd = getattr(op.fwd, "__wrapped__", op.fwd)
    m = re.search(r"lambda xp, t, x, out, p: (\w+)(\.fwd)?\(xp, t\[0\], p\)", js)
    called = m and _resolve(jvp, m.group(1))
    if m and m.group(2):  # another row's forward: ROW.fwd
        called = getattr(called, "fwd", None)
    if m and len(op.inputs) == 1 and getattr(called, "__wrapped__", called) is fwd:
        return "the forward on the tangent (AUTO_LINEAR)"
    if len(op.vjp) != 1 or isinstance(op.vjp[0], _Marker):
        return None
    vjp = op.vjp[0]
    m = re.search(r"lambda xp, t, x, out, p: (\w+)\(xp, t\[0\], x\[0\], out, p\)", js)
    if m and _resolve(jvp, m.group(1)) is vjp:
        return "the VJP rule called on the tangent (AUTO_ELEMENT_WISE)"
    vs = _src(vjp)
    if js and vs and js != vs and _normalized(js) == _normalized(vs):
        return "the VJP formula written again (AUTO_ELEMENT_WISE)"
    return None


def test_derived_rows_hold_the_derived_rule():
    for name in DERIVED:
        op = OPS[name]
        rule = op.jvp
        if op.jvp_from is AUTO_ELEMENT_WISE:
            assert rule.derived_from is op.vjp[0], name
            assert len(op.inputs) == 1 and op.n_out == 1, name
            assert op.batch is not None, name  # elementwise rows batch their tangents
        else:
            assert rule.derived_from is getattr(op.fwd, "__wrapped__", op.fwd), name
            assert all(r is not NO_GRAD for r in op.vjp), name
    assert len(ELEMENT_WISE) >= 80 and len(DERIVED) - len(ELEMENT_WISE) >= 80


def test_no_row_writes_a_jvp_that_a_declaration_derives():
    """A hand JVP repeating the row's VJP rule or forward is a copy the registry derives."""
    copies = {n: why for n in ALL if n not in NOT_DERIVABLE and (why := _hand_copy(OPS[n]))}
    assert not copies
    for n in NOT_DERIVABLE:  # the exceptions still are what they say
        assert OPS[n].jvp_from is None


def test_hand_copy_detector_finds_copies():
    """The detector above flags each kind of copy (a check that cannot fail proves nothing)."""

    class Row:
        variadic = False
        inputs = ("self",)

    def fwd(xp, x, p):
        return -x

    def vjp(xp, g, x, out, p):
        return g * x

    # one rule a line, as rows write them (the detector reads a rule's source line)
    same_jvp = lambda xp, t, x, out, p: t[0] * x[0]
    same_vjp = lambda xp, g, x, out, p: g * x
    for jvp, vjp_rule in (
        (lambda xp, t, x, out, p: fwd(xp, t[0], p), vjp),
        (lambda xp, t, x, out, p: vjp(xp, t[0], x[0], out, p), vjp),
        (same_jvp, same_vjp),
    ):
        row = Row()
        row.fwd, row.vjp, row.jvp = fwd, (vjp_rule,), jvp
        assert _hand_copy(row), _src(jvp)
    row = Row()
    other_jvp = lambda xp, t, x, out, p: t[0] / x[0]
    row.fwd, row.vjp, row.jvp = fwd, (same_vjp,), other_jvp
    assert _hand_copy(row) is None


def test_declarations_refuse_rows_they_do_not_fit():
    common = {"node": "XBackward0", "fwd": lambda xp, a, b, p: a * b}
    two = (lambda xp, g, a, b, out, p: g * b, lambda xp, g, a, b, out, p: g * a)
    with pytest.raises(ValueError, match="AUTO_ELEMENT_WISE needs one differentiable input"):
        defop(
            "_test_two_inputs", inputs=("self", "other"), vjp=two, jvp=AUTO_ELEMENT_WISE, **common
        )
    with pytest.raises(ValueError, match="AUTO_LINEAR needs every input differentiable"):
        defop(
            "_test_no_grad",
            inputs=("self", "other"),
            vjp=(two[0], NO_GRAD),
            jvp=AUTO_LINEAR,
            **common,
        )
    assert "_test_two_inputs" not in OPS and "_test_no_grad" not in OPS


def _their_fn(name, theirs):
    if theirs is not None:
        return theirs
    if name in THEIRS:
        return THEIRS[name]
    fn = getattr(require_torch(), name, None)
    return None if fn is None else (lambda torch, x, fn=fn: fn(x))


def _out0(r):
    return r[0] if isinstance(r, tuple) else r


def _tangent(lib, fn, arrays, tans, requires_grad=False):
    fw = lib.autograd.forward_ad
    with fw.dual_level():
        duals = [
            fw.make_dual(lib.tensor(a, requires_grad=requires_grad), lib.tensor(t))
            for a, t in zip(arrays, tans)
        ]
        tan = fw.unpack_dual(_out0(fn(*duals))).tangent
        return None if tan is None else tan.detach().resolve_conj().numpy().copy()


def _compare(name, ours, theirs, arrays, rng, what, rtol=None):
    torch = require_torch()
    complex_in = np.iscomplexobj(arrays[0])
    tans = [
        rng.uniform(-1, 1, a.shape) + (1j * rng.uniform(-1, 1, a.shape) if complex_in else 0)
        for a in arrays
    ]
    try:
        expected = _tangent(torch, lambda *xs: theirs(torch, *xs), arrays, tans)
    except (RuntimeError, NotImplementedError) as e:  # torch has no forward-mode rule here
        return f"torch refuses: {e}"
    tol = rtol or 1e-9
    for rg in (False, True):  # arrays, then graph tensors (the rule on txp)
        got = _tangent(ja, ours, arrays, tans, requires_grad=rg)
        if got is None and not rg and not np.any(expected):
            # the random rows (bernoulli, normal) record no node for a primal that does not
            # require grad, so the dual gets no tangent where torch's is zeros (findings.md);
            # with requires_grad=True the row runs and its derived zero tangent is compared
            continue
        if expected is None:
            assert got is None or not np.any(got), (name, what)
            continue
        np.testing.assert_allclose(
            got, expected, rtol=tol, atol=tol, err_msg=f"{name}: {what} (requires_grad={rg})"
        )
    return None


@pytest.mark.parametrize("name", DERIVED)
def test_derived_jvp_equals_torch_forward_mode(name, rng):
    op = OPS[name]
    try:
        cs = cases(op, rng)
    except NotDifferentiable:
        pytest.skip(f"{name}: torch records NotImplemented")
    except Unsampleable:
        pytest.fail(f"{name} has no sampler")
    compared = 0
    for case in cs:
        theirs = _their_fn(name, case.theirs)
        if theirs is None:
            continue
        if _compare(name, case.ours, theirs, case.arrays, rng, "real", case.rtol) is None:
            compared += 1
    if op.complex is HOLOMORPHIC or op.complex is AS_WRITTEN:
        for ours, theirs, zs, rtol in _complex_cases(name, rng):
            theirs = _their_fn(name, theirs)
            if theirs is None:
                continue
            if _compare(name, ours, theirs, zs, rng, "complex", rtol) is None:
                compared += 1
    assert compared, f"{name}: no sample compared with torch"
