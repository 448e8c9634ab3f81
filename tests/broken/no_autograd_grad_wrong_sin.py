"""Broken twice: ``torch.autograd.grad`` does not exist (as in ``no_autograd_grad``), and the
gradient that ``.backward()`` brings through ``sin`` has the wrong sign (its values and its node,
``SinBackward0``, are torch's). The operator case of ``sin`` run through ``.backward()`` must fail."""

from ._fault import exports as _exports
from ._fault import remove_autograd_grad as _remove_autograd_grad


def _install(torch):
    _remove_autograd_grad(torch)
    function, method = torch.sin, torch.Tensor.sin

    def negated_gradient(out):
        if out.requires_grad:
            out.register_hook(lambda grad: -grad)
        return out

    torch.sin = lambda input, *args, **kwargs: negated_gradient(function(input, *args, **kwargs))
    torch.Tensor.sin = lambda self: negated_gradient(method(self))


__conformance_module__, __version__, __getattr__ = _exports(install=_install)
