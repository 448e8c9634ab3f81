"""``myautograd.optim``: optimizers mirroring ``torch.optim`` (SGD, Adam, AdamW)."""

from . import adam, optimizer, sgd
from .adam import Adam, AdamW
from .optimizer import Optimizer
from .sgd import SGD

__all__ = ["SGD", "Adam", "AdamW", "Optimizer", "adam", "optimizer", "sgd"]
