"""A Python function -> the same function with its control flow converted (Paddle's
``convert_to_static``): parse its source, run the passes, compile, cache.

The passes, per function scope (nested ``def``s first): ``return_pass`` (early returns),
``loop_pass`` (break/continue, for), ``expr_pass`` (and/or/not, x if c else y, calls,
assert) and ``block_pass`` (if/while/for -> nested functions for the runtime).

The converted code is compiled from the transformed AST with the *user's* file name and line
numbers (every generated node carries the location of the statement it stands for), so
tracebacks, op call stacks and linecache point at the user's source, not at generated code.
It is compiled inside a factory function whose parameters are the runtime namespace ``_jst``
and the original function's free variables; the result is rebuilt around the original
closure cells and globals, so it sees what the original sees.
"""
from __future__ import annotations

import ast
import inspect
import textwrap
import types
import weakref
from typing import Callable

from . import jst
from .convert_call import NOT_TO_STATIC
from .ast_build import JST, NameGen, arguments, located
from .block_pass import BlockPass
from .expr_pass import ExpressionPass
from .logging_utils import report
from .loop_pass import LoopPass
from .names import walk_scope
from .return_pass import ReturnPass

_FACTORY = "__d2s_factory"


class NotConvertible(Exception):
    """Why a function is run as it is."""


class _Converted:
    """The compiled conversion of one code object."""

    def __init__(self, code: types.CodeType, source: str):
        self.code = code
        self.source = source


_BY_CODE: dict[types.CodeType, _Converted | NotConvertible] = {}
_BY_FUNCTION: "weakref.WeakKeyDictionary[Callable, Callable]" = weakref.WeakKeyDictionary()
_CONVERTED_CODES: set[types.CodeType] = set()


def convert_to_static(function: Callable) -> Callable:
    """The converted ``function`` (cached), or ``function`` itself when it cannot be
    converted (``why_not_converted`` tells why)."""
    if not isinstance(function, types.FunctionType) or getattr(function, NOT_TO_STATIC, False) \
            or function.__code__ in _CONVERTED_CODES:     # (a def nested in converted code)
        return function
    found = _BY_FUNCTION.get(function)
    if found is not None:
        return found
    entry = _BY_CODE.get(function.__code__)
    if entry is None:
        try:
            entry = _convert_code(function)
            report("code", f"converted {function.__qualname__}:\n{entry.source}")
        except NotConvertible as reason:
            entry = reason
            report("verbosity", f"{function.__qualname__} is run as it is: {reason}")
        _BY_CODE[function.__code__] = entry
    result = function if isinstance(entry, NotConvertible) else _instantiate(function, entry)
    _BY_FUNCTION[function] = result
    return result


def why_not_converted(function: Callable) -> str | None:
    entry = _BY_CODE.get(getattr(function, "__code__", None))
    return str(entry) if isinstance(entry, NotConvertible) else None


def converted_source(function: Callable) -> str:
    """The transformed source of a converted function (Paddle's ``StaticFunction.code``)."""
    return getattr(function, "_d2s_source", None) or inspect.getsource(function)


def is_converted_code(code: types.CodeType) -> bool:
    return code in _CONVERTED_CODES


def _instantiate(function: Callable, converted: _Converted) -> Callable:
    original_free = function.__code__.co_freevars
    cells = []
    for name in converted.code.co_freevars:
        if name == JST:
            cells.append(types.CellType(jst))
        else:
            cells.append(function.__closure__[original_free.index(name)])
    result = types.FunctionType(converted.code, function.__globals__, function.__name__,
                                function.__defaults__, tuple(cells))
    result.__kwdefaults__ = function.__kwdefaults__
    result.__qualname__ = function.__qualname__
    result.__module__ = function.__module__
    result.__doc__ = function.__doc__
    result._d2s_source = converted.source
    result._d2s_original = function
    return result


def _convert_code(function: Callable) -> _Converted:
    if not isinstance(function, types.FunctionType):
        raise NotConvertible(f"{function!r} is not a Python function")
    if function.__name__ == "<lambda>":
        raise NotConvertible("it is a lambda")
    if inspect.isgeneratorfunction(function) or inspect.iscoroutinefunction(function) or \
            inspect.isasyncgenfunction(function):
        raise NotConvertible("it is a generator or coroutine")
    try:
        lines, first_line = inspect.getsourcelines(function)
    except (OSError, TypeError) as exc:
        raise NotConvertible(f"its source code is not available ({exc})") from None
    filename = function.__code__.co_filename
    source = textwrap.dedent("".join(lines))
    indent = len(lines[0]) - len(lines[0].lstrip()) if source.strip() else 0
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        raise NotConvertible(f"its source does not parse on its own ({exc.msg})") from None
    fdef = tree.body[0] if tree.body else None
    if not isinstance(fdef, ast.FunctionDef) or fdef.name != function.__name__:
        raise NotConvertible("its source is not a plain `def` statement")
    fdef.decorator_list = []
    ast.increment_lineno(tree, first_line - 1)
    _shift_columns(fdef, indent)
    owner = _owner_class(function)
    if owner:
        _Mangler(owner).visit(fdef)
    convert_scope(fdef, NameGen(), filename)
    text = ast.unparse(fdef)
    factory = ast.FunctionDef(name=_FACTORY, args=arguments([JST, *function.__code__.co_freevars]),
                              body=[fdef, ast.Return(value=ast.Name(id=fdef.name,
                                                                    ctx=ast.Load()))],
                              decorator_list=[], returns=None, type_comment=None)
    if "type_params" in ast.FunctionDef._fields:
        factory.type_params = []
    module = ast.Module(body=[located(factory, fdef)], type_ignores=[])
    compiled = compile(module, filename, "exec", dont_inherit=True)
    _register_codes(compiled)
    factory_code = next(c for c in compiled.co_consts if isinstance(c, types.CodeType))
    inner = next(c for c in factory_code.co_consts
                 if isinstance(c, types.CodeType) and c.co_name == fdef.name)
    return _Converted(inner, text)


def convert_scope(fdef: ast.FunctionDef, names: NameGen, filename: str) -> None:
    """Run the passes on one function and, first, on the functions defined inside it."""
    scope = [n for stmt in fdef.body for n in walk_scope(stmt)]
    if any(isinstance(n, (ast.Yield, ast.YieldFrom, ast.Await)) for n in scope):
        return                         # generators stay Python
    for node in scope:
        if isinstance(node, ast.FunctionDef) and node is not fdef:
            convert_scope(node, names, filename)
    user_globals = {n for node in scope if isinstance(node, ast.Global) for n in node.names}
    user_nonlocals = {n for node in scope if isinstance(node, ast.Nonlocal) for n in node.names}
    ReturnPass(names).run(fdef)
    LoopPass(names).run(fdef)
    ExpressionPass(filename).run(fdef)
    BlockPass(names, filename, user_globals, user_nonlocals).run(fdef)


def _owner_class(function: Callable) -> str | None:
    parts = function.__qualname__.split(".")
    return parts[-2] if len(parts) > 1 and parts[-2] != "<locals>" else None


class _Mangler(ast.NodeTransformer):
    """Python's private-name mangling (``self.__x`` in class ``A`` is ``self._A__x``), which
    the compiler applies only inside a class body."""

    def __init__(self, owner: str):
        self.prefix = "_" + owner.lstrip("_")

    def _mangle(self, name: str) -> str:
        if name.startswith("__") and not name.endswith("__") and self.prefix != "_":
            return self.prefix + name
        return name

    def visit_Name(self, node: ast.Name) -> ast.AST:
        node.id = self._mangle(node.id)
        return node

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        self.generic_visit(node)
        node.attr = self._mangle(node.attr)
        return node


def _shift_columns(tree: ast.AST, indent: int) -> None:
    """Columns back to the indented source (the parse saw it dedented)."""
    if not indent:
        return
    for node in ast.walk(tree):
        if getattr(node, "col_offset", None) is not None:
            node.col_offset += indent
            if getattr(node, "end_col_offset", None) is not None:
                node.end_col_offset += indent


def _register_codes(code: types.CodeType) -> None:
    _CONVERTED_CODES.add(code)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            _register_codes(const)


__all__ = ["NotConvertible", "convert_scope", "convert_to_static", "converted_source",
           "is_converted_code", "why_not_converted"]
