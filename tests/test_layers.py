"""myautograd's layers import one way: each module imports only from its own layer or below.

Lowest first: the foundation (arrays, dtypes, devices, random streams, grad mode, printing, hook handles,
float16 and bfloat16 computed in float32), the tensor, the autograd core (graph, recording, engine, views, the
math namespace of formulas), the operations (with ``_batched``, vmap's batched tensor, which reads the ops'
method table), the public packages (``autograd``, ``nn``, ``optim``, ``utils``, ``cuda``), and the package
itself. A lower layer that needs something from above has it registered by the higher one
(``_tensor.install``, ``formulas.NODES``, ``TensorMode.F``, ``Tensor.backward``).

Every import statement counts, including those inside functions: they are found with ``ast``,
not by importing.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LAYERS = [  # lowest first: (name, module prefixes)
    ("foundation", ("myautograd._backend", "myautograd._device", "myautograd._dtype", "myautograd._random",
                    "myautograd._size", "myautograd._grad_mode", "myautograd._printing", "myautograd._hooks",
                    "myautograd._reduced", "myautograd._summation", "myautograd._missing", "myautograd.return_types",
                    "myautograd._user_warnings", "myautograd._memory_format")),
    ("tensor", ("myautograd._tensor",)),
    ("autograd core", ("myautograd._autograd",)),
    ("operations", ("myautograd._ops", "myautograd._batched")),
    ("public packages", ("myautograd.autograd", "myautograd.nn", "myautograd.optim", "myautograd.utils",
                         "myautograd.cuda", "myautograd.backends", "myautograd.accelerator", "myautograd.func")),
    ("package", ("myautograd",)),
]
FORBIDDEN = {"torch": "myautograd never imports torch", "cupy": "only myautograd._backend knows CuPy",
             "cupyx": "only myautograd._backend knows CuPy"}


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def layer_of(module: str) -> int | None:
    """The layer of a module of the package: the one whose prefix matches it most closely."""
    best, best_length = None, -1
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best_length:
                best, best_length = index, len(prefix)
    return best


def imports_of(path: Path, root: Path) -> list[tuple[int, str]]:
    """(line, module) for every import in the file, at any depth, resolved to absolute names.
    ``from package import name`` counts as importing ``package.name`` when that is a module."""
    module = module_name(path, root)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module
            for alias in node.names:
                candidate = f"{target}.{alias.name}"
                relative = Path(root, *candidate.split("."))
                is_module = relative.with_suffix(".py").exists() or (relative / "__init__.py").exists()
                found.append((node.lineno, candidate if is_module else target))
    return found


def violations(root: Path, package: str = "myautograd") -> list[str]:
    """Every upward import, forbidden import, and module no layer claims, as readable lines."""
    problems = []
    for path in sorted((root / package).rglob("*.py")):
        module = module_name(path, root)
        own = layer_of(module)
        if own is None:
            problems.append(f"{module}: in no layer (add it to LAYERS in tests/test_layers.py)")
            continue
        for line, target in imports_of(path, root):
            top = target.split(".")[0]
            if top in FORBIDDEN and not (top.startswith("cupy") and module == "myautograd._backend"):
                problems.append(f"{module}:{line} imports {target}: {FORBIDDEN[top]}")
            if top != package:
                continue
            theirs = layer_of(target)
            if theirs is not None and theirs > own:
                problems.append(f"{module}:{line} ({LAYERS[own][0]}) imports {target} ({LAYERS[theirs][0]}), "
                                "a higher layer")
    return problems


def test_every_import_goes_down_or_stays_in_its_layer():
    problems = violations(ROOT)
    assert not problems, "\n".join(problems)


def test_function_level_imports_are_seen(tmp_path):
    """The check catches an upward import hidden in a function, and torch anywhere."""
    package = tmp_path / "myautograd"
    for sub in ("", "_ops", "_autograd"):
        (package / sub).mkdir(parents=True, exist_ok=True)
        (package / sub / "__init__.py").write_text("")
    (package / "_ops" / "views.py").write_text("def view():\n    pass\n")
    (package / "_autograd" / "engine.py").write_text("from .. import _tensor\n")
    (package / "_tensor.py").write_text(
        "import numpy\n\n\nclass Tensor:\n    def grad_fn(self):\n        from ._ops.views import view\n"
        "        import torch\n        return view\n")
    problems = violations(tmp_path)
    assert any("myautograd._tensor:6 (tensor) imports myautograd._ops.views (operations)" in p for p in problems)
    assert any("myautograd._tensor:7 imports torch" in p for p in problems)
    assert not any("engine" in p for p in problems)  # going down is fine


@pytest.mark.parametrize(("module", "layer"), [
    ("myautograd._tensor", "tensor"), ("myautograd._autograd.engine", "autograd core"),
    ("myautograd._ops.views", "operations"), ("myautograd.nn.modules.linear", "public packages"),
    ("myautograd", "package"), ("myautograd._backend", "foundation"),
])
def test_layer_names(module, layer):
    assert LAYERS[layer_of(module)][0] == layer
