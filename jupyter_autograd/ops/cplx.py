"""Complex numbers: the rows that move between real and complex (conj, sgn, angle,
view_as_real/view_as_complex, complex, polar) and the functions torch builds on them
(``.real``/``.imag``, ``resolve_conj``...).

Every rule here is written in torch's convention for complex tensors (the gradient is the
conjugate Wirtinger derivative, see :mod:`.registry`), so each row is ``complex=AS_WRITTEN``.
"""

from __future__ import annotations

import numpy as np

from .. import _dtype
from .._errors import warn_zero_dim
from .._size import torch_strides
from ..tensor import Tensor
from .dispatch import apply, apply1
from .registry import AS_WRITTEN, AUTO_LINEAR, defop
from .xp import isnan

_COMPLEX_OF = {
    np.dtype(np.float32): np.dtype(np.complex64),
    np.dtype(np.float64): np.dtype(np.complex128),
    np.dtype(np.float16): np.dtype(np.complex64),
}


def _as_complex(xp, g):
    """``view_as_complex(g.contiguous())`` on raw arrays: (..., 2) real -> complex."""
    if xp.is_txp:
        return view_as_complex(g.contiguous())
    if g.size == 0 and g.ndim and torch_strides(g)[-1] != 1:
        # contiguous() keeps an empty tensor's strides: an expanded (0-stride) gradient, as
        # sum's, fails view_as_complex's check in torch
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    g = xp.ascontiguousarray(g)
    return g.view(_COMPLEX_OF[g.dtype]).reshape(g.shape[:-1])


def _as_real(xp, g):
    """``view_as_real(g.resolve_conj())`` as a new array: complex -> (..., 2) real."""
    if xp.is_txp:
        return view_as_real(resolve_conj(g))
    return xp.stack([g.real, g.imag], axis=-1)


def _view_as_real_fwd(xp, x, p):
    # a new last axis of size 1 is contiguous whatever x's strides: it views as 2 floats
    return x[..., None].view(x.real.dtype)


def _view_as_complex_fwd(xp, x, p):
    return x.view(_COMPLEX_OF[x.dtype])[..., 0]


# _conj: torch's lazy conjugate (ConjBackward0); the gradient of a conjugate is the conjugate
CONJ = defop(
    "_conj",
    node="ConjBackward0",
    inputs=("self",),
    saved=(),
    complex=AS_WRITTEN,
    fwd=lambda xp, x, p: xp.conj(x),
    vjp=lambda xp, g, x, out, p: xp.conj(g),
    jvp=AUTO_LINEAR,
    sample={"domain": (-3, 3), "kind": "conj"},
    torch=lambda torch, x: x.conj(),
)
# _neg_view: torch's lazy negation (NegViewBackward0), which imag() of a conjugate applies to
# the real view of its physical values; here the values are negated at once
NEG_VIEW = defop(
    "_neg_view",
    node="NegViewBackward0",
    inputs=("self",),
    saved=(),
    complex=AS_WRITTEN,
    fwd=lambda xp, x, p: -x,
    vjp=lambda xp, g, x, out, p: -g,
    jvp=AUTO_LINEAR,
    sample={"domain": (-3, 3), "kind": "conj"},  # x.conj().imag goes through it
)
CONJ_PHYSICAL = defop(
    "_conj_physical",
    node="ConjPhysicalBackward0",
    inputs=("self",),
    saved=(),
    complex=AS_WRITTEN,
    fwd=lambda xp, x, p: xp.conj(x),
    vjp=lambda xp, g, x, out, p: xp.conj(g),
    jvp=AUTO_LINEAR,
    sample={"domain": (-3, 3), "kind": "conj_physical"},
    torch=lambda torch, x: x.conj_physical(),
)


# sgn = x / |x|: torch's sgn_backward, (g - sgn^2 conj(g)) / (2 |x|), 0 where x == 0; the
# same map takes a tangent to the result's tangent. A real sgn is the sign: its gradient is
# torch's _efficientzerotensor, a ZeroTensor (immutable: x.grad can take no second gradient)
def _sgn_backward(xp, g, x, out):
    if not xp.iscomplexobj(x):
        return xp.zero_tensor_like(g)
    a = xp.abs(x)
    if xp.is_txp:  # create_graph: torch's graph, masked_fill_ over the division (nan at 0)
        return xp.masked_fill((g - out * out * xp.conj(g)) / xp.mul_scalar(a, 2.0), a == 0, 0.0)
    zero = a == 0
    return xp.where(zero, 0.0, (g - out * out * xp.conj(g)) / (2 * xp.where(zero, 1.0, a)))


SGN = defop(
    "sgn",
    node="SgnBackward0",
    inputs=("self",),
    saved=("result", "self"),
    complex=AS_WRITTEN,
    fwd=lambda xp, x, p: xp.sgn(x),
    vjp=lambda xp, g, x, out, p: _sgn_backward(xp, g, x, out),
    jvp=lambda xp, t, x, out, p: _sgn_backward(xp, t[0], x[0], out),
    smooth=False,
    sample={"domain": (-3, 3), "avoid": {0: (0.0,)}, "kind": "sgn"},
    torch=lambda torch, x: x.sgn(),
)


# angle: d arg(z) = Im(dz / z); torch's angle_backward, grad * i z / |z|^2 (0 at 0); a real
# input's angle (0 or pi) has no gradient
def _angle_vjp(xp, g, x, out, p):
    if not xp.iscomplexobj(x):  # zeros, as torch's angle_backward (g * 0 would carry nan)
        return xp.zeros_like(g)
    if xp.is_txp:  # create_graph: torch's graph, grad * self / self.abs().pow(2) * 1j
        return xp.where(x == 0, 0.0, xp.mul_scalar(g * x / xp.pow_scalar(xp.abs(x), 2), 1j))
    a2 = xp.real(x * xp.conj(x))
    zero = a2 == 0
    return xp.where(zero, 0.0, g * x / xp.where(zero, 1.0, a2) * 1j)


def _angle_jvp(xp, t, x, out, p):
    t, x = t[0], x[0]
    if not xp.iscomplexobj(x):
        return xp.zeros_like(t)
    return xp.real(xp.conj(_angle_vjp(xp, xp.conj(t), x, out, p)))


ANGLE = defop(
    "angle",
    node="AngleBackward0",
    inputs=("self",),
    saved=("self",),
    complex=AS_WRITTEN,
    fwd=lambda xp, x, p: (
        xp.angle(x)
        if xp.iscomplexobj(x)
        else xp.where(x < 0, np.pi, 0.0 * xp.where(isnan(x), x, 0))
    ),
    vjp=_angle_vjp,
    jvp=_angle_jvp,
    smooth=False,
    sample={"domain": (-3, 3), "avoid": {0: (0.0,)}, "kind": "angle"},
    torch=lambda torch, x: x.angle(),
)
VIEW_AS_REAL = defop(
    "view_as_real",
    node="ViewAsRealBackward0",
    inputs=("self",),
    saved=(),
    complex=AS_WRITTEN,
    fwd=_view_as_real_fwd,
    vjp=lambda xp, g, x, out, p: _as_complex(xp, g),
    jvp=lambda xp, t, x, out, p: _as_real(xp, t[0]),
    sample={"domain": (-3, 3), "kind": "view_as_real"},
    torch=lambda torch, x: torch.view_as_real(x),
)
VIEW_AS_COMPLEX = defop(
    "view_as_complex",
    node="ViewAsComplexBackward0",
    inputs=("self",),
    saved=(),
    complex=AS_WRITTEN,
    fwd=_view_as_complex_fwd,
    vjp=lambda xp, g, x, out, p: _as_real(xp, g),
    jvp=lambda xp, t, x, out, p: _as_complex(xp, t[0]),
    sample={"domain": (-3, 3), "kind": "view_as_complex"},
    torch=lambda torch, x: torch.view_as_complex(x),
)


def _complex_fwd(xp, re, im, p):
    # (re, im) pairs viewed as complex: exact (re + 1j * im would turn an infinite part into nan)
    re, im = xp.broadcast_arrays(re, im)
    return _as_complex(xp, xp.stack([re, im], axis=-1))


# complex(real, imag): the gradients are the real and imaginary parts of grad
COMPLEX = defop(
    "complex",
    node="ComplexBackward0",
    inputs=("real", "imag"),
    # torch saves each part for its own gradient (a version check, and what hooks see), though
    # the values are not needed: each rule "reads" its own input
    saved=("imag", "real"),
    reads=((0,), (1,)),
    complex=AS_WRITTEN,
    fwd=_complex_fwd,
    vjp=(lambda xp, g, re, im, out, p: xp.real(g), lambda xp, g, re, im, out, p: xp.imag(g)),
    jvp=lambda xp, t, x, out, p: t[0] + 1j * t[1],
    sample={"domain": (-3, 3), "kind": "complex"},
    torch=lambda torch, a, b: torch.complex(a, b),
)


# polar(abs, angle) = abs * exp(i angle): torch's polar_backward,
# (Re(conj(g) sgn(result)), Re(conj(g) i result))
POLAR = defop(
    "polar",
    node="PolarBackward0",
    inputs=("abs", "angle"),
    saved=("result",),
    complex=AS_WRITTEN,
    fwd=lambda xp, r, a, p: _complex_fwd(xp, r * xp.cos(a), r * xp.sin(a), p),
    vjp=(
        lambda xp, g, r, a, out, p: xp.real(xp.conj(g) * xp.sgn(out)),
        lambda xp, g, r, a, out, p: xp.real(xp.conj(g) * out * 1j),
    ),
    jvp=lambda xp, t, x, out, p: (
        (t[0] * xp.cos(x[1]) - t[1] * x[0] * xp.sin(x[1]))
        + 1j * (t[0] * xp.sin(x[1]) + t[1] * x[0] * xp.cos(x[1]))
    ),
    sample={"domain": (0.2, 3), "kind": "polar"},
    torch=lambda torch, a, b: torch.polar(a, b),
)


# ---------------------------------------------------------------- public functions
def conj(input) -> Tensor:
    """The complex conjugate (ConjBackward0), as ``torch.conj``: a real tensor is returned
    itself; a complex result reports ``is_conj()`` and is a view of its input, as torch's lazy
    conjugate: it holds the conjugated values, kept in step with the input's memory both ways
    on every in-place change (autograd/views.py sync_conj).

    Example:
        >>> import jupyter_autograd as torch
        >>> z = torch.tensor([1 + 2j], requires_grad=True)
        >>> z.conj()
        tensor([1.-2.j], grad_fn=<ConjBackward0>)
        >>> z.conj().is_conj()
        True
    """
    if input._data.dtype.kind != "c":
        return input
    from ..autograd import views

    res = apply1(CONJ, input)
    # torch's conjugate is a view of its input (it shares the counter), replayed as itself
    views.make_view(res, input, row=CONJ)
    d, src = res._data, input._data
    if not input._is_conj:
        res._is_conj = True
        if d.__class__ is np.ndarray and src.__class__ is np.ndarray and src.size:
            res._data = views.like_layout(src, d)
            views.add_conj_view(res, src)  # its values follow the input's, and back
    else:
        phys = views.conj_source(input)
        if phys is not None:
            res._data = phys  # the conjugate of a conjugate view: the memory itself
    return res


def conj_physical(input) -> Tensor:
    """The conjugate, materialized (ConjPhysicalBackward0); a real tensor is returned itself."""
    if input._data.dtype.kind != "c":
        return input
    return apply1(CONJ_PHYSICAL, input)


def resolve_conj(input) -> Tensor:
    """A tensor without the conjugate bit: a copy (CloneBackward0) if ``input.is_conj()``."""
    if not input._is_conj:
        return input
    from .api import clone

    return clone(input)


def resolve_neg(input) -> Tensor:
    """``input`` itself: jupyter_autograd has no negative bit (``is_neg()`` is always False)."""
    return input


def is_conj(input) -> bool:
    return input._is_conj


def sgn(input) -> Tensor:
    """``x / |x|`` (0 at 0) for complex, the sign for real tensors (SgnBackward0).

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.tensor([3 + 4j, 0j]).sgn()
        tensor([0.6000+0.8000j, 0.0000+0.0000j])
    """
    return apply1(SGN, input)


def angle(input) -> Tensor:
    """The argument of each element (AngleBackward0); 0 or pi for real tensors.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.tensor([1j, -1.]).angle()
        tensor([1.5708, 3.1416])
    """
    if input._data.dtype.kind in "iub":
        input = input.to(_dtype.get_default_dtype())
    return apply1(ANGLE, input)


def view_as_real(input) -> Tensor:
    """A real view of a complex tensor with a last dimension of size 2 (real, imaginary).

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.view_as_real(torch.tensor([1 + 2j]))
        tensor([[1., 2.]])
    """
    if input._data.dtype.kind != "c":
        raise RuntimeError("view_as_real is only supported for complex tensors")
    if input._is_conj:
        raise RuntimeError(
            "view_as_real doesn't work on unresolved conjugated tensors.  To resolve the "
            "conjugate tensor so you can view it as real, use self.resolve_conj(); however, be "
            "warned that the resulting tensor will NOT alias the original."
        )
    return _view(VIEW_AS_REAL, input)


def view_as_complex(input) -> Tensor:
    """A complex view of a real tensor whose last dimension (of size 2, stride 1) holds the
    real and imaginary parts."""
    d = input._data
    if d.dtype.kind != "f":
        raise RuntimeError(
            "view_as_complex is only supported for half, float and double tensors, but got a "
            f"tensor of scalar type: {_scalar_name(input)}"
        )
    if not d.ndim:
        raise RuntimeError("Input tensor must have one or more dimensions")
    if d.shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    st = input.stride()
    if st[-1] != 1:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    if any(s % 2 for s, n in zip(st[:-1], d.shape[:-1]) if n != 1):
        raise RuntimeError("Tensor must have a stride divisible by 2 for all but last dimension")
    if _storage_offset(d) % 2:
        raise RuntimeError("Tensor must have a storage_offset divisible by 2")
    if d.dtype == np.float16:
        raise NotImplementedError(
            "view_as_complex of a float16 tensor (ComplexHalf) is not supported"
        )
    return _view(VIEW_AS_COMPLEX, input)


def _storage_offset(d) -> int:
    """Elements between the start of the memory an array views and its first element."""
    root = d
    while isinstance(root.base, np.ndarray):
        root = root.base
    if root is d or d.__class__ is not np.ndarray:
        return 0
    return (d.__array_interface__["data"][0] - root.__array_interface__["data"][0]) // d.itemsize


def _view(op, input) -> Tensor:
    from ..autograd import views

    res = apply1(op, input)
    if res._base is None:
        views.make_view(res, input, row=op)  # replayed through op itself (torch's view_fn)
    return res


def _scalar_name(t) -> str:
    return t.dtype._legacy.replace("Tensor", "")


def complex(real, imag) -> Tensor:
    """``real + i imag`` from two float tensors of one dtype (ComplexBackward0).

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.complex(torch.tensor([1.]), torch.tensor([2.]))
        tensor([1.+2.j])
    """
    _check_float_pair(real, imag)
    return apply(COMPLEX, (real, imag))


def polar(abs, angle) -> Tensor:
    """``abs * (cos(angle) + i sin(angle))`` (PolarBackward0)."""
    _check_float_pair(abs, angle)
    return apply(POLAR, (abs, angle))


def _check_float_pair(a, b) -> None:
    da, db = a._data.dtype, b._data.dtype
    if da.kind != "f" or db.kind != "f":
        raise RuntimeError(
            "Expected both inputs to be Half, Float or Double tensors but got "
            f"{_scalar_name(a)} and {_scalar_name(b)}"
        )
    if da != db:
        raise RuntimeError(
            f"Expected object of scalar type {_scalar_name(a)} but got scalar type "
            f"{_scalar_name(b)} for second argument"
        )


def real(input) -> Tensor:
    """The real part: a view (SelectBackward0 over ViewAsRealBackward0, as torch); a real
    tensor is returned itself.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.tensor([1 + 2j]).real
        tensor([1.])
    """
    if input._data.dtype.kind != "c":
        return input
    return _part(input, 0)


def imag(input) -> Tensor:
    """The imaginary part as a view (SelectBackward0 over ViewAsRealBackward0)."""
    if input._data.dtype.kind != "c":
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return _part(input, 1)


def _part(input, i) -> Tensor:
    from ..autograd import views
    from .api import select

    if not input._is_conj:
        return select(_view(VIEW_AS_REAL, input), -1, i)
    # a conjugate is viewed through its physical values, as torch's real()/imag(): _conj
    # (ConjBackward0, clearing the bit), view_as_real, and for imag a negated view
    phys = _view(CONJ, input)
    src = views.conj_source(input)
    if src is not None:
        phys._data = src  # the physical values are the source's memory: writes reach the base
    pairs = _view(VIEW_AS_REAL, phys)
    if i:
        neg = _view(NEG_VIEW, pairs)
        d = neg._data
        if (
            d.__class__ is np.ndarray
            and d.flags.writeable
            and neg._base is not None
            and pairs._data.__class__ is np.ndarray
        ):
            views.add_conj_view(neg, pairs._data, np.negative)  # torch's negative bit, synced
        pairs = neg
    return select(pairs, -1, i)


def adjoint(input) -> Tensor:
    """The conjugate transpose of the last two dimensions (``mH``): TransposeBackward0, then
    ConjBackward0 for complex tensors."""
    return _adjoint(input, "adjoint()")


def _adjoint(input, name) -> Tensor:
    from .api import transpose

    nd = input._data.ndim
    if nd < 2:
        if nd:
            raise RuntimeError(
                f"tensor.{name} is only supported on matrices or batches of matrices. Got {nd}-D tensor."
            )
        # torch: conj() of a 0-d tensor (itself when real), deprecated
        warn_zero_dim(name if name == "adjoint()" else "Tensor." + name, "conj", 5)
        return conj(input)
    return conj(transpose(input, -2, -1))


def _H(self) -> Tensor:
    nd = self._data.ndim
    if nd != 2 and nd:
        hint = " For batches of matrices, consider using tensor.mH" if nd > 2 else ""
        raise RuntimeError(
            f"tensor.H is only supported on matrices (2-D tensors). Got {nd}-D tensor.{hint}"
        )
    return _adjoint(self, "H")


def _set_real(self, value) -> None:
    real(self).copy_(value)


def _set_imag(self, value) -> None:
    imag(self).copy_(value)


# Tensor methods and properties
Tensor.real = property(real, _set_real, doc=real.__doc__)
Tensor.imag = property(imag, _set_imag, doc=imag.__doc__)
Tensor.H = property(_H)
Tensor.mH = property(lambda self: _adjoint(self, "mH"))
Tensor.adjoint = adjoint
Tensor.conj = conj
Tensor.conj_physical = conj_physical
Tensor.resolve_conj = resolve_conj
Tensor.resolve_neg = resolve_neg
Tensor.is_conj = is_conj
Tensor.is_neg = lambda self: False
Tensor.sgn = sgn
Tensor.angle = angle
