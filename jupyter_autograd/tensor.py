"""The Tensor: a NumPy (or CuPy) array plus autograd state, with PyTorch's API."""

from __future__ import annotations

import warnings
import weakref

import numpy as np

from . import _dtype, _slots
from ._errors import (
    ERR_HOOK_NO_GRAD,
    ERR_INFERENCE_INPLACE,
    ERR_INFERENCE_REQUIRES_GRAD,
    ERR_INFERENCE_VERSION,
    ERR_NUMPY_GRAD,
    ERR_REQUIRES_GRAD_NONLEAF,
    WARN_NONLEAF_GRAD,
    list_str,
)
from ._size import Size, _wrap_dim, torch_strides
from ._tensor_convert import _real_item, _to_device, _warn_scalar_once  # noqa: F401
from ._zerotensor import ERR_NUMPY as ERR_ZERO_NUMPY
from ._zerotensor import ERR_TOLIST as ERR_ZERO_TOLIST
from ._zerotensor import ZeroArray
from .autograd import views as _views
from .autograd.engine import _new_vc
from .autograd.node import SEQ, AccumulateGrad, _HookDict, add_hook
from .backend import _BACKENDS, CPU, device
from .grad_mode import STATE

_ndarray = np.ndarray


def _device_of_array(a) -> device:
    if a.__class__ is _ndarray:
        return CPU
    for name, be in _BACKENDS.items():
        if name != "cpu" and be.owns(a):
            idx = getattr(getattr(a, "device", None), "id", 0)
            return device(name, idx if isinstance(idx, int) else 0)
    return CPU


def _floating_check(d: np.dtype, msg: str) -> None:
    if d.kind not in "fc":
        raise RuntimeError(msg)


class Tensor:
    """A multi-dimensional array that records operations for automatic differentiation.

    Behaves as ``torch.Tensor``: operators, methods, printing, ``requires_grad``, ``grad_fn``,
    ``backward()``, ``.grad``.

    Example:
        >>> import jupyter_autograd as torch
        >>> x = torch.tensor([1.0, 2.0], requires_grad=True)
        >>> y = (x * x).sum()
        >>> y
        tensor(5., grad_fn=<SumBackward0>)
        >>> y.backward()
        >>> x.grad
        tensor([2., 4.])
    """

    # Class-level defaults keep tensor creation to a few attribute writes on the hot path.
    _grad_fn = None
    _grad = None
    _output_nr = 0
    _vc = None  # version counter: a one-item list shared with views
    _base = None
    _hooks = None
    _post_acc_hooks = None
    _retains_grad = False
    _grad_acc = None
    _fw = None  # forward-mode tangents: {level: Tensor}
    _inf = False
    _is_conj = False  # torch's conjugate bit: set on what conj() returns (ops/cplx.py)
    # conj() views: NumPy cannot alias a conjugate, so a conjugate view holds the conjugated
    # values; its root base lists them with their source arrays (_conj_views), and an in-place
    # change anywhere under that base syncs them (autograd/views.py sync_conj)
    _conj_views = None
    _is_param = False
    # views (autograd/views.py): the version their history was made at, how they were made,
    # whether they require grad only through their base (no edge of their own); a base that
    # does not require grad keeps weak references to its views
    _view_version = 0
    _cm = 0
    _rg_via_base = False
    _views = None
    _detached_at = -1  # detach_() of a non-leaf: the sequence number then
    _vfn = None  # a view made through a dtype-changing view: how to replay it from its base

    __array_priority__ = 1000  # so that ndarray <op> Tensor defers to Tensor's reflected ops

    def __init__(self, *args, **kwargs) -> None:
        # torch.Tensor(data) / torch.Tensor(2, 3): legacy constructor, default dtype
        _slots.legacy_tensor_init(self, *args, **kwargs)

    @classmethod
    def _wrap(cls, data, requires_grad: bool = False) -> Tensor:
        if data.__class__ is not _ndarray and isinstance(data, np.generic):
            # NumPy's reductions to 0-d (argmax of a 1-D array...) return NumPy scalars; a
            # tensor always holds an array (a scalar would read as another device's array)
            data = np.asarray(data)
        t = cls.__new__(cls)
        t._data = data
        t._requires_grad = requires_grad
        if STATE.inference:
            t._inf = True
        return t

    # ---------------------------------------------------------------- metadata
    @property
    def grad_fn(self):
        """The node that made this tensor (``None`` for a leaf). A view whose base was modified
        in place since gets a regenerated one (``AsStridedBackward0``), as in torch."""
        if self._base is not None:
            return _views.view_grad_fn(self)
        return self._grad_fn

    @grad_fn.setter
    def grad_fn(self, fn) -> None:
        self._grad_fn = fn

    @property
    def data(self) -> Tensor:
        """The same values without autograd history (shares memory), as ``torch.Tensor.data``."""
        t = Tensor._wrap(self._data)
        t._vc = _new_vc()
        return t

    @data.setter
    def data(self, value: Tensor) -> None:
        self._data = value._data if isinstance(value, Tensor) else np.asarray(value)

    @property
    def shape(self) -> Size:
        return Size(self._data.shape)

    def size(self, dim: int | None = None):
        """The shape (``torch.Size``), or one dimension's length."""
        if dim is None:
            return Size(self._data.shape)
        return self._data.shape[_wrap_dim(dim, self._data.ndim)]

    def dim(self) -> int:
        return self._data.ndim

    ndimension = dim

    @property
    def ndim(self) -> int:
        return self._data.ndim

    def numel(self) -> int:
        return int(self._data.size)

    nelement = numel

    def element_size(self) -> int:
        return self._data.itemsize

    @property
    def dtype(self) -> _dtype.dtype:
        return _dtype.from_numpy_dtype(self._data.dtype)

    @property
    def device(self) -> device:
        return _device_of_array(self._data)

    @property
    def is_cuda(self) -> bool:
        return self.device.type == "cuda"

    @property
    def is_cpu(self) -> bool:
        return self.device.type == "cpu"

    # dense and strided: torch's layout flags are all False (LBFGS branches on them)
    is_sparse = is_sparse_csr = is_quantized = is_mkldnn = property(lambda self: False)

    def is_floating_point(self) -> bool:
        return self._data.dtype.kind == "f"

    def is_complex(self) -> bool:
        return self._data.dtype.kind == "c"

    def is_inference(self) -> bool:
        return self._inf

    def is_contiguous(self, memory_format=None) -> bool:
        return bool(self._data.flags.c_contiguous)

    def stride(self, dim: int | None = None):
        st = torch_strides(self._data)
        return st if dim is None else st[_wrap_dim(dim, self._data.ndim)]

    def data_ptr(self) -> int:
        return (
            int(self._data.__array_interface__["data"][0])
            if self.is_cpu
            else int(self._data.data.ptr)
        )

    @property
    def _version(self) -> int:
        if self._inf:
            raise RuntimeError(ERR_INFERENCE_VERSION)
        return self._vc[0] if self._vc is not None else 0

    def _bump_version(self) -> None:
        vc = self._vc
        if vc is None:
            self._vc = _new_vc(1)
        else:
            vc[0] += 1
            b = self._base
            if (self if b is None else b)._conj_views is not None:
                _views.sync_conj(self)
        if self._inf and not STATE.inference:
            # torch's refusal is the version bump itself: after the kernel's own checks and
            # its write (an inference tensor has no version counter outside inference mode)
            raise RuntimeError(ERR_INFERENCE_INPLACE)

    @property
    def is_leaf(self) -> bool:
        """True for tensors made by the user (and all tensors that do not require grad)."""
        return self.grad_fn is None

    @property
    def requires_grad(self) -> bool:
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        if self.grad_fn is not None:
            if value:
                return
            raise RuntimeError(ERR_REQUIRES_GRAD_NONLEAF)
        if value:
            _floating_check(
                self._data.dtype,
                "only Tensors of floating point and complex dtype can require gradients",
            )
        self._set_requires_grad(bool(value))

    def _set_requires_grad(self, value: bool) -> None:
        if value and self._inf and not STATE.inference:
            raise RuntimeError(ERR_INFERENCE_REQUIRES_GRAD)
        self._requires_grad = value
        self._rg_via_base = False
        if self._views:  # its views made in no_grad follow it
            if value:
                _views.base_requires_grad(self)
            else:
                _views.base_stops_requiring_grad(self)

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        """Set ``requires_grad`` in place on a leaf and return self.

        Example:
            >>> import jupyter_autograd as torch
            >>> torch.ones(2).requires_grad_()
            tensor([1., 1.], requires_grad=True)
        """
        if self.grad_fn is not None:
            if requires_grad:
                return self
            raise RuntimeError(ERR_REQUIRES_GRAD_NONLEAF)
        if requires_grad:
            _floating_check(
                self._data.dtype, "only Tensors of floating point dtype can require gradients"
            )
        self._set_requires_grad(bool(requires_grad))
        return self

    @property
    def retains_grad(self) -> bool:
        return self._retains_grad

    @property
    def grad(self):
        """The accumulated gradient of a leaf (``None`` before backward).

        Reading it (None) on a non-leaf that does not retain grad warns, as PyTorch does.
        """
        g = self._grad
        # torch's is_leaf() here reads the tensor's node as recorded (a view's is not
        # regenerated, nor checked)
        if g is None and self._grad_fn is not None and not self._retains_grad:
            warnings.warn(WARN_NONLEAF_GRAD, UserWarning, stacklevel=2)
        return g

    @grad.setter
    def grad(self, value) -> None:
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(
                    f"assigned grad expected to be a Tensor or None but got grad of type {type(value).__name__}"
                )
            # torch's checks, in its order: dtype, device, size
            if value._data.dtype != self._data.dtype:
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype '{_dtype.cpp_name(value._data.dtype)}' "
                    f"to a tensor with grad_dtype '{self.dtype._legacy[:-6]}'. The gradient must match "
                    "the tensor's grad_dtype (defaults to the tensor's dtype). You can set the tensor's "
                    "grad_dtype attribute with a specific dtype, or None to allow any dtype. Set "
                    "grad_dtype with caution. Diverging the dtypes of a tensor and its gradient may "
                    "break downstream systems that assume they match."
                )
            if value._data.__class__ is not self._data.__class__:
                dv, ds = value.device, self.device
                if dv.type != ds.type:
                    raise RuntimeError(
                        f"attempting to assign a gradient with device type '{dv.type}' to a tensor "
                        f"with device type '{ds.type}'. Please ensure that the gradient and the tensor "
                        "are on the same device"
                    )
                raise RuntimeError(
                    f"attempting to assign a gradient located on device with index '{dv.index}' to a "
                    f"tensor located on device with index '{ds.index}'. Please ensure that the "
                    "gradient and the tensor are on the same device"
                )
            if value._data.shape != self._data.shape:
                raise RuntimeError(
                    f"attempting to assign a gradient of size '{list_str(value._data.shape)}' to a "
                    f"tensor of size '{list_str(self._data.shape)}'. Please ensure that the gradient "
                    "and the tensor are the same size"
                )
        self._grad = value

    @grad.deleter
    def grad(self) -> None:
        self._grad = None

    @property
    def is_view_of_leaf(self) -> bool:
        b = self._base
        return b is not None and b.grad_fn is None and b._requires_grad

    def _grad_accumulator(self) -> AccumulateGrad:
        """The AccumulateGrad node of a leaf (one per leaf, held weakly as in torch)."""
        ref = self._grad_acc
        acc = ref() if ref is not None else None
        if acc is None:
            acc = AccumulateGrad(self)
            self._grad_acc = weakref.ref(acc)
        return acc

    # ---------------------------------------------------------------- autograd API
    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None) -> None:
        """Accumulate the gradient of this tensor into the leaves' ``.grad`` (vᵀJ for ``v=gradient``).

        Args:
            gradient: the vector ``v``; may be omitted for single-element outputs.
            retain_graph: keep the saved tensors for another backward (defaults to create_graph).
            create_graph: record the backward pass so the gradients can be differentiated.
            inputs: accumulate only into these tensors.

        Example:
            >>> import jupyter_autograd as torch
            >>> x = torch.tensor([1.0, 2.0], requires_grad=True)
            >>> (x ** 2).backward(torch.ones(2))
            >>> x.grad
            tensor([2., 4.])
        """
        _slots.backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    def register_hook(self, hook):
        """Register ``hook(grad) -> grad or None`` run when this tensor's gradient is computed.

        Example:
            >>> import jupyter_autograd as torch
            >>> x = torch.ones(2, requires_grad=True)
            >>> h = x.register_hook(lambda g: g * 10)
            >>> (x * 2).sum().backward()
            >>> x.grad
            tensor([20., 20.])
        """
        if not self._requires_grad:
            raise RuntimeError(ERR_HOOK_NO_GRAD)
        fn = self.grad_fn
        if fn is None:
            if self._hooks is None:
                self._hooks = _HookDict()
            return add_hook(self._hooks, hook)
        return add_hook(fn._tensor_hooks_for(self._output_nr), hook)

    def register_post_accumulate_grad_hook(self, hook):
        """Register ``hook(tensor)`` run after a leaf's ``.grad`` has been updated."""
        if not self._requires_grad:
            raise RuntimeError(ERR_HOOK_NO_GRAD)
        if self.grad_fn is not None:
            raise RuntimeError(
                "post accumulate grad hooks cannot be registered on non-leaf tensors"
            )
        if self._post_acc_hooks is None:
            self._post_acc_hooks = _HookDict()
        return add_hook(self._post_acc_hooks, hook)

    def retain_grad(self) -> None:
        """Make a non-leaf keep its ``.grad`` after backward."""
        if not self._requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        # torch's is_leaf() reads the node as stored: a view made under no_grad returns here
        # without regenerating its history (which refuses an in-place change of its base)
        if self._grad_fn is None or self.grad_fn is None or self._retains_grad:
            return
        self._retains_grad = True
        self.grad_fn._retained()[self._output_nr] = weakref.ref(self)

    def detach(self) -> Tensor:
        """A new leaf sharing data with this tensor, cut from the graph.

        Example:
            >>> import jupyter_autograd as torch
            >>> x = torch.ones(2, requires_grad=True)
            >>> (x * 2).detach().requires_grad
            False
        """
        t = Tensor._wrap(self._data)
        if self._vc is None:
            self._vc = _new_vc()
        t._vc = self._vc  # shares the version counter: in-place changes are still detected
        t._inf = self._inf
        if self._is_conj:
            t._is_conj = True
        return t

    def detach_(self) -> Tensor:
        """Detach in place: this tensor becomes a leaf that does not require grad."""
        if STATE.inference:
            return self  # torch's detach_ is an autograd kernel, which inference mode skips
        if self._base is not None:
            raise RuntimeError(
                "Can't detach views in-place. Use detach() instead. If you are using "
                "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set "
                "as True, gradients are views of DDP buckets, and hence detach_() cannot be "
                "called on these gradients. To fix this error, please refer to the "
                "Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution."
            )
        if self._grad_fn is not None:  # nodes that saved it refuse it (engine.check_detached)
            self._detached_at = next(SEQ)
            _engine.FLAGS.detached_inplace = True
        self._grad_fn = None
        self._output_nr = 0
        self._requires_grad = False
        if self._views:
            _views.base_stops_requiring_grad(self)
        return self

    # ---------------------------------------------------------------- conversion
    def numpy(self, *, force: bool = False) -> np.ndarray:
        """The NumPy array sharing this tensor's memory (CPU only; not for tensors requiring grad
        while grad mode is on: torch's check is ``requires_grad and grad_enabled``)."""
        if self._requires_grad and STATE.grad_enabled and not force:
            raise RuntimeError(ERR_NUMPY_GRAD)
        if self._is_conj and not force:
            raise RuntimeError(
                "Can't call numpy() on Tensor that has conjugate bit set. Use "
                "tensor.resolve_conj().numpy() instead."
            )
        if self._data.__class__ is not _ndarray:
            if self._data.__class__ is ZeroArray:
                if force:
                    return self._data.copy()
                raise RuntimeError(ERR_ZERO_NUMPY)
            if force:
                return _BACKENDS[self.device.type].to_host(self._data)
            raise TypeError(
                f"can't convert {self.device.type}:{self.device.index or 0} device type tensor to "
                "numpy. Use Tensor.cpu() to copy the tensor to host memory first."
            )
        return self._data

    def __array__(self, dtype=None, copy=None):
        if self._data.__class__ is not _ndarray:
            raise TypeError(
                f"can't convert {self.device} device type tensor to numpy. Use Tensor.cpu() to "
                "copy the tensor to host memory first."
            )
        if self._requires_grad and STATE.grad_enabled:
            raise RuntimeError(ERR_NUMPY_GRAD)
        a = self._data
        if dtype is not None and a.dtype != dtype:
            return a.astype(dtype)
        return a.copy() if copy else a

    def item(self):
        """The single value as a Python number."""
        if self._data.size != 1:
            raise RuntimeError(
                f"a Tensor with {self._data.size} elements cannot be converted to Scalar"
            )
        return self._data.reshape(()).item()

    def tolist(self):
        d = self._data
        if d.__class__ is not _ndarray:
            if d.__class__ is ZeroArray:
                raise RuntimeError(ERR_ZERO_TOLIST)
            d = _BACKENDS[self.device.type].to_host(d)
        return d.tolist()

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self._data.shape[0]))

    def __bool__(self) -> bool:
        if self._data.size != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self._data.reshape(()).item())

    def __float__(self) -> float:
        if self._requires_grad and self._data.size == 1 and STATE.grad_enabled:  # torch: not
            _warn_scalar_once()  # under no_grad
        return float(_real_item(self, "double"))

    def __int__(self) -> int:
        return int(_real_item(self, "int64_t"))

    def __index__(self) -> int:
        if self._data.dtype.kind not in "iub" or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __complex__(self) -> complex:
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        if self._requires_grad and STATE.grad_enabled:
            _warn_scalar_once()
        return complex(self.item())

    def __format__(self, spec: str) -> str:
        if self._data.ndim == 0:
            return self.item().__format__(spec)
        return object.__format__(self, spec) if spec else repr(self)

    # identity hashing, in C: tensors key optimizer state and sets on hot paths (torch hashes by
    # id(self) too; only the number differs)
    __hash__ = object.__hash__

    def __repr__(self) -> str:
        from ._printing import tensor_repr

        return tensor_repr(self)

    __str__ = __repr__

    def __deepcopy__(self, memo):
        if self.grad_fn is not None:
            raise RuntimeError(
                "Only Tensors created explicitly by the user (graph leaves) support the deepcopy "
                "protocol at the moment.  If you were attempting to deepcopy a module, this may be "
                "because of a torch.nn.utils.weight_norm usage, see "
                "https://github.com/pytorch/pytorch/pull/103001"
            )
        t = type(self).__new__(type(self))
        t._data = self._data.copy()
        t._requires_grad = self._requires_grad
        if self._grad is not None:
            t._grad = self._grad.__deepcopy__(memo)
        memo[id(self)] = t
        return t

    def __reduce_ex__(self, proto):
        return (
            _rebuild,
            (
                self.tolist() if self._data.__class__ is not _ndarray else self._data,
                self._requires_grad,
            ),
        )

    # ---------------------------------------------------------------- in-place machinery
    def _check_inplace(self, requires_grad: bool | None = None) -> None:
        """torch's checks before an in-place op (``requires_grad``: whether any of the op's
        inputs requires grad; this tensor's own flag when not given)."""
        _views.check_inplace(self, self._requires_grad if requires_grad is None else requires_grad)


from .autograd import accumulate as _accumulate
from .autograd import engine as _engine

_engine.Tensor = Tensor
_accumulate.Tensor = Tensor


def _rebuild(data, requires_grad):
    t = Tensor._wrap(np.array(data))
    t._requires_grad = requires_grad
    return t
