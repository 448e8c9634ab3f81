"""The layers of ``myautograd.nn``: the Module base class, containers, linear, activation,
dropout, flatten and loss modules."""

from .activation import ELU, GELU, Hardtanh, LeakyReLU, LogSoftmax, ReLU, Sigmoid, SiLU, Softmax, Softplus, Tanh
from .container import ModuleList, Sequential
from .dropout import Dropout
from .flatten import Flatten
from .linear import Identity, Linear
from .loss import (
    BCELoss,
    BCEWithLogitsLoss,
    CrossEntropyLoss,
    HuberLoss,
    KLDivLoss,
    L1Loss,
    MSELoss,
    NLLLoss,
    SmoothL1Loss,
)
from .module import Module

__all__ = [
    "BCELoss", "BCEWithLogitsLoss", "CrossEntropyLoss", "Dropout", "ELU", "Flatten", "GELU", "Hardtanh", "HuberLoss",
    "Identity", "KLDivLoss", "L1Loss", "LeakyReLU", "Linear", "LogSoftmax", "Module", "ModuleList", "MSELoss",
    "NLLLoss", "ReLU", "Sequential", "Sigmoid", "SiLU", "SmoothL1Loss", "Softmax", "Softplus", "Tanh",
]
