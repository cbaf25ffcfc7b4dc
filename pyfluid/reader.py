"""``paddle.reader``: decorators over reader creators (no-argument callables returning an
iterator of samples), as Paddle's ``reader.decorator`` module: shuffle, buffered, chain,
compose, map_readers, firstn, cache, xmap_readers."""
from __future__ import annotations

import itertools
import queue
import random
import threading
from typing import Any, Callable, Iterator

Reader = Callable[[], Iterator[Any]]

__all__ = ["ComposeNotAligned", "buffered", "cache", "chain", "compose", "firstn",
           "map_readers", "shuffle", "xmap_readers"]


class ComposeNotAligned(ValueError):
    """``compose(check_alignment=True)`` found readers of different lengths."""


def shuffle(reader: Reader, buf_size: int) -> Reader:
    """Shuffle within windows of ``buf_size`` samples (Python's ``random``, as Paddle)."""
    def shuffled() -> Iterator[Any]:
        window: list = []
        for sample in reader():
            window.append(sample)
            if len(window) >= buf_size:
                random.shuffle(window)
                yield from window
                window = []
        random.shuffle(window)
        yield from window
    return shuffled


def buffered(reader: Reader, size: int) -> Reader:
    """Read ahead up to ``size`` samples in a background thread."""
    end = object()

    def read_into(q: queue.Queue) -> None:
        try:
            for sample in reader():
                q.put(sample)
        finally:
            q.put(end)

    def read_buffered() -> Iterator[Any]:
        q: queue.Queue = queue.Queue(maxsize=size)
        threading.Thread(target=read_into, args=(q,), daemon=True).start()
        while (sample := q.get()) is not end:
            yield sample
    return read_buffered


def chain(*readers: Reader) -> Reader:
    """The samples of each reader in turn."""
    return lambda: itertools.chain(*(r() for r in readers))


def compose(*readers: Reader, check_alignment: bool = True) -> Reader:
    """Tuples joining one sample of each reader (tuple samples are flattened into them)."""
    def flat(sample: Any) -> tuple:
        return sample if isinstance(sample, tuple) else (sample,)

    def composed() -> Iterator[tuple]:
        iterators = [r() for r in readers]
        if not check_alignment:
            for samples in zip(*iterators):
                yield sum(map(flat, samples), ())
            return
        for samples in itertools.zip_longest(*iterators):
            if any(s is None for s in samples):
                raise ComposeNotAligned("outputs of readers are not aligned.")
            yield sum(map(flat, samples), ())
    return composed


def map_readers(func: Callable, *readers: Reader) -> Reader:
    """``func`` applied to one sample of each reader at a time."""
    return lambda: map(func, *(r() for r in readers))


def firstn(reader: Reader, n: int) -> Reader:
    """The first ``n`` samples."""
    return lambda: itertools.islice(reader(), n)


def cache(reader: Reader) -> Reader:
    """Read everything once; later passes replay the samples from memory."""
    samples = list(reader())
    return lambda: iter(samples)


def xmap_readers(mapper: Callable, reader: Reader, process_num: int, buffer_size: int,
                 order: bool = False) -> Reader:
    """``mapper`` over the samples with ``process_num`` worker threads (results in input
    order when ``order``)."""
    def mapped() -> Iterator[Any]:
        from concurrent.futures import ThreadPoolExecutor
        with ThreadPoolExecutor(max_workers=max(1, process_num)) as pool:
            results = pool.map(mapper, reader())
            yield from results
    return mapped
