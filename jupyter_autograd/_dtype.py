"""torch-style dtype objects (``jupyter_autograd.float32`` ...) mapped onto NumPy dtypes."""

from __future__ import annotations

import builtins

import numpy as np


class dtype:
    """A tensor element type; prints as ``torch.float32`` like PyTorch.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.float64, torch.float64.is_floating_point
        (torch.float64, True)
    """

    __slots__ = (
        "_legacy",
        "is_complex",
        "is_floating_point",
        "is_signed",
        "itemsize",
        "name",
        "np",
    )

    def __init__(self, name: str, np_dtype, legacy: str) -> None:
        self.name = name
        self.np = np.dtype(np_dtype)
        self.is_floating_point = self.np.kind == "f"
        self.is_complex = self.np.kind == "c"
        self.is_signed = self.np.kind in "fic"
        self.itemsize = self.np.itemsize
        self._legacy = legacy

    def __repr__(self) -> str:
        return "torch." + self.name

    def __reduce__(self):
        return (_by_name, (self.name,))

    def to_real(self) -> dtype:
        return self


float16 = half = dtype("float16", np.float16, "HalfTensor")
float32 = float = dtype("float32", np.float32, "FloatTensor")
float64 = double = dtype("float64", np.float64, "DoubleTensor")
complex64 = cfloat = dtype("complex64", np.complex64, "ComplexFloatTensor")
complex128 = cdouble = dtype("complex128", np.complex128, "ComplexDoubleTensor")
uint8 = dtype("uint8", np.uint8, "ByteTensor")
int8 = dtype("int8", np.int8, "CharTensor")
int16 = short = dtype("int16", np.int16, "ShortTensor")
int32 = int = dtype("int32", np.int32, "IntTensor")
int64 = long = dtype("int64", np.int64, "LongTensor")
bool = dtype("bool", np.bool_, "BoolTensor")
# torch's "shell" unsigned dtypes (few kernels; hash_tensor returns uint64)
uint16 = dtype("uint16", np.uint16, "UInt16Tensor")
uint32 = dtype("uint32", np.uint32, "UInt32Tensor")
uint64 = dtype("uint64", np.uint64, "UInt64Tensor")

ALL = (
    float16,
    float32,
    float64,
    complex64,
    complex128,
    uint8,
    int8,
    int16,
    int32,
    int64,
    bool,
    uint16,
    uint32,
    uint64,
)
_FROM_NP = {d.np: d for d in ALL}
_BY_NAME = {d.name: d for d in ALL}


def _by_name(name: str) -> dtype:
    return _BY_NAME[name]


def from_numpy_dtype(np_dtype) -> dtype:
    """Our dtype for a NumPy dtype; raises TypeError for unsupported ones."""
    try:
        return _FROM_NP[np_dtype]
    except KeyError:
        try:
            return _FROM_NP[np.dtype(np_dtype)]
        except (KeyError, TypeError):
            t = np.dtype(np_dtype).type
            raise TypeError(
                f"can't convert np.ndarray of type {t.__module__}.{t.__name__}. The only "
                "supported types are: float64, float32, float16, complex64, complex128, int64, "
                "int32, int16, int8, uint64, uint32, uint16, uint8, and bool."
            ) from None


def to_numpy_dtype(d) -> np.dtype:
    """NumPy dtype for one of ours (or anything NumPy understands)."""
    if isinstance(d, dtype):
        return d.np
    return np.dtype(d)


_default = float32


def get_default_dtype() -> dtype:
    """The default floating point dtype (float32 unless changed).

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.get_default_dtype()
        torch.float32
    """
    return _default


def set_default_dtype(d: dtype) -> None:
    """Set the default floating point dtype, as ``torch.set_default_dtype``.

    Raises:
        TypeError: if ``d`` is not float32 or float64 (or float16).
    """
    global _default
    d = d if isinstance(d, dtype) else from_numpy_dtype(d)
    if not d.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _default = d


# torch's result_type categories: bool < integer < floating < complex.
def _category(d: np.dtype) -> int:
    k = d.kind
    return 0 if k == "b" else 1 if k in "iu" else 2 if k == "f" else 3


def promote_types(a: np.dtype, b: np.dtype) -> np.dtype:
    """torch.promote_types on NumPy dtypes (same lattice for the dtypes we support)."""
    if a == b:
        return a
    ca, cb = _category(a), _category(b)
    # across categories the higher one wins outright (int64 * float32 -> float32, unlike
    # NumPy), except that a complex result keeps a float's precision (float64 * complex64 ->
    # complex128)
    if ca != cb:
        hi, lo = (a, b) if ca > cb else (b, a)
        if hi.kind == "c" and lo.kind == "f":
            return np.promote_types(hi, lo)
        return hi
    return np.promote_types(a, b)


def _to_complex(d: np.dtype) -> np.dtype:
    # float16 would give torch's complex32 (ComplexHalf), which NumPy lacks: complex64
    return np.dtype(np.complex128 if d == np.float64 else np.complex64)


def _combine(higher, lower):
    """torch's combine_categories: a tensor class of higher priority (dim > 0-d > Python
    number) keeps its dtype unless the lower one is of a higher category."""
    if higher is None:
        return lower
    if lower is None:
        return higher
    if higher.kind == "c":
        return higher
    if lower.kind == "c":
        return _to_complex(higher) if higher.kind == "f" else lower
    if higher.kind == "f":
        return higher
    if higher.kind == "b" or lower.kind == "f":
        return promote_types(higher, lower)
    return higher


def _wrapped_dtype(s) -> np.dtype:
    """The dtype a Python number takes in promotion: its category's default."""
    if isinstance(s, builtins.bool):
        return np.dtype(np.bool_)
    if isinstance(s, builtins.complex):
        return _to_complex(_default.np)
    if isinstance(s, builtins.float):
        return _default.np
    return np.dtype(np.int64)


def result_type(dims_and_dtypes, scalars=()) -> np.dtype:
    """torch's type promotion on NumPy dtypes.

    Tensors with dim > 0 win over 0-d tensors, which win over Python scalars, unless the
    lower-priority operand is of a higher category (bool < int < float < complex); a Python
    float meeting integer tensors gives the default dtype, and a complex operand meeting a
    floating tensor gives the complex dtype of the float's precision (float64 tensor * 1j:
    complex128). ``dims_and_dtypes`` is a list of ``(ndim, np.dtype)``; ``scalars`` the
    Python numbers.
    """
    dim_t = zero_t = wrapped = None
    for nd, d in dims_and_dtypes:
        if nd > 0:
            dim_t = d if dim_t is None else promote_types(dim_t, d)
        else:
            zero_t = d if zero_t is None else promote_types(zero_t, d)
    for s in scalars:
        w = _wrapped_dtype(s)
        wrapped = w if wrapped is None else promote_types(wrapped, w)
    res = _combine(dim_t, _combine(zero_t, wrapped))
    return res if res is not None else _default.np


_CPP_NAMES = {
    "float32": "float",
    "float64": "double",
    "float16": "c10::Half",
    "int64": "long int",
    "int32": "int",
    "int16": "short int",
    "int8": "signed char",
    "uint8": "unsigned char",
    "bool": "bool",
    "complex64": "c10::complex<float>",
    "complex128": "c10::complex<double>",
}


def cpp_name(np_dtype) -> str:
    """The C++ type torch's messages name for a dtype (``float``, ``long int``...)."""
    d = np.dtype(np_dtype)
    return _CPP_NAMES.get(d.name, d.name)


class finfo:
    """The limits of a floating dtype (of its real part for a complex one), as ``torch.finfo``:
    ``bits``, ``eps``, ``max``, ``min``, ``tiny`` (= ``smallest_normal``), ``resolution`` and
    ``dtype`` (its name)."""

    def __init__(self, type=None) -> None:
        d = get_default_dtype() if type is None else type
        npd = np.dtype(to_numpy_dtype(d))
        if npd.kind == "c":
            npd = np.dtype(np.float32 if npd == np.complex64 else np.float64)
        if npd.kind != "f":
            raise TypeError(
                "torch.finfo() requires a floating point input type. Use torch.iinfo to handle "
                "'torch.finfo'"
            )
        info = np.finfo(npd)
        self.bits = builtins.int(info.bits)
        self.eps = builtins.float(info.eps)
        self.max = builtins.float(info.max)
        self.min = builtins.float(info.min)
        self.tiny = self.smallest_normal = builtins.float(info.smallest_normal)
        self.resolution = 10.0 ** -builtins.int(info.precision)
        self.dtype = npd.name

    def __eq__(self, other) -> bool:
        return isinstance(other, finfo) and vars(self) == vars(other)

    __hash__ = None

    def __repr__(self) -> str:
        return (
            f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
            f"eps={self.eps:g}, smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, "
            f"dtype={self.dtype})"
        )


class iinfo:
    """The limits of an integer dtype, as ``torch.iinfo``: ``bits``, ``min``, ``max``,
    ``dtype`` (its name)."""

    def __init__(self, type) -> None:
        npd = np.dtype(to_numpy_dtype(type))
        if npd.kind == "b":
            raise TypeError("torch.bool is not supported by torch.iinfo")
        if npd.kind not in "iu":
            raise TypeError(
                "torch.iinfo() requires an integer input type. Use torch.finfo to handle "
                "'torch.iinfo'"
            )
        info = np.iinfo(npd)
        self.bits = builtins.int(info.bits)
        self.min = builtins.int(info.min)
        self.max = builtins.int(info.max)
        self.dtype = npd.name

    def __eq__(self, other) -> bool:
        return isinstance(other, iinfo) and vars(self) == vars(other)

    __hash__ = None

    def __repr__(self) -> str:
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"
