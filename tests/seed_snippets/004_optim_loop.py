# From seed 004_7aa96bc17c364ae4.txt, code block 6 of 9 (section torch.optim) (lines 105-115): the torch.optim training loop (net, steps, input, criterion and target are defined nowhere in the document).
# Copied verbatim; run by tests/test_seed_snippets.py with torch and with myautograd as torch.
# ruff: noqa
import torch.optim as optim
# create your optimizer
optimizer = optim.SGD(net.parameters(), lr = 0.01)

# in your training loop:
for i in range(steps):
  optimizer.zero_grad() # zero the gradient buffers，必须要置零
  output = net(input)
  loss = criterion(output, target)
  loss.backward()
  optimizer.step() # Does the update
