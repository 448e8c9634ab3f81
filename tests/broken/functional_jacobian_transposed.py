"""Broken: ``torch.autograd.functional.jacobian`` returns every block transposed: d output / d input laid out as
``input.shape + output.shape`` (the rows of the input first), where torch lays it out ``output.shape +
input.shape``. A square block with a symmetric matrix (a diagonal one) reads the same; every other is wrong.
``hessian`` is the Jacobian of the gradient through the same module attribute: its blocks between two
different inputs come out transposed too."""

import functools

from ._fault import exports as _exports


def _transposed(block, wrt):
    output_shape = tuple(block.shape[:block.dim() - wrt.dim()])
    return block.reshape(-1, wrt.numel()).t().reshape(tuple(wrt.shape) + output_shape)


def _install(torch):
    functional = torch.autograd.functional
    original = functional.jacobian

    @functools.wraps(original)
    def jacobian(func, inputs, *args, **kwargs):
        result = original(func, inputs, *args, **kwargs)
        inputs_tuple = isinstance(inputs, tuple)
        wrt = inputs if inputs_tuple else (inputs,)

        def per_input(row):  # the blocks of one output: a tuple over the inputs, or one block
            if not inputs_tuple:
                return _transposed(row, wrt[0])
            return type(row)(_transposed(block, x) for block, x in zip(row, wrt))

        if isinstance(result, torch.Tensor):
            return _transposed(result, wrt[0])
        if inputs_tuple and all(isinstance(block, torch.Tensor) for block in result):
            return per_input(result)  # one output, a tuple of inputs
        return type(result)(per_input(row) for row in result)

    functional.jacobian = jacobian


__conformance_module__, __version__, __getattr__ = _exports(install=_install)
