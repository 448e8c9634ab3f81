"""``DataLoader``: iterates over a dataset in batches, in order or shuffled.

Everything is loaded in the calling process: ``num_workers`` is accepted (with torch's checks and
warnings) but no worker processes are started, which gives the same batches in the same order
as torch's in-order loading (``get_worker_info()`` is always ``None``, and ``worker_init_fn`` is
never called). Random numbers are drawn where torch draws them, so that the same
seed gives the same batches and leaves the generator in the same state: each pass first takes a
"base seed" from the loader's generator (``random_()`` on an int64 scalar, as torch's iterator
does for its workers), then the shuffling sampler seeds its own generator on its first index.
"""

from __future__ import annotations

import itertools
import math
import os
import warnings

from ... import _backend, _dtype
from ..._ops.creation import empty
from .collate import default_collate, default_convert
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, SequentialSampler

PIN_MEMORY_WARNING = ("'pin_memory' argument is set as true but no accelerator is found, then device pinned memory "
                      "won't be used.")
_FROZEN = ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset", "persistent_workers")


def get_worker_info():
    """``None``: the data is always loaded in the calling process."""
    return None


class _InfiniteConstantSampler:
    """The index sampler of an iterable dataset: ``None`` forever."""

    def __iter__(self):
        while True:
            yield None


class DataLoader:
    """Batches of ``dataset``'s samples: ``batch_size`` at a time, shuffled or in order, collated."""

    def __init__(self, dataset, batch_size: int | None = 1, shuffle: bool | None = None, sampler=None,
                 batch_sampler=None, num_workers: int = 0, collate_fn=None, pin_memory: bool = False,
                 drop_last: bool = False, timeout: float = 0, worker_init_fn=None, multiprocessing_context=None,
                 generator=None, *, prefetch_factor: int | None = None, persistent_workers: bool = False,
                 pin_memory_device: str = "", in_order: bool = True) -> None:
        _check_worker_options(num_workers, timeout, prefetch_factor, persistent_workers, multiprocessing_context)
        self.num_workers = num_workers
        self.prefetch_factor = 2 if num_workers > 0 and prefetch_factor is None else prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.in_order = in_order
        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable:
            _check_iterable_options(shuffle, sampler, batch_sampler)
        shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and "
                                 "drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with drop_last")
        if sampler is None:
            if self._iterable:
                sampler = _InfiniteConstantSampler()
            else:
                sampler = RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.dataset = dataset
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        self.collate_fn = collate_fn or (default_collate if batch_sampler is not None else default_convert)
        self.persistent_workers = persistent_workers
        self._frozen = True
        _warn_about_workers(num_workers)

    def __setattr__(self, name: str, value) -> None:
        if self.__dict__.get("_frozen") and name in _FROZEN:
            raise ValueError(f"{name} attribute should not be set after {type(self).__name__} is initialized")
        super().__setattr__(name, value)

    @property
    def _index_sampler(self):
        return self.batch_sampler if self.batch_sampler is not None else self.sampler

    def __iter__(self) -> _SingleProcessDataLoaderIter:
        return (_MultiProcessingDataLoaderIter if self.num_workers else _SingleProcessDataLoaderIter)(self)

    def __len__(self) -> int:
        if not self._iterable:
            return len(self._index_sampler)
        length = len(self.dataset)
        if self.batch_size is not None:
            length = length // self.batch_size if self.drop_last else math.ceil(length / self.batch_size)
        return length


class _SingleProcessDataLoaderIter:
    """One pass over a DataLoader: ``next`` gives the next batch."""

    def __init__(self, loader: DataLoader) -> None:
        if loader.pin_memory and not _backend.cuda_available():
            warnings.warn(PIN_MEMORY_WARNING, stacklevel=3)
        self._loader = loader
        self._index_sampler = loader._index_sampler
        indices = iter(self._index_sampler)
        empty((), dtype=_dtype.int64).random_(generator=loader.generator)  # torch's base seed for its workers
        self._batches = self._stream(indices) if loader._iterable else self._mapped(indices)

    def __iter__(self) -> _SingleProcessDataLoaderIter:
        return self

    def __next__(self):
        return next(self._batches)

    def __len__(self) -> int:
        return len(self._index_sampler)

    def _mapped(self, indices):
        loader = self._loader
        for index in indices:
            if loader.batch_sampler is None:
                yield loader.collate_fn(loader.dataset[index])
                continue
            getitems = getattr(loader.dataset, "__getitems__", None)
            yield loader.collate_fn(getitems(index) if getitems else [loader.dataset[i] for i in index])

    def _stream(self, indices):
        loader = self._loader
        samples = iter(loader.dataset)
        for index in indices:
            if loader.batch_sampler is None:
                sample = next(samples, _END)
                if sample is _END:
                    return
                yield loader.collate_fn(sample)
                continue
            batch = list(itertools.islice(samples, len(index)))
            if not batch or (loader.drop_last and len(batch) < len(index)):
                return
            yield loader.collate_fn(batch)
            if len(batch) < len(index):
                return


class _MultiProcessingDataLoaderIter(_SingleProcessDataLoaderIter):
    """A pass with ``num_workers > 0``: loaded in this process all the same (named as torch's)."""


_END = object()


def _check_iterable_options(shuffle, sampler, batch_sampler) -> None:
    """An iterable dataset decides its own order: no shuffling, no samplers."""
    if shuffle not in (False, None):
        raise ValueError(f"DataLoader with IterableDataset: expected unspecified shuffle option, but got "
                         f"shuffle={shuffle}")
    if sampler is not None:
        raise ValueError(f"DataLoader with IterableDataset: expected unspecified sampler option, but got "
                         f"sampler={sampler}")
    if batch_sampler is not None:
        raise ValueError(f"DataLoader with IterableDataset: expected unspecified batch_sampler option, but got "
                         f"batch_sampler={batch_sampler}")


def _check_worker_options(num_workers, timeout, prefetch_factor, persistent_workers, context) -> None:
    if num_workers < 0:
        raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable multiprocessing.")
    if timeout < 0:
        raise ValueError("timeout option should be non-negative")
    if num_workers == 0 and prefetch_factor is not None:
        raise ValueError("prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 to "
                         "enable multiprocessing, otherwise set prefetch_factor to None.")
    if prefetch_factor is not None and prefetch_factor < 0:
        raise ValueError("prefetch_factor option should be non-negative")
    if persistent_workers and num_workers == 0:
        raise ValueError("persistent_workers option needs num_workers > 0")
    if context is not None and num_workers == 0:
        raise ValueError(f"multiprocessing_context can only be used with multi-process loading (num_workers > 0), "
                         f"but got num_workers={num_workers}")


def _warn_about_workers(num_workers: int) -> None:
    """torch's warning when more workers are asked for than there are CPUs to run them."""
    if not num_workers:
        return
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    if cpus is not None and num_workers <= cpus:
        return
    checked = "" if hasattr(os, "sched_getaffinity") else " (`cpuset` is not taken into account)"
    suggestion = (f"Our suggested max number of worker in current system is {cpus}{checked}, which is smaller than "
                  "what this DataLoader is going to create." if cpus is not None else
                  "DataLoader is not able to compute a suggested max number of worker in current system.")
    warnings.warn(f"This DataLoader will create {num_workers} worker processes in total. {suggestion} Please be "
                  "aware that excessive worker creation might get DataLoader running slow or even freeze, lower the "
                  "worker number to avoid potential slowness/freeze if necessary.", stacklevel=3)


__all__ = ["DataLoader", "default_collate", "default_convert", "get_worker_info"]
