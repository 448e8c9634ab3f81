"""An implementation's ``[[expected]]`` entries for the op_db cases it does not pass, grouped by cause.

``python -m conformance.databases.expected RESULTS.json`` reads a run's results and prints, for the
``opinfo.*`` items (on the CPU) that did not pass, TOML to check and keep in the implementation's
expectations file:

* one ``unsupported`` entry per operator none of whose items reaches past a name the implementation
  lacks (``case = "opinfo.<name>.*"``), the reason naming what it lacks;
* for the other items, one entry per case (per dtype only where the dtypes differ), under a heading per
  cause, the reason naming the cause: the most severe difference (``levels.by_severity``) read as what
  happened where (an invalid call not refused, refused with another exception type or message, a value,
  gradient, second-order gradient or forward-mode tangent that differs, a node name, a warning, ...).
  The differences' texts are never pasted into a reason: they change with every sample.

``causes`` gives the count per cause for the report.
"""

from __future__ import annotations

import collections
import fnmatch
import json
import re
import sys

from ..levels import by_severity

RECORDED = ("fail", "unsupported", "error", "timeout", "crash")
PREFIX = "opinfo."
#: (what a step label holds, the part of the sample it names), first match wins (see ``operators.render``).
PHASES = (("forward-over-reverse", "forward-over-reverse tangents"), ("forward-mode", "forward-mode tangents"),
          ("second-order", "second-order gradients"), ("nodes that recorded", "second-order gradients"),
          ("gradients of", "gradients"))


def phase(where: str) -> str:
    """The part of a sample a difference's step label is in (``step 7: 2: gradients of a``)."""
    label = where.split(": ", 1)[1] if ": " in where else where
    for marker, name in PHASES:
        if marker in label:
            return name
    return "the value"


def cause_of(record: dict) -> str:
    """What made an item fail, in words that hold for every item of that cause."""
    if record["outcome"] in ("error", "timeout", "crash"):
        return f"the implementation's side ends in {record['outcome']}"
    diffs = by_severity(record.get("diff") or [])
    if not diffs:
        return "a failure without a difference"
    diff = diffs[0]
    aspect, where = diff["aspect"], diff["where"]
    invalid = ": invalid " in f": {where.split(': ', 1)[-1]}"
    if invalid:
        if aspect == "raised" and diff["implementation"] == "raised nothing":
            return "an invalid call that torch refuses is not refused"
        return {"exception-type": "an invalid call is refused with another exception type",
                "message": "an invalid call is refused with another message"}.get(
                    aspect, f"an invalid call differs in {aspect}")
    if aspect == "raised" and where.startswith("step ") and ": " not in where:  # the runs part: one side raised
        return diverged(diff)
    if aspect == "raised":
        if diff["reference"] == "raised nothing":
            return f"a valid sample raises where torch does not ({phase(where)})"
        if diff["implementation"] == "raised nothing":
            return f"torch raises and the implementation does not ({phase(where)})"
        return f"the runs part ({phase(where)})"
    if aspect in ("value", "gradient"):
        return f"{phase(where)} differ" if phase(where) != "the value" else "the value differs"
    if aspect == "node-name":
        return f"another node name ({phase(where)})"
    if aspect in ("warned", "warning-text"):
        return "a warning torch gives is missing or another" if aspect == "warned" else "another warning text"
    if aspect in ("exception-type", "message"):
        return f"another exception {'type' if aspect == 'exception-type' else 'message'} ({phase(where)})"
    return f"another {aspect} ({phase(where)})"


def diverged(diff: dict) -> str:
    """The cause where the runs part: the side that raised, at the step the other recorded."""
    reference, implementation = diff["reference"], diff["implementation"]
    label = re.search(r"observed '([^']*)'", reference if implementation.startswith("raised") else implementation)
    part = phase(label.group(1)) if label else "the value"
    if implementation.startswith("raised") and not reference.startswith("raised"):
        return f"a valid sample raises where torch does not ({part})"
    if reference.startswith("raised") and not implementation.startswith("raised"):
        return f"torch raises and the implementation does not ({part})"
    return f"the runs part ({part})"


def missing_name(record: dict) -> str:
    for diff in record.get("diff") or []:
        if diff.get("unsupported"):
            return diff["unsupported"]
    return str(record.get("detail", "")).removeprefix("unsupported: ").split()[0] if record.get("detail") else "?"


def operator_of(case_id: str) -> str:
    return case_id.removeprefix(PREFIX).rsplit(".", 1)[0]


def toml_string(text: str) -> str:
    return json.dumps(text, ensure_ascii=True)  # a JSON string is a valid TOML basic string


def failing(result: dict) -> dict[str, dict[str, dict]]:
    """``{case id: {dtype: record}}`` of the op_db items on the CPU that did not pass."""
    by_case: dict[str, dict[str, dict]] = collections.defaultdict(dict)
    for record in result["cases"]:
        if record["id"].startswith(PREFIX) and record["device"] == "cpu" and record["outcome"] in RECORDED:
            by_case[record["id"]][record["dtype"]] = record
    return by_case


def unsupported_operators(result: dict, by_case: dict[str, dict[str, dict]]) -> dict[str, str]:
    """``{operator: the name it lacks}`` for operators every item of which is ``unsupported``, where the glob
    ``opinfo.<operator>.*`` names their cases alone."""
    ids = {record["id"] for record in result["cases"] if record["id"].startswith(PREFIX)}
    items = collections.defaultdict(list)
    for record in result["cases"]:
        if record["id"].startswith(PREFIX) and record["device"] == "cpu":
            items[operator_of(record["id"])].append(record)
    found = {}
    for operator, records in items.items():
        matched = fnmatch.filter(ids, f"{PREFIX}{operator}.*")
        if all(r["outcome"] == "unsupported" for r in records) and all(operator_of(i) == operator for i in matched):
            found[operator] = missing_name(records[0])
    return found


def causes(result: dict) -> collections.Counter:
    """Items (case and dtype) per cause, ``unsupported`` counted as one cause."""
    counted: collections.Counter = collections.Counter()
    for by_dtype in failing(result).values():
        for record in by_dtype.values():
            counted["unsupported" if record["outcome"] == "unsupported" else cause_of(record)] += 1
    return counted


def entries(result: dict) -> list[str]:
    """The TOML lines: the unsupported operators, then the other cases under a comment per cause."""
    by_case = failing(result)
    lacking = unsupported_operators(result, by_case)
    lines = [f"# op_db operators myautograd does not implement ({len(lacking)}): every item stops at the name it lacks"]
    for operator, name in sorted(lacking.items()):
        lines += ["", "[[expected]]", f"case = {toml_string(f'{PREFIX}{operator}.*')}", 'outcome = "unsupported"',
                  f"reason = {toml_string(f'op_db: {name} is not implemented')}"]
    grouped: dict[str, list[tuple[str, str | None, dict]]] = collections.defaultdict(list)
    for case_id, by_dtype in sorted(by_case.items()):
        if operator_of(case_id) in lacking:
            continue
        found = {dtype: ("unsupported: " + missing_name(r) if r["outcome"] == "unsupported" else cause_of(r), r)
                 for dtype, r in sorted(by_dtype.items())}
        kinds = {(cause, r["outcome"]) for cause, r in found.values()}
        first = next(iter(found.values()))
        every_dtype = len(kinds) == 1 and (len(found) == 2 or not first[1].get("several_dtypes"))
        for dtype, (cause, record) in ([(None, first)] if every_dtype else found.items()):
            grouped[cause].append((case_id, dtype, record))
    for cause, members in sorted(grouped.items(), key=lambda pair: (-len(pair[1]), pair[0])):
        lines += ["", f"# {cause} ({len(members)})"]
        for case_id, dtype, record in members:
            lines += ["", "[[expected]]", f"case = {toml_string(case_id)}"]
            if dtype is not None:
                lines.append(f"dtype = {toml_string(dtype)}")
            lines += [f"outcome = {toml_string(record['outcome'])}", f"reason = {toml_string(f'op_db: {cause}')}"]
    return lines


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m conformance.databases.expected RESULTS.json", file=sys.stderr)
        return 2
    try:
        with open(args[0], encoding="utf-8") as handle:
            result = json.load(handle)
    except (OSError, ValueError) as exc:
        print(f"cannot read {args[0]}: {exc}", file=sys.stderr)
        return 2
    print("\n".join(entries(result)))
    for cause, count in causes(result).most_common():
        print(f"{count:5d}  {cause}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
