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
import json
import os
import platform
import sys

from . import catalog
from .execution import DEFAULT_TIMEOUT, Sides, run_item
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


def load_sides(impl_name: str) -> Sides:
    sides = Sides(reference=resolve(REFERENCE), implementation=resolve(impl_name))
    set_threads = getattr(sides.reference.namespace, "set_num_threads", None)
    if callable(set_threads):
        set_threads(1)
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
        case = registry.get(request["id"])
        send(run_item(case, request["device"], sides, args.timeout, args.isolation))
    return 0


if __name__ == "__main__":
    sys.exit(main())
