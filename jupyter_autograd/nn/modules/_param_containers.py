"""``nn.ParameterList`` and ``nn.ParameterDict`` as torch's: containers registering what they
hold as the module's parameters, with torch's indexing, update order and printing."""

from __future__ import annotations

import operator
from collections import OrderedDict, abc

from ...tensor import Tensor
from ..parameter import Parameter
from .module import Module


class ParameterList(Module):
    """A list of parameters (tensors become Parameters), registered as ``'0'``, ``'1'``..."""

    def __init__(self, values=None):
        super().__init__()
        self._size = 0
        if values is not None:
            self += values

    def _get_abs_string_index(self, idx):
        idx = operator.index(idx)
        if not -len(self) <= idx < len(self):
            raise IndexError(f"index {idx} is out of range")
        if idx < 0:
            idx += len(self)
        return str(idx)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            start, stop, step = idx.indices(len(self))
            out = self.__class__()
            for i in range(start, stop, step):
                out.append(self[i])
            return out
        else:
            idx = self._get_abs_string_index(idx)
            return getattr(self, str(idx))

    def __setitem__(self, idx, param):
        idx = self._get_abs_string_index(idx)
        if isinstance(param, Tensor) and (not isinstance(param, Parameter)):
            param = Parameter(param)
        return setattr(self, str(idx), param)

    def __len__(self):
        return self._size

    def __iter__(self):
        return iter(self[i] for i in range(len(self)))

    def __iadd__(self, parameters):
        return self.extend(parameters)

    def __dir__(self):
        keys = super().__dir__()
        keys = [key for key in keys if not key.isdigit()]
        return keys

    def append(self, value):
        new_idx = len(self)
        self._size += 1
        self[new_idx] = value
        return self

    def extend(self, values):
        if not isinstance(values, abc.Iterable) or isinstance(values, Tensor):
            raise TypeError(
                "ParameterList.extend should be called with an iterable, but got "
                + type(values).__name__
            )
        for value in values:
            self.append(value)
        return self

    def extra_repr(self):
        child_lines = []
        for k, p in enumerate(self):
            if isinstance(p, Tensor):
                size_str = "x".join(str(size) for size in p.size())
                if p.device.type == "cuda":
                    device_str = f" ({p.device})"
                else:
                    device_str = ""
                parastr = "{} containing: [{} of size {}{}]".format(
                    "Parameter" if isinstance(p, Parameter) else "Tensor",
                    p.dtype,
                    size_str,
                    device_str,
                )
                child_lines.append("  (" + str(k) + "): " + parastr)
            else:
                child_lines.append("  (" + str(k) + "): Object of type: " + type(p).__name__)
        tmpstr = "\n".join(child_lines)
        return tmpstr

    def __call__(self, *args, **kwargs):
        raise RuntimeError("ParameterList should not be called.")


class ParameterDict(Module):
    """An ordered dict of parameters, registered under their keys."""

    def __init__(self, parameters=None):
        super().__init__()
        self._keys = {}
        if parameters is not None:
            self.update(parameters)

    def _key_to_attr(self, key):
        if not isinstance(key, str):
            raise TypeError(
                f"Index given to ParameterDict cannot be used as a key as it is not a string (type is '{type(key).__name__}'). Open an issue on github if you need non-string keys."
            )
        else:
            return key

    def __getitem__(self, key):
        attr = self._key_to_attr(key)
        return getattr(self, attr)

    def __setitem__(self, key, value):
        self._keys[key] = None
        attr = self._key_to_attr(key)
        if isinstance(value, Tensor) and (not isinstance(value, Parameter)):
            value = Parameter(value)
        setattr(self, attr, value)

    def __delitem__(self, key):
        del self._keys[key]
        attr = self._key_to_attr(key)
        delattr(self, attr)

    def __len__(self):
        return len(self._keys)

    def __iter__(self):
        return iter(self._keys)

    def __reversed__(self):
        return reversed(self._keys)

    def copy(self):
        return ParameterDict(OrderedDict((k, self[k]) for k in self._keys))

    def __contains__(self, key):
        return key in self._keys

    def setdefault(self, key, default=None):
        if key not in self:
            self[key] = default
        return self[key]

    def clear(self):
        for k in self._keys.copy():
            del self[k]

    def pop(self, key):
        v = self[key]
        del self[key]
        return v

    def popitem(self):
        k, _ = self._keys.popitem()
        self._keys[k] = None
        val = self[k]
        del self[k]
        return (k, val)

    def get(self, key, default=None):
        return self[key] if key in self else default  # noqa: SIM401  (this is get)

    def fromkeys(self, keys, default=None):
        return ParameterDict((k, default) for k in keys)

    def keys(self):
        return self._keys.keys()

    def items(self):
        return ((k, self[k]) for k in self._keys)

    def values(self):
        return (self[k] for k in self._keys)

    def update(self, parameters):
        if not isinstance(parameters, abc.Iterable):
            raise TypeError(
                "ParametersDict.update should be called with an iterable of key/value pairs, but got "
                + type(parameters).__name__
            )
        if isinstance(parameters, (OrderedDict, ParameterDict)):
            for key, parameter in parameters.items():
                self[key] = parameter
        elif isinstance(parameters, abc.Mapping):
            for key, parameter in sorted(parameters.items()):
                self[key] = parameter
        else:
            for j, p in enumerate(parameters):
                if not isinstance(p, abc.Iterable):
                    raise TypeError(
                        "ParameterDict update sequence element #"
                        + str(j)
                        + " should be Iterable; is"
                        + type(p).__name__
                    )
                if not len(p) == 2:
                    raise ValueError(
                        "ParameterDict update sequence element #"
                        + str(j)
                        + " has length "
                        + str(len(p))
                        + "; 2 is required"
                    )
                self[p[0]] = p[1]

    def extra_repr(self):
        child_lines = []
        for k, p in self.items():
            if isinstance(p, Tensor):
                size_str = "x".join(str(size) for size in p.size())
                if p.device.type == "cuda":
                    device_str = f" ({p.device})"
                else:
                    device_str = ""
                parastr = "{} containing: [{} of size {}{}]".format(
                    "Parameter" if isinstance(p, Parameter) else "Tensor",
                    p.type(),
                    size_str,
                    device_str,
                )
                child_lines.append("  (" + str(k) + "): " + parastr)
            else:
                child_lines.append("  (" + str(k) + "): Object of type: " + type(p).__name__)
        tmpstr = "\n".join(child_lines)
        return tmpstr

    def __call__(self, input):
        raise RuntimeError("ParameterDict should not be called.")

    def __or__(self, other):
        copy = self.copy()
        copy.update(other)
        return copy

    def __ror__(self, other):
        copy = other.copy()
        copy.update(self)
        return copy

    def __ior__(self, other):
        self.update(other)
        return self
