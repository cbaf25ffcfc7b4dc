"""The one error type of file loading: it always names the file and says what is wrong."""
from __future__ import annotations


class ModelFileError(ValueError):
    """A model, parameter or checkpoint file is missing, truncated, corrupt or foreign.

    Raised before anything is written to a scope, so a failed load changes nothing."""

    def __init__(self, path: str, problem: str):
        super().__init__(f"cannot load '{path}': {problem}")
        self.path = path
        self.problem = problem
