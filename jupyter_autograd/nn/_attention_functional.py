"""Attention with torch's signatures: ``scaled_dot_product_attention`` (torch's CPU choice between
its fused kernel and the composite "math" path, with the same checks and graphs) and
``multi_head_attention_forward`` (the function ``nn.MultiheadAttention`` calls)."""

from __future__ import annotations

import functools
import math
import types
import warnings

import numpy as np

from ..ops import attention as AT
from ..ops.arithmetic import MUL_SCALAR as _MUL_SCALAR
from ..ops.dispatch import apply, apply1
from ..tensor import Tensor

__all__ = ["multi_head_attention_forward", "scaled_dot_product_attention"]

_FLASH_DTYPES = ("float32", "float64", "float16")


@functools.cache
def _ja():
    """The torch.* functions called here, from the modules defining them (the package root only
    re-exports them, and it sits above this module)."""
    from .. import factories
    from ..ops import api, api_misc, api_products

    return types.SimpleNamespace(
        matmul=api.matmul,
        cat=api.cat,
        bmm=api.bmm,
        baddbmm=api_products.baddbmm,
        repeat_interleave=api_misc.repeat_interleave,
        tensor=factories.tensor,
        zeros=factories.zeros,
    )


def _cpp_dtype(t):
    """torch's C++ spelling of a dtype in its SDPA messages ("float", "double", "long int")."""
    return {
        "float32": "float",
        "float64": "double",
        "int64": "long int",
        "int32": "int",
        "float16": "c10::Half",
        "bool": "bool",
        "uint8": "unsigned char",
        "int16": "short int",
        "int8": "signed char",
        "complex64": "c10::complex<float>",
        "complex128": "c10::complex<double>",
    }.get(t._data.dtype.name, t._data.dtype.name)


def _validate(q, k, v, mask):
    if not (q._data.dtype == k._data.dtype == v._data.dtype):
        raise RuntimeError(
            "Expected query, key, and value to have the same dtype, but got query.dtype: "
            f"{_cpp_dtype(q)} key.dtype: {_cpp_dtype(k)} and value.dtype: {_cpp_dtype(v)} instead."
        )
    if q.dim() < 2 or k.dim() < 2 or v.dim() < 2:
        raise RuntimeError(
            "Expected query, key, and value to all be  at least 2 dimensional, but got query.dim: "
            f"{q.dim()} key.dim: {k.dim()} and value.dim: {v.dim()} instead."
        )
    md = None if mask is None else mask._data.dtype
    if md is not None and not (md == np.bool_ or md == np.float32 or md == q._data.dtype):
        raise RuntimeError(
            "Expected attn_mask dtype to be bool or float or to match query dtype, but got "
            f"attn_mask.dtype: {_cpp_dtype(mask)} and  query.dtype: {_cpp_dtype(q)} instead."
        )


def _bool_to_additive(mask, dtype):
    """torch's convert_boolean_attn_mask: a boolean mask becomes 0 where True, -inf elsewhere."""
    if mask is None or mask._data.dtype != np.bool_:
        return mask
    return Tensor._wrap(np.where(mask._data, dtype.type(0), dtype.type(-np.inf)))


def _flash_ok(q, k, v, mask, dropout_p, enable_gqa):
    """torch's use_flash_attention_cpp gates (sdp_utils_cpp.cpp)."""
    if dropout_p != 0.0 or not (q.dim() == k.dim() == v.dim() == 4):
        return False
    qs, ks, vs = q._data.shape, k._data.shape, v._data.shape
    if not qs[0] == ks[0] == vs[0]:
        return False
    if not (
        qs[1] == ks[1] == vs[1] or (enable_gqa and ks[1] == vs[1] and ks[1] and qs[1] % ks[1] == 0)
    ):
        return False
    if mask is not None:
        if mask._requires_grad:
            return False
        ms = mask._data.shape
        if mask.dim() < 2 or ms[-2] not in (qs[2], 1) or ms[-1] not in (ks[2], 1):
            return False
        if mask.dim() != 2 and not (
            mask.dim() == 4 and ms[0] in (1, qs[0]) and ms[1] in (1, qs[1])
        ):
            return False
    if not (qs[-1] == ks[-1] == vs[-1]) or qs[2] == 0 or ks[2] == 0:
        return False
    for t in (q, k, v):
        d = t._data
        if d.__class__ is np.ndarray and d.strides[-1] != d.itemsize:
            return False
    return q._data.dtype.name in _FLASH_DTYPES


def scaled_dot_product_attention(
    query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None, enable_gqa=False
):
    """``softmax(q k^T * scale + mask) v`` over the last two dims, with ``scale`` defaulting to
    ``1 / sqrt(E)``, a boolean ``attn_mask`` marking the positions that take part, ``is_causal``
    a top-left lower-triangular mask and ``dropout_p`` applied to the probabilities.

    As torch on the CPU, 4-D inputs without dropout run the fused kernel
    (ScaledDotProductFlashAttentionForCpuBackward0) and everything else the composite math path
    (scaled matmuls, ``_safe_softmax``, dropout), so the values and graphs are torch's.

    Example:
        >>> import jupyter_autograd as torch
        >>> q = torch.ones(1, 1, 2, 4, requires_grad=True)
        >>> out = torch.nn.functional.scaled_dot_product_attention(q, q, q)
        >>> out.shape, out.grad_fn.name()
        (torch.Size([1, 1, 2, 4]), 'ScaledDotProductFlashAttentionForCpuBackward0')
    """
    _validate(query, key, value, attn_mask)
    if dropout_p > 0.0 and not (0.0 <= dropout_p <= 1.0):
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {dropout_p}")
    if _flash_ok(query, key, value, attn_mask, dropout_p, enable_gqa):
        mask = _bool_to_additive(attn_mask, query._data.dtype)
        e = query._data.shape[-1]
        p = {
            "dropout_p": float(dropout_p),
            "is_causal": bool(is_causal),
            "attn_mask": mask,
            "scale": scale,
            "_scale": scale if scale is not None else 1.0 / math.sqrt(e),
            "_mask": None if mask is None else mask._data,
        }
        out = apply(AT.FLASH, (query, key, value), p)
        p["logsumexp"] = Tensor._wrap(p["logsumexp"])
        return out
    return _math_attention(
        query,
        key,
        value,
        _bool_to_additive(attn_mask, query._data.dtype),
        dropout_p,
        is_causal,
        scale,
        enable_gqa,
    )


def _math_attention(query, key, value, mask, dropout_p, is_causal, scale, enable_gqa):
    """torch's _scaled_dot_product_attention_math: q and k each scaled by sqrt(scale)."""
    ja = _ja()
    e = query._data.shape[-1]
    s = abs(scale) if scale is not None else 1.0 / math.sqrt(e)
    factor = math.sqrt(s)
    # C++ multiplies by a Scalar: mul.Scalar (MulBackward1), not a wrapped-number tensor
    q = apply1(
        _MUL_SCALAR, query, {"other": -factor if scale is not None and scale < 0 else factor}
    )
    if is_causal:
        if mask is not None:
            raise RuntimeError(
                "_scaled_dot_product_attention: Explicit attn_mask should not be set "
                "when is_causal=True"
            )
        L, S = query._data.shape[-2], key._data.shape[-2]
        keep = np.tril(np.ones((L, S), bool))
        mask = Tensor._wrap(
            np.where(keep, query._data.dtype.type(0), query._data.dtype.type(-np.inf))
        )
    key, value = _expand_groups(query, key, value, enable_gqa)
    attn = ja.matmul(q, apply1(_MUL_SCALAR, key.transpose(-2, -1), {"other": factor}))
    if mask is not None:
        # torch adds in place into matmul's fresh result (_unsafe_view, not a view): AddBackward0
        attn = attn + mask
    attn = apply1(AT.SAFE_SOFTMAX, attn, {"_dim": -1, "dim": 2**64 - 1})
    if dropout_p > 0.0:
        from .functional import dropout

        attn = dropout(attn, dropout_p, True)
    return ja.matmul(attn, value)


def _expand_groups(query, key, value, enable_gqa):
    """Grouped-query attention: key and value heads repeated to the query's head count."""
    if not enable_gqa or query.dim() < 3:
        return key, value
    hq, hk, hv = query._data.shape[-3], key._data.shape[-3], value._data.shape[-3]
    if hq == hk == hv:
        return key, value
    if hq % hk or hq % hv:
        raise RuntimeError(
            "Number of heads in key and value must divide the number of heads in query"
        )
    rep = _ja().repeat_interleave
    return rep(key, hq // hk, -3), rep(value, hq // hv, -3)


# ---------------------------------------------------------------- multi-head attention
def _none_or_dtype(input):
    if input is None:
        return None
    if isinstance(input, Tensor):
        return input.dtype
    raise RuntimeError("input to _none_or_dtype() must be None or torch.Tensor")


def _canonical_mask(mask, mask_name, other_type, other_name, target_type, check_other=True):
    """A boolean mask as an additive float mask (-inf where True), with torch's checks."""
    if mask is None:
        return None
    is_float = mask._data.dtype.kind == "f"
    if mask._data.dtype != np.bool_ and not is_float:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype != other_type:
        warnings.warn(
            f"Support for mismatched {mask_name} and {other_name} is deprecated. Use same "
            "type for both instead.",
            stacklevel=3,
        )
    if not is_float:
        from .._dtype import to_numpy_dtype

        dt = to_numpy_dtype(target_type)
        mask = Tensor._wrap(np.where(mask._data, dt.type(-np.inf), dt.type(0)))
    return mask


def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads):
    nd = query.dim()
    if nd not in (2, 3):
        raise AssertionError(
            f"query should be unbatched 2D or batched 3D tensor but received {nd}-D query tensor"
        )
    batched = nd == 3
    kind = "batched (3-D)" if batched else "unbatched (2-D)"
    if key.dim() != nd or value.dim() != nd:
        raise AssertionError(
            f"For {kind} `query`, expected `key` and `value` to be {nd}-D but found "
            f"{key.dim()}-D and {value.dim()}-D tensors respectively"
        )
    if key_padding_mask is not None and key_padding_mask.dim() != nd - 1:
        raise AssertionError(
            f"For {kind} `query`, expected `key_padding_mask` to be `None` or "
            f"{nd - 1}-D but found {key_padding_mask.dim()}-D tensor instead"
        )
    if attn_mask is not None:
        if attn_mask.dim() not in (2, 3):
            raise AssertionError(
                f"For {kind} `query`, expected `attn_mask` to be `None`, 2-D or 3-D "
                f"but found {attn_mask.dim()}-D tensor instead"
            )
        if not batched and attn_mask.dim() == 3:
            want = (num_heads, query.shape[0], key.shape[0])
            if tuple(attn_mask.shape) != want:
                raise AssertionError(
                    f"Expected `attn_mask` shape to be {want} but got {attn_mask.shape}"
                )
    return batched


def _in_projection_packed(q, k, v, w, b=None):
    """q, k, v projected by the rows of one packed (3E, E) weight, as torch splits it."""
    from .functional import linear

    E = q.size(-1)
    if k is v and q is k:
        proj = (
            linear(q, w, b)
            .unflatten(-1, (3, E))
            .unsqueeze(0)
            .transpose(0, -2)
            .squeeze(-2)
            .contiguous()
        )
        return proj[0], proj[1], proj[2]
    if k is v:
        w_q, w_kv = w.split([E, E * 2])
        b_q, b_kv = (None, None) if b is None else b.split([E, E * 2])
        kv = (
            linear(k, w_kv, b_kv)
            .unflatten(-1, (2, E))
            .unsqueeze(0)
            .transpose(0, -2)
            .squeeze(-2)
            .contiguous()
        )
        return linear(q, w_q, b_q), kv[0], kv[1]
    w_q, w_k, w_v = w.chunk(3)
    b_q, b_k, b_v = (None, None, None) if b is None else b.chunk(3)
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def _in_projection(q, k, v, w_q, w_k, w_v, b_q=None, b_k=None, b_v=None):
    from .functional import linear

    Eq, Ek, Ev = q.size(-1), k.size(-1), v.size(-1)
    checks = ((w_q, (Eq, Eq), "query"), (w_k, (Eq, Ek), "key"), (w_v, (Eq, Ev), "value"))
    for w, want, name in checks:
        if tuple(w.shape) != want:
            raise AssertionError(
                f"expecting {name} weights shape of {want}, but got {tuple(w.shape)}"
            )
    for b, name in ((b_q, "query"), (b_k, "key"), (b_v, "value")):
        if b is not None and tuple(b.shape) != (Eq,):
            raise AssertionError(
                f"expecting {name} bias shape of {(Eq,)}, but got {tuple(b.shape)}"
            )
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def multi_head_attention_forward(
    query,
    key,
    value,
    embed_dim_to_check,
    num_heads,
    in_proj_weight,
    in_proj_bias,
    bias_k,
    bias_v,
    add_zero_attn,
    dropout_p,
    out_proj_weight,
    out_proj_bias,
    training=True,
    key_padding_mask=None,
    need_weights=True,
    attn_mask=None,
    use_separate_proj_weight=False,
    q_proj_weight=None,
    k_proj_weight=None,
    v_proj_weight=None,
    static_k=None,
    static_v=None,
    average_attn_weights=True,
    is_causal=False,
):
    """Multi-head attention over ``(L, N, E)`` (or unbatched ``(L, E)``) inputs, as torch:
    returns ``(output, weights)``; with ``need_weights`` the scores go through ``bmm``/``baddbmm``
    and ``softmax`` (the weights averaged over heads unless ``average_attn_weights=False``),
    without it through :func:`scaled_dot_product_attention` and the weights are ``None``."""
    from .functional import dropout, linear, pad, softmax

    ja = _ja()
    batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    key_padding_mask = _canonical_mask(
        key_padding_mask, "key_padding_mask", _none_or_dtype(attn_mask), "attn_mask", query.dtype
    )
    if is_causal and attn_mask is None:
        raise RuntimeError(
            "Need attn_mask if specifying the is_causal hint. You may use the "
            "Transformer module method `generate_square_subsequent_mask` to create "
            "this mask."
        )
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None  # the hint alone: scaled_dot_product_attention builds the causal mask
    else:
        attn_mask = _canonical_mask(
            attn_mask, "attn_mask", None, "", query.dtype, check_other=False
        )
        if key_padding_mask is not None:
            is_causal = False
    if embed_dim != embed_dim_to_check:
        raise AssertionError(
            f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}"
        )
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if tuple(key.shape[:2]) != tuple(value.shape[:2]):
            raise AssertionError(
                f"key's sequence and batch dims {key.shape[:2]} do not match value's "
                f"{value.shape[:2]}"
            )
        for w, n in ((q_proj_weight, "q"), (k_proj_weight, "k"), (v_proj_weight, "v")):
            if w is None:
                raise AssertionError(
                    f"use_separate_proj_weight is True but {n}_proj_weight is None"
                )
        b_q = b_k = b_v = None
        if in_proj_bias is not None:
            b_q, b_k, b_v = in_proj_bias.chunk(3)
        q, k, v = _in_projection(
            query, key, value, q_proj_weight, k_proj_weight, v_proj_weight, b_q, b_k, b_v
        )
    else:
        if tuple(key.shape) != tuple(value.shape):
            raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    if attn_mask is not None:
        if attn_mask.dim() == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError(
                    f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be "
                    f"{(tgt_len, src_len)}."
                )
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.dim() == 3:
            want = (bsz * num_heads, tgt_len, src_len)
            if tuple(attn_mask.shape) != want:
                raise RuntimeError(
                    f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be {want}."
                )
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")
    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k = ja.cat([k, bias_k.repeat(1, bsz, 1)])
        v = ja.cat([v, bias_v.repeat(1, bsz, 1)])
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    elif bias_k is not None:
        raise AssertionError("bias_k is set but bias_v is None")
    elif bias_v is not None:
        raise AssertionError("bias_v is set but bias_k is None")
    q = q.view(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = (
        _static(static_k, "k", bsz * num_heads, head_dim)
        if static_k is not None
        else k.view(k.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    )
    v = (
        _static(static_v, "v", bsz * num_heads, head_dim)
        if static_v is not None
        else v.view(v.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    )
    if add_zero_attn:
        zshape = (bsz * num_heads, 1, head_dim)
        k = ja.cat([k, ja.zeros(zshape, dtype=k.dtype)], dim=1)
        v = ja.cat([v, ja.zeros(zshape, dtype=v.dtype)], dim=1)
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    src_len = k.size(1)
    if key_padding_mask is not None:
        if key_padding_mask.shape[0] != bsz:
            raise AssertionError(
                f"Expected key_padded_mask.shape[0] to be {bsz}, but got "
                f"{key_padding_mask.shape[0]}"
            )
        if key_padding_mask.shape[1] != src_len:
            raise AssertionError(
                f"Expected key_padded_mask.shape[1] to be {src_len}, but got "
                f"{key_padding_mask.shape[1]}"
            )
        key_padding_mask = (
            key_padding_mask.view(bsz, 1, 1, src_len)
            .expand(-1, num_heads, -1, -1)
            .reshape(bsz * num_heads, 1, src_len)
        )
        attn_mask = key_padding_mask if attn_mask is None else attn_mask + key_padding_mask
    if not training:
        dropout_p = 0.0
    if need_weights:
        E = q.shape[-1]
        q_scaled = q * math.sqrt(1.0 / float(E))
        if is_causal and attn_mask is None:
            raise AssertionError("FIXME: is_causal not implemented for need_weights")
        if attn_mask is None:
            weights = ja.bmm(q_scaled, k.transpose(-2, -1))
        else:
            weights = ja.baddbmm(attn_mask, q_scaled, k.transpose(-2, -1))
        weights = softmax(weights, dim=-1)
        if dropout_p > 0.0:
            weights = dropout(weights, p=dropout_p)
        out = ja.bmm(weights, v)
        out = out.transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        out = linear(out, out_proj_weight, out_proj_bias)
        out = out.view(tgt_len, bsz, out.size(1))
        weights = weights.view(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(dim=1)
        if not batched:
            out, weights = out.squeeze(1), weights.squeeze(0)
        return out, weights
    if attn_mask is not None:
        if attn_mask.size(0) == 1 and attn_mask.dim() == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.view(bsz, num_heads, -1, src_len)
    q = q.view(bsz, num_heads, tgt_len, head_dim)
    k = k.view(bsz, num_heads, src_len, head_dim)
    v = v.view(bsz, num_heads, src_len, head_dim)
    out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    out = out.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    out = linear(out, out_proj_weight, out_proj_bias)
    out = out.view(tgt_len, bsz, out.size(1))
    if not batched:
        out = out.squeeze(1)
    return out, None


def _static(t, name, rows, head_dim):
    if t.size(0) != rows:
        raise AssertionError(f"expecting static_{name}.size(0) of {rows}, but got {t.size(0)}")
    if t.size(2) != head_dim:
        raise AssertionError(f"expecting static_{name}.size(2) of {head_dim}, but got {t.size(2)}")
    return t
