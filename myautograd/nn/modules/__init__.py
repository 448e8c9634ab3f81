"""The layers of ``myautograd.nn``: the Module base class, containers, linear, activation, dropout,
flatten, loss, convolution, pooling, normalization, embedding, recurrent, attention and transformer modules."""

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
from .attention import MultiheadAttention
from .batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d
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
from .instancenorm import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d
from .linear import Bilinear, Identity, Linear
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
from .transformer import (
    Transformer,
    TransformerDecoder,
    TransformerDecoderLayer,
    TransformerEncoder,
    TransformerEncoderLayer,
)

__all__ = [  # sorted; myautograd.nn re-exports them
    "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d",
    "AdaptiveMaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d", "BatchNorm1d", "BatchNorm2d", "BatchNorm3d",
    "BCELoss", "BCEWithLogitsLoss", "Bilinear", "CELU", "CircularPad1d", "CircularPad2d", "CircularPad3d",
    "ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d",
    "ConvTranspose2d", "ConvTranspose3d", "CosineEmbeddingLoss", "CrossEntropyLoss", "CTCLoss", "Dropout", "ELU",
    "Embedding", "Flatten", "FractionalMaxPool2d", "FractionalMaxPool3d", "GaussianNLLLoss", "GELU", "GLU",
    "GroupNorm", "GRU", "GRUCell", "Hardshrink", "Hardswish", "Hardtanh", "HingeEmbeddingLoss", "HuberLoss",
    "Identity", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "KLDivLoss", "L1Loss", "LayerNorm",
    "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d", "LazyConvTranspose2d", "LazyConvTranspose3d",
    "LeakyReLU", "Linear", "LinearCrossEntropyLoss", "LocalResponseNorm", "LogSigmoid", "LogSoftmax", "LPPool1d",
    "LPPool2d", "LPPool3d", "LSTM", "LSTMCell", "MarginRankingLoss", "MaxPool1d", "MaxPool2d", "MaxPool3d",
    "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d", "Mish", "Module", "ModuleDict", "ModuleList", "MSELoss",
    "MultiheadAttention", "MultiLabelMarginLoss", "MultiLabelSoftMarginLoss", "MultiMarginLoss", "NLLLoss",
    "ParameterDict", "ParameterList", "PoissonNLLLoss", "PReLU", "ReflectionPad1d", "ReflectionPad2d",
    "ReflectionPad3d", "ReLU", "ReLU6", "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d", "RMSNorm",
    "RNN", "RNNBase", "RNNCell", "RNNCellBase", "SELU", "Sequential", "Sigmoid", "SiLU", "SmoothL1Loss",
    "SoftMarginLoss", "Softmax", "Softmax2d", "Softmin", "Softplus", "Softshrink", "Softsign", "Tanh", "Tanhshrink",
    "Threshold", "Transformer", "TransformerDecoder", "TransformerDecoderLayer", "TransformerEncoder",
    "TransformerEncoderLayer", "Unflatten", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d",
]


__getattr__ = _missing_attribute(__name__)  # a clear error for torch API not implemented
