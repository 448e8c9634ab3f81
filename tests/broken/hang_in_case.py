"""Broken in the cases named by $BROKEN_CASES only: sleeps forever when the scenario first uses
the namespace. Every other case behaves as on torch."""

from ._fault import exports as _exports
from ._fault import running_targeted_case as _running_targeted_case
from ._fault import sleep_forever as _sleep_forever


def _on_access():
    if _running_targeted_case():
        _sleep_forever()


__conformance_module__, __version__, __getattr__ = _exports(on_access=_on_access)
