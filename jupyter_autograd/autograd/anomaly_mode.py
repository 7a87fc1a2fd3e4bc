"""Anomaly detection: forward tracebacks on nodes and NaN checks in backward."""

from __future__ import annotations

import traceback
import warnings

from .engine import FLAGS, run_node


def record_traceback(node) -> None:
    node.metadata["traceback_"] = traceback.format_stack()[:-3]


def run_with_anomaly(fn, gs, create_graph, fns=None):
    try:
        outs = (
            run_node(fn, gs, create_graph, None, fns)
            if fn._op is not None
            else fn._apply(gs, create_graph)
        )
    except Exception:
        _warn_forward_trace(fn)
        raise
    if FLAGS.anomaly_check_nan:
        import numpy as np

        for i, g in enumerate(outs):
            if g is None:
                continue
            d = getattr(g, "_data", g)
            if np.isnan(d).any():
                _warn_forward_trace(fn)
                raise RuntimeError(
                    f"Function '{fn.name()}' returned nan values in its {i}th output."
                )
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


def is_anomaly_enabled() -> bool:
    """Whether anomaly detection is on (torch.is_anomaly_enabled)."""
    return FLAGS.anomaly


def is_anomaly_check_nan_enabled() -> bool:
    """Whether anomaly detection also checks backward outputs for NaN."""
    return FLAGS.anomaly_check_nan


def _set_anomaly_enabled(mode: bool, check_nan: bool = True) -> None:
    FLAGS.anomaly = bool(mode)
    FLAGS.anomaly_check_nan = bool(check_nan)


class _AnomalyContext:
    """Shared by both anomaly context managers: restore the previous mode on exit, even on error."""

    def __call__(self, func):
        import functools

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.__class__(*self._args):
                return func(*args, **kwargs)

        return wrapper

    def __exit__(self, *exc) -> None:
        _set_anomaly_enabled(self.prev, self.prev_check_nan)


class detect_anomaly(_AnomalyContext):
    """Context manager that records forward tracebacks and checks backward for NaN.

    A node whose backward fails, or returns NaN (with ``check_nan=True``), raises and warns with
    the traceback of the forward call that created it.

    Example:
        >>> import warnings
        >>> import jupyter_autograd as torch
        >>> x = torch.tensor([-1.0], requires_grad=True)
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     with torch.autograd.detect_anomaly():
        ...         y = x.sqrt()
        ...         try:
        ...             y.backward()
        ...         except RuntimeError as e:
        ...             print(e)
        Function 'SqrtBackward0' returned nan values in its 0th output.
    """

    def __init__(self, check_nan: bool = True) -> None:
        self._args = (check_nan,)
        self.prev = FLAGS.anomaly
        self.check_nan = check_nan
        self.prev_check_nan = FLAGS.anomaly_check_nan
        warnings.warn(
            "Anomaly Detection has been enabled. This mode will increase the runtime and should "
            "only be enabled for debugging.",
            UserWarning,
            stacklevel=2,
        )

    def __enter__(self) -> None:
        _set_anomaly_enabled(True, self.check_nan)


class set_detect_anomaly(_AnomalyContext):
    """Turn anomaly detection on or off; takes effect at once and also works as a context manager.

    Example:
        >>> import jupyter_autograd as torch
        >>> with torch.autograd.set_detect_anomaly(True, check_nan=False):
        ...     torch.autograd.is_anomaly_enabled(), torch.autograd.is_anomaly_check_nan_enabled()
        (True, False)
        >>> torch.autograd.is_anomaly_enabled()
        False
    """

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self._args = (mode, check_nan)
        self.prev = FLAGS.anomaly
        self.prev_check_nan = FLAGS.anomaly_check_nan
        _set_anomaly_enabled(mode, check_nan)

    def __enter__(self) -> None:
        pass
