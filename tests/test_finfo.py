"""Issue 14 (teaching code): torch.finfo and torch.iinfo as torch's (values, types, reprs,
errors): teaching code takes ``torch.finfo(torch.float32).eps`` to keep a division finite."""

from __future__ import annotations

import jupyter_autograd as ja

from ._torch import require as require_torch


def _info(t):
    out = []
    for d in (t.float16, t.float32, t.float64, t.complex64, t.complex128, None):
        f = t.finfo(d) if d is not None else t.finfo()
        out.append(repr((f, f.bits, f.eps, f.max, f.min, f.tiny, f.resolution, f.dtype)))
        out.append(repr((type(f.eps).__name__, f.smallest_normal)))
    for d in (t.int8, t.uint8, t.int16, t.int32, t.int64):
        i = t.iinfo(d)
        out.append(repr((i, i.bits, i.min, i.max, i.dtype, type(i.max).__name__)))
    out.append(repr(t.finfo(t.float32) == t.finfo(t.float32)))
    for make in (lambda: t.finfo(t.int64), lambda: t.iinfo(t.float32), lambda: t.iinfo(t.bool)):
        try:
            make()
        except TypeError as e:
            out.append(str(e))
    return out


def test_finfo_iinfo_as_torch():
    torch = require_torch()
    assert _info(ja) == _info(torch)
