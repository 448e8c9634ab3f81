"""``myautograd.nn``: modules, parameters, ``functional`` and ``init``, mirroring ``torch.nn``."""

from .._missing import missing_attribute as _missing_attribute
from . import functional, init, modules, parallel, parameter, utils
from .modules import (
    ELU,
    GELU,
    GRU,
    LSTM,
    RNN,
    AdaptiveAvgPool2d,
    AvgPool2d,
    BatchNorm1d,
    BatchNorm2d,
    BCELoss,
    BCEWithLogitsLoss,
    Conv1d,
    Conv2d,
    CrossEntropyLoss,
    Dropout,
    Embedding,
    Flatten,
    GRUCell,
    Hardtanh,
    HuberLoss,
    Identity,
    KLDivLoss,
    L1Loss,
    LayerNorm,
    LeakyReLU,
    Linear,
    LogSoftmax,
    LSTMCell,
    MaxPool2d,
    Module,
    ModuleDict,
    ModuleList,
    MSELoss,
    NLLLoss,
    ParameterDict,
    ParameterList,
    ReLU,
    RNNBase,
    RNNCell,
    RNNCellBase,
    Sequential,
    Sigmoid,
    SiLU,
    SmoothL1Loss,
    Softmax,
    Softplus,
    Tanh,
    Unflatten,
)
from .parallel import DataParallel
from .parameter import Buffer, Parameter

__all__ = [
    "AdaptiveAvgPool2d", "AvgPool2d", "BatchNorm1d", "BatchNorm2d", "BCELoss", "BCEWithLogitsLoss", "Buffer",
    "Conv1d", "Conv2d", "CrossEntropyLoss", "DataParallel", "Dropout", "ELU", "Embedding", "Flatten", "GELU", "GRU",
    "GRUCell", "Hardtanh", "HuberLoss", "Identity", "KLDivLoss", "L1Loss", "LayerNorm", "LeakyReLU", "Linear",
    "LogSoftmax", "LSTM", "LSTMCell", "MaxPool2d", "Module", "ModuleDict", "ModuleList", "MSELoss", "NLLLoss",
    "Parameter", "ParameterDict", "ParameterList", "ReLU", "RNN", "RNNBase", "RNNCell", "RNNCellBase", "Sequential",
    "Sigmoid", "SiLU", "SmoothL1Loss", "Softmax", "Softplus", "Tanh", "Unflatten", "functional", "init", "modules",
    "parallel", "parameter", "utils",
]


__getattr__ = _missing_attribute(__name__)  # a clear error for torch API not implemented
