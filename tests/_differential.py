"""Run one program under torch and under jupyter_autograd and compare what it shows.

A program is Python source using the name ``torch`` and calling ``emit(value)`` for what it
wants compared; each emitted tensor is reduced to its values, dtype, ``requires_grad``,
``is_leaf`` and ``grad_fn`` name (``None`` for a leaf). An exception ends the program; its type
and message are part of the transcript, and so are warnings.
"""

from __future__ import annotations

import math
import re
import warnings

import jupyter_autograd as ja

_ADDR = re.compile(r" at 0x[0-9a-f]+")
# warnings torch gives once per process (TORCH_WARN_ONCE): whether torch shows one depends on
# the programs run before in the same process, so neither side's is compared
_WARN_ONCE = re.compile(
    r"^(Using backward\(\) with create_graph=True will create a reference cycle"
    r"|Casting complex values to real discards the imaginary part)"
)


def _fn_name(fn):
    if fn is None:
        return None
    return type(fn).__name__


def _show(v, lib):
    if isinstance(v, lib.Tensor):
        vals = v.detach().tolist()
        return (
            "tensor",
            _round(vals),
            str(v.dtype),
            v.requires_grad,
            v.is_leaf,
            _fn_name(v.grad_fn),
        )
    if isinstance(v, (tuple, list)):
        return tuple(_show(x, lib) for x in v)
    if hasattr(v, "next_functions") and hasattr(v, "name"):  # a graph node
        return ("node", _fn_name(v))
    return v


def _round(vals):
    """Values to 6 significant digits (float32 results differ in the last bits)."""
    if isinstance(vals, list):
        return [_round(x) for x in vals]
    if isinstance(vals, float):
        # nan as a string: nan == nan is False, and two transcripts with nan must compare equal
        return (
            float(f"{vals:.6g}") if math.isfinite(vals) else ("nan" if math.isnan(vals) else vals)
        )
    if isinstance(vals, complex):
        return ("complex", _round(vals.real), _round(vals.imag))
    return vals


def transcript(src: str, lib) -> list:
    out: list = []

    def emit(*vs):
        out.append(tuple(_show(v, lib) for v in vs) if len(vs) != 1 else _show(vs[0], lib))

    def next_names(fn):
        """``grad_fn.next_functions`` as names (torch prints AccumulateGrad differently)."""
        return tuple(None if f is None else type(f).__name__ for f, _ in fn.next_functions)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            exec(src, {"torch": lib, "emit": emit, "next_names": next_names})  # noqa: S102
        except Exception as e:  # noqa: BLE001 - the exception is part of the transcript
            out.append(("raised", type(e).__name__, _ADDR.sub("", str(e))))
    out.extend(
        ("warned", w.category.__name__, str(w.message).split(" (Triggered internally")[0])
        for w in caught
        if not _WARN_ONCE.match(str(w.message))
    )
    return out


def compare(src: str, torch) -> list:
    """Assert that ``src`` shows the same under torch and under jupyter_autograd."""
    theirs = transcript(src, torch)
    ours = transcript(src, ja)
    assert ours == theirs, f"\nprogram:\n{src}\ntorch: {theirs}\nours:  {ours}"
    return ours
