"""The module_db and optim_db sources (``conformance.databases``, catalog topics ``moduleinfo`` and
``optiminfo``): the rendered files, robustness to a changed database, selection, a smoke selection
torch against itself and myautograd against torch, and planted bugs caught.

The smoke items run each side in a child forked from the test process (``tests/support/sides``);
a mutant's patch is applied in that child only.
"""

from __future__ import annotations

import pytest
import torch

from conformance import databases
from conformance.case import Registry
from conformance.catalog import load, moduleinfo, optiminfo
from conformance.implementations import REFERENCE, resolve
from conformance.item import Item
from conformance.judge import judge
from conformance.recorder import observe
from conformance.selection import compile_expression
from tests.support.sides import isolated, judged


def with_databases() -> Registry:
    """The catalog with the database topics, in a registry of its own (the default one stays without them)."""
    registry = Registry()
    for case in load():
        registry.add(case)
    moduleinfo.register(registry)
    optiminfo.register(registry)
    return registry


REGISTRY = with_databases()
SMOKE = ("optiminfo.Adam.3", "optiminfo.RMSprop.4", "optiminfo.LBFGS.4", "optiminfo.Rprop.2", "optiminfo.NAdam.5",
         "moduleinfo.Linear.0", "moduleinfo.BatchNorm1d.2", "moduleinfo.LSTM.21", "moduleinfo.GRU.5")


def test_rendered_files_come_from_the_installed_torch():
    for name in databases.FILES:
        assert databases.load(name)["torch"] == torch.__version__, f"regenerate: python -m conformance.databases {name}"


def test_counts_meet_the_targets_and_every_skip_says_why():
    modules, optimizers = databases.counts("module_db"), databases.counts("optim_db")
    assert modules["rendered"] >= 80 and optimizers["rendered"] >= 10
    assert optimizers["skip_reasons"] == {"takes only sparse gradients": 1}
    for data in (databases.load("module_db"), databases.load("optim_db")):
        assert all(skip["name"] and skip["reason"] for skip in data["skipped"])
    assert len([c for c in REGISTRY if c.id.startswith("moduleinfo.")]) == modules["samples"]
    assert len([c for c in REGISTRY if c.id.startswith("optiminfo.")]) == optimizers["samples"]


def test_a_missing_file_is_an_empty_database_with_its_reason(monkeypatch, tmp_path):
    monkeypatch.setitem(databases.FILES, "optim_db", tmp_path / "absent.json")
    data = databases.load("optim_db")
    assert data["entries"] == [] and data["skipped"][0]["reason"].startswith("cannot read absent.json")


class ChangedEntry:
    """An entry of a later torch release: the attributes this reader expects are gone."""

    name = "nn.Changed"


def test_a_changed_optimizer_entry_is_a_reported_skip(monkeypatch):
    from torch.testing._internal import common_optimizers

    from conformance.databases import render_optimizers

    adam = next(info for info in common_optimizers.optim_db if info.optim_cls is torch.optim.Adam)
    monkeypatch.setattr(common_optimizers, "optim_db", [ChangedEntry(), adam])
    data = render_optimizers.render()
    assert [entry["name"] for entry in data["entries"]] == ["Adam"]
    assert data["skipped"][0]["reason"].startswith("cannot read the entry: AttributeError")
    assert data["torch"] == torch.__version__


def test_a_changed_module_entry_is_a_reported_skip(monkeypatch):
    from torch.testing._internal import common_modules

    from conformance.databases import render_modules

    linear = next(info for info in common_modules.module_db if info.module_cls is torch.nn.Linear)
    monkeypatch.setattr(common_modules, "module_db", [ChangedEntry(), linear])
    data = render_modules.render()
    assert [entry["name"] for entry in data["entries"]] == ["Linear"]
    assert data["skipped"] == [{"name": "Changed", "reason": "cannot read the entry: AttributeError: "
                                                              "'ChangedEntry' object has no attribute 'module_cls'"}]


def test_selection_by_database_and_by_name():
    def chosen(expression):
        match = compile_expression(expression)
        return {case.id for case in REGISTRY if match(case)}

    assert chosen("moduleinfo.Linear.") == {"moduleinfo.Linear.0", "moduleinfo.Linear.1", "moduleinfo.Linear.2"}
    assert chosen("optiminfo.LBFGS") == {f"optiminfo.LBFGS.{n}" for n in range(5)}
    assert chosen("optiminfo") == {case.id for case in REGISTRY if case.id.startswith("optiminfo.")}


@pytest.mark.parametrize("case_id", SMOKE)
@pytest.mark.parametrize("impl", ["torch", "myautograd"])
def test_smoke(case_id, impl):
    for dtype in ("float32", "float64"):
        record = judged(REGISTRY.get(case_id), resolve(REFERENCE), resolve(impl), dtype=dtype)
        assert record["outcome"] == "pass", record


def mutant_observed(name: str, case, dtype: str) -> dict:
    def task():
        import myautograd
        import tests.mutants as mutants

        mutants.apply(name)
        return observe(case, myautograd, "cpu", dtype)

    return isolated(task)


@pytest.mark.parametrize(("mutant", "case_id"), [
    ("adam_maximize_after_weight_decay", "optiminfo.Adam.3"),
    ("rmsprop_centered_ignored", "optiminfo.RMSprop.4"),
    ("adafactor_factors_swapped", "optiminfo.Adafactor.0"),
    ("muon_newton_schulz_one_step_short", "optiminfo.Muon.0"),
    ("scheduler_steps_at_construction", "lr_schedulers.StepLR"),
    ("instance_norm_running_stats_in_training", "moduleinfo.InstanceNorm1d.3"),
    ("prelu_weight_gradient_across_channels", "moduleinfo.PReLU.5"),
    ("avg_pool_count_include_pad_ignored", "moduleinfo.AvgPool1d.3"),
    ("fractional_samples_reversed", "moduleinfo.FractionalMaxPool2d.0"),
    ("margin_ranking_target_sign_flipped", "moduleinfo.MarginRankingLoss.0"),
    ("multi_margin_gradient_unweighted", "moduleinfo.MultiMarginLoss.6"),
    ("multilabel_repeated_labels_counted_once", "moduleinfo.MultiLabelMarginLoss.0"),
    ("ctc_repeated_labels_skip_the_blank", "moduleinfo.CTCLoss.0"),
])
def test_planted_optimizer_bugs_are_caught(mutant, case_id):
    case = REGISTRY.get(case_id)
    dtype = case.dtypes[-1]
    item = Item(case, "cpu", dtype)
    reference = isolated(lambda: observe(case, resolve(REFERENCE).namespace, "cpu", dtype))
    verdict = judge(item, reference, mutant_observed(mutant, case, dtype), "myautograd").as_dict()
    assert verdict["outcome"] == "fail", verdict


@pytest.mark.parametrize(("mutant", "case_id"), [
    ("attention_scores_unscaled", "moduleinfo.TransformerEncoderLayer.0"),
    ("key_padding_mask_ignored", "moduleinfo.MultiheadAttention.21"),
])
def test_planted_attention_bugs_are_caught(mutant, case_id):
    test_planted_optimizer_bugs_are_caught(mutant, case_id)


@pytest.mark.parametrize(("mutant", "case_id"), [
    ("selective_checkpoint_cache_unused", "checkpointing.selective_checkpoint_policy_sees_ops"),
    ("selective_checkpoint_cache_unused", "checkpointing.selective_checkpoint_saved_output_mutated"),
    ("selective_checkpoint_policy_sees_packet", "checkpointing.selective_checkpoint_policy_sees_ops"),
])
def test_planted_selective_checkpoint_bugs_are_caught(mutant, case_id):
    test_planted_optimizer_bugs_are_caught(mutant, case_id)


def test_the_ids_read_off_the_data_are_the_ids_of_the_built_cases():
    """``database_case_ids`` (what an expectations file may name without being stale) builds no case."""
    from conformance.catalog import DATABASE_TOPICS, database_case_ids, opinfo

    registry = Registry()
    moduleinfo.register(registry)
    optiminfo.register(registry)
    opinfo.register(registry)
    assert database_case_ids() == tuple(case.id for case in registry if case.topic in DATABASE_TOPICS)
