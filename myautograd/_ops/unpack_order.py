"""The order in which torch's backward nodes unpack what they saved, where it is not the order myautograd saves it.

A node unpacks every tensor it saved before it evaluates any formula (``FormulaNode.apply``),
so a tensor modified in place since it was saved fails the backward even when the gradient that
reads it is not wanted. When several were modified, the version error names the first one
unpacked. torch unpacks in the order of its generated node's fields (``atan2``: ``other`` before
``self``), which is not always the order of the inputs; this table gives that order for the
nodes where it differs (observed on torch 2.13 by modifying every saved operand in place).
"""

from __future__ import annotations

from .derivatives import NODES

UNPACK_ORDER = {
    "AddcdivBackward0": "tensor1 tensor2",
    "AddcmulBackward0": "tensor1 tensor2",
    "AddmmBackward0": "mat1 mat2",
    "Atan2Backward0": "other self",
    "BinaryCrossEntropyBackwardBackward0": "grad_output self target",
    "ClampBackward0": "max min self",
    "DotBackward0": "self tensor",
    "EluBackwardBackward0": "grad_output self_or_result",
    "FmodBackward1": "other self",
    "GeluBackwardBackward0": "grad_output self",
    "HardswishBackwardBackward0": "grad_output self",
    "HuberLossBackwardBackward0": "grad_output self target",
    "LerpBackward1": "end self weight",
    "LogSigmoidBackwardBackward0": "grad_output self",
    "LogSoftmaxBackwardDataBackward0": "grad_output output",
    "MaximumBackward0": "other self",
    "MinimumBackward0": "other self",
    "MseLossBackwardBackward0": "grad_output self target",
    "MvBackward0": "self vec",
    "PowBackward1": "exponent self result",
    "RemainderBackward1": "other self",
    "SigmoidBackwardBackward0": "grad_output output",
    "SmoothL1LossBackwardBackward0": "grad_output self target",
    "SoftmaxBackwardDataBackward0": "grad_output output",
    "SoftplusBackwardBackward0": "grad_output self",
    "TanhBackwardBackward0": "grad_output output",
    "TrilinearBackward0": "i1 i2 i3",
    "XlogyBackward0": "other self",
}

for _name, _order in UNPACK_ORDER.items():
    NODES[_name]._unpack_order = tuple(_order.split())
