"""``myautograd.nn``: modules, parameters, ``functional`` and ``init``, mirroring ``torch.nn``."""

from . import functional, init, modules, parallel, parameter, utils
from .modules import (
    ELU,
    GELU,
    GRU,
    LSTM,
    RNN,
    BCELoss,
    BCEWithLogitsLoss,
    CrossEntropyLoss,
    Dropout,
    Flatten,
    GRUCell,
    Hardtanh,
    Identity,
    L1Loss,
    LeakyReLU,
    Linear,
    LogSoftmax,
    LSTMCell,
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
    Softmax,
    Softplus,
    Tanh,
    Unflatten,
)
from .parallel import DataParallel
from .parameter import Buffer, Parameter

__all__ = [
    "BCELoss", "BCEWithLogitsLoss", "Buffer", "CrossEntropyLoss", "Dropout", "ELU", "Flatten", "GELU", "Hardtanh",
    "Identity", "L1Loss", "LeakyReLU", "Linear", "LogSoftmax", "MSELoss", "Module", "ModuleList", "NLLLoss",
    "Parameter", "ReLU", "Sequential", "SiLU", "Sigmoid", "Softmax", "Softplus", "Tanh", "functional", "init",
    "modules", "parameter",
    "GRU", "GRUCell", "LSTM", "LSTMCell", "RNN", "RNNBase", "RNNCell", "RNNCellBase",
    "DataParallel", "ModuleDict", "ParameterDict", "ParameterList", "Unflatten", "parallel", "utils",
]
