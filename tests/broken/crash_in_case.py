"""Broken in the cases named by $BROKEN_CASES only: the process dies by SIGSEGV when the scenario
first uses the namespace. Every other case behaves as on torch."""

import signal as _signal

from ._fault import die_by as _die_by
from ._fault import exports as _exports
from ._fault import running_targeted_case as _running_targeted_case


def _on_access():
    if _running_targeted_case():
        _die_by(_signal.SIGSEGV)


__conformance_module__, __version__, __getattr__ = _exports(on_access=_on_access)
