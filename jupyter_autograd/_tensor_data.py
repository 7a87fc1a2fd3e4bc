"""``torch.tensor(data)``: the array for nested Python data, with torch's rules.

torch (torch/csrc/utils/tensor_new.cpp) infers the dtype from every element (bool < int64 <
the default float < the default complex, NumPy scalars and tensors by their own dtype, promoted
as ``torch.promote_types``), takes the shape from the first element at each depth, checks every
sequence against it (``expected sequence of length 2 at dim 1 (got 1)``) and converts each leaf
with checked conversions (``value cannot be converted to type int8 without overflow``,
``Overflow when unpacking long long``, ``'str' object cannot be interpreted as an integer``...).

Lists of Python numbers (the common case) take a vectorised path: NumPy builds the array and
the range checks run on it; anything else walks the data element by element, as torch does.
"""

from __future__ import annotations

import itertools
import operator
import warnings

import numpy as np

from . import _dtype

_PY_NUMBERS = (bool, int, float, complex)
_INT64 = (-(1 << 63), (1 << 63) - 1)
_NDARRAY_LIST = (
    "Creating a tensor from a list of numpy.ndarrays is extremely slow. Please consider "
    "converting the list to a single numpy.ndarray with numpy.array() before converting to a "
    "tensor."
)


def _default_complex() -> np.dtype:
    return np.dtype(np.complex128 if _dtype.get_default_dtype() is _dtype.float64 else np.complex64)


def _is_tensor(x) -> bool:
    from .tensor import Tensor

    return isinstance(x, Tensor)


def _is_sequence(x) -> bool:
    """PySequence_Check: lists, tuples, strings, ranges, arrays... (not dicts or sets)."""
    return (
        not isinstance(x, (dict, set, frozenset))
        and hasattr(x, "__len__")
        and hasattr(x, "__getitem__")
    )


def array_from_data(data, dtype_np=None) -> np.ndarray:
    """The NumPy array ``torch.tensor(data, dtype=...)`` holds (``dtype_np`` None: inferred)."""
    if isinstance(data, (str, bytes)):
        raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
    if (
        dtype_np is None
        and isinstance(data, list)
        and data
        and all(isinstance(x, np.ndarray) for x in data)
    ):
        warnings.warn(_NDARRAY_LIST, UserWarning, stacklevel=3)
    fast = _fast_path(data, dtype_np)
    if fast is not None:
        return fast
    sizes = _sizes(data)
    dt = dtype_np if dtype_np is not None else _infer(data)
    out = np.empty(sizes, dt)
    flat = out.reshape(-1)
    convert = _converter(dt)
    with np.errstate(over="ignore"):  # a float too large for float16/32 is inf, silently
        for k, leaf in enumerate(_leaves(data, sizes, 0)):
            flat[k] = convert(leaf)
    return out


# ---------------------------------------------------------------- the common case, vectorised
_NUMBER_TYPES = frozenset(_PY_NUMBERS)
_SEQ_TYPES = frozenset((list, tuple))


def _flatten(data):
    """(leaves, their types) of a nested list/tuple of Python numbers, level by level at C
    speed; None for anything else (NumPy scalars, tensors, mixed nesting: the slow walk)."""
    flat = data
    while True:
        types = set(map(type, flat))
        if types <= _NUMBER_TYPES:
            return flat, types
        if not types <= _SEQ_TYPES:
            return None
        flat = list(itertools.chain.from_iterable(flat))


def _fast_path(data, dtype_np):
    t = type(data)
    if t in _NUMBER_TYPES:
        leaves, types = [data], {t}
    elif t is list or t is tuple:
        found = _flatten(data)
        if found is None:
            return None
        leaves, types = found
    else:
        return None
    try:
        arr = np.array(data)
    except (ValueError, OverflowError):
        return None  # ragged (or ints past uint64): the element-by-element walk names it
    kind = arr.dtype.kind
    if kind == "O" or kind == "U":
        return None  # ragged lists of lists, or Python ints NumPy cannot hold: walk them
    if arr.ndim and len(leaves) != arr.size:
        return None  # [[1], []]-like raggedness that NumPy turned into a shorter array
    inferred = (
        _default_complex()
        if complex in types
        else _dtype.get_default_dtype().np
        if float in types
        else np.dtype(np.int64)
        if int in types
        else np.dtype(np.bool_)
        if bool in types
        else _dtype.get_default_dtype().np
    )
    target = dtype_np if dtype_np is not None else inferred
    if target.kind == "b":  # any Python number is a bool (2**70 too)
        return (
            arr.astype(bool)
            if kind != "u"
            else np.array([bool(x) for x in leaves]).reshape(arr.shape)
        )
    if (
        int in types
        and (kind == "u" or kind == "f" and _big_ints(leaves))
        and target.kind not in "fc"
    ):
        raise ValueError("Overflow when unpacking long long")
    if complex in types and target.kind in "iu":
        raise TypeError("'complex' object cannot be interpreted as an integer")
    if complex in types and target.kind == "f":
        raise TypeError("must be real number, not complex")
    if kind == "u":  # Python ints past int64: exact as floats
        arr = np.array(leaves, dtype=np.float64).reshape(arr.shape)
    if target.kind in "iu":
        _check_int_range(arr, target, from_float=arr.dtype.kind == "f")
        with np.errstate(all="ignore"):
            return arr.astype(target)
    with np.errstate(over="ignore"):
        return arr if arr.dtype == target else arr.astype(target)


def _big_ints(leaves) -> bool:
    """Whether a float array came from Python ints past int64 (NumPy made them floats)."""
    ints = [x for x in leaves if type(x) is int]
    return bool(ints) and (min(ints) < _INT64[0] or max(ints) > _INT64[1])


def _check_int_range(src: np.ndarray, target: np.dtype, from_float: bool) -> None:
    """torch's checked conversion into an integer dtype (c10::overflows)."""
    if not src.size:
        return
    info = np.iinfo(target)
    if from_float:
        bad = np.isnan(src).any() or src.min() < info.min or src.max() > info.max
    elif target.kind == "u":  # two's complement wrap is allowed for negative integers
        bad = src.max() > info.max or src.min() < -int(info.max)
    else:
        bad = src.min() < info.min or src.max() > info.max
    if bad:
        raise RuntimeError(f"value cannot be converted to type {target.name} without overflow")


# ---------------------------------------------------------------- torch's walk, element by element
def _sizes(data) -> tuple:
    """compute_sizes: the length at each depth, following the first element (tensors and
    strings stop it)."""
    sizes = []
    obj = data
    while True:
        if _is_tensor(obj):
            break
        if isinstance(obj, np.ndarray):
            sizes.extend(obj.shape)
            break
        if not _is_sequence(obj):
            break
        if isinstance(obj, (str, bytes)) and sizes:
            raise ValueError(f"too many dimensions '{type(obj).__name__}'")
        n = len(obj)
        sizes.append(n)
        if n == 0:
            break
        obj = obj[0]
    return tuple(sizes)


def _infer(obj) -> np.dtype:
    """infer_scalar_type over every element."""
    if isinstance(obj, (np.ndarray, np.generic)):  # before float: np.float64 is a float too
        return _dtype.from_numpy_dtype(obj.dtype).np
    if isinstance(obj, bool):
        return np.dtype(np.bool_)
    if isinstance(obj, int):
        return np.dtype(np.int64)
    if isinstance(obj, float):
        return _dtype.get_default_dtype().np
    if isinstance(obj, complex):
        return _default_complex()
    if _is_tensor(obj):
        return obj._data.dtype
    if isinstance(obj, (str, bytes)):
        raise TypeError(f"new(): invalid data type '{type(obj).__name__}'")
    if _is_sequence(obj):
        result = None
        for x in obj:
            d = _infer(x)
            result = d if result is None else _dtype.promote_types(result, d)
        return result if result is not None else _dtype.get_default_dtype().np
    raise RuntimeError(f"Could not infer dtype of {type(obj).__name__}")


def _leaves(obj, sizes, dim):
    """recursive_store's traversal, with its checks."""
    if dim == len(sizes):
        yield obj
        return
    if isinstance(obj, np.ndarray) and obj.shape == tuple(sizes[dim:]):
        yield from obj.reshape(-1).tolist() if obj.dtype.kind != "O" else obj.reshape(-1)
        return
    if not _is_sequence(obj) or _is_tensor(obj):
        raise TypeError("not a sequence")
    n = len(obj)
    if n != sizes[dim]:
        raise ValueError(f"expected sequence of length {sizes[dim]} at dim {dim} (got {n})")
    for x in obj:
        yield from _leaves(x, sizes, dim + 1)


def _converter(dt: np.dtype):
    """store_scalar: one leaf into ``dt``, as torch converts it."""
    if dt.kind == "b":
        return _to_bool
    if dt.kind in "iu":
        return lambda v: _to_int(v, dt)
    if dt.kind == "c":
        return _to_complex
    return _to_float


def _to_float(v):
    if _is_tensor(v) or isinstance(v, np.ndarray):
        return float(v)
    if isinstance(v, (int, float, np.number, np.bool_)) and not isinstance(
        v, (complex, np.complexfloating)
    ):
        return float(v)
    raise TypeError(f"must be real number, not {type(v).__name__}")


def _to_complex(v):
    if _is_tensor(v):
        return complex(v)
    if isinstance(v, (int, float, complex, np.number, np.bool_)):
        return complex(v)
    raise TypeError(f"must be real number, not {type(v).__name__}")


def _to_bool(v):
    if isinstance(v, (int, float, complex, np.bool_)) and not _is_tensor(v):  # np.float64 too
        return bool(v)
    return bool(operator.index(v))  # NumPy's other scalars and tensors go through __index__


def _to_int(v, dt):
    if isinstance(v, float):  # a Python float (or np.float64) converts, range-checked
        src = np.array([v])
        _check_int_range(src, dt, from_float=True)
        return int(v)
    i = operator.index(v)  # the TypeError Python names for anything else
    if not _INT64[0] <= i <= _INT64[1]:
        raise ValueError("Overflow when unpacking long long")
    _check_int_range(np.array([i]), dt, from_float=False)
    return int(np.array([i]).astype(dt)[0])
