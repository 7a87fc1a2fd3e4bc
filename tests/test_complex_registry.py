"""Complex autograd over the whole registry (issue 13 item 2, test plan A1/A4 for complex).

Every row is run on random complex inputs: where torch computes it, forward values, dtypes,
grad_fn names, VJPs (torch's conjugate Wirtinger convention) and JVPs (forward mode) equal
torch's; where torch refuses complex, ours raises the same exception type and message. Rows
without a torch counterpart are checked against finite differences of the real and imaginary
parts; holomorphic rows' real gradients are also checked with the complex step.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import jupyter_autograd as ja
from jupyter_autograd.ops import OPS
from jupyter_autograd.ops.registry import AS_WRITTEN, HOLOMORPHIC, Refuse

from ._op_samples import NotDifferentiable, Unsampleable, cases
from ._torch import require as require_torch

ALL = sorted(OPS)
# rows whose registry sample feeds (real, imaginary) pairs through view_as_complex, or mixes in
# a real constant: run here on complex tensors directly (input shape, function)
DIRECT = {
    "_conj": ((3, 4), lambda lib, z: z.conj()),
    "_conj_physical": ((3, 4), lambda lib, z: z.conj_physical()),
    "sgn": ((3, 4), lambda lib, z: z.sgn()),
    "angle": ((3, 4), lambda lib, z: z.angle()),
    "view_as_real": ((3, 4), lambda lib, z: lib.view_as_real(z)),
    "_unsafe_view": ((2, 3, 4), lambda lib, z: lib.matmul(z, lib.ones(4, 2, dtype=z.dtype))),
    "squeeze_.dim": ((5,), lambda lib, z: lib.matmul(z, lib.ones(5, 3, dtype=z.dtype))),
}


def _out0(r):
    return r[0] if isinstance(r, tuple) else r


def _complex_cases(name, rng):
    """(ours, theirs, complex inputs) for a row: its registry samples on complex arrays."""
    op = OPS[name]
    if name in DIRECT:
        shape, f = DIRECT[name]
        z = rng.uniform(-2, 2, shape) + 1j * rng.uniform(-2, 2, shape)
        return [(lambda t, f=f: f(ja, t), lambda tt, t, f=f: f(tt, t), [z], None)]
    try:
        cs = cases(op, rng)
    except NotDifferentiable:  # torch's NotImplemented nodes: compared in test_defects_rounding
        pytest.skip(f"{name} is not differentiable")
    except Unsampleable:
        pytest.fail(f"{name} has no sampler")
    lo, hi = (op.sample or {}).get("domain", (-3, 3))
    w = (hi - lo) / 2
    out = []
    for c in cs:
        # (np.asarray: a 0-d input stays an array, which the finite differences write into)
        zs = [np.asarray(a + 1j * rng.uniform(-w, w, a.shape)) for a in c.arrays]
        out.append((c.ours, c.theirs, zs, c.rtol))
    return out


def _assert_same_error(run_ours, err):
    with pytest.raises(type(err)) as info:
        run_ours()
    assert str(info.value) == str(err)


def _close(a, b, what):
    np.testing.assert_allclose(a, b, rtol=1e-7, atol=1e-9, err_msg=what)


def test_every_row_declares_its_complex_behaviour():
    """A new row must say how it treats complex tensors: none falls back silently."""
    undeclared = [
        n
        for n in ALL
        if not (OPS[n].complex in (HOLOMORPHIC, AS_WRITTEN) or isinstance(OPS[n].complex, Refuse))
    ]
    assert not undeclared


@pytest.mark.parametrize("name", ALL)
def test_complex_row_matches_torch(name, rng):
    torch = require_torch()
    compared = 0
    for ours, theirs, zs, _ in _complex_cases(name, rng):
        if theirs is None:
            continue
        t_in = [torch.tensor(z, requires_grad=True) for z in zs]
        o_in = [ja.tensor(z, requires_grad=True) for z in zs]
        try:
            t = _out0(theirs(torch, *t_in))
        except (RuntimeError, NotImplementedError, TypeError) as e:
            _assert_same_error(lambda ours=ours, o_in=o_in: ours(*o_in), e)
            compared += 1
            continue
        o = _out0(ours(*o_in))
        assert o.dtype.__repr__() == repr(t.dtype)
        _close(
            o.detach().resolve_conj().numpy(), t.detach().resolve_conj().numpy(), f"{name}: forward"
        )
        assert type(o.grad_fn).__name__ == type(t.grad_fn).__name__
        shape = tuple(t.shape)
        v = rng.uniform(-1, 1, shape) + (1j * rng.uniform(-1, 1, shape) if t.is_complex() else 0)
        t.backward(torch.tensor(v))
        o.backward(ja.tensor(v))
        for k, (a, b) in enumerate(zip(o_in, t_in)):
            if b.grad is None:
                assert a.grad is None or not np.any(a.grad.numpy())
                continue
            assert a.grad.dtype.__repr__() == repr(b.grad.dtype)
            # torch's gradient of a conjugate carries the conjugate bit: compare values
            _close(
                a.grad.resolve_conj().numpy(),
                b.grad.resolve_conj().numpy(),
                f"{name}: VJP for input {k}",
            )
        _check_jvp(torch, name, ours, theirs, zs, rng)
        compared += 1
    if not compared:
        pytest.skip(f"{name}: no torch counterpart in its samples (see the finite-difference test)")


def _jvp(lib, fn, zs, tans):
    fw = lib.autograd.forward_ad
    with fw.dual_level():
        duals = [fw.make_dual(lib.tensor(z), lib.tensor(t)) for z, t in zip(zs, tans)]
        out = _out0(fn(*duals))
        tan = fw.unpack_dual(out).tangent
        return None if tan is None else tan.resolve_conj().numpy().copy()


#: rows whose complex forward-mode tangent in torch 2.13 is not the derivative (finite
#: differences of torch's own function agree with ours, not with torch's tangent)
TORCH_JVP_WRONG = {
    "cholesky_inverse": "torch's cholesky_inverse_jvp is off by ~5e-2 from finite differences of "
    "torch's cholesky_inverse for complex inputs; ours agrees to 1e-10",
}


def _check_jvp(torch, name, ours, theirs, zs, rng):
    if name in TORCH_JVP_WRONG:
        return
    tans = [rng.uniform(-1, 1, z.shape) + 1j * rng.uniform(-1, 1, z.shape) for z in zs]
    try:
        expected = _jvp(torch, lambda *xs: theirs(torch, *xs), zs, tans)
    except (RuntimeError, NotImplementedError):
        return  # torch has no forward-mode formula for it
    got = _jvp(ja, ours, zs, tans)
    if expected is None:
        assert got is None or not np.any(got)
        return
    _close(got, expected, f"{name}: JVP")


# ---------------------------------------------------------------- finite differences
def _real_loss(fn, zs, v):
    """L = Re(sum(conj(v) * f(z))): torch's VJP of v is dL/dx + i dL/dy."""
    with ja.no_grad():
        out = _out0(fn(*[ja.tensor(z) for z in zs])).resolve_conj().numpy()
    return float(np.sum(np.real(np.conj(v) * out)))


def _fd_vjp(fn, zs, v, eps=1e-6):
    grads = []
    for k, z in enumerate(zs):
        g = np.zeros_like(z)
        for i in range(z.size):
            parts = []
            for step in (eps, 1j * eps):
                zp = [x.copy() for x in zs]
                zm = [x.copy() for x in zs]
                zp[k].reshape(-1)[i] += step
                zm[k].reshape(-1)[i] -= step
                parts.append((_real_loss(fn, zp, v) - _real_loss(fn, zm, v)) / (2 * eps))
            g.reshape(-1)[i] = parts[0] + 1j * parts[1]
        grads.append(g)
    return grads


def _fd_jvp(fn, zs, tans, eps=1e-6):
    with ja.no_grad():
        fp = _out0(fn(*[ja.tensor(z + eps * t) for z, t in zip(zs, tans)])).resolve_conj().numpy()
        fm = _out0(fn(*[ja.tensor(z - eps * t) for z, t in zip(zs, tans)])).resolve_conj().numpy()
    return (fp - fm) / (2 * eps)


@pytest.mark.parametrize("name", ALL)
def test_complex_row_matches_finite_differences(name, rng):
    """VJP and JVP of every row accepting complex against central differences of the real and
    imaginary parts (the check that needs no torch)."""
    checked = 0
    for ours, _, zs, rtol in _complex_cases(name, rng):
        o_in = [ja.tensor(z, requires_grad=True) for z in zs]
        try:
            o = _out0(ours(*o_in))
        except (RuntimeError, NotImplementedError, TypeError):
            continue  # a refusal: test_complex_row_matches_torch compares it with torch's
        if not o.is_complex() and not any(x.is_complex() for x in o_in):
            continue
        shape = tuple(o.shape)
        v = rng.uniform(-1, 1, shape) + (1j * rng.uniform(-1, 1, shape) if o.is_complex() else 0)
        o.backward(ja.tensor(v))
        rtol = rtol or 1e-5  # a row's own tolerance: finite differences through float32
        for k, (t, num) in enumerate(zip(o_in, _fd_vjp(ours, zs, v))):
            ana = t.grad.numpy() if t.grad is not None else np.zeros_like(num)
            np.testing.assert_allclose(
                ana,
                num,
                rtol=rtol,
                atol=rtol * max(0.1, np.abs(num).max()),
                err_msg=f"{name}: VJP for input {k}",
            )
        tans = [rng.uniform(-1, 1, z.shape) + 1j * rng.uniform(-1, 1, z.shape) for z in zs]
        got = _jvp(ja, ours, zs, tans)
        num = _fd_jvp(ours, zs, tans)
        np.testing.assert_allclose(
            got if got is not None else 0 * num,
            num,
            rtol=rtol,
            atol=rtol * max(0.1, np.abs(num).max()),
            err_msg=f"{name}: JVP",
        )
        checked += 1
    if not checked:
        pytest.skip(f"{name} refuses complex tensors")


# ---------------------------------------------------------------- complex step (A1)
HOLO = [n for n in ALL if OPS[n].complex is HOLOMORPHIC]


@pytest.mark.parametrize("name", HOLO)
def test_holomorphic_row_real_gradient_matches_complex_step(name, rng):
    """For real x, d/dx_k sum(v f(x)) = Im(sum(v f(x + i h e_k))) / h with h = 1e-20 (no
    cancellation): the real rule checked against the complex forward."""
    h = 1e-20
    for c in cases(OPS[name], rng):
        ts = [ja.tensor(a, requires_grad=True) for a in c.arrays]
        out = _out0(c.ours(*ts))
        v = rng.uniform(-1, 1, tuple(out.shape))
        out.backward(ja.tensor(v))
        for k, (t, a) in enumerate(zip(ts, c.arrays)):
            step = np.zeros(a.shape)
            flat = step.reshape(-1)
            for i in range(a.size):
                zs = [x.astype(complex) for x in c.arrays]
                zs[k].reshape(-1)[i] += 1j * h
                with ja.no_grad():
                    f = _out0(c.ours(*[ja.tensor(z) for z in zs])).numpy()
                flat[i] = np.sum(v * f).imag / h
            np.testing.assert_allclose(
                t.grad.numpy(), step, rtol=1e-8, atol=1e-8, err_msg=f"{name}: input {k}"
            )


def test_refusals_name_the_dtype(rng):
    """complex64 and complex128 are named as torch's kernels name them."""
    torch = require_torch()
    for dt in ("complex64", "complex128"):
        z = np.ones((2, 3), dtype=dt)
        for f in (
            lambda lib, x: lib.amax(x, 0),
            lambda lib, x: x.softmax(0),
            lambda lib, x: x.softmax(1),
            lambda lib, x: lib.nn.functional.gelu(x),
        ):
            try:
                f(torch, torch.tensor(z))
            except NotImplementedError as e:
                with pytest.raises(NotImplementedError, match=re.escape(str(e))):
                    f(ja, ja.tensor(z))
            else:
                pytest.fail("torch accepted it")


# ---------------------------------------------------------------- second order (A6 for complex)
@pytest.mark.parametrize("name", ALL)
def test_complex_row_passes_gradcheck_and_gradgradcheck(name, rng):
    """Every row accepting complex passes the complex gradcheck (real and imaginary parts of
    inputs and outputs) and, for smooth rows, gradgradcheck: the twins' conjugated rules are
    differentiable themselves (create_graph runs them on Tensors)."""
    op = OPS[name]
    checked = 0
    for ours, _, zs, rtol in _complex_cases(name, rng):
        ts = [ja.tensor(z, requires_grad=True) for z in zs]
        try:
            ours(*ts)
        except (RuntimeError, NotImplementedError, TypeError):
            continue
        kw = {"atol": rtol, "rtol": rtol} if rtol else {}

        def f(*xs, ours=ours):
            return _out0(ours(*xs))

        assert ja.autograd.gradcheck(f, ts, check_forward_ad=True, **kw)
        if op.smooth and not rtol:
            assert ja.autograd.gradgradcheck(f, ts, **kw)
        checked += 1
    if not checked:
        pytest.skip(f"{name} refuses complex tensors")
