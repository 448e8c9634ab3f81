# ---
# title: A small MLP trained with activation checkpointing: checkpoint per block, then checkpoint_sequential
# style: the "Activation checkpointing" tutorial and torch.utils.checkpoint's documentation examples
# drift: ^(step|grads|final)\s
# ---
"""Train a three-block MLP on a synthetic regression task three ways (plain, checkpoint per block
with both variants, checkpoint_sequential) from the same start, and check the gradients agree."""

import warnings

import numpy as np
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint, checkpoint_sequential

rng = np.random.default_rng(7)
inputs = torch.from_numpy(rng.standard_normal((32, 4)).astype(np.float32))
targets = torch.from_numpy(np.sin(inputs.numpy()).sum(axis=1, keepdims=True).astype(np.float32))
start = [rng.standard_normal(shape).astype(np.float32) * 0.5 for shape in ((16, 4), (16,), (16, 16), (16,), (1, 16), (1,))]


def make_model():
    model = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 1))
    with torch.no_grad():
        for param, value in zip(model.parameters(), start):
            param.copy_(torch.from_numpy(value))
    return model


def checkpointed_forward(model, x, use_reentrant):
    """Each Linear+Tanh block in a checkpoint of its own; the head runs plainly."""
    hidden = checkpoint(lambda value: model[1](model[0](value)), x, use_reentrant=use_reentrant)
    hidden = checkpoint(lambda value: model[3](model[2](value)), hidden, use_reentrant=use_reentrant)
    return model[4](hidden)


def train(label, forward, steps=40):
    model = make_model()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    for step in range(steps):
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(forward(model, inputs), targets)
        loss.backward()
        if step == 0:
            print(f"grads {label}: first layer {model[0].weight.grad.abs().sum().item():.5f}, "
                  f"head {model[4].weight.grad.abs().sum().item():.5f}")
        optimizer.step()
        if step % 20 == 0:
            print(f"step {step:2d} {label}: loss {loss.item():.5f}")
    print(f"final {label}: loss {loss.item():.5f}")
    return model


plain = train("plain", lambda model, x: model(x))
# reentrant: with no input that requires grad, the parameters inside would get no gradient (and a warning)
reentrant = train("reentrant", lambda model, x: checkpointed_forward(model, x.detach().requires_grad_(), True))
non_reentrant = train("non-reentrant", lambda model, x: checkpointed_forward(model, x, False))
sequential = train("sequential", lambda model, x: checkpoint_sequential(model, 2, x, use_reentrant=False))
for label, model in (("reentrant", reentrant), ("non-reentrant", non_reentrant), ("sequential", sequential)):
    same = all(torch.allclose(a, b, atol=1e-5) for a, b in zip(plain.parameters(), model.parameters()))
    print(f"{label} ends where the plain run ends:", same)

# the default of use_reentrant, and its warning
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    inputs.requires_grad_()
    out = checkpoint(make_model(), inputs)
print("default variant:", out.grad_fn.name(), "warned:", len(caught), caught[0].message.args[0][:60])

# the reentrant variant cannot serve torch.autograd.grad
try:
    torch.autograd.grad(out.sum(), inputs)
except RuntimeError as error:
    print("autograd.grad:", str(error)[:70])
(gradient,) = torch.autograd.grad(checkpoint(make_model(), inputs, use_reentrant=False).sum(), inputs)
print("non-reentrant autograd.grad:", tuple(gradient.shape), gradient.requires_grad)
