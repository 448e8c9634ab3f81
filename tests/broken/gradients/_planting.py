"""What the planted gradient bugs share: a namespace that forwards to myautograd and patches it
lazily, in the forked child of the side under test only (never in the process that imported it)."""

from __future__ import annotations

import os

import myautograd


def exports(install):
    """``(__conformance_module__, __version__, __getattr__)`` for a planted module: ``install()``
    runs once, on the first attribute access in a process other than the importing one; dunder
    names are not forwarded; every other name is myautograd's."""
    import_pid = os.getpid()
    state = {"installed": False}  # inherited by fork: a grandchild does not install twice

    def __getattr__(name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        if os.getpid() != import_pid and not state["installed"]:
            state["installed"] = True
            install()
        return getattr(myautograd, name)

    return "myautograd", f"{myautograd.__version__} (planted gradient bug)", __getattr__
