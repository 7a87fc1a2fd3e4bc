"""``torch.load(weights_only=True)``: an unpickler that can only build data.

It interprets the pickle opcodes itself (never :mod:`pickle`'s machinery that imports and
calls whatever a file names), and a ``GLOBAL`` may only name the allowlisted callables: the
tensor and parameter rebuilders, storage types, dtypes, ``torch.Size``/``torch.device``,
``collections.OrderedDict``/``Counter``, ``set``/``complex``/``bytearray``/``_codecs.encode``,
plus whatever :func:`add_safe_globals` registered. Anything else stops loading with torch's
``UnpicklingError`` text, before any code named in the file can run.

Example:
    >>> import io, pickle
    >>> from jupyter_autograd._weights_only import Unpickler
    >>> Unpickler(io.BytesIO(pickle.dumps({"lr": 0.1, "betas": (0.9, 0.99)}, 2))).load()
    {'lr': 0.1, 'betas': (0.9, 0.99)}
    >>> evil = b"\\x80\\x02cposix\\nsystem\\nX\\x02\\x00\\x00\\x00lsq\\x00\\x85R."
    >>> Unpickler(io.BytesIO(evil)).load()
    Traceback (most recent call last):
    ...
    _pickle.UnpicklingError: Trying to load unsupported GLOBAL posix.system whose module posix is blocked.
"""

from __future__ import annotations

import _compat_pickle
import pickle
import struct
import warnings
from collections import Counter, OrderedDict
from pickle import UnpicklingError

_BLOCKED_MODULES = ("sys", "os", "posix", "nt")
_USER: set = set()  # add_safe_globals: callables, or (callable, "module.name") pairs
_ALLOWED: dict = {}  # filled by serialization.py: "module.name" -> our object


def add_safe_globals(safe_globals) -> None:
    """Allow these callables (or ``(callable, "module.name")`` pairs) in weights-only loads."""
    _USER.update(safe_globals)


def get_safe_globals() -> list:
    """What :func:`add_safe_globals` allowed."""
    return list(_USER)


def clear_safe_globals() -> None:
    """Forget every global :func:`add_safe_globals` allowed."""
    _USER.clear()


class safe_globals:
    """Allow globals for the duration of a ``with`` block."""

    def __init__(self, safe_globals) -> None:
        self.safe_globals = list(safe_globals)

    def __enter__(self) -> None:
        _USER.update(self.safe_globals)

    def __exit__(self, *exc) -> None:
        _USER.difference_update(self.safe_globals)


def _user_allowed() -> dict:
    out = {}
    for g in _USER:
        if isinstance(g, tuple):
            if len(g) != 2:
                raise ValueError(
                    "Expected tuple of length 2 (global, str of callable full path), "
                    f"but got tuple of length: {len(g)}"
                )
            if type(g[1]) is not str:
                raise TypeError(
                    "Expected second item in tuple to be str of callable full path, "
                    f"but got: {type(g[1])}"
                )
            out[g[1]] = g[0]
        else:
            out[f"{g.__module__}.{g.__qualname__}"] = g
    return out


def _global_name(readline) -> tuple[str, str]:
    module = readline()[:-1].decode("utf-8")
    name = readline()[:-1].decode("utf-8")
    if (module, name) in _compat_pickle.NAME_MAPPING:
        module, name = _compat_pickle.NAME_MAPPING[(module, name)]
    elif module in _compat_pickle.IMPORT_MAPPING:
        module = _compat_pickle.IMPORT_MAPPING[module]
    return module, name


def _refused(full: str) -> UnpicklingError:
    shown = full
    if full.startswith("builtins"):
        rest = full[len("builtins") :]
        shown = rest[1:] if rest.startswith(".") else "builtins" + rest
    return UnpicklingError(
        f"Unsupported global: GLOBAL {shown} was not an allowed global by default. Please use "
        f"`torch.serialization.add_safe_globals([{shown}])` or the "
        f"`torch.serialization.safe_globals([{shown}])` context manager to allowlist this global "
        "if you trust this class/function."
    )


class Unpickler:
    """A pickle reader for protocol-2 checkpoints that builds only allowlisted objects.

    ``persistent_load`` (set by the caller) turns ``("storage", ...)`` ids into storages.
    """

    def __init__(self, file, *, encoding: str = "bytes") -> None:
        self.read = file.read
        self.readline = file.readline
        self.encoding = encoding
        self.memo: dict = {}

    def persistent_load(self, pid):
        raise UnpicklingError("unsupported persistent id encountered")

    def load(self):
        stack: list = []
        marks: list = []
        memo = self.memo
        read = self.read
        allowed = _ALLOWED
        user = _user_allowed()
        values = set(map(id, allowed.values())) | set(map(id, user.values()))
        while True:
            key = read(1)
            if not key:
                raise EOFError
            op = key[0]
            if op == pickle.GLOBAL[0]:
                module, name = _global_name(self.readline)
                full = f"{module}.{name}"
                if module in _BLOCKED_MODULES:
                    raise UnpicklingError(
                        f"Trying to load unsupported GLOBAL {full} whose module "
                        f"{module} is blocked."
                    )
                if full in allowed:
                    stack.append(allowed[full])
                elif full in user:
                    stack.append(user[full])
                else:
                    raise _refused(full)
            elif op == pickle.NEWOBJ[0]:
                args = stack.pop()
                cls = stack.pop()
                if cls is allowed.get("torch.nn.parameter.Parameter"):
                    stack.append(cls(*args))
                elif id(cls) in values:
                    stack.append(cls.__new__(cls, *args))
                else:
                    raise UnpicklingError(
                        "Can only create new object for nn.Parameter or classes "
                        f"allowlisted via `add_safe_globals` but got {cls}"
                    )
            elif op == pickle.REDUCE[0]:
                args = stack.pop()
                func = stack[-1]
                if id(func) not in values:
                    msg = f"Trying to call reduce for unrecognized function {func}"
                    if hasattr(func, "__self__"):
                        msg += f" which belongs to {func.__self__}"
                    raise UnpicklingError(msg)
                stack[-1] = func(*args)
            elif op == pickle.BUILD[0]:
                state = stack.pop()
                _build(stack[-1], state, values)
            elif op in (pickle.APPEND[0], pickle.APPENDS[0]):
                items = [stack.pop()] if op == pickle.APPEND[0] else _pop_mark(stack, marks)
                if type(stack[-1]) is not list:
                    raise UnpicklingError(
                        f"Can only {'append to' if op == pickle.APPEND[0] else 'extend'} "
                        f"lists, but got {type(stack[-1])}"
                    )
                stack[-1].extend(items)
            elif op in (pickle.SETITEM[0], pickle.SETITEMS[0]):
                items = stack[-2:] if op == pickle.SETITEM[0] else _pop_mark(stack, marks)
                if op == pickle.SETITEM[0]:
                    del stack[-2:]
                target = stack[-1]
                if type(target) not in (dict, OrderedDict, Counter):
                    which = "SETITEM" if op == pickle.SETITEM[0] else "SETITEMS"
                    raise UnpicklingError(
                        f"Can only {which} for dict, collections.OrderedDict, "
                        f"collections.Counter, but got {type(target)}"
                    )
                for i in range(0, len(items), 2):
                    target[items[i]] = items[i + 1]
            elif op == pickle.MARK[0]:
                marks.append(len(stack))
            elif op == pickle.TUPLE[0]:
                stack.append(tuple(_pop_mark(stack, marks)))
            elif op in _TUPLE_N:
                n = _TUPLE_N[op]
                stack[len(stack) - n :] = [tuple(stack[len(stack) - n :])]
            elif op in _CONSTANTS:
                stack.append(_CONSTANTS[op]())
            elif op == pickle.BININT[0]:
                stack.append(struct.unpack("<i", read(4))[0])
            elif op == pickle.BININT1[0]:
                stack.append(read(1)[0])
            elif op == pickle.BININT2[0]:
                stack.append(struct.unpack("<H", read(2))[0])
            elif op == pickle.BINFLOAT[0]:
                stack.append(struct.unpack(">d", read(8))[0])
            elif op == pickle.LONG1[0]:
                stack.append(pickle.decode_long(read(read(1)[0])))
            elif op == pickle.BINUNICODE[0]:
                stack.append(str(read(struct.unpack("<I", read(4))[0]), "utf-8", "surrogatepass"))
            elif op == pickle.SHORT_BINSTRING[0]:
                data = read(read(1)[0])
                stack.append(
                    data if self.encoding == "bytes" else data.decode(self.encoding, "strict")
                )
            elif op == pickle.BINPERSID[0]:
                pid = stack.pop()
                if type(pid) is not tuple and type(pid) is not int:
                    raise UnpicklingError(
                        f"persistent_load id must be tuple or int, but got {type(pid)}"
                    )
                if type(pid) is tuple and pid and _ascii(pid[0]) != "storage":
                    raise UnpicklingError(
                        f"Only persistent_load of storage is allowed, but got {type(pid[0])}"
                    )
                stack.append(self.persistent_load(pid))
            elif op in (pickle.BINGET[0], pickle.LONG_BINGET[0]):
                i = read(1)[0] if op == pickle.BINGET[0] else struct.unpack("<I", read(4))[0]
                stack.append(memo[i])
            elif op in (pickle.BINPUT[0], pickle.LONG_BINPUT[0]):
                i = read(1)[0] if op == pickle.BINPUT[0] else struct.unpack("<I", read(4))[0]
                memo[i] = stack[-1]
            elif op == pickle.PROTO[0]:
                proto = read(1)[0]
                if proto != 2:
                    warnings.warn(
                        f"Detected pickle protocol {proto} in the checkpoint, which was not the "
                        "default pickle protocol used by `torch.load` (2). The weights_only "
                        "Unpickler might not support all instructions implemented by this "
                        "protocol, please file an issue for adding support if you encounter this.",
                        stacklevel=2,
                    )
            elif op == pickle.STOP[0]:
                return stack.pop()
            else:
                raise UnpicklingError(f"Unsupported operand {op}")


_TUPLE_N = {pickle.TUPLE1[0]: 1, pickle.TUPLE2[0]: 2, pickle.TUPLE3[0]: 3}
_CONSTANTS = {
    pickle.NONE[0]: lambda: None,
    pickle.NEWFALSE[0]: lambda: False,
    pickle.NEWTRUE[0]: lambda: True,
    pickle.EMPTY_TUPLE[0]: tuple,
    pickle.EMPTY_LIST[0]: list,
    pickle.EMPTY_DICT[0]: dict,
    pickle.EMPTY_SET[0]: set,
}


def _pop_mark(stack: list, marks: list) -> list:
    at = marks.pop()
    items = stack[at:]
    del stack[at:]
    return items


def _ascii(s) -> str:
    return s.decode("ascii") if isinstance(s, bytes) else s


def _build(inst, state, values) -> None:
    """BUILD: only tensors, parameters, OrderedDicts and allowlisted types take state."""
    from .tensor import Tensor

    if type(inst) is OrderedDict:
        inst.__dict__.update(state)
    elif isinstance(inst, Tensor) or id(type(inst)) in values:
        if hasattr(inst, "__setstate__") and not isinstance(inst, Tensor):
            inst.__setstate__(state)
            return
        slots = None
        if isinstance(state, tuple) and len(state) == 2:
            state, slots = state
        if state:
            inst.__dict__.update(state)
        for k, v in (slots or {}).items():
            setattr(inst, k, v)
    else:
        raise UnpicklingError(
            "Can only build Tensor, Parameter, OrderedDict or types allowlisted "
            f"via `add_safe_globals`, but got {type(inst)}"
        )
