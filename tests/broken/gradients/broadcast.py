"""Planted: the gradient ``AddBackward0`` sends to a broadcast operand is the first copy along the
broadcast dimensions, not their sum (every other node sums them back as it should)."""

from ._planting import exports as _exports


def install():
    import numpy as np

    from myautograd._autograd import engine
    from tests.mutants._registry import replace

    def first_copy(grad, shape):
        lead = grad.ndim - len(shape)
        if lead:
            grad = grad[(0,) * lead]
        for axis, size in enumerate(shape):
            if size == 1 and grad.shape[axis] != 1:
                grad = np.take(grad, [0], axis=axis)
        return grad.reshape(shape)

    def make(original):
        def fit_shape(node, index, grad, shape, mode):
            if node.name() != "AddBackward0" or mode.create_graph:
                return original(node, index, grad, shape, mode)
            return first_copy(grad, tuple(shape))

        return fit_shape

    replace(engine, "_fit_shape", make)


__conformance_module__, __version__, __getattr__ = _exports(install)
