"""torch.compile as the implementation under test: each scenario's computations run compiled, judged against eager torch.

``--impl torch-compile`` (Inductor), ``torch-compile-aot-eager`` (AOTAutograd, no Inductor),
``torch-compile-eager`` (Dynamo alone) and ``torch-compile-compiled-autograd`` (AOTAutograd with
``torch._dynamo.config.compiled_autograd``, which captures the backward pass itself: hooks,
accumulation, ``retain_graph``) place a divergence in Dynamo, AOTAutograd, Inductor or compiled
autograd. Each takes the option ``:dynamic`` (``--impl torch-compile-aot-eager:dynamic``):
``torch.compile(dynamic=True)``, every size symbolic from the first compile; without it,
``torch.compile``'s default (sizes static, then automatically dynamic where they change).

How a scenario runs (``Compiled.__conformance_run__``, the suite's run hook):

* the scenario is rewritten by ``regions``: each run of statements outside the recorder's attempt
  blocks (and the body of each attempt block) becomes a function that runs under
  ``torch.compile``, the scenario's variables in closure cells; graph breaks (a ``rec(...)``
  call, ``backward()``, a hook, a class definition) run eagerly between graphs, as for any user;
* the scenario gets the real ``torch`` module (Dynamo knows it) and a recorder whose calls are
  opaque to Dynamo (``torch.compiler.disable``: it never traces or compiles the suite's code);
  what is recorded is what the suite's recorder records, unchanged;
* ``__conformance_warm_up__`` compiles a small function with a backward once in the side worker,
  before it forks a child per item, so that the compiler's one-time set-up (imports, lazy
  initialisation, Inductor's toolchain) is not paid per item.

Compiler diagnostics (warnings issued from torch's compiler modules while tracing) are set aside by
the judge under the rule of ``expectations/torch-compile*.toml`` (``[warnings]``), and shown as
set aside in the reports. The namespace forwards every torch name to torch (the same objects), so
the snapshot of what a scenario records reads as torch's; ``__conformance_module__`` is ``torch``.
Like every adapter, this one never looks at which case runs. Inductor keeps its compiled kernels
in ``TORCHINDUCTOR_CACHE_DIR`` (default: a directory under ``/tmp``): keep it between runs.
"""

from __future__ import annotations

import contextlib
import types
from collections.abc import Callable
from typing import Any

import torch

from .regions import rewrite


class OpaqueRecorder:
    """The suite's recorder as the compiled scenario sees it: every call goes to the recorder
    unchanged, with Dynamo off (a graph break where a region calls it)."""

    def __init__(self, rec: Any) -> None:
        self._rec = rec
        self.device = rec.device
        self.dtype = rec.dtype
        self.float_dtype = rec.float_dtype

    @torch.compiler.disable
    def __call__(self, label: str, value: Any, *, version: bool = False) -> Any:
        return self._rec(label, value, version=version)

    @torch.compiler.disable
    def same(self, label: str, first: Any, second: Any) -> bool:
        return self._rec.same(label, first, second)

    @torch.compiler.disable
    def printed(self, label: str, text: str) -> str:
        return self._rec.printed(label, text)

    @torch.compiler.disable
    def has(self, feature: str) -> bool:
        return self._rec.has(feature)

    @torch.compiler.disable
    def attempt(self, label: str):
        return self._rec.attempt(label)


class Compiled(types.ModuleType):
    """torch's names; scenarios run with their regions under ``torch.compile(backend=...)`` (a backend's
    name, or a backend function)."""

    def __init__(self, backend: str | Callable, dynamic: bool | None = None, compiled_autograd: bool = False) -> None:
        backend_name = getattr(backend, "__name__", backend)
        super().__init__(f"conformance.adapters.torch_compile.{backend_name}", "torch under torch.compile")
        # the namespace's own names start with "_": every other name is torch's
        self._backend = backend
        self._dynamic = dynamic
        self._compiled_autograd = compiled_autograd
        settings = [f"backend {backend_name}"] + ["dynamic"] * bool(dynamic) + ["compiled autograd"] * compiled_autograd
        self.__conformance_module__ = "torch"
        self.__version__ = f"{torch.__version__} (torch.compile, {', '.join(settings)})"

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):  # never forwarded: __version__ and the hooks are ours
            raise AttributeError(name)
        return getattr(torch, name)

    def _run_region(self, region: Callable[[], None]) -> None:
        torch.compile(region, backend=self._backend, dynamic=self._dynamic)()

    def _settings(self):
        """The compiler configuration a run needs (compiled autograd, where asked), as a context."""
        if not self._compiled_autograd:
            return contextlib.nullcontext()
        import torch._dynamo

        return torch._dynamo.config.patch(compiled_autograd=True)

    # -- the suite's hooks (docs/writing-an-adapter.md) --------------------------------------------
    def __conformance_run__(self, scenario: Callable, namespace: Any, rec: Any) -> None:
        compiled = rewrite(scenario)(self._run_region)
        with self._settings():
            compiled(torch, OpaqueRecorder(rec))

    def __conformance_warm_up__(self) -> None:
        def warm_up() -> None:
            x = torch.ones(3, requires_grad=True)
            (x * x).sin().sum().backward()

        with self._settings():
            self._run_region(warm_up)


inductor = Compiled("inductor")
aot_eager = Compiled("aot_eager")
eager = Compiled("eager")
compiled_autograd = Compiled("aot_eager", compiled_autograd=True)
inductor_dynamic = Compiled("inductor", dynamic=True)
aot_eager_dynamic = Compiled("aot_eager", dynamic=True)
eager_dynamic = Compiled("eager", dynamic=True)
compiled_autograd_dynamic = Compiled("aot_eager", dynamic=True, compiled_autograd=True)
