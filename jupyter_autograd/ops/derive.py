"""Rules a registry row gets from its declared facts rather than from a hand-written copy
(see :func:`.registry.defop`): the forward refusing the dtypes its kernel lacks
(``integral=``/``bools=``), and the JVP of ``jvp=AUTO_ELEMENT_WISE`` / ``jvp=AUTO_LINEAR``
(torch's auto_element_wise / auto_linear: the VJP rule or the forward run on the tangent)."""

from __future__ import annotations

import numpy as np


def dtype_checked(fwd, integral, bools, n_args=None):
    """``fwd`` refusing the integral/bool dtypes torch's kernel does not cover, judged on the
    common dtype of the inputs each :class:`Refuse` names (a floating input makes it floating);
    the check runs with the row's forward wherever it is called from, and only rows that
    declare one pay it.

    Built once per row from its declared facts: the input that every refusal judges (``lead``)
    decides the common case in one test (a floating NumPy array there makes every judged dtype
    floating, so nothing is refused), and a row of ``n_args`` fixed arguments (its inputs and
    ``p``) gets a wrapper of that arity (no ``*args`` tuple on the per-op hot path)."""
    facts = tuple(
        (r, kinds) for r, kinds in ((bools or integral, "b"), (integral, "iu")) if r is not None
    )

    def refuse(args):
        for r, kinds in facts:
            like = _integral_like(args, r.on)
            if (
                like is not None
                and like.dtype.kind in kinds
                and (r.when is None or r.when(args[:-1], args[-1]))
            ):
                raise r.error(args[-1], like)

    judged = None  # the input indices every refusal judges (None: all of them)
    for r, _ in facts:
        if r.on is not None:
            judged = set(r.on) if judged is None else judged & set(r.on)
    lead = 0 if judged is None else min(judged, default=None)
    nd = np.ndarray
    if lead is None:  # no input judged by all: the full check every call

        def checked(xp, *args):
            refuse(args)
            return fwd(xp, *args)
    elif n_args == 2:

        def checked(xp, a, p):
            if a.__class__ is not nd or a.dtype.kind not in "fc":
                refuse((a, p))
            return fwd(xp, a, p)
    elif n_args == 3:

        def checked(xp, a, b, p):
            x = a if lead == 0 else b
            if x.__class__ is not nd or x.dtype.kind not in "fc":
                refuse((a, b, p))
            return fwd(xp, a, b, p)
    elif n_args == 4:

        def checked(xp, a, b, c, p):
            x = (a, b, c)[lead] if lead else a
            if x.__class__ is not nd or x.dtype.kind not in "fc":
                refuse((a, b, c, p))
            return fwd(xp, a, b, c, p)
    else:

        def checked(xp, *args):
            x = args[lead]
            if x.__class__ is not nd or x.dtype.kind not in "fc":
                refuse(args)
            return fwd(xp, *args)

    # the row's forward as far as anything reading it can tell (its module: the fuzzer's strata)
    checked.__name__ = getattr(fwd, "__name__", "fwd")
    checked.__module__ = getattr(fwd, "__module__", __name__)
    checked.__wrapped__ = fwd
    return checked


def element_wise_jvp(rule, conj: bool):
    """torch's auto_element_wise: ``conj(rule(conj(t)))`` with the rule in torch's convention
    (``conj``: an AS_WRITTEN row's, conjugated for complex tangents only). A HOLOMORPHIC row's
    ``rule`` is its real-convention rule (its twin conjugates), which on the tangent as it
    stands is that already (Schwarz reflection), without a conj; a row refusing complex only
    meets real tangents."""
    if conj:

        def jvp(xp, t, x, out, p):
            t0 = t[0]
            if xp.iscomplexobj(t0):
                return xp.conj(rule(xp, xp.conj(t0), x[0], out, p))
            return rule(xp, t0, x[0], out, p)
    else:

        def jvp(xp, t, x, out, p):
            return rule(xp, t[0], x[0], out, p)

    jvp.__name__ = f"auto_element_wise_{getattr(rule, '__name__', 'rule')}"
    jvp.derived_from = rule
    return jvp


def linear_jvp(fwd, n_in):
    """torch's auto_linear: the forward on the tangents (a real-linear map is its own
    derivative: ``conj`` and ``view_as_real`` included)."""
    if n_in == 1:

        def jvp(xp, t, x, out, p):
            return fwd(xp, t[0], p)
    else:

        def jvp(xp, t, x, out, p):
            return fwd(xp, *t, p)

    jvp.__name__ = f"auto_linear_{getattr(fwd, '__name__', 'fwd')}"
    jvp.derived_from = fwd
    return jvp


def _integral_like(args, on):
    """An empty array of the judged inputs' common dtype if that is integral or bool, else None
    (a floating or complex input, or a Python float, makes the common dtype floating)."""
    arrays = []
    for a in args[:-1] if on is None else [args[i] for i in on]:
        dt = getattr(a, "dtype", None)
        if dt is None:
            if a.__class__ is float or a.__class__ is complex:
                return None
        elif dt.kind not in "biu":
            return None
        else:
            arrays.append(a)
    return np.empty(0, np.result_type(*arrays)) if arrays else None
