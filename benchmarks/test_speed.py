"""Speed of myautograd against torch: a long chain of tiny ops, and an MLP training step."""

from __future__ import annotations

import numpy as np
import pytest


def _chain(t):
    """1000 ops (mul, sin, add, tanh, repeated) on a 1-element tensor, then backward."""
    x = t.tensor([0.5], requires_grad=True)
    y = x
    for _ in range(250):
        y = y * 1.001
        y = y.sin()
        y = y + 0.5
        y = y.tanh()
    y.backward()
    return x.grad


@pytest.mark.benchmark(group="chain_1000_ops")
def test_chain_1000_ops(benchmark, library):
    name, t = library
    grad = benchmark(_chain, t)
    assert grad is not None


def _mlp(t, seed: int = 0):
    """784-256-256-10 with ReLU, batch 64, cross-entropy, SGD: the same weights on both sides."""
    rng = np.random.default_rng(seed)
    layers = [t.nn.Linear(784, 256), t.nn.ReLU(), t.nn.Linear(256, 256), t.nn.ReLU(), t.nn.Linear(256, 10)]
    model = t.nn.Sequential(*layers)
    with t.no_grad():
        for layer in layers[::2]:
            fan_in = layer.weight.shape[1]
            bound = 1.0 / np.sqrt(fan_in)
            layer.weight.copy_(t.tensor(rng.uniform(-bound, bound, tuple(layer.weight.shape)), dtype=t.float32))
            layer.bias.copy_(t.tensor(rng.uniform(-bound, bound, tuple(layer.bias.shape)), dtype=t.float32))
    inputs = t.tensor(rng.standard_normal((64, 784)), dtype=t.float32)
    targets = t.tensor(rng.integers(0, 10, 64))
    optimizer = t.optim.SGD(model.parameters(), lr=0.01)
    loss_fn = t.nn.CrossEntropyLoss()

    def step():
        optimizer.zero_grad()
        loss = loss_fn(model(inputs), targets)
        loss.backward()
        optimizer.step()
        return loss

    return step


@pytest.mark.benchmark(group="mlp_training_step")
def test_mlp_training_step(benchmark, library):
    name, t = library
    step = _mlp(t)
    loss = benchmark(step)
    assert np.isfinite(loss.item())
