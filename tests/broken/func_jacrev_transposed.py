"""Broken: ``torch.func.jacrev`` returns each Jacobian transposed: the input's dimensions first, then the
output's (a 2 x 3 Jacobian comes back 3 x 2). A Jacobian of a scalar function (a gradient) has nothing to
transpose, and a symmetric one (a Hessian) reads the same either way; ``jacfwd`` and ``hessian`` are right."""

import functools

from ._fault import exports as _exports


def _transposed(jacobian, input_shape):
    outputs = jacobian.dim() - len(input_shape)
    return jacobian.permute(*range(outputs, jacobian.dim()), *range(outputs))


def _install(torch):
    original = torch.func.jacrev

    @functools.wraps(original)
    def jacrev(func, argnums=0, *, has_aux=False, **kwargs):
        inner = original(func, argnums, has_aux=has_aux, **kwargs)

        def wrapper(*args):
            result = inner(*args)
            jacobians, aux = result if has_aux else (result, None)
            if isinstance(argnums, tuple):  # one Jacobian per argument (functions of one tensor output)
                jacobians = tuple(_transposed(j, args[n].shape) for j, n in zip(jacobians, argnums))
            elif isinstance(jacobians, tuple):  # one Jacobian per output
                jacobians = tuple(_transposed(j, args[argnums].shape) for j in jacobians)
            else:
                jacobians = _transposed(jacobians, args[argnums].shape)
            return (jacobians, aux) if has_aux else jacobians

        return wrapper

    torch.func.jacrev = jacrev


__conformance_module__, __version__, __getattr__ = _exports(install=_install)
