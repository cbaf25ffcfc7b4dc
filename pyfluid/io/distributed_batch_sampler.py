"""``paddle.io.DistributedBatchSampler``: each rank reads its own share of every global batch.

As Paddle does: the indices are padded (repeating from the start) to a multiple of the ranks,
shuffled with the epoch as seed (so every rank draws the same order), and rank ``r`` takes
the ``r``-th ``batch_size`` slice of each global batch of ``batch_size * nranks``; so rank
``r``'s batch ``k`` is rows ``[k*B*n + r*B, k*B*n + (r+1)*B)`` of the (shuffled) order.
"""
from __future__ import annotations

import math
from typing import Any, Iterator

import numpy as np

from .dataloader import BatchSampler


class DistributedBatchSampler(BatchSampler):
    """Batches of ``batch_size`` indices for rank ``rank`` of ``num_replicas`` (default: this
    process's place in the job). Call ``set_epoch(epoch)`` before each epoch to reshuffle."""

    def __init__(self, dataset: Any, batch_size: int, num_replicas: int | None = None,
                 rank: int | None = None, shuffle: bool = False, drop_last: bool = False):
        super().__init__(dataset, shuffle=shuffle, batch_size=batch_size, drop_last=drop_last)
        from ..distributed import get_rank, get_world_size
        if num_replicas is not None and (not isinstance(num_replicas, int) or num_replicas <= 0):
            raise ValueError("num_replicas should be a positive integer")
        self.nranks = get_world_size() if num_replicas is None else num_replicas
        if rank is not None and (not isinstance(rank, int) or not 0 <= rank < self.nranks):
            raise ValueError(f"rank should be an integer in [0, {self.nranks})")
        self.local_rank = get_rank() if rank is None else rank
        self.epoch = 0
        self.num_samples = int(math.ceil(len(dataset) / self.nranks))
        self.total_size = self.num_samples * self.nranks

    def set_epoch(self, epoch: int) -> None:
        """Seed the shuffle of the next epoch (the same on every rank)."""
        self.epoch = int(epoch)

    def _local_indices(self) -> list[int]:
        indices = np.arange(len(self.dataset)).tolist()
        indices += indices[:self.total_size - len(indices)]
        if self.shuffle:
            np.random.RandomState(self.epoch).shuffle(indices)
            self.epoch += 1
        if self.nranks == 1:
            return indices
        step = self.batch_size * self.nranks
        tail = self.total_size % step           # a last, shorter global batch
        local = []
        for start in range(self.local_rank * self.batch_size, len(indices) - tail, step):
            local.extend(indices[start:start + self.batch_size])
        share = tail // self.nranks
        rest = indices[len(indices) - tail:]
        local.extend(rest[self.local_rank * share:(self.local_rank + 1) * share])
        return local

    def __iter__(self) -> Iterator[list[int]]:
        batch: list[int] = []
        for index in self._local_indices():
            batch.append(int(index))
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self) -> int:
        if self.drop_last:
            return self.num_samples // self.batch_size
        return (self.num_samples + self.batch_size - 1) // self.batch_size
