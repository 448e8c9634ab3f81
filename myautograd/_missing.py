"""A clear error for the parts of torch's API that myautograd does not implement.

Each public module of myautograd sets ``__getattr__ = missing_attribute(__name__)``. Python calls a
module's ``__getattr__`` only for a name the module lacks, so reading ``torch.distributions`` or
``torch.autograd.graph.no_such`` under myautograd raises::

    AttributeError: myautograd does not implement torch.distributions (see docs/myautograd.md)

at the reader's own line (the one frame below it is this ``__getattr__``), in torch's spelling, with
the exception's ``name`` and ``obj`` set as Python sets them. The conformance suite's
``conformance/surface.py`` relies on exactly that (a lookup frame, the missing name, the module it
was read on) to call an item ``unsupported``. ``hasattr``, ``getattr(..., default)`` and ``from
package import submodule`` behave as before: they see an AttributeError. Special names
(``__path__``, ``__wrapped__``) keep Python's own message, since tools probe for them.
"""

from __future__ import annotations

import sys

DOCS = "docs/myautograd.md"
PACKAGE = __name__.rsplit(".", 1)[0]


def torch_spelling(module_name: str) -> str:
    """``myautograd.autograd.graph`` -> ``torch.autograd.graph``."""
    return "torch" + module_name[len(PACKAGE):]


def missing_attribute(module_name: str):
    """The module ``__getattr__`` for ``module_name``: every name it is asked for is one it lacks."""
    spelled = torch_spelling(module_name)

    def __getattr__(name: str):
        module = sys.modules.get(module_name)
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(f"module {spelled!r} has no attribute {name!r}", name=name, obj=module)
        raise AttributeError(f"myautograd does not implement {spelled}.{name} (see {DOCS})", name=name, obj=module)

    return __getattr__
