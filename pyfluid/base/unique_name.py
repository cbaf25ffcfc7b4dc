"""``paddle.base.unique_name`` (the generator lives in ``pyfluid.framework.unique_name``)."""
from ..framework.unique_name import (UniqueNameGenerator, generate, generate_with_ignorable_key,
                                     guard, switch)

__all__ = ["UniqueNameGenerator", "generate", "generate_with_ignorable_key", "guard", "switch"]
