"""Anomaly detection: forward tracebacks on nodes and NaN checks in backward."""

from __future__ import annotations

import traceback
import warnings

from .engine import FLAGS, run_node


def record_traceback(node) -> None:
    node.metadata["traceback_"] = traceback.format_stack()[:-3]


def run_with_anomaly(fn, gs, create_graph):
    try:
        outs = run_node(fn, gs, create_graph) if fn._op is not None else fn._apply(gs, create_graph)
    except Exception:
        _warn_forward_trace(fn)
        raise
    if FLAGS.anomaly_check_nan:
        import numpy as np  # noqa: PLC0415

        for i, g in enumerate(outs):
            if g is None:
                continue
            d = getattr(g, "_data", g)
            if np.isnan(d).any():
                _warn_forward_trace(fn)
                raise RuntimeError(f"Function '{fn.name()}' returned nan values in its {i}th output.")
    return outs


def _warn_forward_trace(fn) -> None:
    tb = (fn._metadata or {}).get("traceback_")
    if tb is None:
        warnings.warn(
            f"Error detected in {fn.name()}. No forward pass information available. Enable detect "
            "anomaly during forward pass for more information.",
            UserWarning,
            stacklevel=4,
        )
        return
    warnings.warn(
        f"Error detected in {fn.name()}. Traceback of forward call that caused the error:\n"
        + "".join(tb),
        UserWarning,
        stacklevel=4,
    )
