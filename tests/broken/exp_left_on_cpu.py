"""Broken: a device backend whose ``exp`` leaves its result on the CPU. Run on its device,
``--impl tests.broken.exp_left_on_cpu@renamedcpu``: the fake second device of
``tests/fakes/renamed_cpu.py`` (torch's CPU under the PrivateUse1 name ``renamedcpu``), where every
tensor is on ``renamedcpu:0`` but the results of ``torch.exp`` and ``Tensor.exp``, which say they
are on the CPU. Values, gradients and node names are torch's: only the device differs, at the
``api`` level."""

import functools

from tests.broken._fault import exports as _exports
from tests.fakes.renamed_cpu import install as _install

__conformance_module__, __version__, __getattr__ = _exports(install=functools.partial(_install, left_on_cpu=("exp",)))
