"""``python -m myautograd script.py [args]``: run a script written for torch on myautograd.

``import torch``, ``import torch.nn as nn``, ``from torch.autograd import Variable`` and the
like all resolve to myautograd's modules inside the script.
"""

from __future__ import annotations

import runpy
import sys

import myautograd


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: python -m myautograd script.py [args...]", file=sys.stderr)
        return 2
    myautograd.install_as_torch()
    sys.argv = list(argv)
    runpy.run_path(argv[0], run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
