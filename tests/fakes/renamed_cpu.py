"""A second device on a machine without one: torch's CPU under the PrivateUse1 name ``renamedcpu``.

``--impl tests.fakes.renamed_cpu@renamedcpu`` runs the catalog with the implementation on a device
of its own, as ``--impl torch@cuda`` does on a GPU, everywhere: in the forked child that runs a
case, torch's PrivateUse1 backend is renamed ``renamedcpu`` (so ``torch.device("renamedcpu")`` is a
device torch knows, ``renamedcpu:0``), a device module registers under that name (available, one
device), and while the child runs:

* every torch call asked for a ``renamedcpu`` device (``device=``, ``.to(...)``, a module's
  ``.to(...)``) gets the CPU instead (a ``TorchFunctionMode``), so its tensors are the CPU's;
* every tensor says it is on ``renamedcpu:0`` (``Tensor.device``) to the case, the recorder and
  torch's repr, while torch's own code reads the CPU, where the tensor is (so an optimizer or a
  decomposition works as on the CPU);
* ``torch.from_numpy``'s tensor says it is on the CPU, as on any device, and ``.to(...)`` the device
  copies it there;
* the results of the functions named in ``left_on_cpu`` (``install``) say they are on the CPU: the
  planted fault of ``tests/broken/exp_left_on_cpu.py``, one op whose result is left behind.

Threads the case starts, and a custom Function's backward, run under the same mode (torch leaves
a mode while it handles a call, and modes are per thread). Code of the case that runs inside
another torch call (a hook that makes a tensor with ``device=rec.device``) would reach the real
PrivateUse1 backend, which has no kernels: none of the catalog's does.

So the values, gradients and errors are the CPU's, as the reference's are, and only the device
the tensors name differs: what the judge must read as the reference's (``normalize.device_rules``).
Not a device backend: nothing here checks how torch dispatches to one. Importing this module
changes nothing in the importing process (``tests.broken._fault.exports``).
"""

import functools
import sys
import threading
import types

import torch as _torch

from tests.broken._fault import exports

DEVICE = "renamedcpu"
ON_THE_CPU = "_conformance_on_the_cpu"  # set on a tensor that says it is on the CPU
SHOWN_BY = ("torch._tensor_str",)  # torch's modules that show the device a tensor says it is on (its repr)


def install(torch, left_on_cpu=()):
    """Rename the PrivateUse1 backend, make the tensors say they are on it, and route calls for it
    to the CPU; the results of the functions and methods named in ``left_on_cpu`` say they are on
    the CPU (``"exp"``: ``torch.exp`` and ``Tensor.exp``)."""
    from torch.overrides import TorchFunctionMode

    torch.utils.rename_privateuse1_backend(DEVICE)
    torch._register_device_module(DEVICE, types.SimpleNamespace(  # what torch asks of a PrivateUse1 module
        is_available=lambda: True, device_count=lambda: 1, current_device=lambda: 0,
        _is_in_bad_fork=lambda: False, manual_seed_all=lambda seed: None))
    on_device = torch.device(DEVICE, 0)
    own_device = torch._C.TensorBase.device
    left_behind = {function for name in left_on_cpu
                   for function in (getattr(torch, name, None), getattr(torch.Tensor, name, None)) if function}

    def device(self):
        reader = sys._getframe(1).f_globals.get("__name__", "")
        if getattr(self, ON_THE_CPU, False) or reader.partition(".")[0] == "torch" and reader not in SHOWN_BY:
            with torch._C.DisableTorchFunction():  # else the mode below would ask this property again
                return own_device.__get__(self)  # torch's own code works with the CPU, where the tensor is
        return on_device

    torch.Tensor.device = property(device, doc=own_device.__doc__)

    def names_device(value):
        return (isinstance(value, torch.device) and value.type == DEVICE
                or isinstance(value, str) and value.partition(":")[0] == DEVICE)

    def on_cpu(value):
        return torch.device("cpu") if names_device(value) else value

    class OnTheCPU(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            if func is torch.device:  # the device itself stays what it is named
                return func(*args, **kwargs)
            moved = func is torch.Tensor.to and any(names_device(a) for a in (*args, *kwargs.values()))
            if moved and getattr(args[0], ON_THE_CPU, False):
                kwargs = {**kwargs, "copy": True}  # from the CPU to the device: a copy, as on a device
            out = func(*(on_cpu(a) for a in args), **{k: on_cpu(v) for k, v in kwargs.items()})
            if func in left_behind and isinstance(out, torch.Tensor):
                setattr(out, ON_THE_CPU, True)
            return out

    from_numpy = torch.from_numpy

    @functools.wraps(from_numpy)
    def from_numpy_on_the_cpu(array):  # as on every device: a tensor on the CPU, sharing NumPy's memory
        out = from_numpy(array)
        setattr(out, ON_THE_CPU, True)
        return out

    torch.from_numpy = from_numpy_on_the_cpu
    OnTheCPU().__enter__()  # for the rest of the child's life
    # torch leaves a mode while it handles a call, so code of the case that runs inside one (a custom
    # Function's backward, called by backward()) enters it again; so does every thread the case starts
    # (modes are per thread)
    torch.autograd.function.BackwardCFunction.apply = under(OnTheCPU, torch.autograd.function.BackwardCFunction.apply)
    threading.Thread.run = under(OnTheCPU, threading.Thread.run)


def under(mode, function):
    """``function``, run under a fresh instance of ``mode``."""

    @functools.wraps(function)
    def run(*args, **kwargs):
        with mode():
            return function(*args, **kwargs)

    return run


__conformance_module__, _, __getattr__ = exports(install=install)
__version__ = f"{_torch.__version__} (the CPU as {DEVICE})"
