"""``paddle.utils``: ``unique_name`` (generate, guard, switch) for layer and variable names, and
the nested-structure helpers control flow uses (``flatten``, ``pack_sequence_as``,
``map_structure``, ``assert_same_structure``)."""
from .framework import unique_name  # noqa: F401
from .static.nest import (assert_same_structure, flatten, map_structure,  # noqa: F401
                          pack_sequence_as)

__all__ = ["assert_same_structure", "flatten", "map_structure", "pack_sequence_as",
           "unique_name"]
