"""``paddle.jit.set_code_level`` / ``set_verbosity``: what the converter reports, through the
``logging`` logger ``pyfluid.jit`` (and stdout when asked), as Paddle's translator logger."""
from __future__ import annotations

import logging

LOGGER = logging.getLogger("pyfluid.jit")


class _Settings:
    code_level = 0            # > 0: show each converted function's source
    verbosity = 0             # > 0: say which functions are run as they are, and why
    to_stdout = False


SETTINGS = _Settings()


def set_code_level(level: int = 100, also_to_stdout: bool = False) -> None:
    """With ``level > 0``, the converted source of each function is logged when converted."""
    if not isinstance(level, int):
        raise TypeError(f"level must be int, but received {type(level).__name__}")
    SETTINGS.code_level, SETTINGS.to_stdout = level, bool(also_to_stdout)


def set_verbosity(level: int = 0, also_to_stdout: bool = False) -> None:
    """With ``level > 0``, functions run without conversion are logged with the reason."""
    if not isinstance(level, int):
        raise TypeError(f"level must be int, but received {type(level).__name__}")
    SETTINGS.verbosity, SETTINGS.to_stdout = level, bool(also_to_stdout)


def report(kind: str, message: str) -> None:
    level = SETTINGS.code_level if kind == "code" else SETTINGS.verbosity
    if level <= 0:
        return
    LOGGER.info(message)
    if SETTINGS.to_stdout:
        print(message)
