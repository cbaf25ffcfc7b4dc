"""Where the user's code is: the first stack frame outside pyfluid.

Frames are recognized by the *module name* they run in (``pyfluid`` or ``pyfluid.*``), never
by file paths, so the answer is the same in an editable checkout and in an installed wheel."""
from __future__ import annotations

import sys


def is_pyfluid_module(name: str | None) -> bool:
    """Whether ``name`` is pyfluid itself or one of its submodules."""
    return name is not None and (name == "pyfluid" or name.startswith("pyfluid."))


def user_site() -> str:
    """``file:line`` of the innermost caller outside pyfluid and the import machinery."""
    frame = sys._getframe(1)
    while frame is not None:
        module = frame.f_globals.get("__name__")
        if not is_pyfluid_module(module) and not frame.f_code.co_filename.startswith(
                "<frozen importlib"):
            return f"{frame.f_code.co_filename}:{frame.f_lineno}"
        frame = frame.f_back
    return "<unknown>"
