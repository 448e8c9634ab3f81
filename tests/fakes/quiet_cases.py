"""A small registry for the verdict's own tests: a case that compares something and one that
records nothing (an error of the case, not a pass), both on the CPU."""

from conformance import docs
from conformance.case import Registry, case

QUIET_CASES = Registry()
ON_CPU = dict(devices=("cpu",), registry=QUIET_CASES)


@case("A product is recorded", doc=docs.TENSOR_BACKWARD, **ON_CPU)
def records_a_product(torch, rec):
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    rec("x * 2", x * 2)


@case("A scenario that records nothing", doc=docs.TENSOR_BACKWARD, **ON_CPU)
def records_nothing(torch, rec):
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (x * 2).sum().backward()
