"""What to call a tensor: its variable name, else its parameter or buffer path in a module.

:meth:`Names.from_namespace` reads a namespace (an IPython ``user_ns``, a frame's locals and
globals): every tensor bound to a name, every tensor in a list, tuple or dict bound to a name
(``xs[3]``), and the parameters and buffers of every ``nn.Module`` reachable from it, by path as
``named_parameters()`` spells it (``model.fc1.weight``). A tensor's label is its first name in
that order of kinds; the payload keeps all of them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

KINDS = ("variable", "item", "parameter", "buffer")
_CONTAINER_ITEMS = 10_000  # items of one list/dict looked at, so a huge list costs little
_NAMES_PER_TENSOR = 8


def _is_tensor(x) -> bool:
    return hasattr(x, "_data") and hasattr(x, "_requires_grad")


def _module_class():
    from ..nn.modules.module import Module

    return Module


class Names:
    """Names of tensors (by identity) and paths of modules, from one or more namespaces.

    Example:
        >>> import jupyter_autograd as torch
        >>> model = torch.nn.Sequential(torch.nn.Linear(3, 2))
        >>> w = model[0].weight
        >>> names = Names.from_namespace({"model": model, "w": w})
        >>> names.of(w)
        [('w', 'variable'), ('model.0.weight', 'parameter')]
        >>> names.module_path(model[0])
        'model.0'
    """

    def __init__(self) -> None:
        self._tensors: dict = {}  # id -> (tensor, [(name, kind)])
        self._modules: dict = {}  # id -> (path, module)

    def add(self, name: str, tensor, kind: str = "variable") -> None:
        """Record ``name`` for ``tensor`` (kept in the order added, at most 8 per tensor)."""
        hit = self._tensors.get(id(tensor))
        if hit is None:
            self._tensors[id(tensor)] = (tensor, [(name, kind)])
        elif len(hit[1]) < _NAMES_PER_TENSOR and all(n != name for n, _ in hit[1]):
            hit[1].append((name, kind))

    def add_module(self, path: str, module) -> None:
        """Record a module and, under its path, its submodules, parameters and buffers."""
        if id(module) in self._modules:
            return
        for sub_path, sub in module.named_modules(prefix=path):
            self._modules.setdefault(id(sub), (sub_path, sub))
        for p_path, p in module.named_parameters(prefix=path):
            self.add(p_path, p, "parameter")
        for b_path, b in module.named_buffers(prefix=path):
            self.add(b_path, b, "buffer")

    def of(self, tensor) -> list:
        """``[(name, kind), ...]`` of ``tensor``, best first (variables before paths)."""
        hit = self._tensors.get(id(tensor))
        if hit is None or hit[0] is not tensor:
            return []
        order = {k: i for i, k in enumerate(KINDS)}
        return sorted(hit[1], key=lambda nk: order.get(nk[1], len(KINDS)))

    def name(self, tensor) -> str | None:
        """The label name of ``tensor``, or None."""
        found = self.of(tensor)
        return found[0][0] if found else None

    def module_path(self, module) -> str | None:
        """``module``'s path from the namespace (``model.fc1``), or None if not reachable."""
        hit = self._modules.get(id(module))
        return hit[0] if hit is not None and hit[1] is module else None

    def tensors(self) -> Iterable:
        """Every named tensor, once."""
        return (t for t, _ in self._tensors.values())

    def __len__(self) -> int:
        return len(self._tensors)

    @classmethod
    def from_namespace(cls, namespace: Mapping, first: Iterable[str] = ()) -> Names:
        """Names from a namespace; the names in ``first`` (a cell's own bindings) win ties.

        Names starting with ``_`` (IPython's ``_``, ``_i3``...) are skipped.
        """
        names = cls()
        module_cls = _module_class()
        keys = list(dict.fromkeys([*first, *namespace]))
        containers = []
        for key in keys:
            if not isinstance(key, str) or key.startswith("_"):
                continue
            value = namespace.get(key)
            if _is_tensor(value):
                names.add(key, value)
            elif isinstance(value, module_cls):
                names.add_module(key, value)
            elif isinstance(value, (list, tuple, dict)):
                containers.append((key, value))
        for key, value in containers:
            items = (
                ((f"{key}[{k!r}]", v) for k, v in list(value.items())[:_CONTAINER_ITEMS])
                if isinstance(value, dict)
                else ((f"{key}[{i}]", v) for i, v in enumerate(value[:_CONTAINER_ITEMS]))
            )
            for name, v in items:
                if _is_tensor(v):
                    names.add(name, v, "item")
                elif isinstance(v, module_cls):
                    names.add_module(name, v)
        return names


def as_names(names) -> Names:
    """``names`` as a :class:`Names`: a Names, a mapping name -> tensor or module, or None."""
    if isinstance(names, Names):
        return names
    out = Names()
    if names:
        module_cls = _module_class()
        for k, v in names.items():
            if isinstance(v, module_cls):
                out.add_module(str(k), v)
            elif _is_tensor(v):
                out.add(str(k), v)
    return out
