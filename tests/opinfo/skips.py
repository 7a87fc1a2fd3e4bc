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
RANDOM_LAYERS = (
    "pending: the 'layers' stream (#14 item 1): the function is not built yet (its "
    "random draws can use torch's generator, in jupyter_autograd._sampling)"
)
RANDOM_LINALG = "pending: randomized low-rank SVD/PCA (torch.svd_lowrank) is not built yet"
LAYOUT = "pending: torch.strided and the other layout objects are not exposed yet"
LAYERS = "pending: the 'layers' stream (#14 item 1: conv, pool, norm, pad, interpolate, losses)"
OPINFO = "pending: the 'opinfo' stream (#18)"

_CUDA_ONLY = [
    "jiterator_unary",
    "jiterator_binary",
    "jiterator_4inputs_with_extra_args",
    "jiterator_binary_return_by_ref",
    "jiterator_2inputs_2outputs",
]
_SPARSE = [
    "sparse.sampled_addmm",
    "sparse.mm.reduce",
    "to_sparse",
]
_PRIVATE = [
    "_softmax_backward_data",
    "_native_batch_norm_legit",
    "_batch_norm_with_update",
    "_upsample_bilinear2d_aa",
    "torch.ops.aten._safe_softmax.default",
    "torch.ops.aten._flash_attention_forward",
    "torch.ops.aten._efficient_attention_forward",
    "_unsafe_masked_index",
    "slice",
    "_unsafe_masked_index_put_accumulate",
    "_chunk_cat",
    "_segment_reduce.lengths",
    "_segment_reduce.offsets",
]
_FP8 = [
    "torch._scaled_mm",
    "torch._scaled_mm_v2",
]
_NO_DTYPE = [
    "bfloat16",
    "chalf",
]
_BACKWARD_KERNEL = [
    "max_pool2d_with_indices_backward",
    "native_dropout_backward",
]
_RANDOM_LAYERS = [
    "nn.functional.rrelu",
    "nn.functional.fractional_max_pool2d",
    "nn.functional.fractional_max_pool3d",
]
_RANDOM_LINALG = ["svd_lowrank", "pca_lowrank"]
_LAYOUT = ["normal.number_mean"]
_LAYERS = [
    "nn.functional.cosine_similarity",
    "nn.functional.adaptive_max_pool3d",
    "nn.functional.max_pool3d",
    "nn.functional.batch_norm.without_cudnn",
    "nn.functional.grid_sample",
    "nn.functional.ctc_loss",
    "constant_pad_nd",
    "grid_sampler_2d",
    "grid_sampler_3d",
    "native_group_norm",
]
_OPINFO = [
    "cholesky_inverse",
    "stft",
    "istft",
    "linalg.eig",
    "linalg.eigvals",
    "linalg.ldl_factor",
    "linalg.ldl_factor_ex",
    "linalg.ldl_solve",
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


#: entries the complex128 OpInfo test (tests/test_complex_opinfo.py) does not hold to torch,
#: with the reason torch's complex result is not the one to match
_COMPLEX_PENDING = "pending: the 'opinfo' stream (#18): complex128 results differ from torch's: "
COMPLEX_DIFFERS: dict[str, str] = {
    **{
        n: _COMPLEX_PENDING + why
        for n, why in {
            "cholesky_solve": "values of some samples (upper=False)",
            "linalg.householder_product": "values (the reflectors' conjugation)",
            "ormqr": "values (the reflectors' conjugation)",
            "linalg.lstsq": "the residuals' dtype (torch: real)",
            "linalg.lstsq.grad_oriented": "the residuals' dtype (torch: real)",
            "linalg.lu_solve": "values with adjoint=True",
            "linalg.svd": "forward-mode tangents (full_matrices=True)",
            "svd": "values (the singular vectors' phases)",
            "masked.std": "refused (maximum of complex tensors in the composition)",
            "masked.var": "refused (maximum of complex tensors in the composition)",
        }.items()
    },
    "logcumsumexp": "torch 2.13's forward-mode tangent of a complex logcumsumexp is NaN (its "
    "logcumsumexp_jvp); ours is the derivative",
}
