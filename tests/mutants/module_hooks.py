"""Mutants of nn.Module's backward hooks and of the rest of autograd.Function's API: a full backward hook
called with grad_input and grad_output swapped, a full backward hook's replacement grad_input dropped,
global module hooks never stored, a Function's ``vjp`` not taken as its backward, a Function defining
both ``backward`` and ``vjp`` let through. Killed by the ``module_hooks`` and ``function_api`` topics."""

from __future__ import annotations

from myautograd.autograd import function
from myautograd.nn.modules import _module_hooks
from myautograd.utils.hooks import RemovableHandle

from ._registry import mutant, replace


@mutant("hooks", "a module's full backward hook is called with grad_input and grad_output swapped")
def full_backward_hook_arguments_swapped():
    def make(original):
        def broken(self, module, hooks, pre_hooks):
            swapped = [lambda m, grad_input, grad_output, hook=hook: hook(m, grad_output, grad_input)
                       for hook in hooks]
            original(self, module, swapped, pre_hooks)
        return broken

    replace(_module_hooks.BackwardHook, "__init__", make)


@mutant("hooks", "what a module's full backward hook returns is dropped: the inputs get the original grad_input")
def full_backward_hook_result_dropped():
    def make(original):
        def broken(self, module, hooks, pre_hooks):
            kept = [lambda m, grad_input, grad_output, hook=hook: hook(m, grad_input, grad_output) and None
                    for hook in hooks]
            original(self, module, kept, pre_hooks)
        return broken

    replace(_module_hooks.BackwardHook, "__init__", make)


@mutant("hooks", "the global module hooks (register_module_*) are never stored, so never run")
def global_module_hooks_ignored():
    replace(_module_hooks, "_register_global",
            lambda original: lambda table, hook, *extras: RemovableHandle(table))


@mutant("custom Function", "a Function that defines vjp instead of backward runs the base class's backward")
def vjp_not_backward():
    replace(function.BackwardCFunction, "_user_backward", lambda original: lambda self: self._forward_cls.backward)


@mutant("custom Function", "a Function defining both backward and vjp runs vjp instead of raising")
def backward_and_vjp_both_allowed():
    def make(original):
        def broken(self):
            cls = self._forward_cls
            return cls.vjp if cls.vjp is not function.Function.vjp else cls.backward
        return broken

    replace(function.BackwardCFunction, "_user_backward", make)
