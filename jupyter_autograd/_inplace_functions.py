"""torch's in-place function forms: ``torch.sin_(x)``, ``torch.relu_(x)`` ... (the Tensor
method under torch's top-level name), ``torch.dropout_`` and friends, and ``F.relu_``,
``F.leaky_relu_`` ... in ``nn.functional``. Installed at the end of the package import, for the
methods the Tensor class has by then."""

from __future__ import annotations

# torch 2.13's top-level in-place functions that are Tensor methods of the same name
_METHOD_FORMS = (
    "abs_",
    "acos_",
    "acosh_",
    "arccos_",
    "arccosh_",
    "arcsin_",
    "arcsinh_",
    "arctan_",
    "arctanh_",
    "asin_",
    "asinh_",
    "atan_",
    "atanh_",
    "ceil_",
    "clamp_",
    "clamp_max_",
    "clamp_min_",
    "clip_",
    "conj_physical_",
    "cos_",
    "cosh_",
    "deg2rad_",
    "detach_",
    "erf_",
    "erfc_",
    "exp2_",
    "exp_",
    "expm1_",
    "fill_",
    "fix_",
    "floor_",
    "frac_",
    "gcd_",
    "i0_",
    "index_put_",
    "lcm_",
    "ldexp_",
    "log10_",
    "log1p_",
    "log2_",
    "log_",
    "logit_",
    "nan_to_num_",
    "neg_",
    "negative_",
    "rad2deg_",
    "reciprocal_",
    "relu_",
    "round_",
    "rsqrt_",
    "selu_",
    "celu_",
    "sigmoid_",
    "sin_",
    "sinc_",
    "sinh_",
    "sqrt_",
    "square_",
    "tan_",
    "tanh_",
    "trunc_",
    "xlogy_",
    "zero_",
)


def _method_form(name):
    def fn(input, *args, **kwargs):
        return getattr(input, name)(*args, **kwargs)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``torch.{name}(input, ...)``: ``input.{name}(...)``, in place."
    return fn


def install(namespace: dict) -> None:
    """Add the in-place forms whose Tensor method exists (and torch's dropout functions) to the
    package namespace, and the in-place activations to ``nn.functional``."""
    from .nn import _dropout_functional as D
    from .nn import functional as F
    from .tensor import Tensor

    install_functional(F)
    # torch's top-level forms of these activations and of pdist (torch.selu_, torch.rrelu...)
    for name in ("celu", "celu_", "pdist", "rrelu", "rrelu_", "selu", "selu_", "threshold"):
        namespace.setdefault(name, getattr(F, name))
    namespace.setdefault("threshold_", F.threshold_)
    for name in _METHOD_FORMS:
        if name not in namespace and hasattr(Tensor, name):
            namespace[name] = _method_form(name)
    # torch.dropout(input, p, train) and the feature/alpha variants, plus their in-place forms
    for name, fn, feature in (
        ("dropout", F.dropout, False),
        ("feature_dropout", D.dropout2d, True),
        ("alpha_dropout", D.alpha_dropout, False),
        ("feature_alpha_dropout", D.feature_alpha_dropout, True),
    ):
        for inplace in (False, True):
            key = name + ("_" if inplace else "")
            if key not in namespace:
                namespace[key] = _dropout_form(key, fn, feature, inplace)


def install_functional(F) -> None:
    """``F.relu_``, ``F.leaky_relu_`` and, where their base function takes ``inplace``, the other
    in-place activations torch has in ``nn.functional``."""

    if not hasattr(F, "relu_"):
        F.relu_ = _method_form("relu_")
    if not hasattr(F, "leaky_relu_"):

        def leaky_relu_(input, negative_slope=0.01):
            """``F.leaky_relu(input, negative_slope)`` written into ``input``."""
            return F.leaky_relu(input, negative_slope, inplace=True)

        F.leaky_relu_ = leaky_relu_
    for name in ("elu_", "hardtanh_", "celu_", "selu_", "threshold_", "rrelu_"):
        base = getattr(F, name[:-1], None)
        if base is not None and not hasattr(F, name):
            setattr(F, name, _with_inplace(base, name))


def _with_inplace(base, name):
    def fn(input, *args, **kwargs):
        return base(input, *args, inplace=True, **kwargs)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``F.{name[:-1]}(..., inplace=True)``."
    return fn


def _dropout_form(key, fn, feature, inplace):
    from .nn import _dropout_functional as D

    def f(input, p, train):
        if feature:
            D._check_p(p)
            return D._dropout_impl(input, p, train, True, "alpha" in key, inplace)
        return fn(input, p, train, inplace)

    f.__name__ = f.__qualname__ = key
    f.__doc__ = f"``torch.{key}(input, p, train)``."
    return f
