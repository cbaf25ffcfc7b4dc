"""``paddle.base.DataFeeder``: a minibatch of samples (tuples, one field per fed variable)
into the feed dict ``Executor.run`` takes, each field stacked, cast to its variable's dtype
and shaped like it (a LoD level > 0 field keeps its sequence lengths as the LoD)."""
from __future__ import annotations

from typing import Any, Iterable, Sequence

import numpy as np

from ..executor import LoDTensor
from ..framework import Variable, default_main_program
from ..ops.types import to_numpy_dtype

__all__ = ["DataFeeder"]


class DataFeeder:
    def __init__(self, feed_list: Sequence[Variable | str], place: Any, program: Any = None):
        program = program if program is not None else default_main_program()
        self.feed_vars: list[Variable] = []
        for var in feed_list:
            if isinstance(var, str):
                var = program.global_block().var(var)
            if not isinstance(var, Variable):
                raise TypeError("Feed list should contain a list of variable")
            self.feed_vars.append(var)
        self.feed_names = [v.name for v in self.feed_vars]
        self.place = place

    def feed(self, iterable: Iterable[Sequence[Any]]) -> dict[str, LoDTensor]:
        """``{name: LoDTensor}`` for one minibatch of samples."""
        fields: list[list] = [[] for _ in self.feed_vars]
        lods: list[list] = [[[] for _ in range(v.lod_level or 0)] for v in self.feed_vars]
        for sample in iterable:
            if len(sample) != len(fields):
                raise AssertionError(f"The number of fields in data ({len(sample)}) does not "
                                     f"match len(feed_list) ({len(fields)})")
            for field, lod, value in zip(fields, lods, sample):
                _flatten_levels(value, field, lod)
        return {var.name: _to_tensor(var, field, lod)
                for var, field, lod in zip(self.feed_vars, fields, lods)}


def _flatten_levels(value: Any, out: list, lod: list) -> None:
    """Append ``value`` to ``out``, recording one sequence length per LoD level."""
    if not lod:
        out.append(value)
        return
    lod[0].append(len(value))
    for item in value:
        _flatten_levels(item, out, lod[1:])


def _to_tensor(var: Variable, field: list, lod: list) -> LoDTensor:
    array = np.array(field, dtype=to_numpy_dtype(var.dtype))
    shape = list(var.shape)
    if shape and sum(d < 0 for d in shape) <= 1 and array.ndim != len(shape):
        try:
            array = array.reshape(shape)
        except ValueError:
            raise ValueError(f"Reshape error. What is defined in data layer is {shape}, but "
                             f"receive {list(array.shape)}") from None
    tensor = LoDTensor(array)
    if lod:
        tensor.set_recursive_sequence_lengths(lod)
    return tensor
