"""The canary: torch with one deliberate fault per aspect, to prove that the judge sees every aspect.

``--impl canary`` runs the catalog on torch itself with the faults below planted in it. Each fault
is narrow (it changes one rarely used API, so the difference it plants shows up in a known
catalog case) and pure (only its own aspect differs there, so that case fails at exactly the
levels that count the aspect, see ``levels``, and passes below). ``tests/test_canary.py`` runs
the canary on those cases and requires every aspect of ``levels.ASPECTS`` to be caught where it
counts: a change that blinds the judge to an aspect fails CI.

=======================  =========================================================  =====================================
aspect                   fault                                                      the case that must catch it
=======================  =========================================================  =====================================
value                    ``isnan`` is also true for infinities                      ``op.isnan.default``
gradient                 the gradient through ``roll`` is doubled                   ``op.roll.default``
gradient (second order)  ``celu``'s first-order gradients, right in value for       ``op.celu.default``
                         finite inputs, depend on the input with a slope 0.5
                         greater than torch's: its second-order gradients are off
raised                   ``dot`` of two 2-D operands of one shape returns the sum   ``op.dot.default``
                         of their products instead of raising
warned                   ``autograd.detect_anomaly()`` does not warn that it is on  ``anomaly.detect_anomaly_warns``
dtype                    ``argmax`` returns int32 indices                           ``op.argmax.default``
shape                    ``nn.functional.one_hot`` flattens its leading dims        ``op.one_hot.default``
device                   ``logical_xor``'s result reports ``torch.device("cpu",     ``op.logical_xor.default``
                         0)``: ``cpu:0`` where torch says ``cpu``
flag                     ``full`` ignores ``requires_grad=True``                    ``op.full.default``
flag (version counter)   ``sigmoid_`` bumps ``_version`` twice                      ``inplace.elementwise_inplace_gradients``
identity                 ``detach_()`` returns a new tensor, not the tensor itself  ``detach.detach_inplace_on_nonleaf``
type                     ``unbind`` returns a list, not a tuple                     ``op.unbind.default``
exception-type           ``gather``'s errors are ``IndexError``, not                ``op.gather.default``
                         ``RuntimeError``
message                  ``take``'s error messages begin with ``take:``             ``op.take.default``
node-name                ``lerp``'s result is a copy: its node is                   ``op.lerp.default``
                         ``CloneBackward0``
warning-text             ``autograd.grad(only_inputs=False)`` warns with another    ``autograd_grad.only_inputs_deprecated``
                         text
printed                  float64 tensors print without ``dtype=torch.float64``      ``grad_fn.tensor_and_node_reprs``
=======================  =========================================================  =====================================

The same table is :data:`FAULTS`, which the test reads. A fault reaches other cases that use its
API too (a full catalog run on the canary fails more than these cases), but it is never
targeted: like any engine's bug, it is global, and the canary never looks at which case runs.
The faults are planted on the CPU and on CUDA alike.

The faults are installed by monkeypatching torch in the process that first reads a torch name
through :data:`namespace` (a forked child of the implementation's side worker, or the worker
itself in ``spawn`` isolation): importing this module changes nothing, and the reference side
never reads the canary's namespace, so torch stays intact there. Read no attribute of
``namespace`` in a process that also runs torch as the reference. ``__conformance_module__`` is
``torch``, so normalisation is neutral; the version says it is the canary.
"""

from __future__ import annotations

import functools
import types
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

REPORTED_DEVICE = "_canary_reported_device"  # where a tensor keeps the device it reports instead of its own


@dataclass(frozen=True)
class Fault:
    """One planted fault: its aspect (a key of ``levels.ASPECTS``), what it does, the catalog case that
    must catch it, a part of where the difference shows there (the step's label, then the field or
    the part of the step compared), and its installer."""

    aspect: str
    what: str
    case: str
    where: str
    install: Callable[[], None]


def _replace(targets: tuple[tuple[Any, str], ...], make: Callable[[Callable], Callable]) -> None:
    """Set each ``owner.name`` of ``targets`` to ``make(original)``, which keeps the original's name and
    signature (``__wrapped__``)."""
    for owner, name in targets:
        original = getattr(owner, name)
        setattr(owner, name, functools.wraps(original)(make(original)))


def _function_and_method(name: str) -> tuple[tuple[Any, str], ...]:
    return (torch, name), (torch.Tensor, name)


# -- the faults, one installer each ----------------------------------------------------------------------
def isnan_true_for_infinities() -> None:
    def make(original):
        def isnan(input, *args, **kwargs):
            return original(input, *args, **kwargs) | torch.isinf(input)
        return isnan

    _replace(_function_and_method("isnan"), make)


def roll_doubles_its_gradient() -> None:
    def make(original):
        def roll(input, *args, **kwargs):
            out = original(input, *args, **kwargs)
            if out.requires_grad:
                out.register_hook(lambda grad: grad * 2)
            return out
        return roll

    _replace(_function_and_method("roll"), make)


def celu_second_order_off() -> None:
    def make(original):
        def celu(input, *args, **kwargs):
            out = original(input, *args, **kwargs)
            if out.requires_grad and out is not input:
                # zero for finite inputs, but with create_graph=True it records a dependence on the
                # input: the second-order gradients gain 0.5 * celu'(input) * vector
                out.register_hook(lambda grad: grad + (input - input.detach()) * 0.5)
            return out
        return celu

    _replace(((torch.nn.functional, "celu"),), make)


def dot_of_matrices_does_not_raise() -> None:
    def make(original):
        def dot(*args, **kwargs):
            operands = args[:2]
            if len(operands) == 2 and all(isinstance(t, torch.Tensor) and t.dim() > 1 for t in operands) \
                    and operands[0].shape == operands[1].shape:
                return (operands[0] * operands[1]).sum()
            return original(*args, **kwargs)
        return dot

    _replace(_function_and_method("dot"), make)


def detect_anomaly_is_silent() -> None:
    original = torch.autograd.detect_anomaly

    class detect_anomaly(original):  # noqa: N801 - torch's name
        def __init__(self, *args, **kwargs):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                super().__init__(*args, **kwargs)

    detect_anomaly.__module__ = original.__module__
    detect_anomaly.__qualname__ = original.__qualname__
    torch.autograd.detect_anomaly = torch.autograd.anomaly_mode.detect_anomaly = detect_anomaly


def argmax_returns_int32() -> None:
    def make(original):
        def argmax(*args, **kwargs):
            return original(*args, **kwargs).to(torch.int32)
        return argmax

    _replace(_function_and_method("argmax"), make)


def one_hot_flattens_leading_dims() -> None:
    def make(original):
        def one_hot(*args, **kwargs):
            out = original(*args, **kwargs)
            return out.reshape(-1, out.shape[-1]) if out.dim() > 2 else out
        return one_hot

    _replace(((torch.nn.functional, "one_hot"),), make)


def logical_xor_reports_another_device() -> None:
    own_device = torch._C.TensorBase.device

    def device(self):
        reported = getattr(self, REPORTED_DEVICE, None)
        return own_device.__get__(self) if reported is None else reported

    torch.Tensor.device = property(device, doc=own_device.__doc__)

    def make(original):
        def logical_xor(*args, **kwargs):
            out = original(*args, **kwargs)
            setattr(out, REPORTED_DEVICE, torch.device("cpu", 0))
            return out
        return logical_xor

    _replace(_function_and_method("logical_xor"), make)


def full_ignores_requires_grad() -> None:
    def make(original):
        def full(*args, requires_grad=False, **kwargs):
            return original(*args, **kwargs)
        return full

    _replace(((torch, "full"),), make)


def sigmoid_bumps_version_twice() -> None:
    def make(original):
        def sigmoid_(self, *args, **kwargs):
            # the extra bump comes first, so that the output sigmoid_ saves is saved at the final version
            torch.autograd.graph.increment_version(self)
            return original(self, *args, **kwargs)
        return sigmoid_

    _replace(_function_and_method("sigmoid_"), make)


def detach_in_place_returns_a_new_tensor() -> None:
    def make(original):
        def detach_(self, *args, **kwargs):
            return original(self, *args, **kwargs).detach()
        return detach_

    _replace(_function_and_method("detach_"), make)


def unbind_returns_a_list() -> None:
    def make(original):
        def unbind(*args, **kwargs):
            return list(original(*args, **kwargs))
        return unbind

    _replace(_function_and_method("unbind"), make)


def gather_raises_index_error() -> None:
    def make(original):
        def gather(*args, **kwargs):
            try:
                return original(*args, **kwargs)
            except RuntimeError as exc:
                raise IndexError(str(exc)) from None
        return gather

    _replace(_function_and_method("gather"), make)


def take_messages_are_prefixed() -> None:
    def make(original):
        def take(*args, **kwargs):
            try:
                return original(*args, **kwargs)
            except (IndexError, RuntimeError) as exc:
                raise type(exc)(f"take: {exc}") from None
        return take

    _replace(_function_and_method("take"), make)


def lerp_result_is_a_copy() -> None:
    def make(original):
        def lerp(*args, **kwargs):
            return original(*args, **kwargs).clone()
        return lerp

    _replace(_function_and_method("lerp"), make)


def only_inputs_warns_another_text() -> None:
    def make(original):
        def grad(*args, **kwargs):
            if kwargs.get("only_inputs", True):
                return original(*args, **kwargs)
            warnings.warn("The only_inputs argument of autograd.grad is deprecated and has no effect.",
                          FutureWarning, stacklevel=2)
            return original(*args, **{**kwargs, "only_inputs": True})
        return grad

    _replace(((torch.autograd, "grad"),), make)


def float64_prints_without_dtype() -> None:
    def make(original):
        def __repr__(self, *args, **kwargs):
            return original(self, *args, **kwargs).replace(", dtype=torch.float64", "")
        return __repr__

    _replace(((torch.Tensor, "__repr__"),), make)


# fault name -> fault; the table of the module's docstring
FAULTS: dict[str, Fault] = {
    "value": Fault("value", "isnan is also true for infinities", "op.isnan.default",
                   "torch.isnan(a): values", isnan_true_for_infinities),
    "gradient": Fault("gradient", "the gradient through roll is doubled", "op.roll.default",
                      "1: gradients of x", roll_doubles_its_gradient),
    "second-order gradient": Fault(
        "gradient", "celu's first-order gradients depend on the input with slope 0.5 more than torch's",
        "op.celu.default", "second-order gradients of x", celu_second_order_off),
    "raised": Fault("raised", "dot of two 2-D operands of one shape returns the sum of their products",
                    "op.dot.default", "invalid 2: torch.dot(a, b): exception", dot_of_matrices_does_not_raise),
    "warned": Fault("warned", "autograd.detect_anomaly() does not warn that it is on", "anomaly.detect_anomaly_warns",
                    "is_anomaly_enabled() inside: warnings", detect_anomaly_is_silent),
    "dtype": Fault("dtype", "argmax returns int32 indices", "op.argmax.default", "x.argmax(): dtype", argmax_returns_int32),
    "shape": Fault("shape", "nn.functional.one_hot flattens the leading dims of its result", "op.one_hot.default",
                   "F.one_hot(idx, num_classes=5): shape", one_hot_flattens_leading_dims),
    "device": Fault("device", "the result of logical_xor reports torch.device('cpu', 0)", "op.logical_xor.default",
                    "torch.logical_xor(a, b): device", logical_xor_reports_another_device),
    "flag": Fault("flag", "full ignores requires_grad=True", "op.full.default",
                  "requires_grad=True): requires_grad", full_ignores_requires_grad),
    "version counter": Fault("flag", "sigmoid_ bumps _version twice", "inplace.elementwise_inplace_gradients",
                             "y after y.sigmoid_(): version", sigmoid_bumps_version_twice),
    "identity": Fault("identity", "detach_() returns a new tensor, not the tensor itself",
                      "detach.detach_inplace_on_nonleaf", "y.detach_() is y", detach_in_place_returns_a_new_tensor),
    "type": Fault("type", "unbind returns a list, not a tuple", "op.unbind.default", "x.unbind(): kind",
                  unbind_returns_a_list),
    "exception-type": Fault("exception-type", "gather's errors are IndexError, not RuntimeError", "op.gather.default",
                            "invalid 1: x.gather(1, idx): exception", gather_raises_index_error),
    "message": Fault("message", "take's error messages begin with 'take:'", "op.take.default",
                     "invalid 1: torch.take(x, idx): message", take_messages_are_prefixed),
    "node-name": Fault("node-name", "lerp's result is a copy: its node is CloneBackward0", "op.lerp.default",
                       "torch.lerp(a, b, 0.3): grad_fn", lerp_result_is_a_copy),
    "warning-text": Fault("warning-text", "autograd.grad(only_inputs=False) warns with another text",
                          "autograd_grad.only_inputs_deprecated", "grad(y, x, only_inputs=False): warnings",
                          only_inputs_warns_another_text),
    "printed": Fault("printed", "float64 tensors print without dtype=torch.float64", "grad_fn.tensor_and_node_reprs",
                     "repr(x.to(torch.float64))", float64_prints_without_dtype),
}


# -- the namespace -------------------------------------------------------------------------------------
class Canary(types.ModuleType):
    """torch's names; the first one read installs every fault in this process."""

    installed = False

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):  # never forwarded: __version__ and friends are ours
            raise AttributeError(name)
        if not Canary.installed:
            Canary.installed = True  # inherited by fork: a child of a process that installed does not install twice
            for fault in FAULTS.values():
                fault.install()
        return getattr(torch, name)


namespace = Canary("conformance.adapters.canary.namespace", "torch with one deliberate fault per aspect")
namespace.__conformance_module__ = "torch"
namespace.__version__ = f"{torch.__version__} (canary)"
