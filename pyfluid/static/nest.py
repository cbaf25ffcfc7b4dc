"""Nested structures of values (lists, tuples, dicts of Tensors and Python values), as
control flow returns them: ``flatten``, ``pack_sequence_as``, ``map_structure`` and
``assert_same_structure`` (Paddle's ``paddle.utils`` helpers). Dicts are walked in sorted key
order; anything else is a leaf."""
from __future__ import annotations

from typing import Any, Callable


def is_sequence(value: Any) -> bool:
    return isinstance(value, (list, tuple, dict))


def _children(value: Any) -> list:
    if isinstance(value, dict):
        return [value[k] for k in sorted(value)]
    return list(value)


def flatten(nest: Any) -> list:
    """The leaves of ``nest``, depth first."""
    if not is_sequence(nest):
        return [nest]
    leaves = []
    for child in _children(nest):
        leaves += flatten(child)
    return leaves


def _pack(structure: Any, leaves: list, start: int) -> tuple[Any, int]:
    if not is_sequence(structure):
        return leaves[start], start + 1
    packed = []
    for child in _children(structure):
        value, start = _pack(child, leaves, start)
        packed.append(value)
    if isinstance(structure, dict):
        return dict(zip(sorted(structure), packed)), start
    if isinstance(structure, tuple) and hasattr(structure, "_fields"):   # a namedtuple
        return type(structure)(*packed), start
    return type(structure)(packed), start


def pack_sequence_as(structure: Any, flat: list) -> Any:
    """``flat`` (as many leaves as ``structure`` has) in the shape of ``structure``."""
    if len(flatten(structure)) != len(flat):
        raise ValueError(f"Could not pack sequence. Structure had {len(flatten(structure))} "
                         f"elements, but flat_sequence had {len(flat)} elements.")
    return _pack(structure, list(flat), 0)[0]


def map_structure(fn: Callable, *structures: Any) -> Any:
    """``fn`` applied leaf-wise over structures of the same shape."""
    for other in structures[1:]:
        assert_same_structure(structures[0], other, check_types=False)
    leaves = [flatten(s) for s in structures]
    return pack_sequence_as(structures[0], [fn(*args) for args in zip(*leaves)])


def assert_same_structure(nest1: Any, nest2: Any, check_types: bool = True) -> None:
    """ValueError (TypeError for kinds, with ``check_types``) unless both nest alike."""
    count1, count2 = len(flatten(nest1)), len(flatten(nest2))
    if count1 != count2:
        raise ValueError("The two structures don't have the same number of elements.\n\n"
                         f"First structure ({count1} elements): {nest1}\n\n"
                         f"Second structure ({count2} elements): {nest2}")
    _same_nesting(nest1, nest2, check_types)


def _same_nesting(nest1: Any, nest2: Any, check_types: bool) -> None:
    if is_sequence(nest1) != is_sequence(nest2):
        raise ValueError("The two structures don't have the same nested structure.\n\n"
                         f"First structure: {nest1}\n\nSecond structure: {nest2}.")
    if not is_sequence(nest1):
        return
    if check_types and type(nest1) is not type(nest2):
        raise TypeError("The two structures don't have the same sequence type. First "
                        f"structure has type {type(nest1)}, while second structure has type "
                        f"{type(nest2)}.")
    children1, children2 = _children(nest1), _children(nest2)
    if len(children1) != len(children2):
        raise ValueError("The two structures don't have the same nested structure.\n\n"
                         f"First structure: {nest1}\n\nSecond structure: {nest2}.")
    for a, b in zip(children1, children2):
        _same_nesting(a, b, check_types)
