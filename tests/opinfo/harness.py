"""Run torch's OpInfo database (``op_db``) through torch and through jupyter_autograd.

For every entry: its sample inputs for float64 and float32 (the entry's own dtypes where it has
no floating ones), converted to our tensors (values, dtype, requires_grad, strides), go through
the op under the same name in both libraries; outputs (values, shapes, dtypes, structure),
reverse-mode gradients for a random cotangent, forward-mode tangents for a random tangent, the
Tensor method, the in-place variant and the aliases are compared.

``python -m tests.opinfo [names...]`` prints a table of every entry (the skip list included).
"""

from __future__ import annotations

import time
import warnings

import numpy as np

import jupyter_autograd as ja

from .convert import (
    Mismatch,
    Unsupported,
    as_numpy,
    by_path,
    close,
    compare,
    entry_id,
    leaves,
    method_of,
    resolve,
    to_ours,
    tolerance,
    torch_module,
    translate,
    upcast,
)
from .derivatives import _SEEDING, _check_forward, _check_grads, _quiet, _seed_both

#: samples per entry and dtype: the first, the last and evenly spaced ones between
MAX_SAMPLES = 6
SEED = 0
#: entries whose results are uninitialized memory: shapes and dtypes compared, not values
VALUES_UNDEFINED = frozenset(
    {"empty", "empty_like", "new_empty", "new_empty_strided", "empty_strided", "empty_permuted"}
)


# ---------------------------------------------------------------------------- one entry
def _float_dtypes(op):
    torch = torch_module()
    sup = op.supported_dtypes("cpu")
    want = [d for d in (torch.float64, torch.float32) if d in sup]
    if want:
        return want
    for d in (torch.int64, torch.int32, torch.bool, torch.uint8, torch.complex128):
        if d in sup:
            return [d]
    return []


def pick_samples(op, dtype, requires_grad, cap=MAX_SAMPLES):
    """The entry's samples for ``dtype``, generated after seeding torch; at most ``cap`` of
    them, the first, the last and evenly spaced ones between (the same ones every run)."""
    torch = torch_module()
    torch.default_generator.manual_seed(SEED)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # the generator itself: OpInfo.sample_inputs wraps it in a tracker that walks the
        # call stack for every sample (seconds per entry)
        samples = list(op.sample_inputs_func(op, "cpu", dtype, requires_grad))
    if len(samples) > cap:
        if cap == 1:
            return samples[:1]
        idx = sorted({round(i * (len(samples) - 1) / (cap - 1)) for i in range(cap)})
        samples = [samples[i] for i in idx]
    return samples


class Result:
    """What one entry did: per aspect, True (all compared samples agree), False (first failure
    kept in ``errors``) or None (nothing to compare)."""

    ASPECTS = ("outputs", "gradients", "forward_ad", "method", "inplace", "aliases")

    def __init__(self, name):
        self.name = name
        self.status = dict.fromkeys(self.ASPECTS)
        self.errors: dict[str, str] = {}
        self.samples = 0
        self.dtypes: list[str] = []
        self.seconds = 0.0
        self.nodes_same = 0
        self.nodes_total = 0

    def ok(self, aspect):
        if self.status[aspect] is None:
            self.status[aspect] = True

    def fail(self, aspect, msg):
        if self.status[aspect] is not False:
            self.status[aspect] = False
            self.errors[aspect] = msg

    @property
    def passed(self) -> bool:
        """Outputs and gradients (and method, in-place, aliases) agree in every dtype tried."""
        s = self.status
        return s["outputs"] is True and all(
            s[a] is not False for a in self.ASPECTS if a != "forward_ad"
        )

    @property
    def passed_all(self) -> bool:
        return self.passed and self.status["forward_ad"] is not False

    def summary(self) -> str:
        bad = [f"{a}: {self.errors[a]}" for a in self.ASPECTS if self.status[a] is False]
        return "\n".join(bad) if bad else "ok"


# entries drawing random numbers without torch's wrapper_set_seed around their op
_RANDOM_ENTRIES = frozenset({"bernoulli", "normal", "normal.number_mean"})


def is_random(op) -> bool:
    """An entry whose results depend on the random generator."""
    code = getattr(op.op, "__code__", None)
    return entry_id(op) in _RANDOM_ENTRIES or bool(code and "wrapper_set_seed" in code.co_names)


def _call(fn, inp, args, kwargs):
    return fn(inp, *args, **kwargs)


def run_entry(op, cap=MAX_SAMPLES) -> Result:
    """Compare every aspect of one OpInfo entry; never raises for a mismatch (see Result).
    torch runs single-threaded meanwhile (its thread pool only thrashes on these samples)."""
    torch = torch_module()
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        return _run_entry(op, cap)
    finally:
        torch.set_num_threads(threads)


def _run_entry(op, cap):
    res = Result(entry_id(op))
    t0 = time.perf_counter()
    ours = resolve(op.op, op.name)
    if ours is None:
        res.fail("outputs", f"jupyter_autograd has no {op.name}")
        res.seconds = time.perf_counter() - t0
        return res
    _SEEDING[0] = is_random(op)
    method = resolve(op.method_variant, op.name) if op.method_variant is not None else None
    inplace = resolve(op.inplace_variant, op.name + "_") if op.inplace_variant is not None else None
    for dt in _float_dtypes(op):
        res.dtypes.append(str(dt).split(".")[-1])
        floating = dt.is_floating_point or dt.is_complex
        rg = bool(op.supports_autograd and floating)
        atol, rtol = tolerance(op, dt)
        for k, s in enumerate(pick_samples(op, dt, rg, cap)):
            res.samples += 1
            where = f"[{res.dtypes[-1]} sample {k}: {_describe(s)}]"
            try:
                _run_sample(op, s, ours, method, inplace, rg, atol, rtol, res, where, seed=k)
            except Unsupported as e:
                res.fail("outputs", f"{where} unsupported argument: {e}")
            except Exception as e:  # noqa: BLE001 - converting the sample failed
                res.fail("outputs", f"{where} harness error {type(e).__name__}: {e}")
    if op.aliases and res.status["outputs"]:
        _check_aliases(op, res)
    res.seconds = time.perf_counter() - t0
    return res


def _describe(s) -> str:
    def d(x):
        torch = torch_module()
        if isinstance(x, torch.Tensor):
            return f"T{list(x.shape)}" + ("" if x.is_contiguous() else "nc")
        if isinstance(x, (list, tuple)):
            return "(" + ", ".join(d(y) for y in x) + ")"
        return repr(x)

    args = ", ".join(
        [d(s.input)] + [d(a) for a in s.args] + [f"{k}={d(v)}" for k, v in s.kwargs.items()]
    )
    return args if len(args) < 200 else args[:200] + "..."


def _run_sample(op, s, ours, method, inplace, rg, atol, rtol, res, where, seed):
    torch = torch_module()
    memo: dict = {}
    o_in = to_ours(s.input, memo)
    o_args = to_ours(list(s.args), memo)
    o_kwargs = to_ours(dict(s.kwargs), memo)
    # ---- outputs
    _seed_both(seed)
    with _quiet():
        try:
            t_out = _call(op.op, s.input, s.args, s.kwargs)
        except Exception:  # noqa: BLE001 - a sample torch itself rejects tells nothing
            return
    _seed_both(seed)
    try:
        with _quiet():
            o_out = _call(ours, o_in, o_args, o_kwargs)
        if op.name in VALUES_UNDEFINED:
            t_out, o_out = _zeroed(t_out), _zeroed(o_out)
        try:
            _compare_outputs(op.op, s, t_out, o_out, atol, rtol)
        except Mismatch:
            # outputs defined up to a sign or phase (eigenvectors, singular vectors): compared as
            # the entry itself compares them, through its output_process_fn_grad
            if not _processes(s):
                raise
            with _quiet():
                _compare_outputs(
                    op.op,
                    s,
                    s.output_process_fn_grad(t_out),
                    translate(s.output_process_fn_grad)(o_out),
                    atol,
                    rtol,
                )
    except Mismatch as e:
        res.fail("outputs", f"{where} {e}")
        return
    except Exception as e:  # noqa: BLE001
        res.fail("outputs", f"{where} raised {type(e).__name__}: {e}")
        return
    res.ok("outputs")
    _node_names(t_out, o_out, res)
    # ---- method variant
    if method is not None:
        _variant(
            "method",
            op.method_variant,
            method,
            s,
            o_in,
            o_args,
            o_kwargs,
            t_out,
            atol,
            rtol,
            res,
            where,
            seed,
        )
    # ---- gradients
    grad_pairs = [
        (t, memo[id(t)][1])
        for t in leaves((s.input, s.args, s.kwargs))
        if isinstance(t, torch.Tensor) and t.requires_grad and id(t) in memo
    ]
    seen = set()
    grad_pairs = [p for p in grad_pairs if not (id(p[0]) in seen or seen.add(id(p[0])))]
    if rg and grad_pairs:
        _check_grads(
            op,
            s,
            ours,
            o_in,
            o_args,
            o_kwargs,
            t_out,
            o_out,
            grad_pairs,
            atol,
            rtol,
            res,
            where,
            seed,
        )
        if op.supports_forward_ad:
            _check_forward(
                op, s, ours, o_in, o_args, o_kwargs, grad_pairs, atol, rtol, res, where, seed
            )
    # ---- in-place variant
    if inplace is not None and not s.broadcasts_input:
        _check_inplace(
            op,
            s,
            inplace,
            o_in,
            o_args,
            o_kwargs,
            grad_pairs if rg else [],
            atol,
            rtol,
            res,
            where,
            seed,
        )


def _compare_outputs(t_fn, s, t_out, o_out, atol, rtol, what="output"):
    try:
        compare(t_out, o_out, atol, rtol, what)
    except Mismatch:
        if str(s.input.dtype if hasattr(s.input, "dtype") else "") != "torch.float32":
            raise
        memo64: dict = {}
        with _quiet():
            ref = _call(
                t_fn, upcast(s.input, memo64), upcast(s.args, memo64), upcast(s.kwargs, memo64)
            )
        if (
            s.output_process_fn_grad is not None
            and _processes(s)
            and not isinstance(ref, type(t_out))
        ):
            raise
        compare(t_out, o_out, atol, rtol, what, ref=ref)


_SENTINEL = object()


def _processes(s) -> bool:
    """Whether the sample declares a processing of its outputs (not the identity)."""
    fn = s.output_process_fn_grad
    pair = (_SENTINEL, _SENTINEL)
    try:
        return fn(_SENTINEL) is not _SENTINEL or fn(pair) is not pair
    except Exception:  # noqa: BLE001 - it indexes or calls methods: it processes
        return True


def _zeroed(x):
    """``x`` with its values zeroed (for uninitialized results)."""
    if isinstance(x, (list, tuple)):
        return type(x)(_zeroed(y) for y in x)
    if isinstance(x, torch_module().Tensor):
        return torch_module().zeros_like(x)
    if isinstance(x, ja.Tensor):
        return ja.zeros_like(x)
    return x


def _node_names(t_out, o_out, res):
    torch = torch_module()
    for a, b in zip(leaves(t_out), leaves(o_out)):
        if isinstance(a, torch.Tensor) and a.grad_fn is not None:
            res.nodes_total += 1
            if (
                isinstance(b, ja.Tensor)
                and b.grad_fn is not None
                and type(b.grad_fn).__name__ == type(a.grad_fn).__name__
            ):
                res.nodes_same += 1


def _variant(aspect, t_fn, o_fn, s, o_in, o_args, o_kwargs, t_ref, atol, rtol, res, where, seed):
    _seed_both(seed)
    try:
        with _quiet():
            t_out = _call(t_fn, s.input, s.args, s.kwargs)
    except Exception:  # noqa: BLE001
        return
    _seed_both(seed)
    try:
        with _quiet():
            o_out = _call(o_fn, o_in, o_args, o_kwargs)
        if res.name.split(".")[0] in VALUES_UNDEFINED:
            t_out, o_out = _zeroed(t_out), _zeroed(o_out)
        try:
            _compare_outputs(t_fn, s, t_out, o_out, atol, rtol, aspect)
        except Mismatch:
            if not _processes(s):
                raise
            compare(
                s.output_process_fn_grad(t_out),
                translate(s.output_process_fn_grad)(o_out),
                atol,
                rtol,
                aspect,
            )
        res.ok(aspect)
    except Mismatch as e:
        res.fail(aspect, f"{where} {e}")
    except Exception as e:  # noqa: BLE001
        res.fail(aspect, f"{where} raised {type(e).__name__}: {e}")


def _check_inplace(op, s, inplace, o_in, o_args, o_kwargs, pairs, atol, rtol, res, where, seed):
    torch = torch_module()
    if not isinstance(s.input, torch.Tensor):
        return
    try:
        _seed_both(seed)
        with _quiet():
            x = s.input.clone()
            op.inplace_variant(x, *s.args, **s.kwargs)
        t_grads = None
        inputs = [p[0] for p in pairs]
        if pairs and x.requires_grad:
            v = np.random.default_rng(3000 + seed).standard_normal(tuple(x.shape))
            with _quiet():
                t_grads = torch.autograd.grad(
                    [x], inputs, [torch.tensor(v, dtype=x.dtype)], allow_unused=True
                )
    except Exception:  # noqa: BLE001 - torch rejects this in-place call (dtype, broadcast)
        return
    try:
        _seed_both(seed)
        with _quiet():
            y = o_in.clone()
            o_out = inplace(y, *o_args, **o_kwargs)
        if o_out is not y:
            raise Mismatch("the in-place variant does not return its input")
        try:
            compare(x, y, atol, rtol, "in-place result")
        except Mismatch:
            if str(x.dtype) != "torch.float32":
                raise
            memo64: dict = {}
            with _quiet():
                ref = upcast(s.input, memo64).detach().clone()
                op.inplace_variant(ref, *upcast(s.args, memo64), **upcast(s.kwargs, memo64))
            compare(x, y, atol, rtol, "in-place result", ref=ref)
        if t_grads is not None:
            with _quiet():
                o_grads = ja.autograd.grad(
                    [y], [p[1] for p in pairs], [ja.tensor(v, dtype=y.dtype)], allow_unused=True
                )
            for k, (a, b) in enumerate(zip(t_grads, o_grads)):
                a = np.zeros(tuple(inputs[k].shape)) if a is None else as_numpy(a)
                b = np.zeros(tuple(pairs[k][1].shape)) if b is None else as_numpy(b)
                close(a, b, atol * 10, rtol * 10, f"in-place gradient of input {k}")
        res.ok("inplace")
    except Mismatch as e:
        res.fail("inplace", f"{where} {e}")
    except Exception as e:  # noqa: BLE001
        res.fail("inplace", f"{where} raised {type(e).__name__}: {e}")


def _check_aliases(op, res):
    """Each alias (``torch.absolute`` for ``abs``...) on the entry's first float sample."""
    dts = _float_dtypes(op)
    if not dts:
        return
    samples = pick_samples(op, dts[0], False, 1)
    if not samples:
        return
    s = samples[0]
    for a in op.aliases:
        for t_fn, name in (
            (a.op, a.name),
            (a.method_variant, a.name),
            (a.inplace_variant, a.name + "_"),
        ):
            if t_fn is None:
                continue
            if t_fn is a.op:
                o_fn = by_path(name)
            else:
                o_fn = method_of(name.split(".")[-1])
            if o_fn is None:
                res.fail(
                    "aliases",
                    f"jupyter_autograd has no {name}" + (" method" if t_fn is not a.op else ""),
                )
                continue
            memo: dict = {}
            try:
                inp = s.input.clone() if t_fn is a.inplace_variant else s.input
                with _quiet():
                    t_out = t_fn(inp, *s.args, **s.kwargs)
            except Exception:  # noqa: BLE001, S112 - torch rejects the sample: nothing to compare
                continue
            try:
                o_inp = (
                    to_ours(inp, memo)
                    if t_fn is not a.inplace_variant
                    else to_ours(s.input, memo).clone()
                )
                with _quiet():
                    o_out = o_fn(
                        o_inp, *to_ours(list(s.args), memo), **to_ours(dict(s.kwargs), memo)
                    )
                compare(t_out, o_out, *tolerance(op, dts[0]), f"alias {name}")
                res.ok("aliases")
            except Mismatch as e:
                res.fail("aliases", str(e))
            except Exception as e:  # noqa: BLE001
                res.fail("aliases", f"{name} raised {type(e).__name__}: {e}")


def all_entries():
    from torch.testing._internal.common_methods_invocations import op_db

    return {entry_id(op): op for op in op_db}
