"""Every example of issue #13's "Why" list, run under torch and under jupyter_autograd.

Each program is compared by :func:`tests._differential.compare`: values, dtypes, grad_fn
names, the exception (type and message) and the warnings. The device-mismatch examples need
a CUDA device on torch's side and live in ``test_defects_devices.py`` (stand-in device).
"""

from __future__ import annotations

import gc
import weakref

import pytest

import jupyter_autograd as ja

from ._differential import compare
from ._torch import require as require_torch
from .test_engine_defects import _exp_function
from .test_engine_reentrant import _reentrant_function

torch = require_torch()

PROGRAMS = {
    "complex-mul-conj": """
c = torch.tensor(2 - 3j)
x = torch.tensor(1 + 1j, requires_grad=True)
(x * c).backward(torch.tensor(1 + 0j))
emit(x.grad)
""",
    "complex-ops": """
c = torch.tensor([2 - 3j, 0.5 + 1j])
x = torch.tensor([1 + 1j, -0.5 + 2j], requires_grad=True)
for f in (lambda x: x * c, lambda x: x / c, torch.exp, torch.sin,
          lambda x: (x.reshape(1, 2) @ c.reshape(2, 1)).reshape(1)):
    x.grad = None
    f(x).sum().abs().backward()
    emit(x.grad)
x.grad = None
(x * c).abs().sum().backward()
emit(x.grad)
""",
    "custom-function-saves-output": """
class Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        out = x.exp()
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, g):
        (out,) = ctx.saved_tensors
        return g * out

x = torch.tensor([0.5, 1.0], requires_grad=True)
y = Exp.apply(x)
emit(y)
y.sum().backward(retain_graph=True)
emit(x.grad)
y.mul_(2)
y.sum().backward()
""",
    "std-constant": """
x = torch.ones(4, requires_grad=True)
x.std().backward()
emit(x.grad)
m = torch.ones(2, 3, requires_grad=True)
m.std(1).sum().backward()
emit(m.grad)
""",
    "ce-all-ignored": """
logits = torch.tensor([[0.2, -1.0, 0.3], [1.0, 0.0, -0.5]], requires_grad=True)
t = torch.tensor([-100, -100])
loss = torch.nn.functional.cross_entropy(logits, t)
loss.backward()
emit(loss, logits.grad)
logits.grad = None
loss = torch.nn.functional.nll_loss(logits.log_softmax(1), torch.tensor([1, 1]), ignore_index=1)
loss.backward()
emit(loss, logits.grad)
""",
    "backward-inputs-non-leaf": """
x = torch.tensor([1.0, 2.0], requires_grad=True)
h = x * 3
loss = (h * h).sum()
loss.backward(inputs=[h])
emit(h.grad, x.grad)
""",
    "bce-logits-tail": """
x = torch.tensor([-40.0, 40.0, -100.0], requires_grad=True)
y = torch.tensor([0.0, 1.0, 0.0])
torch.nn.functional.binary_cross_entropy_with_logits(x, y, reduction="sum").backward()
emit(x.grad)
""",
    "trunc-remainder-record": """
x = torch.tensor([1.5, -2.25], requires_grad=True)
a = x.trunc()
b = x % 1.0
emit(a, b)
(a + b).sum().backward()
emit(x.grad)
""",
    "out-written": """
a = torch.tensor([1.0, 2.0]); b = torch.tensor([3.0, 4.0])
o = torch.empty(2)
r = torch.add(a, b, out=o)
emit(o, r is o)
torch.mul(a, b, out=o)
emit(o)
m = torch.empty(1, 1)
torch.matmul(a.reshape(1, 2), b.reshape(2, 1), out=m)
emit(m)
c = torch.empty(4)
torch.cat([a, b], out=c)
emit(c)
torch.add(a, b, out=torch.empty(2, dtype=torch.int64))
""",
    "hook-changes-dtype": """
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 2
y.register_hook(lambda g: g.double())
y.sum().backward()
""",
    "hook-changes-size": """
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 2
y.register_hook(lambda g: g[:1])
y.sum().backward()
""",
    "inplace-on-view-of-non-leaf": """
x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
y = x * 2
y[0] = 5
y[:, 1].mul_(2)
emit(y, y.grad_fn.name())
y.sum().backward()
emit(x.grad)
""",
    "micrograd-c-plus-equals": """
a = torch.tensor([-4.0], requires_grad=True)
b = torch.tensor([2.0], requires_grad=True)
c = a + b
c += c + 1
c.sum().backward()
emit(c, a.grad, b.grad)
""",
    "int64-overflow": "torch.tensor([2**63])",
    "int8-overflow": "torch.tensor([3000], dtype=torch.int8)",
    "int-floordiv-zero": "torch.tensor([5]) // torch.tensor([0])",
    "int-remainder-zero": "torch.tensor([5]) % torch.tensor([0])",
    "expanded-inplace": """
x = torch.zeros(1).expand(3)
x.add_(1)
""",
    "softmax-no-dim": """
x = torch.tensor([[1.0, 2.0]])
emit(torch.nn.functional.softmax(x))
""",
    "leaf-setitem": """
x = torch.tensor([1.0, 2.0], requires_grad=True)
x[0] = 5
""",
    "softplus": """
x = torch.tensor([-1.0, 0.5, 30.0], requires_grad=True)
y = torch.nn.functional.softplus(x, beta=2, threshold=10)
y.sum().backward()
emit(y, x.grad)
""",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_why_example_behaves_as_torch(name):
    compare(PROGRAMS[name], torch)


def test_object_and_str_arrays_are_refused_as_torch():
    import numpy as np

    for arr in (np.array(["a", "b"]), np.array([object(), 1], dtype=object)):
        with pytest.raises(TypeError) as theirs:
            torch.from_numpy(arr)
        with pytest.raises(TypeError) as ours:
            ja.from_numpy(arr)
        assert str(ours.value) == str(theirs.value)


def test_reentrant_backward_2000_deep():
    """Backward called from inside a backward 2,000 times nested (torch handles it)."""
    x = ja.ones(1, requires_grad=True)
    _reentrant_function(ja).apply(x, 2000).sum().backward()
    assert x.grad.tolist() == [2.0]


def test_dataloader_continues_after_a_failing_item():
    """A dataset raising inside the loop: the next batch still comes (torch goes on too)."""

    def loader(lib):
        class DS(lib.utils.data.Dataset):
            def __len__(self):
                return 6

            def __getitem__(self, i):
                if i == 2:
                    raise ValueError("bad item")
                return lib.tensor([float(i)])

        seen = []
        it = iter(lib.utils.data.DataLoader(DS(), batch_size=2))
        for _ in range(3):
            try:
                seen.append(next(it).tolist())
            except ValueError as e:
                seen.append(str(e))
        return seen

    assert loader(ja) == loader(torch)


def test_custom_function_saving_its_output_frees_without_the_cycle_collector():
    exp = _exp_function()
    gc.disable()
    try:
        y = exp.apply(ja.ones(1000, requires_grad=True))
        ref = weakref.ref(y)
        del y
        assert ref() is None
    finally:
        gc.enable()
