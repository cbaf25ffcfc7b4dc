"""Small builders for the AST the passes emit. Every node they make gets the source location
of the user statement it stands for (``located``), so the compiled code reports the user's
file and line in tracebacks and op call stacks."""
from __future__ import annotations

import ast
import itertools
from typing import Any, Sequence

JST = "_jst"          # the runtime namespace the converted code calls (pyfluid.jit.dy2static.jst)


class NameGen:
    """Fresh names for one converted function: ``__<kind>_<n>``."""

    def __init__(self) -> None:
        self._counter = itertools.count()

    def fresh(self, kind: str) -> str:
        return f"__{kind}_{next(self._counter)}"


def load(name: str) -> ast.Name:
    return ast.Name(id=name, ctx=ast.Load())


def store(name: str) -> ast.Name:
    return ast.Name(id=name, ctx=ast.Store())


def const(value: Any) -> ast.Constant:
    return ast.Constant(value=value)


def jst(attr: str) -> ast.Attribute:
    return ast.Attribute(value=load(JST), attr=attr, ctx=ast.Load())


def jst_call(attr: str, *args: ast.expr, **kwargs: ast.expr) -> ast.Call:
    return ast.Call(func=jst(attr), args=list(args),
                    keywords=[ast.keyword(arg=k, value=v) for k, v in kwargs.items()])


def thunk(expr: ast.expr) -> ast.Lambda:
    """``lambda: expr`` (evaluated only when the runtime decides to)."""
    return ast.Lambda(args=arguments(), body=expr)


def arguments(names: Sequence[str] = ()) -> ast.arguments:
    return ast.arguments(posonlyargs=[], args=[ast.arg(arg=n) for n in names], vararg=None,
                         kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])


def assign(name: str, value: ast.expr) -> ast.Assign:
    return ast.Assign(targets=[store(name)], value=value)


def names_tuple(names: Sequence[str], ctx: ast.expr_context) -> ast.Tuple:
    return ast.Tuple(elts=[ast.Name(id=n, ctx=ctx) for n in names], ctx=ctx)


def strings(names: Sequence[str]) -> ast.Tuple:
    return ast.Tuple(elts=[const(n) for n in names], ctx=ast.Load())


def scope_decls(names: Sequence[str], globals_: set[str]) -> list[ast.stmt]:
    """``nonlocal``/``global`` statements making ``names`` refer to the enclosing binding."""
    outer = sorted(n for n in names if n in globals_)
    inner = sorted(n for n in names if n not in globals_)
    decls: list[ast.stmt] = []
    if outer:
        decls.append(ast.Global(names=outer))
    if inner:
        decls.append(ast.Nonlocal(names=inner))
    return decls


def function(name: str, body: list[ast.stmt], args: Sequence[str] = ()) -> ast.FunctionDef:
    node = ast.FunctionDef(name=name, args=arguments(args), body=body or [ast.Pass()],
                           decorator_list=[], returns=None, type_comment=None)
    if "type_params" in ast.FunctionDef._fields:        # Python 3.12+
        node.type_params = []
    return node


def located(node: ast.AST, origin: ast.AST) -> Any:
    """Give every node of ``node`` without a location the location of ``origin``."""
    for sub in ast.walk(node):
        if "lineno" in sub._attributes and getattr(sub, "lineno", None) is None:
            sub.lineno = origin.lineno
            sub.col_offset = origin.col_offset
            sub.end_lineno = getattr(origin, "end_lineno", origin.lineno)
            sub.end_col_offset = getattr(origin, "end_col_offset", origin.col_offset)
    return node


def located_all(nodes: list[ast.AST], origin: ast.AST) -> list:
    for node in nodes:
        located(node, origin)
    return nodes


def loc_string(filename: str, node: ast.AST) -> ast.Constant:
    """``"file:line"`` of a statement, for runtime messages."""
    return const(f"{filename}:{node.lineno}")
