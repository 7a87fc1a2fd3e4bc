"""What the autograd saved-tensors tutorial and the profiler recipe show: the tensors a node
saves (grad_fn._saved_* and _raw_saved_* with their own hooks), saved_tensors_hooks that
offload to a store, save_on_cpu, disable_saved_tensors_hooks, the error after freeing the
graph; then torch.autograd.profiler.profile on a small model (the table's structure, not
its timings) and torch.utils.benchmark.Timer."""

import importlib

from _prelude import import_torch

torch = import_torch()
benchmark = importlib.import_module(
    torch.__name__ + ".utils.benchmark"
)  # import torch.utils.benchmark
nn = torch.nn

torch.manual_seed(4)
a = torch.randn(3, requires_grad=True)
b = torch.randn(3, requires_grad=True)
y = a.exp() * b
print("saved", y.grad_fn._saved_self, y.grad_fn._saved_other)
print("exp result is the output:", y.grad_fn.next_functions[0][0]._saved_result.equal(a.exp()))
print(type(y.grad_fn._raw_saved_self).__name__)
z = a.pow(3)
print("pow", z.grad_fn._saved_exponent, z.grad_fn._saved_self is a)
s = a.sum(dim=0)
print("sum", s.grad_fn._saved_self_sym_sizes, s.grad_fn._saved_dim)

log = []
raw = y.grad_fn._raw_saved_other
raw.register_hooks(lambda t: log.append(("pack", tuple(t.shape))) or t * 1, lambda t: t)
print("registered", log)

# offloading saved tensors to a store keyed by an index, as the tutorial's "save to disk" does
store = {}


def pack(t):
    key = len(store)
    store[key] = t.clone()
    return key


def unpack(key):
    return store[key]


with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    w = torch.randn(4, 4, requires_grad=True)
    out = (w @ w).tanh().sum()
print("stored", len(store), sorted(tuple(v.shape) for v in store.values()))
out.backward()
print("grad via store", w.grad.sum())

with torch.autograd.graph.save_on_cpu(pin_memory=False):
    q = (a * b).sin()
q.sum().backward()
print("save_on_cpu", a.grad, q.grad_fn.name())

with torch.autograd.graph.disable_saved_tensors_hooks("no hooks here"):
    try:
        with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
            a * b
    except RuntimeError as e:
        print("disabled:", e)

c = (a * b).sum()
c.backward()
try:
    c.backward()
except RuntimeError as e:
    print(str(e).split(".")[0])
try:
    print(c.grad_fn.next_functions[0][0]._saved_self)
except RuntimeError as e:
    print(str(e).split(".")[0])

# the profiler: which ops ran, how often, with input shapes (timings differ run to run). Left
# out as known differences: composite ops torch records around the ones they call
# (aten::linear around aten::t and aten::addmm), ATen's internal calls (aten::empty, aten::to),
# and the [] torch lists for each scalar argument in input_shapes
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2))
x = torch.randn(5, 8)
with torch.autograd.profiler.profile(record_shapes=True) as prof:
    with torch.autograd.profiler.record_function("model_forward"):
        loss = model(x).square().mean()
    loss.backward()
names = {e.key: e.count for e in prof.key_averages()}
for key in ("model_forward", "aten::addmm", "aten::relu", "aten::mean", "AddmmBackward0"):
    print(key, names.get(key))
table = prof.key_averages().table(sort_by="cpu_time_total", row_limit=5)
header = table.splitlines()[1].split()
print(header[:4])
print("rows", len(table.splitlines()) - 5 >= 5, "Self CPU time total" in table)
shapes = {
    str([s for s in e.input_shapes if s])
    for e in prof.key_averages(group_by_input_shape=True)
    if e.key == "aten::addmm"
}
print("addmm shapes", sorted(shapes))

timer = benchmark.Timer(
    stmt="torch.mm(m, m)", setup="m = torch.ones(4, 4)", globals={"torch": torch}, label="mm"
)
measurement = timer.timeit(5)
print(type(measurement).__name__, measurement.number_per_run, len(measurement.times))
print(repr(measurement).splitlines()[1], measurement.stmt, measurement.label)
