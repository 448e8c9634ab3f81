"""The diagnostics of ``tests.broken.noisy_compiler``: a module whose warnings are its own, not the program's."""

import warnings


def diagnose():
    warnings.warn("noisy compiler: the scenario was looked at", UserWarning, stacklevel=1)
