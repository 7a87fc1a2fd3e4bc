"""What "What is torch.nn really?" does, on a synthetic data set: a model from raw tensors with
log_softmax and a hand-written NLL, then the same with nn.Module, optim, TensorDataset and
DataLoader, printing losses and accuracy."""

import math

from _prelude import import_torch

torch = import_torch()
F = torch.nn.functional

torch.manual_seed(42)
n, d, c = 64, 10, 3
x_train = torch.randn(n, d)
true_w = torch.randn(d, c)
y_train = (x_train @ true_w).argmax(dim=1)

weights = torch.randn(d, c) / math.sqrt(d)
weights.requires_grad_()
bias = torch.zeros(c, requires_grad=True)


def log_softmax(x):
    return x - x.exp().sum(-1).log().unsqueeze(-1)


def model(xb):
    return log_softmax(xb @ weights + bias)


def nll(inp, target):
    return -inp[range(target.shape[0]), target].mean()


def accuracy(out, yb):
    return (torch.argmax(out, dim=1) == yb).float().mean()


bs, lr = 16, 0.5
print("start", nll(model(x_train[:bs]), y_train[:bs]), accuracy(model(x_train[:bs]), y_train[:bs]))
for epoch in range(3):
    for i in range((n - 1) // bs + 1):
        xb, yb = x_train[i * bs : (i + 1) * bs], y_train[i * bs : (i + 1) * bs]
        loss = nll(model(xb), yb)
        loss.backward()
        with torch.no_grad():
            weights -= weights.grad * lr
            bias -= bias.grad * lr
            weights.grad.zero_()
            bias.grad.zero_()
    print("epoch", epoch, loss, F.cross_entropy(xb @ weights + bias, yb))


class Logistic(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(d, c)

    def forward(self, xb):
        return self.lin(xb)


torch.manual_seed(1)
net = Logistic()
print(net)
opt = torch.optim.SGD(net.parameters(), lr=lr, momentum=0.9)
ds = torch.utils.data.TensorDataset(x_train, y_train)
dl = torch.utils.data.DataLoader(ds, batch_size=bs, shuffle=True)
for epoch in range(3):
    net.train()
    for xb, yb in dl:
        loss = F.cross_entropy(net(xb), yb)
        loss.backward()
        opt.step()
        opt.zero_grad()
    net.eval()
    with torch.no_grad():
        valid = sum(F.cross_entropy(net(xb), yb) for xb, yb in dl) / len(dl)
    print(
        "module epoch",
        epoch,
        round(loss.item(), 4),
        round(float(valid), 4),
        accuracy(net(x_train), y_train),
    )
print([(k, tuple(v.shape)) for k, v in net.state_dict().items()])
