"""One small case per attack that ``in_case.py`` makes while that case runs (registry ``ATTACKS``).

Every case is an ordinary scenario that torch passes; the attack is triggered by the case's name
on the implementation's first attribute access. ``plain`` has no attack: it must pass beside them.
"""

from conformance import docs
from conformance.case import Registry, case

ATTACKS = Registry()
PLAIN = dict(doc=docs.TENSOR_BACKWARD, devices=("cpu",), registry=ATTACKS)


def _square_sum(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True, device=rec.device)
    (x * x).sum().backward()
    rec("x.grad", x.grad)


@case("No attack: passes beside the others", **PLAIN)
def plain(torch, rec):
    _square_sum(torch, rec)


@case("Writes forged answers into every descriptor it has", **PLAIN)
def forge_everywhere(torch, rec):
    _square_sum(torch, rec)


@case("Writes forged answers and requests into the worker's descriptors, through /proc", **PLAIN)
def forge_to_worker(torch, rec):
    _square_sum(torch, rec)


@case("Closes every descriptor, then hangs", **PLAIN)
def close_fds_and_hang(torch, rec):
    _square_sum(torch, rec)


@case("Leaves a child behind that holds every inherited descriptor", **PLAIN)
def grandchild_holds_pipe(torch, rec):
    _square_sum(torch, rec)


@case("Leaves a descendant behind in a session of its own", **PLAIN)
def grandchild_escapes(torch, rec):
    _square_sum(torch, rec)


@case("Kills its own process group", **PLAIN)
def kill_group(torch, rec):
    _square_sum(torch, rec)


@case("Kills its parent (the worker)", **PLAIN)
def kill_parent(torch, rec):
    _square_sum(torch, rec)


@case("Prints 100 MB to stdout, to descriptor 1 and to descriptor 2", **PLAIN)
def print_flood(torch, rec):
    _square_sum(torch, rec)


@case("Raises with a 1 MB message full of escape sequences, carriage returns and NUL", **PLAIN)
def huge_message(torch, rec):
    _square_sum(torch, rec)


@case("Allocates 4 GB", **PLAIN)
def allocate_4gb(torch, rec):
    _square_sum(torch, rec)


@case("Raises an exception whose __str__ raises", **PLAIN)
def str_raises(torch, rec):
    _square_sum(torch, rec)


@case(".grad is a list nested 400 deep", **PLAIN)
def deep_grad(torch, rec):
    _square_sum(torch, rec)


@case("tolist() returns an integer of 5000 digits", **PLAIN)
def bigint_values(torch, rec):
    _square_sum(torch, rec)
