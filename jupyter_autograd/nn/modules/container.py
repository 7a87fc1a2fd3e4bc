"""Containers: ``Sequential``, ``ModuleList``, ``ModuleDict``."""

from __future__ import annotations

import operator
from collections import OrderedDict
from typing import TYPE_CHECKING

from .module import Module, _addindent

if TYPE_CHECKING:
    from typing import Self  # 3.11+; annotations are strings here (PEP 563)


def _index(idx: int, n: int, name: str) -> int:
    idx = operator.index(idx)
    if not -n <= idx < n:
        raise IndexError(f"index {idx} is out of range")
    return idx % n


class _NumberedModules(Module):
    """Children numbered "0", "1", ...: length, iteration, and deletion that renumbers the rest
    (as torch's Sequential and ModuleList)."""

    def __delitem__(self, idx) -> None:
        keys = list(self._modules)
        if isinstance(idx, slice):
            for k in keys[idx]:
                delattr(self, k)
        else:
            delattr(self, keys[_index(idx, len(keys), type(self).__name__)])
        mods = list(self._modules.values())
        self._modules.clear()
        for i, m in enumerate(mods):
            self._modules[str(i)] = m

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())


class Sequential(_NumberedModules):
    """Modules applied in order; children are named ``"0"``, ``"1"``... or by an OrderedDict.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.ReLU())
        Sequential(
          (0): Linear(in_features=2, out_features=3, bias=True)
          (1): ReLU()
        )
    """

    def __init__(self, *args) -> None:
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for key, module in args[0].items():
                self.add_module(key, module)
        else:
            for idx, module in enumerate(args):
                self.add_module(str(idx), module)

    def forward(self, input):
        for module in self._modules.values():
            input = module(input)
        return input

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return self.__class__(OrderedDict(list(self._modules.items())[idx]))
        keys = list(self._modules)
        return self._modules[keys[_index(idx, len(keys), "Sequential")]]

    def __setitem__(self, idx, module) -> None:
        keys = list(self._modules)
        setattr(self, keys[_index(idx, len(keys), "Sequential")], module)

    def append(self, module) -> Sequential:
        self.add_module(str(len(self)), module)
        return self

    def extend(self, sequential) -> Sequential:
        for m in sequential:
            self.append(m)
        return self

    def insert(self, index: int, module) -> Sequential:
        n = len(self._modules)
        if not -n <= index <= n:
            raise IndexError(f"Index out of range: {index}")
        if index < 0:
            index += n
        mods = list(self._modules.values())
        mods.insert(index, module)
        self._modules.clear()
        for i, m in enumerate(mods):
            self._modules[str(i)] = m
        return self


class ModuleList(_NumberedModules):
    """A list of modules whose parameters are registered (children ``"0"``, ``"1"``...).

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.nn.ModuleList([torch.nn.Linear(2, 2) for _ in range(3)])
        ModuleList(
          (0-2): 3 x Linear(in_features=2, out_features=2, bias=True)
        )
    """

    def __init__(self, modules=None) -> None:
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return self.__class__(list(self._modules.values())[idx])
        return self._modules[str(_index(idx, len(self), "ModuleList"))]

    def __setitem__(self, idx, module) -> None:
        setattr(self, str(_index(idx, len(self), "ModuleList")), module)

    def __iadd__(self, modules) -> Self:
        return self.extend(modules)

    def append(self, module) -> ModuleList:
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules) -> ModuleList:
        if (
            isinstance(modules, Module)
            and not isinstance(modules, (ModuleList, Sequential))
            or not hasattr(modules, "__iter__")
        ):
            raise TypeError(
                "ModuleList.extend should be called with an iterable, but got "
                + type(modules).__name__
            )
        for m in modules:
            self.append(m)
        return self

    def insert(self, index: int, module) -> None:
        mods = list(self._modules.values())
        mods.insert(index, module)
        self._modules.clear()
        for i, m in enumerate(mods):
            self._modules[str(i)] = m

    def __repr__(self) -> str:
        # torch collapses runs of identical children: "(0-2): 3 x Linear(...)"
        reprs = [repr(m) for m in self]
        if not reprs:
            return self._get_name() + "()"
        spans = [[0, 0]]
        blocks = [reprs[0]]
        for i, r in enumerate(reprs[1:], 1):
            if r == blocks[-1]:
                spans[-1][1] += 1
                continue
            spans.append([i, i])
            blocks.append(r)
        lines = []
        for (s, e), b in zip(spans, blocks):
            local = f"({s}): {b}" if s == e else f"({s}-{e}): {e - s + 1} x {b}"
            lines.append(_addindent(local, 2))
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"


class ModuleDict(Module):
    """An ordered dict of modules whose parameters are registered.

    Example:
        >>> import jupyter_autograd as torch
        >>> d = torch.nn.ModuleDict({"act": torch.nn.ReLU()})
        >>> d["act"]
        ReLU()
    """

    def __init__(self, modules=None) -> None:
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Module:
        return self._modules[key]

    def __setitem__(self, key: str, module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key) -> bool:
        return key in self._modules

    def clear(self) -> None:
        self._modules.clear()

    def pop(self, key: str) -> Module:
        v = self[key]
        del self[key]
        return v

    def keys(self):
        return self._modules.keys()

    def items(self):
        return self._modules.items()

    def values(self):
        return self._modules.values()

    def update(self, modules) -> None:
        items = modules.items() if hasattr(modules, "items") else modules
        for k, m in items:
            self[k] = m
