"""Fuzz class error-messages: a Python number, list or None where torch's schema says Tensor.

Generated over every public function and Tensor method that torch exposes and jupyter_autograd
has: each position that every overload of the ATen operator types ``Tensor`` (read from torch's
schemas, tests/fuzz/tensor_params.py) gets each non-Tensor, in function and method form,
positionally and by keyword; the exception type and message must be torch's. Likewise calls
with no arguments and with too many, where torch's parser words the refusal by one signature.
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
                theirs, ours = (
                    TP.arguments(torch, schema_args, i, bad),
                    TP.arguments(ja, schema_args, i, bad),
                )
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


def _plausible(form, name, n):
    from jupyter_autograd import _arg_errors as A

    sigs = A._tables().get((form == "method", name), ())
    return any(len(s.required) <= n <= len(s.names) for s in sigs)


def test_too_few_or_too_many_arguments_are_refused_as_torch():
    """torch's arity wording for calls with no arguments, one Tensor or 20, for every public
    function and every Tensor method the API binding wraps (_torch_arity): one signature's
    ('mm() missing 1 required positional arguments: "mat2"', 'isclose() takes from 1 to 4
    positional arguments but 5 were given'), several signatures' ('mm() received an invalid
    combination of arguments - got (Tensor), but expected one of: ...') and the no-argument
    methods' ('Tensor.abs() takes no arguments (20 given)'). Not covered: the methods the
    binding leaves unwrapped so that their call costs nothing more (the registry's fast
    elementwise entries such as tanh, the core Tensor class's own methods such as dim/numel,
    the in-place machinery's methods such as add_): Python words their arity errors."""
    torch = require_torch()
    bad, n, skipped = [], 0, []
    words = ("missing ", "takes ", "received an invalid combination")
    for form, name in TP.public_names(torch, ja):
        for k in (0, 1, 20):
            t_fn = TP._form(torch, form, name, torch.ones(2, 2))
            if t_fn is None:  # a property (x.imag of a real tensor)
                break
            t = _outcome(t_fn, (torch.ones(2, 2),) * k, {})
            if not any(t[1].startswith(f"{name}() {w}") for w in words) and not t[1].startswith(
                f"Tensor.{name}() takes no arguments"
            ):
                continue
            if form == "method" and not getattr(getattr(ja.Tensor, name), "_torch_arity", False):
                skipped.append(name)
                break
            if "invalid combination" in t[1] and _plausible(form, name, k):
                continue  # the arity fits a signature: a refused type, not this test's
            n += 1
            o = _outcome(TP._form(ja, form, name, ja.ones(2, 2)), (ja.ones(2, 2),) * k, {})
            if o != t:
                bad.append((form, name, k, t, o))
    assert n > 1000, n
    assert len(set(skipped)) < 200, len(set(skipped))
    assert not bad, f"{len(bad)} of {n} calls differ:\n" + "\n".join(map(str, bad[:40]))


def test_refusals_survive_a_reload_of_the_package():
    """IPython's ``%reload_ext jupyter_autograd`` reloads the package: its wrappers were put a
    second time around the Tensor methods, and the outer one's arity wording replaced the inner
    one's refusal ('missing 1 required positional arguments' for ``x.put(index=1.5)``; CI saw it
    when tests/test_magics.py ran first in the same worker)."""
    import importlib

    torch = require_torch()
    for _ in range(2):
        importlib.reload(ja)
    calls = [
        ("masked_scatter", {"mask": 1.5}),
        ("put", {"index": 2}),
        ("select_scatter", {"src": None}),
        ("masked_scatter", {}),
    ]
    for name, kw in calls:
        theirs = _outcome(getattr(torch.ones(2), name), (), kw)
        ours = _outcome(getattr(ja.ones(2), name), (), kw)
        assert ours == theirs, (name, ours, theirs)
