# ---
# title: Autograd basics: requires_grad, the graph, backward with and without a gradient, detach and no_grad
# style: the "A Gentle Introduction to torch.autograd" and "Automatic Differentiation with torch.autograd" tutorials
# ---
"""Everything printed here is exact: small integers and values that round the same everywhere."""

import torch

# a one-layer network and its loss, as in the tutorial
x = torch.ones(5)
y = torch.zeros(3)
w = torch.tensor([[0.1, -0.2, 0.3], [0.0, 0.5, -0.5], [0.25, 0.25, 0.25], [-1.0, 1.0, 0.0], [0.2, 0.2, -0.4]],
                 requires_grad=True)
b = torch.tensor([0.5, -0.5, 0.0], requires_grad=True)
z = torch.matmul(x, w) + b
loss = torch.nn.functional.binary_cross_entropy_with_logits(z, y)
print("z:", z)
print(f"Gradient function for z = {z.grad_fn}".split(" object")[0])
print(f"Gradient function for loss = {loss.grad_fn}".split(" object")[0])
print("next functions of z:", [(type(f).__name__, i) for f, i in z.grad_fn.next_functions])
loss.backward()
print("w.grad:", w.grad)
print("b.grad:", b.grad)
print("is_leaf:", w.is_leaf, z.is_leaf, "z.grad:", z.grad)

# disabling tracking
print("requires_grad:", z.requires_grad)
with torch.no_grad():
    z = torch.matmul(x, w) + b
print("under no_grad:", z.requires_grad)
z_det = (torch.matmul(x, w) + b).detach()
print("after detach:", z_det.requires_grad, z_det.grad_fn)

# a vector-valued output needs a gradient argument (a vector-Jacobian product)
a = torch.tensor([2.0, 3.0], requires_grad=True)
q = 3 * a ** 3 - a ** 2
external_grad = torch.tensor([1.0, 1.0])
q.backward(gradient=external_grad)
print("dQ/da == 9a^2 - 2a:", a.grad == 9 * a ** 2 - 2 * a, a.grad)
try:
    (3 * a ** 3).backward()
except RuntimeError as error:
    print("RuntimeError:", error)

# gradients accumulate until zeroed, and graphs are freed unless retained
inp = torch.eye(4, 5, requires_grad=True)
out = (inp + 1).pow(2).t()
out.backward(torch.ones_like(out), retain_graph=True)
print("first call\n", inp.grad)
out.backward(torch.ones_like(out), retain_graph=True)
print("second call\n", inp.grad)
inp.grad.zero_()
out.backward(torch.ones_like(out))
print("call after zeroing\n", inp.grad)
try:
    out.backward(torch.ones_like(out))
except RuntimeError as error:
    print("RuntimeError:", str(error).split(".")[0])

# non-leaf gradients on request, hooks, and in-place checks
h = a * 2
h.retain_grad()
h.register_hook(lambda grad: print("hook sees", grad))
(h * h).sum().backward()
print("h.grad:", h.grad, "a.grad:", a.grad)
c = torch.tensor([1.0, 2.0], requires_grad=True)
d = c.sigmoid()
d.mul_(2)
try:
    d.sum().backward()
except RuntimeError as error:
    print("RuntimeError:", str(error).split(";")[0][:80])
print("version counters:", c._version, d._version)
print("the default dtype and device:", torch.get_default_dtype(), torch.get_default_device())
