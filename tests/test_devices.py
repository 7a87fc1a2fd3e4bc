"""Devices (issue 9): the same code on ``cpu`` and on ``cuda``.

Without a GPU, ``cuda`` is the NumPy stand-in (:mod:`jupyter_autograd.testing.fake_cuda`), whose
arrays are not ``numpy.ndarray`` and refuse to mix with it as CuPy's do: every op row running
here on ``cuda`` and agreeing with ``cpu`` shows that no op forward or rule hard-codes NumPy.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import jupyter_autograd as ja
from jupyter_autograd.autograd import forward_ad as fwad
from jupyter_autograd.backend import canonical_device
from jupyter_autograd.ops import OPS

from ._op_samples import Unsampleable, cases
from ._torch import require as require_torch


def _sampleable():
    # rows the shared sampler cannot draw yet fail its own meta-test (test_ops_registry)
    out = []
    for name in sorted(OPS):
        try:
            cases(OPS[name], np.random.default_rng(0))
            out.append(name)
        except Unsampleable:
            pass
    return out


ALL = _sampleable()


def _outs(r):
    return list(r) if isinstance(r, (tuple, list)) else [r]


def _host(t):
    # force: a second-order gradient can be torch's ZeroTensor (abs, norms: sgn's gradient),
    # whose numpy() refuses without it; the stand-in device materializes those zeros
    return None if t is None else t.detach().cpu().numpy(force=True)


def _run(case, dev, seed):
    """Forward, backward, double backward and forward AD of one case on ``dev``; host results.

    The case's own constants (index tensors, masks) are made by factories without ``device=``:
    ``set_default_device`` puts them on ``dev`` too, as a GPU notebook would.
    """
    ja.set_default_device(dev)
    try:
        return _run_on(case, dev, seed)
    finally:
        ja.set_default_device(None)


def _stage(res, key, f):
    """Record a stage's host results, or the type of the error it raised (compared across
    devices: a stage failing on one device only is the bug this suite looks for)."""
    try:
        res[key] = f()
    except Exception as e:  # noqa: BLE001
        res[key] = type(e).__name__


def _run_on(case, dev, seed):
    rng = np.random.default_rng(seed)
    res = {}
    ts = [ja.tensor(a, dtype=ja.float64, device=dev, requires_grad=True) for a in case.arrays]
    outs = [o for o in _outs(case.ours(*ts)) if o.is_floating_point()]
    for o in outs:
        assert o.device == canonical_device(dev), f"output on {o.device}, inputs on {dev}"
    res["out"] = [_host(o) for o in outs]
    vs = [ja.tensor(rng.uniform(-1, 1, size=tuple(o.shape)), device=dev) for o in outs]
    ws = [rng.uniform(-1, 1, size=a.shape) for a in case.arrays]
    if any(o.requires_grad for o in outs):
        loss = sum((o * v).sum() for o, v in zip(outs, vs) if o.requires_grad)
        grads = ja.autograd.grad(loss, ts, retain_graph=True, allow_unused=True)
        for g in grads:
            assert g is None or g.device == canonical_device(dev), f"gradient on {g.device}"
        res["grad"] = [_host(g) for g in grads]

        def second_order():
            # d/dx of sum(grad * w), through the recorded backward (create_graph=True)
            gs = ja.autograd.grad(loss, ts, create_graph=True, allow_unused=True)
            gsum = [
                (g * ja.tensor(w, device=dev)).sum()
                for g, w in zip(gs, ws)
                if g is not None and g.requires_grad
            ]
            if not gsum:
                return []
            return [_host(g) for g in ja.autograd.grad(sum(gsum), ts, allow_unused=True)]

        _stage(res, "gg", second_order)
    # forward mode: the JVP along a random tangent
    tangents = [rng.uniform(-1, 1, size=a.shape) for a in case.arrays]

    def jvp():
        with fwad.dual_level():
            duals = [
                fwad.make_dual(ja.tensor(a, dtype=ja.float64, device=dev), ja.tensor(t, device=dev))
                for a, t in zip(case.arrays, tangents)
            ]
            return [_host(fwad.unpack_dual(o).tangent) for o in _outs(case.ours(*duals))]

    _stage(res, "jvp", jvp)
    return res


def _same(a, b, where):
    if isinstance(a, str) or isinstance(b, str):
        assert a == b, f"{where}: cpu gave {a!r}, cuda gave {b!r}"
        return
    assert len(a) == len(b), where
    for x, y in zip(a, b):
        if x is None or y is None:
            assert x is None and y is None, where
            continue
        np.testing.assert_allclose(y, x, rtol=1e-12, atol=1e-12, err_msg=where)


@pytest.mark.parametrize("name", ALL)
def test_op_suite_on_cuda_matches_cpu(name, cuda_device):
    """Every registry row: values, gradients, second-order gradients and JVPs agree across devices."""
    for k, case in enumerate(cases(OPS[name], np.random.default_rng(0))):
        cpu = _run(case, "cpu", k)
        gpu = _run(case, cuda_device, k)
        assert cpu.keys() == gpu.keys(), (cpu.keys(), gpu.keys())
        for key in cpu:
            _same(cpu[key], gpu[key], f"{name} case {k} {key}")


# ---------------------------------------------------------------- the device API, as torch's
FACTORIES = {
    "tensor": lambda d: ja.tensor([1.0, 2.0], device=d),
    "as_tensor": lambda d: ja.as_tensor([1.0, 2.0], device=d),
    "zeros": lambda d: ja.zeros(2, 3, device=d),
    "ones": lambda d: ja.ones(2, device=d),
    "empty": lambda d: ja.empty(2, device=d),
    "full": lambda d: ja.full((2,), 7.0, device=d),
    "eye": lambda d: ja.eye(3, device=d),
    "arange": lambda d: ja.arange(5, device=d),
    "linspace": lambda d: ja.linspace(0, 1, 5, device=d),
    "logspace": lambda d: ja.logspace(0, 1, 5, device=d),
    "rand": lambda d: ja.rand(2, device=d),
    "randn": lambda d: ja.randn(2, device=d),
    "randint": lambda d: ja.randint(0, 5, (3,), device=d),
    "randperm": lambda d: ja.randperm(4, device=d),
    "normal": lambda d: ja.normal(0.0, 1.0, (2,), device=d),
    "zeros_like": lambda d: ja.zeros_like(ja.ones(2), device=d),
    "ones_like": lambda d: ja.ones_like(ja.ones(2), device=d),
    "full_like": lambda d: ja.full_like(ja.ones(2), 3.0, device=d),
    "rand_like": lambda d: ja.rand_like(ja.ones(2), device=d),
    "randn_like": lambda d: ja.randn_like(ja.ones(2), device=d),
    "empty_like": lambda d: ja.empty_like(ja.ones(2), device=d),
}


@pytest.mark.parametrize("name", sorted(FACTORIES))
def test_every_factory_takes_device(name, cuda_device):
    t = FACTORIES[name](cuda_device)
    assert t.device == ja.device("cuda", 0) and t.is_cuda and not t.is_cpu
    assert type(t._data) is not np.ndarray
    c = FACTORIES[name]("cpu")
    assert c.device == ja.device("cpu") and type(c._data) is np.ndarray
    # the same seed gives the same values on both devices (random tensors are drawn on the host)
    ja.manual_seed(3)
    a = FACTORIES[name](cuda_device).cpu()
    ja.manual_seed(3)
    b = FACTORIES[name]("cpu")
    assert a.dtype == b.dtype and np.array_equal(a.numpy(), b.numpy())


def test_like_factories_follow_the_input_device(cuda_device):
    x = ja.ones(2, device=cuda_device)
    for f in (ja.zeros_like, ja.ones_like, ja.rand_like, ja.randn_like, ja.empty_like):
        assert f(x).device == x.device
    assert x.new_zeros(3).device == x.device and x.new_tensor([1.0]).device == x.device


def test_to_cuda_cpu_round_trip_and_gradient_goes_back(cuda_device):
    w = ja.tensor([1.0, -2.0, 3.0], requires_grad=True)
    g = w.to(cuda_device)
    assert g.device == ja.device("cuda:0") and g.grad_fn.name() == "ToCopyBackward0"
    assert w.cuda().device == g.device and g.cpu().device == ja.device("cpu")
    assert w.to(ja.device("cuda")).device == g.device and w.to("cuda:0").is_cuda
    (g * g).sum().backward()
    assert w.grad.device == ja.device("cpu")  # a cpu leaf gets a cpu gradient, as in torch
    np.testing.assert_array_equal(w.grad.numpy(), [2.0, -4.0, 6.0])
    # and back: a cuda leaf used on the cpu gets a cuda gradient
    v = ja.tensor([1.0, 2.0], device=cuda_device, requires_grad=True)
    (v.cpu() * 3).sum().backward()
    assert v.grad.device == v.device and v.grad.tolist() == [3.0, 3.0]
    # to(other) takes the other tensor's device and dtype
    o = ja.zeros(1, dtype=ja.float64, device=cuda_device)
    r = ja.ones(2).to(o)
    assert r.device == o.device and r.dtype is ja.float64


def test_printing_shows_the_device(cuda_device):
    assert repr(ja.tensor([1.0, 2.0], device=cuda_device)) == "tensor([1., 2.], device='cuda:0')"
    x = ja.ones(2, device=cuda_device, requires_grad=True)
    assert repr(x * 2) == "tensor([2., 2.], device='cuda:0', grad_fn=<MulBackward0>)"
    assert repr(ja.arange(3, device=cuda_device).to(ja.float64)) == (
        "tensor([0., 1., 2.], device='cuda:0', dtype=torch.float64)"
    )
    assert x.detach().type() == "torch.cuda.FloatTensor"


def test_printing_matches_torch_strings():
    """The strings above are torch's own (checked against torch where installed, on the meta
    device's printing rules they share with cuda)."""
    torch = require_torch()
    assert str(torch.device("cuda", 0)) == str(ja.device("cuda", 0)) == "cuda:0"
    assert repr(torch.device("cuda:1")) == repr(ja.device("cuda:1"))
    assert repr(torch.device("cpu")) == repr(ja.device("cpu"))


NUMPY_MSG = (
    "can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the "
    "tensor to host memory first."
)


def test_numpy_on_a_cuda_tensor_raises_torchs_message(cuda_device):
    x = ja.ones(2, device=cuda_device)
    with pytest.raises(TypeError) as e:
        x.numpy()
    assert str(e.value) == NUMPY_MSG
    # B11: np.asarray gives the same clear error, never CuPy's raw one or a silent host copy
    with pytest.raises(TypeError) as e:
        np.asarray(x)
    assert str(e.value) == NUMPY_MSG
    assert x.cpu().numpy().tolist() == [1.0, 1.0] and x.tolist() == [1.0, 1.0]
    assert x.sum().item() == 2.0 and float(x.sum()) == 2.0


SAME_DEVICE = (
    "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!"
)


@pytest.mark.parametrize(
    "op",
    [
        lambda a, b: a + b,
        lambda a, b: b * a,
        lambda a, b: a @ b,
        lambda a, b: ja.maximum(a, b),
        lambda a, b: ja.where(a > 0, a, b),
        lambda a, b: ja.cat([a, b]),
        lambda a, b: ja.stack([b, a]),
        lambda a, b: ja.nn.functional.mse_loss(a, b),
    ],
)
def test_mixing_devices_raises_torchs_error(op, cuda_device):
    a = ja.ones(3, device=cuda_device, requires_grad=True)
    b = ja.ones(3)
    with pytest.raises(RuntimeError) as e:
        op(a, b)
    assert str(e.value) == SAME_DEVICE


def test_mixing_with_numpy_arrays_and_scalars(cuda_device):
    a = ja.ones(3, device=cuda_device)
    with pytest.raises(RuntimeError, match="^Expected all tensors to be on the same device"):
        a + np.ones(3)  # B11: no silent host -> device copy
    with pytest.raises(RuntimeError, match="^Expected all tensors to be on the same device"):
        ja.nn.functional.nll_loss(ja.zeros(2, 3, device=cuda_device), ja.tensor([0, 1]))
    # Python and NumPy scalars, and 0-d cpu tensors, mix with any device (as in torch)
    assert (a + 1).device == a.device and (a * np.float32(2)).device == a.device
    s = ja.tensor(2.0, requires_grad=True)
    x = ja.ones(3, device=cuda_device, requires_grad=True)
    r = x * s
    assert r.device == x.device
    r.sum().backward()
    assert s.grad.device == ja.device("cpu") and s.grad.item() == 3.0
    assert x.grad.device == x.device


def test_inplace_and_random_fill_stay_on_device(cuda_device):
    x = ja.zeros(4, device=cuda_device)
    x.uniform_()
    x.normal_()
    x.fill_(2.0)
    x.add_(1.0)
    assert x.device == ja.device("cuda:0") and x.tolist() == [3.0] * 4
    x.copy_(ja.arange(4.0))  # copy_ is an explicit transfer, as in torch
    assert x.device == ja.device("cuda:0") and x.tolist() == [0.0, 1.0, 2.0, 3.0]
    y = ja.ones(3, device=cuda_device)
    y[1] = 5.0
    assert y.tolist() == [1.0, 5.0, 1.0] and y.device == x.device


def test_set_default_device(cuda_device):
    ja.set_default_device(cuda_device)
    try:
        assert ja.zeros(2).device == ja.device("cuda:0") and ja.tensor([1]).is_cuda
        assert ja.get_default_device() == ja.device("cuda:0")
    finally:
        ja.set_default_device(None)
    assert ja.zeros(2).device == ja.device("cpu") and ja.get_default_device() == ja.device("cpu")


def test_torch_cuda_module_on_the_stand_in(cuda_device):
    assert ja.cuda.is_available() is True and ja.cuda.device_count() == 1
    assert ja.cuda.current_device() == 0 and isinstance(ja.cuda.get_device_name(), str)
    ja.cuda.synchronize()
    ja.cuda.set_device(0)
    ja.cuda.manual_seed(5)
    a = ja.rand(3, device="cuda")
    ja.cuda.manual_seed_all(5)
    assert ja.rand(3, device="cuda").tolist() == a.tolist()
    assert ja.cuda.memory_allocated() >= 0
    ja.cuda.empty_cache()


def test_stand_in_refuses_what_cupy_refuses(cuda_device):
    """The stand-in is only useful if it fails where CuPy fails."""
    from jupyter_autograd.testing.fake_cuda import FakeCudaArray, fake_cupy

    a = fake_cupy.ones(3)
    assert isinstance(a, FakeCudaArray) and not isinstance(a, np.ndarray)
    with pytest.raises(TypeError, match="Unsupported type"):
        a + np.ones(3)
    with pytest.raises(TypeError, match="Unsupported type"):
        np.ones(3) * a
    with pytest.raises(TypeError, match="Implicit conversion to a NumPy array is not allowed"):
        np.asarray(a)
    with pytest.raises(TypeError, match="Unsupported type"):
        np.concatenate([a, np.ones(3)])
    # NumPy functions on device arrays dispatch to the device module (as with CuPy) ...
    assert isinstance(np.exp(a), FakeCudaArray) and isinstance(np.sum(a), FakeCudaArray)
    # ... and scalars, results of reductions included, stay 0-d device arrays
    assert isinstance(a.sum(), FakeCudaArray) and isinstance(a[0], FakeCudaArray)
    assert np.array_equal(a.get(), np.ones(3)) and a.device.id == 0


def test_device_objects():
    assert ja.device("cuda") != ja.device("cuda:0") and ja.device("cuda", 0) == "cuda:0"
    assert ja.device(ja.device("cpu")) == "cpu" and hash(ja.device("cuda:0")) == hash(
        ja.device("cuda", 0)
    )
    with pytest.raises(RuntimeError, match="Expected one of cpu, cuda device type"):
        ja.device("tpu")


# ---------------------------------------------------------------- without CuPy
def _run_py(code: str, env=None) -> str:
    import os

    e = dict(os.environ)
    e.pop("JUPYTER_AUTOGRAD_FAKE_CUDA", None)
    e.update(env or {})
    r = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=e,
        timeout=120,
        check=False,
    )
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_import_never_imports_cupy():
    out = _run_py(
        "import sys, jupyter_autograd as torch\n"
        "x = torch.ones(2) * 3; x.sum().item(); repr(x); torch.device('cuda')\n"
        "print('cupy' in sys.modules, any(m.startswith('cupy') for m in sys.modules))\n"
    )
    assert out.split() == ["False", "False"]


def test_cuda_without_cupy_says_how_to_install():
    """With CuPy missing (blocked here even where installed), cuda is unavailable and asking
    for it names the install command."""
    out = _run_py(
        "import sys; sys.modules['cupy'] = None\n"
        "import jupyter_autograd as torch\n"
        "print(torch.cuda.is_available(), torch.cuda.device_count())\n"
        "for f in (lambda: torch.zeros(2, device='cuda'), lambda: torch.ones(2).cuda(),\n"
        "          lambda: torch.tensor([1.0], device='cuda'), torch.cuda.current_device):\n"
        "    try:\n"
        "        f(); print('no error')\n"
        "    except RuntimeError as e:\n"
        "        print('pip install jupyter-autograd[cuda]' in str(e))\n"
    )
    assert out.split() == ["False", "0", "True", "True", "True", "True"]


def test_env_var_installs_the_stand_in():
    out = _run_py(
        "import sys, jupyter_autograd as torch\n"
        "x = torch.ones(2, device='cuda', requires_grad=True); (x * x).sum().backward()\n"
        "print(torch.cuda.is_available(), x.grad.device, type(x._data).__name__, 'cupy' in sys.modules)\n",
        env={"JUPYTER_AUTOGRAD_FAKE_CUDA": "1"},
    )
    assert out.split() == ["True", "cuda:0", "FakeCudaArray", "False"]


# ---------------------------------------------------------------- nn, optim, data on a device
def _train(dev, opt_name):
    from jupyter_autograd import nn, optim
    from jupyter_autograd.utils.data import DataLoader, TensorDataset

    ja.manual_seed(0)
    m = nn.Sequential(nn.Linear(3, 5), nn.Tanh(), nn.Linear(5, 2))
    m = m.to(dev) if dev == "cpu" else m.cuda()
    for prm in m.parameters():
        assert prm.device == canonical_device(dev) and prm.is_leaf and prm.requires_grad
    kw = {
        "SGD": {"lr": 0.1, "momentum": 0.9},
        "RMSprop": {"lr": 0.01, "centered": True},
        "Adam": {"lr": 0.01, "amsgrad": True},
    }.get(opt_name, {"lr": 0.01})
    opt = getattr(optim, opt_name)(m.parameters(), **kw)
    x = ja.randn(12, 3).to(dev)
    y = ja.randint(0, 2, (12,)).to(dev)
    ja.manual_seed(1)
    for xb, yb in DataLoader(TensorDataset(x, y), batch_size=4, shuffle=True):
        assert xb.device == canonical_device(dev) and yb.device == xb.device
        opt.zero_grad()
        loss = ja.nn.functional.cross_entropy(m(xb), yb)
        loss.backward()
        opt.step()
    return m, [p.detach().cpu().numpy() for p in m.parameters()]


@pytest.mark.parametrize("opt_name", ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad"])
def test_module_optimizer_and_loader_train_the_same_on_cuda(opt_name, cuda_device):
    m, on_gpu = _train(cuda_device, opt_name)
    for p in m.parameters():
        assert p.device == ja.device("cuda:0") and p.grad.device == p.device
    _, on_cpu = _train("cpu", opt_name)
    for a, b in zip(on_gpu, on_cpu):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)
    m.cpu()
    assert all(p.device == ja.device("cpu") and p.grad.device == p.device for p in m.parameters())
    assert all(t.device == ja.device("cpu") for t in m.state_dict().values())


# ---------------------------------------------------------------- benchmarks/gpu_check.py
def _gpu_check():
    import importlib.util
    import pathlib

    path = pathlib.Path(__file__).resolve().parents[1] / "benchmarks" / "gpu_check.py"
    spec = importlib.util.spec_from_file_location("gpu_check", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod, path


def test_gpu_check_op_suite_passes_on_the_stand_in(cuda_device):
    mod, _ = _gpu_check()
    rows, failures, _ = mod.op_suite(cuda_device)
    assert not failures, [r for r in rows if r[0] in failures]
    assert sum(1 for _, s in rows if s == "ok") >= len(ALL)


def test_gpu_check_without_a_gpu_says_so_and_exits_0():
    _, path = _gpu_check()
    import os

    env = dict(os.environ)
    env.pop("JUPYTER_AUTOGRAD_FAKE_CUDA", None)
    code = f"import sys, runpy; sys.modules['cupy'] = None; sys.argv = ['gpu_check']; runpy.run_path({str(path)!r}, run_name='__main__')"
    r = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert r.returncode == 0, r.stderr
    assert "no usable CUDA device" in r.stdout and "pip install jupyter-autograd[cuda]" in r.stdout
