"""A small CNN on random images as the CIFAR tutorial trains one: Conv2d, BatchNorm2d,
MaxPool2d, Dropout in train and eval mode, nn.init, forward and full backward hooks on
modules, gradient clipping and a StepLR schedule; then a spatial transformer in front of it, as
the STN tutorial builds one (affine_grid/grid_sample, identity-initialized localization)."""

from _prelude import import_torch

torch = import_torch()
nn = torch.nn
F = nn.functional

torch.manual_seed(3)
images = torch.randn(40, 3, 12, 12)
labels = torch.randint(0, 5, (40,))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 6, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(6)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 8, kernel_size=3, stride=1, bias=False)
        self.drop = nn.Dropout(p=0.25)
        self.fc1 = nn.Linear(8 * 2 * 2, 16)
        self.fc2 = nn.Linear(16, 5)

    def forward(self, x):
        x = self.pool(F.relu(self.bn1(self.conv1(x))))
        x = self.pool(F.relu(self.conv2(x)))
        x = torch.flatten(x, 1)
        x = self.drop(F.relu(self.fc1(x)))
        return self.fc2(x)


net = Net()
for m in net.modules():
    if isinstance(m, nn.Conv2d):
        nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
    elif isinstance(m, nn.Linear):
        nn.init.xavier_uniform_(m.weight)
        nn.init.zeros_(m.bias)
    elif isinstance(m, nn.BatchNorm2d):
        nn.init.constant_(m.weight, 1.0)
print(net)
print("parameters", sum(p.numel() for p in net.parameters()))
print([(n, tuple(p.shape)) for n, p in net.named_parameters()])
print(list(net.state_dict().keys()))
print("conv1.weight[0, 0]", net.conv1.weight[0, 0])

shapes = []
grads = []
h1 = net.conv2.register_forward_hook(
    lambda mod, inp, out: shapes.append((type(mod).__name__, tuple(inp[0].shape), tuple(out.shape)))
)
h2 = net.fc1.register_full_backward_hook(
    lambda mod, gin, gout: grads.append(
        (tuple(gin[0].shape), tuple(gout[0].shape), round(gout[0].abs().sum().item(), 4))
    )
)

criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-4)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)
for epoch in range(4):
    net.train()
    running = 0.0
    for i in range(0, 40, 10):
        optimizer.zero_grad()
        out = net(images[i : i + 10])
        loss = criterion(out, labels[i : i + 10])
        loss.backward()
        norm = nn.utils.clip_grad_norm_(net.parameters(), max_norm=1.0)
        optimizer.step()
        running += loss.item()
    scheduler.step()
    print(
        f"epoch {epoch} loss {running / 4:.4f} norm {norm:.4f} lr {scheduler.get_last_lr()}",
        loss.grad_fn.name(),
    )
h1.remove()
h2.remove()
print("forward hook", shapes[:2], len(shapes))
print("backward hook", grads[:2], len(grads))
print("bn1 running_mean", net.bn1.running_mean)
print("bn1 running_var", net.bn1.running_var, net.bn1.num_batches_tracked)

net.eval()
with torch.no_grad():
    a = net(images[:4])
    b = net(images[:4])
print("eval deterministic", torch.equal(a, b), a.argmax(dim=1))
net.train()
torch.manual_seed(7)
c = net(images[:4])
print("train output", c, type(c.grad_fn).__name__)
d = F.dropout(torch.ones(2, 6), p=0.5, training=True)
print("dropout", d)
print("maxpool indices", F.max_pool2d(images[:1, :1, :4, :4], 2, return_indices=True))
nn.utils.clip_grad_value_(net.parameters(), clip_value=0.01)
print("clipped", net.fc2.bias.grad)


class STN(nn.Module):
    def __init__(self):
        super().__init__()
        self.loc = nn.Sequential(nn.Conv2d(3, 4, 5), nn.MaxPool2d(2), nn.ReLU(), nn.Flatten())
        self.fc_loc = nn.Sequential(nn.Linear(4 * 4 * 4, 8), nn.ReLU(), nn.Linear(8, 6))
        self.fc_loc[2].weight.data.zero_()
        self.fc_loc[2].bias.data.copy_(torch.tensor([1, 0, 0, 0, 1, 0], dtype=torch.float))

    def forward(self, x):
        theta = self.fc_loc(self.loc(x)).view(-1, 2, 3)
        grid = F.affine_grid(theta, x.size(), align_corners=False)
        return F.grid_sample(x, grid, align_corners=False), theta


torch.manual_seed(5)
stn = STN()
warped, theta = stn(images[:2])
print("identity warp", torch.allclose(warped, images[:2], atol=1e-5), warped.grad_fn.name())
opt = torch.optim.Adam(list(stn.parameters()) + list(net.parameters()), lr=1e-3)
net.train()
for step in range(3):
    warped, theta = stn(images[:10])
    loss = criterion(net(warped), labels[:10])
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(
        f"stn step {step} loss {loss.item():.4f} theta", [round(v, 5) for v in theta[0, 0].tolist()]
    )
print("fc_loc bias grad", stn.fc_loc[2].bias.grad)
