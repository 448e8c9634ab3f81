# ---
# title: A small Transformer encoder language model (embedding, sinusoidal positions, causal mask) trained with Adam
# style: the "Language Modeling with nn.Transformer" tutorial (TransformerModel, PositionalEncoding, batchify)
# drift: ^(step|logits)\b
# ---
"""Predict the next token of sequences that count up by a fixed stride, with a causal Transformer encoder."""

import math

import numpy as np
import torch
from torch import nn


class PositionalEncoding(nn.Module):
    """The tutorial's fixed sinusoidal positions, added to (length, batch, d_model) inputs."""

    def __init__(self, d_model, dropout=0.0, max_len=64):
        super().__init__()
        self.dropout = nn.Dropout(p=dropout)
        position = torch.arange(max_len).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
        pe = torch.zeros(max_len, 1, d_model)
        pe[:, 0, 0::2] = torch.sin(position * div_term)
        pe[:, 0, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe)

    def forward(self, x):
        return self.dropout(x + self.pe[: x.size(0)])


class TransformerModel(nn.Module):
    def __init__(self, ntoken, d_model, nhead, d_hid, nlayers, dropout=0.0):
        super().__init__()
        self.model_type = "Transformer"
        self.pos_encoder = PositionalEncoding(d_model, dropout)
        encoder_layers = nn.TransformerEncoderLayer(d_model, nhead, d_hid, dropout)
        self.transformer_encoder = nn.TransformerEncoder(encoder_layers, nlayers)
        self.embedding = nn.Embedding(ntoken, d_model)
        self.d_model = d_model
        self.linear = nn.Linear(d_model, ntoken)

    def forward(self, src, src_mask=None):
        src = self.embedding(src) * math.sqrt(self.d_model)
        src = self.pos_encoder(src)
        output = self.transformer_encoder(src, src_mask)
        return self.linear(output)


# data: rows that count up by a stride (mod the vocabulary), laid out (length, batch) as the tutorial's batchify
ntokens, length, batch = 11, 8, 6
rng = np.random.default_rng(7)
starts = rng.integers(0, ntokens, batch)
strides = rng.integers(1, 3, batch)
rows = (starts[:, None] + strides[:, None] * np.arange(length + 1)[None, :]) % ntokens
data = torch.tensor(rows[:, :-1].T)      # (length, batch)
targets = torch.tensor(rows[:, 1:].T)
print("data", tuple(data.shape), data.dtype, "first column", data[:, 0].tolist())

torch.manual_seed(0)
model = TransformerModel(ntokens, d_model=8, nhead=2, d_hid=16, nlayers=2)
init = np.random.default_rng(3)
with torch.no_grad():
    for name, param in model.named_parameters():
        if name.endswith("bias"):
            param.copy_(torch.tensor(init.uniform(-0.05, 0.05, tuple(param.shape))))
        elif "norm" not in name:
            param.copy_(torch.tensor(init.uniform(-0.3, 0.3, tuple(param.shape))))
print(model.transformer_encoder.layers[0])
print("parameters:", sum(p.numel() for p in model.parameters()))
print("state_dict keys:", list(model.state_dict())[:8])

src_mask = nn.Transformer.generate_square_subsequent_mask(length)
print("mask", src_mask[:3, :4])

criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
model.train()
for step in range(12):
    optimizer.zero_grad()
    output = model(data, src_mask)
    loss = criterion(output.view(-1, ntokens), targets.reshape(-1))
    loss.backward()
    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
    optimizer.step()
    if step % 3 == 0 or step == 11:
        print(f"step {step:2d}  loss {loss.item():.5f}  ppl {math.exp(loss.item()):8.4f}  grad norm {norm.item():.4f}")

print("output", tuple(output.shape), output.grad_fn.name())
attention = model.transformer_encoder.layers[0].self_attn
print("attention in_proj", tuple(attention.in_proj_weight.shape), "grad", attention.in_proj_weight.grad is not None)

model.eval()
with torch.no_grad():
    logits = model(data[:, :2], src_mask)
print("logits", logits[-1, 0, :4])
print("predicted", logits.argmax(-1)[:, 0].tolist(), "truth", targets[:, 0].tolist())
