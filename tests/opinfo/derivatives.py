"""The derivative checks of the OpInfo harness: reverse-mode gradients for a random cotangent
(``_check_grads``: torch's ``autograd.grad`` against ours, float32 samples judged against a
float64 reference) and forward-mode tangents for a random tangent (``_check_forward``), with the
seeding and warning-silencing shared with :mod:`.harness`.
"""

from __future__ import annotations

import contextlib
import warnings

import numpy as np

import jupyter_autograd as ja

from .convert import (
    Mismatch,
    as_numpy,
    close,
    leaves,
    replace_tensors,
    torch_module,
    translate,
    upcast,
)

_SEEDING = [False]


def _seed_both(seed):
    """Seed both generators before a random entry's call (torch's CPU generator directly:
    ``torch.manual_seed`` records a stack trace for every device, 10 ms a call)."""
    if _SEEDING[0]:
        torch_module().default_generator.manual_seed(seed)
        ja.manual_seed(seed)


@contextlib.contextmanager
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with np.errstate(all="ignore"):
            yield


def _differentiable_outputs(out):
    return [
        o
        for o in leaves(out)
        if getattr(o, "requires_grad", False)
        and (
            o.dtype.is_floating_point
            if hasattr(o.dtype, "is_floating_point")
            else o.is_floating_point() or o.is_complex()
        )
    ]


def _cotangents(outs, seed, torch_side):
    rng = np.random.default_rng(1000 + seed)
    vs = []
    for o in outs:
        shape = tuple(o.shape)
        v = rng.standard_normal(shape)
        if o.is_complex():
            v = v + 1j * rng.standard_normal(shape)
        vs.append(v)
    return vs


def _processed(op, s, fn, inp, args, kwargs, output_fn, ours=False):
    wrapper = translate(op.gradcheck_wrapper) if ours else op.gradcheck_wrapper
    out = wrapper(fn, inp, *args, **kwargs)
    return output_fn(out)


def _torch_grads(op, s, inp, args, kwargs, t_inputs, vs, seed):
    """torch's gradients of the sample's (processed) outputs for cotangents ``vs`` (arrays;
    drawn here when None). Returns (grads as arrays, vs, number of differentiable outputs)."""
    torch = torch_module()
    _seed_both(seed)
    with _quiet():
        t_res = _processed(op, s, op.op, inp, args, kwargs, s.output_process_fn_grad)
    t_outs = _differentiable_outputs(t_res)
    if not t_outs:
        return None, None, 0
    if vs is None:
        vs = _cotangents(t_outs, seed, True)
    with _quiet():
        g = torch.autograd.grad(
            t_outs,
            t_inputs,
            [torch.tensor(v, dtype=o.dtype) for v, o in zip(vs, t_outs)],
            allow_unused=True,
        )
    return (
        [np.zeros(tuple(t.shape)) if a is None else as_numpy(a) for a, t in zip(g, t_inputs)],
        vs,
        len(t_outs),
    )


def _reference(s, pairs):
    """The sample in float64 (for judging float32 results by their accuracy) and its inputs."""
    memo: dict = {}
    inp, args, kwargs = upcast(s.input, memo), upcast(s.args, memo), upcast(s.kwargs, memo)
    return inp, args, kwargs, [memo[id(t)][1] if id(t) in memo else t for t, _ in pairs]


def _is32(pairs):
    return any(str(t.dtype) in ("torch.float32", "torch.complex64") for t, _ in pairs)


def _check_grads(
    op, s, ours, o_in, o_args, o_kwargs, t_out, o_out, pairs, atol, rtol, res, where, seed
):
    t_inputs = [p[0] for p in pairs]
    o_inputs = [p[1] for p in pairs]
    try:
        t_g, vs, n_out = _torch_grads(op, s, s.input, s.args, s.kwargs, t_inputs, None, seed)
        if not n_out:
            return
    except Exception:  # noqa: BLE001 - torch cannot differentiate this sample
        return
    try:
        _seed_both(seed)
        with _quiet():
            o_res = _processed(
                op, s, ours, o_in, o_args, o_kwargs, translate(s.output_process_fn_grad), True
            )
        o_outs = _differentiable_outputs(o_res)
        if len(o_outs) != n_out:
            raise Mismatch(f"{len(o_outs)} outputs require grad, torch has {n_out}")
        with _quiet():
            o_g = ja.autograd.grad(
                o_outs,
                o_inputs,
                [ja.tensor(v, dtype=o.dtype) for v, o in zip(vs, o_outs)],
                allow_unused=True,
            )
        o_g = [
            np.zeros(tuple(t.shape)) if b is None else as_numpy(b) for b, t in zip(o_g, o_inputs)
        ]
        ref = None
        for k, (a, b) in enumerate(zip(t_g, o_g)):
            try:
                close(
                    a,
                    b,
                    atol * 10,
                    rtol * 10,
                    f"gradient of input {k}",
                    ref=None if ref is None else ref[k],
                )
            except Mismatch:
                if ref is not None or not _is32(pairs):
                    raise
                inp, args, kwargs, t64 = _reference(s, pairs)
                ref = _torch_grads(op, s, inp, args, kwargs, t64, vs, seed)[0]
                close(a, b, atol * 10, rtol * 10, f"gradient of input {k}", ref=ref[k])
        res.ok("gradients")
    except Mismatch as e:
        res.fail("gradients", f"{where} {e}")
    except Exception as e:  # noqa: BLE001
        res.fail("gradients", f"{where} raised {type(e).__name__}: {e}")


def _torch_tangents(op, s, inp, args, kwargs, t_inputs, tans, seed):
    torch = torch_module()
    fwAD = torch.autograd.forward_ad
    with fwAD.dual_level(), _quiet():
        subst = {
            id(t): fwAD.make_dual(t.detach(), torch.tensor(v, dtype=t.dtype))
            for t, v in zip(t_inputs, tans)
        }
        _seed_both(seed)
        out = _processed(
            op,
            s,
            op.op,
            replace_tensors(inp, subst),
            replace_tensors(args, subst),
            replace_tensors(kwargs, subst),
            s.output_process_fn_grad,
        )
        t_t = [
            (fwAD.unpack_dual(o).tangent, o)
            for o in leaves(out)
            if o.is_floating_point() or o.is_complex()
        ]
        return [np.zeros(tuple(o.shape)) if a is None else as_numpy(a) for a, o in t_t]


def _check_forward(op, s, ours, o_in, o_args, o_kwargs, pairs, atol, rtol, res, where, seed):
    rng = np.random.default_rng(2000 + seed)
    tans = [rng.standard_normal(tuple(t.shape)) for t, _ in pairs]
    try:
        t_t = _torch_tangents(op, s, s.input, s.args, s.kwargs, [t for t, _ in pairs], tans, seed)
    except Exception:  # noqa: BLE001
        return
    fw = ja.autograd.forward_ad
    try:
        with fw.dual_level(), _quiet():
            subst = {
                id(o): fw.make_dual(o.detach(), ja.tensor(v, dtype=o.dtype))
                for (_, o), v in zip(pairs, tans)
            }
            _seed_both(seed)
            out = _processed(
                op,
                s,
                ours,
                replace_tensors(o_in, subst),
                replace_tensors(o_args, subst),
                replace_tensors(o_kwargs, subst),
                translate(s.output_process_fn_grad),
                True,
            )
            o_t = [
                (fw.unpack_dual(o).tangent, o)
                for o in leaves(out)
                if o.is_floating_point() or o.is_complex()
            ]
            o_t = [np.zeros(tuple(o.shape)) if a is None else as_numpy(a) for a, o in o_t]
        if len(o_t) != len(t_t):
            raise Mismatch(f"{len(o_t)} floating outputs, torch has {len(t_t)}")
        ref = None
        for k, (a, b) in enumerate(zip(t_t, o_t)):
            try:
                close(
                    a,
                    b,
                    atol * 10,
                    rtol * 10,
                    f"tangent of output {k}",
                    ref=None if ref is None else ref[k],
                )
            except Mismatch:
                if ref is not None or not _is32(pairs):
                    raise
                inp, args, kwargs, t64 = _reference(s, pairs)
                ref = _torch_tangents(op, s, inp, args, kwargs, t64, tans, seed)
                close(a, b, atol * 10, rtol * 10, f"tangent of output {k}", ref=ref[k])
        res.ok("forward_ad")
    except Mismatch as e:
        res.fail("forward_ad", f"{where} {e}")
    except Exception as e:  # noqa: BLE001
        res.fail("forward_ad", f"{where} raised {type(e).__name__}: {e}")
