"""Message texts shared by the engine and the ops (PyTorch 2.13 wording)."""

ERR_BACKWARD_TWICE = (
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you call "
    ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
    "graph a second time or if you need to access saved tensors after calling backward."
)
ERR_LEAF_INPLACE = "a leaf Variable that requires grad is being used in an in-place operation."
ERR_VIEW_LEAF_INPLACE = (
    "a view of a leaf Variable that requires grad is being used in an in-place operation."
)
ERR_DIRTY_VIEW_MULTI_OUTPUT = (
    "If your Function modifies inplace an input that is a view of another Tensor, your Function "
    "cannot return more than one Tensor. This is not supported by the current autograd engine. "
    "You should either make sure the input is not a view (using .clone() for example) or make "
    "your Function only return one Tensor (potentially splitting it into two Functions: one "
    "doing the inplace that returns a single Tensor and a second one that does the other "
    "operations). You can ask on the forum https://discuss.pytorch.org/ if you need help to do "
    "this change."
)
ERR_NUMPY_GRAD = (
    "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."
)
ERR_HOOK_NO_GRAD = "cannot register a hook on a tensor that doesn't require gradient"
ERR_SCALAR_ONLY = "grad can be implicitly created only for scalar outputs"
ERR_NO_GRAD_FN = "element {i} of tensors does not require grad and does not have a grad_fn"
ERR_INFERENCE_INPLACE = (
    "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a "
    "clone to get a normal tensor before doing inplace update.See "
    "https://github.com/pytorch/rfcs/pull/17 for more details."
)
ERR_INFERENCE_VERSION = "Inference tensors do not track version counter."
ERR_INFERENCE_REQUIRES_GRAD = (
    "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed."
)
ERR_INFERENCE_SAVE = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in inference "
    "mode in computation tracked by autograd. To work around this, you can make a clone to get a "
    "normal tensor and use it in autograd, or use `torch.no_grad()` instead of "
    "`torch.inference_mode()`."
)
WARN_NONLEAF_GRAD = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad field "
    "to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you "
    "access the non-leaf Tensor by mistake, make sure you access the leaf Tensor instead. See "
    "github.com/pytorch/pytorch/pull/30531 for more information."
)
WARN_CREATE_GRAPH = (
    "Using backward() with create_graph=True will create a reference cycle between the parameter "
    "and its gradient which can cause a memory leak. We recommend using autograd.grad when creating "
    "the graph to avoid this. If you have to use this function, make sure to reset the .grad fields "
    "of your parameters to None after use to break the cycle and avoid the leak."
)
ERR_REQUIRES_GRAD_NONLEAF = (
    "you can only change requires_grad flags of leaf variables. If you want to use a computed "
    "variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach()."
)
HINT_ANOMALY = (
    " Hint: enable anomaly detection to find the operation that failed to compute its gradient, "
    "with torch.autograd.set_detect_anomaly(True, check_nan=False)."
)
HINT_ANOMALY_ON = (
    " Hint: the backtrace further above shows the operation that failed to compute its gradient. "
    "The variable in question was changed in there or anywhere later. Good luck!"
)


def size_str(shape) -> str:
    """torch.Size repr: ``torch.Size([5, 3])``."""
    return "torch.Size([" + ", ".join(str(s) for s in shape) + "])"


def list_str(shape) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


ERR_DETACHED_SAVED = (
    "Trying to use a saved tensor that has been detached in-place, i.e. with .detach_()."
    "This is not supported, please use out-of-place `.detach()` instead"
)


_WARNED: set = set()


def warn_once(message: str, stacklevel: int = 3) -> None:
    """A UserWarning the first time ``message`` is given in this process (TORCH_WARN_ONCE)."""
    if message not in _WARNED:
        _WARNED.add(message)
        import warnings

        warnings.warn(message, UserWarning, stacklevel=stacklevel)


def warn_zero_dim(name: str, hint: str, stacklevel: int = 4) -> None:
    """torch's deprecation of the matrix views (T, mT, H, mH, adjoint) on a 0-d tensor."""
    warn_once(
        f"{name} is deprecated on 0-D tensors. "
        + (
            "Consider using x.conj()."
            if hint == "conj"
            else "This function is the identity in these cases."
        ),
        stacklevel=stacklevel,
    )


WARN_T_NOT_2D = (
    "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated and "
    "it will throw an error in a future release. Consider `x.mT` to transpose batches of matrices or "
    "`x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a tensor."
)


def broadcast_error(s1, s2):
    """Raise torch's error for shapes ``s1`` and ``s2`` that do not broadcast."""
    n = max(len(s1), len(s2))
    a = (1,) * (n - len(s1)) + tuple(s1)
    b = (1,) * (n - len(s2)) + tuple(s2)
    for i in range(n - 1, -1, -1):
        if a[i] != b[i] and a[i] != 1 and b[i] != 1:
            raise RuntimeError(
                f"The size of tensor a ({a[i]}) must match the size of tensor b ({b[i]}) at "
                f"non-singleton dimension {i}"
            )
    raise RuntimeError(f"shapes {list(s1)} and {list(s2)} are not broadcastable")
