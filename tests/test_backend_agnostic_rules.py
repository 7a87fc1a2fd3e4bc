"""Rules are backend-agnostic (issue 16 item 4): no registry row's forward, VJP or JVP rule,
nor a helper they call, tests whether an array is NumPy's. What only NumPy's arrays allow (a
BLAS sum over a short axis, a writable strided diagonal, ``np.add.at``, host copies) is a method
of the array namespace (ops/xp.py: ``NumpyNamespace`` overrides the plain forms every other
backend runs), so a rule reads the same on NumPy, CuPy and the stand-in device.

Generated over the registry: every row's rules are followed through the module-level functions
they call (by their bytecode's global loads) within the op families."""

from __future__ import annotations

import dis
import types

import numpy as np

from jupyter_autograd.ops import OPS
from jupyter_autograd.ops.xp import NPX, ArrayNamespace, namespace_for

#: the namespaces and the engine's own machinery: where array types may be told apart
_NOT_RULES = {
    "jupyter_autograd.ops.xp",
    "jupyter_autograd.ops.txp",
    "jupyter_autograd.ops.txp_reflect",
    "jupyter_autograd.ops.dispatch",
    "jupyter_autograd.ops.registry",
    "jupyter_autograd.ops.derive",
}
#: functions rules reach only through the public Tensor API under create_graph (each says why)
_TENSOR_LEVEL = {
    # view_as_complex's alignment check on a Tensor's memory (its storage offset), reached from
    # a rule calling the public view_as_complex on graph tensors
    ("jupyter_autograd.ops.cplx", "_storage_offset"),
}


def _codes(co):
    yield co
    for c in co.co_consts:
        if isinstance(c, types.CodeType):
            yield from _codes(c)


def _array_type_tests(rules) -> dict:
    """{(module, function, line): rows} for the functions reachable from ``rules`` (name ->
    callables) whose code reads ``ndarray`` (``x.__class__ is np.ndarray``, ``isinstance``)."""
    found: dict = {}

    def visit(fn, row, seen):
        fn = getattr(fn, "__wrapped__", fn)  # a dtype-checked forward: the row's own
        if not isinstance(fn, types.FunctionType) or fn in seen:
            return
        seen.add(fn)
        mod = fn.__module__ or ""
        if not mod.startswith("jupyter_autograd.ops") or mod in _NOT_RULES:
            return
        for co in _codes(fn.__code__):
            if "ndarray" in co.co_names and (mod, co.co_name) not in _TENSOR_LEVEL:
                found.setdefault((mod, co.co_name, co.co_firstlineno), set()).add(row)
            for ins in dis.get_instructions(co):
                if ins.opname in ("LOAD_GLOBAL", "LOAD_NAME"):
                    visit(fn.__globals__.get(ins.argval), row, seen)
        for cell in fn.__closure__ or ():
            try:
                visit(cell.cell_contents, row, seen)
            except ValueError:  # an empty cell
                pass

    for row, fns in rules.items():
        seen: set = set()
        for f in fns:
            visit(f, row, seen)
    return found


def test_no_rule_tests_the_numpy_array_type():
    rules = {n: (op.fwd, *op.vjp, op.jvp, op.batch) for n, op in OPS.items()}
    assert _array_type_tests(rules) == {}


def _helper(x):
    return x.sum() if x.__class__ is np.ndarray else x


def test_the_scan_finds_a_type_test_behind_a_rule():
    """A check that cannot fail proves nothing: a rule calling a helper that tells NumPy's
    arrays apart is found, through the helper and through a closure."""
    direct = lambda xp, g, x, out, p: g if isinstance(g, np.ndarray) else -g
    through = lambda xp, g, x, out, p: _helper(g)
    direct.__module__ = through.__module__ = "jupyter_autograd.ops.fake_family"
    _helper.__module__ = "jupyter_autograd.ops.fake_family"
    found = _array_type_tests({"direct": (direct,), "through": (through,)})
    assert {rows.pop() for rows in found.values()} == {"direct", "through"}


class _Plain(ArrayNamespace):
    """NumPy behind the plain forms: what CuPy and the stand-in device run."""


def test_plain_and_numpy_forms_agree():
    """Each NumPy trick computes what the plain form every other backend runs computes."""
    plain = _Plain(np)
    rng = np.random.default_rng(0)
    for shape, d in (((100, 3), 1), ((4, 5, 3), 2), ((3, 4), 0), ((2,), 0)):
        x = rng.standard_normal(shape)
        for how in ("sum", "max"):
            np.testing.assert_allclose(NPX.keep_reduce(x, d, how), plain.keep_reduce(x, d, how))
    x = rng.standard_normal((6, 4))
    assert NPX.sum_all(x) == plain.sum_all(x)
    np.testing.assert_array_equal(NPX.row_index(5), plain.row_index(5))
    for ns in (NPX, plain):
        r = np.zeros(4)
        ns.add_at(r, np.array([1, 1, 3]), np.array([1.0, 2.0, 4.0]))
        np.testing.assert_array_equal(r, [0, 3, 0, 4])
    y = rng.standard_normal((2, 4, 5))
    for off in (-1, 0, 2):
        n = max(0, min(4 + min(off, 0), 5 - max(off, 0)))
        rows, cols = np.arange(n) - min(off, 0), np.arange(n) + max(off, 0)
        np.testing.assert_array_equal(
            NPX.diagonal_view(y, off, rows, cols), plain.diagonal_view(y, off, rows, cols)
        )
    empty = np.broadcast_to(np.zeros(()), (0, 3))
    assert NPX.is_expanded_empty(empty) and not plain.is_expanded_empty(empty)
    assert plain.on_host(lambda xp, a: xp.sum(a), (x,)) == NPX.on_host(
        lambda xp, a: xp.sum(a), (x,)
    )


def test_other_backends_get_the_plain_forms():
    """CuPy and the stand-in device get :class:`ArrayNamespace` itself (tests/test_devices.py
    runs every row on the stand-in and compares it with the CPU)."""
    from jupyter_autograd.testing import fake_cuda

    assert type(namespace_for(fake_cuda.fake_cupy)) is ArrayNamespace
    assert type(namespace_for(np)) is not ArrayNamespace
