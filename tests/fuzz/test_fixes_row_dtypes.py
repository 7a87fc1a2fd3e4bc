"""Fuzz class dtype-support, generated: every fuzzable registry row (its torch lambda, rendered
as the fuzzer renders it) run on inputs of each dtype under torch and under jupyter_autograd;
whether it raises, the exception's type and message, and the result dtypes must be torch's.

The rows declare the dtypes torch's kernels have no loop for (``defop(integral=, bools=)``,
:class:`jupyter_autograd.ops.registry.Refuse` with ``on``/``when``), so a new row without its
fact fails here on the dtype it mishandles."""

from __future__ import annotations

import random
import warnings

import pytest

import jupyter_autograd as ja

from .._torch import require as require_torch
from . import rows

DTYPES = (
    "bool",
    "uint8",
    "int8",
    "int16",
    "int32",
    "int64",
    "float16",
    "float32",
    "float64",
    "complex64",
    "complex128",
)
# torch.complex / torch.polar of float16 make complex32 (chalf), a dtype jupyter_autograd lacks
NO_CHALF = {("complex", "float16"), ("polar", "float16")}


def _make(lib, shape, dt):
    n = 1
    for s in shape:
        n *= s
    vals = [((i * 7) % 5 + 1) * (1 if i % 2 == 0 else -1) for i in range(n)]
    d = getattr(lib, dt)
    if dt == "bool":
        t = lib.tensor([v > 0 for v in vals], dtype=d)
    elif dt == "uint8":
        t = lib.tensor([abs(v) for v in vals], dtype=d)
    elif dt.startswith(("float", "complex")):
        t = lib.tensor([v / 10 for v in vals], dtype=d)
    else:
        t = lib.tensor(vals, dtype=d)
    return t.reshape(shape)


def _outcome(lib, src, shapes, dt):
    ns = {"torch": lib, **{f"x{i}": _make(lib, s, dt) for i, s in enumerate(shapes)}}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = eval(src, ns)
    except Exception as e:  # noqa: BLE001 - the type and message are compared with torch's
        return type(e).__name__, str(e).split("\n")[0]
    rs = r if isinstance(r, (tuple, list)) else (r,)
    return "ok", tuple(str(t.dtype).rpartition(".")[2] for t in rs)


def _cases():
    out = []
    for op in rows.fuzzable_rows():
        rng = random.Random(1)
        shapes = rows.input_shapes(op, rng, (2, 3)) or rows.input_shapes(op, rng, (2, 2, 3))
        params = None
        for _ in range(10):
            if shapes and (params := rows.draw_params(op, rng, shapes)) is not None:
                break
        if params is None:
            continue
        try:
            src = rows.render(op, [f"x{i}" for i in range(len(shapes))], params)
        except KeyError:  # a parameter the fuzzer does not draw (embedding's indices)
            continue
        out.append((op.name, src, shapes))
    return out


def test_every_row_over_every_dtype_as_torch():
    """Over 120 rows x 11 dtypes: binary_cross_entropy_with_logits of integers (judged on the
    input), native_layer_norm of integers/bool (after its mixed-dtype check), addmm, clamp of
    bool, hypot/logaddexp/logaddexp2/nextafter of integers, native_dropout of integers in
    training, where with a uint8 condition (deprecated, allowed) were accepted or refused
    otherwise than torch."""
    torch = require_torch()
    cases = _cases()
    assert len(cases) > 120
    bad = []
    for name, src, shapes in cases:
        for dt in DTYPES:
            if (name, dt) in NO_CHALF:
                continue
            theirs, ours = _outcome(torch, src, shapes, dt), _outcome(ja, src, shapes, dt)
            if theirs != ours:
                bad.append((name, dt, src, theirs, ours))
    assert not bad, "\n".join(map(str, bad))


@pytest.mark.parametrize(
    "src",
    [
        # a kernel without an integral loop judges the common dtype (bool with int is int)
        "torch.hypot(b, i)",
        "torch.logaddexp(i[:, :0], i[:, :0])",
        "torch.hypot(b[:0], b[:0])",
        "torch.logaddexp2(b, f)",
        "torch.nextafter(i, f)",
        # addmm of bool, also with beta=0
        "torch.addmm(b[0], b, b.t(), beta=0)",
        "torch.addmm(b[0], b, b.t())",
        # bce with logits: the input's dtype decides (log_sigmoid), then the target's (in place)
        "F.binary_cross_entropy_with_logits(i, f)",
        "F.binary_cross_entropy_with_logits(b, f)",
        "F.binary_cross_entropy_with_logits(b, b)",
        "F.binary_cross_entropy_with_logits(f, i)",
        "F.binary_cross_entropy_with_logits(f, b)",
        "F.binary_cross_entropy_with_logits(f[:0], i[:0])",
        "F.binary_cross_entropy_with_logits(i, i, pos_weight=f[0])",
        "F.binary_cross_entropy_with_logits(d, f)",
        "F.binary_cross_entropy_with_logits(f, d)",
        "F.binary_cross_entropy_with_logits(f, d, reduction='none')",
        # layer_norm: the mixed-dtype check, then the kernel's dtype
        "F.layer_norm(i, (2,))",
        "F.layer_norm(b, (2,))",
        "F.layer_norm(i, (2,), f[0], f[0])",
        "F.layer_norm(f, (2,), i[0], i[0])",
        "F.layer_norm(f, (2,), d[0])",
        "F.layer_norm(d, (2,), f[0])",
        "F.layer_norm(i[:0], (2,))",
        "F.layer_norm(f, (2,), f[0], d[0])",
        "F.layer_norm(i, (2,), i[0], i[0])",
        # dropout: only training multiplies by the float scale; an empty input returns first
        "torch.native_dropout(i, 0.5, False)",
        "torch.native_dropout(b, 0.5, True)",
        "torch.native_dropout(b, 0.0, True)",
        "torch.native_dropout(i, 1.0, True)",
        "torch.native_dropout(i[:0], 0.5, True)",
        "torch.native_dropout(i, 0.5, None)",
        # clamp's kernel with both bounds; one bound is maximum/minimum
        "torch.clamp(b, b, b)",
        "torch.clamp(b, i, i)",
        "torch.clamp(b, min=b)",
        "torch.clamp(b, max=b)",
        # where's condition: uint8 is deprecated but taken; other dtypes by their C++ names
        "torch.where(i.to(torch.uint8), f, f)",
        "torch.where(i, f, f)",
        "torch.where(f, f, f)",
        # amax/amin of an empty complex result: torch's kernel returns before its dtype dispatch
        "c[:, :0].amax(0)",
        "c[:, :0].amin(0, keepdim=True)",
        "c.amax(0)",
        "c[:, :0].requires_grad_().amin(0)",
        "c[:, :0].requires_grad_().amax(1)",
    ],
)
def test_dtype_facts_as_torch(src):
    """The facts the survey found, on mixed and empty operands."""
    torch = require_torch()

    def run(lib):
        ns = {
            "torch": lib,
            "F": lib.nn.functional,
            "i": lib.tensor([[3, 2], [1, 0]]),
            "f": lib.tensor([[0.5, 1.0], [2.0, 3.0]]),
            "b": lib.tensor([[True, False], [False, True]]),
            "d": lib.tensor([[0.5, 1.0], [2.0, 3.0]], dtype=lib.float64),
            "c": lib.tensor([[1 + 1j, 2.0], [0.5j, 1.0]]),
        }
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                r = eval(src, ns)
        except Exception as e:  # noqa: BLE001 - the type and message are compared with torch's
            return type(e).__name__, str(e).split("\n")[0]
        rs = r if isinstance(r, tuple) else (r,)
        return [(str(t.dtype).rpartition(".")[2], tuple(t.shape)) for t in rs]

    assert run(ja) == run(torch)
