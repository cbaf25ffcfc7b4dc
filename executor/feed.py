"""Turning user feeds and fetch lists into arrays and names, with Paddle's checks."""
from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ..framework.errors import FeedError, FetchError
from ..framework.variable import Variable
from ..ops.types import dtype_name, to_numpy_dtype
from .tensor import LoDTensor


def fetch_names(fetch_list: Any) -> list[str]:
    """Paddle's ``_check_fetch_list``: Variables or names, nested lists flattened."""
    if fetch_list is None:
        return []
    if isinstance(fetch_list, (Variable, str)):
        fetch_list = [fetch_list]
    if not isinstance(fetch_list, (list, tuple)):
        raise TypeError("Currently , The fetch_list type only should be list or tuple, but the "
                        f"input type is {type(fetch_list)}.")
    names: list[str] = []
    for i, item in enumerate(fetch_list):
        if isinstance(item, Variable):
            names.append(item.name)
        elif isinstance(item, str):
            names.append(item)
        elif isinstance(item, (list, tuple)) and all(isinstance(x, (Variable, str))
                                                     for x in item):
            names.extend(x.name if isinstance(x, Variable) else x for x in item)
        else:
            raise TypeError(f"Require fetch_list[{i}] 's type shall be one of (Variable, str), "
                            f"but received {type(item).__name__}.")
    return names


def normalize_feed(feed: Any, block) -> dict[str, Any]:
    if feed is None:
        return {}
    if isinstance(feed, (list, tuple)):
        if len(feed) != 1:
            raise AssertionError("Not compiled with data parallel")
        feed = feed[0]
    if not isinstance(feed, dict):
        raise TypeError(f"feed requires dict as its Parameter. But you passed in {type(feed)}")
    kept = {}
    for name, value in feed.items():
        if isinstance(name, Variable):
            name = name.name
        if name not in block.vars:
            warnings.warn(f"The variable {name} is not found in program. It is not declared or "
                          "is pruned.", stacklevel=3)
            continue
        kept[name] = value
    return kept


def as_array(value: Any, var: Variable) -> np.ndarray:
    """Paddle's ``_as_lodtensor``: arrays as they are, scalars and lists cast to var's dtype."""
    if type(value) is np.ndarray:
        return value
    if isinstance(value, np.ma.MaskedArray):
        raise FeedError(f"The fed value of {var.name!r} is a masked array, and ops ignore masks: "
                        "feed value.filled(fill_value), or np.asarray(value) if the masked "
                        "entries hold usable numbers")
    if isinstance(value, np.ndarray):        # a subclass (np.matrix, memmap): its plain array
        return np.asarray(value)
    if isinstance(value, LoDTensor):
        return value.numpy()
    if hasattr(value, "numpy") and callable(value.numpy):   # an eager Tensor
        return np.asarray(value.numpy())
    dtype = to_numpy_dtype(var.dtype)
    if isinstance(value, (bool, int, float, np.number)):
        return np.array([value]).astype(dtype)
    if isinstance(value, (list, tuple)):
        try:
            return np.array(value).astype(dtype)
        except ValueError:
            raise TypeError("Faild to convert input data to a regular ndarray :\n * Usually this "
                            "means the input data contains nested lists with different lengths. "
                            f"Please check the input data of '{var.name}'.") from None
    raise TypeError(f"Convert data of type {type(value)} to Tensor is not supported")


def check_feed(var: Variable, array: np.ndarray) -> None:
    """Paddle's ``check_feed_shape_type`` plus a real rank check."""
    if not var.need_check_feed:
        return
    expected = var.shape
    got = array.shape
    bad = len(got) != len(expected) or any(
        e >= 0 and g != e for e, g in zip(expected, got))
    if bad:
        raise FeedError(f"The fed Variable {var.name!r} should have dimensions = {len(expected)}, "
                        f"shape = {tuple(expected)!r}, but received fed shape {list(got)!r} on "
                        "each device")
    if array.dtype != to_numpy_dtype(var.dtype):
        received = repr(array.dtype.name)
        if not array.dtype.isnative:
            order = "big" if array.dtype.byteorder == ">" else "little"
            received = (f"{array.dtype.str!r}, {array.dtype.name} in {order}-endian byte order "
                        f"(not this machine's): convert it with "
                        f"value.astype({dtype_name(var.dtype)!r})")
        raise FeedError(f"The data type of fed Variable {var.name!r} must be "
                        f"{dtype_name(var.dtype)!r}, but received {received}")


def feed_op_targets(block) -> list[str]:
    """The variables a program's feed ops write."""
    return [op.output("Out")[0] for op in block.ops if op.type == "feed"]


def check_feed_ops(targets: list[str], feed: dict) -> None:
    """A program that carries feed ops (a loaded inference model) must be fed exactly their
    targets (Paddle's ``has_feed_operators``)."""
    if not targets:
        return
    for name in targets:
        if name not in feed:
            raise FeedError(f"'feed_targets' does not have {name} variable: the program's feed "
                            f"ops read {sorted(targets)}; pass each of them in feed={{...}}")
    if len(feed) != len(targets):
        extra = sorted(set(feed) - set(targets))
        raise FeedError("Feed operators in program desc do not match 'feed_targets': the feed "
                        f"ops read {sorted(targets)}, but {extra} were fed as well")


def fetch_op_targets(block) -> list[str]:
    """The variables a program's fetch ops fetch, in ``col`` order."""
    fetches = sorted((op for op in block.ops if op.type == "fetch"),
                     key=lambda op: op.attr("col") or 0)
    return [op.input("X")[0] for op in fetches]


def check_fetch_ops(targets: list[str], names: list[str]) -> None:
    """Paddle's ``has_fetch_operators``: fetch_list must name the fetch ops' targets in col
    order."""
    for name in targets:
        if name not in names:
            raise FetchError(f"'fetch_targets' does not have {name} variable: the program's "
                             f"fetch ops fetch {targets}; pass fetch_list={targets} (or None)")
    if names != targets:
        raise FetchError("Fetch operators in program desc do not match 'fetch_targets': "
                         f"the fetch ops fetch {targets} (in col order), fetch_list names {names}")
