"""Isolation that no implementation can break: each attack of a hostile implementation
(``tests/broken/hostile``) against the harness, through the command line, with its outcome.

Every run carries a marker in its environment; after it, no process with that marker may be
left: no worker, case, grandchild or escaped descendant outlives its run.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ATTACKS = "tests.broken.hostile.attacks:ATTACKS"
SELF_CHECK = "tests.broken.selfcheck:SELF_CHECK"


def processes_with(marker: str) -> list[int]:
    """Live processes whose environment holds ``marker`` (zombies aside)."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as handle:
                if marker.encode() not in handle.read():
                    continue
            with open(f"/proc/{name}/stat", "rb") as handle:
                if handle.read().rsplit(b")", 1)[1].split()[0] == b"Z":
                    continue
        except OSError:
            continue
        found.append(int(name))
    return found


def assert_nothing_left(marker: str) -> None:
    deadline = time.monotonic() + 5
    while processes_with(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert processes_with(marker) == [], "processes of the run outlived it"


def cli(*args: str, env: dict | None = None, timeout: float = 240) -> tuple[subprocess.CompletedProcess, str]:
    marker = f"CONFORMANCE_TEST_RUN={uuid.uuid4().hex}"
    key, value = marker.split("=")
    done = subprocess.run([sys.executable, "-m", "conformance", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, **(env or {}), key: value})
    return done, marker


def start_cli(*args: str, env: dict | None = None) -> tuple[subprocess.Popen, str]:
    marker = f"CONFORMANCE_TEST_RUN={uuid.uuid4().hex}"
    key, value = marker.split("=")
    process = subprocess.Popen([sys.executable, "-m", "conformance", *args], cwd=ROOT, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                               env={**os.environ, **(env or {}), key: value})
    return process, marker


def journal_items(path: Path) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n")[1:-1] if line]


def wait_for_items(path: Path, count: int, process: subprocess.Popen, limit: float = 120) -> None:
    deadline = time.monotonic() + limit
    while len(journal_items(path)) < count:
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the run did not get going"
        time.sleep(0.05)


# -- attacks made while a case runs (one run, one item per attack) -----------------------------
@pytest.fixture(scope="module")
def attacked(tmp_path_factory):
    reports = tmp_path_factory.mktemp("attacked")
    pids = tmp_path_factory.mktemp("pids")
    done, marker = cli("run", "--impl", "tests.broken.hostile.in_case", "--registry", ATTACKS, "--device", "cpu",
                       "--report-dir", str(reports), "--no-progress", "--timeout", "5", "--jobs", "2",
                       env={"HOSTILE_PIDFILES": str(pids)})
    result = json.loads((reports / "results.json").read_text())
    return {"done": done, "marker": marker, "reports": reports, "pids": pids, "result": result,
            "items": {r["id"].split(".", 1)[1]: r for r in result["cases"]}}


PARTED_AT_STEP_1 = "step 1 (the runs part here: one side raised or ended where the other went on): torch observed 'x.grad'"
OUTCOMES = {
    "plain": ("pass", ""),
    "forge_everywhere": ("crash", "the result is"),
    # It writes into every descriptor of the worker: the protocol pipe or the case's own result pipe
    # may take the forged lines first (a race), and each is refused as a crash.
    "forge_to_worker": ("crash", ("the implementation worker sent an answer whose seq (null) does not match",
                                  "the result is")),
    "close_fds_and_hang": ("timeout", "no result within 5 s; the process was killed"),
    "grandchild_holds_pipe": ("pass", ""),
    "grandchild_escapes": ("pass", ""),
    "kill_group": ("crash", "the process was killed by SIGKILL before reporting"),
    "kill_parent": ("crash", "the worker process ended"),
    "print_flood": ("fail", "step 1: x.grad: printed output"),
    "huge_message": ("fail", PARTED_AT_STEP_1),
    "allocate_4gb": ("crash", "out of memory: the case exceeded the memory limit of 2048 MiB"),
    "str_raises": ("fail", PARTED_AT_STEP_1),
    "deep_grad": ("fail", "step 1: x.grad: kind"),
    "bigint_values": ("fail", "step 1: x.grad: values"),
}


def test_every_attack_in_a_case_has_its_outcome_and_the_run_goes_on(attacked):
    done, items = attacked["done"], attacked["items"]
    assert done.returncode == 1, done.stderr[-2000:]
    assert set(items) == set(OUTCOMES)  # every item answered exactly once: none lost, none duplicated
    assert len(attacked["result"]["cases"]) == len(OUTCOMES)
    for name, (outcome, detail) in OUTCOMES.items():
        assert items[name]["outcome"] == outcome, (name, items[name]["detail"])
        assert items[name]["detail"].startswith(detail if isinstance(detail, tuple) else (detail,)), \
            (name, items[name]["detail"])
    assert attacked["result"]["summary"]["pass"] == 3


def test_no_process_of_an_attacked_run_is_left(attacked):
    assert_nothing_left(attacked["marker"])
    pidfiles = sorted(p.name for p in attacked["pids"].iterdir())
    assert pidfiles == ["grandchild_escapes.pid", "grandchild_holds_pipe.pid"]
    for path in attacked["pids"].iterdir():
        pid = int(path.read_text())
        assert not Path(f"/proc/{pid}").exists() or "Z" in Path(f"/proc/{pid}/stat").read_text().split(")")[1][:3]


def test_output_is_bounded_everywhere(attacked):
    items, done, reports = attacked["items"], attacked["done"], attacked["reports"]
    assert len(done.stderr) < 20_000 and len(done.stdout) < 5_000  # 100 MB printed, 1 MB message
    assert max(len(line) for line in done.stderr.splitlines()) < 400
    for name in ("results.json", "results.jsonl", "junit.xml", "report.html", "summary.md"):
        assert (reports / name).stat().st_size < 3_000_000, name
    flood = items["print_flood"]
    printed = flood["implementation"]["steps"][0]["stdout"]
    assert len(printed) < 20_000 and printed.endswith("more characters cut]")
    assert flood["implementation"]["stdout_fd"].endswith("more bytes cut]")
    assert flood["implementation"]["stderr"].endswith("more bytes cut]")
    message = items["huge_message"]["implementation"]["steps"][0]["error"]["message"]
    assert len(message) < 20_000 and message.endswith("more characters cut]")


def test_escape_sequences_reach_the_terminal_escaped(attacked):
    stderr = attacked["done"].stderr
    assert "\x1b" not in stderr and "\r" not in stderr and "\x00" not in stderr
    assert "\\x1b[2J\\x1b[31mred\\x0dover\\x00" in stderr


def test_values_the_harness_cannot_hold_become_differences(attacked):
    items = attacked["items"]
    assert items["deep_grad"]["diff"][0]["implementation"] == "<cut: nested deeper than 64 levels>"
    assert "'t': 'bigint', 'bits': 16610" in items["bigint_values"]["diff"][0]["implementation"]
    assert "<str() raised RuntimeError>" in items["str_raises"]["diff"][0]["implementation"]


def test_metadata_that_raises_is_reported_not_fatal(attacked):
    result = attacked["result"]
    assert result["implementation"]["version"] == "<str() raised ValueError>"
    assert items_pass_although_size_raises(result)


def items_pass_although_size_raises(result: dict) -> bool:
    """``torch.Size`` raises on this namespace; the snapshot reads it for every item."""
    return any(r["outcome"] == "pass" for r in result["cases"])


# -- attacks made at import ------------------------------------------------------------------------
def test_attacks_at_import_change_neither_the_judge_nor_the_reference(tmp_path):
    importers = tmp_path / "imported_by"
    done, marker = cli("run", "--impl", "tests.broken.hostile.at_import", "--registry", SELF_CHECK,
                       "--device", "cpu,cuda", "--report-dir", str(tmp_path), "--no-progress", "--timeout", "10",
                       env={"HOSTILE_IMPORTED_BY": str(importers)}, timeout=120)
    # only the implementation's workers imported it: not the judging process, not the reference's workers
    lines = importers.read_text().splitlines()
    assert lines and all("conformance/worker.py --side implementation" in line for line in lines)
    assert done.returncode == 1, done.stderr[-2000:]
    result = json.loads((tmp_path / "results.json").read_text())
    items = {r["id"]: r for r in result["cases"]}
    # the judge rebound in the implementation's process still judges here: the doubled gradient fails
    assert items["selfcheck.grad_accumulates"]["levels"]["semantics"] == "fail"
    # torch.set_default_dtype(float64) in the implementation's process: the reference saw float32
    for record in items.values():
        for step in record["reference"]["steps"]:
            if isinstance(step.get("value"), dict) and "dtype" in step["value"]:
                assert step["value"]["dtype"] == "torch.float32"
    assert items["selfcheck.plain_values"]["levels"] == {"semantics": "pass", "api": "fail", "drop-in": "fail"}
    # the version's lone surrogate is shown escaped; cuda.is_available() raising SystemExit is a reason
    assert "6.6\\udcff-hostile against torch" in done.stdout
    assert set(result["devices"]) == {"cpu", "cuda"} and result["devices"]["cpu"] == "available"
    # a non-daemon thread, a slow atexit handler and SIGCHLD ignored did not keep anything alive
    assert_nothing_left(marker)


def test_sys_exit_at_import_is_one_line_and_exit_2(tmp_path):
    done, marker = cli("run", "--impl", "tests.broken.hostile.exits_at_import", "--registry", SELF_CHECK,
                       "--device", "cpu", "--report-dir", str(tmp_path), "--no-progress", timeout=120)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "failed to import: SystemExit: 0" in done.stderr
    assert not (tmp_path / "results.jsonl").exists()
    assert_nothing_left(marker)


def test_an_import_that_hangs_gives_up_after_the_startup_timeout(tmp_path):
    started = time.monotonic()
    done, marker = cli("run", "--impl", "tests.broken.hostile.hangs_at_import", "--registry", SELF_CHECK,
                       "--device", "cpu", "--report-dir", str(tmp_path), "--no-progress", "--startup-timeout", "3",
                       timeout=120)
    assert done.returncode == 2 and time.monotonic() - started < 60
    assert done.stderr.count("\n") == 1
    assert "could not be loaded within 3 s (its import hangs?)" in done.stderr
    assert_nothing_left(marker)


def test_an_implementation_that_refuses_fork_fails_clearly_and_runs_with_spawn(tmp_path):
    common = ("run", "--impl", "tests.broken.hostile.refuses_fork", "--registry", SELF_CHECK, "-k", "plain_values",
              "--device", "cpu", "--no-progress")
    forked, marker = cli(*common, "--report-dir", str(tmp_path / "fork"), timeout=120)
    record = json.loads((tmp_path / "fork" / "results.json").read_text())["cases"][0]
    assert forked.returncode == 1 and record["outcome"] == "fail"
    assert "refuses_fork cannot be used in a forked process" in record["detail"]
    spawned, _ = cli(*common, "--report-dir", str(tmp_path / "spawn"), "--isolation", "spawn", timeout=180)
    assert spawned.returncode == 0, spawned.stderr[-2000:]
    assert_nothing_left(marker)


def test_spawn_isolation_runs_every_item_in_a_fresh_worker(tmp_path):
    # a spawned worker runs one item and exits: the next item goes to a new one, not to the one leaving
    done, marker = cli("run", "--impl", "torch", "--isolation", "spawn", "--jobs", "1", "--device", "cpu",
                       "--dtype", "float32,float64",
                       "-k", "op.isnan.default or detach.detach_inplace_on_nonleaf", "--no-progress",
                       "--report-dir", str(tmp_path), timeout=180)
    result = json.loads((tmp_path / "results.json").read_text())
    assert done.returncode == 0, [(r["id"], r["detail"]) for r in result["cases"]]
    assert result["summary"]["pass"] == result["total"] == 3
    assert_nothing_left(marker)


# -- signals and the report directory --------------------------------------------------------------
@pytest.mark.parametrize(("number", "status", "to_group"), [
    (signal.SIGINT, 130, True),     # Ctrl-C in a terminal: the whole foreground process group
    (signal.SIGTERM, 143, False),   # how CI cancels a job: the process
])
def test_signals_end_the_run_at_once_with_partial_reports(tmp_path, number, status, to_group):
    process, marker = start_cli("run", "--impl", "tests.broken.hostile.at_import", "--registry", SELF_CHECK,
                                "--device", "cpu", "--jobs", "1", "--timeout", "120", "--report-dir", str(tmp_path),
                                "--no-progress", env={"BROKEN_CASES": "selfcheck.grad_accumulates"})
    try:
        wait_for_items(tmp_path / "results.jsonl", 2, process)
        time.sleep(0.5)
        sent = time.monotonic()
        (os.killpg if to_group else os.kill)(process.pid, number)
        out, err = process.communicate(timeout=30)
        took = time.monotonic() - sent
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    assert process.returncode == status, err
    assert took < 5, took
    assert "Traceback" not in err and "interrupted by" in err
    result = json.loads((tmp_path / "results.json").read_text())
    assert result["interrupted"] is True and result["exit_status"] == status
    assert result["interrupted_by"] == signal.Signals(number).name
    assert 2 <= len(result["cases"]) < 6
    assert_nothing_left(marker)


def test_the_journal_survives_deleting_the_report_directory(tmp_path):
    reports = tmp_path / "reports"
    process, marker = start_cli("run", "--impl", "tests.broken.hang_in_case", "--registry", SELF_CHECK,
                                "--device", "cpu", "--jobs", "1", "--timeout", "4", "--report-dir", str(reports),
                                "--no-progress", env={"BROKEN_CASES": "selfcheck.grad_accumulates"})
    try:
        header = json.loads((reports / "results.jsonl").read_text().split("\n")[0]) if _wait_exists(
            reports / "results.jsonl") else None
        assert header is not None and "run" in header  # on disk before the first item
        wait_for_items(reports / "results.jsonl", 1, process)
        shutil.rmtree(reports)
        out, err = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    assert process.returncode == 1, err[-2000:]
    items = journal_items(reports / "results.jsonl")
    assert len(items) == 6 and {r["outcome"] for r in items} == {"pass", "timeout"}
    assert (reports / "results.json").exists()
    assert_nothing_left(marker)


def _wait_exists(path: Path, limit: float = 60) -> bool:
    deadline = time.monotonic() + limit
    while not path.exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    return path.exists()


# -- the command line ------------------------------------------------------------------------------
def bad_expectations(directory: Path, text: str) -> str:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "expectations.toml"
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize(("argv", "message"), [
    (["--timeout", "nan"], "'nan' is out of range"),
    (["--timeout", "inf"], "'inf' is out of range"),
    (["--timeout", "0"], "'0' is out of range"),
    (["--jobs", "-1"], "'-1' is out of range"),
    (["--memory-limit", "lots"], "'lots' is not a number of MiB"),
    (["--startup-timeout", "-5"], "'-5' is out of range"),
    (["--report-dir", "{file}"], "is not a directory"),
    (["--report-dir", "/dev/null/reports"], "cannot create it"),
    (["--report-dir", "{html_dir}"], "report.html exists and is not a regular file"),
    (["--expectations", "{case_int}"], "entry 1: case must be a str, not int"),
    (["--expectations", "{device_list}"], "entry 1: device must be a str, not list"),
    (["--expectations", "{reference_int}"], "entry 1: reference must be a str, not int"),
    (["--expectations", "{unknown_key}"], "entry 1 has unknown key 'devices'"),
    (["--expectations", "{bad_feature}"], "[profile] lacks unknown feature 'teleportation'"),
    (["--registry", "no.such.module:X"], "--registry no.such.module:X: cannot load it"),
])
def test_bad_arguments_are_one_line_and_exit_2_before_anything_runs(tmp_path, capsys, argv, message):
    from conformance import cli as cli_module

    (tmp_path / "a_file").write_text("")
    (tmp_path / "with_dir" / "report.html").mkdir(parents=True)
    entry = '[[expected]]\ncase = "leaf.*"\noutcome = "fail"\nreason = "r"\n'
    replacements = {
        "{file}": str(tmp_path / "a_file"),
        "{html_dir}": str(tmp_path / "with_dir"),
        "{case_int}": bad_expectations(tmp_path / "a", entry.replace('case = "leaf.*"', "case = 1")),
        "{device_list}": bad_expectations(tmp_path / "b", entry + 'device = ["cpu"]\n'),
        "{reference_int}": bad_expectations(tmp_path / "c", entry + "reference = 5\n"),
        "{unknown_key}": bad_expectations(tmp_path / "d", entry + 'devices = "cpu"\n'),
        "{bad_feature}": bad_expectations(tmp_path / "e", '[profile]\nlacks = ["teleportation"]\n'),
    }
    argv = [replacements.get(arg, arg) for arg in argv]
    args = ["run", "--impl", "torch", "--no-progress", *argv]
    if "--report-dir" not in argv:
        args += ["--report-dir", str(tmp_path / "reports")]
    try:
        status = cli_module.main(args)
    except SystemExit as exc:  # argparse's own errors (types, ranges)
        status = exc.code
    out, err = capsys.readouterr()
    assert status == 2
    assert out == ""
    assert message in err and err.endswith("\n") and err.count("\n") == 1, err
    assert not (tmp_path / "reports" / "results.jsonl").exists()


def test_an_unwritable_report_directory_is_one_line(tmp_path, monkeypatch, capsys):
    """As root every directory is writable, so the refusal is simulated where the check asks."""
    import tempfile

    from conformance import cli as cli_module

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(tempfile, "TemporaryFile", refuse)
    assert cli_module.main(["run", "--impl", "torch", "--report-dir", str(tmp_path), "--no-progress"]) == 2
    assert capsys.readouterr().err == f"conformance: error: --report-dir {tmp_path} is not writable (Permission denied)\n"


def test_device_checks_survive_whatever_the_implementation_does():
    from types import SimpleNamespace

    from conformance.implementations import device_status

    def exits():
        raise SystemExit(0)

    class Raising:
        @property
        def cuda(self):
            raise RuntimeError("no")

    assert device_status(SimpleNamespace(cuda=SimpleNamespace(is_available=exits)), "cuda") == \
        "CUDA not available (SystemExit: 0)"
    assert device_status(Raising(), "cuda").startswith("CUDA not supported by the implementation")
    assert device_status(SimpleNamespace(), "cuda") == "CUDA not supported by the implementation"
    assert device_status(SimpleNamespace(cuda=SimpleNamespace(is_available=lambda: True)), "cuda") is None


def test_versions_come_from_the_distribution_when_there_is_no_version_attribute():
    import importlib.metadata
    from types import SimpleNamespace

    from conformance.implementations import version_of

    numpy_version = importlib.metadata.version("numpy")
    assert version_of(SimpleNamespace(__conformance_distribution__="numpy"), None, "anything") == numpy_version
    assert version_of(SimpleNamespace(), SimpleNamespace(), "numpy.linalg") == numpy_version
    assert version_of(SimpleNamespace(), SimpleNamespace(), "no_such_distribution_xyz") == "unknown"


def test_listing_into_a_closed_pipe_ends_quietly():
    listing = subprocess.Popen([sys.executable, "-m", "conformance", "list"], cwd=ROOT, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    first = listing.stdout.readline()
    listing.stdout.close()
    _, err = listing.communicate(timeout=60)
    assert first and b"Traceback" not in err and err == b""
    assert listing.returncode in (0, 141)
