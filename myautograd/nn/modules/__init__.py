"""The layers of ``myautograd.nn``: the Module base class, containers, linear, activation,
dropout, flatten and loss modules."""

from .activation import ELU, GELU, Hardtanh, LeakyReLU, LogSoftmax, ReLU, Sigmoid, SiLU, Softmax, Softplus, Tanh
from .batchnorm import BatchNorm1d, BatchNorm2d
from .container import ModuleList, Sequential
from .conv import Conv1d, Conv2d
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
from .normalization import LayerNorm
from .pooling import AdaptiveAvgPool2d, AvgPool2d, MaxPool2d
from .sparse import Embedding

__all__ = [
    "AdaptiveAvgPool2d", "AvgPool2d", "BatchNorm1d", "BatchNorm2d", "BCELoss", "BCEWithLogitsLoss", "Conv1d",
    "Conv2d", "CrossEntropyLoss", "Dropout", "ELU", "Embedding", "Flatten", "GELU", "Hardtanh", "HuberLoss",
    "Identity", "KLDivLoss", "L1Loss", "LayerNorm", "LeakyReLU", "Linear", "LogSoftmax", "MaxPool2d", "Module",
    "ModuleList", "MSELoss", "NLLLoss", "ReLU", "Sequential", "Sigmoid", "SiLU", "SmoothL1Loss", "Softmax",
    "Softplus", "Tanh",
]
