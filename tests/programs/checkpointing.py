"""Saving and resuming training as the save/load tutorial does: model and optimizer
state_dicts (with a scheduler's) through torch.save/torch.load into a BytesIO, a checkpoint
dict, resuming gives the same losses as not stopping; DataLoader shuffling from a Generator;
nn.init on a fresh model; a whole tensor and a list round trip."""

import io

from _prelude import import_torch

torch = import_torch()
nn = torch.nn

torch.manual_seed(0)
X = torch.randn(48, 5)
Y = (X[:, :2].sum(1, keepdim=True) > 0).float()
ds = torch.utils.data.TensorDataset(X, Y)


def make():
    # no bias before the batch norm: it cancels it, so Adam would amplify a gradient that is
    # rounding noise, different in every library
    m = nn.Sequential(nn.Linear(5, 6, bias=False), nn.BatchNorm1d(6), nn.Tanh(), nn.Linear(6, 1))
    nn.init.orthogonal_(m[0].weight)
    nn.init.normal_(m[3].weight, mean=0.0, std=0.1)
    nn.init.constant_(m[3].bias, 0.05)
    nn.init.trunc_normal_(m[1].bias, std=0.02)
    return m


def loader(seed):
    g = torch.Generator()
    g.manual_seed(seed)
    return torch.utils.data.DataLoader(ds, batch_size=12, shuffle=True, generator=g)


def run_epoch(model, opt, sched, dl):
    losses = []
    for xb, yb in dl:
        loss = nn.functional.binary_cross_entropy_with_logits(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(round(loss.item(), 5))
    sched.step()
    return losses


torch.manual_seed(1)
model = make()
print(model)
print("init", model[0].weight[0], model[3].bias)
opt = torch.optim.AdamW(model.parameters(), lr=0.01, weight_decay=0.01)
sched = torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[1, 2], gamma=0.5)
first = [xb[0, 0].item() for xb, _ in loader(7)]
print("shuffled first elements", [round(v, 4) for v in first])
print("epoch 0", run_epoch(model, opt, sched, loader(0)))

buf = io.BytesIO()
torch.save(
    {
        "epoch": 1,
        "model_state_dict": model.state_dict(),
        "optimizer_state_dict": opt.state_dict(),
        "scheduler_state_dict": sched.state_dict(),
    },
    buf,
)
print("bytes written", buf.tell() > 0)

print("epoch 1 (going on)", run_epoch(model, opt, sched, loader(1)))
reference = model(X[:3]).detach()

buf.seek(0)
ckpt = torch.load(buf, weights_only=True)
print(sorted(ckpt), ckpt["epoch"])
print(list(ckpt["model_state_dict"].keys()))
print(ckpt["model_state_dict"]["1.bias"])
osd = ckpt["optimizer_state_dict"]
print(sorted(osd), sorted(osd["state"]), sorted(osd["state"][0]))
print(osd["param_groups"])
print(ckpt["scheduler_state_dict"])
print("step", osd["state"][0]["step"], "exp_avg", osd["state"][3]["exp_avg"])

model2 = make()
opt2 = torch.optim.AdamW(model2.parameters(), lr=0.01, weight_decay=0.01)
sched2 = torch.optim.lr_scheduler.MultiStepLR(opt2, milestones=[1, 2], gamma=0.5)
print(model2.load_state_dict(ckpt["model_state_dict"]))
opt2.load_state_dict(osd)
sched2.load_state_dict(ckpt["scheduler_state_dict"])
print("epoch 1 (resumed)", run_epoch(model2, opt2, sched2, loader(1)))
print("same as not stopping", torch.allclose(model2(X[:3]).detach(), reference, atol=1e-6))
print("lr", sched2.get_last_lr(), opt2.param_groups[0]["lr"])
print("running stats", model2[1].running_mean, model2[1].num_batches_tracked)

model2.eval()
with torch.no_grad():
    print("eval", model2(X[:4]).sigmoid().squeeze(1))

buf = io.BytesIO()
torch.save([torch.arange(4), {"w": torch.ones(2, dtype=torch.float64)}, (3, "x")], buf)
buf.seek(0)
print(torch.load(buf))
missing = model2.load_state_dict({"0.weight": torch.zeros(6, 5)}, strict=False)
print(missing.missing_keys[:2], missing.unexpected_keys)
try:
    model2.load_state_dict({"0.weight": torch.zeros(6, 4)}, strict=False)
except RuntimeError as e:
    print(type(e).__name__, str(e).splitlines()[0])
    print(str(e).splitlines()[1])

# the other schedules a tutorial reaches for, stepped side by side
opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0, momentum=0.9)
scheds = [
    torch.optim.lr_scheduler.LambdaLR(opt, lambda e: 0.9**e),
    torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.5, total_iters=3),
]
chained = torch.optim.lr_scheduler.ChainedScheduler(scheds)
plateau_opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)
plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(plateau_opt, factor=0.5, patience=1)
warm_opt = torch.optim.Adam([torch.zeros(1, requires_grad=True)], lr=0.1)
warm = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(warm_opt, T_0=3, T_mult=2)
seq_opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)
seq = torch.optim.lr_scheduler.SequentialLR(
    seq_opt,
    [
        torch.optim.lr_scheduler.ConstantLR(seq_opt, factor=0.1, total_iters=2),
        torch.optim.lr_scheduler.PolynomialLR(seq_opt, total_iters=4, power=2.0),
    ],
    milestones=[2],
)
for epoch, metric in enumerate([1.0, 0.9, 0.95, 0.97, 0.99, 0.8, 0.85, 0.9]):
    for o in (opt, plateau_opt, warm_opt, seq_opt):
        o.step()
    chained.step()
    plateau.step(metric)
    warm.step()
    seq.step()
    print(
        epoch,
        [round(v, 6) for v in chained.get_last_lr()],
        plateau.get_last_lr(),
        round(warm.get_last_lr()[0], 6),
        round(seq.get_last_lr()[0], 6),
    )
print(plateau.state_dict())
print(sorted(chained.state_dict()), chained.state_dict()["_schedulers"][1])
print(seq.state_dict()["_milestones"], seq.state_dict()["last_epoch"])
