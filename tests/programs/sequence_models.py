"""A character-level sequence model as the RNN tutorials build one: RNN, LSTM and GRU layers
(batch_first, two layers, bidirectional), backpropagation through time over a sequence,
truncated BPTT with detached hidden state, an LSTMCell unrolled by hand, Embedding, and
learning-rate schedules, and a classifier over variable-length sequences (pad_sequence,
Embedding with padding_idx, pack_padded_sequence into an LSTM, pad_packed_sequence)."""

from _prelude import import_torch

torch = import_torch()
nn = torch.nn

torch.manual_seed(11)
vocab, hidden = 6, 8
seq = torch.randint(0, vocab, (3, 9))  # three sequences of nine tokens


class CharModel(nn.Module):
    def __init__(self, cell):
        super().__init__()
        self.embed = nn.Embedding(vocab, 5)
        self.rnn = cell(5, hidden, num_layers=2, batch_first=True)
        self.head = nn.Linear(hidden, vocab)

    def forward(self, x, state=None):
        out, state = self.rnn(self.embed(x), state)
        return self.head(out), state


for cell in (nn.RNN, nn.LSTM, nn.GRU):
    torch.manual_seed(0)
    model = CharModel(cell)
    print(model)
    print([(n, tuple(p.shape)) for n, p in model.rnn.named_parameters()])
    opt = torch.optim.Adam(model.parameters(), lr=0.02)
    sched = torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.9)
    for step in range(5):
        logits, state = model(seq[:, :-1])
        loss = nn.functional.cross_entropy(logits.reshape(-1, vocab), seq[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
    h = state[0] if isinstance(state, tuple) else state
    print(cell.__name__, f"loss {loss.item():.4f}", tuple(logits.shape), tuple(h.shape))
    print("grad_fn", logits.grad_fn.name(), h.grad_fn.name(), sched.get_last_lr())
    print("weight_hh_l1 grad norm", f"{model.rnn.weight_hh_l1.grad.norm():.4f}")

# truncated backpropagation through time: the hidden state is carried, its history cut
torch.manual_seed(5)
lstm = nn.LSTM(3, 4)
head = nn.Linear(4, 1)
opt = torch.optim.SGD(list(lstm.parameters()) + list(head.parameters()), lr=0.1)
sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=6)
series = torch.sin(torch.linspace(0, 6, 25)).reshape(-1, 1, 1).repeat(1, 2, 3)
state = None
for chunk in range(6):
    xs = series[chunk * 4 : chunk * 4 + 4]
    ys = series[chunk * 4 + 1 : chunk * 4 + 5, :, :1]
    if state is not None:
        state = tuple(s.detach() for s in state)
    out, state = lstm(xs, state)
    loss = nn.functional.mse_loss(head(out), ys)
    opt.zero_grad()
    loss.backward()
    opt.step()
    sched.step()
    print(f"chunk {chunk} loss {loss.item():.5f} lr {sched.get_last_lr()[0]:.5f}")
print("state", state[0], state[1].requires_grad, state[0].grad_fn.name())

# bidirectional GRU over a batch, and an LSTMCell unrolled by hand agreeing with nn.LSTM
torch.manual_seed(2)
gru = nn.GRU(input_size=3, hidden_size=2, bidirectional=True, batch_first=True)
out, h_n = gru(torch.randn(2, 5, 3))
print("bi-GRU", tuple(out.shape), tuple(h_n.shape), out[:, -1])
cell = nn.LSTMCell(3, 4)
one = nn.LSTM(3, 4)
with torch.no_grad():
    one.weight_ih_l0.copy_(cell.weight_ih)
    one.weight_hh_l0.copy_(cell.weight_hh)
    one.bias_ih_l0.copy_(cell.bias_ih)
    one.bias_hh_l0.copy_(cell.bias_hh)
x = torch.randn(4, 2, 3, requires_grad=True)
hx = cx = torch.zeros(2, 4)
outs = []
for t in range(4):
    hx, cx = cell(x[t], (hx, cx))
    outs.append(hx)
manual = torch.stack(outs)
print("cell == layer", torch.allclose(manual, one(x)[0], atol=1e-6), manual.grad_fn.name())
manual.sum().backward()
print("x.grad[0]", x.grad[0])
rnn_cell = nn.RNNCell(3, 2, nonlinearity="relu")
print(rnn_cell, rnn_cell(x[0].detach()))

# variable-length sequences: pad, pack (sorted by the layer), run, unpack
torch.manual_seed(9)
R = nn.utils.rnn
sentences = [torch.randint(1, 10, (n,)) for n in (4, 7, 2, 5)]
lengths = torch.tensor([len(t) for t in sentences])
padded = R.pad_sequence(sentences, batch_first=True, padding_value=0)
print("padded", padded, lengths)


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(10, 4, padding_idx=0)
        self.lstm = nn.LSTM(4, 6, batch_first=True, bidirectional=True)
        self.out = nn.Linear(12, 2)

    def forward(self, tokens, lens):
        packed = R.pack_padded_sequence(
            self.embed(tokens), lens, batch_first=True, enforce_sorted=False
        )
        out, (h, _c) = self.lstm(packed)
        unpacked, out_lens = R.pad_packed_sequence(out, batch_first=True)
        return self.out(torch.cat([h[0], h[1]], dim=1)), unpacked, out_lens


clf = Classifier()
opt = torch.optim.RMSprop(clf.parameters(), lr=0.01)
labels = torch.tensor([0, 1, 0, 1])
for step in range(4):
    logits, unpacked, out_lens = clf(padded, lengths)
    loss = nn.functional.cross_entropy(logits, labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.5f}")
print("unpacked", tuple(unpacked.shape), out_lens, unpacked[2, 2:].abs().sum().item())
print("padding row grad", clf.embed.weight.grad[0], logits.grad_fn.name())
packed = R.pack_sequence(sentences, enforce_sorted=False)
print(packed.batch_sizes, packed.sorted_indices, packed.unsorted_indices)
