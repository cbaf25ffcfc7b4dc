"""Paddle's ``paddle.framework.io_utils``: which variables of a program a checkpoint saves
(the predicates live with ``Program.state_dict`` in program_state)."""
from .program_state import is_belong_to_optimizer, is_parameter, is_persistable

__all__ = ["is_belong_to_optimizer", "is_parameter", "is_persistable"]
