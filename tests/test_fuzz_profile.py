"""The fuzzer honours the implementation's profile: programs use no feature the profile lacks.

What a program uses is seen from outside the generator (``tests/support/program_features.py``: its
source through the catalog's feature detectors, and a run on torch that sees every tensor and
torch's errors). Every feature of the vocabulary is left out in turn, then the shipped engines'
profiles; unprofiled programs show that the witnesses see every feature the gate keeps out. Then
whole campaigns: torch against itself under MyGrad's profile finds nothing; an engine without
``retain_grad`` fuzzes clean when its profile says so (and is stopped on it when not); and a
derivative bug is still found when programs may use neither ``autograd.grad`` nor a retained graph.
"""

from __future__ import annotations

import warnings
from types import SimpleNamespace

import pytest

from conformance.expectations import builtin_path, load_file
from conformance.features import FEATURES
from conformance.fuzz.campaign import Campaign, FuzzConfig
from conformance.fuzz.gate import USES, Gate
from conformance.fuzz.ops import table_ops
from tests.support.program_features import CRASHED, features_of, prepare

SHIPPED = ("mygrad", "micrograd", "tinygrad")


def profile_lacks(name: str) -> tuple[str, ...]:
    return load_file(builtin_path(name)).profile.lacks


def drawn_programs(lacks: tuple[str, ...], chunks: int, seed: int = 0) -> list:
    """The programs a campaign with this profile draws in its first ``chunks`` chunks (nothing runs)."""
    campaign = Campaign(FuzzConfig(impl="torch", seed=seed, lacks=lacks))
    drawn = []

    def judge(program):
        drawn.append(program)
        return {"outcome": "pass"}

    campaign.judge = judge
    for chunk in range(chunks):
        assert campaign.run_chunk(chunk) is False
    return drawn


@pytest.fixture(scope="module", autouse=True)
def torch_ready():
    prepare()


PROFILES = [pytest.param((feature,), id=f"lacks-{feature}") for feature in FEATURES]
PROFILES += [pytest.param(profile_lacks(name), id=name) for name in SHIPPED]
PROFILES += [pytest.param(tuple(FEATURES), id="lacks-every-feature")]


@pytest.mark.parametrize("lacks", PROFILES)
def test_programs_use_no_feature_the_profile_lacks(lacks):
    programs = drawn_programs(lacks, chunks=2 if len(lacks) == 1 else 4)
    assert len(programs) >= 10
    crashed = 0
    for program in programs:
        used = features_of(program)
        assert not used & set(lacks), f"uses {sorted(used & set(lacks))}:\n{program.source()}"
        crashed += CRASHED in used  # torch's own crashes (README: two bugs of torch's): the run shows nothing
    assert crashed <= len(programs) // 10
    assert any(program.steps >= 3 for program in programs)  # programs still do things


def test_the_witnesses_see_every_feature_the_gate_keeps_out():
    kept_out = set().union(*USES.values(), *(s.features for samples in table_ops().values() for s in samples))
    seen = set()
    for program in drawn_programs((), chunks=15, seed=3):
        seen |= features_of(program) - {CRASHED}
    assert kept_out <= seen, f"never seen: {sorted(kept_out - seen)}"


def test_a_profile_that_lacks_the_device_leaves_nothing_to_draw(run_cli, tmp_path):
    profile = tmp_path / "profile.toml"
    profile.write_text('[profile]\nlacks = ["cuda"]\n')
    done = run_cli("fuzz", "--impl", "torch", "--device", "cuda", "--expectations", str(profile), "--budget", "5",
                   "--report-dir", str(tmp_path / "out"))
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "the profile lacks 'cuda': no program can run on cuda, nothing is left to draw" in done.stderr
    assert Gate.of(("cuda",)).refusal("cpu") is None


def test_torch_against_itself_under_mygrads_profile_finds_nothing(tmp_path):
    campaign = Campaign(FuzzConfig(impl="torch", budget=20, seed=5, report_dir=tmp_path, lacks=profile_lacks("mygrad")))
    finding = campaign.run()
    assert finding is None, "\n".join(path.read_text() for path in finding.paths[:2])
    assert campaign.programs >= 30


def test_an_engine_without_retain_grad_fuzzes_clean_when_its_profile_says_so(run_cli, tmp_path):
    profile = tmp_path / "profile.toml"
    profile.write_text('[profile]\nlacks = ["retain-grad"]\n')
    common = ("fuzz", "--impl", "tests.broken.no_retain_grad", "--budget", "20", "--seed", "2", "--no-shrink")
    without = run_cli(*common, "--report-dir", str(tmp_path / "without"))
    assert without.returncode == 1 and "unsupported: Tensor.retain_grad" in without.stdout, without.stdout
    profiled = run_cli(*common, "--expectations", str(profile), "--report-dir", str(tmp_path / "profiled"))
    assert profiled.returncode == 0, profiled.stdout + profiled.stderr[-2000:]
    assert "no difference in" in profiled.stdout


def test_without_autograd_grad_nor_a_retained_graph_a_derivative_bug_is_still_found(tmp_path):
    lacks = profile_lacks("mygrad")
    assert {"autograd.grad", "retain-graph", "higher-order"} <= set(lacks)
    campaign = Campaign(FuzzConfig(impl="tests.mutants:pow_exponent", budget=60, seed=0, report_dir=tmp_path,
                                   lacks=lacks, level="semantics", shrink=False))
    finding = campaign.run()
    assert finding is not None and finding.record["outcome"] == "fail", campaign.programs
    assert "autograd.grad" not in finding.program.source() and "retain_graph" not in finding.program.source()
    assert any(d["aspect"] == "gradient" for d in finding.record["diff"]), finding.record["diff"]


def test_every_operator_of_the_table_whose_result_is_a_view_needs_views():
    import torch

    warnings.simplefilter("ignore")  # the samples' own warnings (pytest restores the filters)

    rec = SimpleNamespace(device="cpu", dtype="float32", float_dtype=torch.float32)
    dtypes = {"float": torch.float32, "int64": torch.int64, "bool": torch.bool}
    unmarked = []
    for samples in table_ops().values():
        for sample in samples:
            inputs = [torch.tensor(spec.values, dtype=dtypes[spec.kind]) if spec.values is not None
                      else torch.rand(spec.shape) * (spec.high - spec.low) + spec.low for _, spec in sample.inputs]
            call = eval(f"lambda {', '.join(name for name, _ in sample.inputs)}: {sample.call}",  # noqa: S307
                        {"torch": torch, "F": torch.nn.functional, "rec": rec})
            result = call(*inputs)
            results = result if isinstance(result, (tuple, list)) else [result]
            if any(isinstance(r, torch.Tensor) and r._is_view() for r in results) and "views" not in sample.features:
                unmarked.append(f"{sample.name}: {sample.call}")
    assert not unmarked, unmarked
