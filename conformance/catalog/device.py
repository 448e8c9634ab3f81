"""Devices and autograd: ops that mix devices, gradients that cross devices, gradients on the
wrong device. These cases run on CUDA only (the other device is the CPU)."""

from .. import docs
from ..case import case

CUDA_ONLY = ("cuda",)
CUDA_SEMANTICS = docs.note("cuda-semantics", "CUDA semantics", page=f"{docs.DOCS_ROOT}/notes/cuda.html")


@case("An op on tensors of two devices raises, except with a 0-dim CPU tensor, which joins a CUDA op and gets "
      "its gradient on the CPU", doc=CUDA_SEMANTICS, devices=CUDA_ONLY, tags=("error",),
      features=("non-scalar", "cuda"))
def mixed_devices_in_one_op(torch, rec):
    a = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    b = torch.tensor([3.0, 4.0], device="cpu")
    with rec.attempt("a + cpu tensor"):
        a + b
    with rec.attempt("a * cpu tensor"):
        a * b
    s = torch.tensor(2.0, requires_grad=True, device="cpu")
    y = rec("a * 0-dim cpu tensor", a * s)
    y.sum().backward()
    rec("a.grad", a.grad)
    rec("s.grad", s.grad)


@case(".to('cpu') of a CUDA tensor is recorded (ToCopyBackward0) and its gradient returns to the CUDA leaf",
      doc=docs.docstring("torch.Tensor.to"), devices=CUDA_ONLY,
      features=("non-scalar", "cuda"))
def gradient_flows_back_across_devices(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    y = x.to("cpu")
    rec("y = x.to('cpu')", y)
    (y * y).sum().backward()
    rec("x.grad", x.grad)
    w = torch.tensor([1.0, 2.0], requires_grad=True, device="cpu")
    z = w.to(rec.device) * 3
    rec("z = w.to(device) * 3", z)
    z.sum().backward()
    rec("w.grad", w.grad)


@case("Assigning a .grad on another device than the tensor's raises", doc=docs.TENSOR_GRAD,
      devices=CUDA_ONLY, tags=("error",),
      features=("non-scalar", "cuda"))
def assign_grad_on_other_device_raises(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    x.grad = torch.zeros(2, device="cpu")


@case("A backward gradient on another device than the output's raises", doc=docs.TENSOR_BACKWARD,
      devices=CUDA_ONLY, tags=("error",),
      features=("non-scalar", "cuda"))
def backward_gradient_on_other_device_raises(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    y = x * 2
    y.backward(torch.ones(2, device="cpu"))


@case("A custom Function whose backward returns a gradient on the wrong device raises",
      doc=docs.EXTENDING_AUTOGRAD, devices=CUDA_ONLY, tags=("error",),
      features=("non-scalar", "custom-function", "cuda"))
def custom_backward_on_wrong_device_raises(torch, rec):
    class ToHost(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad.cpu() * 2

    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    ToHost.apply(x).sum().backward()
