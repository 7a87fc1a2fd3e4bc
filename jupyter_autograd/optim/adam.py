"""Adam and AdamW (decoupled weight decay), in torch's single-tensor arithmetic.

By default (``foreach=None``) the moments of a parameter group live in one flat array per
moment, and each optimizer state tensor is a view into it: one NumPy call then updates every
parameter of the group, as torch's multi-tensor ("foreach") path does. The arithmetic per element
is the single-tensor one, operation for operation, so the two paths give identical numbers;
``foreach=False`` keeps the loop over parameters. Both run :func:`adam_update`.
"""

from __future__ import annotations

import numpy as np

from ..tensor import Tensor
from .optimizer import Optimizer, _check_lr, _real_views, _step_tensor, _use_grad, _zeros_state


def adam_update(g, m, v, vmax, beta1, beta2, step_size, bc2_sqrt, eps, t=None, u=None):
    """torch's single-tensor Adam arithmetic on arrays, operation for operation (so the numbers
    are torch's bit for bit), shared by the per-parameter loop and the flat arrays of a group:
    updates the moments ``m``, ``v`` (and the running maximum ``vmax`` for amsgrad) in place and
    returns the parameter's increment ``-step_size * m / (sqrt(v) / bc2_sqrt + eps)``.

    ``step_size`` (``lr / (1 - beta1**step)``) and ``bc2_sqrt`` (``sqrt(1 - beta2**step)``) are
    numbers, or per-element arrays when a flat group's parameters are at different steps;
    ``t`` and ``u`` are scratch arrays of ``g``'s shape (new ones when None).

    Example:
        >>> import numpy as np
        >>> m, v = np.zeros(1), np.zeros(1)
        >>> adam_update(np.array([2.0]), m, v, None, 0.9, 0.999, 0.1 / 0.1, 0.001**0.5, 1e-8)
        array([-0.1])
    """
    t = np.subtract(g, m, out=t)  # m.lerp_(g, 1 - beta1)
    t *= 1 - beta1
    m += t
    v *= beta2  # v.mul_(beta2).addcmul_(g, g, value=1 - beta2)
    t = np.multiply(g, 1 - beta2, out=t)
    t *= g
    v += t
    if vmax is not None:
        np.maximum(vmax, v, out=vmax)
        v = vmax
    t = np.sqrt(v, out=t)  # denom = (v.sqrt() / bc2_sqrt).add_(eps)
    t /= bc2_sqrt
    t += eps
    u = np.multiply(m, -step_size, out=u)  # param.addcdiv_(m, denom, value=-step_size)
    u /= t
    return u


class Adam(Optimizer):
    """``torch.optim.Adam`` (Kingma & Ba, 2014), with amsgrad, weight_decay and maximize.

    Example:
        >>> import jupyter_autograd as torch
        >>> w = torch.tensor([1.0], requires_grad=True)
        >>> opt = torch.optim.Adam([w], lr=0.1)
        >>> (w * w).sum().backward()
        >>> opt.step()
        >>> w
        tensor([0.9000], requires_grad=True)
    """

    _decoupled = False

    def __init__(
        self,
        params,
        lr=1e-3,
        betas=(0.9, 0.999),
        eps=1e-8,
        weight_decay=0,
        amsgrad=False,
        *,
        foreach=None,
        maximize=False,
        capturable=False,
        differentiable=False,
        fused=None,
        decoupled_weight_decay=False,
    ) -> None:
        _check_lr(lr)
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "amsgrad": amsgrad,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "differentiable": differentiable,
            "fused": fused,
            "decoupled_weight_decay": decoupled_weight_decay or self._decoupled,
        }
        super().__init__(params, defaults)

    @_use_grad
    def step(self, closure=None):
        """One Adam update; returns the closure's loss."""
        loss = self._closure(closure)
        for gi, group in enumerate(self.param_groups):
            if group["foreach"] is not False and _FlatAdam.step(self, gi, group):
                continue
            beta1, beta2 = group["betas"]
            lr, eps, wd = group["lr"], group["eps"], group["weight_decay"]
            amsgrad, maximize = group["amsgrad"], group["maximize"]
            decoupled = group.get("decoupled_weight_decay", self._decoupled)
            for p, g in self._params_with_grad(group):
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _step_tensor()
                    state["exp_avg"] = _zeros_state(p)
                    state["exp_avg_sq"] = _zeros_state(p)
                    if amsgrad:
                        state["max_exp_avg_sq"] = _zeros_state(p)
                if maximize:
                    g = -g
                x = p._data
                state["step"]._data += 1
                step = float(state["step"]._data)
                if wd != 0:
                    if decoupled:
                        x *= 1 - lr * wd
                    else:
                        g = g + wd * x
                m = state["exp_avg"]._data
                v = state["exp_avg_sq"]._data
                vm = state["max_exp_avg_sq"]._data if amsgrad else None
                x, g, m, v, vm = _real_views(x, g, m, v, vm)
                bias_correction1 = 1 - beta1**step
                bias_correction2 = 1 - beta2**step
                x += adam_update(
                    g, m, v, vm, beta1, beta2, lr / bias_correction1, bias_correction2**0.5, eps
                )
                p._bump_version()
        return loss


class _FlatAdam:
    """One parameter group's Adam state in flat arrays; the state tensors are views into them."""

    __slots__ = (
        "dtype",
        "g",
        "m",
        "params",
        "state",
        "steps",
        "tmp",
        "upd",
        "upd_views",
        "v",
        "views",
        "vmax",
        "x",
    )

    @staticmethod
    def step(opt, gi: int, group) -> bool:
        """Update ``group`` in flat arrays; False (nothing done) when it needs the per-parameter
        loop: mixed dtypes or devices, a Tensor lr, a state it did not make and cannot adopt."""
        params, grads = [], []
        for p in group["params"]:
            g = p._grad
            if g is not None:
                params.append(p)
                grads.append(g._data)
        if not params:
            return True
        lr = group["lr"]
        if isinstance(lr, Tensor) or group.get("differentiable"):
            return False
        dt = grads[0].dtype
        if dt.kind != "f":
            return False
        nd = np.ndarray
        for p, g in zip(params, grads):
            x = p._data
            if g.__class__ is not nd or x.__class__ is not nd or g.dtype != dt or x.dtype != dt:
                return False
        caches = opt.__dict__.setdefault("_flat", {})
        flat = caches.get(gi)
        amsgrad = group["amsgrad"]
        if flat is None or not flat.valid(opt, params, dt, amsgrad):
            flat = _FlatAdam.build(opt, params, dt, amsgrad)
            if flat is None:
                return False
            caches[gi] = flat
        beta1, beta2 = group["betas"]
        eps, wd = group["eps"], group["weight_decay"]
        decoupled = group.get("decoupled_weight_decay", opt._decoupled)
        g = np.concatenate([x.reshape(-1) for x in grads], out=flat.g)
        if group["maximize"]:
            np.negative(g, out=g)
        if wd != 0 and not decoupled:
            x = np.concatenate([p._data.reshape(-1) for p in params], out=flat.x)
            x *= wd
            g += x
        flat.steps += 1
        step_size, bc2_sqrt = flat.bias_corrections(lr, beta1, beta2)
        adam_update(
            g, flat.m, flat.v, flat.vmax, beta1, beta2, step_size, bc2_sqrt, eps, flat.tmp, flat.upd
        )
        shrink = 1 - lr * wd if wd != 0 and decoupled else None
        for p, du in zip(params, flat.upd_views):
            x = p._data
            if shrink is not None:
                x *= shrink
            x += du
            vc = p._vc  # p._bump_version(), inline
            if vc is None:
                p._vc = [1]
            else:
                vc[0] += 1
        return True

    def bias_corrections(self, lr, beta1, beta2):
        """``lr / (1 - beta1**step)`` and ``sqrt(1 - beta2**step)``: two numbers when every
        parameter is at the same step, else one value per element, rounded to the parameters'
        dtype as NumPy rounds a Python float operand, so both cases give the loop's numbers."""
        steps = self.steps.tolist()
        s = steps[0]
        if steps.count(s) == len(steps):
            return lr / (1 - beta1**s), (1 - beta2**s) ** 0.5
        dt, sizes = self.dtype, [v[0].size for v in self.views]
        size = np.repeat(np.array([lr / (1 - beta1**s) for s in steps], dt), sizes)
        bc2 = np.repeat(np.array([(1 - beta2**s) ** 0.5 for s in steps], dt), sizes)
        return size, bc2

    def valid(self, opt, params, dt, amsgrad) -> bool:
        """Whether these flat arrays still hold this group's state: the same parameters, shapes
        and options, and every state tensor still a view made here (not replaced or loaded)."""
        if self.state is not opt.state or self.dtype != dt or (self.vmax is not None) != amsgrad:
            return False
        if len(params) != len(self.params):
            return False
        state = opt.state
        for p, q, (mv, vv, sv, xv) in zip(params, self.params, self.views):
            if p is not q:
                return False
            st = state.get(p)
            if (
                st is None
                or p._data.shape != mv.shape
                or st["exp_avg"]._data is not mv
                or st["exp_avg_sq"]._data is not vv
                or st["step"]._data is not sv
                or (xv is not None and st["max_exp_avg_sq"]._data is not xv)
            ):
                return False
        return True

    @staticmethod
    def build(opt, params, dt, amsgrad):
        """Flat arrays for ``params``, holding any state they already have (a loaded state dict,
        an earlier set of parameters); that state's tensors become views into them."""
        names = ("exp_avg", "exp_avg_sq", "max_exp_avg_sq")[: 2 + amsgrad]
        for p in params:
            st = opt.state.get(p)
            if st and (
                any(k not in st for k in ("step",) + names)
                or any(st[k]._data.shape != p._data.shape for k in names)
            ):
                return None  # a state this path does not know: the per-parameter loop decides
        sizes = [p._data.size for p in params]
        total = sum(sizes)
        flat = _FlatAdam()
        flat.params = params
        flat.state = opt.state
        flat.dtype = dt
        flat.m, flat.v = np.zeros(total, dt), np.zeros(total, dt)
        flat.vmax = np.zeros(total, dt) if amsgrad else None
        flat.steps = np.zeros(len(params), np.float32)
        flat.g, flat.x, flat.tmp, flat.upd = (np.empty(total, dt) for _ in range(4))
        arrays = (flat.m, flat.v, flat.vmax)
        views, upd_views = [], []
        start = 0
        for i, (p, n) in enumerate(zip(params, sizes)):
            shape = p._data.shape
            sl = slice(start, start + n)
            st = opt.state[p]
            row = []
            for name, arr in zip(names, arrays):
                view = arr[sl].reshape(shape)
                old = st.get(name)
                if old is None:
                    st[name] = Tensor._wrap(view)
                else:
                    view[...] = old._data
                    old._data = view
                row.append(view)
            sv = flat.steps[i : i + 1].reshape(())
            old = st.get("step")
            if old is None:
                st["step"] = Tensor._wrap(sv)
            else:
                sv[...] = old._data
                old._data = sv
            views.append((row[0], row[1], sv, row[2] if amsgrad else None))
            upd_views.append(flat.upd[sl].reshape(shape))
            start += n
        flat.views = views
        flat.upd_views = upd_views
        return flat


class AdamW(Adam):
    """``torch.optim.AdamW``: Adam with decoupled weight decay ``p *= 1 - lr * weight_decay``.

    Example:
        >>> import jupyter_autograd as torch
        >>> torch.optim.AdamW([torch.ones(1, requires_grad=True)]).defaults["weight_decay"]
        0.01
    """

    _decoupled = True

    def __init__(
        self,
        params,
        lr=1e-3,
        betas=(0.9, 0.999),
        eps=1e-8,
        weight_decay=1e-2,
        amsgrad=False,
        *,
        maximize=False,
        foreach=None,
        capturable=False,
        differentiable=False,
        fused=None,
    ) -> None:
        super().__init__(
            params,
            lr,
            betas,
            eps,
            weight_decay,
            amsgrad,
            foreach=foreach,
            maximize=maximize,
            capturable=capturable,
            differentiable=differentiable,
            fused=fused,
            decoupled_weight_decay=True,
        )
