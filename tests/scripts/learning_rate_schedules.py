# ---
# title: Learning-rate schedules: step decay, cosine annealing, warm-up with LambdaLR, and reduce on plateau
# style: the torch.optim documentation's "How to adjust learning rate" section and course notebooks on schedules
# drift: ^epoch\s
# ---
"""One small problem, several schedules; the learning rate and loss printed as training goes."""

import math

import numpy as np
import torch
from torch import nn, optim
from torch.optim import lr_scheduler

rng = np.random.default_rng(3)
x = torch.tensor(rng.uniform(-1, 1, (64, 4)), dtype=torch.float32)
y = torch.tensor(np.sin(3 * x.numpy()).sum(1, keepdims=True))


def make_model():
    model = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 1))
    init = np.random.default_rng(9)
    with torch.no_grad():
        for param in model.parameters():
            param.copy_(torch.tensor(init.normal(0, 0.4, tuple(param.shape))))
    return model


def run(name, make_optimizer, make_scheduler, epochs=12, metric_step=False):
    model = make_model()
    optimizer = make_optimizer(model.parameters())
    scheduler = make_scheduler(optimizer)
    start = optimizer.param_groups[0]["lr"] if metric_step else scheduler.get_last_lr()
    print(f"-- {name}: {type(scheduler).__name__}, starting lr {start}")
    for epoch in range(epochs):
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        if metric_step:
            scheduler.step(loss.item() if epoch < 4 else 1.0)
        else:
            scheduler.step()
        lr = optimizer.param_groups[0]["lr"]
        print(f"epoch {epoch:2d}  loss {loss.item():.5f}  next lr {lr:.6g}")
    return scheduler


run("step decay", lambda p: optim.SGD(p, lr=0.2, momentum=0.5), lambda o: lr_scheduler.StepLR(o, step_size=4, gamma=0.5))
run("milestones", lambda p: optim.SGD(p, lr=0.2), lambda o: lr_scheduler.MultiStepLR(o, milestones=[3, 6, 6], gamma=0.5))
run("exponential", lambda p: optim.RMSprop(p, lr=0.01), lambda o: lr_scheduler.ExponentialLR(o, gamma=0.8))
cosine = run("cosine", lambda p: optim.Adam(p, lr=0.05), lambda o: lr_scheduler.CosineAnnealingLR(o, T_max=5, eta_min=0.001))
print("cosine state:", {k: v for k, v in cosine.state_dict().items() if not k.startswith("_")})
warmup = run("warm-up", lambda p: optim.Adagrad(p, lr=0.1),
             lambda o: lr_scheduler.LambdaLR(o, lambda e: min(1.0, (e + 1) / 4) * 0.5 * (1 + math.cos(math.pi * e / 12))))
plateau = run("plateau", lambda p: optim.SGD(p, lr=0.1), lambda o: lr_scheduler.ReduceLROnPlateau(o, patience=2, factor=0.5),
              metric_step=True)
print("plateau best:", round(plateau.best, 5), "bad epochs:", plateau.num_bad_epochs)
print(warmup.optimizer)
