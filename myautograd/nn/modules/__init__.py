"""The layers of ``myautograd.nn``: the Module base class, containers, linear, activation, dropout,
flatten, loss, convolution, pooling, normalization, embedding and recurrent modules."""

from ..._missing import missing_attribute as _missing_attribute
from .activation import ELU, GELU, Hardtanh, LeakyReLU, LogSoftmax, ReLU, Sigmoid, SiLU, Softmax, Softplus, Tanh
from .batchnorm import BatchNorm1d, BatchNorm2d
from .container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .conv import Conv1d, Conv2d
from .dropout import Dropout
from .flatten import Flatten, Unflatten
from .linear import Identity, Linear
from .loss import (
    BCELoss,
    BCEWithLogitsLoss,
    CosineEmbeddingLoss,
    CrossEntropyLoss,
    CTCLoss,
    GaussianNLLLoss,
    HingeEmbeddingLoss,
    HuberLoss,
    KLDivLoss,
    L1Loss,
    LinearCrossEntropyLoss,
    MarginRankingLoss,
    MSELoss,
    MultiLabelMarginLoss,
    MultiLabelSoftMarginLoss,
    MultiMarginLoss,
    NLLLoss,
    PoissonNLLLoss,
    SmoothL1Loss,
    SoftMarginLoss,
)
from .module import Module
from .normalization import LayerNorm
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
    # the margin, embedding and likelihood losses
    "CosineEmbeddingLoss", "CTCLoss", "GaussianNLLLoss", "HingeEmbeddingLoss", "LinearCrossEntropyLoss", "MarginRankingLoss",
    "MultiLabelMarginLoss",
    "MultiLabelSoftMarginLoss", "MultiMarginLoss", "PoissonNLLLoss", "SoftMarginLoss",
]


__getattr__ = _missing_attribute(__name__)  # a clear error for torch API not implemented
