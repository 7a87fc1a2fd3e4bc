"""``torch.save`` / ``torch.load`` in PyTorch's own checkpoint format, both ways.

A checkpoint is a zip (see ``_ptzip``) holding ``data.pkl``, a protocol-2 pickle in which every
tensor is ``torch._utils._rebuild_tensor_v2(storage, offset, size, stride, requires_grad,
hooks)`` and every storage a persistent id ``("storage", torch.FloatStorage, key, "cpu",
numel)``, plus one record ``data/<key>`` per storage (its raw little-endian bytes), ``byteorder``,
``version`` and torch's other bookkeeping records. Tensors that share memory share one storage
(saved once, views again after loading), so files written here load in torch and torch's files
load here, bit for bit. ``torch.load`` defaults to ``weights_only=True`` as torch >= 2.6: only
tensors, containers and plain values are built (``_weights_only``); ``weights_only=False`` runs
an ordinary unpickler with torch's names mapped onto this package. The pre-1.6 format (a
sequence of pickles, ``_use_new_zipfile_serialization=False``) is read and written too.

Example:
    >>> import io, jupyter_autograd as torch
    >>> buf = io.BytesIO()
    >>> w = torch.arange(6.0).reshape(2, 3)
    >>> torch.save({"w": w, "row": w[1]}, buf)
    >>> _ = buf.seek(0)
    >>> sd = torch.load(buf)
    >>> _ = sd["row"].add_(1)
    >>> sd["w"]
    tensor([[0., 1., 2.],
            [4., 5., 6.]])
"""

from __future__ import annotations

import io
import os
import pickle
import sys
from collections import OrderedDict

import numpy as np

from . import _dtype
from . import _weights_only as W
from ._ptzip import Reader, Writer
from ._storage import (
    _SAVE_NAMES,
    _STORAGE_NAMES,
    _STORAGE_TYPES,
    StorageType,  # noqa: F401 - torch.serialization.StorageType
    UntypedStorage,
    _rebuild_parameter,
    _rebuild_tensor_v2,
    _TypedStorage,
)
from ._weights_only import add_safe_globals, clear_safe_globals, get_safe_globals, safe_globals  # noqa: F401
from .backend import device, move_array
from .tensor import Size, Tensor

DEFAULT_PROTOCOL = 2
MAGIC_NUMBER = 0x1950A86A20F9469CFC6C
PROTOCOL_VERSION = 1001
UNSAFE_MESSAGE = (
    "In PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` "
    "from `False` to `True`. Re-running `torch.load` with `weights_only` set to `False` will "
    "likely succeed, but it can result in arbitrary code execution. Do it only if you got the "
    "file from a trusted source."
)


# ---------------------------------------------------------------------------- saving
class _StorageRef:
    """One storage to save: the memory block under a tensor (its root array)."""

    def __init__(self, key: str, flat: np.ndarray, dtype) -> None:
        self.key, self.flat, self.dtype = key, flat, dtype


def _root(arr: np.ndarray) -> np.ndarray:
    while isinstance(arr.base, np.ndarray):
        arr = arr.base
    return arr


class _Pickler(pickle._Pickler):
    """protocol-2 pickling with torch's names for tensors, storages, dtypes, devices, Size."""

    def __init__(self, file, protocol, legacy: bool = False) -> None:
        super().__init__(file, protocol)
        self.storages: dict[tuple, _StorageRef] = {}
        self.legacy = legacy

    def persistent_id(self, obj):
        if isinstance(obj, _StorageRef):
            st = _STORAGE_TYPES[_STORAGE_NAMES[obj.dtype.name] + "Storage"]
            if self.legacy:
                return ("storage", st, obj.key, "cpu", obj.flat.size, None)
            return ("storage", st, obj.key, "cpu", obj.flat.size)
        return None

    def reducer_override(self, obj):
        if isinstance(obj, Tensor):
            return self._reduce_tensor(obj)
        if id(obj) in _SAVE_NAMES:
            return "global"  # a name to write as torch's (save_global below)
        if isinstance(obj, device):  # a fresh type string (not the memoized "cpu"), as torch's
            typ = (obj.type + " ")[:-1]
            return (device, (typ,) if obj.index is None else (typ, obj.index))
        if isinstance(obj, Size):
            return (Size, (tuple(obj),))
        return NotImplemented

    def save_global(self, obj, name=None):
        names = _SAVE_NAMES.get(id(obj))
        if names is None:
            return super().save_global(obj, name)
        self.write(pickle.GLOBAL + f"{names[0]}\n{names[1]}\n".encode())
        self.memoize(obj)

    def _storage(self, arr: np.ndarray, dt):
        """The storage under ``arr`` and ``arr``'s offset and strides in it (elements)."""
        root = _root(arr)
        item = arr.itemsize
        start = root.__array_interface__["data"][0]
        off = arr.__array_interface__["data"][0] - start if arr.size else 0
        dense = root.flags.c_contiguous or root.flags.f_contiguous
        private = not (
            arr.size
            and dense
            and root.nbytes % item == 0
            and off % item == 0
            and all(s >= 0 and s % item == 0 for s in arr.strides)
        )
        if private:  # empty, negative or ragged strides: a contiguous copy as its own storage
            root = np.ascontiguousarray(arr).copy()
            start, off = root.__array_interface__["data"][0], 0
        key = (start, root.nbytes)
        ref = self.storages.get(key)
        if ref is None:
            flat = root.reshape(-1, order="A").view(np.uint8).view(arr.dtype)
            ref = self.storages[key] = _StorageRef(str(len(self.storages)), flat, dt)
        elif ref.dtype is not dt:
            raise RuntimeError(
                "Cannot save multiple tensors or storages that view the same data "
                "as different types"
            )
        strides = (
            _contiguous_strides(arr.shape) if private else tuple(s // item for s in arr.strides)
        )
        return ref, off // item, strides

    def _reduce_tensor(self, t: Tensor):
        if getattr(t, "_is_param", False):
            plain = Tensor._wrap(t._data)
            return (_rebuild_parameter, (plain, t._requires_grad, OrderedDict()))
        arr = t._data
        if arr.__class__ is not np.ndarray:
            arr = move_array(arr, "cpu")  # GPU tensors are saved from a host copy, as torch does
        dt = _dtype.from_numpy_dtype(arr.dtype)
        ref, off, strides = self._storage(arr, dt)
        return (
            _rebuild_tensor_v2,
            (ref, off, tuple(arr.shape), strides, bool(t._requires_grad), OrderedDict()),
        )


def _contiguous_strides(shape) -> tuple:
    out, acc = [], 1
    for s in reversed(shape):
        out.append(acc)
        acc *= max(s, 1)
    return tuple(reversed(out))


def _archive_name(f) -> str:
    if isinstance(f, (str, os.PathLike)):
        return os.path.splitext(os.path.basename(os.fspath(f)))[0]
    return "archive"


def save(
    obj,
    f,
    pickle_module=pickle,
    pickle_protocol=DEFAULT_PROTOCOL,
    _use_new_zipfile_serialization: bool = True,
    _disable_byteorder_record: bool = False,
) -> None:
    """Save ``obj`` to ``f`` (a path or a binary file object) in PyTorch's checkpoint format;
    ``torch.load`` of torch 2.13 reads it, with the same bits in every tensor.

    Example:
        >>> import io, jupyter_autograd as torch
        >>> buf = io.BytesIO()
        >>> torch.save(torch.nn.Linear(2, 1).state_dict(), buf)
        >>> sorted(torch.load(io.BytesIO(buf.getvalue())))
        ['bias', 'weight']
    """
    if not isinstance(f, (str, os.PathLike)) and not hasattr(f, "write"):
        raise AttributeError(
            "expected 'f' to be string, path, or a file-like object with a 'write' attribute"
        )
    stream = open(f, "wb") if isinstance(f, (str, os.PathLike)) else f  # noqa: SIM115
    try:
        if _use_new_zipfile_serialization:
            _save_zip(obj, stream, _archive_name(f), pickle_protocol, _disable_byteorder_record)
        else:
            _save_legacy(obj, stream, pickle_protocol)
    finally:
        if stream is not f:
            stream.close()


def _save_zip(obj, stream, prefix, protocol, no_byteorder) -> None:
    data = io.BytesIO()
    pickler = _Pickler(data, protocol)
    pickler.dump(obj)
    with Writer(stream, prefix) as w:
        w.write_record("data.pkl", data.getvalue())
        w.write_record(".format_version", b"1")
        w.write_record(".storage_alignment", b"64")
        if not no_byteorder:
            w.write_record("byteorder", sys.byteorder.encode("ascii"))
        for ref in pickler.storages.values():
            w.write_record(
                f"data/{ref.key}",
                np.ascontiguousarray(ref.flat).astype(ref.flat.dtype.newbyteorder("<"), copy=False),
            )


def _save_legacy(obj, stream, protocol) -> None:
    for head in (
        MAGIC_NUMBER,
        PROTOCOL_VERSION,
        {
            "protocol_version": PROTOCOL_VERSION,
            "little_endian": sys.byteorder == "little",
            "type_sizes": {"short": 2, "int": 4, "long": 4},
        },
    ):
        pickle.dump(head, stream, protocol=protocol)
    pickler = _Pickler(stream, protocol, legacy=True)
    pickler.dump(obj)
    refs = sorted(pickler.storages.values(), key=lambda r: r.key)
    pickle.dump([r.key for r in refs], stream, protocol=protocol)
    for r in refs:
        stream.write(np.int64(r.flat.size).tobytes())
        stream.write(np.ascontiguousarray(r.flat).tobytes())


# ---------------------------------------------------------------------------- loading
_WO_DOCS = (
    "\n\nCheck the documentation of torch.load to learn more about types accepted by default "
    "with weights_only https://pytorch.org/docs/stable/generated/torch.load.html."
)


def _weights_only_message(message: str) -> str:
    """torch's wording around a weights-only refusal."""
    import re

    if re.search(r"GLOBAL (\S+) was not an allowed global by default.", message):
        text = (
            "Weights only load failed. This file can still be loaded, to do so you have two "
            "options, \033[1mdo those steps only if you trust the source of the checkpoint\033[0m. "
            f"\n\t(1) {UNSAFE_MESSAGE}\n\t(2) Alternatively, to load with `weights_only=True` "
            "please check the recommended steps in the following error message.\n\t"
            "WeightsUnpickler error: " + message
        )
    elif re.search(r"(\S+) must be (\S+) to load", message):
        return f"Weights only load failed. {message}\n {UNSAFE_MESSAGE}\n"
    else:
        text = f"Weights only load failed. {UNSAFE_MESSAGE}\n"
        if not re.search(r"whose module (\S+) is blocked", message):
            text += (
                "Please file an issue with the following so that we can make "
                "`weights_only=True` compatible with your use case: WeightsUnpickler error: "
            )
        text += "\n\n" + message
    return text + _WO_DOCS


def _restore(map_location):
    """``(storage, location) -> storage`` for torch's kinds of ``map_location``."""

    def default(storage: UntypedStorage, location: str) -> UntypedStorage:
        if location.startswith("cuda"):
            from . import cuda

            if not cuda.is_available():
                raise RuntimeError(
                    "Attempting to deserialize object on a CUDA device but "
                    "torch.cuda.is_available() is False. If you are running on a CPU-only "
                    "machine, please use torch.load with map_location=torch.device('cpu') to "
                    "map your storages to the CPU."
                )
            return storage.to(location)
        if location != "cpu":
            raise RuntimeError(f"don't know how to restore data location of {location}")
        return storage

    if map_location is None:
        return default
    if isinstance(map_location, dict):
        return lambda s, loc: default(s, str(map_location.get(loc, loc)))
    if isinstance(map_location, (str, bytes, device)):
        target = map_location.decode() if isinstance(map_location, bytes) else str(map_location)
        return lambda s, loc: default(s, target)
    if not callable(map_location):
        raise TypeError(
            f"map_location should be a string, torch.device, dict or callable, got "
            f"{type(map_location).__name__}"
        )

    def call(s, loc):
        out = map_location(s, loc)
        return default(s, loc) if out is None else out

    return call


class _Loader:
    """Turns persistent ids into typed storages (each key read once, then shared)."""

    def __init__(self, read_bytes, map_location, swap: bool) -> None:
        self.read_bytes = read_bytes
        self.restore = _restore(map_location)
        self.swap = swap
        self.loaded: dict = {}

    def __call__(self, pid):
        kind = pid[0].decode("ascii") if isinstance(pid[0], bytes) else pid[0]
        if kind != "storage":
            raise RuntimeError(f"Unknown saved id type: {pid[0]}")
        storage_type, key, location, numel = pid[1:5]
        key = key.decode() if isinstance(key, bytes) else key
        location = location.decode() if isinstance(location, bytes) else location
        dt = storage_type.dtype.np
        if key not in self.loaded:
            raw = np.frombuffer(self.read_bytes(key, numel * dt.itemsize), np.uint8)
            if self.swap and dt.itemsize > 1:
                raw = raw.view(dt.newbyteorder(">")).astype(dt).view(np.uint8)
            self.loaded[key] = self.restore(UntypedStorage(raw, "cpu"), location)
        view = pid[5] if len(pid) > 5 else None
        data = self.loaded[key]._data.view(dt)
        if view is not None:  # legacy view storages: (root key, offset, size)
            data = data[view[1] : view[1] + view[2]]
        return _TypedStorage(data, storage_type.dtype)


class _Unpickler(pickle.Unpickler):
    """weights_only=False: an ordinary unpickler with torch's names mapped onto this package."""

    def find_class(self, module, name):
        full = f"{module}.{name}"
        if "Storage" in name and name in _STORAGE_TYPES:
            return _STORAGE_TYPES[name]
        if full in W._ALLOWED:
            return W._ALLOWED[full]
        if module == "torch" or module.startswith("torch."):
            from . import nn, optim

            for ns, prefix in ((nn, "torch.nn."), (optim, "torch.optim."), (None, "torch.")):
                if ns is not None and module.startswith(prefix) and hasattr(ns, name):
                    return getattr(ns, name)
            if module == "torch":
                # torch.X is the package's X, resolved by name as pickle resolves every global
                try:
                    return super().find_class("jupyter_autograd", name)
                except AttributeError:
                    pass
            raise pickle.UnpicklingError(
                f"torch.load: {full} has no counterpart in jupyter_autograd"
            )
        return super().find_class(module, name)


def _default_weights_only(weights_only, pickle_module):
    true = ("1", "y", "yes", "true")
    force = os.getenv("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "0").lower() in true
    force_no = os.getenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "0").lower() in true
    if force and force_no:
        raise RuntimeError(
            "Only one of `TORCH_FORCE_WEIGHTS_ONLY_LOAD` or "
            "`TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD` should be set, but both were set."
        )
    if force:
        return True
    if weights_only is None:
        if force_no:
            import warnings

            warnings.warn(
                "Environment variable TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD detected, since the"
                "`weights_only` argument was not explicitly passed to `torch.load`, "
                "forcing weights_only=False.",
                UserWarning,
                stacklevel=3,
            )
            return False
        return pickle_module is None
    return weights_only


def load(
    f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None, **pickle_load_args
):
    """Load what ``torch.save`` (torch's or this package's) wrote, as torch 2.13 does:
    ``weights_only=True`` by default (tensors, containers and plain values only; a file naming
    any other global is refused before it can run code), ``map_location`` as a device, a
    string, a dict of locations or a callable ``(storage, location) -> storage``.

    Raises:
        pickle.UnpicklingError: a weights-only load met something that is not plain data.

    Example:
        >>> import io, jupyter_autograd as torch
        >>> buf = io.BytesIO()
        >>> torch.save([torch.ones(2), 3], buf)
        >>> torch.load(io.BytesIO(buf.getvalue()), map_location="cpu")
        [tensor([1., 1.]), 3]
    """
    weights_only = _default_weights_only(weights_only, pickle_module)
    if weights_only and pickle_module is not None:
        raise RuntimeError("Can not safely load weights when explicit pickle_module is specified")
    if pickle_load_args and weights_only:
        import warnings

        warnings.warn("pickle_load_args only works if `weights_only=False`.", stacklevel=2)
    pickle_load_args.setdefault("encoding", "utf-8")
    path = isinstance(f, (str, os.PathLike))
    stream = open(f, "rb") if path else f  # noqa: SIM115
    try:
        if not stream.seekable():
            raise RuntimeError("torch.load: the file object must be seekable (io.BytesIO works)")
        head = stream.read(4)
        stream.seek(-len(head), 1)
        unpickler = W.Unpickler if weights_only else _Unpickler
        try:
            if head == b"PK\x03\x04":
                return _load_zip(
                    stream,
                    map_location,
                    unpickler,
                    pickle_load_args,
                    os.fspath(f) if path and mmap else None,
                )
            if mmap:
                raise RuntimeError(
                    "mmap can only be used with files saved with `torch.save("
                    f"{os.fspath(f) + ', ' if path else ''}_use_new_zipfile_serialization=True), "
                    "please torch.save your checkpoint with this option in order to use mmap."
                )
            return _load_legacy(stream, map_location, unpickler, pickle_load_args)
        except pickle.UnpicklingError as e:
            if weights_only:
                raise pickle.UnpicklingError(_weights_only_message(str(e))) from None
            raise
    finally:
        if path:
            stream.close()


def _load_zip(stream, map_location, unpickler, args, mmap_path):
    zf = Reader(stream)
    if zf.has_record("constants.pkl"):
        raise RuntimeError(
            "torch.load: this is a TorchScript archive (torch.jit.save), which "
            "jupyter_autograd cannot run"
        )
    order = zf.get_record("byteorder") if zf.has_record("byteorder") else b"little"
    if order not in (b"little", b"big"):
        raise ValueError("Unknown endianness type: " + order.decode())
    mapped = np.memmap(mmap_path, np.uint8, mode="c") if mmap_path else None

    def read_bytes(key, nbytes):
        if mapped is not None:
            at = zf.record_offset(f"data/{key}")
            return mapped[at : at + nbytes]
        return zf.get_record_into(f"data/{key}")

    u = unpickler(io.BytesIO(zf.get_record("data.pkl")), **_encoding(unpickler, args))
    u.persistent_load = _Loader(read_bytes, map_location, order.decode() != sys.byteorder)
    return u.load()


def _encoding(unpickler, args):
    return {"encoding": args.get("encoding", "utf-8")} if unpickler is W.Unpickler else args


def _load_legacy(stream, map_location, unpickler, args):
    if pickle.load(stream, **args) != MAGIC_NUMBER:
        raise RuntimeError("Invalid magic number; corrupt file?")
    version = pickle.load(stream, **args)
    if version != PROTOCOL_VERSION:
        raise RuntimeError(f"Invalid protocol version: {version}")
    pickle.load(stream, **args)  # sys_info
    pending: dict = {}

    def read_bytes(key, nbytes):  # storages follow the pickles: read them after, then fill
        pending[key] = np.zeros(nbytes, np.uint8)
        return pending[key]

    loader = _Loader(read_bytes, None, False)
    u = unpickler(stream, **_encoding(unpickler, args))
    u.persistent_load = loader
    result = u.load()
    for key in pickle.load(stream, **args):
        stream.read(8)  # the element count, which the pickle already gave
        buf = pending[key]
        buf[:] = np.frombuffer(stream.read(buf.size), np.uint8)
    if map_location is not None:
        result = _relocate(result, _restore(map_location))
    return result


def _relocate(obj, restore):
    """Move loaded tensors as ``map_location`` asks (legacy files fill storages after unpickling)."""
    if isinstance(obj, Tensor):
        dev = restore(UntypedStorage(obj._data.reshape(-1)[:0].view(np.uint8), "cpu"), "cpu").device
        return obj if dev.type == "cpu" else obj.to(dev)
    if isinstance(obj, dict):
        for k, v in obj.items():
            obj[k] = _relocate(v, restore)
        return obj
    if isinstance(obj, list):
        obj[:] = [_relocate(v, restore) for v in obj]
        return obj
    if isinstance(obj, tuple):
        return type(obj)(_relocate(v, restore) for v in obj) if type(obj) is tuple else obj
    return obj
