"""The project's promises about itself: the README's commands and the CI entry point."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _readme_commands() -> list[str]:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("```"), "the README opens with its two commands"
    end = lines.index("```", 1)
    return lines[1:end]


def test_readme_opens_with_two_commands():
    commands = _readme_commands()
    assert len(commands) == 2
    assert commands[0].endswith("tox -e conformance") and commands[1].endswith("tox -e tests")


def test_ci_runs_the_readme_test_command():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert _readme_commands()[1] in ci


def test_tox_defines_the_environments_the_readme_names():
    tox = (ROOT / "tox.ini").read_text(encoding="utf-8")
    for env in ("tests", "conformance", "bench", "lint"):
        assert f"[testenv:{env}]" in tox


def test_torch_is_pinned_wherever_it_is_installed():
    for path in ("requirements/test.txt", "pyproject.toml"):
        text = (ROOT / path).read_text(encoding="utf-8")
        assert "torch==2.13.0" in text
        assert "torch>" not in text and "torch\n" not in text
