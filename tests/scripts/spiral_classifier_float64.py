# ---
# title: A spiral classifier in double precision, on whatever accelerator is there, with torch.func for the input gradients
# style: the "Build the Neural Network" and "Optimizing Model Parameters" quickstart pages, and the CS231n spiral example
# drift: ^(epoch|saliency|penalty)\b
# ---
"""Three interleaved spirals; a small MLP built from a ModuleDict; float64 everywhere by default."""

import numpy as np
import torch
from torch import nn
from torch.func import grad, vjp

torch.set_default_dtype(torch.float64)
device = torch.accelerator.current_accelerator().type if torch.accelerator.is_available() else "cpu"
print(f"Using {device} device; mps available: {torch.backends.mps.is_available()};",
      f"default dtype {torch.get_default_dtype()}")

points_per_class, classes = 30, 3
rng = np.random.default_rng(12)
xs, ys = [], []
for label in range(classes):
    radius = np.linspace(0.05, 1, points_per_class)
    theta = np.linspace(label * 4, (label + 1) * 4, points_per_class) + 0.2 * rng.standard_normal(points_per_class)
    xs.append(np.c_[radius * np.sin(theta), radius * np.cos(theta)])
    ys += [label] * points_per_class
X = torch.tensor(np.concatenate(xs), device=device)
Y = torch.tensor(ys, device=device)
print("X:", X.dtype, tuple(X.shape), "Y:", Y.dtype, "python float tensor:", torch.tensor(0.5).dtype)


class SpiralNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleDict({"hidden": nn.Linear(2, 32), "out": nn.Linear(32, classes)})
        self.temperature = nn.ParameterList([nn.Parameter(torch.ones(1))])
        self.activation = nn.ReLU()

    def forward(self, x):
        return self.layers["out"](self.activation(self.layers["hidden"](x))) / self.temperature[0]


model = SpiralNet().to(device)
init = np.random.default_rng(3)
with torch.no_grad():
    for name, param in model.named_parameters():
        if "temperature" not in name:
            param.copy_(torch.tensor(init.normal(0, 0.5, tuple(param.shape))))
print(model)
print("parameter dtypes:", {p.dtype for p in model.parameters()}, "state:", list(model.state_dict()))

loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-3)
for epoch in range(300):
    logits = model(X)
    loss = loss_fn(logits, Y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if epoch % 60 == 0:
        accuracy = (logits.argmax(1) == Y).double().mean().item()
        print(f"epoch {epoch:3d}  loss {loss.item():.8f}  accuracy {accuracy:.4f}")

# how sensitive each class score is to the input: torch.func.grad over one point at a time

def score(point, label):
    return model(point.unsqueeze(0))[0, label]


saliency = torch.stack([grad(score)(X[i], Y[i].item()) for i in range(0, len(X), 15)])
print("saliency", saliency.abs().sum(1, keepdims=True).flatten())
_, pullback = vjp(lambda inputs: model(inputs), X[:2])
(input_grad,) = pullback(torch.ones(2, classes))
print("penalty", (input_grad.norm(dim=1) - 1).pow(2).mean().item(), input_grad.requires_grad)
print("summary:", {name: tuple(p.shape) for name, p in model.named_parameters()})
