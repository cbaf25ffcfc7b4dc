"""``paddle.base.dygraph``: the dynamic-graph switches of the fluid era."""
from __future__ import annotations

import contextlib
from typing import Any, Iterator

from ..framework import Program, program_guard, unique_name
from ..framework.context import disable_static, enable_static, in_dynamic_mode
from ..tensor.creation import to_tensor

__all__ = ["enabled", "guard", "to_variable"]


@contextlib.contextmanager
def guard(place: Any = None) -> Iterator[None]:
    """Run the block in dynamic mode, with fresh default programs and unique names; the mode
    in force before is restored after."""
    was_dynamic = in_dynamic_mode()
    with program_guard(Program(), Program()), unique_name.guard():
        disable_static()
        try:
            yield
        finally:
            if not was_dynamic:
                enable_static()


def enabled() -> bool:
    return in_dynamic_mode()


def to_variable(value: Any, name: str | None = None, zero_copy: Any = None,
                dtype: Any = None):
    """The fluid-era name of ``paddle.to_tensor``."""
    return to_tensor(value, dtype=dtype)
