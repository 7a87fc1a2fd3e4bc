"""Random tensors with torch's values: ``rand``, ``randn``, ``randint``, ``randperm``, ``normal``,
``bernoulli``, ``multinomial`` and the ``*_like`` forms, with torch's argument checks and
messages; the in-place samplers they fill through (``uniform_``, ``normal_``, ``bernoulli_``,
``random_``...) are :mod:`._sampling_inplace`.

Samples are drawn on the host by ``_distributions`` from a :class:`~jupyter_autograd.random.
Generator` (the default one unless ``generator=`` is given) and written in torch's order: memory
order of the written tensor, which is row-major order for contiguous tensors.

Example:
    >>> import jupyter_autograd as torch
    >>> _ = torch.manual_seed(0)
    >>> torch.randint(0, 10, (6,))
    tensor([4, 9, 3, 0, 3, 9])
    >>> torch.randperm(5)
    tensor([2, 4, 3, 1, 0])
"""

from __future__ import annotations

import numpy as np

from . import _distributions as D
from . import _dtype
from ._sampling_inplace import (
    _fmt,
    _torch_name,
    bernoulli_,
    normal_,
    random_,
    uniform_,
)
from .backend import move_array
from .factories import _finish, _like, _np_dtype, _required_size, _size
from .grad_mode import STATE
from .ops import random_ops as RO
from .ops.dispatch import apply
from .random import _get
from .tensor import Tensor


# ---------------------------------------------------------------------------- factories
def _shape(name: str, size: tuple, kw_size) -> tuple:
    if kw_size is not None:
        if size:
            raise TypeError(f"{name}() got multiple values for argument 'size'")
        size = (tuple(kw_size),)
    _required_size(name, size)
    return _size(size)


def _empty(shape, dtype, default) -> Tensor:
    return Tensor._wrap(np.empty(shape, _np_dtype(dtype, default)))


def _done(t: Tensor, device, requires_grad, out=None) -> Tensor:
    """The result on ``device`` (or written into ``out``, resized as torch resizes it)."""
    if out is None:
        return _finish(t._data, None, device, requires_grad)
    if tuple(out._data.shape) == tuple(t._data.shape):
        out._data[...] = t._data
    else:
        out._data = t._data.astype(out._data.dtype)
    out._bump_version()
    return out


def rand(
    *size,
    generator=None,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    pin_memory=False,
    requires_grad=False,
    **kw,
) -> Tensor:
    """Uniform samples in [0, 1), torch's values for the generator's state.

    Example:
        >>> import jupyter_autograd as torch
        >>> _ = torch.manual_seed(0)
        >>> torch.rand(2, 2)
        tensor([[0.4963, 0.7682],
                [0.0885, 0.1320]])
    """
    t = _empty(_shape("rand", size, kw.pop("size", None)), dtype, _dtype.get_default_dtype().np)
    return _done(uniform_(t, 0.0, 1.0, generator=generator), device, requires_grad, out)


def randn(
    *size,
    generator=None,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    pin_memory=False,
    requires_grad=False,
    **kw,
) -> Tensor:
    """Standard normal samples, torch's values for the generator's state.

    Example:
        >>> import jupyter_autograd as torch
        >>> _ = torch.manual_seed(0)
        >>> torch.randn(3)
        tensor([ 1.5410, -0.2934, -2.1788])
    """
    t = _empty(_shape("randn", size, kw.pop("size", None)), dtype, _dtype.get_default_dtype().np)
    return _done(normal_(t, 0.0, 1.0, generator=generator), device, requires_grad, out)


def randint(
    *args,
    generator=None,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    pin_memory=False,
    requires_grad=False,
    **kw,
) -> Tensor:
    """Integers uniform in [low, high): ``randint(high, size)`` or ``randint(low, high, size)``.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.randint(3, 10, (4,), generator=torch.Generator().manual_seed(0))
        tensor([7, 6, 3, 5])
    """
    args = list(args)
    if "low" in kw:
        args.insert(0, kw.pop("low"))
    args += [kw.pop(k) for k in ("high", "size") if k in kw]
    if len(args) == 2:
        args.insert(0, 0)
    if len(args) != 3:
        raise TypeError(
            "randint() received an invalid combination of arguments - expected "
            "(int high, tuple of ints size, ...) or (int low, int high, tuple of ints size, ...)"
        )
    low, high, size = args
    t = _empty(_size((tuple(size),)), dtype, np.dtype(np.int64))
    random_(t, int(low), int(high), generator=generator)
    return _done(t, device, requires_grad, out)


def randperm(
    n,
    *,
    generator=None,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    pin_memory=False,
    requires_grad=False,
) -> Tensor:
    """A random permutation of 0..n-1 (torch's Fisher-Yates, the same order for the same state).

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.randperm(6, generator=torch.Generator().manual_seed(0))
        tensor([2, 5, 3, 0, 1, 4])
    """
    n = int(n)
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    dt = _np_dtype(dtype, np.dtype(np.int64))
    if dt.kind == "f" and n > (1 << (np.finfo(dt).nmant + 1)) + 1:
        raise RuntimeError(
            f"n cannot be greater than {(1 << (np.finfo(dt).nmant + 1)) + 1} for "
            f"{_torch_name(dt)} type."
        )
    perm = D.randperm(_get(generator), n)
    return _done(Tensor._wrap(perm.astype(dt)), device, requires_grad, out)


def normal(
    mean=0.0,
    std=1.0,
    size=None,
    *,
    generator=None,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    pin_memory=False,
    requires_grad=False,
) -> Tensor:
    """Normal samples: ``normal(mean, std, size)`` for numbers, or elementwise means/stds from
    tensors (torch draws N(0, std) or N(0, 1) and then scales and shifts, in the tensor's dtype).

    Example:
        >>> import jupyter_autograd as torch
        >>> _ = torch.manual_seed(0)
        >>> torch.normal(2.0, 3.0, (2,))
        tensor([6.6230, 1.1197])
    """
    mt, st = isinstance(mean, Tensor), isinstance(std, Tensor)
    if not mt and not st:
        if size is None:
            raise TypeError(
                "normal() received an invalid combination of arguments - got "
                "(float, float), but expected (float mean, float std, tuple of ints size, ...)"
            )
        t = _empty(_size((tuple(size),)), dtype, _dtype.get_default_dtype().np)
        return _done(normal_(t, mean, std, generator=generator), device, requires_grad, out)
    if st and std._data.dtype.kind == "c":
        raise RuntimeError("normal expects standard deviation to be non-complex")
    if st and std.numel() and not bool((std._data >= 0).all()):
        raise RuntimeError("normal expects all elements of std >= 0.0")
    if not st:
        if not std >= 0.0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {_fmt(float(std))}")
        t = normal_(
            _empty(tuple(mean.shape), None, mean._data.dtype), 0.0, std, generator=generator
        )
        res = t._data + mean.detach().cpu()._data
    else:
        like = mean if mt else std
        m = mean.detach().cpu()._data if mt else like._data.dtype.type(mean)
        shape = np.broadcast_shapes(tuple(std.shape), np.shape(m))
        t = normal_(_empty(shape, None, like._data.dtype), 0.0, 1.0, generator=generator)
        res = (t._data * std.detach().cpu()._data).astype(t._data.dtype) + m  # mul_, then add_
    res = res.astype(t._data.dtype, copy=False)
    grads = [x for x in (mean, std) if isinstance(x, Tensor) and x._requires_grad]
    if grads and out is None and STATE.grad_enabled:
        row = RO.NORMAL_TT if mt and st else RO.NORMAL_TF if mt else RO.NORMAL_FT
        inputs = (mean, std) if mt and st else (mean,) if mt else (std,)
        return apply(row, inputs, {"sample": _on(res, inputs[0])})
    return _done(Tensor._wrap(res), (mean if mt else std).device, False, out)


def bernoulli(input: Tensor, p=None, *, generator=None, out=None) -> Tensor:
    """0/1 draws: 1 with probability ``input`` elementwise, or with probability ``p`` (a number)
    in ``input``'s shape and dtype.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.bernoulli(torch.full((5,), 0.5), generator=torch.Generator().manual_seed(0))
        tensor([1., 0., 1., 1., 1.])
    """
    if p is None and input._data.dtype.kind in "iub" and input._data.size:
        # torch's bernoulli(Tensor) kernel reads the probabilities as floating values only
        from .ops.api_matmul import scalar_type

        raise NotImplementedError(
            f"\"bernoulli_tensor_cpu_p_\" not implemented for '{scalar_type(input)}'"
        )
    t = _empty(tuple(input.shape), None, input._data.dtype)
    bernoulli_(t, input.detach() if p is None else p, generator=generator)
    if p is None and out is None and STATE.grad_enabled and input._requires_grad:
        return apply(RO.BERNOULLI, (input,), {"sample": _on(t._data, input)})
    return _done(t, input.device, False, out)


def _on(host, like: Tensor):
    """A host sample on ``like``'s device."""
    return host if like._data.__class__ is np.ndarray else move_array(host, like.device)


def _check_rows(rows: np.ndarray, replacement: bool) -> None:
    """torch's checks on multinomial weights, first offending element first."""
    if not replacement:
        if not (np.all(rows < np.inf) and np.all(rows >= 0)):
            raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
        if bool((rows.sum(-1) == 0).any()):
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        return
    for row in rows:
        bad = ~(row >= 0) | ~np.isfinite(row)
        if bad.any():
            if not row[np.argmax(bad)] >= 0:
                raise RuntimeError(
                    "invalid multinomial distribution (encountering probability entry < 0)"
                )
            raise RuntimeError(
                "invalid multinomial distribution (encountering probability entry = infinity or NaN)"
            )
        if not row.sum() > 0:
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")


def multinomial(
    input: Tensor, num_samples: int, replacement: bool = False, *, generator=None, out=None
) -> Tensor:
    """Indices drawn from the rows of ``input`` (non-negative weights), as torch.

    Example:
        >>> import jupyter_autograd as torch
        >>> w = torch.tensor([0.1, 0.2, 0.7])
        >>> torch.multinomial(w, 4, replacement=True, generator=torch.Generator().manual_seed(0))
        tensor([2, 2, 2, 2])
    """
    p = input.detach().cpu()._data
    if p.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if p.dtype.kind != "f":
        raise RuntimeError(
            f"multinomial only supports floating-point dtypes for input, got: {_torch_name(p.dtype)}"
        )
    n = int(num_samples)
    if n <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    if not replacement and n > p.shape[-1]:
        raise RuntimeError(
            "cannot sample n_sample > prob_dist.size(-1) samples without replacement"
        )
    if p.shape[-1] > 1 << 24:
        raise RuntimeError("number of categories cannot exceed 2^24")
    rows = p.reshape(-1, p.shape[-1])
    res = np.zeros((rows.shape[0], n), np.int64)
    if res.size:
        _check_rows(rows, replacement and n > 1)
        res = D.multinomial(_get(generator), rows, n, replacement)
    return _done(Tensor._wrap(res.reshape(p.shape[:-1] + (n,))), input.device, False, out)


def _like_factory(fn, name):
    def like(
        input,
        *,
        dtype=None,
        layout=None,
        device=None,
        requires_grad=False,
        memory_format=None,
        generator=None,
        pin_memory=False,
    ):
        dt, dev = _like(input, dtype, device)
        return fn(
            tuple(input.shape),
            dtype=dt,
            device=dev,
            requires_grad=requires_grad,
            generator=generator,
        )

    like.__name__ = like.__qualname__ = name
    like.__doc__ = (
        f"``{fn.__name__}`` with the shape (and by default dtype and device) of ``input``."
    )
    return like


rand_like = _like_factory(rand, "rand_like")
randn_like = _like_factory(randn, "randn_like")


def randint_like(
    input,
    low=0,
    high=None,
    *,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
    memory_format=None,
    generator=None,
) -> Tensor:
    """``randint`` with the shape (and by default dtype and device) of ``input``."""
    if high is None:
        low, high = 0, low
    dt, dev = _like(input, dtype, device)
    return randint(
        low,
        high,
        tuple(input.shape),
        dtype=dt,
        device=dev,
        requires_grad=requires_grad,
        generator=generator,
    )


Tensor.bernoulli = bernoulli
Tensor.multinomial = multinomial
