"""Aspects of a difference, the three levels of conformance, and an item's outcome at each.

This is the one place that says which differences matter at which level. Every difference the
comparison finds is tagged with one **aspect**; each aspect belongs to the lowest **level** at
which it counts, and counts at every level above:

``semantics``
    Does the engine compute the same thing? Values, gradients, whether a step raised, whether
    it warned. An engine with its own API style can reach this level.
``api``
    Does it also present it the same way? Adds dtypes, shapes, devices, flags
    (``requires_grad``, ``is_leaf``, ``retains_grad``, ``_version``, whether ``grad_fn`` is set),
    object identity, the kind of object returned, and exception types.
``drop-in``
    Could it replace torch unnoticed? Adds exception messages, node names, warning texts and
    printed text. myautograd aims at this level; it decides the exit status by default.

An item's outcome at a level is ``pass`` when no difference counts there; otherwise the
earliest difference that counts decides: ``unsupported`` when it is a name the implementation's
API lacks, ``fail`` otherwise (so a difference observed before the scenario reached a missing
name fails the item).

Differences are listed **most severe first** (:func:`by_severity`): by the lowest level at which
they count, then in scenario order (the earliest difference of a level is the likeliest cause of
the later ones: an exception, then the ``None`` it left), then by aspect in the order of
``ASPECTS``. A failing item's headline, at a level, is the most severe difference that counts
there: wrong values are never hidden behind the name of a node.
"""

from __future__ import annotations

from collections.abc import Iterable

LEVELS = ("semantics", "api", "drop-in")
DEFAULT_LEVEL = "drop-in"

# aspect -> (level, what it covers)
ASPECTS: dict[str, tuple[str, str]] = {
    "value": ("semantics", "a number, a tensor's values, a structure's content"),
    "gradient": ("semantics", "the value of a gradient (.grad, autograd.grad, a hook's argument)"),
    "raised": ("semantics", "whether a step raised an exception, or where the runs ended"),
    "warned": ("semantics", "whether a step warned"),
    "dtype": ("api", "a tensor's dtype"),
    "shape": ("api", "a tensor's shape"),
    "device": ("api", "a tensor's device"),
    "flag": ("api", "requires_grad, is_leaf, retains_grad, _version, whether grad_fn is set"),
    "identity": ("api", "whether two expressions are the same object"),
    "type": ("api", "the kind of object observed (a tensor, a list, a number, None, ...)"),
    "exception-type": ("api", "the type of an exception both sides raised"),
    "message": ("drop-in", "the message of an exception both sides raised with the same type"),
    "node-name": ("drop-in", "the name of a graph node (grad_fn.name())"),
    "warning-text": ("drop-in", "the category and text of warnings both sides emitted"),
    "printed": ("drop-in", "text printed to stdout"),
}


def level_of(aspect: str) -> str:
    return ASPECTS[aspect][0]


def counts_at(aspect: str, level: str) -> bool:
    """Whether a difference in ``aspect`` counts at ``level``."""
    return LEVELS.index(level_of(aspect)) <= LEVELS.index(level)


def severity(diff: dict) -> tuple[int, int, int]:
    """The sort key of a difference: most severe first (see the module's docstring)."""
    aspect = diff["aspect"]
    return LEVELS.index(level_of(aspect)), int(diff.get("step") or 0), list(ASPECTS).index(aspect)


def by_severity(diffs: Iterable[dict]) -> list[dict]:
    """The differences, most severe first (stable: scenario order within the same severity)."""
    return sorted(diffs, key=severity)


def outcome_at(diffs: Iterable[dict], level: str) -> tuple[str, str]:
    """(outcome, one-line detail) at ``level`` from the differences in scenario order: the earliest
    difference that counts decides the outcome, the most severe one is the detail."""
    counting = [diff for diff in diffs if counts_at(diff["aspect"], level)]
    if not counting:
        return "pass", ""
    earliest = counting[0]
    if earliest.get("unsupported"):
        return "unsupported", f"unsupported: {earliest['unsupported']}"
    return "fail", summary(min(counting, key=severity))


def outcomes(diffs: list[dict]) -> dict[str, tuple[str, str]]:
    return {level: outcome_at(diffs, level) for level in LEVELS}


def summary(diff: dict) -> str:
    """One difference in one line: where, what is wrong (the detail, when there is one, before the
    values, which a short line may cut), then both sides."""
    where = f"{diff.get('where', '')} ({diff['detail']})" if diff.get("detail") else diff.get("where", "")
    return f"{where}: torch {diff.get('reference', '')} / implementation {diff.get('implementation', '')}"
