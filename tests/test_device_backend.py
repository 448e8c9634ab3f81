"""torch on another device as the implementation (``--impl NAME@DEVICE``, ``conformance/placement.py``).

On a machine without a second device, ``tests/fakes/renamed_cpu.py`` is one: torch's CPU under the
PrivateUse1 name ``renamedcpu``, whose tensors say they are on ``renamedcpu:0``.

* the option: ``NAME@DEVICE`` is parsed and checked before anything runs (one line, exit status 2
  for a malformed name, the CPU as the implementation's device, a ``--device`` other than the CPU, a
  device name the implementation does not know); a device it cannot use makes the run incomplete
  (exit status 5) with the reason;
* requests carry the implementation's device, and the reference's own;
* torch against itself on the second device: a selection of the checks device-backend authors ask
  for (accumulation, ``retain_graph``, ``no_grad``/``inference_mode``, ``detach``, hooks), printed
  reprs and ``from_numpy`` passes whole, because the implementation's device reads as the
  reference's (``normalize.device_rules``); the cases tied to some devices skip with the reason;
* a planted device fault (``exp``'s result left on the CPU, ``tests.broken.exp_left_on_cpu``) is
  caught, at the ``api`` level, on the steps that show it, and every report says where each side ran;
* the pytest plugin takes the same names;
* where a GPU is present, torch on CUDA runs the same selection against torch on the CPU.
"""

from __future__ import annotations

import json
import os
import sys
import xml.etree.ElementTree as ET

import pytest

from conformance.catalog import load
from conformance.item import Item
from conformance.normalize import Normalizer, device_rules
from conformance.placement import Placement, PlacementError
from conformance.pool import PoolConfig, SideWorker
from tests.support.sides import isolated

FAKE = "tests.fakes.renamed_cpu@renamedcpu"
BROKEN = "tests.broken.exp_left_on_cpu@renamedcpu"
ASKED_FOR = ("accumulation", "retain_graph", "grad_mode", "detach", "hooks")  # by device-backend authors
TIED = ("device.mixed_devices_in_one_op", "numeric.trace_of_float32_adds_up_in_double_on_cpu")
# the topics by their ids' prefix ("hooks" alone would also select every case with the hooks feature)
SELECTION = " or ".join((*(f"{topic}." for topic in ASKED_FOR), "grad_fn.tensor_and_node_reprs", "op.tensor.numpy",
                         "op.exp.default", *TIED))


def run(run_cli, out, *args: str):
    done = run_cli("run", "--report-dir", str(out), "--no-progress", *args)
    results = out / "results.json"
    return done, json.loads(results.read_text(encoding="utf-8")) if results.exists() else None


def tensor_devices(value) -> set[str]:
    """The devices of every tensor in an observation (as its side recorded them)."""
    if isinstance(value, dict):
        own = {value["device"]} if value.get("t") == "tensor" and isinstance(value.get("device"), str) else set()
        return own.union(*(tensor_devices(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(tensor_devices(v) for v in value))
    return set()


# -- the option -------------------------------------------------------------------------------
@pytest.mark.parametrize("name, implementation, device", [
    ("torch", "torch", None), ("torch@cuda", "torch", "cuda"), ("torch@cuda:1", "torch", "cuda:1"),
    ("mypkg.api:namespace@privateuseone", "mypkg.api:namespace", "privateuseone"),
])
def test_the_implementation_and_its_device(name, implementation, device):
    assert Placement.of(name) == Placement(implementation, device)


@pytest.mark.parametrize("name, why", [
    ("torch@", "'' is not a device name"), ("@cuda", "no implementation before '@'"),
    ("torch@cuda:x", "'cuda:x' is not a device name"), ("torch@cuda@cuda", "'cuda@cuda' is not a device name"),
    ("torch@cpu", "the reference runs on the CPU"), ("torch@cpu:0", "the reference runs on the CPU"),
])
def test_a_device_that_cannot_be_asked_for(name, why):
    with pytest.raises(PlacementError, match=f"^--impl {name}: {why}"):
        Placement.of(name)


def test_each_side_runs_on_its_device_and_the_reference_on_the_cpu_only():
    placed, usual = Placement.of("torch@cuda"), Placement.of("torch")
    assert placed.device_for("implementation", "cpu") == "cuda" and placed.device_for("reference", "cpu") == "cpu"
    assert usual.device_for("implementation", "cuda") == "cuda"
    assert placed.reference_devices(None) == ("cpu",) and usual.reference_devices(None) == ("cpu", "cuda")
    with pytest.raises(PlacementError, match="^--device cpu,cuda: with the implementation on cuda, the reference runs"):
        placed.reference_devices(("cpu", "cuda"))
    cases = {case.id: case for case in load()}
    generic, cuda_only = cases["accumulation.chain_rule_sums_over_paths"], cases["device.mixed_devices_in_one_op"]
    assert placed.skip_reason(generic, "cpu") is None and usual.skip_reason(cuda_only, "cpu") is None
    assert placed.skip_reason(generic, "cuda").startswith("with the implementation on cuda, the reference runs")
    assert placed.skip_reason(cuda_only, "cuda").startswith("the case runs on cuda only")
    assert [item.key for item in placed.tied_items([generic, cuda_only], ("cpu",))] == [
        ("device.mixed_devices_in_one_op", "cuda", "float32")]


def test_requests_carry_each_sides_device():
    item = Item(next(iter(load())), "cpu", "float32")
    sent = {}
    for side in ("reference", "implementation"):
        worker = SideWorker(side, PoolConfig(impl=FAKE))
        read, worker.request_fd = os.pipe()
        worker.send(item, 5.0, 1)
        os.close(worker.request_fd)
        with os.fdopen(read, "rb") as requests:
            sent[side] = json.loads(requests.readline())["device"]
    assert sent == {"reference": "cpu", "implementation": "renamedcpu"}


@pytest.mark.parametrize("args, message", [
    (("--impl", "torch@"), "--impl torch@: '' is not a device name (expected NAME@DEVICE, such as torch@cuda, "
                           "torch@cuda:1 or torch@privateuseone)"),
    (("--impl", "torch@cpu"), "--impl torch@cpu: the reference runs on the CPU; the implementation's device must be "
                              "another one (or leave out @cpu)"),
    (("--impl", "torch@cuda", "--device", "cuda"), "--device cuda: with the implementation on cuda, the reference "
                                                   "runs on the CPU only (leave --device out, or give --device cpu)"),
    (("--impl", "torch@nosuchdevice"), "unknown device 'nosuchdevice' for the implementation: RuntimeError: Expected "
                                       "one of cpu, cuda"),
])
def test_a_device_that_cannot_be_asked_for_is_one_line_and_exit_status_2(run_cli, tmp_path, args, message):
    done, results = run(run_cli, tmp_path, *args, "-k", "accumulation.chain_rule_sums_over_paths")
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stdout + done.stderr
    assert done.stderr.startswith(f"conformance: error: {message}") and results is None


def test_a_device_the_implementation_cannot_use_makes_the_run_incomplete(run_cli, tmp_path):
    done, results = run(run_cli, tmp_path, "--impl", "tests.broken.no_cuda@cuda", "-k",
                        "accumulation.chain_rule_sums_over_paths")  # CUDA not available, on every machine
    assert done.returncode == 5, done.stdout + done.stderr
    assert results["incomplete"][0] == "the implementation's device cuda cannot be used: CUDA not available"
    assert [(r["outcome"], r["detail"]) for r in results["cases"]] == [
        ("skip", "CUDA not available (implementation, on cuda)")]
    assert results["implementation"]["device"] == "cuda" and results["implementation"]["reads_as"] is None


# -- the normalisation ------------------------------------------------------------------------
@pytest.mark.parametrize("device", ["cuda:0", "renamedcpu:0", "meta"])
def test_device_rule_examples(device):
    for rule in device_rules(device):
        assert rule.apply(rule.example) == rule.expected, rule.name


def test_only_the_implementations_device_reads_as_the_cpu():
    normalize = Normalizer("torch", "cuda:0")
    assert [normalize(text) for text in ("cuda:0", "cuda", "device(type='cuda', index=0)")] == [
        "cpu", "cpu", "device(type='cpu')"]
    assert normalize("cpu") == "cpu, not the implementation's device cuda:0"
    assert normalize("device(type='cpu')") == "device(type='cpu'), not the implementation's device cuda:0"
    assert [normalize(text) for text in ("cuda:1", "tensor([1.], device='cuda:1')")] == [
        "cuda:1", "tensor([1.], device='cuda:1')"]
    assert Normalizer()("cuda:0") == "cuda:0" and Normalizer("torch")("cpu") == "cpu"


REPRS = (
    "torch.tensor([1.0, 2.0], requires_grad=True, device=d)",
    "torch.tensor([1.0, 2.0], requires_grad=True, device=d).to(torch.float64)",
    "torch.arange(40.0, device=d).reshape(4, 10).requires_grad_() * 2",
    "torch.zeros(0, 3, dtype=torch.float64, device=d)",
    "torch.linspace(0, 1, 11, dtype=torch.float64, device=d) * 3",
    "torch.arange(12.0, dtype=torch.float64, device=d).requires_grad_().exp()",
    "torch.tensor(3.5, requires_grad=True, device=d) * 1e10",
    "torch.ones(3, 3, dtype=torch.int32, device=d)",
    "torch.nn.Parameter(torch.ones(2, device=d))",
)


def reprs_on(device: str) -> list[str]:
    import torch

    return [repr(eval(made, {"torch": torch, "d": device})) for made in REPRS]  # noqa: S307 - our own expressions


def test_a_repr_on_the_device_reads_as_torch_prints_it_on_the_cpu():
    """torch wraps a repr's arguments by line length: without the device, they are laid out again."""

    def on_the_fake_device():
        import torch

        from tests.fakes import renamed_cpu

        renamed_cpu.install(torch)
        return {"status": "completed", "steps": [], "reprs": reprs_on(renamed_cpu.DEVICE)}

    shown = isolated(on_the_fake_device)["reprs"]
    assert all("device='renamedcpu:0'" in text for text in shown)
    assert [Normalizer("torch", "renamedcpu:0")(text) for text in shown] == reprs_on("cpu")


# -- torch against itself on a second device, and a planted device fault -----------------------------
@pytest.fixture(scope="module")
def on_the_fake_device(run_cli, tmp_path_factory):
    return run(run_cli, tmp_path_factory.mktemp("renamed-cpu"), "--impl", FAKE, "-k", SELECTION,
               "--full-observations")


def test_torch_on_a_second_device_passes_the_checks_device_backends_ask_for(on_the_fake_device):
    done, results = on_the_fake_device
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert results["implementation"] | {"version": None} == {
        "name": FAKE, "module": "torch", "version": None, "device": "renamedcpu", "reads_as": "renamedcpu:0"}
    ran = [r for r in results["cases"] if r["outcome"] != "skip"]
    assert len(ran) > 100 and {r["outcome"] for r in ran} == {"pass"}
    assert {r["topic"] for r in ran} >= {*ASKED_FOR, "grad_fn", "op"}
    # every tensor was made on the device asked for: the normalisation, not the sides, made them alike
    steps = {side: [s for r in ran for s in r[side]["steps"]] for side in ("reference", "implementation")}
    assert tensor_devices([s.get("value") for s in steps["reference"]]) == {"cpu"}
    assert tensor_devices([s.get("value") for s in steps["implementation"]]) == {"renamedcpu:0"}
    printed = [s["value"] for s in steps["implementation"] if s["label"] == "repr(x)"]
    assert printed == ["tensor([1., 2.], device='renamedcpu:0', requires_grad=True)"]


def test_cases_tied_to_some_devices_skip_with_the_reason(on_the_fake_device):
    _, results = on_the_fake_device
    skipped = {(r["id"], r["device"]): r["detail"] for r in results["cases"] if r["outcome"] == "skip"}
    reason = ("the case runs on {} only: it checks behaviour of that device, or places tensors on several devices "
              "itself, so it cannot compare the implementation on renamedcpu with the reference on the CPU")
    assert skipped == {("device.mixed_devices_in_one_op", "cuda"): reason.format("cuda"),
                       ("numeric.trace_of_float32_adds_up_in_double_on_cpu", "cpu"): reason.format("cpu")}


def test_a_result_left_on_the_cpu_is_caught(run_cli, tmp_path):
    done, results = run(run_cli, tmp_path, "--impl", BROKEN, "-k",
                        "op.exp.default or accumulation.chain_rule_sums_over_paths")
    assert done.returncode == 1, done.stdout + done.stderr
    records = {r["id"] + r["dtype"]: r for r in results["cases"]}
    assert records["accumulation.chain_rule_sums_over_pathsfloat32"]["outcome"] == "pass"
    for dtype in ("float32", "float64"):
        record = records[f"op.exp.default{dtype}"]
        assert record["levels"] == {"semantics": "pass", "api": "fail", "drop-in": "fail"}
        assert {d["aspect"] for d in record["diff"]} == {"device"}
        assert [d["where"] for d in record["diff"]] == [  # torch.exp and Tensor.exp, never exp_ nor the gradients
            "step 1: 1: torch.exp(x): device", "step 16: 2: x.exp(): device", "step 31: 3: torch.exp(x): device",
            "step 46: 4: torch.exp(x): device", "step 76: 6: torch.exp(x): device"]
        assert record["detail"] == (
            "step 1: 1: torch.exp(x): device (alike as recorded, read as 'cpu' on torch's side and \"cpu, not the "
            "implementation's device renamedcpu:0\" on the implementation's): torch 'cpu' / implementation 'cpu'")
    where = "the implementation on renamedcpu (its tensors on renamedcpu:0, read as the CPU's), the reference on the CPU"
    assert where in (tmp_path / "summary.md").read_text(encoding="utf-8").replace("\\_", "_")
    assert "<dt>placement</dt><dd>the implementation on renamedcpu" in (tmp_path / "report.html").read_text(
        encoding="utf-8")
    junit = ET.parse(tmp_path / "junit.xml").getroot()
    assert junit.find(".//property[@name='implementation.device']").get("value") == where


def test_the_pytest_plugin_takes_the_same_names(tmp_path):
    import subprocess

    from tests.conftest import ROOT

    done = subprocess.run(
        [sys.executable, "-m", "pytest", "tests/test_catalog.py", "-p", "no:xdist", "-p", "no:cacheprovider", "-rs",
         "--impl", FAKE, "-k", "chain_rule_sums_over_paths or mixed_devices_in_one_op", "-q"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
        env={k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "COV_"))})
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "1 passed, 2 skipped" in done.stdout
    assert ("with the implementation on renamedcpu, the reference runs on the CPU only: the case's cpu item runs, not "
            "its cuda item") in done.stdout
    assert "the case runs on cuda only: it checks behaviour of that device" in done.stdout


def test_torch_on_cuda_against_torch_on_the_cpu(run_cli, tmp_path):
    """Where a GPU is present: the same selection with torch itself on CUDA. What differs is a finding
    about torch on CUDA, not a failure of the harness: every item runs (the tied cases aside), on CUDA,
    and none ends in a crash, a timeout or an error."""
    import torch

    if not torch.cuda.is_available():
        pytest.skip("CUDA not available")
    done, results = run(run_cli, tmp_path, "--impl", "torch@cuda", "-k", SELECTION, "--full-observations")
    assert done.returncode in (0, 1), done.stdout[-3000:] + done.stderr[-3000:]
    assert results["implementation"]["reads_as"] == "cuda:0"
    ran = [r for r in results["cases"] if r["outcome"] != "skip"]
    assert len(ran) == len(results["cases"]) - 3 and not {"crash", "timeout", "error"} & {r["outcome"] for r in ran}
    assert "cuda:0" in tensor_devices([s.get("value") for r in ran for s in r["implementation"]["steps"]])
