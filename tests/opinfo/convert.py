"""Torch values as jupyter_autograd takes them, OpInfo's torch callables as ours, and the
comparison of a torch result with ours (structure, dtypes, shapes, values)."""

from __future__ import annotations

import dataclasses
import functools
import types

import numpy as np

import jupyter_autograd as ja


class Unsupported(Exception):
    """A sample holds something jupyter_autograd has no counterpart for (a sparse tensor...)."""


class Mismatch(AssertionError):
    pass


def entry_id(op) -> str:
    return op.name + ("." + op.variant_test_name if op.variant_test_name else "")


# ---------------------------------------------------------------------------- torch -> ours
def torch_module():
    import torch

    return torch


def _our_dtype(dt):
    name = str(dt).split(".")[-1]
    ours = getattr(ja, name, None)
    if not isinstance(ours, ja.dtype):
        raise Unsupported(f"dtype {dt}")
    return ours


def _tensor_to_ours(t):
    torch = torch_module()
    if t.layout != torch.strided or t.is_quantized or t.is_meta:
        raise Unsupported(f"{t.layout} tensor")
    d = t.detach().resolve_conj().resolve_neg()
    dt = _our_dtype(d.dtype)
    n = d.untyped_storage().nbytes() // d.element_size()
    if (d.is_contiguous() and d.storage_offset() == 0 and n == d.numel()) or d.numel() == 0:
        arr = d.contiguous().numpy().copy()
    else:
        # the same strides over a copy of the storage (non-contiguous samples stay so, a part
        # of a larger storage keeps its neighbours: as_strided reads them)
        flat = torch.empty(0, dtype=d.dtype).set_(d.untyped_storage(), 0, (n,), (1,))
        base = flat.numpy().copy()
        isz = base.itemsize
        arr = np.lib.stride_tricks.as_strided(
            base[d.storage_offset() :], tuple(d.shape), tuple(s * isz for s in d.stride())
        )
    ours = ja.from_numpy(arr)
    if ours.dtype != dt:
        raise Unsupported(f"dtype {d.dtype}")
    if t.requires_grad:
        ours.requires_grad_(True)
    return ours


def to_ours(x, memo: dict):
    """A sample argument as jupyter_autograd takes it; the same torch tensor maps to the same
    tensor of ours (``memo``)."""
    torch = torch_module()
    if isinstance(x, torch.Tensor):
        k = id(x)
        if k not in memo:
            memo[k] = (x, _tensor_to_ours(x))
        return memo[k][1]
    if isinstance(x, torch.dtype):
        return _our_dtype(x)
    if isinstance(x, torch.Size):
        return ja.Size(x)
    if isinstance(x, torch.device):
        return ja.device(str(x))
    if isinstance(x, (torch.memory_format, torch.layout)):
        name = str(x).split(".")[-1]
        if not hasattr(ja, name):
            raise Unsupported(f"torch.{name}")
        return getattr(ja, name)
    if isinstance(x, torch.Generator):
        raise Unsupported("torch.Generator argument")
    if isinstance(x, torch.nn.Module):
        cls = getattr(ja.nn, type(x).__name__, None)
        if cls is None:
            raise Unsupported(f"module {type(x).__name__}")
        m = cls.__new__(cls)
        kwargs = {k: v for k, v in vars(x).items() if not k.startswith("_") and k != "training"}
        try:
            m.__init__(**kwargs)
        except TypeError:  # an attribute that is not an __init__ argument (PairwiseDistance.norm)
            m.__init__()
            for k, v in kwargs.items():
                setattr(m, k, v)
        return m
    if isinstance(x, list):
        return [to_ours(y, memo) for y in x]
    if isinstance(x, tuple):
        return tuple(to_ours(y, memo) for y in x)
    if isinstance(x, dict):
        return {k: to_ours(v, memo) for k, v in x.items()}
    if isinstance(x, types.FunctionType):
        return translate(x)
    if isinstance(x, (int, float, complex, bool, str, slice, type(None), type(Ellipsis))):
        return x
    if dataclasses.is_dataclass(x) and not isinstance(x, type):  # option records (no tensors)
        return x
    raise Unsupported(f"argument of type {type(x).__name__}")


def leaves(x):
    """Tensors in a nested argument or result, in order."""
    if isinstance(x, (list, tuple)):
        for y in x:
            yield from leaves(y)
    elif isinstance(x, dict):
        for y in x.values():
            yield from leaves(y)
    elif (
        x is not None
        and (x.__class__.__name__ == "Tensor" or hasattr(x, "requires_grad"))
        and hasattr(x, "shape")
    ):
        yield x


def replace_tensors(x, subst: dict):
    """``x`` with tensors swapped by id (duals for forward AD)."""
    if isinstance(x, list):
        return [replace_tensors(y, subst) for y in x]
    if isinstance(x, tuple) and not hasattr(x, "_fields"):
        return tuple(replace_tensors(y, subst) for y in x)
    if isinstance(x, dict):
        return {k: replace_tensors(v, subst) for k, v in x.items()}
    return subst.get(id(x), x)


# ---------------------------------------------------------------------------- resolving the op
_OUR_GLOBALS = {"torch": ja}


def _wrapper_set_seed(op, *args, **kwargs):
    ja.manual_seed(42)
    return op(*args, **kwargs)


def translate(fn):
    """A Python function written against torch (OpInfo's lambdas) rebound to jupyter_autograd:
    its ``torch`` global is ours."""
    if not isinstance(fn, types.FunctionType):
        return fn
    g = dict(fn.__globals__)
    g["torch"] = ja
    g["wrapper_set_seed"] = _wrapper_set_seed
    if "F" in g:
        g["F"] = ja.nn.functional
    if "np" in g:
        g["np"] = np
    closure = fn.__closure__
    if closure:
        closure = tuple(types.CellType(_translate_cell(c.cell_contents)) for c in closure)
    f = types.FunctionType(fn.__code__, g, fn.__name__, fn.__defaults__, closure)
    f.__kwdefaults__ = fn.__kwdefaults__
    return f


def _translate_cell(v):
    torch = torch_module()
    if (
        isinstance(v, types.FunctionType)
        and v.__module__
        and v.__module__.startswith("torch.testing")
    ):
        return translate(v)
    if callable(v) and getattr(v, "__module__", "") in ("torch", "torch._C._VariableFunctions"):
        return getattr(ja, v.__name__)
    if isinstance(v, torch.dtype):
        return _our_dtype(v)
    return v


def by_path(name: str):
    obj = ja
    name = name.removeprefix("torch.")
    for part in name.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def method_of(name: str):
    return getattr(ja.Tensor, name, None)


def resolve(fn, name: str):
    """Our counterpart of one of an entry's torch callables (``op``, method or in-place
    variant), or None where we have none."""
    if fn is None:
        return None
    mod = getattr(fn, "__module__", None) or ""
    qual = getattr(fn, "__qualname__", "") or ""
    if isinstance(fn, types.FunctionType) and mod.startswith("torch.testing"):
        return translate(fn)
    if isinstance(fn, functools.partial):
        inner = resolve(fn.func, getattr(fn.func, "__name__", name))
        if inner is None:
            return None
        return functools.partial(inner, *to_ours(fn.args, {}), **to_ours(fn.keywords, {}))
    if qual.startswith("Tensor.") or type(fn).__name__ in (
        "method_descriptor",
        "wrapper_descriptor",
        "getset_descriptor",
    ):
        return method_of(fn.__name__)
    if type(fn).__name__ in ("OpOverload", "OpOverloadPacket"):
        return None
    return by_path(name)


# ---------------------------------------------------------------------------- tolerances
_DEFAULT_TOL = {
    "float64": (1e-7, 1e-7),
    "float32": (1e-5, 1.3e-5),
    "complex128": (1e-7, 1e-7),
    "complex64": (1e-5, 1.3e-5),
}


def tolerance(op, dtype) -> tuple[float, float]:
    """(atol, rtol) for ``dtype``: ours, widened by the entry's own overrides."""
    from torch.testing._internal.common_device_type import precisionOverride, toleranceOverride

    atol, rtol = _DEFAULT_TOL.get(str(dtype).split(".")[-1], (0.0, 0.0))
    for d in op.decorators:
        for dec in getattr(d, "decorators", [d]):
            if isinstance(dec, toleranceOverride) and dtype in dec.d:
                atol = max(atol, dec.d[dtype].atol)
                rtol = max(rtol, dec.d[dtype].rtol)
            elif isinstance(dec, precisionOverride) and dtype in dec.d:
                # torch's own tests take an entry's precision as the absolute tolerance (its
                # Bessel functions are accurate to 1e-5 in float64)
                atol = max(atol, dec.d[dtype])
    return atol, rtol


# ---------------------------------------------------------------------------- comparing
def as_numpy(x):
    torch = torch_module()
    if isinstance(x, torch.Tensor):
        if x._is_zerotensor():  # torch's symbolic zero gradient (sgn, angle...)
            return np.zeros(tuple(x.shape), dtype=torch.empty(0, dtype=x.dtype).numpy().dtype)
        return x.detach().resolve_conj().resolve_neg().cpu().numpy()
    return np.asarray(x._data if hasattr(x, "_data") else x)


def close(a: np.ndarray, b: np.ndarray, atol: float, rtol: float, what: str, ref=None) -> None:
    """``b`` (ours) agrees with ``a`` (torch's), or, given ``ref`` (torch's result for the same
    sample in float64), is at least as accurate as torch's own float32 result ``a``."""
    if a.shape != b.shape:
        raise Mismatch(f"{what}: shape {list(b.shape)} != torch's {list(a.shape)}")
    if a.dtype.kind in "biu" and b.dtype.kind in "biu":
        if not np.array_equal(a, b):
            raise Mismatch(f"{what}: values differ\n torch: {_short(a)}\n ours:  {_short(b)}")
        return
    a = a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)
    b = b.astype(np.complex128 if b.dtype.kind == "c" else np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        ok = np.isclose(b, a, atol=atol, rtol=rtol, equal_nan=True) | (a == b)
        if ref is not None and not ok.all():
            r = ref.astype(a.dtype)
            ok |= np.abs(b - r) <= 2 * np.abs(a - r) + atol + rtol * np.abs(r)
    if not ok.all():
        err = np.abs(np.where(ok, 0, a - b))
        i = (
            np.unravel_index(np.nanargmax(np.where(np.isnan(err), np.inf, err)), a.shape)
            if a.ndim
            else ()
        )
        raise Mismatch(
            f"{what}: {int((~ok).sum())}/{ok.size} values differ (atol {atol:g}, rtol {rtol:g}); "
            f"at {tuple(int(k) for k in i)} torch {a[i]!r} ours {b[i]!r}"
        )


def _short(a):
    s = np.array2string(np.asarray(a), threshold=12, edgeitems=3)
    return s.replace("\n", " ")


def compare(t, o, atol, rtol, what="output", ref=None) -> None:
    """Structure, dtypes, shapes and values of a torch result ``t`` and ours ``o`` (``ref``: the
    same result computed by torch in float64, see :func:`close`)."""
    torch = torch_module()
    if isinstance(t, torch.Tensor):
        if not isinstance(o, ja.Tensor):
            raise Mismatch(f"{what}: torch gives a Tensor, ours a {type(o).__name__}")
        if str(t.dtype).split(".")[-1] != str(o.dtype).split(".")[-1]:
            raise Mismatch(f"{what}: dtype {o.dtype} != torch's {t.dtype}")
        close(
            as_numpy(t),
            as_numpy(o),
            atol,
            rtol,
            what,
            as_numpy(ref) if isinstance(ref, torch.Tensor) else None,
        )
        return
    if isinstance(t, (tuple, list)) and not isinstance(t, torch.Size):
        if not isinstance(o, (tuple, list)):
            raise Mismatch(f"{what}: torch gives a {type(t).__name__}, ours a {type(o).__name__}")
        if len(t) != len(o):
            raise Mismatch(f"{what}: {len(o)} results, torch has {len(t)}")
        for f in getattr(type(t), "__match_args__", ()) or ():
            if not hasattr(o, f):
                raise Mismatch(f"{what}: ours has no field {f!r} ({type(t).__name__})")
        for k, (a, b) in enumerate(zip(t, o)):
            compare(
                a,
                b,
                atol,
                rtol,
                f"{what}[{k}]",
                ref[k] if isinstance(ref, (tuple, list)) and len(ref) == len(t) else None,
            )
        return
    if isinstance(t, torch.Size):
        if tuple(t) != tuple(o):
            raise Mismatch(f"{what}: {o} != torch's {t}")
        return
    if isinstance(t, torch.dtype):
        if str(t).split(".")[-1] != str(o).split(".")[-1]:
            raise Mismatch(f"{what}: {o} != torch's {t}")
        return
    if t is None or isinstance(t, (bool, str)):
        if o != t or type(o) is not type(t):
            raise Mismatch(f"{what}: {o!r} != torch's {t!r}")
        return
    if isinstance(t, (int, float, complex)):
        if isinstance(o, ja.Tensor) or not isinstance(o, (int, float, complex)):
            raise Mismatch(
                f"{what}: {o!r} ({type(o).__name__}) != torch's {t!r} ({type(t).__name__})"
            )
        if isinstance(t, int) and not isinstance(o, int):
            raise Mismatch(f"{what}: {o!r} is not an int as torch's {t!r}")
        close(np.asarray(t), np.asarray(o), atol, rtol, what)
        return
    raise Mismatch(f"{what}: cannot compare torch's {type(t).__name__}")


def upcast(x, memo: dict):
    """A sample argument with its float32 tensors made float64 (same requires_grad; the same
    tensor maps to the same copy)."""
    torch = torch_module()
    if isinstance(x, torch.Tensor):
        if x.dtype not in (torch.float32, torch.complex64):
            return x
        k = id(x)
        if k not in memo:
            y = x.detach().to(torch.float64 if x.dtype == torch.float32 else torch.complex128)
            memo[k] = (x, y.requires_grad_(x.requires_grad))
        return memo[k][1]
    if isinstance(x, list):
        return [upcast(y, memo) for y in x]
    if isinstance(x, tuple) and not hasattr(x, "_fields"):
        return tuple(upcast(y, memo) for y in x)
    if isinstance(x, dict):
        return {k: upcast(v, memo) for k, v in x.items()}
    if isinstance(x, torch.dtype) and x == torch.float32:
        return torch.float64
    return x
