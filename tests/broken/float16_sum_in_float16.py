"""Broken: ``Tensor.sum()`` of a whole float16 tensor accumulates in float16, one element after another
(torch's CPU kernel accumulates in float32 and rounds once): the value is off by the rounding of every
partial sum, the gradient is torch's. Only a sum of many terms judged by the reduced-precision rule tells."""

from ._fault import exports as _exports


def _install(torch):
    original = torch.Tensor.sum

    def sum(input, *args, **kwargs):
        out = original(input, *args, **kwargs)
        if input.dtype != torch.float16 or args or kwargs:
            return out
        partial = torch.zeros((), dtype=torch.float16, device=input.device)
        for element in input.detach().reshape(-1):
            partial = partial + element  # rounded to float16 at every step
        return out + (partial - out.detach())  # the value of the float16 accumulation, torch's gradient

    torch.sum = sum
    torch.Tensor.sum = sum


__conformance_module__, __version__, __getattr__ = _exports(install=_install)
