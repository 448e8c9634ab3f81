"""``myautograd.optim``: optimizers mirroring ``torch.optim`` (SGD, Adadelta, Adafactor, Adagrad, Adam,
AdamW, Adamax, ASGD, LBFGS, Muon, NAdam, RAdam, RMSprop, Rprop) and the learning-rate schedules of
``lr_scheduler``. Not implemented: SparseAdam."""

from .._missing import missing_attribute as _missing_attribute
from . import adadelta, adafactor, adagrad, adam, adamax, asgd, lbfgs, lr_scheduler, muon, nadam, optimizer, rmsprop, sgd
from .adadelta import Adadelta
from .adafactor import Adafactor
from .adagrad import Adagrad
from .adam import Adam, AdamW
from .adamax import Adamax
from .asgd import ASGD, Rprop
from .lbfgs import LBFGS
from .muon import Muon
from .nadam import NAdam, RAdam
from .optimizer import Optimizer
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = ["ASGD", "LBFGS", "SGD", "Adadelta", "Adafactor", "Adagrad", "Adam", "AdamW", "Adamax", "Muon", "NAdam",
           "Optimizer", "RAdam", "RMSprop", "Rprop", "adadelta", "adafactor", "adagrad", "adam", "adamax", "asgd", "lbfgs",
           "lr_scheduler", "muon", "nadam", "optimizer", "rmsprop", "sgd"]


__getattr__ = _missing_attribute(__name__)  # a clear error for torch API not implemented
