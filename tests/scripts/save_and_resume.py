# ---
# title: Saving a checkpoint mid-training, loading it into fresh objects and resuming
# style: the "Saving and Loading Models" recipe: state_dict checkpoints, whole-model saves, resuming an optimizer
# drift: ^(epoch|resumed|uninterrupted)\s
# ---
"""Train a small regressor, checkpoint it, and check that resuming gives the uninterrupted run."""

import io
import os
import tempfile

import numpy as np
import torch
import torch.nn as nn


class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(3, 12), nn.ReLU(), nn.Linear(12, 1))
        self.register_buffer("calls", torch.zeros((), dtype=torch.int64))

    def forward(self, x):
        self.calls += 1
        return self.body(x).squeeze(-1)


def fresh_model():
    model = Regressor()
    rng = np.random.default_rng(5)
    with torch.no_grad():
        for param in model.parameters():
            param.copy_(torch.tensor(rng.uniform(-0.5, 0.5, tuple(param.shape))))
    return model


rng = np.random.default_rng(11)
x = torch.tensor(rng.standard_normal((48, 3)), dtype=torch.float32)
y = (x[:, 0] - 2 * x[:, 1] * x[:, 2]).detach()


def train(model, optimizer, epochs, label):
    for epoch in epochs:
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        if epoch % 5 == 4:
            print(f"{label} {epoch:2d}  loss {loss.item():.5f}")


model = fresh_model()
optimizer = torch.optim.Adam(model.parameters(), lr=0.02)
train(model, optimizer, range(10), "epoch")

folder = tempfile.mkdtemp()
path = os.path.join(folder, "checkpoint.pt")
torch.save({"epoch": 10, "model_state_dict": model.state_dict(), "optimizer_state_dict": optimizer.state_dict(),
            "note": "after ten epochs"}, path)
print("state dict keys:", list(model.state_dict()))
print("buffer calls:", model.state_dict()["calls"])

checkpoint = torch.load(path)
print("checkpoint:", sorted(checkpoint), checkpoint["epoch"], checkpoint["note"])
print("optimizer state:", sorted(checkpoint["optimizer_state_dict"]["state"][0]),
      checkpoint["optimizer_state_dict"]["param_groups"][0]["lr"])
resumed = fresh_model()
print(resumed.load_state_dict(checkpoint["model_state_dict"]))
resumed_optimizer = torch.optim.Adam(resumed.parameters(), lr=0.02)
resumed_optimizer.load_state_dict(checkpoint["optimizer_state_dict"])
resumed.train()
train(resumed, resumed_optimizer, range(10, 20), "resumed")
train(model, optimizer, range(10, 20), "uninterrupted")
same = all(torch.equal(a, b) for a, b in zip(model.state_dict().values(), resumed.state_dict().values()))
print("resumed run identical to the uninterrupted one:", same)

# a whole model (pickled with its class) needs weights_only=False; into memory this time
buffer = io.BytesIO()
torch.save(model, buffer)
buffer.seek(0)
try:
    torch.load(buffer)
except Exception as error:  # the default weights_only=True refuses arbitrary classes
    print(type(error).__name__, "names the class:", "GLOBAL __main__.Regressor" in str(error))
buffer.seek(0)
whole = torch.load(buffer, weights_only=False, map_location="cpu")
print(type(whole).__name__, whole.calls.item(), whole.training)
whole.eval()
with torch.no_grad():
    print("same predictions:", torch.equal(whole(x[:4]), model(x[:4])))

# strict and non-strict loading
partial = {k: v for k, v in checkpoint["model_state_dict"].items() if not k.startswith("body.2")}
print(fresh_model().load_state_dict(partial, strict=False))
try:
    fresh_model().load_state_dict(partial)
except RuntimeError as error:
    print("RuntimeError:", str(error).splitlines()[0])
os.remove(path)
os.rmdir(folder)
