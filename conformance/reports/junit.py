"""``junit.xml``: the run as JUnit XML, for the test views of CI systems (GitLab, Jenkins, GitHub actions).

One ``<testsuite name="conformance.<topic>">`` per topic, one ``<testcase>`` per case and device,
named ``<case id>[<device>]`` with classname ``conformance.<topic>`` and its time. Outcomes map so:

* pass: a plain testcase; xfail: passes too, with a ``<system-out>`` note giving the expected
  outcome and its reason, then the differences;
* fail, unsupported, xpass: ``<failure type="fail|unsupported|xpass" message="the most severe difference">``
  holding the full diff (each difference: where, the torch side, the implementation side);
* error, timeout, crash: ``<error type="...">`` with why the item did not finish;
* skip and n/a: ``<skipped message="reason">``.

Each testcase has properties ``levels`` (the outcome at each level) where the item ran.

Each suite carries ``<properties>``: implementation, versions, Python, platform, devices, the
verdict in one sentence (``incomplete`` when nothing ran), what was compared, and the stale
expectations. Every text goes through ``common.clean`` (control characters and lone
surrogates, which XML 1.0 cannot hold, become visible escapes) and then ElementTree's escaping.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from .common import clean, diff_text, headline, label, placement, shorten, topics, verdict_line

FAILURES = ("fail", "unsupported", "xpass")
ERRORS = ("error", "timeout", "crash")
MESSAGE_LIMIT = 1000


def properties(result: dict) -> list[tuple[str, str]]:
    impl = result.get("implementation") or {}
    ref = result.get("reference") or {}
    found = [
        ("implementation", impl.get("name")),
        ("implementation.module", impl.get("module")),
        ("implementation.version", impl.get("version")),
        ("implementation.device", placement(result) or None),
        ("reference", ref.get("name")),
        ("reference.version", ref.get("version")),
        ("python", result.get("python")),
        ("platform", result.get("platform")),
        ("started", result.get("started")),
        ("isolation", result.get("isolation")),
        ("timeout", result.get("timeout")),
        ("selection", (result.get("selection") or {}).get("k")),
        ("expectations", (result.get("expectations") or {}).get("file")),
        ("interrupted", result.get("interrupted")),
        ("verdict", verdict_line(result)),
        ("compared", "{items} items ran on both sides, {steps} steps, {elements} values and gradients element by element"
         .format(**{"items": 0, "steps": 0, "elements": 0, **(result.get("compared") or {})})),
    ]
    rule = result.get("warnings") or {}
    if rule.get("set_aside_from"):
        found.append(("warnings.set_aside_from", f"{', '.join(rule['set_aside_from'])}: {rule.get('reason', '')}"))
    found += [(f"device.{name}", status) for name, status in (result.get("devices") or {}).items()]
    for entry in (result.get("expectations") or {}).get("stale", []):
        found.append(("stale_expectation", f"{entry.get('case')} ({entry.get('device') or 'all devices'}, "
                                           f"{entry.get('outcome')}): {entry.get('reason')}"))
    return [(name, clean(value)) for name, value in found if value is not None]


def testcase(record: dict) -> ET.Element:
    outcome = record.get("outcome", "error")
    element = ET.Element("testcase", {
        "name": clean(label(record)),
        "classname": clean(f"conformance.{record.get('topic', '?')}"),
        "time": f"{float(record.get('duration') or 0.0):.3f}",
    })
    message = shorten(headline(record), MESSAGE_LIMIT)
    if record.get("levels"):
        props = ET.SubElement(element, "properties")
        for level, value in record["levels"].items():
            ET.SubElement(props, "property", {"name": f"level.{level}", "value": clean(value)})
    if outcome in FAILURES:
        child = ET.SubElement(element, "failure", {"type": outcome, "message": message})
        child.text = diff_text(record)
    elif outcome in ERRORS:
        child = ET.SubElement(element, "error", {"type": outcome, "message": message})
        child.text = diff_text(record)
    elif outcome in ("skip", "n/a"):
        ET.SubElement(element, "skipped", {"message": message})
    elif outcome == "xfail":
        out = ET.SubElement(element, "system-out")
        out.text = diff_text(record)
    return element


def suite(name: str, records: list[dict], result: dict) -> ET.Element:
    outcomes = [r.get("outcome") for r in records]
    element = ET.Element("testsuite", {
        "name": clean(name),
        "tests": str(len(records)),
        "failures": str(sum(o in FAILURES for o in outcomes)),
        "errors": str(sum(o in ERRORS for o in outcomes)),
        "skipped": str(outcomes.count("skip") + outcomes.count("n/a")),
        "time": f"{sum(float(r.get('duration') or 0.0) for r in records):.3f}",
        "timestamp": clean(result.get("started") or ""),
    })
    props = ET.SubElement(element, "properties")
    for key, value in properties(result):
        ET.SubElement(props, "property", {"name": key, "value": value})
    for record in records:
        element.append(testcase(record))
    return element


def build(result: dict) -> ET.ElementTree:
    records = result.get("cases", [])
    grouped = topics(records) or {"": []}
    root = ET.Element("testsuites", {"name": "conformance"})
    for topic, members in grouped.items():
        root.append(suite(f"conformance.{topic}" if topic else "conformance", members, result))
    for key in ("tests", "failures", "errors", "skipped"):
        root.set(key, str(sum(int(s.get(key, "0")) for s in root)))
    root.set("time", f"{float(result.get('duration') or 0.0):.3f}")
    tree = ET.ElementTree(root)
    ET.indent(tree)
    return tree


def write(result: dict, path: Path) -> None:
    build(result).write(path, encoding="utf-8", xml_declaration=True)
