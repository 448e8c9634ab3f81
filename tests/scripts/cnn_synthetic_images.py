# ---
# title: A small convolutional network that tells horizontal, vertical and diagonal stripes apart
# style: the "Training a Classifier" (CIFAR-10) tutorial, on synthetic 12x12 images instead of downloads
# drift: ^(epoch|logits)\b|^\s+[-\d]
# ---
"""Draw noisy striped images, train a LeNet-like network on them, and report the accuracy."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

classes = ("horizontal", "vertical", "diagonal")
rng = np.random.default_rng(0)


def stripes(kind, size=12):
    image = np.zeros((size, size), dtype=np.float32)
    offset = rng.integers(0, 3)
    for i in range(size):
        for j in range(size):
            position = {0: i, 1: j, 2: i + j}[kind]
            image[i, j] = 1.0 if (position + offset) % 3 == 0 else 0.0
    return image + 0.9 * rng.standard_normal((size, size)).astype(np.float32)


labels = np.arange(90) % 3
images = np.stack([stripes(kind) for kind in labels])[:, None]  # (N, 1, 12, 12)
data = TensorDataset(torch.from_numpy(images), torch.from_numpy(labels))
print("images:", data.tensors[0].shape, "labels:", data.tensors[1][:6].tolist())


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 3, padding=1, bias=False)  # the batch norm after it has the bias
        self.bn1 = nn.BatchNorm2d(6)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 12, 3)
        self.gap = nn.AdaptiveAvgPool2d((2, 2))
        self.fc1 = nn.Linear(12 * 2 * 2, 24)
        self.fc2 = nn.Linear(24, len(classes))

    def forward(self, x):
        x = self.pool(F.relu(self.bn1(self.conv1(x))))
        x = self.gap(F.relu(self.conv2(x)))
        x = torch.flatten(x, 1)
        return self.fc2(F.relu(self.fc1(x)))


net = Net()
init = np.random.default_rng(1)
with torch.no_grad():
    for name, param in net.named_parameters():
        if name.startswith("bn"):
            continue
        fan_in = param[0].numel() if param.dim() > 1 else param.numel()
        param.copy_(torch.tensor(init.uniform(-1, 1, tuple(param.shape)) / np.sqrt(fan_in)))
print(net)
print("parameter shapes:", [(name, tuple(p.shape)) for name, p in net.named_parameters()])
print("buffers:", [name for name, _ in net.named_buffers()])

x = data.tensors[0][:2]
print("feature maps:", net.conv1(x).shape, net.pool(net.conv1(x)).shape, net.gap(net.conv2(net.pool(net.conv1(x)))).shape)

criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(net.parameters(), lr=0.003)
loader = DataLoader(data, batch_size=15, shuffle=False)
for epoch in range(8):
    running = 0.0
    for inputs, targets in loader:
        optimizer.zero_grad()
        loss = criterion(net(inputs), targets)
        loss.backward()
        optimizer.step()
        running += loss.item()
    if epoch % 2 == 0:
        print(f"epoch {epoch}  loss {running / len(loader):.4f}")

net.eval()
with torch.no_grad():
    logits = net(data.tensors[0])
    predicted = logits.argmax(1)
print("logits", logits[:2])
correct = (predicted == data.tensors[1]).sum().item()
print(f"accuracy on the training images: {correct}/{len(data)}")
for index, name in enumerate(classes):
    mask = data.tensors[1] == index
    print(f"  {name:10s}: {(predicted[mask] == index).sum().item()} of {mask.sum().item()}")
print("running mean of bn1:", net.bn1.running_mean.shape, net.bn1.num_batches_tracked)
