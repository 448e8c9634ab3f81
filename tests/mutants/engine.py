"""Mutants of the engine around the formulas: accumulation, freeing the graph, grad modes, hooks,
version counters and views, custom Functions."""

from __future__ import annotations

from myautograd import _grad_mode
from myautograd._autograd import engine, formulas, node, view_links
from myautograd._ops import formula_helpers as H
from myautograd._ops import inplace, pointwise
from myautograd._tensor import Tensor, make_tensor
from myautograd.autograd import function

from ._registry import formula, mutant, replace


# -- accumulation ------------------------------------------------------------------------------------------------
@mutant("accumulation", "backward overwrites a leaf's .grad instead of adding to it")
def grad_overwritten():
    def make(original):
        def broken(node_, grad, mode, owned):
            node_.variable._grad = None
            return original(node_, grad, mode, owned)
        return broken

    replace(engine, "accumulate", make)


@mutant("accumulation", "a gradient accumulated without create_graph still requires grad")
def grad_requires_grad():
    def make(original):
        def broken(node_, grad, mode, owned):
            original(node_, grad, mode, owned)
            if not mode.create_graph and node_.variable._grad is not None:
                node_.variable._grad._requires_grad = True
        return broken

    replace(engine, "accumulate", make)


@mutant("accumulation", "with create_graph, .grad is stored detached from the graph of the backward")
def create_graph_grad_detached():
    def make(original):
        def broken(node_, grad, mode, owned):
            original(node_, grad, mode, owned)
            if mode.create_graph and node_.variable._grad is not None:
                node_.variable._grad = node_.variable._grad.detach()
        return broken

    replace(engine, "accumulate", make)


# -- graph freeing ------------------------------------------------------------------------------------------------
@mutant("graph freeing", "nodes never free what they saved: a second backward silently succeeds")
def never_free():
    replace(formulas.FormulaNode, "release", lambda original: lambda self: None)


@mutant("graph freeing", "a saved Python-number operand is not freed with the graph (x * 1 backwards twice)")
def numbers_not_freed():
    def release(self):
        for value in (self._stash or {}).values():
            if value.__class__ is node.SavedTensor:
                value.free()

    replace(formulas.FormulaNode, "release", lambda original: release)


@mutant("graph freeing", "retain_graph=True ignored: the graph is freed anyway")
def retain_graph_ignored():
    def make(original):
        def broken(self, roots, *, keep_graph, create_graph, inputs, accumulate):
            original(self, roots, keep_graph=False, create_graph=create_graph, inputs=inputs, accumulate=accumulate)
        return broken

    replace(engine.GraphTask, "__init__", make)


# -- grad modes ---------------------------------------------------------------------------------------------------
@mutant("grad modes", "no_grad/enable_grad leave grad mode changed when an exception leaves the block")
def grad_mode_not_restored():
    def exit_(self, *exc):
        if exc[0] is None:
            _grad_mode.STATE.grad_enabled = self.prev

    replace(_grad_mode._GradModeBlock, "__exit__", lambda original: exit_)


@mutant("grad modes", "enable_grad inside no_grad does not enable recording")
def enable_grad_ignored():
    def enter(self):
        self.prev = _grad_mode.STATE.grad_enabled

    replace(_grad_mode.enable_grad, "__enter__", lambda original: enter)


@mutant("grad modes", "set_grad_enabled(False) called as a function has no effect (only as a context)")
def set_grad_enabled_call():
    def init(self, mode):
        if not isinstance(mode, bool):
            raise TypeError(f"set_grad_enabled(): argument 'enabled' (position 1) must be bool, not {type(mode).__name__}")
        self.prev = _grad_mode.STATE.grad_enabled
        self.mode = mode

    replace(_grad_mode.set_grad_enabled, "__init__", lambda original: init)


@mutant("grad modes", "a binary op records only when its first operand requires grad")
def second_operand_ignored():
    def make(original):
        def broken(node_, data, inputs, attrs=None, **kwargs):
            if (len(inputs) == 2 and isinstance(inputs[0], Tensor) and not inputs[0]._requires_grad
                    and isinstance(inputs[1], Tensor) and inputs[1]._requires_grad):
                return make_tensor(data)
            return original(node_, data, inputs, attrs, **kwargs)
        return broken

    replace(pointwise, "record", make)  # what binary ops (pointwise.binary_op) record with


# -- hooks ----------------------------------------------------------------------------------------------------------
@mutant("hooks", "tensor hooks run in the reverse order of registration")
def hooks_reversed():
    def make(original):
        def broken(hooks, grad, task):
            return original(dict(reversed(list(hooks.items()))), grad, task)
        return broken

    replace(engine, "_run_tensor_hooks", make)


@mutant("hooks", "a tensor hook's returned gradient is ignored")
def hook_result_ignored():
    def make(original):
        def broken(hooks, grad, task):
            value = task.mode.as_tensor(grad)
            for hook in list(hooks.values()):
                hook(value)
            return grad
        return broken

    replace(engine, "_run_tensor_hooks", make)


@mutant("hooks", "retain_grad() never fills .grad")
def retain_grad_dropped():
    replace(engine, "store_retained", lambda original: lambda tensor, grad, mode: None)


@mutant("hooks", "a node's pre-hooks are not called")
def node_prehooks_dropped():
    replace(engine, "_run_node_pre_hooks", lambda original: lambda hooks, grads, task: grads)


@mutant("hooks", "post-accumulate-grad hooks run before the gradient is added")
def post_accumulate_early():
    def make(original):
        def broken(node_, grad, mode, owned):
            meta = node_.variable._meta
            hooks = meta.post_accumulate_hooks if meta is not None else None
            if hooks:
                for hook in list(hooks.values()):
                    hook(node_.variable)
                meta.post_accumulate_hooks = None
                try:
                    return original(node_, grad, mode, owned)
                finally:
                    meta.post_accumulate_hooks = hooks
            return original(node_, grad, mode, owned)
        return broken

    replace(engine, "accumulate", make)


# -- versions and views -----------------------------------------------------------------------------------------------
@mutant("versions and views", "in-place ops do not bump the version counter")
def version_not_bumped():
    def make(original):
        def broken(self, values, node_name, inputs, attrs=None):
            out = original(self, values, node_name, inputs, attrs)
            self._vc[0] -= 1
            return out
        return broken

    replace(inplace, "apply_inplace", make)


@mutant("versions and views", "a view gets a version counter of its own instead of its base's")
def view_counter_not_shared():
    def make(original):
        def broken(view, base, creation=None):
            out = original(view, base, creation)
            out._vc = [out._vc[0]]
            return out
        return broken

    replace(view_links, "mark_view", make)


@mutant("versions and views", "detach() gives a tensor with a version counter of its own")
def detach_counter_not_shared():
    from myautograd._tensor import make_tensor

    replace(Tensor, "detach", lambda original: lambda self: make_tensor(self._data))


@mutant("versions and views", "an in-place op on a view leaves its base's history unchanged (no CopySlices)")
def view_inplace_base_unchanged():
    replace(inplace, "copy_slices", lambda original: lambda view, base, fn: None)


@mutant("versions and views", "a saved tensor modified in place is not detected")
def saved_version_unchecked():
    def check(self, owner):
        if self.data is None and self.packed is None:
            raise RuntimeError(node.FREED_MESSAGE)

    replace(node.SavedTensor, "check", lambda original: check)


@mutant("versions and views", "an in-place op on a leaf that requires grad is allowed")
def leaf_inplace_allowed():
    def make(original):
        def broken(self, recorded):
            if self._requires_grad and self._grad_fn is None and (self._meta is None or self._meta.base is None):
                return None
            return original(self, recorded)
        return broken

    replace(inplace, "check_inplace", make)


# -- custom Function ----------------------------------------------------------------------------------------------------
@mutant("custom Function", "ctx.needs_input_grad says True for every input")
def needs_input_grad_all():
    def make(original):
        def broken(ctx, args, outputs, executable):
            ctx.needs_input_grad = tuple(True for _ in ctx.needs_input_grad)
            return original(ctx, args, outputs, executable)
        return broken

    replace(function, "_wrap_outputs", make)


@mutant("custom Function", "mark_non_differentiable is ignored")
def non_differentiable_ignored():
    replace(function.FunctionCtx, "mark_non_differentiable", lambda original: lambda self, *tensors: None)


@mutant("custom Function", "gradients of unused outputs reach backward as None despite materialize_grads")
def grads_not_materialized():
    def make(original):
        def broken(self, grads, mode):
            self.materialize_grads = False
            return original(self, grads, mode)
        return broken

    replace(function.BackwardCFunction, "apply", make)


@mutant("custom Function", "saved_tensors of a custom Function skip the version check")
def function_saved_unchecked():
    def make(original):
        def saved_tensors(self):
            for saved in self._saved_tensors:
                if isinstance(saved, node.SavedTensor):
                    saved.version = saved.counter[0]  # as if nothing had changed it since it was saved
            return original.fget(self)
        return property(saved_tensors)

    replace(function.BackwardCFunction, "saved_tensors", make)


# -- the bookkeeping the issue found the catalog missing ----------------------------------------------------------------
@mutant("grad modes", "a new thread inherits its creator's grad mode (torch starts it with grad enabled)")
def grad_mode_inherited_by_threads():
    import threading

    def make(original):
        def start(self):
            inherited = _grad_mode.STATE.grad_enabled
            target = self.run

            def run():
                _grad_mode.STATE.grad_enabled = inherited
                target()

            self.run = run
            return original(self)
        return start

    replace(threading.Thread, "start", make)


@mutant("accumulation", "a multi-output node drops the gradient of its second output (var_mean's mean)")
def second_output_dropped():
    formula("VarMeanBackward0", "self", lambda grads, self, dim, correction, keepdim, F:
            H.var_mean_backward(F, grads[0], None, self, dim, correction, keepdim)
            if grads[0] is not None else F.zeros_like(self))


@mutant("graph freeing", "autograd.grad(create_graph=True) frees the graph (retain_graph not defaulted to True)")
def create_graph_frees():
    import myautograd.autograd as autograd

    def make(original):
        def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, **kwargs):
            if retain_graph is None:
                retain_graph = False
            return original(outputs, inputs, grad_outputs, retain_graph, create_graph, **kwargs)
        return grad

    replace(autograd, "grad", make)


@mutant("accumulation", "is_grads_batched uses the first row of grad_outputs for every row")
def batched_first_row():
    import myautograd.autograd as autograd

    def make(original):
        def batched(outputs, inputs, grads, retain_graph, create_graph, allow_unused):
            first = [g[0:1].expand(*g.shape) for g in grads]
            return original(outputs, inputs, first, retain_graph, create_graph, allow_unused)
        return batched

    replace(autograd, "_batched_grad", make)


@mutant("versions and views", "an in-place op saves the modified tensor where its formula needs the value before")
def inplace_saves_modified():
    replace(inplace, "_original", lambda original: lambda self: self)


@mutant("custom Function", "once_differentiable does nothing: a second derivative goes through the backward's ops")
def once_differentiable_ignored():
    import myautograd.autograd as autograd

    for owner in (function, autograd):
        replace(owner, "once_differentiable", lambda original: lambda fn: fn)
