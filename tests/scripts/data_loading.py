# ---
# title: Datasets and DataLoaders: a custom Dataset, batching, shuffling, splitting, collating dicts
# style: the "Datasets & DataLoaders" and "Writing Custom Datasets, DataLoaders and Transforms" tutorials
# drift: ^epoch\s
# ---
"""A synthetic two-class point cloud served by a custom Dataset, trained on with shuffled mini-batches."""

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset, TensorDataset, random_split


class Points(Dataset):
    """Two noisy rings of points; each sample is a dict, as many real datasets return."""

    def __init__(self, count, transform=None):
        rng = np.random.default_rng(7)
        angles = rng.uniform(0, 2 * np.pi, count)
        labels = np.arange(count) % 2
        radius = 1.0 + labels + 0.1 * rng.standard_normal(count)
        self.points = np.stack([radius * np.cos(angles), radius * np.sin(angles)], axis=1).astype(np.float32)
        self.labels = labels
        self.transform = transform

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, index):
        sample = {"point": self.points[index], "label": int(self.labels[index]), "index": index}
        if self.transform:
            sample = self.transform(sample)
        return sample


def to_tensor(sample):
    return {"point": torch.from_numpy(sample["point"]), "label": sample["label"], "index": sample["index"]}


dataset = Points(40, transform=to_tensor)
print("samples:", len(dataset), "first:", dataset[0])

torch.manual_seed(0)
train_set, test_set = random_split(dataset, [0.75, 0.25])
print("split:", len(train_set), len(test_set), "test indices:", sorted(test_set.indices))

loader = DataLoader(train_set, batch_size=8, shuffle=True)
print("batches per epoch:", len(loader))
batch = next(iter(loader))
print("batch keys:", list(batch), "point batch:", batch["point"].shape, batch["point"].dtype)
print("labels:", batch["label"], "indices:", batch["index"].tolist())

model = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 2))
with torch.no_grad():
    for layer, seed in ((model[0], 1), (model[2], 2)):
        layer_rng = np.random.default_rng(seed)
        layer.weight.copy_(torch.tensor(layer_rng.standard_normal(tuple(layer.weight.shape)) * 0.5))
        layer.bias.zero_()
optimizer = torch.optim.SGD(model.parameters(), lr=0.3, momentum=0.9)
loss_fn = nn.CrossEntropyLoss()

for epoch in range(12):
    total, seen = 0.0, 0
    for batch in loader:
        optimizer.zero_grad()
        loss = loss_fn(model(batch["point"]), batch["label"])
        loss.backward()
        optimizer.step()
        total += loss.item() * len(batch["label"])
        seen += len(batch["label"])
    if epoch % 3 == 0:
        print(f"epoch {epoch:2d}  mean loss {total / seen:.4f}")

with torch.no_grad():
    correct = sum((model(b["point"]).argmax(1) == b["label"]).sum().item() for b in DataLoader(test_set, batch_size=4))
print("test accuracy:", correct, "/", len(test_set))

# the usual tensor pairs, a drop_last loader and a seeded generator of its own
features = torch.arange(30, dtype=torch.float32).reshape(10, 3)
targets = torch.arange(10) % 3
pairs = TensorDataset(features, targets)
print("pair:", pairs[4])
generator = torch.Generator().manual_seed(123)
for xb, yb in DataLoader(pairs, batch_size=4, shuffle=True, drop_last=True, generator=generator):
    print("xb[:, 0]:", xb[:, 0].tolist(), "yb:", yb.tolist(), type(xb).__name__)
print("unbatched:", [item for item in DataLoader(range(4), batch_size=None)])
print("lists of numbers:", next(iter(DataLoader([[1, 2.5], [3, 4.5]], batch_size=2))))
print("after all the shuffling, the global generator gives:", torch.randint(0, 100, (3,)).tolist())
