"""``paddle.DataParallel``: every rank runs the same layer on its own batch; backward() averages
the gradients over the ranks, so every rank's optimizer takes the same step.

Gradients are reduced in buckets (Paddle's reducer): parameters in reverse order, the first
bucket up to ``last_comm_buffer_size`` MB, the others up to ``comm_buffer_size`` MB, one dtype
per bucket. A bucket is flattened into one buffer and reduced with one non-blocking
all-reduce as soon as backward has produced all of its gradients, while backward goes on;
the end of backward() waits for every bucket and writes the averages into ``param.grad``.

When a bucket is complete is learned on the first backward (how many times each gradient
accumulates); that step reduces every bucket at its end. The eager engine knows nothing of
this: the reducer is called through its leaf and final backward hooks (engine/tape.py).
"""
from __future__ import annotations

import contextlib
import weakref
from typing import Any, Iterator

import numpy as np

from ..engine import tape
from ..nn.layer.layers import Layer
from ..ops.comm import start_bucket
from .collective import is_initialized
from .mpi import DistributedError
from .world import env_rank_and_size, world

MB = 1 << 20


class Reducer:
    """Averages the gradients of ``params`` over the ranks of ``comm`` during backward()."""

    def __init__(self, params: list, comm: Any, bucket_bytes: int, first_bucket_bytes: int,
                 find_unused_parameters: bool = False):
        self.comm = comm
        self.params = [p for p in params if not p.stop_gradient]
        self.buckets = assign_buckets(self.params, bucket_bytes, first_bucket_bytes)
        self.bucket_of = {id(p): i for i, bucket in enumerate(self.buckets) for p in bucket}
        self.early = not find_unused_parameters   # start buckets before backward ends
        self.expected: dict[int, int] | None = None
        self.counts: dict[int, int] = {}
        self.started: dict[int, Any] = {}
        self.enabled = True
        own = weakref.WeakMethod(self.on_leaf)
        final = weakref.WeakMethod(self.finalize)
        self._leaf_hook = lambda p: (own() or _ignore)(p)
        self._final_hook = lambda: (final() or _ignore)()
        for p in self.params:
            tape.register_leaf_hook(p, self._leaf_hook)
        tape.register_backward_final_hook(self._final_hook)

    def __del__(self) -> None:
        for p in self.params:
            tape.remove_leaf_hook(p, self._leaf_hook)
        tape.remove_backward_final_hook(self._final_hook)

    def on_leaf(self, param) -> None:
        if not self.enabled:
            return
        key = id(param)
        self.counts[key] = self.counts.get(key, 0) + 1
        if self.expected is None or not self.early:
            return
        index = self.bucket_of[key]
        if index in self.started:
            return
        if all(self.counts.get(id(p), 0) >= self.expected.get(id(p), 0)
               for p in self.buckets[index]):
            self._start(index)

    def _start(self, index: int) -> None:
        arrays = [p.grad._array if p.grad is not None else np.zeros(p._array.shape,
                                                                    p._array.dtype)
                  for p in self.buckets[index]]
        self.started[index] = start_bucket(self.comm, arrays)

    def finalize(self) -> None:
        """End of backward(): reduce what is left, wait for every bucket, write averages."""
        if not self.enabled or not self.counts:
            return
        if self.expected is None:
            self.expected = dict(self.counts)
        elif self.started and any(self.counts.get(id(p), 0) > self.expected.get(id(p), 0)
                                  for i in self.started for p in self.buckets[i]):
            self.started.clear()
            raise DistributedError(
                "DataParallel: a parameter received more gradient contributions than on the "
                "first step after its bucket was already being reduced (the layer uses "
                "different parameters on different steps). Build it with "
                "DataParallel(layer, find_unused_parameters=True).")
        for index in range(len(self.buckets)):
            if index not in self.started:
                self._start(index)
        size = self.comm.size
        for index, pending in sorted(self.started.items()):
            for param, summed in zip(self.buckets[index], pending.wait()):
                average = summed / np.asarray(size, dtype=summed.dtype)
                if param.grad is None:
                    from ..engine import Tensor
                    param.grad = Tensor._wrap(average)
                else:
                    param.grad._array = average
        self.counts, self.started = {}, {}


def _ignore(*_args) -> None:
    return None


def assign_buckets(params: list, bucket_bytes: int, first_bucket_bytes: int) -> list[list]:
    """Parameters in reverse order (the order backward produces their gradients), cut into
    buckets of at most the given sizes; a bucket holds one dtype."""
    buckets: list[list] = []
    open_by_dtype: dict[Any, tuple[int, int]] = {}     # dtype -> (bucket index, bytes used)
    for p in reversed(params):
        dtype, nbytes = p._array.dtype, p._array.nbytes
        index, used = open_by_dtype.get(dtype, (-1, 0))
        limit = first_bucket_bytes if index == 0 else bucket_bytes
        if index < 0 or used + nbytes > limit:
            index, used = len(buckets), 0
            buckets.append([])
        buckets[index].append(p)
        open_by_dtype[dtype] = (index, used + nbytes)
    return buckets


class DataParallel(Layer):
    """Paddle's ``paddle.DataParallel``: wraps ``layers``; gradients are averaged over the
    ranks during backward(). Parameters are broadcast from rank 0 when it is built."""

    def __init__(self, layers: Layer, strategy: Any = None, comm_buffer_size: float = 25,
                 last_comm_buffer_size: float = 1, find_unused_parameters: bool = False,
                 group: Any = None):
        super().__init__()
        self._layers = layers
        self.find_unused_parameters = find_unused_parameters
        self._reducer = None
        if not is_initialized():
            if env_rank_and_size()[1] > 1:
                raise DistributedError("DataParallel needs the parallel environment: call "
                                       "paddle.distributed.init_parallel_env() first")
            return
        comm = world()
        if comm.size == 1:
            return
        sync_params(layers, comm)
        self._reducer = Reducer(layers.parameters(), comm, int(comm_buffer_size * MB),
                                int(last_comm_buffer_size * MB), find_unused_parameters)

    def forward(self, *inputs, **kwargs):
        return self._layers(*inputs, **kwargs)

    def state_dict(self, *args, **kwargs):
        return self._layers.state_dict(*args, **kwargs)

    def set_state_dict(self, state_dict: dict, *args, **kwargs):
        return self._layers.set_state_dict(state_dict, *args, **kwargs)

    set_dict = load_dict = set_state_dict

    def scale_loss(self, loss):
        """Kept for old code: gradients are averaged in backward(), the loss is unchanged."""
        return loss

    @contextlib.contextmanager
    def no_sync(self) -> Iterator[None]:
        """Accumulate gradients locally (no reduction) inside the block; the next backward()
        outside it reduces the accumulated gradients."""
        if self._reducer is None:
            yield
            return
        self._reducer.enabled = False
        try:
            yield
        finally:
            self._reducer.enabled = True


def sync_params(layer: Layer, comm: Any) -> None:
    """Every rank starts from rank 0's parameters and buffers."""
    for param in layer.parameters():
        param._array = comm.broadcast(param._array, 0)
    for buffer in getattr(layer, "buffers", lambda: [])():
        buffer._array = comm.broadcast(buffer._array, 0)
