"""Broken: ``torch.sin`` of a bfloat16 tensor is computed in float32 and its values never rounded to
bfloat16: the result says bfloat16 (dtype and gradients are torch's; its node is the alias the fault makes) but
holds float32 values, close to torch's. Only the reduced-precision rule's check that a bfloat16 result
is made of bfloat16 values can tell."""

from ._fault import exports as _exports


def _install(torch):
    original = torch.Tensor.sin

    class Unrounded(torch.Tensor):
        """A bfloat16 result whose values read as the float32 computation's."""

        __torch_function__ = torch._C._disabled_torch_function_impl

        def tolist(self):
            return self.wide.tolist()

    def sin(input, *args, **kwargs):
        out = original(input, *args, **kwargs)
        if input.dtype != torch.bfloat16:
            return out
        unrounded = out.as_subclass(Unrounded)
        unrounded.wide = original(input.detach().float())
        return unrounded

    torch.sin = sin
    torch.Tensor.sin = sin


__conformance_module__, __version__, __getattr__ = _exports(install=_install)
