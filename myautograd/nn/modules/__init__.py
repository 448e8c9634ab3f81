"""The layers of ``myautograd.nn``: the Module base class, containers, linear, activation, dropout,
flatten, loss, convolution, pooling, normalization, embedding and recurrent modules."""

from ..._missing import missing_attribute as _missing_attribute
from .activation import (
    CELU,
    ELU,
    GELU,
    GLU,
    SELU,
    Hardshrink,
    Hardswish,
    Hardtanh,
    LeakyReLU,
    LogSigmoid,
    LogSoftmax,
    Mish,
    PReLU,
    ReLU,
    ReLU6,
    Sigmoid,
    SiLU,
    Softmax,
    Softmax2d,
    Softmin,
    Softplus,
    Softshrink,
    Softsign,
    Tanh,
    Tanhshrink,
    Threshold,
)
from .batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d
from .container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .conv import Conv1d, Conv2d
from .dropout import Dropout
from .flatten import Flatten, Unflatten
from .instancenorm import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d
from .linear import Bilinear, Identity, Linear
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
from .normalization import GroupNorm, LayerNorm, LocalResponseNorm, RMSNorm
from .padding import (
    CircularPad1d,
    CircularPad2d,
    CircularPad3d,
    ConstantPad1d,
    ConstantPad2d,
    ConstantPad3d,
    ReflectionPad1d,
    ReflectionPad2d,
    ReflectionPad3d,
    ReplicationPad1d,
    ReplicationPad2d,
    ReplicationPad3d,
    ZeroPad1d,
    ZeroPad2d,
    ZeroPad3d,
)
from .pooling import AdaptiveAvgPool2d, AvgPool2d, MaxPool2d
from .rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase
from .sparse import Embedding

__all__ = [
    "AdaptiveAvgPool2d", "AvgPool2d", "BatchNorm1d", "BatchNorm2d", "BCELoss", "BCEWithLogitsLoss", "Conv1d",
    "Conv2d", "CrossEntropyLoss", "Dropout", "ELU", "Embedding", "Flatten", "GELU", "GRU", "GRUCell", "Hardtanh",
    "HuberLoss", "Identity", "KLDivLoss", "L1Loss", "LayerNorm", "LeakyReLU", "Linear", "LogSoftmax", "LSTM",
    "LSTMCell", "MaxPool2d", "Module", "ModuleDict", "ModuleList", "MSELoss", "NLLLoss", "ParameterDict",
    "ParameterList", "ReLU", "RNN", "RNNBase", "RNNCell", "RNNCellBase", "Sequential", "Sigmoid", "SiLU",
    "SmoothL1Loss", "Softmax", "Softplus", "Tanh", "Unflatten",
    "BatchNorm3d", "GroupNorm", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "LocalResponseNorm", "RMSNorm",
    "CELU", "GLU", "Hardshrink", "Hardswish", "LogSigmoid", "Mish", "PReLU", "ReLU6", "SELU", "Softmax2d", "Softmin",
    "Softshrink", "Softsign", "Tanhshrink", "Threshold",
    "CircularPad1d", "CircularPad2d", "CircularPad3d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d",
    "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
    "ReplicationPad3d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d", "Bilinear",
]


__getattr__ = _missing_attribute(__name__)  # a clear error for torch API not implemented
