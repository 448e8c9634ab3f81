"""The mutant registry and the patching helpers every mutant is written with.

A mutant is a function, registered with ``@mutant(area, bug)``, that patches one piece of
myautograd in the process that calls it: a derivative formula of the table (``formula``), a
function or method (``replace``, ``op``), or a class attribute. Nothing in the source tree is
edited; the patch lives as long as the process.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

AREAS = ("formulas", "reductions and broadcasting", "accumulation", "graph freeing", "grad modes",
         "versions and views", "hooks", "custom Function", "optimizers", "precision", "losses and layers",
         "function transforms", "forward mode", "complex numbers", "type promotion", "checkpointing",
         "printing", "invalid calls", "indexing")


@dataclass(frozen=True)
class Mutant:
    name: str
    area: str
    bug: str
    apply: Callable[[], None]


MUTANTS: dict[str, Mutant] = {}
_APPLIED: set[str] = set()


def mutant(area: str, bug: str):
    """Register the decorated function, named for the mutant, as the patch of one bug."""
    if area not in AREAS:
        raise ValueError(f"unknown area {area!r}")

    def register(fn: Callable[[], None]) -> Callable[[], None]:
        if fn.__name__ in MUTANTS:
            raise ValueError(f"mutant {fn.__name__} defined twice")
        MUTANTS[fn.__name__] = Mutant(fn.__name__, area, bug, fn)
        return fn

    return register


def apply(name: str) -> None:
    """Patch myautograd with the mutant ``name`` (once per process)."""
    if name in _APPLIED:
        return
    import myautograd  # noqa: F401 - everything is imported before anything is patched

    MUTANTS[name].apply()
    _APPLIED.add(name)


# -- patching helpers -------------------------------------------------------------------------------------------
def formula(node_name: str, input_name: str, fn: Callable, holomorphic: bool = True) -> None:
    """Replace the derivative formula of ``input_name`` in the table entry ``node_name``; ``fn`` reads
    what the entry's forward saves, by name, as the table's formulas do (``holomorphic``: as the
    table's ``derivative`` takes it, whether a backward conjugates what ``fn`` reads)."""
    from myautograd._autograd import fast
    from myautograd._autograd.formulas import NODES, Formula

    cls = NODES[node_name]
    formulas = list(cls._formulas)
    formulas[cls._inputs.index(input_name)] = Formula(fn, holomorphic)
    cls._formulas = tuple(formulas)
    for key in [key for key in fast._PLANS if key[0] is cls]:
        del fast._PLANS[key]
    if fast.ENABLED:
        fast.specialise(cls)


def replace(owner, name: str, make: Callable[[Callable], Callable]) -> None:
    """``owner.name = make(original)``: a module function, a class method or attribute."""
    original = getattr(owner, name)
    setattr(owner, name, make(original))


def op(name: str, make: Callable[[Callable], Callable], method: bool = True) -> None:
    """Replace the op ``name`` where user code reaches it: ``myautograd.<name>`` and ``Tensor.<name>``."""
    import myautograd
    from myautograd._ops.registry import FUNCTIONS, METHODS

    original = FUNCTIONS.get(name) or METHODS[name]
    patched = make(original)
    if name in FUNCTIONS:
        FUNCTIONS[name] = patched
        setattr(myautograd, name, patched)
    if method and name in METHODS:
        METHODS[name] = patched
        setattr(myautograd.Tensor, name, patched)
