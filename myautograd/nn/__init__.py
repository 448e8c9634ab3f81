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
    Identity,
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
    Softmax,
    Softplus,
    Tanh,
)
from .parameter import Buffer, Parameter

__all__ = [
    "BCELoss", "BCEWithLogitsLoss", "Buffer", "CrossEntropyLoss", "Dropout", "ELU", "Flatten", "GELU", "Hardtanh",
    "Identity", "L1Loss", "LeakyReLU", "Linear", "LogSoftmax", "MSELoss", "Module", "ModuleList", "NLLLoss",
    "Parameter", "ReLU", "Sequential", "SiLU", "Sigmoid", "Softmax", "Softplus", "Tanh", "functional", "init",
    "modules", "parameter",
]
