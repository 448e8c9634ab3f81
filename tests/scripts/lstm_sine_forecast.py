# ---
# title: Forecasting a sine wave with a stacked LSTM, teacher-forced, then rolled out on its own predictions
# style: the classic "time sequence prediction" example and course notebooks on LSTMs for time series
# drift: ^(epoch|forecast|first)\b|^\s+[-\d[]
# ---
"""Learn to continue noisy sine waves one step at a time; then let the model feed itself."""

import numpy as np
import torch
from torch import nn

rng = np.random.default_rng(2)
steps, waves = 40, 8
phase = rng.uniform(0, 2 * np.pi, (waves, 1))
t = np.arange(steps + 1)[None, :] * 0.3
series = np.sin(t + phase) + 0.05 * rng.standard_normal((waves, steps + 1))
inputs = torch.tensor(series[:, :-1, None], dtype=torch.float32)   # (batch, time, 1)
targets = torch.tensor(series[:, 1:, None], dtype=torch.float32)
print("inputs:", inputs.shape, "targets:", targets.shape)


class Forecaster(nn.Module):
    def __init__(self, hidden=16):
        super().__init__()
        self.lstm = nn.LSTM(1, hidden, num_layers=2, batch_first=True)
        self.head = nn.Linear(hidden, 1)

    def forward(self, x, state=None):
        output, state = self.lstm(x, state)
        return self.head(output), state


model = Forecaster()
init = np.random.default_rng(4)
with torch.no_grad():
    for name, param in model.named_parameters():
        scale = 0.25 if "weight" in name else 0.1
        param.copy_(torch.tensor(init.uniform(-scale, scale, tuple(param.shape))))
print(model)
print("parameters:", [(name, tuple(p.shape)) for name, p in model.lstm.named_parameters()][:4])

optimizer = torch.optim.Adam(model.parameters(), lr=0.02)
for epoch in range(60):
    optimizer.zero_grad()
    prediction, (h_n, c_n) = model(inputs)
    loss = nn.functional.mse_loss(prediction, targets)
    loss.backward()
    norm = nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
    optimizer.step()
    if epoch % 15 == 0:
        print(f"epoch {epoch:2d}  loss {loss.item():.5f}  gradient norm {norm.item():.4f}  h_n {tuple(h_n.shape)}")

model.eval()
with torch.no_grad():
    _, state = model(inputs[:2, :30])
    value = inputs[:2, 30:31]
    rolled = []
    for _ in range(10):
        value, state = model(value, state)
        rolled.append(value)
    forecast = torch.cat(rolled, dim=1).squeeze(-1)
print("forecast", forecast)
print("first truth", targets[0, 30:40, 0])
print("state tensors require grad:", state[0].requires_grad, state[1].requires_grad)
