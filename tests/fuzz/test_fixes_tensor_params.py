"""Fuzz class error-messages: a Python number, list or None where torch's schema says Tensor.

Generated over every public function and Tensor method that torch exposes and jupyter_autograd
has: each position that every overload of the ATen operator types ``Tensor`` (read from torch's
schemas, tests/fuzz/tensor_params.py) gets each non-Tensor, in function and method form,
positionally and by keyword; the exception type and message must be torch's.
"""

from __future__ import annotations

import warnings

import jupyter_autograd as ja

from .._torch import require as require_torch
from . import tensor_params as TP

_BAD = (1.5, 2, [1.0], None)


def _outcome(fn, args, kwargs):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fn(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - the type and message are compared with torch's
        return type(e).__name__, str(e)
    return "returned", ""


def _calls(torch):
    """(label, torch call, our call) for every non-Tensor in every Tensor-only position."""
    for form, name in TP.public_names(torch, ja):
        for i, schema_args in TP.candidates(torch, name):
            if form == "method" and (i == 0 or str(schema_args[0].type) != "Tensor"):
                continue
            for bad in _BAD:
                theirs, ours = TP.arguments(torch, schema_args, i, bad), TP.arguments(ja, schema_args, i, bad)
                if theirs is None:
                    break
                tf, ta = TP.call_target(torch, form, name, theirs)
                of, oa = TP.call_target(ja, form, name, ours)
                label = f"{form} {name} position {i} {bad!r}"
                yield label, (tf, ta, {}), (of, oa, {})
                # by keyword (torch's parameter name), the arguments before it positional
                k = len(ta) - len(theirs) + i
                kw = {schema_args[i].name if i or form == "method" else "input": bad}
                if form == "function" and i == 0:
                    continue
                yield label + " by keyword", (tf, ta[:k], kw), (of, oa[:k], kw)


def test_non_tensor_in_a_tensor_only_position_is_refused_as_torch():
    torch = require_torch()
    bad, n, names = [], 0, set()
    for label, theirs, ours in _calls(torch):
        t = _outcome(*theirs)
        if "must be Tensor, not" not in t[1]:
            continue  # torch refuses otherwise here (an invalid combination...): not this class
        n += 1
        names.add(label.split(" position")[0])
        o = _outcome(*ours)
        if o != t:
            bad.append((label, t, o))
    assert n > 2500 and len(names) > 350, (n, len(names))
    assert not bad, f"{len(bad)} of {n} calls differ:\n" + "\n".join(map(str, bad[:40]))
