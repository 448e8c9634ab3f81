"""What a fuzzed program may use, from the implementation's profile (``[profile] lacks``).

A profile lists the features of ``features.FEATURES`` an implementation does not aim to
support; a catalog case that needs one is ``n/a``. The fuzzer honours the same list: every draw
of the generator that would use a feature asks the :class:`Gate` first, so that a program
never needs what the profile lacks, and a difference the campaign finds is one the profile does
not excuse.

``USES`` is the one table of what the generator draws and the features each draw needs; every
name in it is a feature of the vocabulary (checked when this module is imported). The operators
of the operator table carry their own features (``ops.TableOp.features``). Some uses follow
from the program as it grows rather than from one draw; the generator keeps them out through
what ``program.Program`` tracks:

* without ``retain-graph``, no backward or ``autograd.grad`` goes through a node an earlier one
  went through without ``retain_graph=True`` (torch raises there, an engine that clears its graph
  does something else);
* without ``version-counter``, no ``_version`` is recorded, no backward goes through a node that
  saved memory changed in place since (torch's saved-tensor version check), and nothing is
  written in place through a ``.data`` alias of memory a graph saved (torch does not check that
  write; an engine that protects saved memory otherwise, as MyGrad locks it, refuses it).

A profile that lacks the device the programs run on leaves nothing to draw (``refusal``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..features import check_names

# what the generator draws -> the features it needs
USES: dict[str, tuple[str, ...]] = {
    # kinds of steps (generator.KINDS and bookkeeping)
    "view": ("views",),
    "in_place": ("in-place",),
    "detach": ("detach",),
    "retain_grad": ("retain-grad",),
    "hook": ("hooks",),
    "mode": ("grad-mode",),
    "grad": ("autograd.grad",),
    "optimize": ("optim",),
    "function": ("custom-function",),
    "batched_grad": ("autograd.grad", "non-scalar"),     # rows of grad_outputs stacked into one tensor
    # a dual level around a part of the program: the dual tensors are views of their primals, tangents are
    # recorded as detached copies, a tangent of the wrong shape is drawn now and then, table operators inside
    "dual": ("forward-ad", "views", "detach", "non-scalar", "integer-dtypes"),
    # a torch.func transform of a pure function: results recorded detached, with table operators' arguments;
    # torch.func makes views of the inputs it wraps (seen by the feature detectors as the program's views)
    "transform": ("func-transforms", "views", "detach", "integer-dtypes"),
    # tensors
    "float64 programs": ("float64",),
    "shapes of other than one element": ("non-scalar",),
    "matrix products": ("non-scalar",),
    "operators of the table": ("non-scalar",),           # their results' shapes are not tracked
    "functional operators": ("nn",),                     # F = torch.nn.functional
    "recorded _version": ("version-counter",),
    # options and forms
    "retain_graph=True": ("retain-graph",),
    "create_graph=True": ("higher-order",),
    "backward(inputs=)": ("backward-inputs",),
    "inference mode": ("inference-mode",),
    "detach_()": ("detach", "in-place"),
    "zeroing .grad in place": ("in-place",),
    "post-accumulate-grad hooks": ("hooks", "in-place"),  # the hook scales .grad in place
    "rescaled gradients between optimizer steps": ("in-place",),
    "a saved input changed in place": ("in-place", "version-counter"),
    "differentiating a once_differentiable backward": ("autograd.grad", "higher-order"),
    "forward-over-reverse": ("forward-ad", "autograd.grad", "higher-order"),  # a gradient's tangent in a dual level
    # the transforms (transforms.TRANSFORMS): grad, grad_and_value and vjp; jvp; vmap and jacrev; jacfwd, vmap(jvp)
    "function transforms": ("func-transforms",),
    "forward-mode transforms": ("func-transforms", "forward-ad"),
    "vmap": ("func-transforms", "vmap", "non-scalar"),
    "forward-mode transforms over vmap": ("func-transforms", "forward-ad", "vmap", "non-scalar"),
    # the ending: the gradients of the newest results by autograd.grad, retaining the graph between
    # them; otherwise by one backward of their weighted sum, reading the leaves' .grad
    "gradients through autograd.grad": ("autograd.grad", "retain-graph"),
}
for _use, _features in USES.items():
    check_names(_features, f"conformance.fuzz.gate.USES[{_use!r}]")

DEVICE_FEATURES = {"cuda": ("cuda",)}


class UnknownUse(KeyError):
    """A draw that ``USES`` does not list."""


@dataclass(frozen=True)
class Gate:
    """The features a program may not use (a profile's ``lacks``)."""

    lacks: frozenset[str] = frozenset()

    @classmethod
    def of(cls, lacks: Iterable[str]) -> Gate:
        return cls(frozenset(check_names(lacks, "the profile")))

    def keeps(self, feature: str) -> bool:
        return feature not in self.lacks

    def allows(self, use: str) -> bool:
        """Whether the program may draw ``use`` (a key of ``USES``)."""
        if use not in USES:
            raise UnknownUse(use)
        return not self.lacks.intersection(USES[use])

    def kinds(self, kinds: Iterable[str]) -> tuple[str, ...]:
        """The kinds of steps left (a kind that ``USES`` does not list needs no feature)."""
        return tuple(kind for kind in kinds if kind not in USES or self.allows(kind))

    def dtypes(self) -> tuple[str, ...]:
        return ("float32", "float64") if self.allows("float64 programs") else ("float32",)

    def elementwise(self, ops: tuple) -> tuple:
        return tuple(op for op in ops if self.allows("functional operators") or not op.template.startswith("F."))

    def table(self, table: dict) -> dict:
        """The operator table's samples whose features are all kept (none when results' shapes must be
        tracked)."""
        if not self.allows("operators of the table"):
            return {}
        kept = {name: tuple(s for s in samples if not self.lacks.intersection(s.features))
                for name, samples in table.items()}
        return {name: samples for name, samples in kept.items() if samples}

    def refusal(self, device: str) -> str | None:
        """Why nothing is left to draw on ``device`` (every program runs there), or None."""
        lacking = [f for f in DEVICE_FEATURES.get(device, ()) if f in self.lacks]
        if lacking:
            return f"the profile lacks {lacking[0]!r}: no program can run on {device}, nothing is left to draw"
        return None
