"""Every catalog case carries complete, checkable metadata (test262-style linting of the catalog)."""

from __future__ import annotations

import ast
import importlib
import re
import textwrap
from pathlib import Path

import pytest

from conformance import catalog, docs
from conformance.case import ALL_DEVICES, REGISTRY, Case, Registry, case
from conformance.features import FEATURES, UnknownFeature, detected

FACTORIES = {"tensor", "ones", "zeros", "full", "empty", "arange", "eye", "linspace", "logspace", "rand",
             "randn", "randint", "ones_like", "zeros_like"}
TAGS = {"warning", "error", "seed", "hard"}
#: Cases generated from torch's sample databases (conformance/databases): <topic>.<class>.<index>
DATABASE_CASE = re.compile(r"(moduleinfo|optiminfo)\.[A-Za-z0-9]+\.\d+")
OPERATOR_TAGS = {"op", "check:forward", "check:grad", "check:gradgrad", "check:error", "check:forward-mode",
                 "check:forward-over-reverse", "check:vmap", "check:vmap-of-vjp", "torch-refuses:forward-mode",
                 "torch-refuses:forward-over-reverse", "torch-refuses:vmap", "torch-refuses:vmap-of-vjp"}
CASES = list(catalog.load())
ROOT = Path(__file__).resolve().parent.parent


def is_operator_case(item: Case) -> bool:
    return item.topic == "op"


def test_the_catalog_is_large_enough():
    assert len(CASES) >= 150


@pytest.mark.parametrize("item", CASES, ids=lambda c: c.id)
def test_case_metadata_is_complete(item: Case):
    if is_operator_case(item):  # op.<operator>.<variant>, generated as op_<operator>__<variant>
        _, operator, variant = item.id.split(".")
        assert item.scenario.__name__ == f"op_{operator}__{variant}"
        assert set(item.tags) - OPERATOR_TAGS == {f"op:{operator}"}, f"unexpected tags {item.tags}"
    elif DATABASE_CASE.fullmatch(item.id):
        assert set(item.tags) == {"database", "module_db" if item.topic == "moduleinfo" else "optim_db"}
    else:
        assert item.id == f"{item.topic}.{item.scenario.__name__}"
        assert set(item.tags) <= TAGS, f"unknown tags {set(item.tags) - TAGS}"
    assert item.title and item.title == item.title.strip() and not item.title.endswith(".")
    assert item.doc.url.startswith((f"{docs.DOCS_ROOT}/", f"{docs.TUTORIALS_ROOT}/"))
    assert item.doc.section
    assert set(item.devices) <= set(ALL_DEVICES) and item.devices


def test_cases_from_the_seed_tutorials_say_which_snippet():
    """A case with a seed provenance names the document (000 to 004) and is tagged ``seed``; the
    snippets themselves are in tests/seed_snippets/, named after the same documents."""
    seeded = [c for c in CASES if c.provenance.startswith("seed")]
    assert len(seeded) >= 40
    documents = {p.name[:3] for p in (ROOT / "tests" / "seed_snippets").glob("*.py")}
    for item in seeded:
        assert re.fullmatch(r"seed \d{3}, .+", item.provenance), item.id
        assert item.provenance[5:8] in documents, item.id
        assert "seed" in item.tags, item.id
    assert not any(c.topic == "seed" for c in CASES), "seed cases live in the topic they are about"


@pytest.mark.parametrize("path", sorted({docs.docstring_path(c.doc) for c in CASES} - {None}))
def test_cited_docstrings_exist_in_installed_torch(path: str):
    torch = importlib.import_module("torch")
    obj = torch
    for part in path.split(".")[1:]:
        obj = getattr(obj, part)
    assert (getattr(obj, "__doc__", None) or "").strip(), f"{path} has no docstring"


def _calls_without_device(source: str) -> list[str]:
    tree = ast.parse(textwrap.dedent(source))
    missing = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in FACTORIES
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "torch"
                and not any(k.arg == "device" for k in node.keywords)
                and not (node.func.attr.endswith("_like"))):
            missing.append(ast.unparse(node))
    return missing


@pytest.mark.parametrize("item", [c for c in CASES if "cuda" in c.devices], ids=lambda c: c.id)
def test_factory_calls_name_the_device(item: Case):
    assert _calls_without_device(item.source) == []


@pytest.mark.parametrize("module", sorted({c.scenario.__module__ for c in CASES}))
def test_catalog_modules_do_not_import_torch(module: str):
    tree = ast.parse(open(importlib.import_module(module).__file__, encoding="utf-8").read())
    for node in ast.walk(tree):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
            [node.module or ""] if isinstance(node, ast.ImportFrom) else []
        assert not any(n == "torch" or n.startswith("torch.") for n in names), \
            "a scenario must use the namespace it is given, not the real torch"


def test_duplicate_ids_are_refused():
    registry = Registry()

    def scenario(torch, rec):
        pass

    case("First", doc=docs.TENSOR_GRAD, registry=registry)(scenario)
    with pytest.raises(ValueError, match="duplicate case id"):
        case("Again", doc=docs.TENSOR_GRAD, registry=registry)(scenario)


def test_unknown_devices_are_refused():
    def scenario(torch, rec):
        pass

    with pytest.raises(ValueError, match="unknown devices"):
        case("Bad", doc=docs.TENSOR_GRAD, devices=("tpu",), registry=Registry())(scenario)


def test_lint_catches_a_factory_without_device():
    assert _calls_without_device("def f(torch, rec):\n    x = torch.ones(2)\n") == ["torch.ones(2)"]
    assert _calls_without_device("def f(torch, rec):\n    x = torch.ones(2, device=rec.device)\n") == []


@pytest.mark.parametrize("item", CASES, ids=lambda c: c.id)
def test_declared_features_cover_what_the_scenario_visibly_uses(item: Case):
    """Features a scenario's source shows must be declared (others, invisible in it, may be added by hand)."""
    assert set(item.features) <= set(FEATURES)
    missing = detected(item.source) - set(item.features)
    assert not missing, f"declare features={tuple(sorted(missing))} (seen in the scenario)"
    if item.devices == ("cuda",):
        assert "cuda" in item.features


def test_feature_detection_sees_what_it_should():
    assert {"non-scalar", "hooks", "autograd.grad"} <= detected(
        "x = torch.tensor([1.0, 2.0]); x.register_hook(f); torch.autograd.grad(y, x)")
    assert "non-scalar" not in detected("x = torch.tensor(2.0, requires_grad=True); (x * x).backward()")
    assert "in-place" in detected("x.add_(1)") and "in-place" not in detected("x.requires_grad_()")
    assert detected("x.data *= 100") >= {"in-place", "detach"}


def test_unknown_features_are_refused():
    def scenario(torch, rec):
        pass

    with pytest.raises(UnknownFeature, match="unknown feature 'teleportation'"):
        case("Bad", doc=docs.TENSOR_GRAD, features=("teleportation",), registry=Registry())(scenario)


def test_every_case_is_registered_once():
    assert len({c.id for c in CASES}) == len(CASES) == len(REGISTRY)
