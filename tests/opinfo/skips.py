"""The reviewed skip list: OpInfo entries the OpInfo test does not run, each with its reason.

``SKIPS`` holds what a NumPy autograd teaching engine legitimately does not do (CUDA-only
kernels, sparse layouts, private ATen ops, dtypes NumPy lacks). ``PENDING`` holds entries that
another stream is building (or this one has not finished): each names who; it shrinks to nothing.
"""

from __future__ import annotations

CUDA_ONLY = "CUDA only: jiterator kernels are compiled for CUDA devices at run time"
SPARSE = "sparse layouts: jupyter_autograd tensors are dense (strided) only"
PRIVATE = "private ATen op (torch.ops.aten.* or a leading underscore), not torch's Python API"
FP8 = "FP8 scaled matrix products for CUDA tensor cores (torch._scaled_mm)"
NO_DTYPE = "dtype NumPy has no type for (bfloat16, complex32)"
BACKWARD_KERNEL = "an ATen backward kernel: torch's autograd internals, not a user-facing op"
RANDOM_LAYERS = ("pending: the 'layers' stream (#14 item 1): the function is not built yet (its "
                 "random draws can use torch's generator, in jupyter_autograd._sampling)")
RANDOM_LINALG = "pending: randomized low-rank SVD/PCA (torch.svd_lowrank) is not built yet"
LAYOUT = "pending: torch.strided and the other layout objects are not exposed yet"
LAYERS = "pending: the 'layers' stream (#14 item 1: conv, pool, norm, pad, interpolate, losses)"
OPINFO = "pending: the 'opinfo' stream (#18)"

_CUDA_ONLY = [
    "jiterator_unary", "jiterator_binary", "jiterator_4inputs_with_extra_args",
    "jiterator_binary_return_by_ref", "jiterator_2inputs_2outputs",
]
_SPARSE = [
    "sparse.sampled_addmm", "sparse.mm.reduce", "to_sparse",
]
_PRIVATE = [
    "_softmax_backward_data", "_native_batch_norm_legit", "_batch_norm_with_update",
    "_upsample_bilinear2d_aa", "torch.ops.aten._safe_softmax.default",
    "torch.ops.aten._flash_attention_forward", "torch.ops.aten._efficient_attention_forward",
    "_unsafe_masked_index", "slice",
    "_unsafe_masked_index_put_accumulate", "_chunk_cat", "_segment_reduce.lengths",
    "_segment_reduce.offsets",
]
_FP8 = [
    "torch._scaled_mm", "torch._scaled_mm_v2",
]
_NO_DTYPE = [
    "bfloat16", "chalf",
]
_BACKWARD_KERNEL = [
    "max_pool2d_with_indices_backward", "native_dropout_backward",
]
_RANDOM_LAYERS = [
    "nn.functional.rrelu",
    "nn.functional.fractional_max_pool2d", "nn.functional.fractional_max_pool3d",
]
_RANDOM_LINALG = ["svd_lowrank", "pca_lowrank"]
_LAYOUT = ["normal.number_mean"]
_LAYERS = [
    "nn.functional.cosine_similarity",
    "nn.functional.adaptive_max_pool3d",
    "nn.functional.max_pool3d",
    "nn.functional.batch_norm.without_cudnn",
    "nn.functional.grid_sample",
    "nn.functional.ctc_loss", "constant_pad_nd", "grid_sampler_2d", "grid_sampler_3d",
    "native_group_norm",
]
_OPINFO = [
    "__rdiv__", "abs", "acos", "acosh", "addmm", "addmv", "addbmm", "baddbmm", "vdot", "addr", "addcmul",
    "addcdiv", "asin", "asinh", "atan", "atan2", "atanh", "block_diag", "combinations", "cartesian_prod", "cdist",
    "cholesky", "cholesky_inverse", "cholesky_solve", "unsafe_chunk", "sum_to_size", "positive",
    "conj", "conj_physical", "resolve_conj", "resolve_neg", "view_as_real", "view_as_complex",
    "complex", "copysign", "corrcoef", "cosh", "cov", "cross", "cumsum", "cumprod", "cummax",
    "cummin", "deg2rad", "diff", "expand_copy", "diag",
    "diag_embed", "diagonal", "diagonal_copy", "diagonal_scatter", "alias_copy", "fmax", "fmin",
    "stft", "istft", "fliplr", "flipud", "i0", "frexp", "log1p", "ge", "geqrf", "gt", "imag", "gradient", "isin", "kthvalue", "le", "log10",
    "log2", "ldexp", "logaddexp", "logaddexp2", "lt", "lu_unpack", "lu", "lu_solve", "masked_fill",
    "masked_scatter", "masked_select", "matrix_exp", "matmul", "median", "nanmedian", "var_mean",
    "var_mean.unbiased", "std_mean", "std_mean.unbiased", "meshgrid.variadic_tensors",
    "meshgrid.list_of_tensors", "quantile", "nanquantile", "heaviside", "lcm", "gcd", "softmax", "softmax.with_dtype",
    "nn.functional.linear_cross_entropy", "nn.functional.linear_cross_entropy.chunked",
    "nn.functional.linear_cross_entropy.chunked_none", "nn.functional.normalize", "aminmax",
    "as_strided", "as_strided.partial_views", "as_strided_copy", "as_strided_scatter",
    "nn.functional.hardswish", "nn.functional.bilinear",
    "nn.functional.glu", "nn.functional.elu", "nn.functional.prelu", "nn.functional.celu",
    "nn.functional.selu", "nn.functional.silu", "nn.functional.silu.complex",
    "nn.functional.hardsigmoid", "nn.functional.mish",
    "nn.functional.softsign", "nn.functional.tanhshrink", "nn.functional.threshold", "nextafter",
    "to", "topk", "igamma", "igammac", "nn.functional.softshrink", "nn.functional.hardshrink",
    "nn.functional.hardtanh", "nn.functional.relu6", "mode", "mvlgamma.mvlgamma_p_1",
    "mvlgamma.mvlgamma_p_3", "mvlgamma.mvlgamma_p_5", "ne", "narrow_copy", "view_copy", "neg",
    "dist", "ormqr", "permute_copy", "qr", "rad2deg", "real", "roll", "rot90", "round",
    "round.decimals_0", "round.decimals_3", "round.decimals_neg_3", "sinc", "sinh", "sgn",
    "unsafe_split", "split_with_sizes", "split_with_sizes_copy", "select_scatter",
    "slice_scatter", "signbit", "tensor_split", "hsplit", "vsplit", "dsplit", "triangular_solve",
    "exp2", "expm1", "nan_to_num", "lerp", "angle", "isposinf", "isneginf", "isreal",
    "svd", "polar", "polygamma.polygamma_n_0", "polygamma.polygamma_n_1",
    "polygamma.polygamma_n_2", "polygamma.polygamma_n_3", "polygamma.polygamma_n_4", "ravel",
    "unravel_index", "atleast_1d", "atleast_2d", "atleast_3d", "column_stack", "pinverse",
    "gather", "index_fill", "index_copy", "index_select", "index_add", "index_reduce.mean",
    "index_reduce.prod", "index_reduce.amin", "index_reduce.amax", "index_put", "sort", "unique",
    "unique_consecutive", "put", "take", "scatter", "bool", "byte", "char", "double", "float",
    "half", "int", "long", "short", "cdouble", "cfloat", "empty_like", "new_empty",
    "new_empty_strided", "empty_strided", "empty", "empty_permuted", "scalar_tensor",
    "scatter_add", "hypot", "histogram", "histogramdd", "histc", "bincount", "bucketize",
    "searchsorted", "unbind_copy", "vstack", "dstack", "unfold", "unfold_copy", "msort", "movedim",
    "renorm", "squeeze_copy", "fill", "resize_", "resize_as_", "take_along_dim", "tile", "trapz",
    "trapezoid", "cumulative_trapezoid", "unsqueeze_copy", "xlogy", "zero_", "logsumexp",
    "transpose", "transpose_copy", "mH", "tril", "triu", "triu_indices", "tril_indices", "kron",
    "inner", "tensordot", "logcumsumexp", "digamma", "erfc", "erfinv", "lgamma", "logdet",
    "log_softmax", "log_softmax.with_dtype", "logit", "nonzero", "nonzero_static", "norm",
    "norm.nuc", "norm.inf", "t_copy", "nn.functional.one_hot", "nn.functional.softplus",
    "argwhere", "count_nonzero", "nanmean", "prod", "nansum", "hash_tensor", "nn.functional.pdist",
    "argsort", "repeat_interleave",
    "nn.functional.channel_shuffle", "diagflat", "scatter_reduce.sum", "scatter_reduce.prod",
    "scatter_reduce.mean", "scatter_reduce.amin", "scatter_reduce.amax", "fft.fft", "fft.fft2",
    "fft.fftn", "fft.hfft", "fft.hfft2", "fft.hfftn", "fft.rfft", "fft.rfft2", "fft.rfftn",
    "fft.ifft", "fft.ifft2", "fft.ifftn", "fft.ihfft", "fft.ihfft2", "fft.ihfftn", "fft.irfft",
    "fft.irfft2", "fft.irfftn", "fft.fftshift", "fft.ifftshift", "linalg.cross", "linalg.det",
    "linalg.diagonal", "linalg.cholesky", "linalg.cholesky_ex", "linalg.vecdot", "linalg.cond",
    "linalg.eig", "linalg.eigvals", "linalg.eigh", "linalg.eigvalsh", "linalg.householder_product",
    "linalg.ldl_factor", "linalg.ldl_factor_ex", "linalg.ldl_solve", "linalg.lstsq",
    "linalg.lstsq.grad_oriented", "linalg.matrix_power", "linalg.multi_dot", "linalg.norm",
    "linalg.norm.subgradients_at_zero", "linalg.matrix_norm", "linalg.qr", "linalg.slogdet",
    "linalg.vander", "linalg.vector_norm", "linalg.lu_factor", "linalg.lu_factor_ex", "linalg.lu",
    "linalg.lu_solve", "linalg.inv", "linalg.inv_ex", "linalg.solve", "linalg.solve_ex",
    "linalg.solve_triangular", "linalg.matrix_rank", "linalg.matrix_rank.hermitian", "linalg.pinv",
    "linalg.pinv.singular", "linalg.pinv.hermitian", "linalg.svd", "linalg.svdvals",
    "linalg.tensorinv", "linalg.tensorsolve", "signal.windows.hamming", "signal.windows.hann",
    "signal.windows.bartlett", "signal.windows.blackman", "signal.windows.cosine",
    "signal.windows.exponential", "signal.windows.gaussian", "signal.windows.kaiser",
    "signal.windows.general_cosine", "signal.windows.general_hamming", "signal.windows.nuttall",
    "special.i0e", "special.i1", "special.i1e", "special.ndtr",
    "special.polygamma.special_polygamma_n_0", "special.xlog1py", "special.zeta", "special.entr",
    "special.ndtri", "special.log_ndtr", "special.erfcx", "special.airy_ai", "special.bessel_j0",
    "special.bessel_j1", "special.bessel_y0", "special.bessel_y1",
    "special.chebyshev_polynomial_t", "special.chebyshev_polynomial_u",
    "special.chebyshev_polynomial_v", "special.chebyshev_polynomial_w",
    "special.hermite_polynomial_h", "special.hermite_polynomial_he",
    "special.laguerre_polynomial_l", "special.legendre_polynomial_p", "special.modified_bessel_i0",
    "special.modified_bessel_i1", "special.modified_bessel_k0", "special.modified_bessel_k1",
    "special.scaled_modified_bessel_k0", "special.scaled_modified_bessel_k1",
    "special.shifted_chebyshev_polynomial_t", "special.shifted_chebyshev_polynomial_u",
    "special.shifted_chebyshev_polynomial_v", "special.shifted_chebyshev_polynomial_w",
    "special.spherical_bessel_j0", "masked.sum", "masked.prod", "masked.cumsum", "masked.cumprod",
    "masked.amax", "masked.amin", "masked.argmax", "masked.argmin", "masked.mean", "masked.median",
    "masked.norm", "masked.var", "masked.std", "masked.softmax", "masked.log_softmax",
    "masked.softmin", "masked.normalize", "masked.logaddexp", "masked.logsumexp",
]

SKIPS: dict[str, str] = {
    **dict.fromkeys(_CUDA_ONLY, CUDA_ONLY),
    **dict.fromkeys(_SPARSE, SPARSE),
    **dict.fromkeys(_PRIVATE, PRIVATE),
    **dict.fromkeys(_FP8, FP8),
    **dict.fromkeys(_NO_DTYPE, NO_DTYPE),
    **dict.fromkeys(_BACKWARD_KERNEL, BACKWARD_KERNEL),
}
PENDING: dict[str, str] = {
    **dict.fromkeys(_RANDOM_LAYERS, RANDOM_LAYERS),
    **dict.fromkeys(_RANDOM_LINALG, RANDOM_LINALG),
    **dict.fromkeys(_LAYOUT, LAYOUT),
    **dict.fromkeys(_LAYERS, LAYERS),
    **dict.fromkeys(_OPINFO, OPINFO),
}


def reason_of(name: str) -> str | None:
    """Why the OpInfo test does not run ``name`` (None: it runs)."""
    return SKIPS.get(name) or PENDING.get(name)
