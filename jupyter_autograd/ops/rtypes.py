"""``torch.return_types``: the named tuples that multi-result ops return (sort, topk, svd...)."""

from __future__ import annotations

from collections import namedtuple

_CACHE: dict = {}


def return_type(name: str, fields=("values", "indices")) -> type:
    """The ``torch.return_types.<name>`` class: a named tuple printed as torch prints it."""
    cls = _CACHE.get(name)
    if cls is None:
        base = namedtuple(name, list(fields))

        def __repr__(self):
            body = ",\n".join(f"{f}={v!r}" for f, v in zip(self._fields, self))
            return f"torch.return_types.{name}(\n{body})"

        cls = _CACHE[name] = type(name, (base,), {"__slots__": (), "__repr__": __repr__})
        cls.__module__ = "torch.return_types"
    return cls
