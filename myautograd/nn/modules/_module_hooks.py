"""nn.Module's backward hooks and the module-level global hooks.

A full backward hook (``hook(module, grad_input, grad_output)``) needs two moments of the backward
pass: when the gradients of the module's outputs arrive, and when those of its inputs are ready.
``BackwardHook`` gets both by passing the module's tensor inputs, and then its tensor outputs, through
``BackwardHookFunction``, an identity custom Function (its node is ``BackwardHookFunctionBackward``):
a hook on the outputs' node keeps ``grad_output`` (after the pre-hooks had their say), a hook on the
inputs' node calls the user's hooks with ``grad_input`` and passes on what they return. Where no input
requires grad, the hooks fire at the outputs' node with ``grad_input`` all None, with torch's warning.
The outputs are views an identity Function returned, so modifying them in place raises, as in torch.

The deprecated ``register_backward_hook`` hooks the grad_fn of the module's output instead: it sees that
node's gradients, not the module's.

The global hooks (``register_module_forward_pre_hook`` and the others) live in the dictionaries below;
every module runs them before its own. ``call_with_hooks`` is a module's call when any hook is set.
"""

from __future__ import annotations

import warnings
from collections import OrderedDict
from collections.abc import Callable

from ..._grad_mode import STATE
from ..._tensor import Tensor
from ...autograd.function import Function
from ...utils.hooks import RemovableHandle

NO_INPUT_GRAD_WARNING = (
    "Full backward hook is firing when gradients are computed with respect to module outputs since no inputs require "
    "gradients. See https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html#torch.nn.Module."
    "register_full_backward_hook for more details."
)
NO_INPUT_GRAD_RETURN_MESSAGE = ("Backward hook for Modules where no input requires gradient should always return None "
                                "or None for all gradients.")
MIXED_HOOKS_MESSAGE = ("Cannot use both regular backward hooks and full backward hooks on a single Module. Please use "
                       "only one of them.")

GLOBAL_FORWARD_PRE_HOOKS: OrderedDict = OrderedDict()
GLOBAL_FORWARD_HOOKS: OrderedDict = OrderedDict()
GLOBAL_FORWARD_HOOKS_ALWAYS_CALLED: OrderedDict = OrderedDict()
GLOBAL_FORWARD_HOOKS_WITH_KWARGS: OrderedDict = OrderedDict()
GLOBAL_BACKWARD_PRE_HOOKS: OrderedDict = OrderedDict()
GLOBAL_BACKWARD_HOOKS: OrderedDict = OrderedDict()
GLOBAL_HOOKS_ARE_FULL: list = [None]  # None until a global backward hook is registered


def any_global_hooks() -> bool:
    return bool(GLOBAL_FORWARD_PRE_HOOKS or GLOBAL_FORWARD_HOOKS or GLOBAL_BACKWARD_PRE_HOOKS or GLOBAL_BACKWARD_HOOKS)


def _register_global(table: OrderedDict, hook: Callable, *extras: OrderedDict) -> RemovableHandle:
    handle = RemovableHandle(table, extra_dict=extras or None)
    table[handle.id] = hook
    return handle


def register_module_forward_pre_hook(hook: Callable) -> RemovableHandle:
    return _register_global(GLOBAL_FORWARD_PRE_HOOKS, hook)


def register_module_forward_hook(hook: Callable, *, with_kwargs: bool = False,
                                 always_call: bool = False) -> RemovableHandle:
    handle = _register_global(GLOBAL_FORWARD_HOOKS, hook, GLOBAL_FORWARD_HOOKS_ALWAYS_CALLED,
                              GLOBAL_FORWARD_HOOKS_WITH_KWARGS)
    if with_kwargs:
        GLOBAL_FORWARD_HOOKS_WITH_KWARGS[handle.id] = True
    if always_call:
        GLOBAL_FORWARD_HOOKS_ALWAYS_CALLED[handle.id] = True
    return handle


def register_module_full_backward_pre_hook(hook: Callable) -> RemovableHandle:
    return _register_global(GLOBAL_BACKWARD_PRE_HOOKS, hook)


def _register_global_backward(hook: Callable, full: bool) -> RemovableHandle:
    if GLOBAL_HOOKS_ARE_FULL[0] is (not full):
        raise RuntimeError("Cannot use both regular backward hooks and full backward hooks as a global Module hook. "
                           "Please use only one of them.")
    GLOBAL_HOOKS_ARE_FULL[0] = full
    return _register_global(GLOBAL_BACKWARD_HOOKS, hook)


def register_module_full_backward_hook(hook: Callable) -> RemovableHandle:
    return _register_global_backward(hook, True)


def register_module_backward_hook(hook: Callable) -> RemovableHandle:
    return _register_global_backward(hook, False)


class BackwardHookFunction(Function):
    """The identity, as a custom Function: its node is where a module's backward hooks look."""

    @staticmethod
    def forward(ctx, *args):
        ctx.mark_non_differentiable(*[a for a in args if isinstance(a, Tensor) and not a.requires_grad])
        return args

    @staticmethod
    def backward(ctx, *grads):
        return grads


def _with_none(positions: list, values, size: int) -> tuple:
    """``values`` put at ``positions`` of a tuple of ``size`` Nones."""
    result = [None] * size
    for position, value in zip(positions, values):
        result[position] = value
    return tuple(result)


class BackwardHook:
    """One call's full backward hooks and pre-hooks (see the module docstring)."""

    def __init__(self, module, hooks: list, pre_hooks: list) -> None:
        self.module = module
        self.hooks = hooks
        self.pre_hooks = pre_hooks
        self.grad_outputs = None
        self.input_positions = None
        self.output_positions = None
        self.n_inputs = 0
        self.n_outputs = 0

    def _through_identity(self, values: tuple, on_node: Callable):
        """``values`` with their tensors passed through BackwardHookFunction, ``on_node`` given its node,
        and the tensors' positions (None where nothing requires grad or grad mode is off)."""
        positions = [i for i, v in enumerate(values) if isinstance(v, Tensor)]
        if not (STATE.grad_enabled and any(values[i].requires_grad for i in positions)):
            return values, None
        passed = BackwardHookFunction.apply(*[values[i] for i in positions])
        on_node(next(t.grad_fn for t in passed if t.grad_fn is not None))
        replaced = list(values)
        for position, tensor in zip(positions, passed):
            replaced[position] = tensor
        return tuple(replaced), positions

    def setup_input_hook(self, args: tuple) -> tuple:
        self.n_inputs = len(args)
        args, self.input_positions = self._through_identity(args, lambda node: node.register_hook(self._at_inputs))
        return args

    def setup_output_hook(self, result):
        single = not isinstance(result, tuple)
        outputs = (result,) if single else result
        self.n_outputs = len(outputs)
        outputs, self.output_positions = self._through_identity(
            outputs, lambda node: node.register_hook(self._at_outputs))
        return outputs[0] if single else outputs

    def _at_outputs(self, grad_inputs, grad_outputs):
        self.grad_outputs = _with_none(self.output_positions, grad_outputs, self.n_outputs)
        for pre_hook in self.pre_hooks:
            replaced = pre_hook(self.module, self.grad_outputs)
            if replaced is None:
                continue
            if len(replaced) != len(self.grad_outputs):
                raise RuntimeError(f"Backward pre hook returned an invalid number of grad_output, got {len(replaced)}, "
                                   f"but expected {len(self.grad_outputs)}")
            self.grad_outputs = replaced
        grad_outputs = self.grad_outputs
        if self.input_positions is None:
            warnings.warn(NO_INPUT_GRAD_WARNING, UserWarning, stacklevel=2)
            nothing = (None,) * self.n_inputs
            for hook in self.hooks:
                result = hook(self.module, nothing, self.grad_outputs)
                if result is not None and not (isinstance(result, tuple) and all(r is None for r in result)):
                    raise RuntimeError(NO_INPUT_GRAD_RETURN_MESSAGE)
            self.grad_outputs = None
        return tuple(grad_outputs[i] for i in self.output_positions)

    def _at_inputs(self, grad_inputs, grad_outputs):
        if self.grad_outputs is None:  # the gradient reached the inputs without passing through the outputs
            return None
        result = _with_none(self.input_positions, grad_inputs, self.n_inputs)
        for hook in self.hooks:
            replaced = hook(self.module, result, self.grad_outputs)
            if replaced is None:
                continue
            if len(replaced) != len(result):
                raise RuntimeError(f"Backward hook returned an invalid number of grad_input, got {len(replaced)}, but "
                                   f"expected {len(result)}")
            result = replaced
        self.grad_outputs = None
        return tuple(result[i] for i in self.input_positions)


DEPRECATED_HOOK_WARNINGS = {
    "output": "Using non-full backward hooks on a Module that does not return a single Tensor or a tuple of Tensors "
              "is deprecated and will be removed in future versions. This hook will be missing some of the "
              "grad_output. Please use register_full_backward_hook to get the documented behavior.",
    "input": "Using non-full backward hooks on a Module that does not take as input a single Tensor or a tuple of "
             "Tensors is deprecated and will be removed in future versions. This hook will be missing some of the "
             "grad_input. Please use register_full_backward_hook to get the documented behavior.",
    "nested": "Using a non-full backward hook when outputs are nested in python data structure is deprecated and will "
              "be removed in future versions. This hook will be missing some grad_output.",
    "several outputs": "Using a non-full backward hook when outputs are generated by different autograd Nodes is "
                       "deprecated and will be removed in future versions. This hook will be missing some grad_output. "
                       "Please use register_full_backward_hook to get the documented behavior.",
    "several nodes": "Using a non-full backward hook when the forward contains multiple autograd Nodes is deprecated "
                     "and will be removed in future versions. This hook will be missing some grad_input. Please use "
                     "register_full_backward_hook to get the documented behavior.",
}


def _deprecated_hook_shortfall(args: tuple, result, node) -> str | None:
    """Which part of the module's gradients a deprecated backward hook on ``node`` will miss, as torch
    tells it (a key of DEPRECATED_HOOK_WARNINGS), or None."""
    outputs = (result,) if isinstance(result, Tensor) else result
    if not (isinstance(outputs, tuple) and all(isinstance(r, Tensor) for r in outputs)):
        return "output"
    if not all(isinstance(a, Tensor) for a in args):
        return "input"
    output_nodes = {id(r.grad_fn) for r in outputs if r.grad_fn is not None}
    if not output_nodes or (len(output_nodes) == 1 and id(node) not in output_nodes):
        return "nested"
    if len(output_nodes) > 1:
        return "several outputs"
    input_nodes = {id(a.grad_fn) for a in args if a.grad_fn is not None}
    if input_nodes != {id(n) for n, _ in node.next_functions}:
        return "several nodes"
    return None


def hook_output_node(module, hooks: list, args: tuple, result) -> None:
    """The deprecated ``register_backward_hook``: each hook on the grad_fn of the module's first output
    tensor, with torch's warning of what it will miss."""
    first = result
    while not isinstance(first, Tensor):
        first = next(v for v in first.values() if isinstance(v, Tensor)) if isinstance(first, dict) else first[0]
    node = first.grad_fn
    if node is None:
        return
    for hook in hooks:
        node.register_hook(lambda grad_inputs, grad_outputs, hook=hook: hook(module, grad_inputs, grad_outputs))
    shortfall = _deprecated_hook_shortfall(args, result, node)
    if shortfall is not None:
        warnings.warn(DEPRECATED_HOOK_WARNINGS[shortfall], FutureWarning, stacklevel=3)


def call_with_hooks(module, args: tuple, kwargs: dict, called: set):
    """A module's call with its hooks and the global ones; ``called`` gathers the forward hooks that ran."""
    full_hooks, plain_hooks = module._backward_hooks_by_kind()
    pre_hooks = [*GLOBAL_BACKWARD_PRE_HOOKS.values(), *module._backward_pre_hooks.values()]
    for key, hook in (*GLOBAL_FORWARD_PRE_HOOKS.items(), *module._forward_pre_hooks.items()):
        if key in module._forward_pre_hooks_with_kwargs:
            result = hook(module, args, kwargs)
            if result is not None:
                if not (isinstance(result, tuple) and len(result) == 2):
                    raise RuntimeError("forward pre-hook must return None or a tuple of (new_args, new_kwargs), "
                                       f"but got {result}.")
                args, kwargs = result
        else:
            result = hook(module, args)
            if result is not None:
                args = result if isinstance(result, tuple) else (result,)
    backward_hook = None
    if full_hooks or pre_hooks:
        backward_hook = BackwardHook(module, full_hooks, pre_hooks)
        args = backward_hook.setup_input_hook(args)
    output = module.forward(*args, **kwargs)
    for key, hook in (*GLOBAL_FORWARD_HOOKS.items(), *module._forward_hooks.items()):
        called.add(key)
        if key in module._forward_hooks_with_kwargs or key in GLOBAL_FORWARD_HOOKS_WITH_KWARGS:
            result = hook(module, args, kwargs, output)
        else:
            result = hook(module, args, output)
        if result is not None:
            output = result
    if backward_hook is not None:
        if not isinstance(output, (Tensor, tuple)):
            warnings.warn("For backward hooks to be called, module output should be a Tensor or a tuple of "
                          f"Tensors but received {type(output)}", stacklevel=2)
        output = backward_hook.setup_output_hook(output)
    if plain_hooks:
        hook_output_node(module, plain_hooks, args, output)
    return output


def run_always_called_hooks(module, args: tuple, kwargs: dict, called: set) -> None:
    """After forward raised: the forward hooks registered with always_call=True that did not run yet,
    their own errors turned into warnings."""
    for key, hook in (*GLOBAL_FORWARD_HOOKS.items(), *module._forward_hooks.items()):
        always = key in module._forward_hooks_always_called or key in GLOBAL_FORWARD_HOOKS_ALWAYS_CALLED
        if not always or key in called:
            continue
        try:
            if key in module._forward_hooks_with_kwargs:
                hook(module, args, kwargs, None)
            else:
                hook(module, args, None)
        except Exception as error:
            where = "global module" if key in GLOBAL_FORWARD_HOOKS else "module"
            warnings.warn(f"{where} forward hook with ``always_call=True`` raised an exception that was silenced "
                          f"as another error was raised in forward: {error}", stacklevel=2)
