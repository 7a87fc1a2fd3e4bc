"""torch-style tensor printing (a port of the rules in torch/_tensor_str.py) over NumPy arrays."""

from __future__ import annotations

import math

import numpy as np


class _PrintOptions:
    precision = 4
    threshold = 1000
    edgeitems = 3
    linewidth = 80
    sci_mode = None


PRINT_OPTS = _PrintOptions()


def set_printoptions(
    precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None, sci_mode=None
):
    """Set printing options as ``torch.set_printoptions`` (profile: default, short, full).

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.set_printoptions(precision=2)
        >>> torch.tensor([1.2345])
        tensor([1.23])
        >>> torch.set_printoptions(profile="default")
    """
    if profile is not None:
        if profile == "default":
            PRINT_OPTS.precision, PRINT_OPTS.threshold = 4, 1000
            PRINT_OPTS.edgeitems, PRINT_OPTS.linewidth = 3, 80
        elif profile == "short":
            PRINT_OPTS.precision, PRINT_OPTS.threshold = 2, 1000
            PRINT_OPTS.edgeitems, PRINT_OPTS.linewidth = 2, 80
        elif profile == "full":
            PRINT_OPTS.precision, PRINT_OPTS.threshold = 4, math.inf
            PRINT_OPTS.edgeitems, PRINT_OPTS.linewidth = 3, 80
    if precision is not None:
        PRINT_OPTS.precision = precision
    if threshold is not None:
        PRINT_OPTS.threshold = threshold
    if edgeitems is not None:
        PRINT_OPTS.edgeitems = edgeitems
    if linewidth is not None:
        PRINT_OPTS.linewidth = linewidth
    PRINT_OPTS.sci_mode = sci_mode


def get_printoptions() -> dict:
    return {
        k: getattr(PRINT_OPTS, k)
        for k in ("precision", "threshold", "edgeitems", "linewidth", "sci_mode")
    }


class _Formatter:
    def __init__(self, arr: np.ndarray) -> None:
        self.floating = arr.dtype.kind == "f"
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        flat = arr.reshape(-1)
        if not self.floating:
            for v in flat.tolist():
                self.max_width = max(self.max_width, len(f"{v}"))
        else:
            vals = flat[np.isfinite(flat) & (flat != 0)]
            if vals.size == 0:
                return
            absd = np.abs(vals.astype(np.float64))
            mn, mx = float(absd.min()), float(absd.max())
            self.int_mode = bool(np.all(vals == np.ceil(vals)))
            p = PRINT_OPTS.precision
            pyvals = vals.astype(np.float64).tolist()
            if self.int_mode:
                if mx / mn > 1000.0 or mx > 1.0e8:
                    self.sci_mode = True
                    for v in pyvals:
                        self.max_width = max(self.max_width, len(f"{v:.{p}e}"))
                else:
                    for v in pyvals:
                        self.max_width = max(self.max_width, len(f"{v:.0f}") + 1)
            else:
                if mx / mn > 1000.0 or mx > 1.0e8 or mn < 1.0e-4:
                    self.sci_mode = True
                    for v in pyvals:
                        self.max_width = max(self.max_width, len(f"{v:.{p}e}"))
                else:
                    for v in pyvals:
                        self.max_width = max(self.max_width, len(f"{v:.{p}f}"))
        if PRINT_OPTS.sci_mode is not None:
            self.sci_mode = PRINT_OPTS.sci_mode

    def format(self, v) -> str:
        if self.floating:
            p = PRINT_OPTS.precision
            if self.sci_mode:
                ret = f"{v:{self.max_width}.{p}e}"
            elif self.int_mode:
                ret = f"{v:.0f}"
                if not (math.isinf(v) or math.isnan(v)):
                    ret += "."
            else:
                ret = f"{v:.{p}f}"
        else:
            ret = f"{v}"
        return (self.max_width - len(ret)) * " " + ret


def _summarized(a: np.ndarray) -> np.ndarray:
    e = PRINT_OPTS.edgeitems
    if a.ndim == 0:
        return a
    if a.ndim == 1:
        return np.concatenate([a[:e], a[-e:]]) if a.shape[0] > 2 * e else a
    if not e:
        return a.reshape((0,) * a.ndim)
    if a.shape[0] > 2 * e:
        parts = [a[i] for i in range(e)] + [a[i] for i in range(a.shape[0] - e, a.shape[0])]
    else:
        parts = list(a)
    return np.stack([_summarized(x) for x in parts])


def _complex_value(v, fmt, fmt2) -> str:
    """``re+imj`` as torch writes it: each part with its own formatter (fmt2: imaginary)."""
    re = fmt.format(v.real)
    im = (fmt2.format(v.imag) + "j").lstrip()
    return re + im if im[0] in "+-" else re + "+" + im


def _vector_str(a, indent, summarize, fmt, fmt2=None) -> str:
    element_length = fmt.max_width + 2
    if fmt2 is not None:
        element_length += fmt2.max_width + 1  # the imaginary part and its "j"
        f = lambda v: _complex_value(v, fmt, fmt2)
    else:
        f = fmt.format
    per_line = max(1, math.floor((PRINT_OPTS.linewidth - indent) / element_length))
    e = PRINT_OPTS.edgeitems
    if summarize and not e:
        data = ["..."]
    elif summarize and a.shape[0] > 2 * e:
        data = [f(v) for v in a[:e].tolist()] + [" ..."] + [f(v) for v in a[-e:].tolist()]
    else:
        data = [f(v) for v in a.tolist()]
    lines = [", ".join(data[i : i + per_line]) for i in range(0, len(data), per_line)]
    return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"


def _tensor_str_fmt(a, indent, summarize, fmt, fmt2=None) -> str:
    dim = a.ndim
    if dim == 0:
        return fmt.format(a.item()) if fmt2 is None else _complex_value(a.item(), fmt, fmt2)
    if dim == 1:
        return _vector_str(a, indent, summarize, fmt, fmt2)
    e = PRINT_OPTS.edgeitems
    if summarize and a.shape[0] > 2 * e:
        slices = (
            [_tensor_str_fmt(a[i], indent + 1, summarize, fmt, fmt2) for i in range(e)]
            + ["..."]
            + [
                _tensor_str_fmt(a[i], indent + 1, summarize, fmt, fmt2)
                for i in range(a.shape[0] - e, a.shape[0])
            ]
        )
    else:
        slices = [
            _tensor_str_fmt(a[i], indent + 1, summarize, fmt, fmt2) for i in range(a.shape[0])
        ]
    return "[" + ("," + "\n" * (dim - 1) + " " * (indent + 1)).join(slices) + "]"


def array_str(a: np.ndarray, indent: int) -> str:
    """The bracketed body of a tensor's repr (torch's ``_tensor_str``)."""
    if a.size == 0:
        return "[]"
    summarize = a.size > PRINT_OPTS.threshold
    if a.dtype == np.float16:
        a = a.astype(np.float32)
    if a.dtype.kind == "c":
        # torch formats the real and the imaginary parts each with its own formatter
        s = _summarized(a) if summarize else a
        return _tensor_str_fmt(a, indent, summarize, _Formatter(s.real), _Formatter(s.imag))
    fmt = _Formatter(_summarized(a) if summarize else a)
    return _tensor_str_fmt(a, indent, summarize, fmt)


def _add_suffixes(tensor_str, suffixes, indent) -> str:
    parts = [tensor_str]
    last_line_len = len(tensor_str) - tensor_str.rfind("\n") + 1
    for suffix in suffixes:
        n = len(suffix)
        if last_line_len + n + 2 > PRINT_OPTS.linewidth:
            parts.append(",\n" + " " * indent + suffix)
            last_line_len = indent + n
        else:
            parts.append(", " + suffix)
            last_line_len += n + 2
    parts.append(")")
    return "".join(parts)


def tensor_repr(t, prefix: str = "tensor(") -> str:
    """``repr(tensor)`` exactly as torch prints it (values, dtype, device, grad_fn suffixes)."""
    from . import _dtype
    from .autograd.engine import FLAGS

    indent = len(prefix)
    suffixes = []
    a = t._data
    dev = t.device
    if dev.type != "cpu":
        suffixes.append(f"device='{dev}'")
        a = _host(t)
    d = t.dtype
    default = _dtype.get_default_dtype()
    if a.size == 0:
        if a.ndim != 1:
            suffixes.append("size=" + str(tuple(a.shape)))
        if d is not default:
            suffixes.append("dtype=" + repr(d))
        body = "[]"
    else:
        if not PRINT_OPTS.edgeitems:
            suffixes.append("size=" + str(tuple(a.shape)))
        if d not in (
            default,
            _dtype.int64,
            _dtype.bool,
            _dtype.complex64 if default is _dtype.float32 else _dtype.complex128,
        ):
            suffixes.append("dtype=" + repr(d))
        body = array_str(a, indent)
    if t.grad_fn is not None:
        suffixes.append(f"grad_fn=<{type(t.grad_fn).__name__}>")
    elif t._requires_grad:
        suffixes.append("requires_grad=True")
    if t._fw is not None and FLAGS.forward_ad_levels:
        tan = t._fw.get(FLAGS.forward_ad_levels[-1])
        if tan is not None:
            suffixes.append(f"tangent={tensor_repr(tan)}")
    return _add_suffixes(prefix + body, suffixes, indent)


def _host(t):
    from .backend import _BACKENDS

    return _BACKENDS[t.device.type].to_host(t._data)
