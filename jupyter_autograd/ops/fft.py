"""FFT rows: complex-to-complex, real-to-complex (onesided) and complex-to-real transforms over
any dims, as torch's ``_fft_c2c``/``_fft_r2c``/``_fft_c2r`` (the torch.fft functions compose them
with resizing, conjugation and rolls).

The transforms are linear, so each JVP is the forward; each VJP is the adjoint transform (torch's
conjugate convention): the inverse direction with the opposite normalization."""

from __future__ import annotations

import numpy as np

from .registry import AS_WRITTEN, defop

_SWAP = {"backward": "forward", "forward": "backward", "ortho": "ortho"}


def _cdtype(dt):
    return np.complex64 if dt in (np.float32, np.complex64) else np.complex128


def _c2c(xp, x, dims, norm, forward):
    if xp.is_txp:
        return tensor_c2c(x, dims, norm, forward)
    f = np.fft.fftn if forward else np.fft.ifftn
    return (
        f(x, axes=dims, norm=norm).astype(_cdtype(x.dtype)) if dims else x.astype(_cdtype(x.dtype))
    )


def _r2c(xp, x, dims, norm):
    if xp.is_txp:
        return tensor_r2c(x, dims, norm)
    return np.fft.rfftn(x, axes=dims, norm=norm).astype(_cdtype(x.dtype))


def _c2r(xp, x, dims, norm, n_last):
    if xp.is_txp:
        return tensor_c2r(x, dims, norm, n_last)
    s = [x.shape[d] for d in dims[:-1]] + [n_last]
    out = np.fft.irfftn(x, s=s, axes=dims, norm=norm)
    return out.astype(np.float32 if x.dtype == np.complex64 else np.float64)


def _r2c_vjp(xp, g, x, out, p):
    # the onesided spectrum's adjoint: the full spectrum zero-padded, transformed back, real part
    dims, n = p["dim"], p["n_last"]
    d = dims[-1]
    pad = n - g.shape[d]
    if pad > 0:
        shape = list(g.shape)
        shape[d] = pad
        zeros = (
            xp.zeros(tuple(shape), dtype=g.dtype)
            if not xp.is_txp
            else _tensor_zeros(tuple(shape), g)
        )
        g = xp.concatenate([g, zeros], axis=d)
    full = _c2c(xp, g, dims, _SWAP[p["normalization"]], False)
    return full.real


def _c2r_vjp(xp, g, x, out, p):
    # rfft of the gradient with the opposite normalization; the bins the onesided input stands
    # for twice (all but DC and, for even n, Nyquist) count twice
    dims = p["dim"]
    gi = _r2c(xp, g, dims, _SWAP[p["normalization"]])
    d = dims[-1]
    h = gi.shape[d]
    double = p["n_last"] - h
    if double > 0:  # bins 1..double doubled (slices: works for host, device and graph arrays)

        def part(a, b):
            idx = [slice(None)] * gi.ndim
            idx[d] = slice(a, b)
            return gi[tuple(idx)]

        gi = xp.concatenate([part(0, 1), part(1, 1 + double) * 2, part(1 + double, h)], axis=d)
    return gi


def _case(call, shape, cplx=False):
    def make(rng):
        a = rng.uniform(-1, 1, shape)
        return [(None, [a], lambda tt, t: call(tt, t))]

    return make


FFT_C2C = defop(
    "_fft_c2c",
    node="FftC2CBackward0",
    inputs=("self",),
    saved=("dim", "forward", "normalization"),
    fwd=lambda xp, x, p: _c2c(xp, x, p["dim"], p["normalization"], p["forward"]),
    vjp=lambda xp, g, x, out, p: _c2c(xp, g, p["dim"], _SWAP[p["normalization"]], not p["forward"]),
    jvp=lambda xp, t, x, out, p: _c2c(xp, t[0], p["dim"], p["normalization"], p["forward"]),
    complex=AS_WRITTEN,
    sample={"cases": _case(lambda m, t: m.fft.fft(t.to(m.complex128)).real, (3, 4))},
)
FFT_R2C = defop(
    "_fft_r2c",
    node="FftR2CBackward0",
    inputs=("self",),
    saved=("dim", "normalization", "onesided", "self"),
    fwd=lambda xp, x, p: _r2c(xp, x, p["dim"], p["normalization"]),
    vjp=_r2c_vjp,
    reads=((0,),),  # torch's fft_r2c_backward reads self's size: self is saved
    jvp=lambda xp, t, x, out, p: _r2c(xp, t[0], p["dim"], p["normalization"]),
    complex=AS_WRITTEN,
    sample={"cases": _case(lambda m, t: m.fft.rfft(t).imag, (3, 5))},
)
FFT_C2R = defop(
    "_fft_c2r",
    node="FftC2RBackward0",
    inputs=("self",),
    saved=("dim", "normalization"),
    fwd=lambda xp, x, p: _c2r(xp, x, p["dim"], p["normalization"], p["n_last"]),
    vjp=_c2r_vjp,
    jvp=lambda xp, t, x, out, p: _c2r(xp, t[0], p["dim"], p["normalization"], p["n_last"]),
    complex=AS_WRITTEN,
    sample={"cases": _case(lambda m, t: m.fft.irfft(m.fft.rfft(t), 5), (3, 5))},
)


# the transforms on tensors (recorded): torch.fft composes them, and the rules call them when the
# backward pass is itself recorded
def tensor_c2c(x, dims, norm, forward):
    from .dispatch import apply1

    return apply1(FFT_C2C, x, {"dim": tuple(dims), "normalization": norm, "forward": forward})


def tensor_r2c(x, dims, norm):
    from .dispatch import apply1

    # n_last (the input's length along the last dim) sizes the gradient's zero padding
    return apply1(
        FFT_R2C,
        x,
        {"dim": tuple(dims), "normalization": norm, "onesided": True, "n_last": x.shape[dims[-1]]},
    )


def tensor_c2r(x, dims, norm, n_last):
    from .dispatch import apply1

    return apply1(FFT_C2R, x, {"dim": tuple(dims), "normalization": norm, "n_last": n_last})


def _tensor_zeros(shape, like):
    from ..factories import zeros

    return zeros(shape, dtype=like.dtype, device=like.device)
