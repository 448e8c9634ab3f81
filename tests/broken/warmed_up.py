"""torch, with a warm-up and a run hook that leave a trace: the warm-up writes ``warm <pid>``, each
run ``run <pid> <parent pid>``, to the file named by ``CONFORMANCE_TEST_HOOK_LOG``. Nothing else
changes: the scenario runs as it is, so items pass; the log shows where and when each hook ran."""

import os

from ._fault import exports as _exports


def _log(line):
    with open(os.environ["CONFORMANCE_TEST_HOOK_LOG"], "a", encoding="utf-8") as log:
        log.write(line + "\n")


def __conformance_warm_up__():
    _log(f"warm {os.getpid()}")


def __conformance_run__(scenario, namespace, rec):
    _log(f"run {os.getpid()} {os.getppid()}")
    scenario(namespace, rec)


__conformance_module__, __version__, __getattr__ = _exports()
