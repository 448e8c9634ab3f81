"""Broken: torch under ``torch.compile`` with a backend that wraps AOTAutograd (as ``aot_eager``) and
multiplies by zero the first gradient every backward graph returns: a compiler bug that gives
silently wrong gradients. The adapter is the shipped one (``conformance.adapters.torch_compile``),
its hooks this module's; only the backend differs."""

from conformance.adapters.torch_compile import Compiled

from ._fault import exports as _exports


def zero_first_gradient(graph, example_inputs):
    from torch._dynamo.backends.common import aot_autograd
    from torch._functorch.aot_autograd import make_boxed_func

    def forward(module, inputs):
        return make_boxed_func(module.forward)

    def backward(module, inputs):
        def run(args):
            gradients = list(module(*args))
            first = next((i for i, g in enumerate(gradients) if g is not None), None)
            if first is not None:
                gradients[first] = gradients[first] * 0
            return gradients

        run._boxed_call = True
        return run

    return aot_autograd(fw_compiler=forward, bw_compiler=backward)(graph, example_inputs)


_compiled = Compiled(zero_first_gradient)
__conformance_run__ = _compiled.__conformance_run__
__conformance_warm_up__ = _compiled.__conformance_warm_up__
__conformance_module__, _, __getattr__ = _exports()
__version__ = _compiled.__version__
