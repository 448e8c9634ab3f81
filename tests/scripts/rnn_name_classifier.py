# ---
# title: Classifying names by language with a recurrent network, by hand and with nn.RNN / nn.GRU
# style: the "NLP From Scratch: Classifying Names with a Character-Level RNN" tutorial
# drift: ^(step|epoch|hand-made)\s|^(guess|output)\b
# ---
"""One-hot characters fed one at a time; the last hidden state decides the language."""

import string

import numpy as np
import torch
import torch.nn as nn

letters = string.ascii_lowercase + " '"
names = {
    "english": ["smith", "jones", "taylor", "brown", "wilson", "evans"],
    "italian": ["rossi", "russo", "ferrari", "esposito", "bianchi", "romano"],
    "japanese": ["sato", "suzuki", "takahashi", "tanaka", "watanabe", "ito"],
}
languages = list(names)


def line_to_tensor(line):
    """(length, 1, letters) one-hot encoding, as the tutorial builds it."""
    tensor = torch.zeros(len(line), 1, len(letters))
    for position, letter in enumerate(line):
        tensor[position][0][letters.index(letter)] = 1
    return tensor


print("'jones' as a tensor:", line_to_tensor("jones").shape, line_to_tensor("jones")[1].nonzero().tolist())


class HandRNN(nn.Module):
    """The tutorial's hand-written cell: a Linear on [input, hidden] for each of them."""

    def __init__(self, input_size, hidden_size, output_size):
        super().__init__()
        self.hidden_size = hidden_size
        self.i2h = nn.Linear(input_size + hidden_size, hidden_size)
        self.h2o = nn.Linear(hidden_size, output_size)
        self.softmax = nn.LogSoftmax(dim=1)

    def forward(self, input, hidden):
        hidden = torch.tanh(self.i2h(torch.cat((input, hidden), 1)))
        return self.softmax(self.h2o(hidden)), hidden

    def init_hidden(self):
        return torch.zeros(1, self.hidden_size)


def fixed_init(module, seed):
    rng = np.random.default_rng(seed)
    with torch.no_grad():
        for param in module.parameters():
            param.copy_(torch.tensor(rng.uniform(-0.3, 0.3, tuple(param.shape))))


hand = HandRNN(len(letters), 16, len(languages))
fixed_init(hand, 0)
print(hand)
criterion = nn.NLLLoss()
examples = [(lang, name) for lang in languages for name in names[lang]]
order = np.random.default_rng(1).permutation(len(examples)).tolist() * 4
for step, index in enumerate(order):
    language, name = examples[index]
    target = torch.tensor([languages.index(language)])
    hidden = hand.init_hidden()
    hand.zero_grad()
    for letter in line_to_tensor(name):
        output, hidden = hand(letter, hidden)
    loss = criterion(output, target)
    loss.backward()
    for p in hand.parameters():
        p.data.add_(p.grad.data, alpha=-0.05)
    if step % 18 == 0:
        print(f"hand-made step {step:2d}  loss {loss.item():.4f}  {name} -> {languages[output.argmax().item()]}")

# the same task with nn.RNN and nn.GRU over a padded batch
longest = max(len(n) for _, n in examples)
batch = torch.zeros(len(examples), longest, len(letters))
lengths = []
for row, (_, name) in enumerate(examples):
    batch[row, longest - len(name):] = line_to_tensor(name)[:, 0]  # left-padded with zeros
    lengths.append(len(name))
targets = torch.tensor([languages.index(lang) for lang, _ in examples])


class Classifier(nn.Module):
    def __init__(self, cell):
        super().__init__()
        self.rnn = cell(len(letters), 24, batch_first=True)
        self.head = nn.Linear(24, len(languages))

    def forward(self, x):
        output, h_n = self.rnn(x)
        return self.head(h_n[-1]), output


for cell in (nn.RNN, nn.GRU):
    model = Classifier(cell)
    fixed_init(model, 2)
    print(model.rnn, [name for name, _ in model.rnn.named_parameters()])
    optimizer = torch.optim.Adam(model.parameters(), lr=0.02)
    for epoch in range(30):
        optimizer.zero_grad()
        logits, output = model(batch)
        loss = nn.functional.cross_entropy(logits, targets)
        loss.backward()
        optimizer.step()
        if epoch % 10 == 0:
            print(f"epoch {epoch:2d}  loss {loss.item():.4f}  output {tuple(output.shape)}")
    with torch.no_grad():
        guesses = model(batch)[0].argmax(1)
    print("guess accuracy:", (guesses == targets).sum().item(), "/", len(targets))
    print("output grad_fn:", type(logits.grad_fn).__name__, "hidden:", model.rnn(batch[:2])[1].shape)
