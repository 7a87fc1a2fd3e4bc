"""Public elementwise math beyond ``api.py``: trigonometry, other bases, atan2, hypot, fmod,
logaddexp, xlogy, lerp, addcmul/addcdiv, integer and bit functions, predicates, with torch's
signatures, type promotion and aliases (``arccos``, ``clip``...)."""

from __future__ import annotations

import numpy as np

from .. import _dtype
from ..grad_mode import no_grad
from ..tensor import Tensor
from . import binary as BI
from . import trig as TR
from ._api_base import _casts_inside, invalid_combination
from .api import _t, _unary_fn, scalar_type
from .dispatch import apply, apply1

__all__ = [
    "acos",
    "acosh",
    "addcdiv",
    "addcmul",
    "arccos",
    "arccosh",
    "arcsin",
    "arcsinh",
    "arctan",
    "arctan2",
    "arctanh",
    "asin",
    "asinh",
    "atan",
    "atan2",
    "atanh",
    "copysign",
    "cosh",
    "deg2rad",
    "exp2",
    "fmax",
    "fmin",
    "frexp",
    "gcd",
    "heaviside",
    "hypot",
    "isin",
    "isneginf",
    "isposinf",
    "isreal",
    "lcm",
    "ldexp",
    "lerp",
    "log2",
    "log10",
    "logaddexp",
    "logaddexp2",
    "logit",
    "nan_to_num",
    "nextafter",
    "positive",
    "rad2deg",
    "signbit",
    "sinc",
    "sinh",
    "xlogy",
]


def promote(*args, floating: bool = False):
    """Tensors (and Python numbers, made 0-d tensors) cast to torch's result dtype; integer and
    bool results become the default float dtype where ``floating``."""
    like = next((a for a in args if isinstance(a, Tensor)), None)
    pairs = [(a._data.ndim, a._data.dtype) for a in args if isinstance(a, Tensor)]
    scalars = [a for a in args if not isinstance(a, Tensor) and a is not None]
    rt = _dtype.result_type(pairs, scalars)
    if floating and rt.kind in "iub":
        rt = _dtype.get_default_dtype().np
    dt = _dtype.from_numpy_dtype(rt)
    out = []
    for a in args:
        if a is None:
            out.append(None)
        elif isinstance(a, Tensor):
            out.append(a if a._data.dtype == rt else a.to(dt))
        else:
            out.append(_t(a, like).to(dt) if like is not None else _t(a).to(dt))
    return out


def apply_promoted(op, args, p=None, floating: bool = False):
    """``op`` on ``args`` promoted as :func:`promote`, inside the op as torch's kernels
    promote: the node's edges go to the original tensors (no ToCopyBackward0), and the engine
    casts each gradient back to its input's dtype (see dispatch.promote_data)."""
    d0 = args[0]._data.dtype if isinstance(args[0], Tensor) else None
    if d0 is not None and (d0.kind in "fc" or not floating):
        for a in args:  # the common case, tensors of one dtype: nothing to promote
            if not isinstance(a, Tensor) or a._data.dtype != d0:
                break
        else:
            return apply(op, args, p)
    with _casts_inside(True):
        ts = promote(*args, floating=floating)
    if all(t is a for t, a in zip(ts, args)):
        return apply(op, tuple(ts), p)
    return apply(
        op, tuple(ts), p, tuple(a if isinstance(a, Tensor) else t for t, a in zip(ts, args))
    )


# ---------------------------------------------------------------- unary
acos = arccos = _unary_fn(TR.ACOS, "acos")
asin = arcsin = _unary_fn(TR.ASIN, "asin")
atan = arctan = _unary_fn(TR.ATAN, "atan")
acosh = arccosh = _unary_fn(TR.ACOSH, "acosh")
asinh = arcsinh = _unary_fn(TR.ASINH, "asinh")
atanh = arctanh = _unary_fn(TR.ATANH, "atanh")
sinh = _unary_fn(TR.SINH, "sinh")
cosh = _unary_fn(TR.COSH, "cosh")
log2 = _unary_fn(TR.LOG2, "log2")
log10 = _unary_fn(TR.LOG10, "log10")
exp2 = _unary_fn(TR.EXP2, "exp2")
deg2rad = _unary_fn(TR.DEG2RAD, "deg2rad")
rad2deg = _unary_fn(TR.RAD2DEG, "rad2deg")
sinc = _unary_fn(TR.SINC, "sinc")


def nan_to_num(input, nan=0.0, posinf=None, neginf=None, *, out=None) -> Tensor:
    """NaN, +inf and -inf replaced (by default with 0 and the dtype's extremes)."""
    if input._data.dtype.kind not in "fc":
        return input.clone()
    return apply1(TR.NAN_TO_NUM, input, {"nan": nan, "posinf": posinf, "neginf": neginf})


def logit(input, eps=None, *, out=None) -> Tensor:
    """``log(p / (1 - p))``, ``p`` clamped to ``[eps, 1 - eps]`` when ``eps`` is given."""
    (x,) = promote(input, floating=True)
    return apply1(TR.LOGIT, x, {"eps": eps})


def positive(input) -> Tensor:
    """``input`` itself (torch returns the same tensor); bool tensors are refused as torch."""
    if input._data.dtype.kind == "b":
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


# ---------------------------------------------------------------- binary
def _binary_fn(op, name, floating=True, doc=""):
    # torch's Tensor-only parameters (no Scalar overload: atan2, hypot...; copysign, xlogy have
    # one) are checked where the function is bound: _aliases.check_tensor_params
    def fn(input, other, *, out=None) -> Tensor:
        return apply_promoted(op, (input, other), floating=floating)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (
        doc or f"Elementwise ``{name}`` with broadcasting ({op.node_name}), as ``torch.{name}``."
    )
    return fn


atan2 = _binary_fn(BI.ATAN2, "atan2")
arctan2 = _binary_fn(BI.ATAN2, "arctan2")
hypot = _binary_fn(BI.HYPOT, "hypot", floating=False)  # no integral loop: the row refuses
_copysign_tensor = _binary_fn(BI.COPYSIGN, "copysign")


def copysign(input, other, *, out=None) -> Tensor:
    """``|input|`` with ``other``'s sign (CopysignBackward0; a number ``other`` is torch's
    Scalar overload, CopysignBackward1)."""
    if isinstance(input, Tensor) and isinstance(other, (bool, int, float)):
        return apply_promoted(BI.COPYSIGN_SCALAR, (input,), {"other": float(other)}, floating=True)
    return _copysign_tensor(input, other, out=out)


fmax = _binary_fn(BI.FMAX, "fmax", floating=False)
fmin = _binary_fn(BI.FMIN, "fmin", floating=False)
logaddexp = _binary_fn(BI.LOGADDEXP, "logaddexp", floating=False)
logaddexp2 = _binary_fn(BI.LOGADDEXP2, "logaddexp2", floating=False)
xlogy = _binary_fn(BI.XLOGY, "xlogy")
xlog1py = _binary_fn(BI.XLOG1PY, "xlog1py")
nextafter = _binary_fn(BI.NEXTAFTER, "nextafter", floating=False)


_LERP = (
    (("Tensor", "input"), ("Tensor", "end"), ("Tensor", "weight")),
    (("Tensor", "input"), ("Tensor", "end"), ("Number", "weight")),
)


def _lerp_args(args, kwargs, method):
    """(input, end, weight) as torch's parser binds them, or its error for a call that fits
    neither overload (``method``: the method's name, whose form leaves ``self`` out)."""
    names = ("input", "end", "weight")
    given = args[1:] if method else args
    pnames = names[1:] if method else names
    bound = dict(zip(pnames, given))
    ok = len(given) <= len(pnames) and all(k in pnames and k not in bound for k in kwargs)
    bound.update(kwargs)
    if method:
        bound["input"] = args[0]
    ok = (
        ok
        and len(bound) == 3
        and isinstance(bound["input"], Tensor)
        and isinstance(bound["end"], Tensor)
        and isinstance(bound["weight"], (Tensor, int, float, bool, complex))
    )
    if not ok:
        overloads = tuple(o[1:] for o in _LERP) if method else _LERP
        raise invalid_combination(method or "lerp", given, kwargs, overloads, method=bool(method))
    return bound["input"], bound["end"], bound["weight"]


def lerp(*args, out=None, _method=None, **kwargs) -> Tensor:
    """``input + weight * (end - input)`` (LerpBackward0 for a number, LerpBackward1 for a
    tensor weight). As torch, no type promotion: ``end`` (and a weight tensor of 1 or more
    dimensions) must have ``input``'s dtype, which must be floating or complex.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.lerp(torch.zeros(2), torch.ones(2), 0.25)
        tensor([0.2500, 0.2500])
    """
    input, end, weight = _lerp_args(args, kwargs, _method)
    # torch's meta function checks the dtypes before its TensorIterator broadcasts (fuzz seeds
    # 303961, 321748 and 12 more)
    _CPP = _dtype._CPP_NAMES
    dt = input._data.dtype
    for name, t in (("end", end), ("weight", weight)):
        if isinstance(t, Tensor) and t._data.dtype != dt and (name == "end" or t._data.ndim):
            raise RuntimeError(
                f"expected dtype {_CPP.get(dt.name, dt.name)} for `{name}` but got "
                f"dtype {_CPP.get(t._data.dtype.name, t._data.dtype.name)}"
            )
    shapes = [t._data.shape for t in (input, end, weight) if isinstance(t, Tensor)]
    acc = shapes[0]
    for sh in shapes[1:]:  # torch's TensorIterator broadcasts the operands in order, first
        if sh != acc:
            try:
                acc = np.broadcast_shapes(acc, sh)
            except ValueError:
                from .api_compare import _broadcast_error

                _broadcast_error(acc, sh)
    if weight.__class__ is complex and input._data.dtype.kind != "c":
        raise RuntimeError(
            f"value cannot be converted to type {_dtype.cpp_name(input._data.dtype)} "
            "without overflow"
        )
    if dt.kind not in "fc":
        kernel = "lerp_kernel_tensor" if isinstance(weight, Tensor) else "lerp_kernel_scalar"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_type(input)}'")
    if isinstance(weight, Tensor):
        a, b, w = promote(input, end, weight)
        return apply(BI.LERP_TENSOR, (a, b, w))
    a, b = promote(input, end)
    return apply(BI.LERP, (a, b), {"weight": weight})


def lerp_method(self, *args, **kwargs) -> Tensor:
    """``Tensor.lerp`` (torch's method form: its argument errors leave ``self`` out)."""
    return lerp(self, *args, _method="lerp", **kwargs)


def _lerp_inplace(self, *args, **kwargs) -> Tensor:
    return lerp(self, *args, _method="lerp_", **kwargs)


_lerp_inplace.__name__ = "lerp"


def addcmul(input, tensor1, tensor2, *, value=1, out=None) -> Tensor:
    """``input + value * tensor1 * tensor2`` (AddcmulBackward0)."""
    return apply_promoted(BI.ADDCMUL, (input, tensor1, tensor2), {"value": value})


def addcdiv(input, tensor1, tensor2, *, value=1, out=None) -> Tensor:
    """``input + value * tensor1 / tensor2`` (AddcdivBackward0); integer division is refused as
    torch refuses it."""
    if all(isinstance(t, Tensor) and t._data.dtype.kind in "iub" for t in (tensor1, tensor2)):
        raise RuntimeError(
            "Integer division with addcdiv is no longer supported, and in a future release "
            "addcdiv will perform a true division of tensor1 and tensor2. The historic addcdiv "
            "behavior can be implemented as (input + value * torch.trunc(tensor1 / tensor2))."
            "to(input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) for "
            "float inputs. The future addcdiv behavior is just the latter implementation: "
            "(input + value * tensor1 / tensor2), for all dtypes."
        )
    return apply_promoted(BI.ADDCDIV, (input, tensor1, tensor2), {"value": value})


# ---------------------------------------------------------------- no gradient
def _nograd2(f, name, floating=False, int_only=False):
    def fn(input, other, *, out=None) -> Tensor:
        a, b = promote(input, other, floating=floating)
        if int_only and a._data.dtype.kind not in "iub":
            raise RuntimeError(f"\"{name}_cpu\" not implemented for '{_dtype_name(a)}'")
        return Tensor._wrap(np.asarray(f(a._data, b._data), dtype=a._data.dtype))

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Elementwise ``{name}`` (no gradient), as ``torch.{name}``."
    return fn


def _dtype_name(t):
    return {"float32": "Float", "float64": "Double", "float16": "Half"}.get(
        t._data.dtype.name, t._data.dtype.name
    )


heaviside = _nograd2(np.heaviside, "heaviside")
gcd = _nograd2(np.gcd, "gcd", int_only=True)
lcm = _nograd2(np.lcm, "lcm", int_only=True)


def ldexp(input, other, *, out=None) -> Tensor:
    """``input * 2 ** other`` (LdexpBackward0)."""
    from .api import mul, pow

    (a,) = promote(input, floating=True)
    b = _t(other, a)
    with no_grad():  # the value (and its dtype) as torch's kernel makes it
        res = mul(a, pow(2.0, b))
    return apply(BI.LDEXP, (a, b), {"_res": res._data})


def frexp(input, *, out=None):
    """(mantissa, exponent) with ``input = mantissa * 2 ** exponent`` (no gradient)."""
    from .rtypes import return_type

    if input._data.dtype.kind != "f":
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    e = np.frexp(input._data)[1].astype(np.int32)
    m = apply1(TR.FREXP, input, {"exponent": e})
    return return_type("frexp", ("mantissa", "exponent"))(m, Tensor._wrap(e))


def signbit(input, *, out=None) -> Tensor:
    return Tensor._wrap(np.asarray(np.signbit(input._data)))


def isposinf(input, *, out=None) -> Tensor:
    return Tensor._wrap(np.asarray(np.isposinf(input._data)))


def isneginf(input, *, out=None) -> Tensor:
    return Tensor._wrap(np.asarray(np.isneginf(input._data)))


def isreal(input) -> Tensor:
    d = input._data
    return Tensor._wrap(np.asarray(d.imag == 0) if d.dtype.kind == "c" else np.ones(d.shape, bool))


def isin(elements, test_elements, *, assume_unique=False, invert=False) -> Tensor:
    """Whether each element of ``elements`` is in ``test_elements`` (bool tensor)."""
    e = elements._data if isinstance(elements, Tensor) else np.asarray(elements)
    t = test_elements._data if isinstance(test_elements, Tensor) else np.asarray(test_elements)
    return Tensor._wrap(np.asarray(np.isin(e, t, invert=invert)))
