"""Errors raised while a converted function is built into a program point at the user's
code: converted code is compiled with the user's file name and line numbers (``transform``),
so tracebacks already show the user's lines; this adds a note naming the converted function
and the user line the error came from, past the runtime's own frames."""
from __future__ import annotations

import linecache

from .transform import is_converted_code


def user_frame(exc: BaseException) -> tuple[str, int, str] | None:
    """(file, line, function) of the innermost converted frame of ``exc``'s traceback."""
    found = None
    tb = exc.__traceback__
    while tb is not None:
        if is_converted_code(tb.tb_frame.f_code):
            code = tb.tb_frame.f_code
            found = (code.co_filename, tb.tb_lineno, code.co_name)
        tb = tb.tb_next
    return found


def add_conversion_note(exc: BaseException, converting: str) -> None:
    """Note where in the user's code ``exc`` was raised (Python 3.11+ shows notes)."""
    if not hasattr(exc, "add_note") or getattr(exc, "_d2s_noted", False):
        return
    where = user_frame(exc)
    if where is None:
        return
    filename, line, _ = where
    text = linecache.getline(filename, line).strip()
    exc.add_note(f"(paddle.jit.to_static, while converting {converting}: raised from "
                 f"{filename}:{line}: {text})")
    exc._d2s_noted = True
