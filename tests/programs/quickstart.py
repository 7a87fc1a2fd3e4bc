"""The quickstart's steps on synthetic images: a Flatten + Linear/ReLU stack, train and test
loops with DataLoader, saving and reloading the state_dict, predicting a class."""

import os
import tempfile

from _prelude import import_torch

torch = import_torch()
nn = torch.nn

torch.manual_seed(0)
images = torch.rand(96, 1, 8, 8)
labels = (images.mean(dim=(1, 2, 3)) * 10).long() % 4
train = torch.utils.data.TensorDataset(images[:64], labels[:64])
test = torch.utils.data.TensorDataset(images[64:], labels[64:])
train_dl = torch.utils.data.DataLoader(train, batch_size=16, shuffle=True)
test_dl = torch.utils.data.DataLoader(test, batch_size=16)


class NeuralNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.linear_relu_stack = nn.Sequential(
            nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 4)
        )

    def forward(self, x):
        return self.linear_relu_stack(self.flatten(x))


model = NeuralNetwork()
print(model)
loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)


def train_loop():
    model.train()
    for batch, (X, y) in enumerate(train_dl):
        loss = loss_fn(model(X), y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        if batch % 2 == 0:
            print(
                f"loss: {loss.item():>7f}  [{(batch + 1) * len(X):>5d}/{len(train_dl.dataset):>5d}]"
            )


def test_loop():
    model.eval()
    test_loss, correct = 0.0, 0
    with torch.no_grad():
        for X, y in test_dl:
            pred = model(X)
            test_loss += loss_fn(pred, y).item()
            correct += (pred.argmax(1) == y).type(torch.float).sum().item()
    print(
        f"Test Error: Accuracy: {100 * correct / len(test_dl.dataset):>0.1f}%, "
        f"Avg loss: {test_loss / len(test_dl):>8f}"
    )


for t in range(3):
    print(f"Epoch {t + 1}")
    train_loop()
    test_loop()

with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "model.pth")
    torch.save(model.state_dict(), path)
    model2 = NeuralNetwork()
    model2.load_state_dict(torch.load(path, weights_only=True))
model2.eval()
with torch.no_grad():
    print(
        "reloaded", torch.equal(model2(images[:4]), model(images[:4])), model2(images[:4]).argmax(1)
    )
