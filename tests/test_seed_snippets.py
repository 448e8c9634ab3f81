"""Every code snippet of the seed tutorials prints the same under myautograd as under torch.

The snippets live in ``tests/seed_snippets/`` (copied verbatim from the seed documents, one file
each). Each test runs one snippet twice, each time in a fresh interpreter: once with the real
torch, once with myautograd standing in for torch (its modules installed in ``sys.modules``
under the torch names before the snippet runs). The two runs must agree on:

* stdout, exactly;
* how the run ends: both succeed, or both raise the same exception type with the same message
  (the last line of the traceback on stderr);
* the warnings emitted, as a list of (category, message): the runner records them with
  ``warnings.catch_warnings(record=True)`` and the "always" filter and writes them as JSON to a
  separate file.

Every text is normalised by the conformance suite's own rules (``conformance/normalize.py``:
object addresses, torch's "(Triggered internally at ...)" suffix, myautograd's module name
read as ``torch``), and warnings the suite ignores are left out.

This module is also the runner: ``python tests/test_seed_snippets.py torch|myautograd SNIPPET
WARNINGS_JSON`` runs one snippet on one side.
"""

from __future__ import annotations

import importlib
import itertools
import json
import os
import pkgutil
import runpy
import subprocess
import sys
import textwrap
import types
import warnings
from dataclasses import dataclass
from pathlib import Path

import pytest

from conformance.normalize import Normalizer, is_ignored_warning

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SNIPPETS = sorted((HERE / "seed_snippets").glob("*.py"))
TIMEOUT = 120
SIDES = ("torch", "myautograd")

NORMALIZE = {"torch": Normalizer(), "myautograd": Normalizer("myautograd")}


# -- standing in for torch -------------------------------------------------------------------
def myautograd_alias_modules() -> None:
    """Install myautograd's modules in ``sys.modules`` under the torch names.

    ``torch`` becomes ``myautograd``, and every public submodule myautograd provides becomes the
    matching ``torch.<sub>`` (``torch.nn``, ``torch.nn.functional``, ``torch.optim``,
    ``torch.autograd``, ``torch.cuda``, ...), so that ``import torch.nn as nn`` and
    ``from torch.autograd import Variable`` find myautograd's. Submodules are found on disk
    (imported here), in ``sys.modules``, and as module attributes of loaded modules.
    Submodules that cannot be imported on this machine (an optional dependency is missing) are
    not provided, and are left out.
    """
    import myautograd

    for info in pkgutil.walk_packages(getattr(myautograd, "__path__", []), prefix="myautograd.",
                                      onerror=lambda name: None):
        if not _is_public(info.name):
            continue
        try:
            importlib.import_module(info.name)
        except ImportError:
            continue

    found: dict[str, types.ModuleType] = {"myautograd": myautograd}
    for name, module in list(sys.modules.items()):
        if name.startswith("myautograd.") and _is_public(name) and isinstance(module, types.ModuleType):
            found[name] = module
    pending = list(found.items())
    while pending:  # submodules reachable only as attributes of a loaded module
        name, module = pending.pop()
        for attribute, value in list(vars(module).items()):
            full = f"{name}.{attribute}"
            if isinstance(value, types.ModuleType) and full not in found and _is_public(full):
                if getattr(value, "__name__", None) == full:
                    found[full] = value
                    pending.append((full, value))

    for name, module in found.items():
        sys.modules["torch" + name[len("myautograd"):]] = module


def _is_public(dotted: str) -> bool:
    return not any(part.startswith("_") for part in dotted.split("."))


def install_myautograd_as_torch() -> None:
    import myautograd

    install = getattr(myautograd, "install_as_torch", None)
    if install is not None:
        install()
    else:
        myautograd_alias_modules()


# -- the runner (one snippet, one side, in this process) -------------------------------------
def run_snippet(side: str, snippet: str, warnings_file: str) -> None:
    if side == "myautograd":
        install_myautograd_as_torch()
    else:
        import torch  # noqa: F401  (imported before recording, as myautograd is)
    sys.argv = [snippet]
    caught: list[warnings.WarningMessage] = []
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            runpy.run_path(snippet, run_name="__main__")
    finally:
        records = [{"category": _type_name(w.category), "message": str(w.message)} for w in caught]
        Path(warnings_file).write_text(json.dumps(records, ensure_ascii=False, indent=1), encoding="utf-8")
        sys.stdout.flush()


def _type_name(cls: type) -> str:
    module = getattr(cls, "__module__", "")
    return cls.__qualname__ if module in ("builtins", "") else f"{module}.{cls.__qualname__}"


# -- running both sides ----------------------------------------------------------------------
@dataclass
class Outcome:
    side: str
    returncode: int
    stdout: str
    stderr: str
    warnings: list[tuple[str, str]]

    @property
    def ending(self) -> str:
        """``ok``, or the last line of the traceback (``Type: message``), normalised."""
        if self.returncode == 0:
            return "ok"
        lines = [line for line in self.stderr.splitlines() if line.strip()]
        last = lines[-1] if lines else f"exit status {self.returncode}, nothing on stderr"
        return NORMALIZE[self.side](last)

    @property
    def printed(self) -> str:
        return NORMALIZE[self.side](self.stdout)

    @property
    def warning_list(self) -> list[tuple[str, str]]:
        normalize = NORMALIZE[self.side]
        return [(normalize(category), normalize(message)) for category, message in self.warnings
                if not is_ignored_warning(category, message)]


def run_side(side: str, snippet: Path, tmp_path: Path) -> Outcome:
    warnings_file = tmp_path / f"{side}-warnings.json"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    env["PYTHONIOENCODING"] = "utf-8"
    env.pop("PYTHONWARNINGS", None)
    try:
        completed = subprocess.run(
            [sys.executable, str(Path(__file__).resolve()), side, str(snippet), str(warnings_file)],
            cwd=tmp_path, env=env, capture_output=True, text=True, encoding="utf-8", timeout=TIMEOUT,
        )
    except subprocess.TimeoutExpired as exc:
        output = exc.stdout.decode("utf-8", "replace") if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        return Outcome(side, -1, output, f"timed out after {TIMEOUT} s", [])
    recorded: list[tuple[str, str]] = []
    if warnings_file.exists():
        recorded = [(w["category"], w["message"]) for w in json.loads(warnings_file.read_text(encoding="utf-8"))]
    return Outcome(side, completed.returncode, completed.stdout, completed.stderr, recorded)


def side_by_side(left: str, right: str, titles: tuple[str, str] = SIDES, width: int = 60) -> str:
    """Two texts in columns, a ``!`` in the gutter where the lines differ."""
    rows = [f"  {titles[0]:<{width}} | {titles[1]}", f"  {'-' * width}-+-{'-' * width}"]
    for a, b in itertools.zip_longest(_wrapped(left, width), _wrapped(right, width)):
        mark = " " if a == b else "!"
        a_text = "<no line>" if a is None else a
        b_text = "<no line>" if b is None else b
        rows.append(f"{mark} {a_text:<{width}} | {b_text}")
    return "\n".join(rows)


def _wrapped(text: str, width: int) -> list[str]:
    lines = []
    for line in text.splitlines() or ["(nothing)"]:
        lines.extend(textwrap.wrap(line, width, replace_whitespace=False, drop_whitespace=False) or [""])
    return lines


def stderr_tail(outcome: Outcome, lines: int = 15) -> str:
    tail = outcome.stderr.rstrip().splitlines()[-lines:]
    return "\n".join("    " + line for line in tail) if tail else "    (nothing)"


def report(snippet: Path, torch_run: Outcome, impl_run: Outcome, problems: list[str]) -> str:
    parts = [f"{snippet.name}: myautograd differs from torch ({', '.join(problems)})", ""]
    parts.append("printed output (normalised):")
    parts.append(side_by_side(torch_run.printed, impl_run.printed))
    parts.append("")
    parts.append("how the run ends:")
    parts.append(side_by_side(torch_run.ending, impl_run.ending))
    parts.append("")
    parts.append("warnings (category: message):")
    parts.append(side_by_side("\n".join(f"{c}: {m}" for c, m in torch_run.warning_list),
                              "\n".join(f"{c}: {m}" for c, m in impl_run.warning_list)))
    if impl_run.returncode != 0 and impl_run.ending != torch_run.ending:
        parts.append("")
        parts.append("myautograd's stderr (tail):")
        parts.append(stderr_tail(impl_run))
    return "\n".join(parts)


@pytest.mark.parametrize("snippet", SNIPPETS, ids=[p.stem for p in SNIPPETS])
def test_snippet_matches_torch(snippet: Path, tmp_path: Path) -> None:
    torch_run = run_side("torch", snippet, tmp_path)
    # torch is the reference: it must run the snippet to its end, or to an error raised by the
    # snippet's own code (the documents show some on purpose), never fail in the runner.
    if torch_run.returncode != 0 and f'File "{snippet}"' not in torch_run.stderr:
        pytest.fail(f"{snippet.name}: the runner failed on the torch side:\n{stderr_tail(torch_run)}", pytrace=False)
    impl_run = run_side("myautograd", snippet, tmp_path)
    problems = []
    if impl_run.printed != torch_run.printed:
        problems.append("printed output")
    if impl_run.ending != torch_run.ending:
        problems.append("ending")
    if impl_run.warning_list != torch_run.warning_list:
        problems.append("warnings")
    if problems:
        pytest.fail(report(snippet, torch_run, impl_run, problems), pytrace=False)


FAKE_PACKAGE = {
    "__init__.py": "from . import nn, autograd\ndef tensor(data):\n    return ('fake tensor', data)\n",
    "nn/__init__.py": "from . import functional\n",
    "nn/functional.py": "",
    "autograd/__init__.py": "class Variable:\n    pass\n",
    "optim.py": "",
    "_private.py": "",
}
ALIAS_CHECK = """
import sys, types
sys.path.insert(0, sys.argv[1])
import test_seed_snippets
import myautograd
myautograd.cuda = types.ModuleType("myautograd.cuda")  # a submodule that exists only as an attribute
test_seed_snippets.myautograd_alias_modules()
import torch
import torch.nn.functional as F
import torch.optim as optim
import torch.cuda as cuda
from torch.autograd import Variable
assert torch is myautograd and torch.tensor(1) == ('fake tensor', 1)
assert F is sys.modules["myautograd.nn.functional"] and optim is sys.modules["myautograd.optim"]
assert cuda is myautograd.cuda and Variable is sys.modules["myautograd.autograd"].Variable
assert "torch._private" not in sys.modules
print("aliased")
"""


def test_alias_modules_puts_myautograd_under_the_torch_names(tmp_path: Path) -> None:
    """The aliasing itself, on a stand-in package (independent of how far myautograd is)."""
    for name, text in FAKE_PACKAGE.items():
        path = tmp_path / "myautograd" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), str(ROOT)]))  # the stand-in comes first
    completed = subprocess.run([sys.executable, "-c", ALIAS_CHECK, str(HERE)], cwd=tmp_path, env=env,
                               capture_output=True, text=True, timeout=TIMEOUT)
    assert completed.stdout.strip() == "aliased", completed.stderr


def test_every_snippet_names_its_source() -> None:
    assert len(SNIPPETS) >= 40
    for snippet in SNIPPETS:
        first = snippet.read_text(encoding="utf-8").splitlines()[0]
        assert first.startswith(f"# From seed {snippet.name[:3]}_"), snippet.name


if __name__ == "__main__":
    run_snippet(*sys.argv[1:4])
