"""``myautograd.nn``: modules, parameters, ``functional`` and ``init``, mirroring ``torch.nn``."""

from . import functional, init, modules, parameter
from .modules import (
    ELU,
    GELU,
    BCELoss,
    BCEWithLogitsLoss,
    CrossEntropyLoss,
    Dropout,
    Flatten,
    Hardtanh,
    HuberLoss,
    Identity,
    KLDivLoss,
    L1Loss,
    LeakyReLU,
    Linear,
    LogSoftmax,
    Module,
    ModuleList,
    MSELoss,
    NLLLoss,
    ReLU,
    Sequential,
    Sigmoid,
    SiLU,
    SmoothL1Loss,
    Softmax,
    Softplus,
    Tanh,
)
from .parameter import Buffer, Parameter

__all__ = [
    "BCELoss", "BCEWithLogitsLoss", "Buffer", "CrossEntropyLoss", "Dropout", "ELU", "Flatten", "GELU", "Hardtanh",
    "HuberLoss", "Identity", "KLDivLoss", "L1Loss", "LeakyReLU", "Linear", "LogSoftmax", "Module", "ModuleList",
    "MSELoss", "NLLLoss", "Parameter", "ReLU", "Sequential", "Sigmoid", "SiLU", "SmoothL1Loss", "Softmax", "Softplus",
    "Tanh", "functional", "init", "modules", "parameter",
]
