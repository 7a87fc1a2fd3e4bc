"""Helpers for comparing layers with torch: values, gradients, grad_fn names, forward-mode
tangents, errors (type and message) and module reprs. ``lib`` is ``jupyter_autograd`` or torch."""

from __future__ import annotations

import warnings

import numpy as np

import jupyter_autograd as ja

TOL = {"float32": (2e-5, 2e-5), "float64": (1e-10, 1e-11)}


def tensors(lib, arrays, dtype, requires_grad=True):
    dt = getattr(lib, dtype)
    return [
        None
        if a is None
        else lib.tensor(
            a, dtype=dt, requires_grad=requires_grad and np.asarray(a).dtype.kind == "f"
        )
        for a in arrays
    ]


def first(r):
    return r[0] if isinstance(r, (tuple, list)) else r


def compare(
    fn, arrays, torch, dtype="float64", rtol=None, atol=None, grad=True, seed=0, names=True
):
    """Run ``fn(lib, *tensors)`` in both libraries; compare output, grad_fn name and the
    gradients of every input for one random cotangent. Returns (ours, theirs) outputs."""
    r, a = TOL[dtype]
    rtol = rtol if rtol is not None else r
    atol = atol if atol is not None else a
    ours_in = tensors(ja, arrays, dtype, grad)
    th_in = tensors(torch, arrays, dtype, grad)
    o = first(fn(ja, *ours_in))
    t = first(fn(torch, *th_in))
    assert tuple(o.shape) == tuple(t.shape), (o.shape, t.shape)
    assert str(o.dtype) == str(t.dtype), (o.dtype, t.dtype)
    scale = max(1.0, float(np.abs(t.detach().numpy()).max())) if t.numel() else 1.0
    np.testing.assert_allclose(o.detach().numpy(), t.detach().numpy(), rtol=rtol, atol=atol * scale)
    if not grad:
        return o, t
    if names:
        assert (o.grad_fn is None) == (t.grad_fn is None)
        if t.grad_fn is not None:
            assert o.grad_fn.name() == t.grad_fn.name(), (o.grad_fn.name(), t.grad_fn.name())
    if t.grad_fn is None:
        return o, t
    v = np.random.default_rng(seed).uniform(-1, 1, tuple(t.shape))
    o.backward(ja.tensor(v, dtype=o.dtype))
    t.backward(torch.tensor(v, dtype=t.dtype))
    for x, y in zip(ours_in, th_in):
        if y is None or not y.requires_grad:
            continue
        if y.grad is None:
            assert x.grad is None or not np.any(x.grad.numpy())
            continue
        gs = max(1.0, float(np.abs(y.grad.numpy()).max())) if y.grad.numel() else 1.0
        np.testing.assert_allclose(
            x.grad.numpy(), y.grad.numpy(), rtol=rtol * 10, atol=atol * 10 * gs
        )
    return o, t


def compare_jvp(fn, arrays, torch, dtype="float64", seed=1):
    """Forward-mode tangents of ``fn`` for random input tangents, against torch's forward AD."""
    rng = np.random.default_rng(seed)
    tans = [
        None if a is None or np.asarray(a).dtype.kind != "f" else rng.uniform(-1, 1, np.shape(a))
        for a in arrays
    ]
    outs = []
    for lib in (ja, torch):
        fw = lib.autograd.forward_ad
        dt = getattr(lib, dtype)
        with fw.dual_level():
            ins = []
            for a, tan in zip(arrays, tans):
                if a is None:
                    ins.append(None)
                elif tan is None:
                    ins.append(lib.tensor(a))
                else:
                    ins.append(fw.make_dual(lib.tensor(a, dtype=dt), lib.tensor(tan, dtype=dt)))
            y = first(fn(lib, *ins))
            outs.append(fw.unpack_dual(y).tangent)
    r, a = TOL[dtype]
    np.testing.assert_allclose(outs[0].numpy(), outs[1].detach().numpy(), rtol=r * 10, atol=a * 10)


def outcome(f):
    """``("ok", shape)`` or ``(exception type name, message)`` of calling ``f()``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            r = f()
        except Exception as e:  # noqa: BLE001 - the exception itself is what is compared
            return type(e).__name__, str(e)
    r = first(r)
    return "ok", tuple(getattr(r, "shape", ()))


def compare_errors(case, torch):
    """``case(lib)`` raises the same exception type and message in both (or neither)."""
    ours, theirs = outcome(lambda: case(ja)), outcome(lambda: case(torch))
    assert ours == theirs, (ours, theirs)


def compare_repr(make, torch):
    """``repr(make(lib))`` is the same text in both."""
    ja.manual_seed(0)
    assert repr(make(ja)) == repr(make(torch))


def copy_state(src, dst, lib):
    """Load module ``src``'s (torch's) parameters and buffers into ``dst`` (ours or torch's)."""
    dst.load_state_dict(
        {k: lib.tensor(v.detach().numpy().copy()) for k, v in src.state_dict().items()}
    )
