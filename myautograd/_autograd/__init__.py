"""The autograd layer: the backward graph, recording, the engine, and how views are followed.

It sits on ``_tensor`` and below the operations (``_ops``). The reference path is ``record.py``
(recording an op), ``formulas.py`` (nodes from derivative formulas) and ``engine.py`` (the
backward pass); ``fast.py`` holds their specialised twins, installed here unless the environment
has ``MYAUTOGRAD_FAST_PATHS=0``.
"""

from . import (
    fast,  # noqa: F401 - installs the fast paths
    views,  # noqa: F401 - installs the grad_fn of views on Tensor
)
