"""A worker process: imports torch and the implementation once, then runs items on request.

Started by the runner as ``python -m conformance.worker --impl NAME``. It speaks JSON lines:
requests ``{"id": case id, "device": ...}`` come on stdin, one result record per request goes to
the original stdout. Everything that cases or implementations print to file descriptor 1 goes
to /dev/null, so it cannot corrupt the protocol (printed output a case observes is captured
by the recorder, not written). The first line the worker sends is either
``{"ready": true, "versions": {...}}`` or ``{"fatal": "one line saying why"}``.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import platform
import sys

from . import catalog
from .execution import DEFAULT_TIMEOUT, Sides, base_record, run_item
from .implementations import REFERENCE, UnknownImplementation, resolve
from .isolation import MODES, default_mode


def protocol_channel():
    """Keep the real stdout for the protocol and point file descriptor 1 at /dev/null."""
    channel = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.close(devnull)
    sys.stdout = open(os.devnull, "w")
    return channel


# Modules torch imports lazily on first use (building an optimizer imports dynamo; autograd.grad
# and backward with an explicit gradient import symbolic_shapes). Imported once here, before any
# fork, so that each forked child does not import them again (seconds per side, every case).
REFERENCE_WARMUP = ("torch.optim", "torch._dynamo", "torch.fx.experimental.symbolic_shapes")


def warm_up(modules: tuple[str, ...] = REFERENCE_WARMUP) -> None:
    for name in modules:
        try:
            importlib.import_module(name)
        except Exception:  # an optional speed-up: the children import what they need anyway
            pass


def load_sides(impl_name: str) -> Sides:
    sides = Sides(reference=resolve(REFERENCE), implementation=resolve(impl_name))
    set_threads = getattr(sides.reference.namespace, "set_num_threads", None)
    if callable(set_threads):
        set_threads(1)
    warm_up()
    return sides


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m conformance.worker")
    parser.add_argument("--impl", required=True)
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT)
    parser.add_argument("--isolation", choices=MODES, default=default_mode())
    args = parser.parse_args(argv)
    channel = protocol_channel()

    def send(message: dict) -> None:
        channel.write(json.dumps(message) + "\n")

    try:
        sides = load_sides(args.impl)
        registry = catalog.load()
    except UnknownImplementation as exc:
        send({"fatal": str(exc)})
        return 2
    except Exception as exc:
        send({"fatal": f"the worker could not start: {type(exc).__name__}: {exc}"})
        return 2
    send({"ready": True, "versions": {
        "reference": sides.reference.version,
        "implementation": sides.implementation.version,
        "python": platform.python_version(),
    }})
    for line in sys.stdin:
        request = json.loads(line)
        send(answer(request, registry, sides, args))
    return 0


def answer(request: dict, registry, sides: Sides, args: argparse.Namespace) -> dict:
    """The result record for one request; a request the worker cannot serve gets an error record."""
    if request["id"] not in registry:
        return {"id": request["id"], "device": request["device"], "topic": request["id"].split(".")[0],
                "title": "", "outcome": "error", "detail": f"the worker's catalog has no case {request['id']!r}",
                "duration": 0.0, "reference": None, "implementation": None, "diff": []}
    case = registry.get(request["id"])
    try:
        return run_item(case, request["device"], sides, args.timeout, args.isolation)
    except Exception as exc:
        return {**base_record(case, request["device"]), "outcome": "error", "duration": 0.0,
                "detail": f"harness error: {type(exc).__name__}: {exc}", "reference": None,
                "implementation": None, "diff": []}


if __name__ == "__main__":
    sys.exit(main())
