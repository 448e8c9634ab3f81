"""pytest integration: the catalog as pytest items, one per case and device.

Registered from ``tests/conftest.py`` (``pytest_plugins = ["conformance.pytest_plugin"]``);
``tests/test_catalog.py`` holds the parametrized test, so that::

    pytest tests/test_catalog.py --impl torch -k retain_graph
    pytest tests/test_catalog.py -n auto --junitxml=conformance.xml

work as for any other test. Item ids are ``test_case[<case id>-<device>]``; each item also
answers ``-k`` on its topic and tags (e.g. ``-k warning``), and carries a ``conformance`` marker
with the case id, topic and tags.

Options: ``--impl NAME`` (the implementation under test, default ``myautograd``),
``--conformance-timeout SECONDS`` (per case and side), ``--conformance-expectations FILE``
(default: the built-in file of the implementation, if any).

Each pytest process (each xdist worker) starts ONE ``conformance.worker`` process, on its first
catalog item, and closes it at the end of the session; the worker runs each item in forked
children exactly as ``python -m conformance run`` does. Device availability is checked in the
pytest process (safe: the worker is started with exec, not forked from it); an item on an
unavailable device is skipped with the reason. An item whose outcome is ``pass`` or ``xfail``
(an expected failure listed in the expectations file) passes; every other outcome fails with
the differences as the message; an ``xpass`` fails saying that the expectation should go.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from . import catalog
from . import expectations as expectations_module
from .case import Case
from .execution import DEFAULT_TIMEOUT, base_record
from .implementations import REFERENCE, UnknownImplementation, resolve
from .isolation import default_mode
from .runner import SINGLE_THREAD_ENV, WorkerError, WorkerProcess, check_devices

PASSING = ("pass", "xfail")
# The directory that holds the ``conformance`` package (the repository root in a checkout).
PACKAGE_ROOT = str(Path(__file__).resolve().parent.parent)


@dataclass(frozen=True)
class CatalogItem:
    """One case of the catalog on one device: the parameter of ``test_case``."""

    case: Case
    device: str

    @property
    def id(self) -> str:
        return f"{self.case.id}-{self.device}"

    def __str__(self) -> str:
        return self.id


def catalog_items() -> list:
    """``pytest.param`` per case and device of the catalog, with ids ``<case id>-<device>``."""
    return [pytest.param(CatalogItem(case, device), id=f"{case.id}-{device}")
            for case in catalog.load() for device in case.devices]


# -- options, markers, keywords ---------------------------------------------------------------
def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("conformance", "autograd conformance catalog (tests/test_catalog.py)")
    group.addoption("--impl", default="myautograd",
                    help="implementation under test: a module name (default: myautograd)")
    group.addoption("--conformance-timeout", type=float, default=DEFAULT_TIMEOUT, metavar="SECONDS",
                    help=f"seconds per case and side (default: {DEFAULT_TIMEOUT:g})")
    group.addoption("--conformance-expectations", default=None, metavar="FILE",
                    help="expectations file (default: the built-in one for the implementation, if any)")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "conformance(case, topic, tags): a catalog item of the conformance suite (set by the plugin)")


def pytest_report_header(config: pytest.Config) -> str:
    return (f"conformance: --impl {config.getoption('impl')}, "
            f"timeout {config.getoption('conformance_timeout'):g} s per side")


def catalog_item_of(item: pytest.Item) -> CatalogItem | None:
    callspec = getattr(item, "callspec", None)
    if callspec is None:
        return None
    for value in callspec.params.values():
        if isinstance(value, CatalogItem):
            return value
    return None


def pytest_itemcollected(item: pytest.Item) -> None:
    """Topic and tags as keywords (for -k) and a ``conformance`` marker, before -k deselects."""
    found = catalog_item_of(item)
    if found is None:
        return
    case = found.case
    item.extra_keyword_matches.update({case.topic, *case.tags})
    item.add_marker(pytest.mark.conformance(case=case.id, topic=case.topic, tags=tuple(case.tags)))


# -- the worker -------------------------------------------------------------------------------
class PluginWorker(WorkerProcess):
    """A worker that can import ``conformance`` even when it is not installed and pytest runs
    from another directory: the package's root goes first on its PYTHONPATH."""

    def start(self) -> None:
        paths = [PACKAGE_ROOT, *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
        env = {**os.environ, **SINGLE_THREAD_ENV, "PYTHONUNBUFFERED": "1",
               "PYTHONPATH": os.pathsep.join(dict.fromkeys(paths))}
        self.proc = subprocess.Popen(self.args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True, encoding="utf-8", env=env)


class ConformanceSession:
    """What one pytest process needs to run catalog items: the sides, the expectations, the
    device status (checked once per device) and one worker (started on first use)."""

    def __init__(self, impl: str, timeout: float, expectations_file: str | None = None) -> None:
        self.impl = impl
        self.timeout = timeout
        self.problem: str | None = None  # fails every item: the session cannot run any
        self.worker: PluginWorker | None = None
        self.worker_problem: str | None = None
        self.devices: dict[str, str | None] = {}
        self.expectations: list = []
        path = Path(expectations_file) if expectations_file else expectations_module.builtin_path(impl)
        self.expectations_file = str(path) if path else None
        try:
            if expectations_file and not path.exists():
                raise expectations_module.ExpectationError(f"expectations file {path} does not exist")
            self.expectations = expectations_module.load(path)
            self.reference = resolve(REFERENCE)
            self.implementation = resolve(impl)
        except (UnknownImplementation, expectations_module.ExpectationError) as exc:
            self.problem = str(exc)

    def device_reason(self, device: str) -> str | None:
        if device not in self.devices:
            self.devices.update(check_devices(self.implementation.namespace, self.reference.namespace, [device]))
        return self.devices[device]

    def check(self, item: CatalogItem, node: pytest.Item | None = None) -> dict:
        """Run one item; skip, pass, or fail the running test accordingly. Returns the record."""
        if self.problem:
            pytest.fail(f"conformance: {self.problem}", pytrace=False)
        reason = self.device_reason(item.device)
        if reason is not None:
            pytest.skip(reason)
        record = expectations_module.apply(self.run(item), self.expectations, self.reference.version)
        if node is not None:
            node.user_properties.append(("conformance_outcome", record["outcome"]))
            if record.get("detail"):
                node.user_properties.append(("conformance_detail", record["detail"]))
        if record["outcome"] not in PASSING:
            pytest.fail(failure_message(record, self.expectations_file), pytrace=False)
        return record

    def run(self, item: CatalogItem) -> dict:
        if self.worker_problem:
            pytest.fail(self.worker_problem, pytrace=False)
        if self.worker is None:
            worker = PluginWorker(self.impl, self.timeout, default_mode())
            worker.start()
            try:
                worker.wait_ready()
            except (WorkerError, ValueError) as exc:
                worker.close()
                self.worker_problem = f"conformance: the worker could not start: {exc}"
                pytest.fail(self.worker_problem, pytrace=False)
            self.worker = worker
        try:
            return self.worker.run(item.case.id, item.device)
        except (WorkerError, ValueError) as exc:  # it died (the next item starts a fresh one)
            self.worker.close()
            self.worker = None
            return {**base_record(item.case, item.device), "outcome": "error", "duration": 0.0,
                    "detail": f"worker failure: {exc}", "reference": None, "implementation": None, "diff": []}

    def close(self) -> None:
        if self.worker is not None:
            self.worker.close()
            self.worker = None


def failure_message(record: dict, expectations_file: str | None = None) -> str:
    """The outcome, what the case checks, and each difference with both sides."""
    outcome, detail = record["outcome"], record.get("detail") or ""
    if outcome == "xpass":
        lines = [f"xpass: {detail}; the expectation should go (remove its entry from {expectations_file})"]
    elif outcome == "fail" and record.get("diff"):
        count = len(record["diff"])
        lines = [f"fail: {count} difference{'s' if count > 1 else ''}, the first at {record['diff'][0]['where']}"]
    else:
        lines = [detail if detail.startswith(f"{outcome}:") else f"{outcome}: {detail}" if detail else outcome]
    if outcome != "xpass":
        expected = record.get("expected")
        if expected:
            lines.append(f"expected {expected['outcome']} ({expected['reason']}), but the outcome is {outcome}: "
                         f"the way it fails changed")
    lines.append(f"case: {record['id']} on {record['device']}: {record['title']}")
    doc = record.get("doc") or {}
    if doc:
        lines.append(f"checks: {doc.get('section')} <{doc.get('url')}>")
    lines.append(f"see: python -m conformance show {record['id']} --device {record['device']}")
    for diff in record.get("diff") or []:
        lines.append("")
        lines.append(diff["where"] + (f" ({diff['detail']})" if diff.get("detail") else ""))
        lines.append(f"  torch:          {diff['reference']}")
        lines.append(f"  implementation: {diff['implementation']}")
    return "\n".join(lines)


# -- fixtures ---------------------------------------------------------------------------------
@pytest.fixture(scope="session")
def conformance_session(request: pytest.FixtureRequest):
    """One ConformanceSession (and so one worker process) per pytest process."""
    config = request.config
    session = ConformanceSession(config.getoption("impl"), config.getoption("conformance_timeout"),
                                 config.getoption("conformance_expectations"))
    yield session
    session.close()


@pytest.fixture
def conformance(conformance_session: ConformanceSession, request: pytest.FixtureRequest):
    """``conformance(item)`` runs a CatalogItem and passes, skips or fails the current test."""
    return lambda item: conformance_session.check(item, request.node)
