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
        return (
            "lib.cat(["
            + ", ".join(_expr(rng, depth - 1) for _ in range(n))
            + "]).sum(0, keepdim=True)"
        )
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
        for build in (
            lambda a, b, c, d, e: (a // 2) + b,
            lambda a, b, c, d, e: b + (a // 2),
            lambda a, b, c, d, e: lib.cat([b, c, a // 2, d]),
            lambda a, b, c, d, e: lib.cat([b, a // 2, c, d, e]),
        ):
            ls = [lib.tensor([1.0], dtype=lib.float64, requires_grad=True) for _ in range(5)]
            with pytest.raises(
                RuntimeError, match="derivative for .*floor_divide.* is not implemented"
            ):
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


# ------------------------------------------------------------------ the engine's two modes
# A plain backward runs by sequence numbers (no dependency pass, leaves deferred) and switches to
# the dependency counts where something can observe the order; executor.BY_SEQUENCE = False runs
# every backward with the counts from the start. Both are the one loop of executor._run: random
# graphs with multi-output nodes, views and in-place ops, shared subgraphs, non-leaf hooks,
# retain_grad, leaf hooks and NotImplemented nodes must give the same .grad values (bit for
# bit), the same hook order and the same partial accumulation in both.


def _graph(rng, lib, leaves, log):
    """A random graph over ``leaves`` (each of shape (4,)); returns its scalar outputs."""
    pool = list(leaves)

    def pick():
        return pool[rng.randrange(len(pool))]

    for step in range(rng.randint(3, 12)):
        k = rng.random()
        a, b = pick(), pick()
        if k < 0.2:
            t = a * b
        elif k < 0.35:
            t = a + b.exp() * 0.5
        elif k < 0.45:  # a multi-output node, one output used or both
            u, v = a.split(2)
            t = lib.cat([v, u]) if rng.random() < 0.5 else lib.cat([u, u * 2])
        elif k < 0.55:  # an in-place op on a view of a non-leaf (CopySlices)
            t = a * 1
            t[1:3].mul_(b[:2])
        elif k < 0.62:
            t = (a // 2) + b if rng.random() < 0.3 else a.relu() - b.tanh()
        elif k < 0.72:  # a non-leaf hook and retain_grad, logged in the order they run
            t = a * 3
            t.register_hook(lambda g, s=step: log.append(("h", s)))
            if rng.random() < 0.5:
                t.retain_grad()
        elif k < 0.8:
            t = lib.stack([a, b]).sum(0) if rng.random() < 0.5 else a.sin()
            t.grad_fn.register_prehook(lambda g, s=step: log.append(("p", s)))
        else:
            t = a.unsqueeze(0).expand(2, 4).sum(0) - b
        pool.append(t)
    outs = [pool[-1].sum()]
    if rng.random() < 0.4:
        outs.append((pick() * pool[-2]).sum())
    return outs, pool


def _run_mode(seed, by_sequence, monkeypatch):
    from jupyter_autograd.autograd import executor

    monkeypatch.setattr(executor, "BY_SEQUENCE", by_sequence)
    rng = random.Random(seed)
    leaves = [ja.tensor([0.3 + i, -0.7, 1.1 * i, 0.0], requires_grad=True) for i in range(4)]
    log: list = []
    for i, t in enumerate(leaves):
        if rng.random() < 0.3:
            t.register_hook(lambda g, i=i: log.append(("leaf", i)))
    outs, pool = _graph(rng, ja, leaves, log)
    err = None
    try:
        if len(outs) == 1:
            outs[0].backward(retain_graph=rng.random() < 0.5)
        else:
            ja.autograd.backward(outs)
    except RuntimeError as e:
        err = str(e)
    grads = [None if t.grad is None else t.grad.numpy().tobytes() for t in pool]
    return err, grads, log


@pytest.mark.parametrize("chunk", range(4))
def test_by_sequence_and_dependency_counts_agree(chunk, monkeypatch):
    bad = []
    for seed in range(chunk * 100, chunk * 100 + 100):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # .grad of a non-leaf that does not retain it
            fast = _run_mode(seed, True, monkeypatch)
            exact = _run_mode(seed, False, monkeypatch)
        if fast != exact:
            bad.append((seed, fast, exact))
    assert not bad, f"{len(bad)} graphs differ, first (seed, by sequence, counts): {bad[0]}"
