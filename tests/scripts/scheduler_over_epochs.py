# ---
# title: Epochs of training under OneCycleLR (per batch), warm-up then cosine, a chain, and ReduceLROnPlateau
# style: torch.optim's "How to adjust learning rate" and the "Training a Classifier" tutorial's loop
# ---
"""A small classifier on NumPy blobs; the learning rate of every epoch printed from param_groups and get_last_lr()."""

import numpy as np
import torch
from torch import nn
from torch.optim import lr_scheduler
from torch.utils.data import DataLoader, TensorDataset

rng = np.random.default_rng(17)
centers = rng.normal(0, 2.5, (3, 2))
labels_np = rng.integers(0, 3, 240)
points_np = (centers[labels_np] + rng.normal(0, 2.0, (240, 2))).astype(np.float32)
train = TensorDataset(torch.from_numpy(points_np[:192]), torch.from_numpy(labels_np[:192]))
val_x, val_y = torch.from_numpy(points_np[192:]), torch.from_numpy(labels_np[192:])


def make_model():
    model = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 3))
    init = np.random.default_rng(5)
    with torch.no_grad():
        for param in model.parameters():
            param.copy_(torch.from_numpy(init.normal(0, 0.5, tuple(param.shape)).astype(np.float32)))
    return model


def train_epochs(name, make_optimizer, make_scheduler, epochs=8, per_batch=False, on_validation=False):
    model = make_model()
    optimizer = make_optimizer(model.parameters())
    scheduler = make_scheduler(optimizer)
    loader = DataLoader(train, batch_size=32, shuffle=False)
    loss_fn = nn.CrossEntropyLoss()
    print(f"-- {name}: {type(scheduler).__name__}")
    for epoch in range(epochs):
        model.train()
        total = 0.0
        for inputs, targets in loader:
            optimizer.zero_grad()
            loss = loss_fn(model(inputs), targets)
            loss.backward()
            optimizer.step()
            total += loss.item()
            if per_batch:
                scheduler.step()
        model.eval()
        with torch.no_grad():
            val_loss = loss_fn(model(val_x), val_y).item()
            accuracy = (model(val_x).argmax(1) == val_y).float().mean().item()
        lr_used = optimizer.param_groups[0]["lr"]
        if on_validation:
            scheduler.step(val_loss)
        elif not per_batch:
            scheduler.step()
        last = [round(lr, 6) for lr in scheduler.get_last_lr()]
        print(f"epoch {epoch}  lr {lr_used:.6f}  train {total / len(loader):.4f}  val {val_loss:.4f}  "
              f"acc {accuracy:.3f}  next {last if not on_validation else last[0]}")
    return scheduler


one_cycle = train_epochs("one cycle", lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9),
                         lambda o: lr_scheduler.OneCycleLR(o, max_lr=0.3, epochs=8, steps_per_epoch=6), per_batch=True)
print("one cycle momentum now", round(one_cycle.optimizer.param_groups[0]["momentum"], 6), "step", one_cycle.last_epoch)

def warm_up_then_cosine(optimizer):
    warm_up = lr_scheduler.LinearLR(optimizer, start_factor=0.2, total_iters=3)
    cosine = lr_scheduler.CosineAnnealingLR(optimizer, T_max=5, eta_min=0.001)
    return lr_scheduler.SequentialLR(optimizer, [warm_up, cosine], milestones=[3])


warm_cosine = train_epochs("warm-up then cosine", lambda p: torch.optim.Adam(p, lr=0.05), warm_up_then_cosine)
print("sequential milestones", warm_cosine._milestones, "last_epoch", warm_cosine.last_epoch)

chain = train_epochs("chain", lambda p: torch.optim.SGD(p, lr=0.2),
                     lambda o: lr_scheduler.ChainedScheduler([lr_scheduler.ExponentialLR(o, gamma=0.9),
                                                              lr_scheduler.StepLR(o, step_size=3, gamma=0.5)]))

plateau = train_epochs("plateau", lambda p: torch.optim.SGD(p, lr=0.5),
                       lambda o: lr_scheduler.ReduceLROnPlateau(o, mode="min", factor=0.3, patience=1, threshold=0.01),
                       epochs=10, on_validation=True)
print("plateau best", round(plateau.best, 4), "bad epochs", plateau.num_bad_epochs, "cooldown", plateau.cooldown_counter)
print({k: v for k, v in plateau.state_dict().items() if k in ("factor", "patience", "threshold", "mode", "last_epoch")})
