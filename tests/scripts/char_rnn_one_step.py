# ---
# title: A character-level RNN (GRUCell; nn.LSTM on length-1 sequences) trained and sampled one character at a time
# style: the "NLP From Scratch: Generating Names with a Character-Level RNN" tutorial and Karpathy's char-rnn / min-char-rnn
# ---
"""Learn a short text with teacher forcing, one step per character, then generate greedily from a prompt."""

import numpy as np
import torch
from torch import nn

text = "hello world. hello there. well done world. "
chars = sorted(set(text))
index = {c: i for i, c in enumerate(chars)}
data = torch.tensor([index[c] for c in text])
print("vocabulary", "".join(chars), "size", len(chars), "text length", len(text))

init = np.random.default_rng(31)


def fixed(module, scale=0.3):
    with torch.no_grad():
        for param in module.parameters():
            param.copy_(torch.from_numpy(init.normal(0, scale, tuple(param.shape)).astype(np.float32)))
    return module


class CharGRU(nn.Module):
    def __init__(self, vocab, hidden):
        super().__init__()
        self.hidden_size = hidden
        self.embed = nn.Embedding(vocab, 12)
        self.cell = nn.GRUCell(12, hidden)
        self.out = nn.Linear(hidden, vocab)

    def forward(self, char, hidden):
        hidden = self.cell(self.embed(char), hidden)
        return self.out(hidden), hidden

    def init_hidden(self):
        return torch.zeros(1, self.hidden_size)


class CharLSTM(nn.Module):
    def __init__(self, vocab, hidden):
        super().__init__()
        self.embed = nn.Embedding(vocab, 12)
        self.lstm = nn.LSTM(12, hidden, batch_first=True)
        self.out = nn.Linear(hidden, vocab)

    def forward(self, char, state):
        output, state = self.lstm(self.embed(char).unsqueeze(1), state)  # a sequence of length 1
        return self.out(output[:, -1]), state

    def init_hidden(self):
        return None


def train(model, epochs, lr):
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    loss_fn = nn.CrossEntropyLoss()
    for epoch in range(epochs):
        hidden = model.init_hidden()
        optimizer.zero_grad()
        loss = 0
        for position in range(len(data) - 1):
            logits, hidden = model(data[position:position + 1], hidden)
            loss = loss + loss_fn(logits, data[position + 1:position + 2])
        loss = loss / (len(data) - 1)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        optimizer.step()
        if epoch % 10 == 0 or epoch == epochs - 1:
            print(f"epoch {epoch:2d}  loss {loss.item():.4f}  grad_fn {type(loss.grad_fn).__name__}")


def generate(model, prompt, length):
    model.eval()
    with torch.no_grad():
        hidden = model.init_hidden()
        for c in prompt[:-1]:
            _, hidden = model(torch.tensor([index[c]]), hidden)
        result, char = prompt, torch.tensor([index[prompt[-1]]])
        for _ in range(length):
            logits, hidden = model(char, hidden)
            char = logits.argmax(dim=1)
            result += chars[char.item()]
    model.train()
    return result


gru = fixed(CharGRU(len(chars), 24))
print(gru)
train(gru, 30, 0.05)
print("GRUCell generates:", repr(generate(gru, "hel", 30)))

lstm = fixed(CharLSTM(len(chars), 24))
train(lstm, 30, 0.05)
print("LSTM generates:", repr(generate(lstm, "wel", 30)))
hidden, cell = lstm(torch.tensor([index["h"]]), None)[1]
print("state shapes", tuple(hidden.shape), tuple(cell.shape), "requires grad", hidden.requires_grad)
