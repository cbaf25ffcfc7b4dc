"""Dynamic-to-static conversion of Python control flow (Paddle's dy2static AST mode).

``transform.convert_to_static(fn)`` rewrites a function's source so that ``if``/``while``/
``for``, ``break``/``continue``/``return`` inside them, ``and``/``or``/``not`` and calls run
through the runtime in ``jst.py``, which builds ``cond``/``while_loop`` ops when a condition
is a Tensor and plain Python control flow otherwise. docs/dynamic_to_static.md describes
what is converted.
"""
from .convert_call import ignore_module, not_to_static
from .transform import convert_to_static, converted_source, why_not_converted

__all__ = ["convert_to_static", "converted_source", "ignore_module", "not_to_static",
           "why_not_converted"]
