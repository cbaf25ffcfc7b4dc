"""``paddle.io.Dataset`` / ``IterableDataset`` / ``BatchSampler`` / ``DataLoader`` (single
process): batches are the samples' fields stacked with NumPy, as Tensors in dynamic mode and
NumPy arrays in static mode (ready to feed)."""
from __future__ import annotations

import math
from typing import Any, Callable, Iterator, Sequence

import numpy as np


class Dataset:
    """Map-style dataset: implement ``__getitem__`` and ``__len__``."""

    def __getitem__(self, index: int) -> Any:
        raise NotImplementedError(f"'{type(self).__name__}' must implement __getitem__")

    def __len__(self) -> int:
        raise NotImplementedError(f"'{type(self).__name__}' must implement __len__")


class IterableDataset(Dataset):
    """Stream-style dataset: implement ``__iter__``."""

    def __iter__(self) -> Iterator:
        raise NotImplementedError(f"'{type(self).__name__}' must implement __iter__")


class TensorDataset(Dataset):
    """Rows of equally long arrays/Tensors, one field per input."""

    def __init__(self, tensors: Sequence[Any]):
        self.tensors = [np.asarray(t) for t in tensors]
        if len({len(t) for t in self.tensors}) > 1:
            raise ValueError("tensors not have same shape of the 1st dimension")

    def __getitem__(self, index: int) -> tuple:
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return len(self.tensors[0])


class BatchSampler:
    """Lists of dataset indices, in order or shuffled (``np.random``)."""

    def __init__(self, dataset: Dataset | None = None, sampler: Any = None,
                 shuffle: bool = False, batch_size: int = 1, drop_last: bool = False):
        if not isinstance(batch_size, int) or batch_size <= 0:
            raise ValueError("batch_size should be a positive integer")
        self.dataset, self.sampler, self.shuffle = dataset, sampler, shuffle
        self.batch_size, self.drop_last = batch_size, drop_last

    def _indices(self) -> list[int]:
        if self.sampler is not None:
            return list(self.sampler)
        order = np.arange(len(self.dataset))
        return list(np.random.permutation(order) if self.shuffle else order)

    def __iter__(self) -> Iterator[list[int]]:
        indices = self._indices()
        for start in range(0, len(indices), self.batch_size):
            batch = indices[start:start + self.batch_size]
            if len(batch) == self.batch_size or not self.drop_last:
                yield [int(i) for i in batch]

    def __len__(self) -> int:
        count = len(self.sampler) if self.sampler is not None else len(self.dataset)
        return count // self.batch_size if self.drop_last else math.ceil(count / self.batch_size)


def default_collate_fn(samples: list) -> Any:
    """Stack each field of the samples (tuples/lists/dicts recurse)."""
    first = samples[0]
    if isinstance(first, (tuple, list)):
        return [default_collate_fn([s[i] for s in samples]) for i in range(len(first))]
    if isinstance(first, dict):
        return {k: default_collate_fn([s[k] for s in samples]) for k in first}
    return np.stack([np.asarray(getattr(s, "_array", s)) for s in samples])


class DataLoader:
    """Iterate ``dataset`` in batches (``for batch in loader`` or ``loader()``)."""

    def __init__(self, dataset: Dataset, feed_list: Any = None, places: Any = None,
                 return_list: bool = True, batch_sampler: BatchSampler | None = None,
                 batch_size: int | None = 1, shuffle: bool = False, drop_last: bool = False,
                 collate_fn: Callable | None = None, num_workers: int = 0, **_: Any):
        self.dataset, self.return_list = dataset, return_list
        self.collate_fn = collate_fn or default_collate_fn
        self._iterable = isinstance(dataset, IterableDataset)
        if batch_sampler is not None:
            self.batch_sampler = batch_sampler
        elif self._iterable:
            self.batch_sampler = None
        else:
            self.batch_sampler = BatchSampler(dataset, shuffle=shuffle,
                                              batch_size=batch_size or 1, drop_last=drop_last)
        self.batch_size, self.drop_last = batch_size or 1, drop_last

    @staticmethod
    def from_generator(feed_list: Any = None, capacity: int | None = None,
                       use_double_buffer: bool = True, iterable: bool = True,
                       return_list: bool = False, use_multiprocess: bool = False,
                       drop_last: bool = True) -> Any:
        """A loader fed by a Python generator (``pyfluid.base.reader.GeneratorLoader``)."""
        from ..base.reader import GeneratorLoader    # base builds on this package
        return GeneratorLoader(feed_list, capacity, use_double_buffer, iterable, return_list)

    def __call__(self) -> Iterator:
        return iter(self)

    def __len__(self) -> int:
        if self.batch_sampler is None:
            raise TypeError("the length of a DataLoader over an IterableDataset is unknown")
        return len(self.batch_sampler)

    def __iter__(self) -> Iterator:
        for samples in self._batches():
            yield self._convert(self.collate_fn(samples))

    def _batches(self) -> Iterator[list]:
        if self.batch_sampler is not None:
            for indices in self.batch_sampler:
                yield [self.dataset[i] for i in indices]
            return
        batch: list = []
        for sample in self.dataset:
            batch.append(sample)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def _convert(self, batch: Any) -> Any:
        from ..framework.context import in_dynamic_mode
        if not in_dynamic_mode():
            return batch
        from ..engine import Tensor
        if isinstance(batch, list):
            return [self._convert(b) for b in batch]
        if isinstance(batch, dict):
            return {k: self._convert(v) for k, v in batch.items()}
        return Tensor(batch)
