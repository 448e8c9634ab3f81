"""``myautograd.utils.data``: datasets, samplers and the ``DataLoader``, as ``torch.utils.data``."""

from ..._missing import missing_attribute as _missing_attribute
from . import collate, dataloader, dataset, sampler
from .collate import default_collate, default_convert
from .dataloader import DataLoader, get_worker_info
from .dataset import ChainDataset, ConcatDataset, Dataset, IterableDataset, Subset, TensorDataset, random_split
from .sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)

__all__ = [
    "BatchSampler", "ChainDataset", "ConcatDataset", "DataLoader", "Dataset", "IterableDataset", "RandomSampler",
    "Sampler", "SequentialSampler", "Subset", "SubsetRandomSampler", "TensorDataset", "WeightedRandomSampler",
    "collate", "dataloader", "dataset", "default_collate", "default_convert", "get_worker_info", "random_split",
    "sampler",
]


__getattr__ = _missing_attribute(__name__)  # a clear error for torch API not implemented
