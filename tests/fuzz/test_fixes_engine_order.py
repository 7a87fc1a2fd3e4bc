"""The order in which the engine runs nodes, where a program can see it: which leaves a failing
backward has accumulated, and in which order leaf hooks run. torch's engine pops the ready node
with the highest sequence number from a binary heap; AccumulateGrad and its Error nodes
(NotImplemented: ``x // y``) share the largest number, so among them the heap's layout decides
(fuzz class backward-error-partial-accumulation). Random expression graphs over a few leaves,
compared with torch in every engine mode (plain backward, anomaly mode, ``inputs=``,
``autograd.grad``)."""

from __future__ import annotations

import random
import warnings

import pytest

import jupyter_autograd as ja

from .._torch import require as require_torch

N_LEAVES = 5


def _expr(rng, depth):
    """A random expression over leaves ``l[i]`` as source text: sums, products, exp, cat, and
    ``l[i] // 2`` (a NotImplemented node)."""
    if depth == 0 or rng.random() < 0.3:
        i = rng.randrange(N_LEAVES)
        return f"(l[{i}] // 2)" if rng.random() < 0.25 else f"l[{i}]"
    k = rng.random()
    if k < 0.4:
        n = rng.randint(2, 5)
        return "lib.cat([" + ", ".join(_expr(rng, depth - 1) for _ in range(n)) + "]).sum(0, keepdim=True)"
    if k < 0.6:
        return f"({_expr(rng, depth - 1)} * {_expr(rng, depth - 1)})"
    if k < 0.8:
        return f"({_expr(rng, depth - 1)} + {_expr(rng, depth - 1)})"
    return f"{_expr(rng, depth - 1)}.exp()"


def _run(lib, src, mode, hooks):
    leaves = [lib.tensor([0.5 + i], requires_grad=True) for i in range(N_LEAVES)]
    log = []
    if hooks:
        for i, t in enumerate(leaves):
            t.register_hook(lambda g, i=i: log.append(i))
    out = eval(src, {"lib": lib, "l": leaves}).sum()  # our own generated source
    err = None
    try:
        if mode == "plain":
            out.backward()
        elif mode == "anomaly":
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                with lib.autograd.detect_anomaly():
                    out.backward()
        elif mode == "inputs":
            out.backward(inputs=leaves[1:])
        else:
            lib.autograd.grad(out, leaves[:4], allow_unused=True)
    except RuntimeError:
        err = "RuntimeError"
    return err, [t.grad is not None for t in leaves], log


PROGRAMS = [_expr(random.Random(seed), 3) for seed in range(60)]


@pytest.mark.parametrize("mode", ["plain", "anomaly", "inputs", "grad"])
def test_failing_backward_accumulates_what_torch_has(mode):
    """A backward that reaches a NotImplemented node fails where torch's does: the leaves torch
    accumulated before are accumulated, the others are not, and leaf hooks have run in torch's
    order."""
    torch = require_torch()
    bad = []
    for src in PROGRAMS:
        for hooks in (False, True):
            theirs, mine = _run(torch, src, mode, hooks), _run(ja, src, mode, hooks)
            if theirs != mine:
                bad.append((src, hooks, theirs, mine))
    assert not bad, f"{len(bad)} programs differ, first: {bad[0]}"


def test_sibling_leaf_of_a_failing_node():
    """The fuzzer's case: ``t3 = x1 // x2; t8 = t3 + x7``: the NotImplemented node is pushed
    before x7's AccumulateGrad in AddBackward0's round, so torch fails before accumulating x7;
    in the other order it has accumulated x7. Among five edges the heap's layout decides."""
    def prog(lib):
        out = []
        for build in (lambda a, b, c, d, e: (a // 2) + b, lambda a, b, c, d, e: b + (a // 2),
                      lambda a, b, c, d, e: lib.cat([b, c, a // 2, d]),
                      lambda a, b, c, d, e: lib.cat([b, a // 2, c, d, e])):
            ls = [lib.tensor([1.0], dtype=lib.float64, requires_grad=True) for _ in range(5)]
            with pytest.raises(RuntimeError, match="derivative for .*floor_divide.* is not implemented"):
                build(*ls).sum().backward()
            out.append([t.grad is not None for t in ls])
        return out

    torch = require_torch()
    assert prog(ja) == prog(torch)


def test_leaf_hooks_run_in_torchs_heap_order():
    """Leaf hooks are AccumulateGrad's pre-hooks: they run in the order torch's heap pops the
    leaves' AccumulateGrad nodes (``cat([a, b, c, d, e])``: a, c, e, b, d), in a plain
    backward too."""
    def prog(lib):
        ls = [lib.tensor([1.0], requires_grad=True) for _ in range(5)]
        log = []
        for i, t in enumerate(ls):
            t.register_hook(lambda g, i=i: log.append(i))
        lib.cat(ls).sum().backward()
        (ls[0] * ls[1] + ls[2] * ls[3] + ls[4]).backward()
        return log

    torch = require_torch()
    assert prog(ja) == prog(torch) == [0, 2, 4, 1, 3, 4, 2, 3, 0, 1]


def test_sequence_numbers_of_accumulate_grad_and_error_nodes():
    """torch numbers both AccumulateGrad and Error nodes UINT64_MAX."""
    def prog(lib):
        x = lib.tensor([1.0], requires_grad=True)
        y = x // 2
        return (y.grad_fn._sequence_nr(), (x * 1).grad_fn.next_functions[0][0]._sequence_nr())

    torch = require_torch()
    assert prog(ja) == prog(torch) == (2**64 - 1, 2**64 - 1)
