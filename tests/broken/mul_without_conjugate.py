"""Broken: the backward of a multiplication of complex tensors leaves out the conjugate: the gradient of
``a`` is ``grad * b`` where torch's (the conjugate Wirtinger convention) is ``grad * conj(b)``. Real
multiplications are torch's own, so only the complex items of the operator table can tell."""

from ._fault import exports as _exports


def _install(torch):
    original = torch.Tensor.mul

    class MulWithoutConjugate(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return original(a, b)

        @staticmethod
        def backward(ctx, grad):
            a, b = ctx.saved_tensors
            return original(grad, b).sum_to_size(a.shape), original(grad, a).sum_to_size(b.shape)

    def mul(input, other, *args, **kwargs):
        tensors = isinstance(input, torch.Tensor) and isinstance(other, torch.Tensor)
        if tensors and not args and not kwargs and (input.is_complex() or other.is_complex()) \
                and input.dtype == other.dtype:
            return MulWithoutConjugate.apply(input, other)
        return original(input, other, *args, **kwargs)

    torch.mul = mul
    torch.Tensor.mul = mul
    torch.Tensor.__mul__ = mul


__conformance_module__, __version__, __getattr__ = _exports(install=_install)
