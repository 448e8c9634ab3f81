# ---
# title: A two-layer MLP trained with SGD whose module hooks log activations and gradient norms
# style: the "Forward and Backward Function Hooks" section of the nn.Module documentation, and the hook tutorials
# drift: ^(step|final|  )
# ---
"""Train a small MLP on a synthetic regression task; full backward hooks log each layer's gradient
norms, a backward pre-hook clips the output gradient, a forward hook records activation statistics,
and a global forward hook counts module calls. The hooks are removed half-way."""

import numpy as np
import torch
from torch import nn

rng = np.random.default_rng(7)
inputs = torch.tensor(rng.normal(size=(32, 4)), dtype=torch.float32)
targets = torch.tensor((inputs.numpy() @ np.array([[1.0], [-2.0], [0.5], [3.0]]) + 0.1).astype(np.float32))


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(4, 8)
        self.act = nn.Tanh()
        self.out = nn.Linear(8, 1)
        with torch.no_grad():
            self.hidden.weight.copy_(torch.tensor(rng.normal(scale=0.5, size=(8, 4)), dtype=torch.float32))
            self.hidden.bias.zero_()
            self.out.weight.copy_(torch.tensor(rng.normal(scale=0.5, size=(1, 8)), dtype=torch.float32))
            self.out.bias.zero_()

    def forward(self, x):
        return self.out(self.act(self.hidden(x)))


model = MLP()
grad_norms = {}
activations = {}
calls = {"modules": 0}


def log_grad_norms(name):
    def hook(module, grad_input, grad_output):
        grad_norms[name] = (
            None if grad_input[0] is None else round(grad_input[0].norm().item(), 4),
            round(grad_output[0].norm().item(), 4),
        )
    return hook


def clip_output_grad(module, grad_output):
    return (grad_output[0].clamp(-0.5, 0.5),)


def record_activation(module, args, output):
    activations["tanh"] = (round(output.mean().item(), 4), round(output.abs().max().item(), 4))


def count_calls(module, args, output):
    calls["modules"] += 1


handles = [
    model.hidden.register_full_backward_hook(log_grad_norms("hidden")),
    model.out.register_full_backward_hook(log_grad_norms("out")),
    model.out.register_full_backward_pre_hook(clip_output_grad),
    model.act.register_forward_hook(record_activation),
    torch.nn.modules.module.register_module_forward_hook(count_calls),
]
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
loss_fn = nn.MSELoss()

for step in range(40):
    optimizer.zero_grad()
    loss = loss_fn(model(inputs), targets)
    loss.backward()
    optimizer.step()
    if step % 5 == 0:
        print(f"step {step:2d} loss {loss.item():.4f} grads {grad_norms} activations {activations}")
    if step == 19:
        for handle in handles:
            handle.remove()
        print("hooks removed after", calls["modules"], "module calls; norms logged:", sorted(grad_norms))
        grad_norms.clear()

print("after removal nothing logged:", grad_norms == {}, "module calls:", calls["modules"])
print(f"final loss {loss_fn(model(inputs), targets).item():.4f}")
print("hidden weight row 0:", [round(v, 4) for v in model.hidden.weight[0].tolist()])

# A hook on a module whose input does not require grad fires at the output, with a warning.
probe = nn.Linear(4, 1)
seen = []
probe.register_full_backward_hook(lambda m, gi, go: seen.append((gi, tuple(go[0].shape))))
probe(inputs).sum().backward()
print("probe hook saw grad_input", seen[0][0], "and grad_output of shape", seen[0][1])
