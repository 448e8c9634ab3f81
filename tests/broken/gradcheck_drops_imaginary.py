"""Broken: ``torch.autograd.gradcheck`` drops the imaginary part of complex outputs (checks ``out.real`` only), as
myautograd's gradcheck did: a backward right for the real part of the output and wrong for its imaginary part (the
imaginary part of the incoming gradient dropped) passes, and a failure never says "While considering the imaginary
part of complex outputs only". Real outputs, ``gradgradcheck`` and everything else are torch's.
"""

import functools

from ._fault import exports as _exports


def _real_outputs_only(torch):
    original = torch.autograd.gradcheck

    @functools.wraps(original)
    def planted(func, inputs, **options):
        def real_parts(*args):
            outputs = func(*args)
            single = isinstance(outputs, torch.Tensor)
            parts = tuple(o.real if isinstance(o, torch.Tensor) and o.is_complex() else o
                          for o in ((outputs,) if single else outputs))
            return parts[0] if single else parts

        return original(real_parts, inputs, **options)

    return planted


def _install(torch):
    torch.autograd.gradcheck = _real_outputs_only(torch)


__conformance_module__, __version__, __getattr__ = _exports(install=_install)
