# ---
# title: Linear regression, first by hand with autograd, then with nn and optim
# style: the "Learning PyTorch with Examples" tutorial: raw tensors and autograd, then nn.Module and optim
# drift: ^(step|epoch)\s|^(w|fitted|final)\b
# ---
"""Fit y = 2x - 3 (plus noise) three ways and watch the loss fall."""

import numpy as np
import torch
import torch.nn as nn

rng = np.random.default_rng(0)
x_np = np.linspace(-2, 2, 64, dtype=np.float32).reshape(-1, 1)
y_np = (2 * x_np - 3 + 0.1 * rng.standard_normal(x_np.shape)).astype(np.float32)
x = torch.from_numpy(x_np)
y = torch.from_numpy(y_np)
print("data:", x.shape, y.shape, x.dtype)

# 1. by hand: parameters are leaf tensors, updates happen under no_grad
w = torch.tensor([[0.5]], requires_grad=True)
b = torch.zeros(1, requires_grad=True)
learning_rate = 0.1
for step in range(60):
    prediction = x @ w + b
    loss = ((prediction - y) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        w -= learning_rate * w.grad
        b -= learning_rate * b.grad
    w.grad.zero_()
    b.grad.zero_()
    if step % 15 == 0:
        print(f"step {step:2d}  loss {loss.item():.6f}  grad_fn {loss.grad_fn.name()}")
print("w", w.item(), "b", b.item())
print("leaf?", w.is_leaf, b.is_leaf, "requires grad:", w.requires_grad, "grad:", w.grad)

# 2. nn.Linear with the same start, and a hand-written SGD step over .parameters()
model = nn.Linear(1, 1)
with torch.no_grad():
    model.weight.fill_(0.5)
    model.bias.zero_()
loss_fn = nn.MSELoss()
for epoch in range(60):
    loss = loss_fn(model(x), y)
    model.zero_grad()
    loss.backward()
    with torch.no_grad():
        for param in model.parameters():
            param -= learning_rate * param.grad
    if epoch % 20 == 0:
        print(f"epoch {epoch:2d}  loss {loss.item():.6f}")
print("fitted", model.weight.data, model.bias.data)
print(model)

# 3. the same with optim.SGD and momentum, and a polynomial model
features = torch.cat([x, x ** 2, x ** 3], dim=1)
poly = nn.Sequential(nn.Linear(3, 1), nn.Flatten(0, 1))
with torch.no_grad():
    poly[0].weight.copy_(torch.tensor([[0.1, -0.2, 0.05]]))
    poly[0].bias.fill_(0.0)
optimizer = torch.optim.SGD(poly.parameters(), lr=0.02, momentum=0.9)
for epoch in range(100):
    optimizer.zero_grad()
    loss = loss_fn(poly(features), y.flatten())
    loss.backward()
    optimizer.step()
    if epoch % 25 == 0:
        print(f"epoch {epoch:3d}  loss {loss.item():.5f}")
weights = poly[0].weight.detach().flatten().tolist()
print("final cubic: y = {:.3f} + {:.3f} x + {:.3f} x^2 + {:.3f} x^3".format(poly[0].bias.item(), *weights))
print(optimizer)
