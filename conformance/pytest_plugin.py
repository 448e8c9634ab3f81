"""pytest integration: the catalog as pytest items, one per case, device and dtype.

Installed as a pytest plugin (the ``pytest11`` entry point ``conformance``), so that in any
project where the suite is installed::

    pip install autograd-conformance          # or: pip install -e /path/to/checkout
    pytest --pyargs conformance.testsuite --impl mypkg --level api -n auto

runs the whole catalog against ``mypkg`` without our source tree (``conformance.testsuite`` is
the test module shipped in the package). In this repository, ``tests/test_catalog.py`` holds the
same parametrized test::

    pytest tests/test_catalog.py --impl torch -k retain_graph
    pytest tests/test_catalog.py -n auto --junitxml=conformance.xml

Item ids are ``test_case[<case id>-<device>]`` (``test_case[<case id>-<device>-<dtype>]`` for a case
that runs in several dtypes); each item also answers ``-k`` on its topic, tags and features, and
carries a ``conformance`` marker with the case id, topic and tags.

Options: ``--impl NAME`` (default ``myautograd``; ``NAME@DEVICE``, ``torch@cuda``, runs the
implementation on DEVICE against torch on the CPU, see ``placement``: the CPU items run, the others
skip with the reason), ``--level semantics|api|drop-in`` (the level
whose outcome passes or fails an item; default: the implementation's ``[run] level``, else
``drop-in``), ``--conformance-timeout SECONDS`` (per case and side; default: the implementation's
``[run] timeout``, else 30),
``--conformance-expectations FILE`` (default: the built-in file of the implementation, if any).
The implementation's file also gives the warnings the judge sets aside (``[warnings]``).

Each pytest process (each xdist worker) holds one :class:`conformance.session.Session`: one
worker process per side, started on the first catalog item, closed at the end of the session.
The pytest process judges and never imports the implementation. An item on a device a side
cannot use is skipped with the reason; an item whose case needs a feature the profile lacks is
skipped as ``n/a`` (one whose case can do without it runs without it, as in ``runner``). An item
whose outcome is ``pass`` or ``xfail`` (an expected failure listed in the expectations file) passes;
every other outcome fails with the differences as the message; an ``xpass`` fails saying that the
expectation should go.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from . import catalog
from . import expectations as expectations_module
from .explaining import explain
from .item import Item
from .levels import DEFAULT_LEVEL, LEVELS, counts_at, summary
from .placement import Placement, PlacementError
from .pool import StartupError
from .runner import DEFAULT_STARTUP_TIMEOUT, DEFAULT_TIMEOUT
from .session import Session

PASSING = ("pass", "xfail")


@dataclass(frozen=True)
class CatalogItem:
    """One item of the catalog (a case on a device, in a dtype): the parameter of ``test_case``."""

    item: Item

    @property
    def case(self):
        return self.item.case

    @property
    def device(self) -> str:
        return self.item.device

    @property
    def id(self) -> str:
        several = len(self.item.case.dtypes) > 1
        return f"{self.item.case.id}-{self.item.device}" + (f"-{self.item.dtype}" if several else "")

    def __str__(self) -> str:
        return self.id


def catalog_items() -> list:
    """``pytest.param`` per case, device and dtype of the catalog."""
    items = [CatalogItem(Item(case, device, dtype)) for case in catalog.load() for device in case.devices
             for dtype in case.dtypes]
    return [pytest.param(item, id=item.id) for item in items]


# -- options, markers, keywords ---------------------------------------------------------------
def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("conformance", "autograd conformance catalog")
    group.addoption("--impl", default="myautograd",
                    help="implementation under test: a module name, module:attribute or a shipped adapter; "
                         "NAME@DEVICE runs it on DEVICE against torch on the CPU (default: myautograd)")
    group.addoption("--level", default=None, choices=LEVELS,
                    help=f"the level whose outcome passes or fails a catalog item (default: the implementation's [run] "
                         f"level in its expectations file, else {DEFAULT_LEVEL})")
    group.addoption("--conformance-timeout", type=float, default=None, metavar="SECONDS",
                    help=f"seconds per case and side (default: the implementation's [run] timeout in its expectations "
                         f"file, else {DEFAULT_TIMEOUT:g})")
    group.addoption("--conformance-expectations", default=None, metavar="FILE",
                    help="expectations and profile file (default: the built-in one for the implementation, if any)")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "conformance(case, topic, tags): a catalog item of the conformance suite (set by the plugin)")


def pytest_report_header(config: pytest.Config) -> str:
    timeout, level = config.getoption("conformance_timeout"), config.getoption("level")
    level_text = level or f"the implementation's [run] level, else {DEFAULT_LEVEL}"
    timeout_text = f"{timeout:g} s" if timeout else f"the implementation's [run] timeout, else {DEFAULT_TIMEOUT:g} s"
    return f"conformance: --impl {config.getoption('impl')}; level: {level_text}; timeout per side: {timeout_text}"


def catalog_item_of(item: pytest.Item) -> CatalogItem | None:
    callspec = getattr(item, "callspec", None)
    if callspec is None:
        return None
    for value in callspec.params.values():
        if isinstance(value, CatalogItem):
            return value
    return None


def pytest_itemcollected(item: pytest.Item) -> None:
    """Topic, tags and features as keywords (for -k) and a ``conformance`` marker, before -k deselects."""
    found = catalog_item_of(item)
    if found is None:
        return
    case = found.case
    item.extra_keyword_matches.update({case.topic, *case.tags, *case.features})
    item.add_marker(pytest.mark.conformance(case=case.id, topic=case.topic, tags=tuple(case.tags)))


# -- the session ------------------------------------------------------------------------------
class ConformanceSession:
    """What one pytest process needs to run catalog items: the expectations and profile, and a
    Session (one worker per side, started on first use)."""

    def __init__(self, impl: str, timeout: float | None, expectations_file: str | None = None,
                 level: str | None = None) -> None:
        self.impl = impl
        self.problem: str | None = None  # fails every item: the session cannot run any
        self.session: Session | None = None
        self.placement = Placement(impl)
        try:
            self.placement = Placement.of(impl)
        except PlacementError as exc:
            self.problem = str(exc)
        self.impl_file = expectations_module.ImplementationFile()
        path = Path(expectations_file) if expectations_file else expectations_module.builtin_path(impl)
        self.expectations_file = str(path) if path else None
        try:
            if expectations_file and not path.is_file():
                raise expectations_module.ExpectationError(f"expectations file {path} does not exist")
            self.impl_file = expectations_module.load_file(path)
        except expectations_module.ExpectationError as exc:
            self.problem = str(exc)
        self.timeout = timeout or self.impl_file.run.timeout or DEFAULT_TIMEOUT
        self.level = level or self.impl_file.run.level or DEFAULT_LEVEL

    def _session(self) -> Session:
        if self.session is None:
            run = self.impl_file.run
            session = Session(self.impl, level=self.level, set_aside_from=self.impl_file.warnings.set_aside_from,
                              startup_timeout=run.startup_timeout or DEFAULT_STARTUP_TIMEOUT,
                              devices=self.placement.reference_devices(None))
            try:
                session.start()
            except StartupError as exc:
                self.problem = f"the workers could not start: {exc}"
                raise
            self.session = session
        return self.session

    def check(self, item: CatalogItem, node: pytest.Item | None = None) -> dict:
        """Run one item; skip, pass, or fail the running test accordingly. Returns the record."""
        if self.problem:
            pytest.fail(f"conformance: {self.problem}", pytrace=False)
        placed_reason = self.placement.skip_reason(item.case, item.device)
        if placed_reason is not None:
            pytest.skip(placed_reason)
        profile = self.impl_file.profile
        lacking = profile.missing_for(item.item.features, item.case.optional_features)
        if lacking:
            pytest.skip(f"n/a: the implementation does not aim to support {', '.join(lacking)}")
        try:
            session = self._session()
        except StartupError:
            pytest.fail(f"conformance: {self.problem}", pytrace=False)
        reason = session.device_reason(item.device)
        if reason is not None:
            pytest.skip(reason)
        planned = replace(item.item, without=profile.left_out_of(item.case.optional_features))
        record = session.run(planned, item.case.timeout or self.timeout).as_dict()
        version = session.info.get("reference", {}).get("version")
        record = explain(record, self.impl_file.explained, self.level)
        record = expectations_module.apply(record, self.impl_file.entries, version)
        if node is not None:
            node.user_properties.append(("conformance_outcome", record["outcome"]))
            node.user_properties.append(("conformance_levels", ",".join(f"{k}={v}" for k, v in record["levels"].items())))
            if record.get("detail"):
                node.user_properties.append(("conformance_detail", record["detail"]))
        if record["outcome"] not in PASSING:
            pytest.fail(failure_message(record, self.expectations_file, self.level), pytrace=False)
        return record

    def close(self) -> None:
        if self.session is not None:
            self.session.close()
            self.session = None


def failure_message(record: dict, expectations_file: str | None = None, level: str = DEFAULT_LEVEL) -> str:
    """The outcome, what the case checks, and each difference that counts at ``level``."""
    outcome, detail = record["outcome"], record.get("detail") or ""
    diffs = [d for d in record.get("diff") or [] if counts_at(d["aspect"], level)]
    if outcome == "xpass":
        lines = [f"xpass: {detail}; the expectation should go (remove its entry from {expectations_file})"]
    elif outcome == "fail" and diffs:
        count = len(diffs)
        lines = [f"fail at level {level}: {count} difference{'s' if count > 1 else ''}, the most severe: "
                 f"{summary(diffs[0])}"]
    else:
        lines = [detail if detail.startswith(f"{outcome}:") else f"{outcome}: {detail}" if detail else outcome]
    if outcome != "xpass":
        expected = record.get("expected")
        if expected:
            lines.append(f"expected {expected['outcome']} ({expected['reason']}), but the outcome is {outcome}: "
                         f"the way it fails changed")
    lines.append(f"case: {record['id']} on {record['device']} ({record['dtype']}): {record['title']}")
    levels = record.get("levels") or {}
    if levels:
        lines.append("levels: " + ", ".join(f"{name} {value}" for name, value in levels.items()))
    doc = record.get("doc") or {}
    if doc:
        lines.append(f"checks: {doc.get('section')} <{doc.get('url')}>")
    lines.append(f"see: python -m conformance show {record['id']} --device {record['device']}")
    for diff in diffs:
        lines.append("")
        lines.append(f"{diff['where']} [{diff['aspect']}]" + (f" ({diff['detail']})" if diff.get("detail") else ""))
        lines.append(f"  torch:          {diff['reference']}")
        lines.append(f"  implementation: {diff['implementation']}")
    return "\n".join(lines)


# -- fixtures ---------------------------------------------------------------------------------
@pytest.fixture(scope="session")
def conformance_session(request: pytest.FixtureRequest):
    """One ConformanceSession (and so one worker per side) per pytest process."""
    config = request.config
    session = ConformanceSession(config.getoption("impl"), config.getoption("conformance_timeout"),
                                 config.getoption("conformance_expectations"), config.getoption("level"))
    yield session
    session.close()


@pytest.fixture
def conformance(conformance_session: ConformanceSession, request: pytest.FixtureRequest):
    """``conformance(item)`` runs a CatalogItem and passes, skips or fails the current test."""
    return lambda item: conformance_session.check(item, request.node)
