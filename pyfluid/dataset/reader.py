"""Reader decorators (``paddle.batch``): a reader creator is a no-argument callable returning an
iterator of samples."""
from __future__ import annotations

from typing import Callable, Iterator, List, TypeVar

Sample = TypeVar("Sample")


def batch(reader: Callable[[], Iterator[Sample]], batch_size: int,
          drop_last: bool = False) -> Callable[[], Iterator[List[Sample]]]:
    """A reader creator yielding lists of ``batch_size`` samples from ``reader``; the last,
    shorter list is dropped when ``drop_last``."""
    batch_size = int(batch_size)
    if batch_size <= 0:
        raise ValueError("batch_size should be a positive integeral value, "
                         "but got batch_size={}".format(batch_size))

    def batch_reader() -> Iterator[List[Sample]]:
        pending: List[Sample] = []
        for sample in reader():
            pending.append(sample)
            if len(pending) == batch_size:
                yield pending
                pending = []
        if pending and not drop_last:
            yield pending

    return batch_reader
