"""``myautograd.optim``: optimizers mirroring ``torch.optim`` (SGD, Adam, AdamW, RMSprop, Adagrad)
and the learning-rate schedules of ``lr_scheduler``."""

from .._missing import missing_attribute as _missing_attribute
from . import adagrad, adam, lr_scheduler, optimizer, rmsprop, sgd
from .adagrad import Adagrad
from .adam import Adam, AdamW
from .optimizer import Optimizer
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = ["SGD", "Adagrad", "Adam", "AdamW", "Optimizer", "RMSprop", "adagrad", "adam", "lr_scheduler", "optimizer",
           "rmsprop", "sgd"]


__getattr__ = _missing_attribute(__name__)  # a clear error for torch API not implemented
