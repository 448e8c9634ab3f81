"""The features a fuzzed program uses, seen from outside the generator.

Two witnesses, neither of them the generator's own bookkeeping:

* its source, through ``features.detected`` (the detectors that check the catalog's declarations);
* a run of it on torch, in a forked child (a torch bug that crashes the process must not take the
  tests with it), under a ``TorchFunctionMode`` that sees every tensor a torch function takes or
  returns: a tensor of other than one element is ``non-scalar``, float64 ``float64``, complex
  ``complex``, any other non-float dtype ``integer-dtypes``; a new view made by a function (not
  by ``autograd.grad``, whose batched gradients are views of its own) is ``views``; and torch's
  errors name what they check: a second backward through a freed graph is ``retain-graph``, a
  saved tensor changed in place is ``version-counter``.

What the source shows of the rest (hooks, ``retain_grad``, grad modes, in-place ops, ...) the
detectors see.
"""

from __future__ import annotations

import contextlib
import faulthandler
import json
import os
import signal
import warnings

import torch
from torch.overrides import TorchFunctionMode
from torch.utils._pytree import tree_flatten

from conformance.features import detected

# torch's error messages -> the feature whose check raised them
ERRORS = {
    "retain-graph": "backward through the graph a second time",
    "version-counter": "modified by an inplace operation",
}
CRASHED = "crashed"   # what ``features_of`` returns for a run that died (a torch bug)


class _Recorder:
    """The ``rec`` a fuzzed program calls: keeps values, and exceptions' messages from ``attempt``."""

    def __init__(self, dtype: str) -> None:
        self.device, self.dtype, self.float_dtype = "cpu", dtype, getattr(torch, dtype)
        self.values: list = []
        self.errors: list[str] = []

    def __call__(self, label, value, *, version=False):
        self.values.append(value)
        return value

    def same(self, label, a, b) -> None:
        pass

    def printed(self, label, text) -> None:
        pass

    def has(self, feature: str) -> bool:
        return True

    @contextlib.contextmanager
    def attempt(self, label):
        try:
            yield
        except Exception as exc:  # noqa: BLE001 - an exception is the step's outcome, as in the recorder
            self.errors.append(f"{type(exc).__name__}: {exc}")


class _Watch(TorchFunctionMode):
    def __init__(self) -> None:
        super().__init__()
        self.features: set[str] = set()

    def see(self, value) -> None:
        if not isinstance(value, torch.Tensor):
            return
        if value.numel() != 1:
            self.features.add("non-scalar")
        if value.dtype == torch.float64:
            self.features.add("float64")
        if value.dtype.is_complex:
            self.features.add("complex")
        elif not value.dtype.is_floating_point:
            self.features.add("integer-dtypes")

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        result = func(*args, **kwargs)
        given = [v for v in tree_flatten((args, kwargs))[0] if isinstance(v, torch.Tensor)]
        for value in given + tree_flatten(result)[0]:
            self.see(value)
        if getattr(func, "__name__", "") != "grad":
            for value in tree_flatten(result)[0]:
                if isinstance(value, torch.Tensor) and value._is_view() and all(value is not g for g in given):
                    self.features.add("views")
        return result


def _run(source: str, dtype: str) -> set[str]:
    namespace: dict = {}
    exec(compile(source, "<fuzzed program>", "exec"), namespace)
    rec, watch = _Recorder(dtype), _Watch()
    with warnings.catch_warnings(), watch:
        warnings.simplefilter("ignore")
        try:
            namespace["scenario"](torch, rec)
        except Exception as exc:  # noqa: BLE001 - as the recorder's "raised" step
            rec.errors.append(f"{type(exc).__name__}: {exc}")
    for value in rec.values:
        for item in tree_flatten(value)[0]:
            watch.see(item)
    return watch.features | {feature for feature, text in ERRORS.items() if any(text in e for e in rec.errors)}


# what torch imports lazily on first use (autograd.grad under a function mode, batched gradients,
# optimizers, functional ops), done once in the parent so that every forked child starts warm
WARM_UP = """def scenario(torch, rec):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = torch.nn.functional.softplus(x * x).sum()
    torch.autograd.grad(y, [x], create_graph=True)
    torch.autograd.grad(x * 2, [x], grad_outputs=torch.ones(2, 2), is_grads_batched=True)
    y.backward()
    for kind in (torch.optim.SGD, torch.optim.Adam, torch.optim.AdamW):
        kind([x], lr=0.1).step()
    with torch.inference_mode():
        x * 2
"""


def prepare() -> None:
    """Warm torch up in this process, on one thread, so that forked children start at once."""
    torch.set_num_threads(1)
    _run(WARM_UP, "float32")


def features_of(program, timeout: int = 60) -> set[str]:
    """The features ``program`` (a ``fuzz.program.Program``) uses: its source's, and its run's on torch
    (``CRASHED`` added when the run died, or ran past ``timeout`` seconds)."""
    found = set(detected(program.source()))
    reader, writer = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: run, report, leave without any clean-up of the parent's
        os.close(reader)
        try:
            faulthandler.disable()  # a crash of torch's is reported as CRASHED, not as a traceback of pytest's
            signal.alarm(timeout)
            os.write(writer, json.dumps(sorted(_run(program.source(), program.dtype))).encode())
        finally:
            os._exit(0)
    os.close(writer)
    with os.fdopen(reader, "rb") as pipe:
        data = pipe.read()
    os.waitpid(pid, 0)
    return found | (set(json.loads(data)) if data else {CRASHED})
