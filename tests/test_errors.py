"""Golden strings for every error and warning of spec sections 4-9 (type and message)."""

from __future__ import annotations

import re
import warnings

import pytest

import jupyter_autograd as torch
from jupyter_autograd import _errors as E


def test_nonscalar_backward():
    x = torch.ones(3, requires_grad=True)
    with pytest.raises(
        RuntimeError, match=re.escape("grad can be implicitly created only for scalar outputs")
    ):
        (x * 2).backward()


def test_shape_mismatch_of_gradient():
    w = torch.ones(5, 3, requires_grad=True)
    with pytest.raises(
        RuntimeError,
        match=re.escape(
            "Mismatch in shape: grad_output[0] has a shape of torch.Size([3]) and output[0] has a shape of torch.Size([5, 3])."
        ),
    ):
        (w * 2).backward(torch.ones(3))


def test_root_without_grad():
    with pytest.raises(
        RuntimeError,
        match=re.escape("element 0 of tensors does not require grad and does not have a grad_fn"),
    ):
        torch.tensor([1.0]).backward()


def test_backward_twice_is_lazy():
    x = torch.ones(2, requires_grad=True)
    y = (x * x).sum()
    y.backward()
    with pytest.raises(RuntimeError) as e:
        y.backward()
    assert str(e.value) == E.ERR_BACKWARD_TWICE
    o = (x + 1).sum()  # nothing saved: a second backward is fine
    x.grad = None
    o.backward()
    o.backward()
    assert x.grad.tolist() == [2.0, 2.0]


def test_retain_graph_allows_second_backward():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    assert x.grad.tolist() == [4.0, 8.0]


def test_reading_freed_saved_tensor():
    x = torch.ones(2, requires_grad=True)
    y = x.exp()
    y.sum().backward()
    with pytest.raises(
        RuntimeError, match=re.escape("Trying to backward through the graph a second time")
    ):
        _ = y.grad_fn._saved_result


def test_integer_requires_grad_three_texts():
    with pytest.raises(
        RuntimeError,
        match="^Only Tensors of floating point and complex dtype can require gradients$",
    ):
        torch.tensor([1, 2, 3], requires_grad=True)
    with pytest.raises(
        RuntimeError, match="^only Tensors of floating point dtype can require gradients$"
    ):
        torch.arange(3).requires_grad_()
    t = torch.arange(3)
    with pytest.raises(
        RuntimeError,
        match="^only Tensors of floating point and complex dtype can require gradients$",
    ):
        t.requires_grad = True
    w = torch.ones(2, requires_grad=True)
    assert repr(torch.tensor([1, 2]) * w) == "tensor([1., 2.], grad_fn=<MulBackward0>)"


def test_requires_grad_false_on_nonleaf():
    w = torch.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match=re.escape(E.ERR_REQUIRES_GRAD_NONLEAF)):
        (w * 2).requires_grad_(False)


def test_nonleaf_grad_warns():
    w = torch.ones(2, requires_grad=True)
    y = w * 2
    with pytest.warns(
        UserWarning,
        match=re.escape(
            "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed."
        ),
    ):
        assert y.grad is None
    y.retain_grad()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert y.grad is None and w.grad is None
        y.sum().backward()
        assert y.grad.tolist() == [1.0, 1.0]


def test_grad_assignment_wrong_shape():
    w = torch.ones(2, requires_grad=True)
    with pytest.raises(
        RuntimeError,
        match=re.escape(
            "attempting to assign a gradient of size '[3]' to a tensor of size '[2]'. Please ensure that the gradient and the tensor are the same size"
        ),
    ):
        w.grad = torch.ones(3)


def test_numpy_on_grad_tensor_and_hook_without_grad():
    w = torch.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match=re.escape(E.ERR_NUMPY_GRAD)):
        w.numpy()
    with pytest.raises(
        RuntimeError,
        match=re.escape("cannot register a hook on a tensor that doesn't require gradient"),
    ):
        torch.ones(2).register_hook(lambda g: g)


def test_zero_grad_before_backward():
    w = torch.ones(2, requires_grad=True)
    with pytest.raises(
        AttributeError, match=re.escape("'NoneType' object has no attribute 'zero_'")
    ):
        w.grad.zero_()


def test_inplace_on_leaf_and_view_of_leaf():
    x = torch.ones(3, requires_grad=True)
    with pytest.raises(
        RuntimeError,
        match=re.escape(
            "a leaf Variable that requires grad is being used in an in-place operation."
        ),
    ):
        x.add_(1)
    with torch.no_grad():
        x.add_(1)  # optimizers do this
    assert x.tolist() == [2.0, 2.0, 2.0]


def test_version_counter_and_modified_saved_tensor():
    t = torch.ones(3)
    t += 1
    t.mul_(2)
    assert t._version == 2
    x = torch.ones(3, requires_grad=True)
    a = x + 1
    b = a**2
    a.add_(1)
    with pytest.raises(RuntimeError) as e:
        b.sum().backward()
    msg = str(e.value)
    assert msg.startswith(
        "one of the variables needed for gradient computation has been modified by an inplace operation: [torch.FloatTensor [3]], which is output 0 of Add, is at version 1; expected version 0 instead."
    )
    assert msg.endswith(E.HINT_ANOMALY)


def test_modified_saved_output_and_plain_tensor():
    x = torch.ones(3, requires_grad=True)
    y = x.exp()
    y.add_(1)
    with pytest.raises(
        RuntimeError,
        match=re.escape(
            "[torch.FloatTensor [3]], which is output 0 of Exp, is at version 1; expected version 0 instead."
        ),
    ):
        y.sum().backward()
    c = torch.ones(3)
    z = x * c
    c.detach().zero_()
    with pytest.raises(
        RuntimeError,
        match=re.escape("[torch.FloatTensor [3]] is at version 1; expected version 0 instead."),
    ):
        z.sum().backward()


def test_inference_tensor_saved():
    with torch.inference_mode():
        t = torch.ones(2) * 2
    assert repr(t) == "tensor([2., 2.])" and t.is_inference()
    w = torch.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match=re.escape(E.ERR_INFERENCE_SAVE)):
        w * t


def test_range_deprecation_and_dtype():
    with pytest.warns(
        UserWarning,
        match=re.escape(
            "torch.range is deprecated and will be removed in a future release because its behavior is inconsistent with Python's range builtin. Instead, use torch.arange, which produces values in [start, end)."
        ),
    ):
        r = torch.range(0, 5)
    assert repr(r) == "tensor([0., 1., 2., 3., 4., 5.])"
    with pytest.warns(UserWarning):
        assert repr(torch.range(1, 4, dtype=torch.int64)) == "tensor([1, 2, 3, 4])"
    with pytest.warns(UserWarning):
        assert repr(torch.range(0, 1, 0.25)) == "tensor([0.0000, 0.2500, 0.5000, 0.7500, 1.0000])"
    with pytest.raises(
        TypeError, match=re.escape('range() missing 1 required positional arguments: "end"')
    ):
        torch.range(5)
    assert repr(torch.arange(0, 5)) == "tensor([0, 1, 2, 3, 4])"


def test_create_graph_backward_warns():
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    with pytest.warns(
        UserWarning,
        match=re.escape("Using backward() with create_graph=True will create a reference cycle"),
    ):
        (a * a).sum().backward(create_graph=True)
    assert repr(a.grad) == "tensor([2., 4.], grad_fn=<CopyBackwards>)"


def test_autograd_grad_errors():
    x = torch.ones(2, requires_grad=True)
    y = torch.ones(2, requires_grad=True)
    with pytest.raises(
        RuntimeError,
        match=re.escape(
            "The differentiated Tensor at index 1 appears to not have been used in the graph. Set allow_unused=True if this is the desired behavior."
        ),
    ):
        torch.autograd.grad((x * 2).sum(), [x, y])
    gx, gy = torch.autograd.grad((x * 2).sum(), [x, y], allow_unused=True)
    assert gx.tolist() == [2.0, 2.0] and gy is None
    gx, gy = torch.autograd.grad((x * 2).sum(), [x, y], materialize_grads=True)
    assert gy.tolist() == [0.0, 0.0]
    with pytest.raises(
        RuntimeError, match=re.escape("One of the differentiated Tensors does not require grad")
    ):
        torch.autograd.grad((x * 2).sum(), [torch.ones(2)])


def test_broadcast_and_matmul_shape_errors():
    with pytest.raises(
        RuntimeError,
        match=re.escape(
            "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1"
        ),
    ):
        torch.ones(2, 3) + torch.ones(2, 4)
    with pytest.raises(
        RuntimeError, match=re.escape("mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)")
    ):
        torch.ones(2, 3) @ torch.ones(4, 5)


def test_node_api():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x.pow(2)
    assert y.grad_fn._saved_self is x
    assert y.grad_fn._saved_exponent == 2
    e = x.exp()
    assert e.grad_fn._saved_result is not e
    assert repr(e.grad_fn._saved_result) == "tensor([2.7183, 7.3891], grad_fn=<ExpBackward0>)"
    seen = []
    acc = y.grad_fn.next_functions[0][0]
    acc.register_hook(lambda gi, go: seen.append(go[0].tolist()))
    y.sum().backward()
    assert seen == [[2.0, 4.0]]
    assert y.grad_fn.metadata == {}
    assert type(y.grad_fn).__name__ == "PowBackward0"
    acc = y.grad_fn.next_functions[0][0]
    assert (
        type(acc).__name__ == "AccumulateGrad" and acc.name() == "torch::autograd::AccumulateGrad"
    )
    assert acc.variable is x
    calls = []
    z = x * 2
    z.grad_fn.register_prehook(lambda go: calls.append(("pre", [g.tolist() for g in go])))
    z.grad_fn.register_hook(
        lambda gi, go: calls.append(("hook", [None if g is None else g.tolist() for g in gi]))
    )
    z.backward(torch.ones(2))
    assert calls == [("pre", [[1.0, 1.0]]), ("hook", [[2.0, 2.0], None])]


def test_tensor_hooks():
    x = torch.ones(2, requires_grad=True)
    h = x.register_hook(lambda g: g * 10)
    (x * 2).sum().backward()
    assert x.grad.tolist() == [20.0, 20.0]
    h.remove()
    seen = []
    x.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.tolist()))
    x.grad = None
    (x * 2).sum().backward()
    assert seen == [[2.0, 2.0]]
    y = x * 3
    y.register_hook(lambda g: g * 0)
    x.grad = None
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 0.0]


def test_inplace_on_view_of_leaf_and_views_of_nonleaf():
    x = torch.ones(3, requires_grad=True)
    v = x[0:2]
    assert v._base is x
    with pytest.raises(RuntimeError, match=re.escape(E.ERR_VIEW_LEAF_INPLACE)):
        v.add_(1)
    y = x * 2
    w = y[1:]
    w.mul_(2)  # torch rebases y's history: CopySlices over MulBackward0; w's is regenerated
    assert y.grad_fn.name() == "torch::autograd::CopySlices"
    assert type(w.grad_fn).__name__ == "AsStridedBackward0"
    u = y[0]
    y.mul_(3)  # in-place on the base: u's history is regenerated when it is used
    (u * 1).backward()
    assert x.grad.tolist() == [6.0, 0.0, 0.0]
    assert type(u.grad_fn).__name__ == "AsStridedBackward0"


def test_views_share_the_version_counter():
    x = torch.ones(4)
    v = x.view(2, 2)
    x.add_(1)
    assert v._version == x._version == 1
    assert v.tolist() == [[2.0, 2.0], [2.0, 2.0]]


def test_modified_saved_tensor_hint_under_anomaly_mode():
    x = torch.ones(3, requires_grad=True)
    with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"):
        ctx = torch.autograd.detect_anomaly()
    with ctx, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y = x.exp()
        y.add_(1)
        with pytest.raises(RuntimeError) as e:
            y.sum().backward()
    assert str(e.value).endswith(E.HINT_ANOMALY_ON)
