"""torch.sgn of a complex128 tensor: the same element gets a different last bit depending on the
length of the tensor it is in (its vectorized loop divides each part by |z|, the scalar loop that
finishes a tensor whose length is not a multiple of its block multiplies by 1 / |z|)."""
import torch

print(torch.__version__, torch.backends.cpu.get_cpu_capability())
torch.manual_seed(0)
z = torch.randn(16, dtype=torch.complex128)
whole = torch.sgn(z)            # 16 elements: the vectorized loop only
head = torch.sgn(z[:7].clone())  # 7 elements: the scalar loop
differ = (whole[:7] != head).nonzero().flatten().tolist()
print("elements of sgn(z[:7]) that differ from sgn(z)[:7]:", differ)
for i in differ:
    print(i, whole[i].item(), head[i].item())
# which is which: each part divided by |z|, or multiplied by 1 / |z|
m = z.abs()
parts = torch.complex(z.real / m, z.imag / m)
print("sgn(z) == parts / |z|:", bool((whole == parts).all()), "  sgn(z[:7]) == parts / |z|:", bool((head == parts[:7]).all()))
