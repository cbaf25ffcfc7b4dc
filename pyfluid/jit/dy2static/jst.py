"""The runtime namespace converted code calls as ``_jst`` (Paddle's ``_jst``): one name per
construct the passes rewrite."""
from .control import IfExp, convert_ifelse, convert_while
from .convert_call import call
from .iteration import convert_for, iter_item, iter_start
from .values import (And, Not, Or, UndefinedVar, compare_chain, convert_assert, ld,
                     return_value)

__all__ = ["And", "IfExp", "Not", "Or", "UndefinedVar", "call", "compare_chain",
           "convert_assert", "convert_for", "convert_ifelse", "convert_while", "iter_item",
           "iter_start", "ld", "return_value"]
