"""Paddle's ``monkey_patch_variable`` / ``monkey_patch_tensor``: the tensor methods
(``x.sum()``, ``x.reshape(...)``, ``x.max()``...) that forward to the functional API, and
indexing of static Variables (``x[:, 1]`` appends a ``slice`` op). The engine and the framework
define the classes; the public API gives them these methods when it is imported."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..framework import unique_name
from ..engine.tensor import Tensor
from ..framework.variable import Variable
from .variable_index import array_append, array_getitem, has_tensor_index, is_array, tensor_getitem


_MAX_END = 2 ** 31 - 1     # Paddle's end for an open slice


def _slice_attrs(index: Any, ndim: int, name: str) -> tuple[str, dict]:
    """The op (``slice``, or ``strided_slice`` when a step is not 1) and its attrs for an
    index of ints and slices, as Paddle's static getitem builds them."""
    items = index if isinstance(index, tuple) else (index,)
    if len(items) > ndim:
        raise IndexError(f"too many indices for Variable '{name}': it has {ndim} dims, "
                         f"{len(items)} were indexed")
    axes, starts, ends, strides, decrease = [], [], [], [], []
    for axis, item in enumerate(items):
        if isinstance(item, (int, np.integer)) and not isinstance(item, bool):
            start = int(item)
            axes.append(axis), starts.append(start), decrease.append(axis), strides.append(1)
            ends.append(_MAX_END if start == -1 else start + 1)
        elif isinstance(item, slice):
            step = 1 if item.step is None else int(item.step)
            if item.start is None and item.stop is None and step == 1:
                continue
            if step < 0:
                raise NotImplementedError(f"indexing Variable '{name}' with {item!r}: negative "
                                          "steps are not supported by pyfluid; use paddle.flip")
            axes.append(axis), strides.append(step)
            starts.append(0 if item.start is None else int(item.start))
            ends.append(_MAX_END if item.stop is None else int(item.stop))
        else:
            raise NotImplementedError(
                f"indexing Variable '{name}' with {item!r}: pyfluid's static programs support "
                "ints and slices; use paddle.gather for index lists and tensors")
    attrs = {"axes": axes, "starts": starts, "ends": ends, "infer_flags": [1] * len(axes),
             "decrease_axis": decrease}
    if any(step != 1 for step in strides):
        return "strided_slice", {**attrs, "strides": strides}
    return "slice", attrs


def _getitem(self: Variable, index: Any) -> Variable:
    if is_array(self):
        return array_getitem(self, index)
    if has_tensor_index(index):
        return tensor_getitem(self, index)
    op_type, attrs = _slice_attrs(index, len(self.shape), self.name)
    if not attrs["axes"]:
        return self
    block = self.block.program.current_block()     # Paddle names it <x>_slice_<n>
    out = block.create_var(name=unique_name.generate_with_ignorable_key(
        f"{self.name}_{op_type}"), dtype=self.dtype)
    block.append_op(type=op_type, inputs={"Input": self}, outputs={"Out": out}, attrs=attrs)
    return out


def api_method(name: str):
    """``value.<name>(...)`` = ``paddle.<name>(value, ...)`` (the functional API)."""
    def method(self, *args, **kwargs):
        import pyfluid
        return getattr(pyfluid, name)(self, *args, **kwargs)
    method.__name__ = name
    method.__doc__ = f"``paddle.{name}(self, ...)``."
    return method


# the methods static Variables and eager Tensors share; each class keeps what it defines itself
_METHODS = (
    "abs", "add", "all", "any", "argmax", "argmin", "argsort", "cast", "clip", "cumsum",
    "divide", "equal", "exp", "expand", "flatten", "floor", "gather", "greater_equal",
    "greater_than", "isfinite", "less_equal", "less_than", "log", "logsumexp", "matmul", "max",
    "maximum", "mean", "min", "minimum", "multiply", "not_equal", "pow", "prod", "reciprocal",
    "relu", "reshape", "round", "rsqrt", "scale", "sigmoid", "sign", "split", "sqrt", "square",
    "squeeze", "std", "subtract", "sum", "tanh", "tile", "topk", "transpose", "unsqueeze", "var")
_METHODS += ("bmm", "ceil", "cos", "index_select", "sin", "take_along_axis", "tril", "triu")


def patch_methods() -> None:
    """Give Variables and Tensors their Paddle methods (run once by ``import pyfluid``)."""
    Variable.__getitem__ = _getitem
    Variable.append = array_append
    for cls in (Variable, Tensor):
        for name in _METHODS:
            if name not in vars(cls):
                setattr(cls, name, api_method(name))
