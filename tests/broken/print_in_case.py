"""Broken in the cases named by $BROKEN_CASES only: prints a line there (their printed output
differs from torch's). Every other case behaves as on torch."""

from ._fault import exports as _exports
from ._fault import running_targeted_case as _running_targeted_case

_printed = []


def _on_access():
    if not _printed and _running_targeted_case():
        _printed.append(True)
        print("broken: print_in_case")


__conformance_module__, __version__, __getattr__ = _exports(on_access=_on_access)
