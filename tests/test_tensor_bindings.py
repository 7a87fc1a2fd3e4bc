"""Every Tensor method is bound on one line a reader can find (``Tensor.tanh = ...`` or a
``def`` in the class body), never by a loop over a list of names, and bound once: a second
binding in a later module silently wins (a past one made ``Tensor.__hash__`` slow)."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import jupyter_autograd as ja

_ROOT = Path(ja.__file__).parent
# made by Python for every class, not bound by the package
_AUTOMATIC = {
    "__dict__",
    "__doc__",
    "__firstlineno__",
    "__module__",
    "__qualname__",
    "__static_attributes__",
    "__weakref__",
}


# Where Tensor's attributes are bound (a new module binding them belongs in this map, or its
# bindings in one of these): the class body holds the core (data, grad, shape, backward...).
_BINDERS = {
    "tensor.py": "the class body: storage, autograd state, shape queries, backward",
    "_tensor_methods.py": "operators, the methods onto ops/api.py functions, indexing",
    "_methods_ext.py": "the methods onto ops/api_math, api_shape, api_reduce, ... and to/float/...",
    "_tensor_conversions.py": "cpu, cuda, new_tensor/new_zeros/...",
    "_legacy_types.py": "type (the legacy type names)",
    "_tensor_setitem.py": "__setitem__, index_put_",
    "_sampling.py": "bernoulli, multinomial",
    "_sampling_inplace.py": "uniform_, normal_, ... (the in-place samplers)",
    "ops/cplx.py": "real, imag, conj, H, mH, ... (the conjugate bit)",
    "ops/inplace_view.py": "squeeze_, unsqueeze_ (their rows)",
}


def _trees():
    for path in sorted(_ROOT.rglob("*.py")):
        yield path.relative_to(_ROOT).as_posix(), ast.parse(path.read_text(encoding="utf-8"))


def _is_tensor(node) -> bool:
    return isinstance(node, ast.Name) and node.id == "Tensor"


def _bindings():
    """name -> ["file:line", ...] for each place that binds a Tensor attribute: the class
    body in tensor.py and every ``Tensor.name = ...`` target (chained targets included)."""
    found = defaultdict(list)
    for rel, tree in _trees():
        for node in ast.walk(tree):
            if rel == "tensor.py" and isinstance(node, ast.ClassDef) and node.name == "Tensor":
                for item in node.body:
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and not any(
                        isinstance(d, ast.Attribute) and d.attr in ("setter", "deleter")
                        for d in item.decorator_list
                    ):  # a property's setter completes the property, it binds nothing new
                        found[item.name].append(f"{rel}:{item.lineno}")
                    targets = (
                        item.targets
                        if isinstance(item, ast.Assign)
                        else [item.target]
                        if isinstance(item, ast.AnnAssign) and item.value is not None
                        else []
                    )
                    for t in targets:
                        if isinstance(t, ast.Name):
                            found[t.id].append(f"{rel}:{item.lineno}")
            if isinstance(node, ast.Assign):
                for t in node.targets:
                    if isinstance(t, ast.Attribute) and _is_tensor(t.value):
                        found[t.attr].append(f"{rel}:{node.lineno}")
    return found


def test_tensor_attributes_are_bound_in_the_known_modules():
    files = {where.split(":")[0] for places in _bindings().values() for where in places}
    assert sorted(files - set(_BINDERS)) == []


def test_no_setattr_binds_tensor_methods():
    """``setattr(Tensor, name, ...)`` hides the name from a reader's grep (and in a loop over a
    list of names, which method comes from where): bind ``Tensor.name = ...`` instead."""
    bad = [
        f"{rel}:{node.lineno}"
        for rel, tree in _trees()
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "setattr"
        and node.args
        and _is_tensor(node.args[0])
    ]
    assert bad == []


def test_no_loop_binds_tensor_methods():
    bad = []
    for rel, tree in _trees():
        for loop in ast.walk(tree):
            if not isinstance(loop, (ast.For, ast.While, ast.comprehension)):
                continue
            for node in ast.walk(loop if not isinstance(loop, ast.comprehension) else loop.iter):
                if isinstance(node, ast.Assign) and any(
                    isinstance(t, ast.Attribute) and _is_tensor(t.value) for t in node.targets
                ):
                    bad.append(f"{rel}:{node.lineno}")
    assert bad == []


def test_every_tensor_attribute_is_bound_exactly_once():
    found = _bindings()
    names = [n for n in vars(ja.Tensor) if n not in _AUTOMATIC]
    twice = {n: found[n] for n in names if len(found[n]) > 1}
    unfound = sorted(n for n in names if not found[n])
    assert twice == {}
    assert unfound == []


def test_every_binding_is_still_on_the_class():
    """A binding the class no longer holds was overwritten by something this test cannot see
    (or names a typo)."""
    assert sorted(set(_bindings()) - set(vars(ja.Tensor))) == []
