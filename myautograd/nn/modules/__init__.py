"""The layers of ``myautograd.nn``: the Module base class, containers, linear, activation, dropout,
flatten, loss, convolution, pooling, normalization, embedding and recurrent modules."""

from ..._missing import missing_attribute as _missing_attribute
from .activation import ELU, GELU, Hardtanh, LeakyReLU, LogSoftmax, ReLU, Sigmoid, SiLU, Softmax, Softplus, Tanh
from .batchnorm import BatchNorm1d, BatchNorm2d
from .container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .conv import (
    Conv1d,
    Conv2d,
    Conv3d,
    ConvTranspose1d,
    ConvTranspose2d,
    ConvTranspose3d,
    LazyConv1d,
    LazyConv2d,
    LazyConv3d,
    LazyConvTranspose1d,
    LazyConvTranspose2d,
    LazyConvTranspose3d,
)
from .dropout import Dropout
from .flatten import Flatten, Unflatten
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
from .pooling import (
    AdaptiveAvgPool1d,
    AdaptiveAvgPool2d,
    AdaptiveAvgPool3d,
    AdaptiveMaxPool1d,
    AdaptiveMaxPool2d,
    AdaptiveMaxPool3d,
    AvgPool1d,
    AvgPool2d,
    AvgPool3d,
    FractionalMaxPool2d,
    FractionalMaxPool3d,
    LPPool1d,
    LPPool2d,
    LPPool3d,
    MaxPool1d,
    MaxPool2d,
    MaxPool3d,
    MaxUnpool1d,
    MaxUnpool2d,
    MaxUnpool3d,
)
from .rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase
from .sparse import Embedding

__all__ = [
    "AdaptiveAvgPool2d", "AvgPool2d", "BatchNorm1d", "BatchNorm2d", "BCELoss", "BCEWithLogitsLoss", "Conv1d",
    "Conv2d", "CrossEntropyLoss", "Dropout", "ELU", "Embedding", "Flatten", "GELU", "GRU", "GRUCell", "Hardtanh",
    "HuberLoss", "Identity", "KLDivLoss", "L1Loss", "LayerNorm", "LeakyReLU", "Linear", "LogSoftmax", "LSTM",
    "LSTMCell", "MaxPool2d", "Module", "ModuleDict", "ModuleList", "MSELoss", "NLLLoss", "ParameterDict",
    "ParameterList", "ReLU", "RNN", "RNNBase", "RNNCell", "RNNCellBase", "Sequential", "Sigmoid", "SiLU",
    "SmoothL1Loss", "Softmax", "Softplus", "Tanh", "Unflatten",
    "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d",
    "AdaptiveAvgPool1d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AdaptiveMaxPool3d",
    "AvgPool1d", "AvgPool3d", "FractionalMaxPool2d", "FractionalMaxPool3d", "LPPool1d", "LPPool2d", "LPPool3d",
    "MaxPool1d", "MaxPool3d", "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d", "LazyConvTranspose2d",
    "LazyConvTranspose3d", "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d",
]


__getattr__ = _missing_attribute(__name__)  # a clear error for torch API not implemented
