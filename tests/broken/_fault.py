"""What the broken implementations share: lazy installation of the fault, and small helpers."""

import functools
import os
import sys

import torch

# Set to 1 in the environment of a process that runs a broken implementation without forking (a
# standalone replay script, ``conformance replay --script``): the fault is installed in the
# process that imported the module too.
STANDALONE = "BROKEN_STANDALONE"


def exports(install=None, on_access=None):
    """``(__conformance_module__, __version__, __getattr__)`` for a broken implementation module.

    ``install(torch)`` runs once per forked child, on its first attribute access; ``on_access()``
    runs on every attribute access in a forked child (with ``BROKEN_STANDALONE=1``, in the
    importing process as well). Dunder names are never forwarded (so ``__version__`` and friends
    do not reach torch by accident); every other name is torch's.
    """
    import_pid = os.getpid()
    state = {"installed": False}  # inherited by fork: a grandchild does not install twice

    def __getattr__(name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        if os.getpid() != import_pid or os.environ.get(STANDALONE) == "1":
            if not state["installed"]:
                state["installed"] = True
                if install is not None:
                    install(torch)
            if on_access is not None:
                on_access()
        return getattr(torch, name)

    return "torch", f"{torch.__version__} (broken)", __getattr__


def wrap_backward(torch, wrapper):
    """Replace ``Tensor.backward`` by ``wrapper(original, tensor, *args, **kwargs)``."""
    original = torch.Tensor.backward

    @functools.wraps(original)
    def backward(self, *args, **kwargs):
        return wrapper(original, self, *args, **kwargs)

    torch.Tensor.backward = backward


def graph_leaves(tensor):
    """The leaves that a backward from ``tensor`` accumulates into (AccumulateGrad variables)."""
    if tensor.grad_fn is None:
        return [tensor] if tensor.requires_grad else []
    leaves, seen, keep, stack = [], set(), [], [tensor.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        keep.append(node)  # keeps ids unique while walking
        variable = getattr(node, "variable", None)
        if variable is not None and all(variable is not leaf for leaf in leaves):
            leaves.append(variable)
        stack.extend(next_node for next_node, _ in node.next_functions)
    return leaves


def perturb_grads(torch, delta):
    def backward(original, self, *args, **kwargs):
        leaves = graph_leaves(self)
        result = original(self, *args, **kwargs)
        with torch.no_grad():
            for leaf in leaves:
                if leaf.grad is not None:
                    leaf.grad.add_(delta)
        return result

    wrap_backward(torch, backward)


def remove_tensor_attribute(torch, name):
    """Make ``Tensor.<name>`` read as missing: an AttributeError naming it, as for any other."""

    class Missing:
        def __get__(self, obj, owner=None):
            raise AttributeError(f"'{owner.__name__}' object has no attribute '{name}'", name=name, obj=obj)

    setattr(torch.Tensor, name, Missing())


def remove_autograd_grad(torch):
    """Make ``torch.autograd.grad`` read as missing (an engine with ``.backward()`` only)."""
    del torch.autograd.grad


def running_targeted_case():
    """Whether a scenario named in $BROKEN_CASES (case ids, comma-separated) is on the stack."""
    targets = {t.strip() for t in os.environ.get("BROKEN_CASES", "").split(",") if t.strip()}
    frame = sys._getframe(1)
    while frame is not None:
        module = frame.f_globals.get("__name__", "")
        if f"{module.rsplit('.', 1)[-1]}.{frame.f_code.co_name}" in targets:
            return True
        frame = frame.f_back
    return False


def sleep_forever():
    import time

    while True:
        time.sleep(60)


def die_by(signal_number):
    import faulthandler
    import resource
    import signal

    faulthandler.disable()  # no traceback on stderr, just the signal
    if signal_number == signal.SIGSEGV:
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # and no core file
    os.kill(os.getpid(), signal_number)
    sleep_forever()
