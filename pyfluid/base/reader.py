"""Loaders fed by Python generators, for static programs and dygraph alike (Paddle's
``DataLoader.from_generator`` and the fluid-era ``fluid.io.PyReader``).

A loader is iterable: each step gives the feed of one batch, ``[{name: LoDTensor}]`` (one
dict per place; pyfluid has one CPU place) for ``Executor.run(feed=...)``, or, with
``return_list=True``, a list of Tensors (dygraph). Its data comes from a sample generator
(batched here), a sample-list generator (batches of samples) or a batch generator (one
array per fed variable). Paddle's non-iterable mode (``start()``/``reset()`` with a read op
in the program) is not provided: pyfluid programs have no reader ops."""
from __future__ import annotations

from typing import Any, Callable, Iterator, Sequence

import numpy as np

from ..engine.tensor import Tensor
from ..executor import LoDTensor
from ..framework import Variable
from ..ops.types import to_numpy_dtype
from .data_feeder import DataFeeder

__all__ = ["GeneratorLoader", "PyReader"]


class GeneratorLoader:
    def __init__(self, feed_list: Sequence[Variable] | None = None, capacity: int | None = None,
                 use_double_buffer: bool = True, iterable: bool = True,
                 return_list: bool = False):
        if not iterable:
            raise NotImplementedError("a non-iterable loader (start()/reset() with a read op in "
                                      "the program) is not supported by pyfluid; create it "
                                      "with iterable=True and feed each batch to Executor.run")
        if not return_list and not feed_list:
            raise ValueError("feed_list should be set when return_list=False")
        self._feed_list = list(feed_list or [])
        self._return_list = return_list
        self._batches: Callable[[], Iterator[list]] | None = None

    def set_sample_generator(self, reader: Callable, batch_size: int, drop_last: bool = True,
                             places: Any = None) -> "GeneratorLoader":
        """``reader()`` yields samples (one field per fed variable); batched here."""
        if batch_size <= 0:
            raise ValueError("batch_size should be a positive integer")

        def sample_lists() -> Iterator[list]:
            batch: list = []
            for sample in reader():
                batch.append(sample if isinstance(sample, (list, tuple)) else (sample,))
                if len(batch) == batch_size:
                    yield batch
                    batch = []
            if batch and not drop_last:
                yield batch
        return self.set_sample_list_generator(sample_lists, places)

    def set_sample_list_generator(self, reader: Callable,
                                  places: Any = None) -> "GeneratorLoader":
        """``reader()`` yields lists of samples."""
        def batches() -> Iterator[list]:
            for samples in reader():
                if self._feed_list:
                    fed = DataFeeder(self._feed_list, places).feed(samples)
                    yield [np.array(fed[v.name]) for v in self._feed_list]
                else:
                    yield [np.array(field) for field in zip(*samples)]
        self._batches = batches
        return self

    def set_batch_generator(self, reader: Callable, places: Any = None) -> "GeneratorLoader":
        """``reader()`` yields batches: one array (or Tensor) per fed variable."""
        def batches() -> Iterator[list]:
            for batch in reader():
                batch = batch if isinstance(batch, (list, tuple)) else [batch]
                yield [np.asarray(getattr(a, "_array", a)) for a in batch]
        self._batches = batches
        return self

    def __call__(self) -> Iterator:
        return iter(self)

    def __iter__(self) -> Iterator:
        if self._batches is None:
            raise RuntimeError("Data source of the loader has not set yet: call "
                               "set_sample_generator, set_sample_list_generator or "
                               "set_batch_generator first")
        for arrays in self._batches():
            if self._return_list:
                yield [Tensor(a) for a in arrays]
            else:
                yield [{var.name: LoDTensor(_as_dtype(a, var))
                        for var, a in zip(self._feed_list, arrays)}]


def _as_dtype(array: np.ndarray, var: Variable) -> np.ndarray:
    return array.astype(to_numpy_dtype(var.dtype), copy=False)


class PyReader(GeneratorLoader):
    """``fluid.io.PyReader``: a generator loader with the fluid-era ``decorate_*`` names."""

    def __init__(self, feed_list: Sequence[Variable] | None = None, capacity: int | None = None,
                 use_double_buffer: bool = True, iterable: bool = True,
                 return_list: bool = False):
        super().__init__(feed_list, capacity, use_double_buffer, iterable, return_list)

    def decorate_sample_generator(self, sample_generator: Callable, batch_size: int,
                                  drop_last: bool = True, places: Any = None) -> None:
        self.set_sample_generator(sample_generator, batch_size, drop_last, places)

    def decorate_sample_list_generator(self, reader: Callable, places: Any = None) -> None:
        self.set_sample_list_generator(reader, places)

    def decorate_batch_generator(self, reader: Callable, places: Any = None) -> None:
        self.set_batch_generator(reader, places)
