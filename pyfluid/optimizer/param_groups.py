"""Parameter groups (``parameters=[{'params': [...], 'weight_decay': .., 'learning_rate': ..,
<optimizer option>: ..}, ...]``), as Paddle's optimizers take them: each group's weight decay
becomes its parameters' regularizer and its learning rate their rate multiplier; options named
in an optimizer's ``_group_options`` (Momentum's ``momentum``, Adam's ``beta1``...) apply to the
group's updates."""
from __future__ import annotations

import contextlib
from typing import Any, Iterator

from ..framework.variable import Variable
from ..regularizer import L2Decay


def split(parameters: list) -> tuple[list, list[dict]]:
    """(every parameter, the groups with their ``params`` as lists), checking that no
    parameter is in two groups."""
    groups, seen, flat = [], set(), []
    for group in parameters:
        if not isinstance(group, dict) or "params" not in group:
            raise TypeError("parameter groups must be dicts with a 'params' entry, received "
                            f"{group!r}")
        params = group["params"]
        if isinstance(params, set):
            raise TypeError("optimizer parameters should be in ordered collections,but "
                            "received set, please use list instead.")
        params = [params] if isinstance(params, Variable) or hasattr(params, "_array") \
            else list(params)
        if any(id(p) in seen for p in params):
            raise ValueError("some parameters appear in more than one parameter group")
        seen.update(id(p) for p in params)
        flat.extend(params)
        groups.append({**group, "params": params})
    return flat, groups


def configure(groups: list[dict], default_decay: Any) -> None:
    """Give each group's parameters its regularizer and learning-rate multiplier."""
    for group in groups:
        decay = group.get("weight_decay", default_decay)
        for param in group["params"]:
            param.regularizer = L2Decay(decay) if isinstance(decay, float) else decay
            param.optimize_attr["learning_rate"] = group.get("learning_rate", 1.0)


@contextlib.contextmanager
def options(optimizer: Any, group: dict | None) -> Iterator[None]:
    """The optimizer's hyperparameters overridden by ``group``'s for the block."""
    names = {key: attr for key, attr in optimizer._group_options.items()
             if group is not None and key in group}
    saved = {attr: getattr(optimizer, attr) for attr in names.values()}
    for key, attr in names.items():
        setattr(optimizer, attr, group[key])
    try:
        yield
    finally:
        for attr, value in saved.items():
            setattr(optimizer, attr, value)
