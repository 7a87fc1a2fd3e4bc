"""Compare two observation lists (torch's and ours) and name the first difference.

Tolerances (relative; the absolute part is rtol times the largest finite magnitude of torch's
tensor, at least 1, so a cancellation (x * (1 / x) - 1 = 2e-16 in torch, 0 in ours) is judged
against the scale of the values the program computes with, which start at O(1)):

============================  ======  =============================================
dtype                         rtol    why
============================  ======  =============================================
float64, complex128           1e-7    a dozen ops of ~1 ulp each, composed, in libm/SLEEF
float32, complex64            2e-4    the same chains in single precision (eps 1.2e-7),
                                      where torch vectorises reductions in another order
float16, bfloat16             1e-2    (not generated; here for completeness)
integer, bool                 exact
============================  ======  =============================================

A value judged at the tolerance of its dtype may carry a lower precision's rounding: a float32
intermediate (NumPy's float32 exp is 1 ulp from torch's SLEEF exp) promoted into a float64 op.
The run records, per variable, the lowest precision that flowed into it through the program's
values (``Arr.prec``, see tests/fuzz/program.py), and the comparison uses the looser of the two
tolerances; a program of float64 values only is judged at float64's.

NaN equals NaN, infinities must agree in sign; the real and imaginary parts of complex values
are compared separately. Elements both libraries blew up (past 1/sqrt(eps)/2, or not finite,
on both sides: 1 / (x/x - 1) is 1e8 in one and inf in the other) are left out: their digits are
rounding noise a cancellation amplified. Python scalars (``.item()``, ``.tolist()``) use the tolerance of float64.
Everything else (exception type and message, dtypes, shapes, flags, grad_fn graphs, versions,
warnings) must be equal.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from .program import Arr, Scalar

_VAR = re.compile(r"^[a-z]+\d+(\[\d+\])*")

RTOL = {
    "torch.float64": 1e-7,
    "torch.complex128": 1e-7,
    "torch.float32": 2e-4,
    "torch.complex64": 2e-4,
    "torch.float16": 1e-2,
    "torch.bfloat16": 1e-2,
}


@dataclass
class Mismatch:
    """The first observation where the two runs differ."""

    index: int  # position in the observation list
    path: str  # "<step>:<var>.<field>"
    theirs: object
    ours: object
    known: str | None = None  # the open class it belongs to
    raised: bool | None = None  # whether torch raised in the step that shows the mismatch

    @property
    def step(self) -> int | None:
        head = self.path.split(":", 1)[0]
        return int(head) if head.isdigit() else None

    @property
    def field(self) -> str:
        """What differs: raised / warnings / log / dtype / shape / grad_fn / value / grad..."""
        tail = self.path.split(":", 1)[1]
        if tail.startswith("raised"):
            t, o = self.theirs, self.ours
            if t is None or o is None:
                return "raised(only " + ("ours" if t is None else "torch") + ")"
            return "raised(type)" if t[0] != o[0] else "raised(message)"
        rest = _VAR.sub("", tail, count=1)
        if tail.startswith("log"):  # a hook's call: hook-log.len, hook-log.value...
            return "hook-log" + (rest if rest.startswith(".") else "")
        return rest[1:] if rest.startswith(".") else (rest or "binding")

    def __str__(self) -> str:
        return f"{self.path}: torch {self.theirs!r} != ours {self.ours!r}"


def values_close(a: np.ndarray, b: np.ndarray, dtype: str, prec: str | None = None) -> bool:
    """``a`` (ours) against ``b`` (torch) with the tolerance of ``dtype``, or of ``prec`` (the
    lowest precision that flowed into the value) where that is looser."""
    if a.shape != b.shape:
        return False
    rtol = RTOL.get(dtype)
    if rtol is None:  # integers and bools: exact
        return bool(np.array_equal(a, b))
    rtol = max(rtol, RTOL.get(prec, rtol))
    a, b = _drop_blown(a, b, rtol)
    if np.iscomplexobj(a) or np.iscomplexobj(b):
        a = np.asarray(a, dtype=np.complex128)
        b = np.asarray(b, dtype=np.complex128)
        return _close(a.real, b.real, rtol, _scale(b)) and _close(a.imag, b.imag, rtol, _scale(b))
    return _close(a.astype(np.float64), b.astype(np.float64), rtol, _scale(b))


def _drop_blown(a: np.ndarray, b: np.ndarray, rtol: float):
    """Leave out the elements both libraries blew up: past 1/sqrt(eps)/2 in magnitude (or not
    finite) on both sides, finite on one at least. A cancellation leaves rounding noise (x/x - 1
    is 1e-16 in torch, 0 here) that a singular op turns into 1e8 or inf: digits of noise."""
    big = _blown(rtol)
    with np.errstate(invalid="ignore", over="ignore"):
        fa, fb = np.isfinite(a), np.isfinite(b)
        both = (~fa | (np.abs(a) > big)) & (~fb | (np.abs(b) > big)) & (fa | fb)
    if not both.any():
        return a, b
    return a[~both], b[~both]


def _blown(rtol: float) -> float:
    """Half of 1/sqrt(eps) of the dtype the tolerance belongs to: 1 / (x - x_rounded) where a
    cancellation leaves one rounding error (3e7 in float64, 1.4e3 in float32)."""
    eps = 2.2e-16 if rtol < 1e-5 else 1.2e-7 if rtol < 1e-3 else 9.8e-4
    return 0.5 / eps**0.5


def _scale(b: np.ndarray) -> float:
    mag = np.abs(b)
    mag = mag[np.isfinite(mag)]
    return float(mag.max()) if mag.size else 0.0


def _close(a: np.ndarray, b: np.ndarray, rtol: float, scale: float) -> bool:
    with np.errstate(invalid="ignore", over="ignore"):
        nan_a, nan_b = np.isnan(a), np.isnan(b)
        if not np.array_equal(nan_a, nan_b):
            return False
        inf_a, inf_b = np.isinf(a), np.isinf(b)
        if not np.array_equal(inf_a, inf_b):
            return False
        if not np.array_equal(a[inf_a], b[inf_b]):
            return False
        fin = ~(nan_a | inf_a)
        atol = rtol * max(scale, 1.0)
        return bool(np.all(np.abs(a[fin] - b[fin]) <= atol + rtol * np.abs(b[fin])))


def same(o, t) -> bool:
    """Whether observation value ``o`` (ours) matches ``t`` (torch)."""
    if isinstance(t, Arr):
        if not isinstance(o, Arr) or o.dtype != t.dtype:
            return False
        return values_close(o.a, t.a, t.dtype, t.prec)
    if isinstance(t, Scalar):
        if not isinstance(o, Scalar):
            return False
        a, b = o.v, t.v
        if type(a) is not type(b):
            return False
        if isinstance(b, (float, complex)):
            return values_close(np.array(a), np.array(b), "torch.float64", t.prec)
        return a == b
    return o == t


# a known mismatch of these fields leaves both runs in the same state (both raised, or only a
# message or a warning differs), so the comparison goes on past it
CONTINUABLE = ("raised(type)", "raised(message)", "warnings")


def compare(theirs: list, ours: list, classify=None) -> tuple[Mismatch | None, list]:
    """(first mismatch that ends the comparison or None, open classes met on the way).

    ``classify(mismatch)`` names the open class a mismatch belongs to (or None). A known
    mismatch of a CONTINUABLE field is counted and skipped; any other one ends the comparison
    (the returned Mismatch then has ``known`` set, or None when it is new).
    """
    known = []
    raised = {}
    for k, ((pt, vt), (po, vo)) in enumerate(zip(theirs, ours)):
        if pt.endswith(":raised"):
            raised[pt.split(":", 1)[0]] = vt is not None
        if pt != po:  # a structural difference (a different number of outputs, say)
            m = Mismatch(k, pt, (pt, vt), (po, vo))
        elif not same(vo, vt):
            m = Mismatch(k, pt, vt, vo)
        else:
            continue
        m.raised = raised.get(pt.split(":", 1)[0])
        m.known = classify(m) if classify else None
        if m.known and m.field in CONTINUABLE:
            known.append(m.known)
            continue
        return m, known
    if len(theirs) != len(ours):
        k = min(len(theirs), len(ours))
        t = theirs[k] if k < len(theirs) else None
        o = ours[k] if k < len(ours) else None
        m = Mismatch(k, (t or o)[0], t, o)
        m.known = classify(m) if classify else None
        return m, known
    return None, known
