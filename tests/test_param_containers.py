"""Issue 14 (teaching code): nn.ParameterList and nn.ParameterDict as torch's (registration,
names, slicing, dict operations, printing, errors)."""

from __future__ import annotations

import jupyter_autograd as ja

from ._torch import require as require_torch


def _containers(torch):
    nn = torch.nn
    out = []
    torch.manual_seed(0)

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.ws = nn.ParameterList([nn.Parameter(torch.randn(2, 2)) for _ in range(2)])
            self.ws.append(torch.ones(3))
            self.d = nn.ParameterDict(
                {"b": nn.Parameter(torch.zeros(2)), "a": torch.ones(1, dtype=torch.float64)}
            )

        def forward(self, x):
            for w in self.ws[:2]:
                x = x @ w
            return x + self.d["b"]

    m = M()
    out.append(repr(m))
    out.append(repr(([n for n, _ in m.named_parameters()], list(m.state_dict()))))
    out.append(repr((m.ws[-1], len(m.ws), m.ws[1:])))
    m(torch.ones(1, 2)).sum().backward()
    out.append(repr((m.ws[0].grad, "a" in m.d, list(m.d.keys()), m.d.get("zz"))))
    d2 = m.d | nn.ParameterDict({"c": nn.Parameter(torch.ones(1))})
    out.append(repr((d2, d2.pop("c"), len(d2))))
    try:
        m.ws(1)
    except RuntimeError as e:
        out.append(repr(e))
    try:
        m.ws[7]
    except IndexError as e:
        out.append(repr(e))
    try:
        m.d[1]
    except TypeError as e:
        out.append(repr(e))
    out.append(repr((nn.ParameterList(), nn.ParameterDict(), nn.ParameterList([1, "x"]))))
    return out


def test_parameter_list_and_dict_as_torch():
    torch = require_torch()
    assert _containers(ja) == _containers(torch)


def _module_api(torch):
    nn = torch.nn
    m = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2), nn.Embedding(3, 2))
    out = [repr(m.get_buffer("1.running_mean")), repr(m.get_buffer("1.num_batches_tracked"))]
    for target in ("0.weight", "1.nope"):
        try:
            m.get_buffer(target)
        except AttributeError as e:
            out.append(str(e))
    m.half()
    out.append(repr([(n, t.dtype) for n, t in m.state_dict().items()]))
    return out


def test_get_buffer_and_half_as_torch():
    torch = require_torch()
    assert _module_api(ja) == _module_api(torch)
