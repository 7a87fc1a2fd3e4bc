"""``torch.fft``: discrete Fourier transforms with torch's signatures (``n``/``s`` resizing,
``dim``, ``norm`` = "backward" | "ortho" | "forward"), composed from the rows of ``ops/fft.py``.

Example:
    >>> import jupyter_autograd as torch
    >>> torch.fft.fft(torch.tensor([1.0, 0.0, 0.0, 0.0]))
    tensor([1.+0.j, 1.+0.j, 1.+0.j, 1.+0.j])
"""

from __future__ import annotations

import numpy as np

from . import _dtype
from ._size import _wrap_dim
from .ops import api as _A
from .ops import fft as _F
from .ops.fft import tensor_c2c as _c2c
from .ops.fft import tensor_c2r as _c2r
from .ops.fft import tensor_r2c as _r2c
from .tensor import Tensor

__all__ = [
    "fft",
    "fft2",
    "fftfreq",
    "fftn",
    "fftshift",
    "hfft",
    "hfft2",
    "hfftn",
    "ifft",
    "ifft2",
    "ifftn",
    "ifftshift",
    "ihfft",
    "ihfft2",
    "ihfftn",
    "irfft",
    "irfft2",
    "irfftn",
    "rfft",
    "rfft2",
    "rfftfreq",
    "rfftn",
]
_SWAP = _F._SWAP


def _norm(norm, name):
    if norm is None:
        return "backward"
    if norm not in _SWAP:
        raise ValueError(f"Invalid normalization mode: {norm}")
    return norm


def _complex(x):
    k = x._data.dtype.kind
    if k == "c":
        return x
    if k != "f":
        x = x.to(_dtype.get_default_dtype())
    return x.to(_dtype.complex64 if x._data.dtype == np.float32 else _dtype.complex128)


def _real(x, name):
    k = x._data.dtype.kind
    if k == "c":
        raise RuntimeError(f"{name} expects a real input tensor, but got {x.dtype._legacy[:-6]}")
    return x if k == "f" else x.to(_dtype.get_default_dtype())


def _resize(x, dims, sizes):
    """x cut or zero-padded to ``sizes`` along ``dims`` (torch's resize_fft_input)."""
    for d, n in zip(dims, sizes):
        if n is None or n == -1:
            continue
        if n < 1:
            raise RuntimeError(f"Invalid number of data points ({n}) specified")
        cur = x.shape[d]
        if n < cur:
            x = _A.narrow(x, d, 0, n)
        elif n > cur:
            shape = list(x.shape)
            shape[d] = n - cur
            x = _A.cat([x, Tensor._wrap(np.zeros(shape, x._data.dtype))], d)
    return x


def _dims_sizes(x, s, dim, default_all=True):
    if dim is None:
        dims = list(range(x.ndim)) if s is None else list(range(x.ndim - len(s), x.ndim))
    else:
        dims = [dim] if isinstance(dim, int) else list(dim)
    dims = [_wrap_dim(d, x.ndim) for d in dims]
    sizes = [None] * len(dims) if s is None else list(s)
    if len(sizes) != len(dims):
        raise RuntimeError("When given, dim and shape arguments must have the same length")
    return dims, sizes


def fftn(input, s=None, dim=None, norm=None, *, out=None) -> Tensor:
    """The n-dimensional FFT over ``dim`` (all dims by default)."""
    x = _complex(input)
    dims, sizes = _dims_sizes(x, s, dim)
    return _c2c(_resize(x, dims, sizes), dims, _norm(norm, "fftn"), True)


def ifftn(input, s=None, dim=None, norm=None, *, out=None) -> Tensor:
    x = _complex(input)
    dims, sizes = _dims_sizes(x, s, dim)
    return _c2c(_resize(x, dims, sizes), dims, _norm(norm, "ifftn"), False)


def fft(input, n=None, dim=-1, norm=None, *, out=None) -> Tensor:
    """The 1-D FFT along ``dim``, ``input`` cut or zero-padded to ``n``."""
    return fftn(input, None if n is None else (n,), (dim,), norm)


def ifft(input, n=None, dim=-1, norm=None, *, out=None) -> Tensor:
    return ifftn(input, None if n is None else (n,), (dim,), norm)


def fft2(input, s=None, dim=(-2, -1), norm=None, *, out=None) -> Tensor:
    return fftn(input, s, dim, norm)


def ifft2(input, s=None, dim=(-2, -1), norm=None, *, out=None) -> Tensor:
    return ifftn(input, s, dim, norm)


def rfftn(input, s=None, dim=None, norm=None, *, out=None) -> Tensor:
    """The FFT of a real signal, the last dim onesided (n // 2 + 1 bins)."""
    x = _real(input, "rfftn")
    dims, sizes = _dims_sizes(x, s, dim)
    return _r2c(_resize(x, dims, sizes), dims, _norm(norm, "rfftn"))


def rfft(input, n=None, dim=-1, norm=None, *, out=None) -> Tensor:
    x = _real(input, "rfft")
    return rfftn(x, None if n is None else (n,), (dim,), norm)


def rfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None) -> Tensor:
    return rfftn(input, s, dim, norm)


def irfftn(input, s=None, dim=None, norm=None, *, out=None) -> Tensor:
    """The inverse of ``rfftn``: a real signal from its onesided spectrum (the last dim's length
    ``2 * (bins - 1)`` unless ``s`` says otherwise)."""
    x = _complex(input)
    dims, sizes = _dims_sizes(x, s, dim)
    n_last = sizes[-1] if sizes[-1] not in (None, -1) else 2 * (x.shape[dims[-1]] - 1)
    if n_last < 1:
        raise RuntimeError(f"Invalid number of data points ({n_last}) specified")
    sizes = sizes[:-1] + [n_last // 2 + 1]
    return _c2r(_resize(x, dims, sizes), dims, _norm(norm, "irfftn"), n_last)


def irfft(input, n=None, dim=-1, norm=None, *, out=None) -> Tensor:
    return irfftn(input, None if n is None else (n,), (dim,), norm)


def irfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None) -> Tensor:
    return irfftn(input, s, dim, norm)


def hfftn(input, s=None, dim=None, norm=None, *, out=None) -> Tensor:
    """The FFT of a Hermitian-symmetric signal given by its onesided half: ``irfftn`` of the
    conjugate with the opposite normalization."""
    return irfftn(_complex(input).conj(), s, dim, _SWAP[_norm(norm, "hfftn")])


def hfft(input, n=None, dim=-1, norm=None, *, out=None) -> Tensor:
    return hfftn(input, None if n is None else (n,), (dim,), norm)


def hfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None) -> Tensor:
    return hfftn(input, s, dim, norm)


def ihfftn(input, s=None, dim=None, norm=None, *, out=None) -> Tensor:
    """The inverse of ``hfftn``: the conjugate of ``rfftn`` with the opposite normalization."""
    return rfftn(input, s, dim, _SWAP[_norm(norm, "ihfftn")]).conj()


def ihfft(input, n=None, dim=-1, norm=None, *, out=None) -> Tensor:
    return ihfftn(input, None if n is None else (n,), (dim,), norm)


def ihfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None) -> Tensor:
    return ihfftn(input, s, dim, norm)


def fftshift(input, dim=None) -> Tensor:
    """The zero-frequency bin moved to the middle (a roll by n // 2 along ``dim``)."""
    from .ops.api_shape import roll

    dims = (
        list(range(input.ndim)) if dim is None else ([dim] if isinstance(dim, int) else list(dim))
    )
    return roll(input, [input.shape[d] // 2 for d in dims], dims)


def ifftshift(input, dim=None) -> Tensor:
    from .ops.api_shape import roll

    dims = (
        list(range(input.ndim)) if dim is None else ([dim] if isinstance(dim, int) else list(dim))
    )
    return roll(input, [-(input.shape[d] // 2) for d in dims], dims)


def fftfreq(n, d=1.0, *, dtype=None, device=None, requires_grad=False) -> Tensor:
    dt = _dtype.to_numpy_dtype(dtype) if dtype is not None else _dtype.get_default_dtype().np
    return Tensor._wrap(np.fft.fftfreq(n, d).astype(dt), requires_grad)


def rfftfreq(n, d=1.0, *, dtype=None, device=None, requires_grad=False) -> Tensor:
    dt = _dtype.to_numpy_dtype(dtype) if dtype is not None else _dtype.get_default_dtype().np
    return Tensor._wrap(np.fft.rfftfreq(n, d).astype(dt), requires_grad)
