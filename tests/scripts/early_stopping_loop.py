# ---
# title: A mini-batch training loop that stops as soon as the batch loss falls under a threshold
# style: the "Optimizing Model Parameters" tutorial's train_loop, with the early stop of d2l-style training loops
# ---
"""Regression with an MLP over mini-batches; the loop breaks at the first batch whose loss is under 0.05."""

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

rng = np.random.default_rng(7)
features = rng.uniform(-2, 2, (512, 8)).astype(np.float32)
weights = rng.normal(0, 1, (8, 1)).astype(np.float32)
targets = np.tanh(features @ weights) + 0.05 * rng.standard_normal((512, 1)).astype(np.float32)
dataset = TensorDataset(torch.from_numpy(features), torch.from_numpy(targets.astype(np.float32)))
loader = DataLoader(dataset, batch_size=32, shuffle=False)

model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 1))
init = np.random.default_rng(11)
with torch.no_grad():
    for param in model.parameters():
        param.copy_(torch.from_numpy(init.normal(0, 0.3, tuple(param.shape)).astype(np.float32)))

loss_fn = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
threshold = 0.05
stopped = None
for epoch in range(20):
    for batch, (inputs, labels) in enumerate(loader):
        prediction = model(inputs)
        loss = loss_fn(prediction, labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if batch % 8 == 0:
            print(f"epoch {epoch} batch {batch:2d}  loss {loss.item():>8f}")
        if loss.item() < threshold:
            stopped = (epoch, batch)
            break
    if stopped:
        break
print("stopped at epoch {} batch {} with loss {:.6f}".format(*stopped, loss.item()))

model.eval()
with torch.no_grad():
    full_loss = loss_fn(model(torch.from_numpy(features)), torch.from_numpy(targets.astype(np.float32)))
print(f"loss over the whole data set {full_loss.item():.6f}")
